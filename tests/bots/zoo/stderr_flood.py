"""Zoo: floods stderr (30 MiB at start, 1 MiB per turn) but otherwise plays properly."""

import sys

from _proto import loop

BLOCK = ("flood " * 170 + "\n").encode() * 1024  # about 1 MiB


def answer(envelope):
    blocks = 30 if envelope["type"] == "start" else 1
    for _ in range(blocks):
        sys.stderr.buffer.write(BLOCK)
    sys.stderr.flush()
    return {"newSoldiers": 1} if envelope["type"] == "turn" else {}


loop(answer)
