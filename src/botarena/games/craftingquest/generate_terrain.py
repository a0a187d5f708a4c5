"""Generated terrain and camps (spec CQ-7 to CQ-12 and CQ-15).

The terrain is a flat numpy array of CQ-3 fixture codes indexed by `idx(x, y) = y*W + x`, so the mirror
of index i is `A - 1 - i`. `grow` is the only per-cell Python loop (its draws depend on each other);
whole-map questions (counts, candidate lists, near-water masks) are numpy, and the CQ-12 connectivity
checks flood-fill bitsets held in Python integers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from botarena.games.craftingquest.generate_draws import Draws
from botarena.games.craftingquest.geometry import OPEN_TERRAINS, UNIT_KINDS, Grid, Terrain, start_cells

BoolArray = npt.NDArray[np.bool_]
CodeArray = npt.NDArray[np.uint8]

GRASS = Terrain.GRASS.code
DIRT = Terrain.DIRT.code
SAND = Terrain.SAND.code
SNOW = Terrain.SNOW.code
ROCK = Terrain.ROCK.code
SWAMP = Terrain.SWAMP.code
WATER = Terrain.WATER.code
DEEP_WATER = Terrain.DEEP_WATER.code

PROTECTED_SPAN = 10
"""CQ-7: the protected zone is x <= 9 and y <= 9, plus the mirrors."""
RIDGE_DIRECTIONS: tuple[tuple[int, int], ...] = (
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
)
OPEN_CODES = tuple(sorted(t.code for t in OPEN_TERRAINS))
MIN_CAMP_MIRROR_DISTANCE = 6


class TerrainMap:
    """A terrain under construction, with CQ-7's primitives."""

    def __init__(self, grid: Grid) -> None:
        self.grid = grid
        self.width = grid.width
        self.height = grid.height
        self.area = grid.area
        self.codes: CodeArray = np.full(self.area, GRASS, dtype=np.uint8)
        xs = np.arange(self.area) % self.width
        ys = np.arange(self.area) // self.width
        corner = (xs < PROTECTED_SPAN) & (ys < PROTECTED_SPAN)
        self.protected: BoolArray = corner | corner[::-1]
        self.inner_ring: BoolArray = (xs >= 1) & (xs <= self.width - 2) & (ys >= 1) & (ys <= self.height - 2)

    def reset(self) -> None:
        """CQ-8 step 1: fill the map with Grass."""
        self.codes.fill(GRASS)

    def is_(self, code: int) -> BoolArray:
        """The cells of terrain `code`."""
        mask: BoolArray = np.equal(self.codes, code)
        return mask

    def count(self, code: int) -> int:
        """CQ-7 `count(t)`."""
        return int(np.count_nonzero(self.codes == code))

    def paint(self, cells: list[int], code: int) -> None:
        """CQ-7 `paint(S, t)`: the cells and their mirrors."""
        if cells:
            index = np.asarray(cells, dtype=np.int64)
            self.codes[index] = code
            self.codes[self.area - 1 - index] = code

    def free_grass(self) -> BoolArray:
        """Grass cells outside the protected zone."""
        return self.is_(GRASS) & ~self.protected

    def grow(self, draws: Draws, start: int, size: int, ok: BoolArray) -> list[int]:
        """CQ-7 `grow(s, n, ok)`: a random orthogonally connected region of up to `size` cells."""
        width, height = self.width, self.height
        allowed = ok.tobytes()  # one byte per cell; indexing bytes is the fastest lookup here
        seen = bytearray(self.area)  # 1 = in R or F
        region = [start]
        frontier: list[int] = []
        seen[start] = 1

        def push(cell: int) -> None:
            x = cell % width
            y = cell // width
            # the order CQ-7 fixes: north, east, south, west
            if y > 0:
                nb = cell - width
                if allowed[nb] and not seen[nb]:
                    seen[nb] = 1
                    frontier.append(nb)
            if x < width - 1:
                nb = cell + 1
                if allowed[nb] and not seen[nb]:
                    seen[nb] = 1
                    frontier.append(nb)
            if y < height - 1:
                nb = cell + width
                if allowed[nb] and not seen[nb]:
                    seen[nb] = 1
                    frontier.append(nb)
            if x > 0:
                nb = cell - 1
                if allowed[nb] and not seen[nb]:
                    seen[nb] = 1
                    frontier.append(nb)

        push(start)
        generator = draws.generator
        while len(region) < size and frontier:
            cell = frontier.pop(int(generator.integers(0, len(frontier))))  # pop(F), CQ-6
            region.append(cell)
            push(cell)
        return region

    def neighbour_count(self, mask: BoolArray) -> npt.NDArray[np.int64]:
        """For each cell, how many of its 8 neighbours are in `mask`."""
        grid = np.pad(mask.reshape(self.height, self.width).astype(np.int64), 1)
        h, w = self.height, self.width
        total = np.zeros((h, w), dtype=np.int64)
        for dy in (0, 1, 2):
            for dx in (0, 1, 2):
                if dx != 1 or dy != 1:
                    total += grid[dy : dy + h, dx : dx + w]
        return total.reshape(-1)

    def near(self, mask: BoolArray, distance: int) -> BoolArray:
        """Cells within Chebyshev `distance` of a cell of `mask`."""
        grid = mask.reshape(self.height, self.width)
        out = grid.copy()
        for _ in range(distance):  # one step of dilation by the 3x3 square per iteration
            step = out.copy()
            step[1:, :] |= out[:-1, :]
            step[:-1, :] |= out[1:, :]
            rows = step.copy()
            rows[:, 1:] |= step[:, :-1]
            rows[:, :-1] |= step[:, 1:]
            out = rows
        return out.reshape(-1)


def _make_lakes(tm: TerrainMap, draws: Draws) -> list[list[int]]:
    """CQ-8: one or two lakes of Water; returns each lake's cell list."""
    f = draws.uniform(0.11, 0.175)
    lake_count = draws.randint(1, 2)
    size = math.floor(f * tm.area / (2 * lake_count) + 0.5)
    lakes: list[list[int]] = []
    for _ in range(lake_count):
        start = _lake_start(tm, draws)
        if start is None:
            continue
        ok = tm.inner_ring & ~tm.protected & tm.is_(GRASS)
        region = tm.grow(draws, start, size, ok)
        inside = np.zeros(tm.area, dtype=np.bool_)
        inside[region] = True
        holes = np.flatnonzero(ok & ~inside & (tm.neighbour_count(inside) >= 5))
        region.extend(holes.tolist())
        tm.paint(region, WATER)
        lakes.append(region)
    return lakes


def _lake_start(tm: TerrainMap, draws: Draws) -> int | None:
    for _ in range(100):
        x = draws.randint(6, tm.width - 7)
        y = draws.randint(6, tm.height - 7)
        cell = y * tm.width + x
        if not tm.protected[cell] and tm.codes[cell] == GRASS:
            return cell
    return None


def _make_lake_cores(tm: TerrainMap, draws: Draws, lakes: list[list[int]]) -> None:
    """CQ-9: a Deep Water or Swamp core inside each lake."""
    width = tm.width
    for region in lakes:
        inside = np.zeros(tm.area, dtype=np.bool_)
        inside[region] = True
        members = set(region)
        interior = [
            c
            for c in region
            if c - width in members and c + 1 in members and c + width in members and c - 1 in members
        ]
        code = DEEP_WATER if draws.random() < 0.5 else SWAMP
        size = math.floor(draws.uniform(0.10, 0.30) * len(region) + 0.5)
        if interior:
            ok = np.zeros(tm.area, dtype=np.bool_)
            ok[interior] = True
            tm.paint(tm.grow(draws, draws.pick(interior), size, ok), code)


def _patches(
    tm: TerrainMap,
    draws: Draws,
    code: int,
    share: tuple[float, float],
    size: tuple[int, int],
    seed_ok: BoolArray | None,
    grow_ok: BoolArray | None,
) -> None:
    """CQ-10 `patches`: grow regions of `code` on Grass until its count reaches the target share."""
    target = draws.uniform(*share) * tm.area
    for _ in range(100):
        current = tm.count(code)
        if not current < target:
            return
        free = tm.free_grass()
        seeds = np.flatnonzero(free if seed_ok is None else free & seed_ok)
        if seeds.size == 0:
            return
        start = int(seeds[draws.randrange(int(seeds.size))])
        n = min(draws.randint(*size), max(1, math.ceil((target - current) / 2)))
        ok = free if grow_ok is None else free & grow_ok
        tm.paint(tm.grow(draws, start, n, ok), code)


def _make_patches(tm: TerrainMap, draws: Draws) -> None:
    """CQ-10: swamp and sand near water, then dirt and snow anywhere."""
    water = tm.is_(WATER) | tm.is_(DEEP_WATER)  # only Grass is painted below, so this stays true
    near1, near3, near4 = tm.near(water, 1), tm.near(water, 3), tm.near(water, 4)
    _patches(tm, draws, SWAMP, (0.02, 0.07), (20, 60), near1, near4)
    _patches(tm, draws, SAND, (0.05, 0.06), (15, 50), near1, near3)
    _patches(tm, draws, DIRT, (0.025, 0.035), (15, 60), None, None)
    _patches(tm, draws, SNOW, (0.00, 0.03), (15, 60), None, None)


def _make_ridges(tm: TerrainMap, draws: Draws) -> None:
    """CQ-11: short, possibly thick and bending, rock ridges."""
    target = draws.uniform(0.01, 0.03) * tm.area
    width, height = tm.width, tm.height
    for _ in range(200):
        if not tm.count(ROCK) < target:
            return
        seeds = np.flatnonzero(tm.free_grass())
        if seeds.size == 0:
            return
        start = int(seeds[draws.randrange(int(seeds.size))])
        x, y = start % width, start // width
        direction = draws.randrange(8)
        length = draws.randint(4, 10)
        thick = draws.randint(1, 2)
        codes, protected = tm.codes, tm.protected
        ridge: list[int] = []
        for _step in range(length):
            if not (0 <= x < width and 0 <= y < height) or protected[y * width + x]:
                break
            cell = y * width + x
            if codes[cell] == GRASS:
                ridge.append(cell)
            if thick == 2:
                dx = RIDGE_DIRECTIONS[direction][0]
                ex, ey = (x + 1, y) if dx == 0 else (x, y + 1)
                extra = ey * width + ex
                if 0 <= ex < width and 0 <= ey < height and not protected[extra] and codes[extra] == GRASS:
                    ridge.append(extra)
            if draws.random() < 0.25:
                direction = (direction - 1) % 8 if draws.randrange(2) == 0 else (direction + 1) % 8
            x += RIDGE_DIRECTIONS[direction][0]
            y += RIDGE_DIRECTIONS[direction][1]
        tm.paint(ridge, ROCK)


def build_terrain(tm: TerrainMap, draws: Draws) -> None:
    """CQ-8 to CQ-11, on the `terrain` stream."""
    tm.reset()
    lakes = _make_lakes(tm, draws)
    _make_lake_cores(tm, draws, lakes)
    _make_patches(tm, draws)
    _make_ridges(tm, draws)


# --- CQ-12 validation: flood fills on bitsets ------------------------------------------------------


class Bitsets:
    """Cell masks as Python integers, one bit per cell, with a guard column (stride W + 1).

    Dilating a mask by one Chebyshev step is a handful of shifts and ORs of one big integer; the
    guard column is never set, so a shift along a row cannot wrap into the next row.
    """

    def __init__(self, grid: Grid) -> None:
        self.width = grid.width
        self.height = grid.height
        self.stride = grid.width + 1

    def to_bits(self, mask: BoolArray) -> int:
        padded = np.zeros((self.height, self.stride), dtype=np.bool_)
        padded[:, : self.width] = mask.reshape(self.height, self.width)
        return int.from_bytes(np.packbits(padded.reshape(-1), bitorder="little").tobytes(), "little")

    def to_mask(self, bits: int) -> BoolArray:
        size = self.height * self.stride
        raw = np.frombuffer(bits.to_bytes((size + 7) // 8, "little"), dtype=np.uint8)
        flat = np.unpackbits(raw, bitorder="little")[:size].astype(np.bool_)
        return flat.reshape(self.height, self.stride)[:, : self.width].reshape(-1)

    def bit(self, x: int, y: int) -> int:
        return 1 << (y * self.stride + x)

    def flood(self, seeds: int, allowed: int) -> int:
        """Every cell of `allowed` 8-connected to `seeds` through `allowed`."""
        stride = self.stride
        current = seeds & allowed
        while True:
            row = current | (current << 1) | (current >> 1)
            grown = (row | (row << stride) | (row >> stride)) & allowed
            if grown == current:
                return current
            current = grown


@dataclass(frozen=True, slots=True)
class Connectivity:
    """CQ-12's result: `open_component` is C_all as a mask; `valid` whether the map passes."""

    valid: bool
    open_component: BoolArray


def check_terrain(tm: TerrainMap) -> Connectivity:
    """CQ-12: C_all holds every start cell, and every non-Rock cell is reachable by some kind."""
    bits = Bitsets(tm.grid)
    origin = bits.bit(3, 3)
    open_bits = bits.to_bits(np.isin(tm.codes, OPEN_CODES))
    component = bits.flood(origin, open_bits)
    starts = start_cells(tm.grid)
    valid = all(component & bits.bit(x, y) for cells in starts.values() for x, y in cells)
    if valid:
        reached = component
        for kind in UNIT_KINDS:
            codes = [t.code for t in Terrain if t.can_enter(kind)]
            reached |= bits.flood(component, bits.to_bits(np.isin(tm.codes, codes)))
        valid = reached == bits.to_bits(tm.codes != ROCK)
    return Connectivity(valid, bits.to_mask(component))


# --- CQ-15 camps ------------------------------------------------------------------------------------


def camp_candidates(tm: TerrainMap, open_component: BoolArray) -> npt.NDArray[np.int64]:
    """CQ-15 step 2: the candidate cells in row-major order."""
    index = np.arange(tm.area)
    upper = index < tm.area - 1 - index
    open_cells = np.isin(tm.codes, OPEN_CODES)
    all_open = open_cells & (tm.neighbour_count(open_cells) == 8)
    xs, ys = index % tm.width, index // tm.width
    mirror_distance = np.maximum(np.abs(tm.width - 1 - 2 * xs), np.abs(tm.height - 1 - 2 * ys))
    mask = (
        upper
        & tm.inner_ring
        & ~tm.protected
        & open_component
        & all_open
        & (mirror_distance >= MIN_CAMP_MIRROR_DISTANCE)
    )
    return np.flatnonzero(mask)


def place_camps(
    tm: TerrainMap, draws: Draws, open_component: BoolArray, pairs: int, min_distance: int
) -> list[int] | None:
    """CQ-15 step 3: `pairs` mirror pairs of camps (flat indices), or None if `d` falls below 3."""
    candidates = camp_candidates(tm, open_component)
    cx, cy = candidates % tm.width, candidates // tm.width
    nearest = np.full(candidates.size, np.iinfo(np.int64).max, dtype=np.int64)
    distance = min_distance
    placed: list[int] = []
    while len(placed) < 2 * pairs:
        ok = np.flatnonzero(nearest >= distance)
        if ok.size == 0:
            distance -= 1
            if distance < 3:
                return None
            continue
        cell = int(candidates[int(ok[draws.randrange(int(ok.size))])])
        for camp in (cell, tm.area - 1 - cell):
            placed.append(camp)
            x, y = camp % tm.width, camp // tm.width
            nearest = np.minimum(nearest, np.maximum(np.abs(cx - x), np.abs(cy - y)))
    return placed
