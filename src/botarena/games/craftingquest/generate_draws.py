"""The CQ-6 draw wrapper around one named random stream.

Every random number of scenario generation comes from `stream(match_seed, "craftingquest.<name>")`
through these draws, in the order the rules give; play itself draws nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import numpy as np

from botarena.core.rng import stream

T = TypeVar("T")

STREAM_PREFIX = "craftingquest."


class Draws:
    """CQ-6: `randint`, `randrange`, `random`, `uniform`, `pick` and `pop` on one stream."""

    __slots__ = ("generator", "name")

    def __init__(self, match_seed: int, name: str) -> None:
        self.name = name
        self.generator = stream(match_seed, STREAM_PREFIX + name)

    def randint(self, a: int, b: int) -> int:
        """An integer in a..b inclusive (`randint(a, a)` returns a and consumes nothing)."""
        return int(self.generator.integers(a, b + 1))

    def randrange(self, n: int) -> int:
        """An integer in 0..n-1."""
        return int(self.generator.integers(0, n))

    def random(self) -> float:
        """A float in [0, 1)."""
        return float(self.generator.random())

    def uniform(self, a: float, b: float) -> float:
        """`a + (b - a) * random()`."""
        return a + (b - a) * self.random()

    def pick(self, items: Sequence[T]) -> T:
        """`items[randrange(len(items))]`."""
        return items[self.randrange(len(items))]

    def pop(self, items: list[T]) -> T:
        """Remove and return `items[randrange(len(items))]`; the rest keeps its order."""
        return items.pop(self.randrange(len(items)))

    def randints(self, highs: Sequence[int]) -> list[int]:
        """`[randint(1, h) for h in highs]` in one call.

        numpy draws each element of an array-bounded `integers` call exactly as the matching scalar
        call would, so the values and the stream's state afterwards are the same as the loop's
        (checked by the tests); one call is much faster for the thousands of CQ-21 vector draws.
        """
        if not highs:
            return []
        bounds = np.asarray(highs, dtype=np.int64) + 1
        values: list[int] = self.generator.integers(1, bounds).tolist()
        return values
