"""DatsPulse configuration (spec §2): one frozen dataclass of every key, its ranges and the presets.

`build_config(DatsPulseConfig, PRESETS, preset, overrides)` (botarena.core.config) validates a config:
unknown keys and out-of-range values are `ConfigError`s naming the key, and `check()` runs the §2
cross-checks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, StrictBool, StrictInt, StrictStr

from botarena.core.config import build_config

GAME_ID = "datspulse"
RULES_VERSION = "datspulse_v1"

Mode = Literal["realtime", "lockstep"]
Series = Literal["test", "final"]
GeneratorChoice = Literal["any", "cycle", "scatter", "mirror", "zones"]

#: §2 `place_points`: 170, 114, 86, 69, 58, 50, then 51 - place for places 7..50.
DEFAULT_PLACE_POINTS: tuple[int, ...] = (170, 114, 86, 69, 58, 50, *(51 - p for p in range(7, 51)))

#: The §7.6 keys left out of the lockstep `start` payload's config (real-time server only).
REALTIME_ONLY_KEYS = frozenset(
    {
        "mode",
        "turn_seconds",
        "lobby_seconds",
        "break_seconds",
        "series",
        "final_rounds",
        "first_lobby_at",
        "realm_prefix",
        "min_teams",
        "max_teams",
        "rate_limit_per_second",
        "log_limit",
    }
)


Cost = Annotated[StrictInt, Field(ge=1, le=10)]
Health = Annotated[StrictInt, Field(ge=1, le=10_000)]
Attack = Annotated[StrictInt, Field(ge=0, le=10_000)]
Capacity = Annotated[StrictInt, Field(ge=0, le=1000)]
View = Annotated[StrictInt, Field(ge=0, le=20)]
Speed = Annotated[StrictInt, Field(ge=1, le=50)]
Weight = Annotated[StrictInt, Field(ge=0, le=1000)]
Calories = Annotated[StrictInt, Field(ge=1, le=10_000)]
Radius5 = Annotated[StrictInt, Field(ge=0, le=5)]
Percent = Annotated[StrictInt, Field(ge=0, le=500)]
Damage = Annotated[StrictInt, Field(ge=0, le=1000)]
Positive = Annotated[StrictInt, Field(ge=1, le=1_000_000)]


@dataclass(frozen=True)
class DatsPulseConfig:
    """Every key of spec §2, with its default and range. Build it with `datspulse_config`."""

    __pydantic_config__ = ConfigDict(extra="forbid")

    mode: Mode = "lockstep"
    turns: Annotated[StrictInt, Field(ge=1, le=10_000)] = 300
    turn_seconds: Annotated[float, Field(ge=0.05, le=60.0, allow_inf_nan=False)] = 2.0
    lobby_seconds: Annotated[float, Field(ge=0.0, le=3600.0, allow_inf_nan=False)] = 300.0
    break_seconds: Annotated[float, Field(ge=0.0, le=3600.0, allow_inf_nan=False)] = 300.0
    series: Series = "final"
    final_rounds: Annotated[StrictInt, Field(ge=1, le=50)] = 6
    first_lobby_at: StrictStr | None = None  # None = when the server starts (§2)
    realm_prefix: Annotated[StrictStr, Field(pattern=r"^[a-z0-9-]{1,32}$")] = "antprotocol"
    min_teams: Annotated[StrictInt, Field(ge=1, le=100)] = 1
    max_teams: Annotated[StrictInt, Field(ge=1, le=100)] = 100
    rate_limit_per_second: Annotated[StrictInt, Field(ge=1, le=1000)] = 3
    log_limit: Annotated[StrictInt, Field(ge=10, le=100_000)] = 1000
    turn_timeout_ms: Annotated[StrictInt, Field(ge=1, le=60_000)] = 1000
    setup_timeout_ms: Annotated[StrictInt, Field(ge=1, le=120_000)] = 10_000
    overage_bank_ms: Annotated[StrictInt, Field(ge=0, le=600_000)] = 0
    map_radius: Annotated[StrictInt, Field(ge=0, le=500)] = 0
    map_hexes_per_team: Annotated[StrictInt, Field(ge=300, le=20_000)] = 2400
    map_min_radius: Annotated[StrictInt, Field(ge=8, le=500)] = 12
    map_generator: GeneratorChoice = "any"
    terrain_dirt_share: Annotated[float, Field(ge=0.0, le=0.5, allow_inf_nan=False)] = 0.10
    terrain_acid_share: Annotated[float, Field(ge=0.0, le=0.3, allow_inf_nan=False)] = 0.05
    terrain_stone_share: Annotated[float, Field(ge=0.0, le=0.3, allow_inf_nan=False)] = 0.07
    mirror_zone_radius: Annotated[StrictInt, Field(ge=3, le=50)] = 10
    zone_blob_size: Annotated[StrictInt, Field(ge=1, le=200)] = 12
    anthill_ring_ratio: Annotated[float, Field(ge=0.2, le=0.85, allow_inf_nan=False)] = 0.7
    spot_clear_radius: Annotated[StrictInt, Field(ge=0, le=5)] = 2
    map_max_attempts: Annotated[StrictInt, Field(ge=1, le=100)] = 10
    cost_anthill: Cost = 1
    cost_empty: Cost = 1
    cost_dirt: Cost = 2
    cost_acid: Cost = 1
    stone_reported_cost: Annotated[StrictInt, Field(ge=1, le=1000)] = 30
    acid_damage: Damage = 20
    spot_damage: Damage = 20
    spot_attack_radius: Radius5 = 2
    spot_bonus_percent: Percent = 25
    spot_bonus_radius: Radius5 = 2
    support_bonus_percent: Percent = 50
    spot_view: Annotated[StrictInt, Field(ge=0, le=10)] = 2
    worker_health: Health = 130
    soldier_health: Health = 180
    scout_health: Health = 80
    worker_attack: Attack = 30
    soldier_attack: Attack = 70
    scout_attack: Attack = 20
    worker_capacity: Capacity = 8
    soldier_capacity: Capacity = 2
    scout_capacity: Capacity = 2
    worker_view: View = 1
    soldier_view: View = 1
    scout_view: View = 4
    worker_speed: Speed = 5
    soldier_speed: Speed = 4
    scout_speed: Speed = 7
    worker_spawn_weight: Weight = 60
    soldier_spawn_weight: Weight = 30
    scout_spawn_weight: Weight = 10
    unit_limit: Annotated[StrictInt, Field(ge=1, le=1000)] = 100
    apple_calories: Calories = 10
    bread_calories: Calories = 20
    nectar_calories: Calories = 60
    food_initial_density: Annotated[float, Field(ge=0.0, le=0.5, allow_inf_nan=False)] = 0.04
    food_spawn_chance: Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)] = 0.5
    food_max_piles_per_team: Annotated[StrictInt, Field(ge=0, le=100_000)] = 150
    food_min_amount: Annotated[StrictInt, Field(ge=1, le=1000)] = 1
    food_max_amount: Annotated[StrictInt, Field(ge=1, le=1000)] = 15
    food_apple_share: Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)] = 0.5
    food_spawn_retries: Annotated[StrictInt, Field(ge=1, le=100)] = 10
    place_points: Annotated[
        tuple[Annotated[StrictInt, Field(ge=0, le=1_000_000)], ...], Field(min_length=1, max_length=1000)
    ] = DEFAULT_PLACE_POINTS
    place_points_floor: Annotated[StrictInt, Field(ge=0, le=1000)] = 1
    achievements_enabled: StrictBool = False
    achievement_lucky_round: Positive = 4
    achievement_lucky_place: Positive = 77
    achievement_queen_round: Positive = 5
    achievement_union_round: Positive = 6

    def check(self) -> None:
        """The §2 cross-checks at load time (ValueError, turned into ConfigError by build_config)."""
        shares = self.terrain_dirt_share + self.terrain_acid_share + self.terrain_stone_share
        if shares > 0.6:
            raise ValueError("terrain_dirt_share + terrain_acid_share + terrain_stone_share must be <= 0.6")
        if self.worker_spawn_weight + self.soldier_spawn_weight + self.scout_spawn_weight <= 0:
            raise ValueError("the spawn weights must sum to more than 0")
        if self.food_min_amount > self.food_max_amount:
            raise ValueError("config key 'food_min_amount' is greater than 'food_max_amount'")
        if self.min_teams > self.max_teams:
            raise ValueError("config key 'min_teams' is greater than 'max_teams'")
        if 0 < self.map_radius < self.map_min_radius:
            raise ValueError("config key 'map_radius': must be 0 or map_min_radius..500")
        if any(a < b for a, b in zip(self.place_points, self.place_points[1:], strict=False)):
            raise ValueError("config key 'place_points': must be non-increasing")
        if self.first_lobby_at is not None:
            _check_rfc3339(self.first_lobby_at)

    def lockstep_dict(self) -> dict[str, Any]:
        """Every key except the real-time-only ones (§7.6 `start` payload), JSON-able."""
        from botarena.core.config import config_to_dict

        return {k: v for k, v in config_to_dict(self).items() if k not in REALTIME_ONLY_KEYS}


_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


def _check_rfc3339(text: str) -> None:
    if not _RFC3339.match(text):
        raise ValueError(f"config key 'first_lobby_at': not an RFC 3339 time: {text!r}")
    try:
        datetime.fromisoformat(text.replace("z", "Z").replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"config key 'first_lobby_at': not an RFC 3339 time: {text!r}") from None


_REALTIME_SMALL = {"mode": "realtime", "series": "test", "turns": 30, "map_radius": 16}

#: §2 presets: tables of key overrides applied to the defaults.
PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    "local": {},
    "test": {
        "mode": "realtime",
        "series": "test",
        "turns": 420,
        "turn_seconds": 2.0,
        "lobby_seconds": 300,
        "break_seconds": 60,
        "map_generator": "any",
    },
    "final": {
        "mode": "realtime",
        "series": "final",
        "turns": 300,
        "turn_seconds": 2.0,
        "lobby_seconds": 300,
        "break_seconds": 300,
        "map_generator": "cycle",
        "achievements_enabled": True,
    },
    "ci": {**_REALTIME_SMALL, "turn_seconds": 0.2, "lobby_seconds": 2, "break_seconds": 1},
    "compat": {**_REALTIME_SMALL, "turn_seconds": 2.0, "lobby_seconds": 10, "break_seconds": 5},
}


def datspulse_config(preset: str = "default", overrides: dict[str, Any] | None = None) -> DatsPulseConfig:
    """The validated config of `preset` with `overrides` (raises botarena.core.config.ConfigError)."""
    return build_config(DatsPulseConfig, PRESETS, preset, overrides)
