"""The starter strategies as batched policies (`games/drones/batch.BatchPolicy`): N matches per call.

Each plays exactly the actions of its scalar twin in `examples.py` (tested match by match against
the scalar engine), so a batch of N matches gives the N results the scalar engine gives:

- `BatchZergy`, `BatchPacifist`, `BatchAdaptive`: deterministic, a few array operations per turn;
- `BatchRandomonium`: its mulberry32 (spec 7.4) per match in numpy uint32 arithmetic, seeded from
  the seat's playerSeed. mulberry32's state only ever advances by a constant, so drawing for the
  active matches alone is one masked add.

Tactician is not batched: its per-round choice (history of 20 inferred plans, outcome tables per
turn limit, hit rates, exploration draws) is vectorisable, but not in this change.

`BATCH_STARTERS` maps the scalar starter names to these classes.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from botarena.games.drones.batch import BatchActions, BatchObservation, BatchPolicy, Ints, count_dtype
from botarena.games.drones.config import DronesConfig

U32 = npt.NDArray[np.uint32]

_GOLDEN = np.uint32(0x6D2B79F5)
_TWO_32 = 4294967296.0


def mulberry32_bits(a: U32, out: U32, scratch: U32) -> U32:
    """mulberry32's 32-bit output word for already-advanced states `a` (spec 7.4), into `out`.

    `random()` is this word / 2**32. In place on preallocated buffers: a temporary per operation
    would cost more than the arithmetic at large N.
    """
    t, u = out, scratch
    np.right_shift(a, 15, out=t)
    np.bitwise_xor(t, a, out=t)
    np.bitwise_or(a, 1, out=u)
    np.multiply(t, u, out=t)  # Math.imul(a ^ a >>> 15, a | 1)
    np.right_shift(t, 7, out=u)
    np.bitwise_xor(u, t, out=u)
    v = np.bitwise_or(t, 61)
    np.multiply(u, v, out=u)
    np.add(u, t, out=u)
    np.bitwise_xor(t, u, out=t)  # t ^= t + Math.imul(t ^ t >>> 7, t | 61)
    np.right_shift(t, 14, out=u)
    np.bitwise_xor(t, u, out=t)
    return t


def mulberry32(a: U32) -> npt.NDArray[np.float64]:
    """mulberry32's `random()` in [0, 1) for already-advanced states `a`, elementwise."""
    return mulberry32_bits(a, np.empty_like(a), np.empty_like(a)) / _TWO_32  # type: ignore[no-any-return]


class _Policy:
    """Shared plumbing: the number of matches, the counts' dtype, reusable action buffers."""

    def __init__(self) -> None:
        self.n = 0

    def reset(self, n: int, bot_seeds: Callable[[], Ints], config: DronesConfig) -> None:
        self.n = n
        dtype = count_dtype(config)
        self._zeros = np.zeros(n, dtype=dtype)
        self._p = np.zeros(n, dtype=dtype)
        self._s = np.zeros(n, dtype=dtype)
        self._never = np.zeros(n, dtype=bool)
        self._attack = np.zeros(n, dtype=bool)

    def _split(self, capacity: npt.NDArray[np.generic], early: npt.NDArray[np.bool_]) -> BatchActions:
        """All capacity into producers where `early`, else all into soldiers; never attacks."""
        np.multiply(capacity, early, out=self._p)
        np.subtract(capacity, self._p, out=self._s)
        return BatchActions(self._p, self._s, self._never)


class BatchZergy(_Policy):
    """Zergy McZergface: everything into soldiers; attack once they reach defenderBonus + 1."""

    def act(self, obs: BatchObservation) -> BatchActions:
        np.greater_equal(obs.soldiers + obs.producers, obs.defender_bonus + 1, out=self._attack)
        return BatchActions(self._zeros, obs.producers, self._attack)


class BatchPacifist(_Policy):
    """Hard Hitting Pacifist: producers before turn L, everything into soldiers on L; never attacks."""

    def act(self, obs: BatchObservation) -> BatchActions:
        return self._split(obs.producers, obs.turn < obs.turn_limit)


class BatchAdaptive(_Policy):
    """Adaptive Defender: soldiers from the turn the opponent attacked last round (or from L)."""

    def act(self, obs: BatchObservation) -> BatchActions:
        if obs.turn == 1:  # the soldier turn is fixed for the round: work it out once
            self._switch = np.where(obs.prev_them_attacked, obs.prev_turns, obs.turn_limit)
        return self._split(obs.producers, obs.turn < self._switch)


class BatchRandomonium(_Policy):
    """Randomonium: attack turn floor(r (L+1)) + 1 per round, soldiers floor(r (c+1)) per turn.

    With r = w / 2**32 for mulberry32's word w, floor(r x) is the high word of the 64-bit product
    w x whenever that product is exact as a double (x < 2**21): then the soldiers are computed in
    uint32 halves (16-bit counts); otherwise in float64, as the JavaScript original computes them.
    """

    def reset(self, n: int, bot_seeds: Callable[[], Ints], config: DronesConfig) -> None:
        super().reset(n, bot_seeds, config)
        self.state: U32 = bot_seeds().astype(np.uint32)
        self.attack_turn = np.zeros(n, dtype=np.int64)
        self._exact16 = self._p.dtype == np.int16  # counts < 2**15: the uint32 halves are exact
        self._a = np.empty(n, dtype=np.uint32)
        self._w = np.empty(n, dtype=np.uint32)
        self._u = np.empty(n, dtype=np.uint32)
        self._x = np.empty(n, dtype=np.uint32)

    def act(self, obs: BatchObservation) -> BatchActions:
        state = self.state
        if obs.turn == 1:  # every match starts its round on this turn, so all draw
            state += _GOLDEN
            r = mulberry32(state)
            self.attack_turn = np.floor(r * (obs.turn_limit + 1)).astype(np.int64) + 1
        drawn = np.add(state, _GOLDEN, out=self._a)
        state += _GOLDEN * obs.active  # only the matches that play this turn consume a draw
        word = mulberry32_bits(drawn, self._w, self._u)
        capacity = obs.producers
        if self._exact16:
            self._high_word(word, capacity)
        else:
            np.copyto(self._s, np.floor(word / _TWO_32 * (capacity + 1)), casting="unsafe")
        np.subtract(capacity, self._s, out=self._p)
        np.greater_equal(obs.turn, self.attack_turn, out=self._attack)
        return BatchActions(self._p, self._s, self._attack)

    def _high_word(self, word: U32, capacity: npt.NDArray[np.generic]) -> None:
        """self._s = (word * (capacity + 1)) >> 32 in uint32 halves (capacity + 1 <= 2**16)."""
        x, low = self._x, self._u
        np.add(capacity, 1, out=x, casting="unsafe")
        np.bitwise_and(word, 0xFFFF, out=low)
        np.multiply(low, x, out=low)
        np.right_shift(low, 16, out=low)
        np.right_shift(word, 16, out=word)
        np.multiply(word, x, out=word)
        np.add(word, low, out=word)
        np.right_shift(word, 16, out=word)
        np.copyto(self._s, word, casting="unsafe")


BATCH_STARTERS: dict[str, Callable[[], BatchPolicy]] = {
    "randomonium": BatchRandomonium,
    "zergy": BatchZergy,
    "pacifist": BatchPacifist,
    "adaptive": BatchAdaptive,
}
"""The batched twins of `bots.STARTERS`, by the same names (Tactician has none yet)."""
