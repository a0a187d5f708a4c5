"""Crafting Quest 2 geometry and identifiers: spec CQ-1 (coordinates), CQ-2 (ids), CQ-3 (terrain),
CQ-14 (start cells)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from botarena.games.craftingquest.geometry import (
    ALL_UNIT_IDS,
    OPEN_TERRAINS,
    TERRAIN_CHARS,
    Grid,
    Terrain,
    UnitKind,
    cheb,
    player_unit_ids,
    start_cells,
    unit_id,
    unit_kind,
    unit_player,
)

sizes = st.integers(min_value=1, max_value=100)


@st.composite
def grid_and_cell(draw: st.DrawFn) -> tuple[Grid, tuple[int, int]]:
    grid = Grid(draw(sizes), draw(sizes))
    return grid, (draw(st.integers(0, grid.width - 1)), draw(st.integers(0, grid.height - 1)))


cells = st.tuples(st.integers(-200, 200), st.integers(-200, 200))


def test_cq1_idx_and_mirror_examples() -> None:
    grid = Grid(60, 50)
    assert grid.idx((0, 0)) == 0
    assert grid.idx((5, 2)) == 2 * 60 + 5
    assert grid.cell(125) == (5, 2)
    assert grid.mirror((0, 0)) == (59, 49)
    assert grid.mirror((3, 3)) == (56, 46)
    assert grid.mirror_idx(grid.idx((3, 3))) == grid.idx((56, 46))


@given(grid_and_cell())
def test_cq1_mirror_is_an_involution_and_a_rotation(case: tuple[Grid, tuple[int, int]]) -> None:
    grid, cell = case
    mirrored = grid.mirror(cell)
    assert grid.inside(mirrored)
    assert grid.mirror(mirrored) == cell
    assert grid.idx(mirrored) == grid.mirror_idx(grid.idx(cell)) == grid.area - 1 - grid.idx(cell)
    assert grid.cell(grid.idx(cell)) == cell


@given(grid_and_cell())
def test_cq1_canonical_and_upper_partition_the_map(case: tuple[Grid, tuple[int, int]]) -> None:
    grid, cell = case
    mirrored = grid.mirror(cell)
    own_mirror = mirrored == cell
    # exactly one of: c is upper, c is its own mirror, m(c) is upper
    assert [grid.is_upper(cell), own_mirror, grid.is_upper(mirrored)].count(True) == 1
    assert grid.is_canonical(cell) == (grid.is_upper(cell) or own_mirror)
    assert grid.is_canonical(cell) or grid.is_canonical(mirrored)


@pytest.mark.parametrize(("width", "height"), [(50, 50), (51, 51), (50, 100), (77, 77), (3, 1)])
def test_cq1_canonical_cells_are_half_the_map(width: int, height: int) -> None:
    grid = Grid(width, height)
    upper = [c for c in grid.cells() if grid.is_upper(c)]
    canonical = [c for c in grid.cells() if grid.is_canonical(c)]
    assert len(upper) == grid.area // 2
    assert len(canonical) == (grid.area + 1) // 2
    assert {grid.mirror(c) for c in upper}.isdisjoint(upper)


@given(cells, cells, cells)
def test_cq1_chebyshev_distance_axioms(a: tuple[int, int], b: tuple[int, int], c: tuple[int, int]) -> None:
    assert cheb(a, b) >= 0
    assert (cheb(a, b) == 0) == (a == b)
    assert cheb(a, b) == cheb(b, a)
    assert cheb(a, c) <= cheb(a, b) + cheb(b, c)
    assert cheb(a, b) == max(abs(a[0] - b[0]), abs(a[1] - b[1]))


@given(grid_and_cell(), st.data())
def test_cq1_mirror_preserves_distance(case: tuple[Grid, tuple[int, int]], data: st.DataObject) -> None:
    grid, a = case
    b = (data.draw(st.integers(0, grid.width - 1)), data.draw(st.integers(0, grid.height - 1)))
    assert cheb(grid.mirror(a), grid.mirror(b)) == cheb(a, b)


@given(grid_and_cell())
def test_cq1_neighbours_are_the_cells_at_distance_one(case: tuple[Grid, tuple[int, int]]) -> None:
    grid, cell = case
    expected = [c for c in grid.cells() if cheb(c, cell) == 1] if grid.area <= 400 else None
    got = grid.neighbours(cell)
    assert all(grid.inside(c) and cheb(c, cell) == 1 for c in got)
    assert len(got) == len(set(got)) <= 8
    assert got == sorted(got, key=grid.idx)
    if expected is not None:
        assert got == expected


def test_cq1_neighbours_of_inner_and_corner_cells() -> None:
    grid = Grid(50, 50)
    assert len(grid.neighbours((10, 10))) == 8
    assert grid.neighbours((0, 0)) == [(1, 0), (0, 1), (1, 1)]


def test_cq2_unit_ids() -> None:
    assert [unit_id(1, k) for k in UnitKind] == [3, 4, 5]
    assert [unit_id(2, k) for k in UnitKind] == [6, 7, 8]
    assert player_unit_ids(1) == (3, 4, 5)
    assert player_unit_ids(2) == (6, 7, 8)
    assert ALL_UNIT_IDS == (3, 4, 5, 6, 7, 8)
    assert [unit_player(u) for u in ALL_UNIT_IDS] == [1, 1, 1, 2, 2, 2]
    assert [unit_kind(u).value for u in ALL_UNIT_IDS] == ["devil", "fox", "crocodile"] * 2
    for bad in (0, 2, 9, -3):
        with pytest.raises(ValueError, match="no unit"):
            unit_player(bad)
        with pytest.raises(ValueError, match="no unit"):
            unit_kind(bad)


# CQ-3's table: JSON name, fixture code, char, penalty, who may enter.
CQ3 = [
    ("grass", 0, ".", 0, {"devil", "fox", "crocodile"}),
    ("dirt", 1, ":", 20, {"devil"}),
    ("sand", 2, "s", 10, {"devil", "fox", "crocodile"}),
    ("snow", 3, "*", 25, {"fox"}),
    ("rock", 4, "#", None, set()),
    ("swamp", 5, "~", 25, {"devil", "fox", "crocodile"}),
    ("water", 6, "w", 0, {"crocodile"}),
    ("deep_water", 7, "W", 10, {"crocodile"}),
]


@pytest.mark.parametrize(("name", "code", "char", "penalty", "enter"), CQ3)
def test_cq3_terrain_table(name: str, code: int, char: str, penalty: int | None, enter: set[str]) -> None:
    terrain = Terrain(name)
    assert terrain.code == code
    assert terrain.char == char
    assert terrain.default_penalty_pct == penalty
    assert {k.value for k in terrain.enterable_by} == enter
    assert all(terrain.can_enter(k) == (k.value in enter) for k in UnitKind)
    assert Terrain.from_code(code) is terrain
    assert Terrain.from_char(char) is terrain


def test_cq3_terrain_chars_and_errors() -> None:
    assert TERRAIN_CHARS == ".:s*#~wW"
    assert {t.value for t in OPEN_TERRAINS} == {"grass", "sand", "swamp"}
    with pytest.raises(ValueError, match="unknown terrain code"):
        Terrain.from_code(8)
    with pytest.raises(ValueError, match="unknown terrain character"):
        Terrain.from_char("M")


@pytest.mark.parametrize(("width", "height"), [(50, 50), (60, 60), (50, 100), (77, 77)])
def test_cq14_start_cells(width: int, height: int) -> None:
    grid = Grid(width, height)
    starts = start_cells(grid)
    assert starts[1] == ((3, 3), (4, 3), (5, 3))
    assert starts[2] == ((width - 4, height - 4), (width - 5, height - 4), (width - 6, height - 4))
    assert tuple(grid.mirror(c) for c in starts[1]) == starts[2]
