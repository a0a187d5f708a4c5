"""Devops Game configuration (spec section 2): one frozen dataclass, presets, ranges."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, StrictBool, StrictInt, StrictStr

from botarena.games.devops.vocabulary import UnitMoveType, UnitType

GAME_ID = "devops"
RULES_VERSION = "devops_v1"

# plain strings (not the enums): the config's tables are keyed by them and orjson writes only exact
# str keys; a member still finds its entry, since it hashes and compares as its value
UNIT_TYPES = tuple(t.value for t in UnitType)
UNIT_MOVE_TYPES = tuple(m.value for m in UnitMoveType)
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

    __pydantic_config__ = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    game_id: Annotated[StrictStr, Field(max_length=64, pattern=r"^[A-Za-z0-9._-]*$")] = ""
    """The gameId bots are told; empty derives devops-<12 hex digits> without revealing the seed"""
    turn_limit: Annotated[StrictInt, Field(ge=1, le=100_000)] = 500
    """Last turn played; the game also ends when at most one faction is left (DV-51)"""
    map_width_min: Annotated[StrictInt, Field(ge=5, le=500)] = 32
    """Smallest map width W; W is drawn between the min and max (DV-6)"""
    map_width_max: Annotated[StrictInt, Field(ge=5, le=500)] = 48
    """Largest map width W (DV-6)"""
    map_height_min: Annotated[StrictInt, Field(ge=5, le=500)] = 24
    """Smallest map height H; H is drawn between the min and max (DV-6)"""
    map_height_max: Annotated[StrictInt, Field(ge=5, le=500)] = 36
    """Largest map height H (DV-6)"""
    min_tiles_per_faction: Annotated[StrictInt, Field(ge=9, le=10_000)] = 25
    """The smallest map must hold this many tiles per faction, else the game won't start (DV-6)"""
    resource_density: Annotated[float, Field(ge=0.0, le=0.5, allow_inf_nan=False)] = 0.05
    """Share of the tiles outside the starting areas that hold a resource (DV-10)"""
    start_territory_radius: Annotated[StrictInt, Field(ge=0, le=3)] = 1
    """Each faction starts owning the tiles within this distance of its base (DV-9)"""
    starting_units: Annotated[list[StrictStr], Field(max_length=8)] = field(
        default_factory=lambda: ["PIONEER", "PIONEER"]
    )
    """Unit types each faction starts with, placed around its base in order (DV-11)"""
    starting_gold: Annotated[StrictInt, Field(ge=0, le=10**9)] = 1000
    """Each faction's gold at the start (DV-12)"""
    starting_bombs: Annotated[StrictInt, Field(ge=0, le=100)] = 0
    """Each faction's bombs at the start (DV-12)"""
    receive_income_gold: Gold = 500
    """Gold a RECEIVE_INCOME base move yields (DV-24)"""
    generate_gold: GoldMap = field(default_factory=lambda: {"PIONEER": 50, "WORKER": 100})
    """Gold a GENERATE_GOLD move yields, per unit type; only PIONEER and WORKER (DV-35)"""
    worker_resource_multiplier: Annotated[StrictInt, Field(ge=1, le=100)] = 3
    """Factor on a WORKER's GENERATE_GOLD yield on its own resource tile (DV-35)"""
    bomb_cost: Gold = 500
    """Gold a MANUFACTURE_BOMB base move costs (DV-28)"""
    unit_cost: GoldMap = field(default_factory=lambda: _per_type(200, 350, 700, 500, 850))
    """Gold to start building each unit type, paid when the build starts (DV-25)"""
    unit_build_turns: dict[StrictStr, Annotated[StrictInt, Field(ge=1, le=50)]] = field(
        default_factory=lambda: _per_type(2, 3, 4, 5, 4)
    )
    """Base moves a build of each unit type takes, the start move included (DV-25, DV-26)"""
    unit_base_health: dict[StrictStr, Annotated[StrictInt, Field(ge=1, le=1000)]] = field(
        default_factory=lambda: _per_type(3, 5, 6, 4, 6)
    )
    """Health of each unit type at creation, also the most a HEAL restores to (DV-11, DV-40)"""
    unit_damage: dict[StrictStr, Annotated[StrictInt, Field(ge=0, le=1000)]] = field(
        default_factory=lambda: _per_type(2, 0, 3, 1, 2)
    )
    """Damage an ATTACK by each unit type deals (DV-36)"""
    unit_upkeep: GoldMap = field(default_factory=lambda: _per_type(25, 45, 90, 60, 90))
    """Gold each unit type costs per turn, paid at turn start (DV-14)"""
    unit_move_cost: GoldMap = field(default_factory=lambda: dict(DEFAULT_MOVE_COST))
    """Gold per unit move type; moves not listed take their default (DV-48)"""
    heal_amount: Annotated[StrictInt, Field(ge=1, le=1000)] = 2
    """Health a HEAL restores, up to the unit's base health (DV-40)"""
    defense_divisor: Annotated[StrictInt, Field(ge=1, le=10)] = 2
    """Damage to a unit that prepared its defence is divided by this (DV-36)"""
    population_cap_base: Annotated[StrictInt, Field(ge=0, le=1000)] = 5
    """Constant part of the population cap (DV-3)"""
    population_cap_tiles_per_unit: Annotated[StrictInt, Field(ge=1, le=1000)] = 10
    """Territory tiles that add one unit to the population cap (DV-3)"""
    population_cap_max: Annotated[StrictInt, Field(ge=1, le=10_000)] = 100
    """Ceiling of the population cap (DV-3)"""
    score_neutralize: Score = 20
    """Score for neutralizing an enemy tile (DV-34)"""
    score_conquer: Score = 25
    """Score for conquering a neutral tile (DV-33)"""
    score_conquer_resource: Score = 15
    """Extra score for conquering a resource tile (DV-33)"""
    score_kill: Score = 25
    """Score for killing an enemy unit by attack or bomb (DV-32, DV-36)"""
    score_fortify: Score = 10
    """Score for fortifying a tile (DV-38)"""
    score_heal: Score = 10
    """Score for a HEAL that restored health (DV-40)"""
    score_convert: Score = 25
    """Score for converting an enemy unit (DV-41)"""
    score_defuse: Score = 15
    """Score for clearing an enemy bomb (DV-43)"""
    score_largest_territory: Score = 10
    """Score each turn for the single largest territory; a tie scores nothing (DV-50)"""
    score_create_basic: Score = 10
    """Score for a PIONEER, WORKER or FIGHTER spawned; taken back on RETIRE (DV-27, DV-44)"""
    score_create_special: Score = 25
    """Score for a CLERIC or SAPPER spawned; taken back on RETIRE (DV-27, DV-44)"""
    penalty_upkeep: Annotated[StrictInt, Field(ge=0)] = 75
    """Score lost in a turn whose upkeep cannot be paid (DV-14)"""
    penalty_timeout: Annotated[StrictInt, Field(ge=0)] = 100
    """Score lost per call that times out (DV-18)"""
    penalty_error: Annotated[StrictInt, Field(ge=0)] = 100
    """Score lost per call that crashes or sends an unreadable reply (DV-18)"""
    penalty_invalid: Annotated[StrictInt, Field(ge=0)] = 100
    """Score lost per readable move the rules refuse, e.g. unaffordable (DV-19, §8 deviation 6)"""
    # Spec 4, deviations 2, 3, 19: `botarena` sends the section 4 fields (the 2024-25 model plus
    # `mined`, `bombCost`, `activeBonuses`); `course-2024` sends exactly the fields of the course's
    # 2024-25 model classes, so a strict Jackson mapper (FAIL_ON_UNKNOWN_PROPERTIES) parses every body
    wire_model: Literal["botarena", "course-2024"] = "botarena"
    """Fields sent to bots: `botarena` (all of §4) or `course-2024` (exactly the 2024-25 model)"""
    turn_timeout_ms: Annotated[StrictInt, Field(ge=50, le=60_000)] = 1000
    """Time limit of each base or unit call (DV-17)"""
    turn_budget_ms: Annotated[StrictInt, Field(ge=0, le=3_600_000)] = 20_000
    """Wall time for all of one faction's calls in a turn; 0 means no budget (DV-17)"""
    setup_timeout_ms: Annotated[StrictInt, Field(ge=1, le=120_000)] = 10_000
    """Deadline of the start exchange, process start included (§7.2)"""
    overage_bank_ms: Annotated[StrictInt, Field(ge=0, le=600_000)] = 0
    """Overage bank per faction in ms; 0 means no bank"""
    http_max_parallel_per_faction: Annotated[StrictInt, Field(ge=1, le=256)] = 16
    """Most unit calls in flight at once to one faction's HTTP service (DV-16)"""
    fetch_logs: StrictBool = False
    """Fetch each HTTP faction's GET /logs after every turn and keep it in the replay (DV-52)"""
    log_lines_max: Annotated[StrictInt, Field(ge=0, le=10_000)] = 500
    """Log lines kept per log fetch (§7.4)"""
    abort_on_logic_error: StrictBool = False
    """End the game after a turn in which any call timed out or failed (DV-51)"""
    turn_interval_ms: Annotated[StrictInt, Field(ge=0, le=60_000)] = 0
    """Least wall time between turn starts, to pace live viewing; 0 is unpaced (DV-51)"""
    bonus_codes_enabled: StrictBool = False
    """Let the organizer issue bonus codes that teams redeem (DV-20, §7.5)"""
    bonus_duration_turns: Annotated[StrictInt, Field(ge=1, le=1000)] = 10
    """Turns a bonus other than EXTRA_GOLD stays active (DV-20)"""
    bonus_extra_gold: Gold = 1000
    """Gold an EXTRA_GOLD bonus grants once (DV-20)"""
    bonus_income_multiplier: Annotated[StrictInt, Field(ge=1, le=10)] = 2
    """Factor on all income while INCOME_MULTIPLIER is active (DV-20)"""
    bonus_cheaper_units_percent: Annotated[StrictInt, Field(ge=0, le=100)] = 50
    """Percent off unit costs while CHEAPER_UNITS is active (DV-20)"""
    bonus_code_valid_turns: Annotated[StrictInt, Field(ge=1, le=100_000)] = 50
    """Turns an issued bonus code stays valid unless the organizer says otherwise (§7.5)"""

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
