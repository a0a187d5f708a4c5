"""The winning strategy of normal-play Nim: leave heaps whose sizes XOR to zero (Bouton, 1901).

With `max_take` > 0 each heap counts modulo `max_take + 1` (the Sprague-Grundy value of a
subtraction game), so the same rule plays that variant well too."""

from __future__ import annotations

from functools import reduce
from operator import xor
from typing import Any


class Xor:
    """Moves to a position of Grundy value 0 when there is one; else takes one object."""

    def act(self, obs: dict[str, Any]) -> dict[str, Any]:
        heaps: list[int] = obs["heaps"]
        period = obs["max_take"] + 1 if obs["max_take"] else None
        grundy = [size % period if period else size for size in heaps]
        total = reduce(xor, grundy, 0)
        for index, value in enumerate(grundy):
            take = value - (value ^ total)
            if total and take > 0:
                return {"heap": index, "take": take}
        heap = next(index for index, size in enumerate(heaps) if size > 0)
        return {"heap": heap, "take": 1}
