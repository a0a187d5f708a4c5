"""Zoo: answers the start and turn 1, then tries to allocate 2 GiB (the memory limit stops it)."""

import sys

from _proto import loop

hoard = []


def answer(envelope):
    if envelope["type"] == "turn" and envelope["turn"] >= 2:
        hoard.append(bytearray(2 << 30))  # MemoryError under RLIMIT_AS: the process dies
        print("allocated 2 GiB: no memory limit?", file=sys.stderr, flush=True)
    return {}


loop(answer)
