"""mulberry32, the seeded `Math.random` of the JavaScript adapter (spec 7.4), in Python.

Python starter bots draw from it in the same order as their JavaScript twins, so the same
`playerSeed` makes the same moves in both languages.
"""

from __future__ import annotations

MASK = 0xFFFFFFFF


def _imul(a: int, b: int) -> int:
    return (a * b) & MASK


class Mulberry32:
    """A 32-bit-state generator whose `random()` returns floats in [0, 1), as JavaScript's does."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK

    def random(self) -> float:
        self.state = a = (self.state + 0x6D2B79F5) & MASK
        t = _imul(a ^ (a >> 15), a | 1)
        t ^= (t + _imul(t ^ (t >> 7), t | 61)) & MASK
        return ((t ^ (t >> 14)) & MASK) / 4294967296
