"""Hostile: on turn 1 starts 5 worker processes that each fill 100 MiB and then hold it (each under
any per-process limit); on turn 2 it waits until every worker holds its memory or has been killed,
and answers. Under a 128 MiB limit on the whole tree (the zoo's policy for this attack) at most one
worker can hold its 100 MiB at a time: the sizes are small so that the wait is short on any machine."""

import contextlib
import os
import select
import signal

from _wire import honest, note, serve

WORKERS = 5
EACH = 100 << 20
workers = {}  # pid -> read end of its "I hold it" pipe


def worker(index, done_fd):
    with contextlib.suppress(OSError), open("/proc/self/oom_score_adj", "w") as handle:
        handle.write("1000")  # the kernel kills a worker, not the bot that reports on them
    hoard = b"\x01" * EACH  # bytes * n writes every page
    note(f"worker {index} holds {len(hoard) >> 20} MiB")
    os.write(done_fd, b"x")
    signal.pause()


def start_workers():
    for index in range(WORKERS):
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            worker(index, write_fd)
            os._exit(0)
        os.close(write_fd)
        workers[pid] = read_fd


def wait_workers():
    """Until each worker said it holds its memory (a byte) or died (EOF on its pipe)."""
    pending = set(workers.values())
    while pending:
        ready, _, _ = select.select(list(pending), [], [])
        for fd in ready:
            os.read(fd, 1)
            pending.discard(fd)
    held = 0
    for pid in workers:
        if os.waitpid(pid, os.WNOHANG) == (0, 0):
            held += 1
    note(f"{held} of {WORKERS} workers hold {EACH >> 20} MiB each")


def answer(envelope):
    if envelope["type"] == "turn" and envelope["turn"] == 1:
        start_workers()
    elif envelope["type"] == "turn" and envelope["turn"] == 2:
        wait_workers()
    return honest(envelope)


serve(answer)
