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

    __pydantic_config__ = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    mode: Mode = "lockstep"
    """How turns advance: `lockstep` for fast local matches, `realtime` for the HTTP server (§7.4, §7.5)"""
    turns: Annotated[StrictInt, Field(ge=1, le=10_000)] = 300
    """Transitions per round; the round ends at turnNo == turns (§6.1)"""
    turn_seconds: Annotated[float, Field(ge=0.05, le=60.0, allow_inf_nan=False)] = 2.0
    """Real time: seconds between two transitions (§7.4)"""
    lobby_seconds: Annotated[float, Field(ge=0.0, le=3600.0, allow_inf_nan=False)] = 300.0
    """Real time: how long registration stays open before each round (§7.3)"""
    break_seconds: Annotated[float, Field(ge=0.0, le=3600.0, allow_inf_nan=False)] = 300.0
    """Real time: pause after a round before the next lobby opens (§7.3)"""
    series: Series = "final"
    """Real time: `test` repeats rounds forever; `final` plays final_rounds rounds and ranks them (§6.3)"""
    final_rounds: Annotated[StrictInt, Field(ge=1, le=50)] = 6
    """Number of rounds in a final series (§6.3)"""
    first_lobby_at: StrictStr | None = None  # None = when the server starts (§2)
    """Real time: RFC 3339 time when the first lobby opens; null means at server start"""
    realm_prefix: Annotated[StrictStr, Field(pattern=r"^[a-z0-9-]{1,32}$")] = "antprotocol"
    """Round names are <prefix>-<series>-<n>, e.g. antprotocol-test-7"""
    min_teams: Annotated[StrictInt, Field(ge=1, le=100)] = 1
    """Real time: a round with fewer registered teams when the lobby closes is cancelled"""
    max_teams: Annotated[StrictInt, Field(ge=1, le=100)] = 100
    """Most teams that may register for a round; later registrations are refused"""
    rate_limit_per_second: Annotated[StrictInt, Field(ge=1, le=1000)] = 3
    """Real time: requests accepted per token per second, over a sliding 2 s window (§7.1)"""
    log_limit: Annotated[StrictInt, Field(ge=10, le=100_000)] = 1000
    """Real time: log entries kept per team for /api/logs (§7.7)"""
    turn_timeout_ms: Annotated[StrictInt, Field(ge=1, le=60_000)] = 1000
    """Lockstep: time a bot has to answer one turn request, and the end request"""
    setup_timeout_ms: Annotated[StrictInt, Field(ge=1, le=120_000)] = 10_000
    """Lockstep: time a bot has to answer the start request, process start included"""
    overage_bank_ms: Annotated[StrictInt, Field(ge=0, le=600_000)] = 0
    """Lockstep: overage bank per bot in ms; 0 means no bank"""
    map_radius: Annotated[StrictInt, Field(ge=0, le=500)] = 0
    """Map radius R in hexes; 0 sizes the map from the team count (DP-4)"""
    map_hexes_per_team: Annotated[StrictInt, Field(ge=300, le=20_000)] = 2400
    """Target hexes per team when the map radius is automatic (DP-4)"""
    map_min_radius: Annotated[StrictInt, Field(ge=8, le=500)] = 12
    """Smallest radius an automatic map gets (DP-4)"""
    map_generator: GeneratorChoice = "any"
    """Terrain generator: scatter, mirror, zones, `any` (drawn) or `cycle` (per round) (DP-47)"""
    terrain_dirt_share: Annotated[float, Field(ge=0.0, le=0.5, allow_inf_nan=False)] = 0.10
    """Chance that a scattered hex is dirt (DP-42)"""
    terrain_acid_share: Annotated[float, Field(ge=0.0, le=0.3, allow_inf_nan=False)] = 0.05
    """Chance that a scattered hex is acid (DP-42)"""
    terrain_stone_share: Annotated[float, Field(ge=0.0, le=0.3, allow_inf_nan=False)] = 0.07
    """Chance that a scattered hex is stone (DP-42)"""
    mirror_zone_radius: Annotated[StrictInt, Field(ge=3, le=50)] = 10
    """Radius of the identical terrain zone stamped around every spot by `mirror` (DP-43)"""
    zone_blob_size: Annotated[StrictInt, Field(ge=1, le=200)] = 12
    """Random-walk length of one terrain blob in the `zones` generator (DP-44)"""
    anthill_ring_ratio: Annotated[float, Field(ge=0.2, le=0.85, allow_inf_nan=False)] = 0.7
    """Radius of the outermost ring of anthill spots, as a fraction of R (DP-41)"""
    spot_clear_radius: Annotated[StrictInt, Field(ge=0, le=5)] = 2
    """Stone and acid within this distance of any anthill hex become empty (DP-45)"""
    map_max_attempts: Annotated[StrictInt, Field(ge=1, le=100)] = 10
    """Terrain draws tried for connected anthills before all stone is cleared (DP-45)"""
    cost_anthill: Cost = 1
    """Movement points spent to enter an anthill hex (DP-10)"""
    cost_empty: Cost = 1
    """Movement points spent to enter an empty hex (DP-10)"""
    cost_dirt: Cost = 2
    """Movement points spent to enter a dirt hex (DP-10)"""
    cost_acid: Cost = 1
    """Movement points spent to enter an acid hex (DP-10)"""
    stone_reported_cost: Annotated[StrictInt, Field(ge=1, le=1000)] = 30
    """The cost shown to bots for stone, which stays impassable whatever it says (DP-10)"""
    acid_damage: Damage = 20
    """Damage for entering an acid hex, and for staying on one (DP-75, DP-76)"""
    spot_damage: Damage = 20
    """Damage an anthill deals once a turn to each enemy unit in reach (DP-71)"""
    spot_attack_radius: Radius5 = 2
    """Reach of the anthill's attack on enemy units, in hexes (DP-71)"""
    spot_bonus_percent: Percent = 25
    """Attack bonus in percent for a unit near its own anthill (DP-74)"""
    spot_bonus_radius: Radius5 = 2
    """Distance from its own anthill within which a unit earns the anthill bonus (DP-74)"""
    support_bonus_percent: Percent = 50
    """Attack bonus in percent when an ally is next to both attacker and target (DP-74)"""
    spot_view: Annotated[StrictInt, Field(ge=0, le=10)] = 2
    """View radius around a team's spot (DP-11, DP-90)"""
    worker_health: Health = 130
    """A worker's starting and maximum health (DP-20)"""
    soldier_health: Health = 180
    """A soldier's starting and maximum health (DP-20)"""
    scout_health: Health = 80
    """A scout's starting and maximum health (DP-20)"""
    worker_attack: Attack = 30
    """A worker's base damage per attack (DP-20, DP-74)"""
    soldier_attack: Attack = 70
    """A soldier's base damage per attack (DP-20, DP-74)"""
    scout_attack: Attack = 20
    """A scout's base damage per attack (DP-20, DP-74)"""
    worker_capacity: Capacity = 8
    """Food units a worker can carry (DP-20, DP-32)"""
    soldier_capacity: Capacity = 2
    """Food units a soldier can carry (DP-20, DP-32)"""
    scout_capacity: Capacity = 2
    """Food units a scout can carry (DP-20, DP-32)"""
    worker_view: View = 1
    """A worker's view radius in hexes (DP-20, DP-90)"""
    soldier_view: View = 1
    """A soldier's view radius in hexes (DP-20, DP-90)"""
    scout_view: View = 4
    """A scout's view radius in hexes (DP-20, DP-90)"""
    worker_speed: Speed = 5
    """A worker's movement points per turn, also its longest path in hexes (DP-20, DP-75)"""
    soldier_speed: Speed = 4
    """A soldier's movement points per turn, also its longest path in hexes (DP-20, DP-75)"""
    scout_speed: Speed = 7
    """A scout's movement points per turn, also its longest path in hexes (DP-20, DP-75)"""
    worker_spawn_weight: Weight = 60
    """Relative chance that a spawn is a worker (DP-79)"""
    soldier_spawn_weight: Weight = 30
    """Relative chance that a spawn is a soldier (DP-79)"""
    scout_spawn_weight: Weight = 10
    """Relative chance that a spawn is a scout (DP-79)"""
    unit_limit: Annotated[StrictInt, Field(ge=1, le=1000)] = 100
    """A team with this many living units or more spawns nothing (DP-23)"""
    apple_calories: Calories = 10
    """Calories per unit of apple, added to the score on delivery (DP-30, DP-78)"""
    bread_calories: Calories = 20
    """Calories per unit of bread, added to the score on delivery (DP-30, DP-78)"""
    nectar_calories: Calories = 60
    """Calories per unit of nectar; the score counts stored nectar at this rate (DP-30, DP-33)"""
    food_initial_density: Annotated[float, Field(ge=0.0, le=0.5, allow_inf_nan=False)] = 0.04
    """Chance that an eligible hex gets a food pile when the map is made (DP-46)"""
    food_spawn_chance: Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)] = 0.5
    """Chance per team per turn that a new food pile appears (DP-80)"""
    food_max_piles_per_team: Annotated[StrictInt, Field(ge=0, le=100_000)] = 150
    """No new apple or bread pile appears while this many per team lie on the map (DP-80)"""
    food_min_amount: Annotated[StrictInt, Field(ge=1, le=1000)] = 1
    """Smallest size of a new food pile (DP-80)"""
    food_max_amount: Annotated[StrictInt, Field(ge=1, le=1000)] = 15
    """Largest size of a new food pile (DP-80)"""
    food_apple_share: Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)] = 0.5
    """Chance that a new food pile is apple rather than bread (DP-80)"""
    food_spawn_retries: Annotated[StrictInt, Field(ge=1, le=100)] = 10
    """Hexes drawn when placing a new pile before the attempt gives up (DP-80)"""
    place_points: Annotated[
        tuple[Annotated[StrictInt, Field(ge=0, le=1_000_000)], ...], Field(min_length=1, max_length=1000)
    ] = DEFAULT_PLACE_POINTS
    """Round points by place, non-increasing: the i-th value is for place i (§6.2)"""
    place_points_floor: Annotated[StrictInt, Field(ge=0, le=1000)] = 1
    """Round points for a place past the end of place_points, when the score is above 0 (§6.2)"""
    achievements_enabled: StrictBool = False
    """Award the final-round achievements Lucky, Dear Queen and Union (§6.4)"""
    achievement_lucky_round: Positive = 4
    """Final round in which the Lucky achievement is awarded (§6.4)"""
    achievement_lucky_place: Positive = 77
    """Place that wins the Lucky achievement (§6.4)"""
    achievement_queen_round: Positive = 5
    """Final round whose team losing most units wins Dear Queen (§6.4)"""
    achievement_union_round: Positive = 6
    """Final round in which the first three-unit kill on one hex wins Union (§6.4)"""

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
