"""Crafting Quest 2 scenario generation (spec CQ-5 to CQ-25).

Order (CQ-5): terrain (CQ-7 to CQ-12), start cells (CQ-14), camps (CQ-15), deposits (CQ-16 to CQ-18),
attributes (CQ-19 to CQ-21), blueprints (CQ-22 to CQ-24), stock (CQ-25), rounds (CQ-13). A preset map
replaces the terrain and camps; everything else is generated the same way. The result is a pure
function of (match seed, configuration): a preset's original map rides on the config, read before the
engine (config.py); `build_scenario` is the tools' and tests' shortcut that reads it first.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from botarena.core.config import ConfigError
from botarena.games.craftingquest.config import CraftingQuestConfig, load_map
from botarena.games.craftingquest.constants import RESOURCE_TYPES
from botarena.games.craftingquest.generate_content import (
    make_attributes,
    make_blueprints,
    make_deposit_records,
    make_deposits,
    make_stock,
)
from botarena.games.craftingquest.generate_draws import Draws
from botarena.games.craftingquest.generate_terrain import (
    ROCK,
    TerrainMap,
    build_terrain,
    check_terrain,
    place_camps,
)
from botarena.games.craftingquest.geometry import TERRAIN_CHARS, Grid, start_cells
from botarena.games.craftingquest.maps import OriginalMap, maps_missing
from botarena.games.craftingquest.scenario import Camp, Scenario

MAX_TERRAIN_FAILURES = 100
"""CQ-12: after this many failed maps the game does not start."""
_CHAR_OF_CODE = np.frombuffer(TERRAIN_CHARS.encode("ascii"), dtype=np.uint8)


def scenario_of(config: CraftingQuestConfig, seed: int) -> Scenario:
    """CQ-5: the config's explicit scenario as it is, or one generated from the match seed; a preset
    map's terrain and camps come from `config.preset_map`. Pure: no I/O (raise ConfigError if a
    preset's map was not read before, or no valid map can be generated)."""
    if config.scenario is not None:
        return Scenario.from_json(config.scenario)
    return generate_scenario(config, seed)


def build_scenario(config: CraftingQuestConfig, seed: int, maps_dir: str | Path | None = None) -> Scenario:
    """`scenario_of` after reading a preset's map from `maps_dir` (default `$BOTARENA_CQ_MAPS`) when
    the config does not carry it yet: for tools and tests, which build scenarios without an engine."""
    if config.preset_map is None:
        config = load_map(config, maps_dir)
    return scenario_of(config, seed)


def generate_scenario(config: CraftingQuestConfig, seed: int) -> Scenario:
    """CQ-5: the scenario of a match without an explicit `scenario` (raise ConfigError if impossible)."""
    if config.map == "generated":
        tm, camps = _generated_map(config, seed)
    else:
        tm, camps = _preset_map(config.map, config.preset_map)
    grid = tm.grid
    blocked = tm.codes == ROCK
    blocked[camps] = True
    buried = make_deposits(grid, Draws(seed, "deposits"), blocked, config.deposit_max_pairs)
    attribute_draws = Draws(seed, "attributes")
    attributes = make_attributes(attribute_draws)
    deposits = make_deposit_records(grid, attribute_draws, buried, attributes)
    totals = {t: int(n) for t, n in zip(RESOURCE_TYPES, buried.sum(axis=1).tolist(), strict=True)}
    blueprints = make_blueprints(Draws(seed, "blueprints"), totals, config)
    return Scenario(
        width=grid.width,
        height=grid.height,
        rounds=config.effective_rounds(grid.width),
        terrain=_terrain_rows(tm),
        camps=_stocked_camps(grid, camps, Draws(seed, "stock"), config.stock_extra),
        starts=start_cells(grid),
        attribute_values=attributes.values,
        type_tests=attributes.type_tests,
        deposits=deposits,
        blueprints=blueprints,
        origin={"seed": seed, "map": config.map},
    )


def _generated_map(config: CraftingQuestConfig, seed: int) -> tuple[TerrainMap, list[int]]:
    """CQ-7 to CQ-12 and CQ-15: terrain and camps, retried on the same streams until valid."""
    tm = TerrainMap(Grid(config.width, config.height))
    terrain_draws = Draws(seed, "terrain")
    camp_draws = Draws(seed, "camps")
    for _ in range(MAX_TERRAIN_FAILURES):
        build_terrain(tm, terrain_draws)
        connectivity = check_terrain(tm)
        if not connectivity.valid:
            continue
        pairs = config.camp_pairs if config.camp_pairs is not None else camp_draws.randint(6, 9)
        camps = place_camps(tm, camp_draws, connectivity.open_component, pairs, config.camp_min_distance)
        if camps is not None:
            return tm, sorted(camps)
    raise ConfigError(
        f"craftingquest: no valid {config.width}x{config.height} map in {MAX_TERRAIN_FAILURES} "
        "attempts (CQ-12/CQ-15); try fewer camp_pairs or a smaller camp_min_distance"
    )


def _preset_map(name: str, original: OriginalMap | None) -> tuple[TerrainMap, list[int]]:
    """§2.2: a preset's terrain and camps from the original map file, read before the engine."""
    if original is None:
        raise maps_missing()
    grid = original.grid
    tm = TerrainMap(grid)
    codes = {ch: code for code, ch in enumerate(TERRAIN_CHARS)}
    tm.codes[:] = [codes[ch] for row in original.terrain for ch in row]
    camps = sorted(grid.idx(cell) for cell in original.camps)
    if sorted(grid.area - 1 - c for c in camps) != camps or any(c == grid.area - 1 - c for c in camps):
        raise ConfigError(f"map {name}: the camps do not form mirror pairs")
    return tm, camps


def _terrain_rows(tm: TerrainMap) -> tuple[str, ...]:
    text = _CHAR_OF_CODE[tm.codes].tobytes().decode("ascii")
    width = tm.width
    return tuple(text[y * width : (y + 1) * width] for y in range(tm.height))


def _stocked_camps(grid: Grid, camps: list[int], draws: Draws, stock_extra: int) -> tuple[Camp, ...]:
    """CQ-25: pairs `(c, m(c))` in idx order of the upper camp share one stock."""
    uppers = [c for c in camps if c < grid.area - 1 - c]
    stocks = make_stock(draws, len(uppers), stock_extra)
    stock_of: dict[int, tuple[str, ...]] = {}
    for upper, stock in zip(uppers, stocks, strict=True):
        stock_of[upper] = stock
        stock_of[grid.area - 1 - upper] = stock
    return tuple(Camp(c % grid.width, c // grid.width, stock_of[c]) for c in camps)
