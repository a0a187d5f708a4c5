"""Hostile: on turn 1 forks children until fork fails (capped at 500 so that an unsandboxed run
cannot hurt the machine); each child tries to fork a grandchild and then waits forever. It reports
how many children it made and answers: the pids limit of the sandbox stops it far below the cap."""

import os
import signal

from _wire import honest, note, serve

CAP = 500


def bomb():
    made = 0
    while made < CAP:
        try:
            pid = os.fork()
        except OSError as exc:
            note(f"fork failed after {made}: {exc}")
            break
        if pid == 0:
            try:
                if os.fork() == 0:  # a grandchild too, as a real bomb would
                    signal.pause()
            except OSError:
                pass
            signal.pause()
            os._exit(0)
        made += 1
    return made


def answer(envelope):
    if envelope["type"] == "turn" and envelope["turn"] == 1:
        note(f"forked {bomb()}")
    return honest(envelope)


serve(answer)
