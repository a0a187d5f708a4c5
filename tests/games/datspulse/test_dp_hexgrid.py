"""Hex geometry (spec §3.1, DP-1 to DP-6; WE-1): examples and hypothesis properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from botarena.games.datspulse import hexgrid
from botarena.games.datspulse.hexgrid import (
    Direction,
    HexMap,
    adjacent,
    disc_offsets,
    distance,
    from_axial,
    hex_count,
    map_hexes,
    neighbour,
    neighbours,
    ring,
    to_axial,
)

coord = st.integers(min_value=-300, max_value=300)
hexes = st.tuples(coord, coord)

# no per-example deadline: the shared CI machine can stall any example (DESIGN: no timing assertions)
calm = settings(deadline=None)


def test_we1_dp2_neighbours_even_and_odd_rows() -> None:
    assert neighbours(2, 4) == [(3, 4), (2, 3), (1, 3), (1, 4), (1, 5), (2, 5)]
    assert neighbours(3, -3) == [(4, -3), (4, -4), (3, -4), (2, -3), (3, -2), (4, -2)]
    assert neighbour(2, 4, Direction.NW) == (1, 3)
    assert neighbour(3, -3, Direction.SE) == (4, -2)


def test_dp1_negative_odd_rows_are_odd() -> None:
    # r = -1 and r = -113 are odd rows: NE is (q+1, r-1)
    assert neighbour(0, -1, Direction.NE) == (1, -2)
    assert neighbour(0, -113, Direction.NE) == (1, -114)
    assert neighbour(0, -2, Direction.NE) == (0, -3)


def test_we1_dp3_cube_and_distance() -> None:
    x, z = to_axial(3, -3)
    assert (x, -x - z, z) == (5, -2, -3)
    assert distance((0, 0), (3, -3)) == 5
    assert distance((-3, 5), (2, -1)) == 8


def test_we1_dp4_board_e_extent() -> None:
    grid = HexMap(10)
    assert (10, 0) in grid.index
    assert (11, 0) not in grid.index
    assert len(grid) == hex_count(10) == 331


@calm
@given(hexes)
def test_dp3_offset_axial_round_trip(h: tuple[int, int]) -> None:
    assert from_axial(*to_axial(*h)) == h


@calm
@given(hexes)
def test_dp2_neighbour_symmetry_and_distance_one(h: tuple[int, int]) -> None:
    around = neighbours(*h)
    assert len(set(around)) == 6
    assert h not in around
    for n in around:
        assert distance(h, n) == 1
        assert adjacent(h, n) and adjacent(n, h)
        assert h in neighbours(*n)
    assert not adjacent(h, h)


@calm
@given(hexes, hexes, hexes)
def test_dp3_distance_is_a_metric(a: tuple[int, int], b: tuple[int, int], c: tuple[int, int]) -> None:
    assert distance(a, a) == 0
    assert distance(a, b) == distance(b, a)
    assert (distance(a, b) == 0) == (a == b)
    assert distance(a, c) <= distance(a, b) + distance(b, c)


@calm
@given(hexes, st.integers(min_value=0, max_value=5))
def test_dp2_opposite_directions_cancel(h: tuple[int, int], d: int) -> None:
    step = neighbour(*h, d)
    assert neighbour(*step, (d + 3) % 6) == h


@calm
@given(st.integers(min_value=1, max_value=40))
def test_dp6_ring_size_distance_and_walk(rho: int) -> None:
    cells = ring(rho)
    assert len(cells) == 6 * rho == len(set(cells))
    assert cells[0] == (rho, 0)
    assert all(distance((0, 0), c) == rho for c in cells)
    # consecutive hexes of the walk are adjacent, and the walk closes on the start
    for a, b in zip(cells, [*cells[1:], cells[0]], strict=True):
        assert adjacent(a, b)


def test_dp6_ring_one_follows_the_walk_order() -> None:
    # start (1,0), then NW, W, SW, SE, E in axial terms
    assert ring(1) == [(1, 0), (0, -1), (-1, -1), (-1, 0), (-1, 1), (0, 1)]
    # axial (2,0), (2,-1), (2,-2) are offset (2,0), (1,-1), (1,-2)
    assert ring(2)[:3] == [(2, 0), (1, -1), (1, -2)]


@calm
@given(st.integers(min_value=0, max_value=30))
def test_dp4_dp5_map_is_the_disc_in_canonical_order(radius: int) -> None:
    cells = list(map_hexes(radius))
    assert len(cells) == hex_count(radius) == 3 * radius * (radius + 1) + 1
    assert cells == sorted(cells, key=lambda h: (h[1], h[0]))
    assert all(distance((0, 0), c) <= radius for c in cells)
    rim = ring(radius) if radius else [(0, 0)]
    assert set(rim) <= set(cells)


@calm
@given(st.integers(min_value=0, max_value=8), hexes)
def test_dp5_disc_offsets_stay_canonical_after_translation(radius: int, centre: tuple[int, int]) -> None:
    x, z = to_axial(*centre)
    cells = [from_axial(x + dx, z + dz) for dx, dz in disc_offsets(radius)]
    assert cells == sorted(cells, key=lambda h: (h[1], h[0]))
    assert len(cells) == hex_count(radius)
    assert all(distance(centre, c) <= radius for c in cells)


def test_hexmap_tables_match_the_functions() -> None:
    grid = HexMap(6)
    for i, (q, r) in enumerate(grid.hexes):
        expected = [grid.index.get(n, -1) for n in neighbours(q, r)]
        assert list(grid.nbr[i]) == expected
    centre = grid.index[(0, 0)]
    assert grid.disc(centre, 6) == tuple(range(len(grid)))
    corner = grid.index[(6, 0)]
    assert len(grid.disc(corner, 1)) == 4  # a corner of the hexagon has 3 neighbours on the map


def test_hexmap_disc_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hexgrid, "DISC_CACHE_LIMIT", 5)
    grid = HexMap(5)
    discs = [grid.disc(i, 1) for i in range(20)]
    assert len(grid._discs) <= 5
    assert [grid.disc(i, 1) for i in range(20)] == discs
    centre = grid.index[(0, 0)]
    assert grid.disc(centre, 1) == tuple(sorted(grid.index[h] for h in [(0, 0), *neighbours(0, 0)]))


@calm
@given(st.lists(st.tuples(st.integers(0, 330), st.integers(0, 5)), max_size=12))
def test_dp90_disc_union_equals_the_union_of_discs(centres: list[tuple[int, int]]) -> None:
    grid = _GRID10
    by_radius: dict[int, list[int]] = {}
    for cell, radius in centres:
        by_radius.setdefault(radius, []).append(cell)
    expected = sorted({h for cell, radius in centres for h in grid.disc(cell, radius)})
    assert grid.disc_union(by_radius) == expected


_GRID10 = HexMap(10)
