"""Crafting Quest 2 configuration (spec §2): one frozen dataclass, the presets and the constants.

Every key of §2.1 is a field with its default and allowed range; `build_config` (core) rejects unknown
keys and out-of-range values with a one-line `ConfigError`. The §2.1 *constants* are module constants,
not fields, so setting one is an unknown-key error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, StrictInt

GAME_ID = "craftingquest"
RULES_VERSION = "craftingquest_v1"

# --- §2.1 constants (fixed by the rules; not configuration keys) ---------------------------------

SIMPLE_VALUE_BASE = 100
"""CQ-23: the constant term of the simple-value formula."""
SIMPLE_VALUE_INCREMENT = 20
"""CQ-23: the factor of the weight term of the simple-value formula."""
SIMPLE_PRICE_RATIO = 4
"""A simple object's price is its value // 4."""
COMPLEX_PRICE_RATIO = 10
"""A complex object's price is its value // 10."""
RESOURCE_TYPE_COUNT = 12
OBJECT_COUNT = 12
COMPLEX_OBJECT_COUNT = 3
RESOURCE_TYPES: tuple[str, ...] = tuple(f"R{i}" for i in range(1, RESOURCE_TYPE_COUNT + 1))
OBJECT_TYPES: tuple[str, ...] = tuple(f"O{i}" for i in range(1, OBJECT_COUNT + 1))
ITEM_RANK: dict[str, int] = {item: rank for rank, item in enumerate((*RESOURCE_TYPES, *OBJECT_TYPES))}
"""Spec 4's numeric id order as a table: "R2" before "R10", resources before objects."""
SCAN_ATTRIBUTE_COUNT = 5
"""CQ-19: an attribute vector has 5 attributes."""
SCAN_ATTRIBUTE_MIN_VALUES = 4
SCAN_ATTRIBUTE_MAX_VALUES = 5
"""CQ-19: attribute i takes the values 1..k_i with k_i in 4..5."""
DEPOSIT_PROFILES: Mapping[int, tuple[int, ...]] = {1: (10, 2), 2: (10, 7, 2), 3: (10, 9, 5, 2)}
"""CQ-16: the amount at distance d from a deposit's centre, by radius r (literal tables)."""

PRESET_MAPS: tuple[str, ...] = ("map_v1", "map_v5", "map_v2")

# Terrain names that take a move penalty (rock cannot be entered, so it has none; CQ-3).
PENALTY_TERRAINS: tuple[str, ...] = ("grass", "dirt", "sand", "snow", "swamp", "water", "deep_water")
DEFAULT_TERRAIN_PENALTY_PCT: Mapping[str, int] = {
    "grass": 0,
    "dirt": 20,
    "sand": 10,
    "snow": 25,
    "swamp": 25,
    "water": 0,
    "deep_water": 10,
}

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
            # Imported here: scenario.py depends on this module's constants.
            from botarena.games.craftingquest.scenario import Scenario

            Scenario.from_json(self.scenario)

    def penalty_pct(self, terrain: str) -> int:
        """The move penalty (percent of the base cost) of a terrain name; rock has none (CQ-3)."""
        return self.terrain_penalty_pct[terrain]

    def effective_rounds(self, width: int) -> int:
        """CQ-13: the configured `rounds`, or the width rule."""
        return self.rounds if self.rounds is not None else rounds_for_width(width)


PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    "generated": {},
    "map_v1": {"map": "map_v1"},
    "map_v5": {"map": "map_v5"},
    "map_v2": {"map": "map_v2"},
}
