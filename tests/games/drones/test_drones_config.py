"""Configuration (spec 2.1 and 2.2): defaults, presets, validation with messages naming the key."""

from __future__ import annotations

from typing import Any

import pytest
from drones_testkit import GAME

from botarena.core.config import ConfigError, config_schema, config_to_dict
from botarena.games.drones.config import PRESETS, DronesConfig


def test_defaults_are_the_spec_table() -> None:
    assert config_to_dict(GAME.config()) == {
        "rules": "seed",
        "rounds": 10,
        "turn_limit": 10,
        "turn_limit_range": None,
        "defender_bonus": 1,
        "turn_timeout_ms": 1000,
        "setup_timeout_ms": 10000,
        "overage_bank_ms": 0,
        "player_seeds": None,
    }


def test_presets_default_and_bravolt2018() -> None:
    assert PRESETS == {"default": {}, "bravolt2018": {"rules": "bravolt2018"}}
    assert GAME.config("default").rules == "seed"
    bravolt = GAME.config("bravolt2018")
    assert bravolt.rules == "bravolt2018"
    assert config_to_dict(bravolt) == {**config_to_dict(GAME.config()), "rules": "bravolt2018"}
    assert GAME.config("bravolt2018", {"rules": "seed"}).rules == "seed"  # overrides beat the preset


def test_unknown_preset() -> None:
    with pytest.raises(ConfigError, match=r"unknown preset 'drones_2019' \(known: bravolt2018, default\)"):
        GAME.config("drones_2019")


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"round": 5}, "unknown config key 'round'"),
        ({"seed": 5}, "unknown config key 'seed'"),  # the match seed is never a config key
        ({"rules": "SEED"}, "config key 'rules': input should be 'seed' or 'bravolt2018'"),
        ({"rules": None}, "config key 'rules'"),
        ({"rounds": "10"}, "config key 'rounds': input should be a valid integer"),
        ({"rounds": True}, "config key 'rounds': input should be a valid integer"),
        ({"rounds": 1.5}, "config key 'rounds': input should be a valid integer"),
        ({"rounds": None}, "config key 'rounds': input should be a valid integer"),
        ({"rounds": [10]}, "config key 'rounds': input should be a valid integer"),
        ({"rounds": 0}, "config key 'rounds': input should be greater than or equal to 1"),
        ({"rounds": 100_001}, "config key 'rounds': input should be less than or equal to 100000"),
        ({"turn_limit": 0}, "config key 'turn_limit': input should be greater than or equal to 1"),
        ({"turn_limit": 51}, "config key 'turn_limit': input should be less than or equal to 50"),
        ({"turn_limit_range": [8, 5]}, "config key 'turn_limit_range': lo 8 is greater than hi 5"),
        ({"turn_limit_range": [0, 5]}, "config key 'turn_limit_range.0'"),
        ({"turn_limit_range": [5, 51]}, "config key 'turn_limit_range.1'"),
        ({"turn_limit_range": [5]}, "config key 'turn_limit_range"),
        ({"turn_limit_range": [1, 2, 3]}, "config key 'turn_limit_range'"),
        ({"turn_limit_range": "5-8"}, "config key 'turn_limit_range'"),
        ({"turn_limit_range": [True, 5]}, "config key 'turn_limit_range.0': input should be a valid integer"),
        ({"defender_bonus": -1}, "config key 'defender_bonus': input should be greater than or equal to 0"),
        ({"defender_bonus": 1001}, "config key 'defender_bonus': input should be less than or equal to 1000"),
        ({"turn_timeout_ms": 0}, "config key 'turn_timeout_ms'"),
        ({"turn_timeout_ms": 60_001}, "config key 'turn_timeout_ms'"),
        ({"setup_timeout_ms": 120_001}, "config key 'setup_timeout_ms'"),
        ({"overage_bank_ms": -1}, "config key 'overage_bank_ms'"),
        ({"overage_bank_ms": 600_001}, "config key 'overage_bank_ms'"),
    ],
)
def test_bad_values_are_rejected_naming_the_key(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        GAME.config("default", overrides)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)  # one line for the organiser


@pytest.mark.parametrize(
    ("overrides", "key", "value"),
    [
        ({"rounds": 10.0}, "rounds", 10),
        ({"rounds": 1}, "rounds", 1),
        ({"rounds": 100_000}, "rounds", 100_000),
        ({"turn_limit": 50}, "turn_limit", 50),
        ({"turn_limit_range": [5.0, 8]}, "turn_limit_range", (5, 8)),
        ({"turn_limit_range": [7, 7]}, "turn_limit_range", (7, 7)),
        ({"turn_limit_range": None}, "turn_limit_range", None),
        ({"defender_bonus": 0}, "defender_bonus", 0),
        ({"overage_bank_ms": 0}, "overage_bank_ms", 0),
    ],
)
def test_good_values_are_accepted(overrides: dict[str, Any], key: str, value: Any) -> None:
    config = GAME.config("default", overrides)
    assert getattr(config, key) == value
    assert type(getattr(config, key)) is type(value)


def test_config_round_trips_through_the_replay_dict() -> None:
    config = GAME.config("bravolt2018", {"turn_limit_range": [3, 9], "rounds": 7})
    data = config_to_dict(config)
    assert data["turn_limit_range"] == [3, 9]
    assert GAME.config("default", data) == config


def test_schema_lists_every_key() -> None:
    schema = config_schema(DronesConfig)
    assert set(schema["properties"]) == {
        "rules",
        "rounds",
        "turn_limit",
        "turn_limit_range",
        "defender_bonus",
        "turn_timeout_ms",
        "setup_timeout_ms",
        "overage_bank_ms",
        "player_seeds",
    }
    assert schema["properties"]["rounds"]["maximum"] == 100_000


def test_2_3_event_2018_config_is_valid() -> None:
    from botarena.games.drones.config import EVENT_2018_CONFIG

    config = GAME.config("default", EVENT_2018_CONFIG)
    assert (config.rules, config.rounds, config.turn_limit, config.defender_bonus) == (
        "bravolt2018",
        1000,
        10,
        1,
    )
    assert GAME.config("default", {**EVENT_2018_CONFIG, "rules": "seed"}).rules == "seed"


def test_gd_4_player_seeds_can_be_given_explicitly() -> None:
    # GD-4: by default each seat's playerSeed is bot_seed(match seed, "drones", seat); config key
    # `player_seeds` names both instead, e.g. the original's (s, s + 1000) scheme for parity runs.
    from botarena.core.rng import bot_seed
    from botarena.games.drones.engine import DronesEngine

    def seeds(config: DronesConfig) -> list[int]:
        engine = DronesEngine(config, 7)
        return [request.payload["playerSeed"] for request in engine.start_requests()]

    assert seeds(GAME.config()) == [bot_seed(7, "drones", 0), bot_seed(7, "drones", 1)]
    explicit = GAME.config("bravolt2018", {"player_seeds": [5, 1005]})
    assert seeds(explicit) == [5, 1005]
    engine = DronesEngine(explicit, 7)
    assert [r.payload["bot_seed"] for r in engine.start_requests()] == [5, 1005]
    assert config_to_dict(explicit)["player_seeds"] == [5, 1005]  # the replay records them
    for bad in ([1], [1, 2, 3], [-1, 0], [0, 2**32], ["1", 2], [1.5, 2]):
        with pytest.raises(ConfigError, match="player_seeds"):
            GAME.config("default", {"player_seeds": bad})
