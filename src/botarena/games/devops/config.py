"""Devops Game configuration (spec section 2): one frozen dataclass, presets, ranges."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, StrictBool, StrictInt, StrictStr

GAME_ID = "devops"
RULES_VERSION = "devops_v1"

UNIT_TYPES = ("PIONEER", "WORKER", "FIGHTER", "CLERIC", "SAPPER")
UNIT_MOVE_TYPES = (
    "TRAVEL",
    "CONQUER_NEUTRAL_TILE",
    "NEUTRALIZE_ENEMY_TILE",
    "GENERATE_GOLD",
    "ATTACK",
    "PREPARE_DEFENSE",
    "FORTIFY",
    "PRAY",
    "HEAL",
    "CONVERT",
    "DEPLOY_BOMB",
    "CLEAR_BOMB",
    "RETIRE",
    "IDLE",
)
DEFAULT_MOVE_COST = {"FORTIFY": 250, "DEPLOY_BOMB": 25}
# Spec 5.2, deviation 6: the reasons of a readable reply that asks for a move the rules refuse;
# `penalty_invalid` prices them (an unreadable reply, `bad_json`, costs `penalty_error`)
INVALID_MOVE_REASONS = ("bad_type", "type_not_allowed", "bad_parameter", "unaffordable")


def _per_type(*values: int) -> dict[str, int]:
    return dict(zip(UNIT_TYPES, values, strict=True))


Int = StrictInt
Score = StrictInt
Gold = Annotated[StrictInt, Field(ge=0, le=1_000_000)]
GoldMap = dict[StrictStr, Annotated[StrictInt, Field(ge=0, le=1_000_000)]]


@dataclass(frozen=True)
class DevopsConfig:
    """Every key of spec section 2. Validated by `botarena.core.config.build_config`."""

    __pydantic_config__ = ConfigDict(extra="forbid")

    game_id: Annotated[StrictStr, Field(max_length=64, pattern=r"^[A-Za-z0-9._-]*$")] = ""
    turn_limit: Annotated[StrictInt, Field(ge=1, le=100_000)] = 500
    map_width_min: Annotated[StrictInt, Field(ge=5, le=500)] = 32
    map_width_max: Annotated[StrictInt, Field(ge=5, le=500)] = 48
    map_height_min: Annotated[StrictInt, Field(ge=5, le=500)] = 24
    map_height_max: Annotated[StrictInt, Field(ge=5, le=500)] = 36
    min_tiles_per_faction: Annotated[StrictInt, Field(ge=9, le=10_000)] = 25
    resource_density: Annotated[float, Field(ge=0.0, le=0.5, allow_inf_nan=False)] = 0.05
    start_territory_radius: Annotated[StrictInt, Field(ge=0, le=3)] = 1
    starting_units: Annotated[list[StrictStr], Field(max_length=8)] = field(
        default_factory=lambda: ["PIONEER", "PIONEER"]
    )
    starting_gold: Annotated[StrictInt, Field(ge=0, le=10**9)] = 1000
    starting_bombs: Annotated[StrictInt, Field(ge=0, le=100)] = 0
    receive_income_gold: Gold = 500
    generate_gold: GoldMap = field(default_factory=lambda: {"PIONEER": 50, "WORKER": 100})
    worker_resource_multiplier: Annotated[StrictInt, Field(ge=1, le=100)] = 3
    bomb_cost: Gold = 500
    unit_cost: GoldMap = field(default_factory=lambda: _per_type(200, 350, 700, 500, 850))
    unit_build_turns: dict[StrictStr, Annotated[StrictInt, Field(ge=1, le=50)]] = field(
        default_factory=lambda: _per_type(2, 3, 4, 5, 4)
    )
    unit_base_health: dict[StrictStr, Annotated[StrictInt, Field(ge=1, le=1000)]] = field(
        default_factory=lambda: _per_type(3, 5, 6, 4, 6)
    )
    unit_damage: dict[StrictStr, Annotated[StrictInt, Field(ge=0, le=1000)]] = field(
        default_factory=lambda: _per_type(2, 0, 3, 1, 2)
    )
    unit_upkeep: GoldMap = field(default_factory=lambda: _per_type(25, 45, 90, 60, 90))
    unit_move_cost: GoldMap = field(default_factory=lambda: dict(DEFAULT_MOVE_COST))
    heal_amount: Annotated[StrictInt, Field(ge=1, le=1000)] = 2
    defense_divisor: Annotated[StrictInt, Field(ge=1, le=10)] = 2
    population_cap_base: Annotated[StrictInt, Field(ge=0, le=1000)] = 5
    population_cap_tiles_per_unit: Annotated[StrictInt, Field(ge=1, le=1000)] = 10
    population_cap_max: Annotated[StrictInt, Field(ge=1, le=10_000)] = 100
    score_neutralize: Score = 20
    score_conquer: Score = 25
    score_conquer_resource: Score = 15
    score_kill: Score = 25
    score_fortify: Score = 10
    score_heal: Score = 10
    score_convert: Score = 25
    score_defuse: Score = 15
    score_largest_territory: Score = 10
    score_create_basic: Score = 10
    score_create_special: Score = 25
    penalty_upkeep: Annotated[StrictInt, Field(ge=0)] = 75
    penalty_timeout: Annotated[StrictInt, Field(ge=0)] = 100
    penalty_error: Annotated[StrictInt, Field(ge=0)] = 100
    penalty_invalid: Annotated[StrictInt, Field(ge=0)] = 100
    # Spec 4, deviations 2, 3, 19: `botarena` sends the section 4 fields (the 2024-25 model plus
    # `mined`, `bombCost`, `activeBonuses`); `course-2024` sends exactly the fields of the course's
    # 2024-25 model classes, so a strict Jackson mapper (FAIL_ON_UNKNOWN_PROPERTIES) parses every body
    wire_model: Literal["botarena", "course-2024"] = "botarena"
    turn_timeout_ms: Annotated[StrictInt, Field(ge=50, le=60_000)] = 1000
    turn_budget_ms: Annotated[StrictInt, Field(ge=0, le=3_600_000)] = 20_000
    setup_timeout_ms: Annotated[StrictInt, Field(ge=1, le=120_000)] = 10_000
    overage_bank_ms: Annotated[StrictInt, Field(ge=0, le=600_000)] = 0
    http_max_parallel_per_faction: Annotated[StrictInt, Field(ge=1, le=256)] = 16
    fetch_logs: StrictBool = False
    log_lines_max: Annotated[StrictInt, Field(ge=0, le=10_000)] = 500
    abort_on_logic_error: StrictBool = False
    turn_interval_ms: Annotated[StrictInt, Field(ge=0, le=60_000)] = 0
    bonus_codes_enabled: StrictBool = False
    bonus_duration_turns: Annotated[StrictInt, Field(ge=1, le=1000)] = 10
    bonus_extra_gold: Gold = 1000
    bonus_income_multiplier: Annotated[StrictInt, Field(ge=1, le=10)] = 2
    bonus_cheaper_units_percent: Annotated[StrictInt, Field(ge=0, le=100)] = 50
    bonus_code_valid_turns: Annotated[StrictInt, Field(ge=1, le=100_000)] = 50

    def check(self) -> None:
        """Cross-key checks (spec section 2) that a field constraint cannot express."""
        if self.map_width_min > self.map_width_max:
            raise ValueError("config key 'map_width_min' is greater than 'map_width_max'")
        if self.map_height_min > self.map_height_max:
            raise ValueError("config key 'map_height_min' is greater than 'map_height_max'")
        if 0 < self.turn_budget_ms < 1000:
            raise ValueError("config key 'turn_budget_ms': must be 0 or 1000..3600000")
        for unit in self.starting_units:
            if unit not in UNIT_TYPES:
                raise ValueError(f"config key 'starting_units': unknown unit type {unit!r}")
        for key in ("unit_cost", "unit_build_turns", "unit_base_health", "unit_damage", "unit_upkeep"):
            table = getattr(self, key)
            if sorted(table) != sorted(UNIT_TYPES):
                raise ValueError(f"config key {key!r}: must list exactly {', '.join(UNIT_TYPES)}")
        for unit in self.generate_gold:
            if unit not in ("PIONEER", "WORKER"):
                raise ValueError(f"config key 'generate_gold': only PIONEER and WORKER, not {unit!r}")
        for move in self.unit_move_cost:
            if move not in UNIT_MOVE_TYPES:
                raise ValueError(f"config key 'unit_move_cost': unknown unit move type {move!r}")

    def move_cost(self, move: str) -> int:
        """`unit_move_cost` of a move; a move missing from the table takes its default."""
        cost = self.unit_move_cost.get(move)
        return DEFAULT_MOVE_COST.get(move, 0) if cost is None else cost

    def generated(self, unit_type: str) -> int:
        return self.generate_gold.get(unit_type, 0)


PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    "course": {
        "map_width_min": 150,
        "map_width_max": 200,
        "map_height_min": 100,
        "map_height_max": 160,
        "turn_limit": 2400,
        "turn_interval_ms": 1000,
        "penalty_invalid": 0,
        "wire_model": "course-2024",
    },
    "smoke": {
        "map_width_min": 12,
        "map_width_max": 12,
        "map_height_min": 12,
        "map_height_max": 12,
        "turn_limit": 60,
    },
}
