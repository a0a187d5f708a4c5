"""Zoo: plays the start and two turns properly, then exits (CRASHED process_exited after, GD-26)."""

import sys

from _proto import loop

turns = 0


def answer(envelope):
    global turns
    if envelope["type"] == "turn":
        turns += 1
        if turns > 2:
            sys.exit(3)
        return {"newProducers": 1}
    return {}


loop(answer)
