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

    __pydantic_config__ = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    preset_map: ClassVar[OriginalMap | None] = None
    """A preset's original map, once read (`check`, `load_map`). Not a key: an instance attribute
    outside the fields, so it is never validated, compared or recorded (the replay holds the whole
    scenario instead), and `dataclasses.replace` drops it."""

    map: MapChoice = "generated"
    """Where terrain and camps come from: a generated map or an original preset map (§2.2)"""
    # A complete CQ-26 scenario (validated in `check`); overrides map, width, height and generation.
    scenario: dict[str, Any] | None = None
    """A complete explicit scenario (CQ-26); overrides map, width, height and all generation"""
    width: Annotated[StrictInt, Field(ge=50, le=100)] = 60
    """Width of a generated map in cells; also sets the default round count (CQ-13)"""
    height: Annotated[StrictInt, Field(ge=50, le=100)] = 60
    """Height of a generated map in cells"""
    rounds: Annotated[StrictInt, Field(ge=1, le=1000)] | None = None
    """Rounds to play, each one turn per player; null uses the width rule 160/180/200 (CQ-13)"""
    turn_budget_ms: Annotated[StrictInt, Field(ge=0, le=60_000)] = 1000
    """Time for a whole turn, shared by its chain of requests; 0 means untimed (CQ-31, CQ-35)"""
    turn_grace_ms: Annotated[StrictInt, Field(ge=0, le=1000)] = 100
    """Extra time after the turn budget before the turn closes (CQ-31)"""
    setup_timeout_ms: Annotated[StrictInt, Field(ge=1, le=60_000)] = 3000
    """How long the engine waits for both answers to the setup (start) request (CQ-28)"""
    turn_timeout_ms: Annotated[StrictInt, Field(ge=1000, le=600_000)] = 60_000
    """Untimed mode: the longest wait for any one answer, and for the end reply (CQ-35)"""
    overage_bank_ms: Annotated[StrictInt, Field(ge=0, le=600_000)] = 0
    """Overage bank per player in ms; 0 means no bank"""
    max_actions_per_turn: Annotated[StrictInt, Field(ge=1, le=10_000)] = 200
    """Most requests handled in one turn; the reply to the last one closes the turn (CQ-31)"""
    max_quantity: Annotated[StrictInt, Field(ge=1, le=10**9)] = 1_000_000
    """Largest quantity a request may name; larger ones fail the shape checks (§5.2)"""
    initial_credit: Annotated[StrictInt, Field(ge=0, le=10**6)] = 300
    """Each team's credit at the start of the game"""
    unit_energy: Annotated[StrictInt, Field(ge=1, le=10_000)] = 150
    """Energy each unit gets at the start of its owner's turn; leftover energy is lost (CQ-30)"""
    move_base_cost: Energy = 20
    """Base energy cost of a move, before the terrain penalty and carry surcharge (CQ-37)"""
    # Partial mappings are completed from the defaults in __post_init__ (so `{"sand": 15}` works).
    terrain_penalty_pct: dict[str, PenaltyPct] = field(
        default_factory=lambda: dict(DEFAULT_TERRAIN_PENALTY_PCT)
    )
    """Extra move cost per terrain, in percent of the base cost; missing terrains keep defaults (CQ-3)"""
    carry_divisor: Annotated[StrictInt, Field(ge=1, le=100)] = 2
    """A move costs an extra (items carried // this) energy (CQ-37)"""
    dig_cost: Energy = 10
    """Energy cost of a dig, which reveals the buried resources under the unit (CQ-39)"""
    scan_cost: Energy = 10
    """Energy cost of a scan of the cells within scan_radius (CQ-40)"""
    pickup_cost: Energy = 5
    """Energy cost of one pickup action, paid even when it fails with PickupError (CQ-41)"""
    drop_cost: Energy = 0
    """Energy cost of a drop action (CQ-42)"""
    craft_cost: Energy = 0
    """Energy cost of a craft action (CQ-43)"""
    sell_cost: Energy = 0
    """Energy cost of a sell action (CQ-44)"""
    buy_cost: Energy = 0
    """Energy cost of buying a blueprint at a camp (CQ-45)"""
    tower_energy_cost: Energy = 0
    """Energy cost of building a tower, paid by the building unit (CQ-46)"""
    tower_price: Annotated[StrictInt, Field(ge=0, le=10**6)] = 75
    """Credit a team pays to build a tower (CQ-46)"""
    tower_strength: Annotated[StrictInt, Field(ge=1, le=10**6)] = 250
    """A new tower's strength; drain lowers it, and below 0 the tower is destroyed (CQ-38, CQ-46)"""
    tower_radius: Radius = 4
    """Radius within which a tower guards pickups and drains opponent moves (CQ-38, CQ-41)"""
    tower_drain_base: Annotated[StrictInt, Field(ge=0, le=10_000)] = 60
    """Energy a tower drains from a move at distance d is this // d (CQ-38)"""
    sight_radius: Radius = 5
    """Radius of the square of cells a unit sees, through any obstacle (§4.2)"""
    scan_radius: Radius = 7
    """Radius of the square of cells a scan reports on (CQ-40)"""
    camp_radius: Annotated[StrictInt, Field(ge=1, le=5)] = 1
    """How near a unit must be to a camp to see its stock and buy from it (CQ-45)"""
    camp_pairs: Annotated[StrictInt, Field(ge=2, le=15)] | None = None
    """Mirror pairs of camps on a generated map; null draws 6 to 9 pairs (CQ-15)"""
    camp_min_distance: Annotated[StrictInt, Field(ge=3, le=20)] = 6
    """Least distance between camps on a generated map, relaxed if no room (CQ-15)"""
    stock_extra: Annotated[StrictInt, Field(ge=0, le=12)] = 3
    """Extra blueprints drawn for each camp pair's stock (CQ-25)"""
    deposit_max_pairs: Annotated[StrictInt, Field(ge=1, le=20)] = 5
    """Most deposit pairs of one resource type (CQ-16)"""
    simple_recipe_total: Annotated[StrictInt, Field(ge=5, le=100)] = 30
    """Resource units in one simple recipe, before rounding (CQ-23)"""
    simple_value_range: tuple[
        Annotated[StrictInt, Field(ge=4, le=10**9)], Annotated[StrictInt, Field(ge=4, le=10**9)]
    ] = (200, 483)
    """[lo, hi] clamp on a simple object's value; its price is value // 4 (CQ-23)"""
    complex_recipe_total: Annotated[StrictInt, Field(ge=2, le=20)] = 6
    """Simple objects in one complex recipe, before rounding (CQ-24)"""
    complex_ingredient_bonus: Annotated[StrictInt, Field(ge=0, le=10_000)] = 200
    """Value added per ingredient object when valuing a complex object (CQ-24)"""
    complex_value_range: tuple[
        Annotated[StrictInt, Field(ge=10, le=10**9)], Annotated[StrictInt, Field(ge=10, le=10**9)]
    ] = (1500, 4509)
    """[lo, hi] clamp on a complex object's value; its price is value // 10 (CQ-24)"""

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
