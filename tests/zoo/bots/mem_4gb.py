"""Hostile: on turn 1 fills 4 GiB of memory, then would answer. The memory limit stops it before
(CRASHED process_exited from turn 1 on); the runner's own memory does not grow."""

from _wire import honest, note, serve

hoard = []


def answer(envelope):
    if envelope["type"] == "turn":
        hoard.append(b"\x01" * (4 << 30))  # bytes * n writes every page: real memory, not a reservation
        note("held 4 GiB: no memory limit")
    return honest(envelope)


serve(answer)
