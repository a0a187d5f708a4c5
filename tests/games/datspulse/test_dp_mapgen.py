"""Map generation (§3.5, DP-4, DP-40 to DP-47): radius, spot layout, the three generators, post-processing,
initial food, determinism from the seed."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from dp_testkit import ForcedSource

from botarena.core.config import ConfigError
from botarena.core.rng import stream
from botarena.games.datspulse import mapgen
from botarena.games.datspulse.config import DatsPulseConfig, datspulse_config
from botarena.games.datspulse.engine import Round
from botarena.games.datspulse.hexgrid import HexMap, disc_offsets, distance, ring
from botarena.games.datspulse.mapgen import (
    GeneratedMap,
    generate_map,
    half_up,
    map_radius,
    place_spots,
    post_process,
    reachable,
    ring_count,
    seal_unreachable,
    spots_per_ring,
    zone_of,
)
from botarena.games.datspulse.state import FoodType, Terrain


def cfg(**overrides: Any) -> DatsPulseConfig:
    return datspulse_config("default", overrides)


def make(n: int, seed: int = 1, **overrides: Any) -> GeneratedMap:
    return generate_map(cfg(**overrides), n, stream(seed, "datspulse.map"))


@pytest.mark.parametrize("n, radius", [(1, 29), (2, 40), (4, 57), (8, 80), (50, 200)])
def test_dp4_automatic_radius(n: int, radius: int) -> None:
    assert map_radius(cfg(), n) == radius


def test_dp4_fixed_radius_and_minimum() -> None:
    assert map_radius(cfg(map_radius=16), 40) == 16
    assert map_radius(cfg(map_hexes_per_team=300), 1) == 12  # max(map_min_radius, 10)


def test_s0_round_is_half_up() -> None:
    assert half_up(10.5) == 11 and half_up(2.5) == 3 and half_up(-0.5) == 0 and half_up(2.49) == 2
    assert half_up(0.7 * 15 * 1 / 1) == 11  # DP-41's example ring radius for R = 15, m = 1


def test_dp41_ring_count() -> None:
    assert [ring_count(n) for n in range(1, 13)] == [1] * 12
    assert ring_count(13) == 2
    assert ring_count(50) == 4


def test_dp41_spots_per_ring() -> None:
    assert spots_per_ring(50, 4) == [5, 10, 15, 20]
    assert spots_per_ring(13, 2) == [4, 9]  # 13/3 = 4.33, 26/3 = 8.67: the leftover goes to ring 2
    assert spots_per_ring(14, 2) == [5, 9]  # 4.67 and 9.33: ring 1 has the larger fraction
    for n in range(1, 101):
        m = ring_count(n)
        assert sum(spots_per_ring(n, m)) == n


def test_dp41_spots_on_ring_equally_spaced() -> None:
    config = cfg()
    grid = HexMap(40)
    spots = place_spots(config, grid, 6, stream(3, "datspulse.map"))
    rho = half_up(0.7 * 40)
    cells = ring(rho)
    positions = sorted(cells.index(grid.hexes[s]) for s in spots)
    gaps = [
        (b - a) % (6 * rho) for a, b in zip(positions, [*positions[1:], positions[0] + 6 * rho], strict=True)
    ]
    assert set(gaps) <= {6 * rho // 6, -(-6 * rho // 6)}
    assert all(distance(grid.hexes[s], (0, 0)) == rho for s in spots)


@pytest.mark.parametrize("n", [1, 2, 3, 7, 12, 13, 30, 50])
def test_dp41_spacing_and_margin_with_the_automatic_radius(n: int) -> None:
    config = cfg(map_hexes_per_team=300)
    grid = HexMap(map_radius(config, n))
    spots = place_spots(config, grid, n, stream(n, "datspulse.map"))
    assert len(set(spots)) == n
    for i, a in enumerate(spots):
        assert grid.distance(a, grid.index[(0, 0)]) <= grid.radius - 2
        assert all(grid.distance(a, b) >= 8 for b in spots[i + 1 :])


def test_dp41_map_too_small_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="map too small for 30 teams"):
        Round.create(cfg(map_radius=12), 1, [f"t{i}" for i in range(30)])


def test_dp41_team_assignment_by_permutation() -> None:
    # forced draws: ring offset 0 and permutation [1, 0]: team 0 gets the second spot of the ring
    source = ForcedSource(1)
    source("map").queue.extend([0, [1, 0]])
    made = generate_map(cfg(map_generator="scatter", map_radius=20), 2, source("map"))
    rho = half_up(0.7 * 20)
    assert made.grid.hexes[made.homes[0][0]] == ring(rho)[3 * rho]
    assert made.grid.hexes[made.homes[1][0]] == ring(rho)[0]


def test_dp11_anthill_shape_spot_ne_nw() -> None:
    made = make(3, map_radius=30, map_generator="scatter")
    for spot, ne, nw in made.homes:
        q, r = made.grid.hexes[spot]
        assert made.grid.hexes[ne] == ((q + 1, r - 1) if r & 1 else (q, r - 1))
        assert made.grid.hexes[nw] == ((q, r - 1) if r & 1 else (q - 1, r - 1))
        assert made.terrain[spot] == made.terrain[ne] == made.terrain[nw] == Terrain.ANTHILL


def test_dp47_generator_any_is_the_first_map_draw() -> None:
    for forced, name in enumerate(mapgen.GENERATORS):
        source = ForcedSource(1)
        source("map").queue.append(forced)
        made = generate_map(cfg(map_radius=16), 2, source("map"))
        assert made.generator == name
        assert source("map").calls[0] == "integers"


def test_dp47_cycle_and_fixed() -> None:
    names = [
        generate_map(cfg(map_radius=16, map_generator="cycle"), 2, stream(1, "x"), k).generator
        for k in range(1, 5)
    ]
    assert names == ["scatter", "mirror", "zones", "scatter"]
    assert make(2, map_radius=16, map_generator="zones").generator == "zones"


@pytest.mark.parametrize("generator", mapgen.GENERATORS)
def test_dp45_post_processing_invariants(generator: str) -> None:
    made = make(4, seed=5, map_radius=30, map_generator=generator)
    config = cfg()
    grid, terrain = made.grid, made.terrain
    anthill = {h for home in made.homes for h in home}
    assert {i for i, t in enumerate(terrain) if t == Terrain.ANTHILL} == anthill
    for h in anthill:
        for cell in grid.disc(h, config.spot_clear_radius):
            assert terrain[cell] not in (Terrain.STONE, Terrain.ACID)
    seen = reachable(grid, terrain, made.homes[0][0])
    assert all(seen[i] for i, t in enumerate(terrain) if t != Terrain.STONE)


def test_dp45_disconnected_terrain_is_retried_then_stone_removed(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []

    def walled(config: DatsPulseConfig, grid: HexMap, rng: Any) -> bytearray:
        calls.append(1)
        return bytearray(Terrain.STONE if grid.axial[i][0] == 0 else Terrain.EMPTY for i in range(len(grid)))

    monkeypatch.setattr(mapgen, "scatter_terrain", walled)
    source = ForcedSource(1)
    source("map").queue.extend([0, [0, 1]])  # spots at axial x = +rho and -rho, on both sides of the wall
    made = generate_map(cfg(map_radius=20, map_generator="scatter", map_max_attempts=3), 2, source("map"))
    assert len(calls) == 3 and made.attempts == 3
    assert Terrain.STONE not in made.terrain


def test_dp45_post_process_and_sealing_by_hand() -> None:
    grid = HexMap(8)
    terrain = bytearray([Terrain.EMPTY]) * len(grid)
    # a closed stone ring of radius 6 around (0,0), anthills inside and outside
    for h in ring(6):
        terrain[grid.index[h]] = Terrain.STONE
    inside = (grid.index[(0, 1)], grid.index[(0, 0)], grid.index[(-1, 0)])
    outside_spot = grid.index[(7, 1)]
    outside = (outside_spot, grid.nbr[outside_spot][1], grid.nbr[outside_spot][2])
    config = cfg(spot_clear_radius=0)
    assert post_process(config, grid, terrain, [inside, outside]) is False
    assert post_process(config, grid, terrain, [inside]) is True
    seal_unreachable(grid, terrain, inside[0])
    assert terrain[grid.index[(7, 0)]] == Terrain.STONE  # beyond the ring: sealed
    assert terrain[grid.index[(2, 2)]] == Terrain.EMPTY


def test_dp42_scatter_shares() -> None:
    made = make(1, seed=2, map_radius=60, map_generator="scatter")
    counts = Counter(made.terrain)
    total = len(made.terrain)
    assert abs(counts[Terrain.DIRT] / total - 0.10) < 0.02
    assert abs(counts[Terrain.ACID] / total - 0.05) < 0.015
    assert abs(counts[Terrain.STONE] / total - 0.07) < 0.02


def test_dp43_mirror_zones_are_identical() -> None:
    for seed in (1, 2, 3):
        made = make(4, seed=seed, map_radius=40, map_generator="mirror")
        grid = made.grid
        z = mapgen.mirror_zone_radius(cfg(), grid, [h[0] for h in made.homes])
        assert z >= 3
        views = []
        for spot, _, _ in made.homes:
            x, zz = grid.axial[spot]
            cells = [grid.at_axial(x + dx, zz + dz) for dx, dz in disc_offsets(z)]
            views.append([(made.terrain[c], tuple(made.piles.get(c, ()))) for c in cells])
        assert all(v == views[0] for v in views)


def test_dp43_mirror_zone_radius_formula() -> None:
    grid = HexMap(20)
    spots = [grid.index[(10, 0)], grid.index[(-6, 0)]]  # 16 apart, max rho 10
    assert mapgen.mirror_zone_radius(cfg(), grid, spots) == min(10, 20 - 10 - 2, 16 // 2 - 1)
    assert mapgen.mirror_zone_radius(cfg(), grid, [grid.index[(0, 0)]]) == 10


def test_dp44_zone_of_nearest_spot_ties_to_lower_index() -> None:
    grid = HexMap(6)
    spots = [grid.index[(2, 0)], grid.index[(-2, 0)]]
    zone = zone_of(grid, spots)
    assert zone[grid.index[(0, 0)]] == 0  # equidistant: the lower index
    assert zone[grid.index[(-3, 0)]] == 1
    assert zone[grid.index[(3, 0)]] == 0


def test_dp44_zone_profiles_differ() -> None:
    # forced profile draws: team 0 rocky (3), team 1 meadow (0)
    source = ForcedSource(4)
    config = cfg(map_radius=40, map_generator="zones")
    grid = HexMap(40)
    spots = place_spots(config, grid, 2, source("map"))
    source("map").queue.extend([3, 0])
    terrain = mapgen.zones_terrain(config, grid, spots, source("map"))
    zone = zone_of(grid, spots)
    stone = [
        sum(1 for i, t in enumerate(terrain) if t == Terrain.STONE and zone[i] == team) for team in (0, 1)
    ]
    assert stone[0] > 3 * stone[1] > 0


def test_dp46_initial_food_on_eligible_hexes_only() -> None:
    for generator in mapgen.GENERATORS:
        made = make(2, seed=8, map_radius=30, map_generator=generator, food_min_amount=2, food_max_amount=6)
        assert made.piles
        for h, (kind, amount) in made.piles.items():
            assert made.terrain[h] in (Terrain.EMPTY, Terrain.DIRT, Terrain.ACID)
            assert kind in (FoodType.APPLE, FoodType.BREAD) and 2 <= amount <= 6
        density = len(made.piles) / sum(1 for t in made.terrain if t in (2, 3, 4))
        assert 0.02 < density < 0.06


def test_dp40_dp95_same_seed_same_map_other_seed_other_map() -> None:
    a, b, c = (
        make(3, seed=11, map_radius=25),
        make(3, seed=11, map_radius=25),
        make(3, seed=12, map_radius=25),
    )
    assert (a.generator, a.homes, a.terrain, a.piles) == (b.generator, b.homes, b.terrain, b.piles)
    assert (a.homes, a.terrain) != (c.homes, c.terrain)


def test_dp95_round_create_is_deterministic() -> None:
    config = cfg(map_radius=20)
    r1, r2 = Round.create(config, 7, ["a", "b"]), Round.create(config, 7, ["a", "b"])
    assert r1.terrain() == r2.terrain()
    assert r1.spectator_frame() == r2.spectator_frame()
    assert [u.id for u in r1.state.all_units()] == [u.id for u in r2.state.all_units()]


def test_dp95_vector_draws_equal_one_by_one_draws() -> None:
    # the generators draw `random()` for many hexes at once; the spec counts one draw per hex
    a, b = stream(3, "datspulse.map"), stream(3, "datspulse.map")
    block = a.random(500)
    assert [float(x) for x in block] == [b.random() for _ in range(500)]
    assert a.integers(7) == b.integers(7)


def test_dp44_zone_of_matches_brute_force() -> None:
    rng = stream(5, "test")
    for radius, n in ((9, 5), (14, 9), (6, 2)):
        grid = HexMap(radius)
        spots = [int(s) for s in rng.choice(len(grid), size=n, replace=False)]
        zone = zone_of(grid, spots)
        for h in range(len(grid)):
            dists = [grid.distance(h, s) for s in spots]
            assert zone[h] == dists.index(min(dists))


def test_dp45_reachable_matches_a_plain_search() -> None:
    rng = stream(6, "test")
    grid = HexMap(12)
    for share in (0.2, 0.4, 0.55):
        terrain = bytearray(Terrain.STONE if u < share else Terrain.EMPTY for u in rng.random(len(grid)))
        start = grid.index[(0, 0)]
        terrain[start] = Terrain.EMPTY
        seen = {start}
        todo = [start]
        while todo:
            for n in grid.nbr[todo.pop()]:
                if n >= 0 and n not in seen and terrain[n] != Terrain.STONE:
                    seen.add(n)
                    todo.append(n)
        flags = reachable(grid, terrain, start)
        assert {i for i in range(len(grid)) if flags[i]} == seen
