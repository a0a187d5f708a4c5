"""The game's random sources (DR-1 .. DR-4): the original's pi-digit walk and the platform's PCG64.

Both expose `draw(l, r)`, the spec's `R(l, r)`: an integer in [l, r], and `R(l, l)` consumes nothing.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Protocol

import numpy as np

from botarena.core.rng import stream

TABLE_SIZE = 9973
SEED_MODULUS = 109703
JUMP_MODULUS = 11
ENGINE_STREAM = "domains.engine"

PERMUTATIONS: tuple[tuple[int, int, int, int], ...] = tuple(
    (a, b, c, d)
    for a in range(4)
    for b in range(4)
    for c in range(4)
    for d in range(4)
    if len({a, b, c, d}) == 4
)
"""The 24 orderings of (0, 1, 2, 3) in lexicographic order (DR-4)."""


def _chudnovsky_terms(a: int, b: int) -> tuple[int, int, int]:
    """Binary splitting of the Chudnovsky series over terms a..b-1: (P, Q, T)."""
    if b - a == 1:
        if a == 0:
            p = q = 1
        else:
            p = (6 * a - 5) * (2 * a - 1) * (6 * a - 1)
            q = a * a * a * 10939058860032000  # 640320**3 // 24
        t = p * (13591409 + 545140134 * a)
        return p, q, -t if a & 1 else t
    m = (a + b) // 2
    p1, q1, t1 = _chudnovsky_terms(a, m)
    p2, q2, t2 = _chudnovsky_terms(m, b)
    return p1 * p2, q1 * q2, q2 * t1 + p1 * t2


def _to_digits(value: int, width: int) -> str:
    """Decimal text of a non-negative int without the interpreter's digit limit (split in halves)."""
    if width <= 1000:
        return str(value).rjust(width, "0")
    half = width // 2
    high, low = divmod(value, 10**half)
    return _to_digits(high, width - half) + _to_digits(low, half)


@lru_cache(maxsize=1)
def pi_table() -> bytes:
    """Table T of DR-2: the first 9,972 digits of pi ("3" and 9,971 decimals), then a final 0.

    The Chudnovsky series (about 14 digits a term, summed by binary splitting: a few milliseconds)
    with 10 guard digits; a test checks the table against the fixture's sha256.
    """
    decimals = TABLE_SIZE - 2  # digits after the point
    guard = 10
    unity = 10 ** (decimals + guard)
    terms = (decimals + guard) // 14 + 2
    _, q, t = _chudnovsky_terms(0, terms)
    pi = 426880 * math.isqrt(10005 * unity * unity) * q // t
    digits = _to_digits(pi // 10**guard, decimals + 1)
    return (digits + "0").encode("ascii")


_TABLE_VALUES: tuple[int, ...] = ()


def _values() -> tuple[int, ...]:
    global _TABLE_VALUES
    if not _TABLE_VALUES:
        _TABLE_VALUES = tuple(b - 48 for b in pi_table())
    return _TABLE_VALUES


class RandomSource(Protocol):
    """The draw interface of DR-1."""

    def draw(self, lo: int, hi: int) -> int: ...


class ReferenceRandom:
    """DR-2: the original's digit walk over table T, seeded from S mod 109703."""

    __slots__ = ("_digits", "index", "jump")

    def __init__(self, seed: int) -> None:
        s = seed % SEED_MODULUS  # Python's % is already the non-negative remainder
        self.index = s % TABLE_SIZE
        self.jump = s % JUMP_MODULUS + 1
        self._digits = _values()

    def draw(self, lo: int, hi: int) -> int:
        if lo >= hi:
            return lo
        digits, jump, i = self._digits, self.jump, self.index
        number = 0
        for _ in range(5):
            i = (i + jump) % TABLE_SIZE
            number = number * 10 + digits[i]
        self.index = i
        return lo + ((hi - lo + 1) * number) // 100000


class Pcg64Random:
    """DR-3: one `integers(l, r + 1)` per draw from the named stream `domains.engine`."""

    __slots__ = ("generator",)

    def __init__(self, match_seed: int) -> None:
        self.generator: np.random.Generator = stream(match_seed, ENGINE_STREAM)

    def draw(self, lo: int, hi: int) -> int:
        if lo >= hi:
            return lo
        return int(self.generator.integers(lo, hi + 1))


class ScriptedRandom:
    """A test source returning listed values in order (DR-1: tests may inject one).

    Each value must lie in [l, r] of its call; `R(l, l)` consumes nothing, as everywhere.
    """

    def __init__(self, values: list[int] | tuple[int, ...] = ()) -> None:
        self.values = list(values)
        self.calls: list[tuple[int, int, int]] = []

    def draw(self, lo: int, hi: int) -> int:
        if lo >= hi:
            return lo
        if not self.values:
            raise AssertionError(f"scripted source exhausted at R({lo}, {hi})")
        value = self.values.pop(0)
        if not lo <= value <= hi:
            raise AssertionError(f"scripted value {value} outside R({lo}, {hi})")
        self.calls.append((lo, hi, value))
        return value


def make_source(kind: str, seed: int) -> RandomSource:
    """The engine's source for config key `rng`."""
    if kind == "reference":
        return ReferenceRandom(seed)
    return Pcg64Random(seed)


class BotRandom:
    """DR-4: a bot's private stream, the DR-2 walk seeded with its `bot_seed`."""

    def __init__(self, bot_seed: int = 0) -> None:
        self._source = ReferenceRandom(bot_seed)

    def random_number(self, lo: int, hi: int) -> int:
        return self._source.draw(lo, hi)

    def random_permutation(self) -> list[int]:
        return list(PERMUTATIONS[self._source.draw(0, 23)])
