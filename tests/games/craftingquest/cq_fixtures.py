"""Helpers for the Crafting Quest 2 configuration, map and scenario tests.

The original maps are not in the repository (no licence covers them, spec §11): tests read them from
`$BOTARENA_CQ_MAPS` or from the shared fixtures next to the checkout (`../shared/fixtures/craftingquest/
maps`), and skip with a clear message when neither exists.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import cq_testkit
import numpy as np
import pytest
from numpy.typing import NDArray

from botarena.core.config import build_config
from botarena.games.craftingquest.config import PRESETS, CraftingQuestConfig
from botarena.games.craftingquest.geometry import cheb
from botarena.games.craftingquest.maps import find_maps_directory
from botarena.games.craftingquest.scenario import Scenario

REPO_ROOT = Path(__file__).resolve().parents[3]
SHARED_MAPS = REPO_ROOT / ".." / "shared" / "fixtures" / "craftingquest" / "maps"
MAP_NAMES = ("map_v1", "map_v5", "map_v2")


def maps_dir() -> Path | None:
    """Where the original maps are ($BOTARENA_CQ_MAPS, else the shared fixtures), or None."""
    return find_maps_directory(SHARED_MAPS)


def require_maps() -> Path:
    """The maps directory, or skip the test with a message saying how to supply it."""
    found = maps_dir()
    if found is None:
        pytest.skip(
            "the original Crafting Quest maps are not available: set BOTARENA_CQ_MAPS to a directory "
            "holding map_v1.cqm, map_v5.cqm and map_v2.cqm (shared/fixtures/craftingquest/maps)"
        )
    return found


def config(preset: str = "default", **overrides: Any) -> CraftingQuestConfig:
    return build_config(CraftingQuestConfig, PRESETS, preset, overrides)


def scenario_e() -> dict[str, Any]:
    """A fresh copy of scenario E as a CQ-26 record (mutate it freely), with the `origin` a generated
    map records, so the round-trip tests cover that field too."""
    return {**cq_testkit.scenario_e(), "origin": {"seed": 42, "map": "generated"}}


# --- scenario checks shared by the preset and generator tests (spec §11 items 3 and 4) -------------

RESOURCE_IDS = tuple(f"R{i}" for i in range(1, 13))
OBJECT_IDS = tuple(f"O{i}" for i in range(1, 13))
OPEN_CHARS = frozenset(".s~")
ENTER: dict[str, frozenset[str]] = {
    "devil": frozenset(".s~:"),
    "fox": frozenset(".s~*"),
    "crocodile": frozenset(".s~wW"),
}


def assert_symmetric(s: Scenario) -> None:
    """§11 item 3: terrain, camps, stock, deposits and vectors are invariant under m."""
    grid = s.grid
    flat = "".join(s.terrain)
    assert flat == flat[::-1], "terrain is not point-symmetric"
    camps = {c.cell: c.stock for c in s.camps}
    for cell, stock in camps.items():
        assert camps.get(grid.mirror(cell)) == stock, f"camp {cell} has no mirror twin with its stock"
    deposits = {d.cell: d for d in s.deposits}
    for cell, deposit in deposits.items():
        twin = deposits.get(grid.mirror(cell))
        assert twin is not None, f"deposit {cell} has no mirror twin"
        assert twin.buried == deposit.buried and twin.vectors == deposit.vectors, (
            f"deposit {cell} differs from its twin"
        )


def tests_matrix(s: Scenario) -> NDArray[np.int64]:
    """`m[t, i]` = type R(t+1)'s tested value of attribute i, or 0 if it does not test i."""
    tests = np.zeros((12, 5), dtype=np.int64)
    for type_id, type_tests in s.type_tests.items():
        for attribute, value in type_tests.items():
            tests[int(type_id[1:]) - 1, attribute] = value
    return tests


def matches(vectors: NDArray[np.int64], tests: NDArray[np.int64]) -> NDArray[np.bool_]:
    """`out[v, t]`: vector v satisfies type t's defining tests (CQ-20)."""
    return np.all((tests[None] == 0) | (vectors[:, None, :] == tests[None]), axis=2)


def assert_content_invariants(s: Scenario) -> None:
    """§11 item 4 parts that hold on presets and generated maps alike."""
    camp_cells = s.camp_cells()
    # an even number of camps in mirror pairs, every blueprint stocked somewhere
    assert len(s.camps) % 2 == 0
    assert all(s.grid.mirror(c) != c for c in camp_cells)
    stocked = {b for camp in s.camps for b in camp.stock}
    assert stocked == set(OBJECT_IDS), f"not stocked anywhere: {set(OBJECT_IDS) - stocked}"
    # deposits: never on Rock or a camp; every type present
    totals = dict.fromkeys(RESOURCE_IDS, 0)
    for d in s.deposits:
        assert s.terrain[d.y][d.x] != "#", f"deposit on rock at {d.cell}"
        assert d.cell not in camp_cells, f"deposit on a camp at {d.cell}"
        for type_id, quantity in d.buried.items():
            assert quantity > 0
            totals[type_id] += quantity
    assert all(total > 0 for total in totals.values()), totals
    # the attribute structure: 12 types with 1-4 tests; each vector fits its own type and no other
    assert sorted(s.type_tests) == sorted(RESOURCE_IDS)
    assert all(1 <= len(tests) <= 4 for tests in s.type_tests.values())
    assert all(k in (4, 5) for k in s.attribute_values)
    tests = tests_matrix(s)
    ranges = [np.arange(1, k + 1) for k in s.attribute_values]
    every_vector = np.stack(np.meshgrid(*ranges, indexing="ij"), axis=-1).reshape(-1, 5)
    assert matches(every_vector, tests).sum(axis=1).max() <= 1, "two types share a vector"
    pairs = [(int(t[1:]) - 1, v) for d in s.deposits for t, v in d.vectors.items()]
    own = np.array([t for t, _ in pairs], dtype=np.int64)
    found = matches(np.array([v for _, v in pairs], dtype=np.int64).reshape(-1, 5), tests)
    expected = np.zeros_like(found)
    expected[np.arange(len(pairs)), own] = True
    assert np.array_equal(found, expected), "a vector that does not identify its own type"
    # the catalogue: 12 blueprints, 3 complex, prices from values
    assert [b.id for b in s.blueprints] == list(OBJECT_IDS)
    assert sum(b.kind == "complex" for b in s.blueprints) == 3
    for b in s.blueprints:
        assert len(b.alternatives) == 2
        if b.kind == "simple":
            assert 50 <= b.price <= 120 and b.value // 4 == b.price, (b.id, b.price, b.value)
            assert all(2 <= len(alt) <= 4 and all(i in RESOURCE_IDS for i in alt) for alt in b.alternatives)
        else:
            assert 150 <= b.price <= 450 and b.value // 10 == b.price, (b.id, b.price, b.value)
            simple = {x.id for x in s.blueprints if x.kind == "simple"}
            assert all(2 <= len(alt) <= 3 and set(alt) <= simple for alt in b.alternatives)


def reachable(
    s: Scenario,
    start: tuple[int, int],
    enter: frozenset[str],
    seeds: set[int] | None = None,
    avoid: frozenset[int] = frozenset(),
) -> set[int]:
    """Cells (as idx) 8-connected to `start` (or `seeds`) through terrain characters in `enter`,
    never through the cells of `avoid`."""
    width, height = s.width, s.height
    flat = "".join(s.terrain)
    todo = list(seeds) if seeds is not None else [start[1] * width + start[0]]
    seen = set(todo)
    while todo:
        cell = todo.pop()
        x, y = cell % width, cell // width
        for ny in (y - 1, y, y + 1):
            if 0 <= ny < height:
                for nx in (x - 1, x, x + 1):
                    if 0 <= nx < width:
                        nb = ny * width + nx
                        if nb not in seen and flat[nb] in enter and nb not in avoid:
                            seen.add(nb)
                            todo.append(nb)
    return seen


def flood(seeds: NDArray[np.bool_], allowed: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """The cells of `allowed` 8-connected to `seeds` through `allowed` (2-D masks), by repeated
    3x3 dilation: slower than the generator's bitsets, and independent of them."""
    current = seeds & allowed
    while True:
        grown = current.copy()
        grown[1:] |= current[:-1]
        grown[:-1] |= current[1:]
        wide = grown.copy()
        wide[:, 1:] |= grown[:, :-1]
        wide[:, :-1] |= grown[:, 1:]
        wide &= allowed
        if np.array_equal(wide, current):
            return current
        current = wide


def assert_generated_invariants(s: Scenario, camp_pairs: int | None = None) -> None:
    """§11 item 4 parts that hold on generated maps: camps, CQ-7's zone and CQ-12's conditions."""
    grid = s.grid
    width = s.width
    flat = "".join(s.terrain)
    if camp_pairs is None:
        assert 12 <= len(s.camps) <= 18
    else:
        assert len(s.camps) == 2 * camp_pairs
    # CQ-7: the protected zone stays Grass
    for y in range(10):
        for x in range(10):
            assert s.terrain[y][x] == "." and flat[::-1][y * width + x] == "."
    # CQ-12: C_all holds every start cell, and every non-Rock cell is reachable by some kind
    chars = np.frombuffer(flat.encode("ascii"), dtype=np.uint8).reshape(s.height, s.width)

    def allowed(enter: frozenset[str]) -> NDArray[np.bool_]:
        return np.isin(chars, np.frombuffer("".join(sorted(enter)).encode("ascii"), dtype=np.uint8))

    origin = np.zeros(chars.shape, dtype=np.bool_)
    origin[3, 3] = True
    c_all = flood(origin, allowed(OPEN_CHARS))
    for cells in s.starts.values():
        for x, y in cells:
            assert c_all[y, x], f"start cell {(x, y)} outside C_all"
    reached = c_all.copy()
    for enter in ENTER.values():
        reached |= flood(c_all, allowed(enter))
    assert np.array_equal(reached, chars != ord("#")), "a non-Rock cell no kind can reach"
    # CQ-15: camps on open cells of C_all with 8 open neighbours, apart from each other and the zone
    cells = [c.cell for c in s.camps]
    for x, y in cells:
        assert 1 <= x <= s.width - 2 and 1 <= y <= s.height - 2
        assert not (x <= 9 and y <= 9) and not (x >= s.width - 10 and y >= s.height - 10)
        assert c_all[y, x]
        assert (
            all(s.terrain[ny][nx] in OPEN_CHARS for nx, ny in grid.neighbours((x, y)))
            and s.terrain[y][x] in OPEN_CHARS
        )
        assert cheb((x, y), grid.mirror((x, y))) >= 6
    for i, a in enumerate(cells):
        for b in cells[i + 1 :]:
            assert cheb(a, b) >= 3 or b == grid.mirror(a), f"camps {a} and {b} too close"


def assert_catalogue_formulas(s: Scenario, cfg: CraftingQuestConfig) -> None:
    """CQ-23/CQ-24 recomputed from the scenario itself: each simple alternative's quantities from the
    map totals, each value from the alternatives (neither depends on the draw order of the types)."""
    totals = dict.fromkeys(RESOURCE_IDS, 0)
    for d in s.deposits:
        for type_id, quantity in d.buried.items():
            totals[type_id] += quantity
    most = max(totals.values())
    values = {}
    for b in s.blueprints:
        if b.kind != "simple":
            continue
        weights = []
        for alt in b.alternatives:
            total = sum(totals[t] for t in alt)
            assert alt == {t: cfg.simple_recipe_total * totals[t] // total or 2 for t in alt}
            weights.append(sum(Fraction(most, totals[t]) for t in alt))
        w0, w1 = weights
        raw = math.ceil(100 + 20 * (w0**2 + w1**2) / (w0 + w1))
        lo, hi = cfg.simple_value_range
        assert b.value == min(max(raw, lo), hi), b.id
        values[b.id] = b.value
    for b in s.blueprints:
        if b.kind != "complex":
            continue
        sums = []
        for alt in b.alternatives:
            total = sum(values[o] for o in alt)
            assert alt == {o: cfg.complex_recipe_total * values[o] // total or 2 for o in alt}
            sums.append(sum((cfg.complex_ingredient_bonus + values[o]) * q for o, q in alt.items()))
        lo, hi = cfg.complex_value_range
        assert b.value == min(max((sums[0] + sums[1]) // 2, lo), hi), b.id


def assert_stock_spread(s: Scenario) -> None:
    """CQ-25 step 1: every blueprint is stocked by at least n_p // 2 of the n_p camp pairs."""
    upper = [c for c in s.camps if s.grid.is_upper(c.cell)]
    for object_id in OBJECT_IDS:
        assert sum(object_id in c.stock for c in upper) >= len(upper) // 2, object_id
