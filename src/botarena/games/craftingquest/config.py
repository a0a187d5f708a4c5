"""Crafting Quest 2 configuration (spec §2): one frozen dataclass and the presets.

Every key of §2.1 is a field with its default and allowed range; `build_config` (core) rejects unknown
keys and out-of-range values with a one-line `ConfigError`. The §2.1 *constants* live in constants.py,
not here as fields, so setting one is an unknown-key error.

A preset map (§2.2) is read before the engine, never inside it: `check` (which `build_config` runs)
attaches the original map to the config when `$BOTARENA_CQ_MAPS` names its directory, and `load_map`
does the same from a directory the caller names. The engine only reads `preset_map`.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import ConfigDict, Field, StrictInt

from botarena.games.craftingquest.geometry import TERRAINS_BY_CODE
from botarena.games.craftingquest.maps import MAPS_ENV, OriginalMap, load_preset_map
from botarena.games.craftingquest.scenario import Scenario

GAME_ID = "craftingquest"
RULES_VERSION = "craftingquest_v1"

# Terrain names that take a move penalty, in code order, and their §2.1 defaults: geometry's CQ-3
# table (rock cannot be entered, so it has none).
DEFAULT_TERRAIN_PENALTY_PCT: Mapping[str, int] = {
    terrain.value: pct for terrain in TERRAINS_BY_CODE if (pct := terrain.default_penalty_pct) is not None
}
PENALTY_TERRAINS: tuple[str, ...] = tuple(DEFAULT_TERRAIN_PENALTY_PCT)

Energy = Annotated[StrictInt, Field(ge=0, le=1000)]
Radius = Annotated[StrictInt, Field(ge=1, le=20)]
PenaltyPct = Annotated[StrictInt, Field(ge=0, le=1000)]
MapChoice = Literal["generated", "map_v1", "map_v5", "map_v2"]


def rounds_for_width(width: int) -> int:
    """CQ-13: 160 rounds below width 70, 180 below 80, else 200."""
    if width < 70:
        return 160
    if width < 80:
        return 180
    return 200


@dataclass(frozen=True)
class CraftingQuestConfig:
    """Every key of spec §2.1. Validated by `botarena.core.config.build_config`."""

    __pydantic_config__ = ConfigDict(extra="forbid")

    preset_map: ClassVar[OriginalMap | None] = None
    """A preset's original map, once read (`check`, `load_map`). Not a key: an instance attribute
    outside the fields, so it is never validated, compared or recorded (the replay holds the whole
    scenario instead), and `dataclasses.replace` drops it."""

    map: MapChoice = "generated"
    # A complete CQ-26 scenario (validated in `check`); overrides map, width, height and generation.
    scenario: dict[str, Any] | None = None
    width: Annotated[StrictInt, Field(ge=50, le=100)] = 60
    height: Annotated[StrictInt, Field(ge=50, le=100)] = 60
    rounds: Annotated[StrictInt, Field(ge=1, le=1000)] | None = None
    turn_budget_ms: Annotated[StrictInt, Field(ge=0, le=60_000)] = 1000
    turn_grace_ms: Annotated[StrictInt, Field(ge=0, le=1000)] = 100
    setup_timeout_ms: Annotated[StrictInt, Field(ge=1, le=60_000)] = 3000
    turn_timeout_ms: Annotated[StrictInt, Field(ge=1000, le=600_000)] = 60_000
    overage_bank_ms: Annotated[StrictInt, Field(ge=0, le=600_000)] = 0
    max_actions_per_turn: Annotated[StrictInt, Field(ge=1, le=10_000)] = 200
    max_quantity: Annotated[StrictInt, Field(ge=1, le=10**9)] = 1_000_000
    initial_credit: Annotated[StrictInt, Field(ge=0, le=10**6)] = 300
    unit_energy: Annotated[StrictInt, Field(ge=1, le=10_000)] = 150
    move_base_cost: Energy = 20
    # Partial mappings are completed from the defaults in __post_init__ (so `{"sand": 15}` works).
    terrain_penalty_pct: dict[str, PenaltyPct] = field(
        default_factory=lambda: dict(DEFAULT_TERRAIN_PENALTY_PCT)
    )
    carry_divisor: Annotated[StrictInt, Field(ge=1, le=100)] = 2
    dig_cost: Energy = 10
    scan_cost: Energy = 10
    pickup_cost: Energy = 5
    drop_cost: Energy = 0
    craft_cost: Energy = 0
    sell_cost: Energy = 0
    buy_cost: Energy = 0
    tower_energy_cost: Energy = 0
    tower_price: Annotated[StrictInt, Field(ge=0, le=10**6)] = 75
    tower_strength: Annotated[StrictInt, Field(ge=1, le=10**6)] = 250
    tower_radius: Radius = 4
    tower_drain_base: Annotated[StrictInt, Field(ge=0, le=10_000)] = 60
    sight_radius: Radius = 5
    scan_radius: Radius = 7
    camp_radius: Annotated[StrictInt, Field(ge=1, le=5)] = 1
    camp_pairs: Annotated[StrictInt, Field(ge=2, le=15)] | None = None
    camp_min_distance: Annotated[StrictInt, Field(ge=3, le=20)] = 6
    stock_extra: Annotated[StrictInt, Field(ge=0, le=12)] = 3
    deposit_max_pairs: Annotated[StrictInt, Field(ge=1, le=20)] = 5
    simple_recipe_total: Annotated[StrictInt, Field(ge=5, le=100)] = 30
    simple_value_range: tuple[
        Annotated[StrictInt, Field(ge=4, le=10**9)], Annotated[StrictInt, Field(ge=4, le=10**9)]
    ] = (200, 483)
    complex_recipe_total: Annotated[StrictInt, Field(ge=2, le=20)] = 6
    complex_ingredient_bonus: Annotated[StrictInt, Field(ge=0, le=10_000)] = 200
    complex_value_range: tuple[
        Annotated[StrictInt, Field(ge=10, le=10**9)], Annotated[StrictInt, Field(ge=10, le=10**9)]
    ] = (1500, 4509)

    def __post_init__(self) -> None:
        # Complete a partial penalty table from the defaults, in the canonical key order, so the
        # effective configuration (recorded in the replay) always lists every terrain.
        given = self.terrain_penalty_pct
        if isinstance(given, dict):
            full = {name: given.get(name, DEFAULT_TERRAIN_PENALTY_PCT[name]) for name in PENALTY_TERRAINS}
            extra = {k: v for k, v in given.items() if k not in DEFAULT_TERRAIN_PENALTY_PCT}
            object.__setattr__(self, "terrain_penalty_pct", {**full, **extra})

    def check(self) -> None:
        """Cross-key checks of §2.1 that a field constraint cannot express (raise ValueError)."""
        unknown = sorted(k for k in self.terrain_penalty_pct if k not in DEFAULT_TERRAIN_PENALTY_PCT)
        if unknown:
            names = ", ".join(PENALTY_TERRAINS)
            raise ValueError(
                f"config key 'terrain_penalty_pct': unknown terrain {unknown[0]!r} (known: {names})"
            )
        for key in ("simple_value_range", "complex_value_range"):
            lo, hi = getattr(self, key)
            if lo > hi:
                raise ValueError(f"config key {key!r}: lo {lo} is greater than hi {hi}")
        if self.scenario is not None:
            Scenario.from_json(self.scenario)
        elif self.map != "generated" and os.environ.get(MAPS_ENV):
            # §2.2: read the preset's map now, at config-build time, so the engine never does I/O.
            # Without the variable the config stays valid; `load_map` or the engine's one-line error
            # (generate.scenario_of) say how to supply the maps.
            object.__setattr__(self, "preset_map", load_preset_map(self.map))

    def penalty_pct(self, terrain: str) -> int:
        """The move penalty (percent of the base cost) of a terrain name; rock has none (CQ-3)."""
        return self.terrain_penalty_pct[terrain]

    def effective_rounds(self, width: int) -> int:
        """CQ-13: the configured `rounds`, or the width rule."""
        return self.rounds if self.rounds is not None else rounds_for_width(width)


def load_map(config: CraftingQuestConfig, directory: str | Path | None = None) -> CraftingQuestConfig:
    """The config an engine can be built from: for a preset map without an explicit scenario, a copy
    carrying the original map read from `directory` (default `$BOTARENA_CQ_MAPS`); any other config
    as it is. I/O before the engine, for the caller; raises ConfigError in one line."""
    if config.scenario is not None or config.map == "generated":
        return config
    loaded = dataclasses.replace(config)
    object.__setattr__(loaded, "preset_map", load_preset_map(config.map, directory))
    return loaded


PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    "generated": {},
    "map_v1": {"map": "map_v1"},
    "map_v5": {"map": "map_v5"},
    "map_v2": {"map": "map_v2"},
}
