"""Hex geometry of DatsPulse (spec §3.1): odd-r offset coordinates, cube distance, rings, the map.

A hex is an offset pair (q, r) (DP-1). Row parity is `r & 1`, which Python computes in two's
complement, so negative odd rows are odd. `HexMap` numbers the hexes of a radius-R map in canonical
order (ascending r, then q; DP-5), so sorting hex indices sorts hexes canonically, and precomputes the
neighbour table the rules walk.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from enum import IntEnum
from functools import lru_cache

import numpy as np

Hex = tuple[int, int]


class Direction(IntEnum):
    """DP-2 canonical direction order."""

    E = 0
    NE = 1
    NW = 2
    W = 3
    SW = 4
    SE = 5


# DP-2: (dq, dr) per direction, for even rows and for odd rows.
_EVEN: tuple[Hex, ...] = ((1, 0), (0, -1), (-1, -1), (-1, 0), (-1, 1), (0, 1))
_ODD: tuple[Hex, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (0, 1), (1, 1))

# DP-6: the axial (dx, dz) directions a ring walk takes, in its order NW, W, SW, SE, E, NE.
_RING_WALK: tuple[Hex, ...] = ((0, -1), (-1, 0), (-1, 1), (0, 1), (1, 0), (1, -1))


def neighbour(q: int, r: int, direction: int) -> Hex:
    """The neighbour of (q, r) in `direction` (DP-2)."""
    dq, dr = (_ODD if r & 1 else _EVEN)[direction]
    return q + dq, r + dr


def neighbours(q: int, r: int) -> list[Hex]:
    """The six neighbours of (q, r) in canonical direction order E, NE, NW, W, SW, SE (DP-2)."""
    deltas = _ODD if r & 1 else _EVEN
    return [(q + dq, r + dr) for dq, dr in deltas]


def to_axial(q: int, r: int) -> Hex:
    """Offset (q, r) to axial (x, z) (DP-3); cube y = -x - z."""
    return q - (r - (r & 1)) // 2, r


def from_axial(x: int, z: int) -> Hex:
    """Axial (x, z) back to offset (q, r) (DP-3)."""
    return x + (z - (z & 1)) // 2, z


def distance(a: Hex, b: Hex) -> int:
    """Hex distance between two offset hexes (DP-3)."""
    ax, az = to_axial(*a)
    bx, bz = to_axial(*b)
    dx, dz = ax - bx, az - bz
    return max(abs(dx), abs(dz), abs(dx + dz))


def adjacent(a: Hex, b: Hex) -> bool:
    """True when b is one of the six neighbours of a (a hex is not adjacent to itself, DP-2)."""
    return distance(a, b) == 1


def axial_length(dx: int, dz: int) -> int:
    """Distance of the axial offset (dx, dz) from (0, 0)."""
    return max(abs(dx), abs(dz), abs(dx + dz))


def ring(rho: int) -> list[Hex]:
    """DP-6: the 6ρ hexes at distance ρ >= 1 from (0, 0), in the fixed walk order, as offset pairs."""
    if rho < 1:
        raise ValueError("ring radius must be >= 1")
    x, z = rho, 0
    out: list[Hex] = []
    for dx, dz in _RING_WALK:
        for _ in range(rho):
            out.append(from_axial(x, z))
            x, z = x + dx, z + dz
    return out


@lru_cache(maxsize=64)
def disc_offsets(radius: int) -> tuple[Hex, ...]:
    """Axial offsets (dx, dz) within `radius` of (0, 0), in canonical order (dz, then dx; DP-43).

    Canonical by dz then dx is canonical by (r, q) after any translation, because q = x + (z - z&1)/2
    is increasing in x within a row."""
    return tuple(
        (dx, dz)
        for dz in range(-radius, radius + 1)
        for dx in range(-radius, radius + 1)
        if axial_length(dx, dz) <= radius
    )


def hex_count(radius: int) -> int:
    """3R(R+1) + 1 (DP-4)."""
    return 3 * radius * (radius + 1) + 1


def map_hexes(radius: int) -> Iterator[Hex]:
    """Every hex of the radius-R map in canonical order (ascending r, then q; DP-4, DP-5)."""
    for r in range(-radius, radius + 1):
        # in row r the axial x runs over [max(-R, -R - r), min(R, R - r)]
        shift = (r - (r & 1)) // 2
        for x in range(max(-radius, -radius - r), min(radius, radius - r) + 1):
            yield x + shift, r


#: Most discs a HexMap keeps (each a tuple of up to 61 numbers for a scout's view 4).
DISC_CACHE_LIMIT = 50_000


def _map_arrays(radius: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Offset q, offset r and axial x of every hex in canonical order (the vector form of map_hexes)."""
    rows = np.arange(-radius, radius + 1, dtype=np.int64)
    x_lo = np.maximum(-radius, -radius - rows)
    x_hi = np.minimum(radius, radius - rows)
    lengths = x_hi - x_lo + 1
    r = np.repeat(rows, lengths)
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    x = np.arange(len(r), dtype=np.int64) - starts + np.repeat(x_lo, lengths)
    q = x + (r - (r & 1)) // 2
    return q, r, x


def _neighbour_table(radius: int, q: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Neighbour numbers (DP-2 order, -1 off the map) of every hex, by row arithmetic in numpy.

    Row r of the map holds the offset columns q_min(r)..q_max(r) contiguously, starting at number
    start(r), so the hex (q, r) is start(r) + q - q_min(r) when q is in range."""
    rows = np.arange(-radius, radius + 1)
    shift = (rows - (rows & 1)) // 2
    q_min = np.maximum(-radius, -radius - rows) + shift
    q_max = np.minimum(radius, radius - rows) + shift
    start = np.concatenate(([0], np.cumsum(q_max - q_min + 1)[:-1]))
    odd = (r & 1).astype(bool)
    columns = []
    for (dq_even, dr), (dq_odd, _) in zip(_EVEN, _ODD, strict=True):
        nq = q + np.where(odd, dq_odd, dq_even)
        nr = r + dr
        row = np.clip(nr + radius, 0, 2 * radius)
        inside = (np.abs(nr) <= radius) & (nq >= q_min[row]) & (nq <= q_max[row])
        columns.append(np.where(inside, start[row] + nq - q_min[row], -1))
    return np.stack(columns, axis=1)


class HexMap:
    """The hexes of a radius-R map (DP-4) numbered in canonical order, with neighbour tables.

    `index[(q, r)]` is a hex's number, `hexes[i]` its coordinates, `nbr[i]` the six neighbour numbers in
    canonical direction order, -1 off the map, `labels[i]` the hex printed `{q r}` (§7.7, built on first
    use). `nbr_array`, `q_array`, `r_array` and `x_array` (axial x) hold the same in numpy.

    The big tables are tuples of ints and strings: the garbage collector stops tracking such tuples,
    so a map of 10^5 hexes adds nothing to the process's full collections (lists would)."""

    __slots__ = (
        "_discs",
        "_labels",
        "_row_start",
        "_row_x_hi",
        "_row_x_lo",
        "axial",
        "hexes",
        "index",
        "nbr",
        "nbr_array",
        "q_array",
        "r_array",
        "radius",
        "x_array",
    )

    def __init__(self, radius: int) -> None:
        self.radius = radius
        q, r, x = _map_arrays(radius)
        self.q_array, self.r_array, self.x_array = q, r, x
        qs, rs = q.tolist(), r.tolist()
        self.hexes: tuple[Hex, ...] = tuple(zip(qs, rs, strict=True))
        self.index: dict[Hex, int] = dict(zip(self.hexes, range(len(self.hexes)), strict=True))
        self.nbr_array: np.ndarray = _neighbour_table(radius, q, r)
        self.nbr: tuple[tuple[int, ...], ...] = tuple(map(tuple, self.nbr_array.tolist()))
        self.axial: tuple[Hex, ...] = tuple(zip(x.tolist(), rs, strict=True))
        rows = np.arange(-radius, radius + 1, dtype=np.int64)
        self._row_x_lo = np.maximum(-radius, -radius - rows)
        self._row_x_hi = np.minimum(radius, radius - rows)
        lengths = self._row_x_hi - self._row_x_lo + 1
        self._row_start = np.cumsum(lengths) - lengths
        self._labels: tuple[str, ...] | None = None
        self._discs: dict[tuple[int, int], tuple[int, ...]] = {}

    @property
    def labels(self) -> tuple[str, ...]:
        """Every hex printed Go-style `{q r}`, for log lines (§7.7)."""
        if self._labels is None:
            self._labels = tuple(f"{{{q} {r}}}" for q, r in self.hexes)
        return self._labels

    def numbers_at_axial(self, x: np.ndarray, z: np.ndarray) -> np.ndarray:
        """Hex numbers of axial coordinates (x, z), elementwise; -1 off the map."""
        radius = self.radius
        row = np.clip(z + radius, 0, 2 * radius)
        lo = self._row_x_lo[row]
        inside = (np.abs(z) <= radius) & (x >= lo) & (x <= self._row_x_hi[row])
        return np.where(inside, self._row_start[row] + x - lo, -1)

    def disc_union(self, centres: Mapping[int, Sequence[int]]) -> list[int]:
        """The on-map hexes within radius v of any hex listed under v in `centres`, ascending.

        One numpy pass per radius (the visible set of DP-90), so no per-hex disc is kept."""
        parts = []
        for radius, cells in centres.items():
            if not cells:
                continue
            offsets = np.asarray(disc_offsets(radius), dtype=np.int64)
            at = np.asarray(cells, dtype=np.int64)
            x = (self.x_array[at][:, None] + offsets[:, 0][None, :]).ravel()
            z = (self.r_array[at][:, None] + offsets[:, 1][None, :]).ravel()
            parts.append(self.numbers_at_axial(x, z))
        if not parts:
            return []
        found = np.concatenate(parts)
        return np.unique(found[found >= 0]).tolist()  # type: ignore[no-any-return]

    def __len__(self) -> int:
        return len(self.hexes)

    def contains(self, h: Hex) -> bool:
        return h in self.index

    def distance(self, i: int, j: int) -> int:
        ax, az = self.axial[i]
        bx, bz = self.axial[j]
        dx, dz = ax - bx, az - bz
        return max(abs(dx), abs(dz), abs(dx + dz))

    def at_axial(self, x: int, z: int) -> int:
        """The number of the hex at axial (x, z), or -1 off the map."""
        return self.index.get(from_axial(x, z), -1)

    def disc(self, i: int, radius: int) -> tuple[int, ...]:
        """Numbers of the on-map hexes within `radius` of hex i, ascending (canonical). Cached."""
        key = (i, radius)
        found = self._discs.get(key)
        if found is None:
            x, z = self.axial[i]
            at = self.at_axial
            cells = (at(x + dx, z + dz) for dx, dz in disc_offsets(radius))
            found = tuple(c for c in cells if c >= 0)
            if len(self._discs) >= DISC_CACHE_LIMIT:
                self._discs.clear()  # bounded memory on big maps: at most a few tens of MB
            self._discs[key] = found
        return found
