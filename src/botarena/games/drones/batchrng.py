"""The match's named random streams (GD-3), for N matches at once, in numpy.

`botarena.core.rng.stream(seed, name)` is numpy's `Generator(PCG64(SeedSequence(entropy)))`. Making one
per match costs tens of microseconds, which would cap a batched engine far below its stepping speed,
so `StreamBatch` re-derives the same streams for a whole array of match seeds with array arithmetic:

- numpy's `SeedSequence` mixing (uint32 hash rounds) over the entropy words
  `[seed & 0xFFFFFFFF, seed >> 32, *sha256 words of the name]`, then `generate_state(4, uint64)`;
- PCG64 seeding and stepping (the 128-bit LCG, kept as two uint64 halves) and its XSL-RR output;
- `next_uint32` with PCG64's one-word buffer (the high half of a 64-bit output is kept for the next
  32-bit draw, across calls, as numpy's bit generator does);
- `Generator.integers(lo, hi)` for one scalar draw with hi - lo <= 2**32: Lemire's bounded method
  on 32-bit words (with its rare rejection), or the raw word when the span is exactly 2**32.

Every draw takes a mask: only the masked matches consume from their streams, so each match's
stream advances exactly as the scalar engine's does. The equality with `core.rng.stream` is tested
draw by draw (tests/games/drones/test_drones_batch.py).
"""

from __future__ import annotations

from typing import cast

import numpy as np
import numpy.typing as npt

from botarena.core.rng import _name_words

U32 = npt.NDArray[np.uint32]
U64 = npt.NDArray[np.uint64]
Mask = npt.NDArray[np.bool_]

# numpy's SeedSequence constants (bit_generator.pyx), all uint32 arithmetic mod 2**32.
_INIT_A = 0x43B0D7E5
_MULT_A = 0x931E8875
_INIT_B = 0x8B51F9DD
_MULT_B = 0x58F38DED
_MIX_MULT_L = np.uint32(0xCA01F9DD)
_MIX_MULT_R = np.uint32(0x4973F715)
_XSHIFT = np.uint32(16)
_POOL_SIZE = 4
_M32 = 0xFFFFFFFF

# PCG64's 128-bit multiplier (PCG_DEFAULT_MULTIPLIER_128), as its high and low 64-bit halves.
_MUL_HI = np.uint64(0x2360ED051FC65DA4)
_MUL_LO = np.uint64(0x4385DF649FCCF645)
_MUL_LO_0 = np.uint64(0x4385DF649FCCF645 & _M32)
_MUL_LO_1 = np.uint64(0x4385DF649FCCF645 >> 32)
_LOW32 = np.uint64(_M32)
_SH32 = np.uint64(32)


def _hashmix(value: U32, hash_const: int) -> tuple[U32, int]:
    """SeedSequence's hashmix: (mixed value, the next hash constant)."""
    value = value ^ np.uint32(hash_const)
    hash_const = (hash_const * _MULT_A) & _M32
    value = value * np.uint32(hash_const)
    return value ^ (value >> _XSHIFT), hash_const


def _mix(x: U32, y: U32) -> U32:
    result = _MIX_MULT_L * x - _MIX_MULT_R * y
    return result ^ (result >> _XSHIFT)  # type: ignore[no-any-return]


def _seed_state(seeds: U64, name: str) -> list[U64]:
    """`SeedSequence([lo32, hi32, *name words]).generate_state(4, uint64)` for every seed: 4 arrays."""
    n = seeds.shape[0]
    entropy: list[U32] = [
        (seeds & _LOW32).astype(np.uint32),
        (seeds >> _SH32).astype(np.uint32),
        *(np.full(n, word, dtype=np.uint32) for word in _name_words(name)),
    ]
    with np.errstate(over="ignore"):
        hash_const = _INIT_A
        pool: list[U32] = []
        for i in range(_POOL_SIZE):
            mixed, hash_const = _hashmix(entropy[i], hash_const)
            pool.append(mixed)
        for i_src in range(_POOL_SIZE):
            for i_dst in range(_POOL_SIZE):
                if i_src != i_dst:
                    mixed, hash_const = _hashmix(pool[i_src], hash_const)
                    pool[i_dst] = _mix(pool[i_dst], mixed)
        for i_src in range(_POOL_SIZE, len(entropy)):
            for i_dst in range(_POOL_SIZE):
                mixed, hash_const = _hashmix(entropy[i_src], hash_const)
                pool[i_dst] = _mix(pool[i_dst], mixed)
        words: list[U32] = []
        hash_b = _INIT_B
        for i in range(8):
            value = pool[i % _POOL_SIZE] ^ np.uint32(hash_b)
            hash_b = (hash_b * _MULT_B) & _M32
            value = value * np.uint32(hash_b)
            words.append(value ^ (value >> _XSHIFT))
    return [words[2 * k].astype(np.uint64) | (words[2 * k + 1].astype(np.uint64) << _SH32) for k in range(4)]


def _mulhi(a: U64) -> U64:
    """The high 64 bits of a * _MUL_LO (a 64x64 -> 128-bit product), from 32-bit limbs."""
    a0 = a & _LOW32
    a1 = a >> _SH32
    p00 = a0 * _MUL_LO_0
    p01 = a0 * _MUL_LO_1
    p10 = a1 * _MUL_LO_0
    mid = (p00 >> _SH32) + (p01 & _LOW32) + (p10 & _LOW32)
    return a1 * _MUL_LO_1 + (p01 >> _SH32) + (p10 >> _SH32) + (mid >> _SH32)  # type: ignore[no-any-return]


class StreamBatch:
    """The stream `name` (GD-3) of each of N matches: `core.rng.stream(seeds[i], name)`, vectorised."""

    def __init__(self, seeds: U64, name: str) -> None:
        s_hi, s_lo, q_hi, q_lo = _seed_state(np.asarray(seeds, dtype=np.uint64), name)
        n = s_hi.shape[0]
        one = np.uint64(1)
        # pcg_setseq_128_srandom_r: state = 0; inc = (initseq << 1) | 1; step; state += initstate; step.
        self.inc_hi: U64 = (q_hi << one) | (q_lo >> np.uint64(63))
        self.inc_lo: U64 = (q_lo << one) | one
        self.hi: U64 = np.zeros(n, dtype=np.uint64)
        self.lo: U64 = np.zeros(n, dtype=np.uint64)
        everyone = np.ones(n, dtype=bool)
        self._step(everyone)
        lo = self.lo + s_lo
        self.hi = self.hi + s_hi + (lo < s_lo).astype(np.uint64)
        self.lo = lo
        self._step(everyone)
        self.has32: Mask = np.zeros(n, dtype=bool)
        self.buf32: U64 = np.zeros(n, dtype=np.uint64)

    def _step(self, mask: Mask) -> None:
        """Advance the 128-bit LCG of the masked matches: state = state * MUL + inc (mod 2**128)."""
        hi, lo = self.hi[mask], self.lo[mask]
        with np.errstate(over="ignore"):
            product = lo * _MUL_LO
            new_lo = product + self.inc_lo[mask]
            carry = (new_lo < product).astype(np.uint64)
            new_hi = hi * _MUL_LO + lo * _MUL_HI + _mulhi(lo) + self.inc_hi[mask] + carry
        self.hi[mask] = new_hi
        self.lo[mask] = new_lo

    def next64(self, mask: Mask) -> U64:
        """PCG64's next 64-bit output (XSL-RR) for the masked matches, in mask order."""
        self._step(mask)
        hi = self.hi[mask]
        x = hi ^ self.lo[mask]
        rot = hi >> np.uint64(58)
        return cast(U64, (x >> rot) | (x << ((np.uint64(64) - rot) & np.uint64(63))))

    def next32(self, mask: Mask) -> U64:
        """PCG64's `next_uint32` for the masked matches (as uint64 values), with its one-word buffer."""
        out = np.empty(int(np.count_nonzero(mask)), dtype=np.uint64)
        buffered = self.has32[mask]
        out[buffered] = self.buf32[mask][buffered]
        fresh = mask.copy()
        fresh[mask] = ~buffered
        word = self.next64(fresh)
        out[~buffered] = word & _LOW32
        self.buf32[fresh] = word >> _SH32
        self.has32[mask] = ~buffered
        return out

    def integers(self, low: int, high: int, mask: Mask) -> npt.NDArray[np.int64]:
        """One `Generator.integers(low, high)` draw (int64, high exclusive) per masked match.

        Spans up to 2**32 only (all the engine needs); span 1 consumes nothing, as numpy's does.
        """
        span = high - 1 - low
        if not 0 <= span <= _M32:
            raise ValueError(f"integers({low}, {high}): span must be in 1..2**32")
        count = int(np.count_nonzero(mask))
        if span == 0:
            return np.full(count, low, dtype=np.int64)
        if span == _M32:
            return self.next32(mask).astype(np.int64) + low
        span_excl = np.uint64(span + 1)
        product = self.next32(mask) * span_excl
        threshold = np.uint64((_M32 - span) % (span + 1))
        # Lemire: redraw while the low word falls under the threshold (rare; never for span 1).
        reject = (product & _LOW32) < threshold
        while reject.any():
            again = mask.copy()
            again[mask] = reject
            product[reject] = self.next32(again) * span_excl
            reject = (product & _LOW32) < threshold
        return (product >> _SH32).astype(np.int64) + low
