"""§2 configuration: defaults, ranges, unknown keys, cross-checks, presets, the lockstep `config` (§7.6)."""

from __future__ import annotations

from typing import Any

import pytest

from botarena.core.config import ConfigError
from botarena.games.datspulse.config import PRESETS, REALTIME_ONLY_KEYS, DatsPulseConfig, datspulse_config


def test_s2_defaults() -> None:
    c = datspulse_config()
    assert (c.mode, c.turns, c.turn_seconds, c.map_generator) == ("lockstep", 300, 2.0, "any")
    assert (c.worker_health, c.soldier_attack, c.scout_view, c.soldier_speed) == (130, 70, 4, 4)
    assert (c.cost_dirt, c.stone_reported_cost, c.acid_damage, c.unit_limit) == (2, 30, 20, 100)
    assert (c.rate_limit_per_second, c.log_limit, c.turn_timeout_ms, c.overage_bank_ms) == (3, 1000, 1000, 0)
    assert c.place_points[:7] == (170, 114, 86, 69, 58, 50, 44)
    assert len(c.place_points) == 50 and c.place_points[-1] == 1
    assert all(c.place_points[p - 1] == 51 - p for p in range(7, 51))


@pytest.mark.parametrize(
    "preset, expected",
    [
        ("default", {"mode": "lockstep", "turns": 300}),
        ("local", {"mode": "lockstep", "turns": 300}),
        ("test", {"mode": "realtime", "series": "test", "turns": 420, "break_seconds": 60.0}),
        ("final", {"series": "final", "map_generator": "cycle", "achievements_enabled": True}),
        ("ci", {"turns": 30, "turn_seconds": 0.2, "lobby_seconds": 2.0, "map_radius": 16}),
        ("compat", {"turns": 30, "turn_seconds": 2.0, "lobby_seconds": 10.0, "break_seconds": 5.0}),
    ],
)
def test_s2_presets(preset: str, expected: dict[str, Any]) -> None:
    c = datspulse_config(preset)
    for key, value in expected.items():
        assert getattr(c, key) == value
    assert set(PRESETS) == {"default", "local", "test", "final", "ci", "compat"}


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"bogus": 1}, "unknown config key 'bogus'"),
        ({"turns": 0}, "'turns'"),
        ({"turns": 10001}, "'turns'"),
        ({"turns": True}, "'turns'"),
        ({"turns": 2.5}, "'turns'"),
        ({"mode": "fast"}, "'mode'"),
        ({"turn_seconds": 0.01}, "'turn_seconds'"),
        ({"map_radius": 5}, "'map_radius'"),
        ({"realm_prefix": "Bad Name"}, "'realm_prefix'"),
        ({"first_lobby_at": "tomorrow"}, "'first_lobby_at'"),
        ({"terrain_dirt_share": 0.3, "terrain_acid_share": 0.2, "terrain_stone_share": 0.2}, "<= 0.6"),
        (
            {"worker_spawn_weight": 0, "soldier_spawn_weight": 0, "scout_spawn_weight": 0},
            "sum to more than 0",
        ),
        ({"food_min_amount": 5, "food_max_amount": 4}, "'food_min_amount'"),
        ({"min_teams": 5, "max_teams": 4}, "'min_teams'"),
        ({"place_points": [1, 2]}, "non-increasing"),
        ({"achievement_lucky_place": 0}, "'achievement_lucky_place'"),
    ],
)
def test_s2_rejected(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        datspulse_config("default", overrides)


def test_s2_accepted_edges_and_integral_floats() -> None:
    c = datspulse_config(
        "default", {"turns": 5.0, "map_radius": 12, "first_lobby_at": "2025-07-11T18:40:00Z"}
    )
    assert c.turns == 5 and type(c.turns) is int
    assert datspulse_config("default", {"map_radius": 0}).map_radius == 0
    assert datspulse_config("default", {"turn_seconds": 1}).turn_seconds == 1.0
    with pytest.raises(ConfigError, match="unknown preset"):
        datspulse_config("nope")


def test_s76_lockstep_config_leaves_out_the_realtime_keys() -> None:
    data = datspulse_config().lockstep_dict()
    assert not REALTIME_ONLY_KEYS & set(data)
    assert data["turns"] == 300 and data["turn_timeout_ms"] == 1000
    assert isinstance(data["place_points"], list)
    fields = set(DatsPulseConfig.__dataclass_fields__)
    assert set(data) | REALTIME_ONLY_KEYS == fields
