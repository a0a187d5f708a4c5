"""Map generation (spec §3.5, DP-4 and DP-40 to DP-47). Every draw comes from the `map` stream, in the
order the spec writes them: generator choice, ring offsets, the team permutation, terrain (possibly
several attempts), then initial food.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from botarena.core.config import ConfigError
from botarena.games.datspulse.config import DatsPulseConfig
from botarena.games.datspulse.hexgrid import Direction, HexMap, disc_offsets, ring
from botarena.games.datspulse.state import FoodType, Terrain

GENERATORS = ("scatter", "mirror", "zones")

#: DP-44 zone profiles: (dirt, acid, stone) shares of meadow, swamp, acid marsh, rocky.
ZONE_PROFILES: tuple[tuple[float, float, float], ...] = (
    (0.05, 0.02, 0.03),
    (0.25, 0.04, 0.03),
    (0.08, 0.12, 0.03),
    (0.08, 0.03, 0.15),
)

MIN_SPOT_SPACING = 8  # DP-41 step 6


def half_up(x: float) -> int:
    """§0 `round(x)` = floor(x + 0.5): halves round up, unlike Python's round."""
    return math.floor(x + 0.5)


def map_radius(config: DatsPulseConfig, n: int) -> int:
    """DP-4: `map_radius` if set, else max(map_min_radius, ceil(sqrt(map_hexes_per_team * n / 3)))."""
    if config.map_radius > 0:
        return config.map_radius
    return max(config.map_min_radius, math.ceil(math.sqrt(config.map_hexes_per_team * n / 3)))


def ring_count(n: int) -> int:
    """DP-41 step 1: m in 1..10 maximising min(1/m, 3(m+1)/n), the smaller m on a tie (exact)."""
    best_m, best = 1, Fraction(-1)
    for m in range(1, 11):
        value = min(Fraction(1, m), Fraction(3 * (m + 1), n))
        if value > best:
            best_m, best = m, value
    return best_m


def spots_per_ring(n: int, m: int) -> list[int]:
    """DP-41 step 3: c_j = floor(n j / T), leftovers to the largest fractional parts (ties: larger j)."""
    total = m * (m + 1) // 2
    counts = [n * j // total for j in range(1, m + 1)]
    leftover = n - sum(counts)
    # the fractional part of n j / T is ((n j) mod T) / T: compare the integer numerators exactly
    by_fraction = sorted(range(1, m + 1), key=lambda j: ((n * j) % total, j), reverse=True)
    for j in by_fraction[:leftover]:
        counts[j - 1] += 1
    return counts


def place_spots(config: DatsPulseConfig, grid: HexMap, n: int, rng: Any) -> list[int]:
    """DP-41: the spot (hex number) of every team index; raises ConfigError when they do not fit."""
    radius = grid.radius
    m = ring_count(n)
    radii = [half_up(config.anthill_ring_ratio * radius * j / m) for j in range(1, m + 1)]
    counts = spots_per_ring(n, m)
    too_small = ConfigError(f"map too small for {n} teams")
    if any(rho < 1 for rho, c in zip(radii, counts, strict=True) if c > 0):
        raise too_small
    layout: list[tuple[int, int]] = []
    for rho, c in zip(radii, counts, strict=True):
        size = 6 * rho
        offset = int(rng.integers(size)) if size > 0 else 0
        cells = ring(rho) if rho > 0 else []
        layout.extend(cells[(offset + k * size // c) % size] for k in range(c))
    perm = [int(x) for x in rng.permutation(n)]
    spots = [layout[perm[i]] for i in range(n)]
    indices: list[int] = []
    for spot in spots:
        if spot not in grid.index:
            raise too_small
        indices.append(grid.index[spot])
    for i, a in enumerate(indices):
        if grid.distance(a, grid.index[(0, 0)]) > radius - 2:
            raise too_small
        if any(grid.distance(a, b) < MIN_SPOT_SPACING for b in indices[i + 1 :]):
            raise too_small
    return indices


def anthill_of(grid: HexMap, spot: int) -> tuple[int, int, int]:
    """DP-11: the spot, its NE neighbour and its NW neighbour (the `home` order)."""
    ne = grid.nbr[spot][Direction.NE]
    nw = grid.nbr[spot][Direction.NW]
    if ne < 0 or nw < 0:
        raise ConfigError("map too small: an anthill hex is off the map")
    return spot, ne, nw


def classify(u: np.ndarray, dirt: float, acid: float, stone: float) -> np.ndarray:
    """DP-42 on a vector of draws: stone, acid, dirt or empty by the cumulative shares."""
    out = np.full(u.shape, Terrain.EMPTY, dtype=np.uint8)
    sa = stone + acid
    sad = stone + acid + dirt
    out[u < sad] = Terrain.DIRT
    out[u < sa] = Terrain.ACID
    out[u < stone] = Terrain.STONE
    return out


def _shares(config: DatsPulseConfig) -> tuple[float, float, float]:
    return config.terrain_dirt_share, config.terrain_acid_share, config.terrain_stone_share


def scatter_terrain(config: DatsPulseConfig, grid: HexMap, rng: Any) -> bytearray:
    """DP-42: one `random()` per hex in canonical order."""
    return bytearray(classify(rng.random(len(grid)), *_shares(config)).tobytes())


def mirror_zone_radius(config: DatsPulseConfig, grid: HexMap, spots: Sequence[int]) -> int:
    """DP-43 step 1: z = max(0, min(mirror_zone_radius, R - max rho - 2, floor(d_min / 2) - 1))."""
    centre = grid.index[(0, 0)]
    max_rho = max(grid.distance(s, centre) for s in spots)
    limits = [config.mirror_zone_radius, grid.radius - max_rho - 2]
    pairs = [grid.distance(a, b) for i, a in enumerate(spots) for b in spots[i + 1 :]]
    if pairs:
        limits.append(min(pairs) // 2 - 1)
    return max(0, min(limits))


def _zone_cells(grid: HexMap, spot: int, offsets: Sequence[tuple[int, int]]) -> list[int]:
    x, z = grid.axial[spot]
    return [grid.at_axial(x + dx, z + dz) for dx, dz in offsets]


def mirror_terrain(config: DatsPulseConfig, grid: HexMap, spots: Sequence[int], rng: Any) -> bytearray:
    """DP-43: a template around (0,0) stamped on every spot, independent noise elsewhere."""
    z = mirror_zone_radius(config, grid, spots)
    offsets = disc_offsets(z)
    template = classify(rng.random(len(offsets)), *_shares(config))
    terrain = bytearray(len(grid))
    for spot in spots:
        for value, cell in zip(template, _zone_cells(grid, spot, offsets), strict=True):
            if cell >= 0:
                terrain[cell] = int(value)
    outside = [i for i in range(len(grid)) if terrain[i] == 0]
    for value, cell in zip(classify(rng.random(len(outside)), *_shares(config)), outside, strict=True):
        terrain[cell] = int(value)
    return terrain


def zone_of(grid: HexMap, spots: Sequence[int]) -> np.ndarray:
    """DP-44: the team index of each hex's nearest spot by hex distance (ties to the lower index).

    A breadth-first search from all spots at once, one distance level at a time; the map is a
    hexagon, so a shortest path between two of its hexes never leaves it and the level of a hex is
    its distance to the nearest spot. A hex first reached by several teams in one level takes the
    lowest team index."""
    size = len(grid)
    unassigned = len(spots)
    zone = np.full(size + 1, unassigned, dtype=np.int64)  # the last slot stands for "off the map"
    frontier = np.asarray(spots, dtype=np.int64)
    zone[frontier] = np.arange(len(spots), dtype=np.int64)
    zone[size] = -1
    nbr = grid.nbr_array
    while frontier.size:
        cells = nbr[frontier].ravel()
        teams = np.repeat(zone[frontier], 6)
        fresh = zone[cells] == unassigned
        cells, teams = cells[fresh], teams[fresh]
        best = np.full(size + 1, unassigned, dtype=np.int64)
        np.minimum.at(best, cells, teams)
        frontier = np.unique(cells)
        zone[frontier] = best[frontier]
    return zone[:size]


def zones_terrain(config: DatsPulseConfig, grid: HexMap, spots: Sequence[int], rng: Any) -> bytearray:
    """DP-44: per-zone profiles painted by random-walk blobs."""
    zones = zone_of(grid, spots)
    # every zone's hexes in canonical order: a stable sort by zone keeps the hex order within each
    by_zone = np.argsort(zones, kind="stable")
    bounds = np.cumsum(np.bincount(zones, minlength=len(spots)))[:-1]
    members = [part.tolist() for part in np.split(by_zone, bounds)]
    zone = zones.tolist()
    profiles = [int(rng.integers(4)) for _ in spots]
    terrain = bytearray([Terrain.EMPTY]) * len(grid)
    blob = config.zone_blob_size
    nbr = grid.nbr
    for team, cells in enumerate(members):
        dirt, acid, stone = ZONE_PROFILES[profiles[team]]
        for kind, share in ((Terrain.DIRT, dirt), (Terrain.ACID, acid), (Terrain.STONE, stone)):
            for _ in range(half_up(share * len(cells) / blob)):
                pos = cells[int(rng.integers(len(cells)))]
                terrain[pos] = kind
                for _ in range(blob - 1):
                    nxt = nbr[pos][int(rng.integers(6))]
                    if nxt >= 0 and zone[nxt] == team:
                        pos = nxt
                    terrain[pos] = kind
    return terrain


def reachable(grid: HexMap, terrain: bytearray, start: int) -> np.ndarray:
    """Boolean flags of the hexes reachable from `start` over non-stone hexes (DP-45).

    A breadth-first search one whole frontier at a time in numpy. Index -1 (off the map) in the
    neighbour table picks an extra last slot that is marked seen from the start."""
    size = len(grid)
    passable = np.frombuffer(bytes(terrain), dtype=np.uint8) != Terrain.STONE
    seen = np.zeros(size + 1, dtype=bool)
    seen[size] = True
    seen[start] = True
    frontier = np.array([start], dtype=np.int64)
    nbr = grid.nbr_array
    while frontier.size:
        cells = nbr[frontier].ravel()
        cells = cells[~seen[cells]]
        cells = np.unique(cells[passable[cells]])
        seen[cells] = True
        frontier = cells
    return seen[:size]


def post_process(
    config: DatsPulseConfig, grid: HexMap, terrain: bytearray, homes: Sequence[Sequence[int]]
) -> bool:
    """DP-45 steps 1 and 2 in place; returns whether every anthill reaches the others (step 3)."""
    anthill = [h for home in homes for h in home]
    for h in anthill:
        terrain[h] = Terrain.ANTHILL
    for h in anthill:
        for cell in grid.disc(h, config.spot_clear_radius):
            if terrain[cell] in (Terrain.STONE, Terrain.ACID):
                terrain[cell] = Terrain.EMPTY
    seen = reachable(grid, terrain, anthill[0])
    return all(seen[h] for h in anthill)


def seal_unreachable(grid: HexMap, terrain: bytearray, start: int) -> None:
    """DP-45 step 4: passable hexes not connected to the anthills become stone."""
    cut = ~reachable(grid, terrain, start)
    cells = np.frombuffer(bytes(terrain), dtype=np.uint8).copy()
    cells[cut] = Terrain.STONE
    terrain[:] = cells.tobytes()


def _draw_pile(config: DatsPulseConfig, rng: Any) -> list[int]:
    """DP-80 steps 3 and 4: the type, then the amount."""
    food = FoodType.APPLE if rng.random() < config.food_apple_share else FoodType.BREAD
    amount = int(rng.integers(config.food_min_amount, config.food_max_amount + 1))
    return [int(food), amount]


def _eligible(terrain: bytearray, piles: dict[int, list[int]], h: int) -> bool:
    # no units stand outside the anthills while the map is made, so "no living unit" always holds
    return Terrain.EMPTY <= terrain[h] <= Terrain.ACID and h not in piles


def scatter_food(
    config: DatsPulseConfig,
    terrain: bytearray,
    rng: Any,
    cells: np.ndarray,
    piles: dict[int, list[int]],
) -> None:
    """DP-46 for scatter, zones and the outside of mirror zones: one draw per eligible hex, in order.

    The terrain test is done for all `cells` at once; the pile test stays per hex (a pile placed here
    changes no other hex's eligibility, so the result is the one-by-one result)."""
    kinds = np.frombuffer(bytes(terrain), dtype=np.uint8)[cells]
    candidates = cells[(kinds >= Terrain.EMPTY) & (kinds <= Terrain.ACID)].tolist()
    density = config.food_initial_density
    draw = rng.random
    for h in candidates:
        if h not in piles and draw() < density:
            piles[h] = _draw_pile(config, rng)


def mirror_food(
    config: DatsPulseConfig,
    grid: HexMap,
    terrain: bytearray,
    spots: Sequence[int],
    rng: Any,
    piles: dict[int, list[int]],
) -> None:
    """DP-46 for mirror: one draw per template offset, placed around every spot, then the outside."""
    offsets = disc_offsets(mirror_zone_radius(config, grid, spots))
    zones = [_zone_cells(grid, spot, offsets) for spot in spots]
    in_zone = bytearray(len(grid))
    for cells in zones:
        for cell in cells:
            if cell >= 0:
                in_zone[cell] = 1
    for k in range(len(offsets)):
        if rng.random() < config.food_initial_density:
            pile = _draw_pile(config, rng)
            for cells in zones:
                cell = cells[k]
                if cell >= 0 and _eligible(terrain, piles, cell):
                    piles[cell] = list(pile)
    outside = np.flatnonzero(np.frombuffer(bytes(in_zone), dtype=np.uint8) == 0)
    scatter_food(config, terrain, rng, outside, piles)


@dataclass(slots=True)
class GeneratedMap:
    """The output of DP-40: the grid, the generator used, each team's anthill, terrain and piles."""

    grid: HexMap
    generator: str
    homes: list[tuple[int, int, int]]
    terrain: bytearray
    piles: dict[int, list[int]]
    attempts: int


def choose_generator(config: DatsPulseConfig, round_number: int, rng: Any) -> str:
    """DP-47: a fixed generator, `any` (the first map draw) or `cycle` (by 1-based round number)."""
    choice = config.map_generator
    if choice == "any":
        return GENERATORS[int(rng.integers(3))]
    if choice == "cycle":
        return GENERATORS[(round_number - 1) % 3]
    return choice


def generate_map(config: DatsPulseConfig, n: int, rng: Any, round_number: int = 1) -> GeneratedMap:
    """DP-40: R, generator, spots and anthills, terrain (retried for connectivity), food."""
    if n < 1:
        raise ConfigError("a round needs at least one team")
    grid = HexMap(map_radius(config, n))
    generator = choose_generator(config, round_number, rng)
    spots = place_spots(config, grid, n, rng)
    homes = [anthill_of(grid, s) for s in spots]
    attempts = 0
    while True:
        attempts += 1
        if generator == "scatter":
            terrain = scatter_terrain(config, grid, rng)
        elif generator == "mirror":
            terrain = mirror_terrain(config, grid, spots, rng)
        else:
            terrain = zones_terrain(config, grid, spots, rng)
        if post_process(config, grid, terrain, homes):
            break
        if attempts >= config.map_max_attempts:
            for i, t in enumerate(terrain):
                if t == Terrain.STONE:
                    terrain[i] = Terrain.EMPTY
            break
    seal_unreachable(grid, terrain, homes[0][0])
    piles: dict[int, list[int]] = {}
    if generator == "mirror":
        mirror_food(config, grid, terrain, spots, rng, piles)
    else:
        scatter_food(config, terrain, rng, np.arange(len(grid), dtype=np.int64), piles)
    return GeneratedMap(grid, generator, homes, terrain, piles, attempts)
