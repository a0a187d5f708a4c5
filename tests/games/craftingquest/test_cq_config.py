"""Crafting Quest 2 configuration: spec §2.1 keys, defaults and ranges, §2.2 presets, CQ-13 rounds."""

from __future__ import annotations

import dataclasses

import pytest
from cq_fixtures import config, scenario_e

from botarena.core.config import ConfigError, config_schema, config_to_dict
from botarena.games.craftingquest import constants as cq_config
from botarena.games.craftingquest.config import PRESETS, CraftingQuestConfig, rounds_for_width

# Spec §2.1, column "default".
SPEC_DEFAULTS = {
    "map": "generated",
    "scenario": None,
    "width": 60,
    "height": 60,
    "rounds": None,
    "turn_budget_ms": 1000,
    "turn_grace_ms": 100,
    "setup_timeout_ms": 3000,
    "turn_timeout_ms": 60000,
    "overage_bank_ms": 0,
    "max_actions_per_turn": 200,
    "max_quantity": 1000000,
    "initial_credit": 300,
    "unit_energy": 150,
    "move_base_cost": 20,
    "terrain_penalty_pct": {
        "grass": 0,
        "dirt": 20,
        "sand": 10,
        "snow": 25,
        "swamp": 25,
        "water": 0,
        "deep_water": 10,
    },
    "carry_divisor": 2,
    "dig_cost": 10,
    "scan_cost": 10,
    "pickup_cost": 5,
    "drop_cost": 0,
    "craft_cost": 0,
    "sell_cost": 0,
    "buy_cost": 0,
    "tower_energy_cost": 0,
    "tower_price": 75,
    "tower_strength": 250,
    "tower_radius": 4,
    "tower_drain_base": 60,
    "sight_radius": 5,
    "scan_radius": 7,
    "camp_radius": 1,
    "camp_pairs": None,
    "camp_min_distance": 6,
    "stock_extra": 3,
    "deposit_max_pairs": 5,
    "simple_recipe_total": 30,
    "simple_value_range": [200, 483],
    "complex_recipe_total": 6,
    "complex_ingredient_bonus": 200,
    "complex_value_range": [1500, 4509],
}

# Spec §2.1, column "allowed", for the integer keys.
SPEC_RANGES = {
    "width": (50, 100),
    "height": (50, 100),
    "rounds": (1, 1000),
    "turn_budget_ms": (0, 60000),
    "turn_grace_ms": (0, 1000),
    "setup_timeout_ms": (1, 60000),
    "turn_timeout_ms": (1000, 600000),
    "overage_bank_ms": (0, 600000),
    "max_actions_per_turn": (1, 10000),
    "max_quantity": (1, 10**9),
    "initial_credit": (0, 10**6),
    "unit_energy": (1, 10000),
    "move_base_cost": (0, 1000),
    "carry_divisor": (1, 100),
    "dig_cost": (0, 1000),
    "scan_cost": (0, 1000),
    "pickup_cost": (0, 1000),
    "drop_cost": (0, 1000),
    "craft_cost": (0, 1000),
    "sell_cost": (0, 1000),
    "buy_cost": (0, 1000),
    "tower_energy_cost": (0, 1000),
    "tower_price": (0, 10**6),
    "tower_strength": (1, 10**6),
    "tower_radius": (1, 20),
    "tower_drain_base": (0, 10000),
    "sight_radius": (1, 20),
    "scan_radius": (1, 20),
    "camp_radius": (1, 5),
    "camp_pairs": (2, 15),
    "camp_min_distance": (3, 20),
    "stock_extra": (0, 12),
    "deposit_max_pairs": (1, 20),
    "simple_recipe_total": (5, 100),
    "complex_recipe_total": (2, 20),
    "complex_ingredient_bonus": (0, 10000),
}


def test_cq_config_every_spec_key_with_its_default() -> None:
    assert config_to_dict(config()) == SPEC_DEFAULTS
    assert {f.name for f in dataclasses.fields(CraftingQuestConfig)} == set(SPEC_DEFAULTS)


def test_cq_config_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        config().width = 70  # type: ignore[misc]


@pytest.mark.parametrize("key", sorted(SPEC_RANGES))
def test_cq_config_range_bounds_accepted_and_outside_rejected(key: str) -> None:
    lo, hi = SPEC_RANGES[key]
    assert getattr(config(**{key: lo}), key) == lo
    assert getattr(config(**{key: hi}), key) == hi
    for bad in (lo - 1, hi + 1):
        with pytest.raises(ConfigError, match=key) as err:
            config(**{key: bad})
        assert "\n" not in str(err.value)


@pytest.mark.parametrize("key", ["rounds", "camp_pairs"])
def test_cq_config_nullable_keys_accept_null(key: str) -> None:
    assert getattr(config(**{key: None}), key) is None


def test_cq_config_wire_numbers_integral_float_accepted_bool_and_fraction_rejected() -> None:
    assert config(width=70.0).width == 70
    with pytest.raises(ConfigError, match="width"):
        config(width=True)
    with pytest.raises(ConfigError, match="width"):
        config(width=70.5)


def test_cq_config_unknown_key_rejected() -> None:
    with pytest.raises(ConfigError, match="unknown config key 'seed'"):
        config(seed=3)


@pytest.mark.parametrize(
    "name",
    [
        "SIMPLE_VALUE_BASE",
        "simple_value_base",
        "simple_price_ratio",
        "complex_price_ratio",
        "resource_types",
        "deposit_profiles",
        "scan_attributes",
    ],
)
def test_cq_config_constants_are_not_keys(name: str) -> None:
    with pytest.raises(ConfigError, match="unknown config key"):
        config(**{name: 1})


def test_cq_config_constants_values() -> None:
    assert (cq_config.SIMPLE_VALUE_BASE, cq_config.SIMPLE_VALUE_INCREMENT) == (100, 20)
    assert (cq_config.SIMPLE_PRICE_RATIO, cq_config.COMPLEX_PRICE_RATIO) == (4, 10)
    assert tuple(f"R{i}" for i in range(1, 13)) == cq_config.RESOURCE_TYPES
    assert tuple(f"O{i}" for i in range(1, 13)) == cq_config.OBJECT_TYPES
    assert cq_config.COMPLEX_OBJECT_COUNT == 3
    assert cq_config.SCAN_ATTRIBUTE_COUNT == 5
    assert (cq_config.SCAN_ATTRIBUTE_MIN_VALUES, cq_config.SCAN_ATTRIBUTE_MAX_VALUES) == (4, 5)
    assert dict(cq_config.DEPOSIT_PROFILES) == {1: (10, 2), 2: (10, 7, 2), 3: (10, 9, 5, 2)}


def test_cq_config_map_choices() -> None:
    for name in ("generated", "map_v1", "map_v5", "map_v2"):
        assert config(map=name).map == name
    with pytest.raises(ConfigError, match="'map'"):
        config(map="map_v3")


def test_cq_config_terrain_penalty_partial_mapping_completed_from_defaults() -> None:
    cfg = config(terrain_penalty_pct={"sand": 15})
    assert cfg.terrain_penalty_pct == {**SPEC_DEFAULTS["terrain_penalty_pct"], "sand": 15}  # type: ignore[dict-item]
    assert cfg.penalty_pct("sand") == 15
    assert cfg.penalty_pct("swamp") == 25


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"rock": 5}, "unknown terrain 'rock'"),
        ({"lava": 5}, "unknown terrain 'lava'"),
        ({"sand": -1}, "terrain_penalty_pct"),
        ({"sand": 1001}, "terrain_penalty_pct"),
        ({"sand": 2.5}, "terrain_penalty_pct"),
    ],
)
def test_cq_config_terrain_penalty_rejects_bad_entries(table: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        config(terrain_penalty_pct=table)


def test_cq_config_value_ranges() -> None:
    assert config(simple_value_range=[4, 4]).simple_value_range == (4, 4)
    assert config(complex_value_range=[10, 99]).complex_value_range == (10, 99)
    with pytest.raises(ConfigError, match="simple_value_range"):
        config(simple_value_range=[300, 200])
    with pytest.raises(ConfigError, match="simple_value_range"):
        config(simple_value_range=[3, 200])
    with pytest.raises(ConfigError, match="complex_value_range"):
        config(complex_value_range=[9, 200])
    with pytest.raises(ConfigError, match="complex_value_range"):
        config(complex_value_range=[1500])


def test_cq_config_presets_of_spec_2_2() -> None:
    assert set(PRESETS) == {"default", "generated", "map_v1", "map_v5", "map_v2"}
    assert config("generated") == config("default")
    assert config("default").map == "generated"
    for name in ("map_v1", "map_v5", "map_v2"):
        assert config(name).map == name
        assert config_to_dict(config(name)) == {**SPEC_DEFAULTS, "map": name}


def test_cq_config_unknown_preset() -> None:
    with pytest.raises(ConfigError, match="unknown preset"):
        config("map_v3")


def test_cq26_config_scenario_is_validated() -> None:
    assert config(scenario=scenario_e()).scenario is not None
    broken = scenario_e()
    broken["width"] = 49
    with pytest.raises(ConfigError, match="scenario: width"):
        config(scenario=broken)


@pytest.mark.parametrize(
    ("width", "rounds"),
    [(50, 160), (60, 160), (65, 160), (69, 160), (70, 180), (75, 180), (79, 180), (80, 200), (100, 200)],
)
def test_cq13_rounds_follow_the_width(width: int, rounds: int) -> None:
    assert rounds_for_width(width) == rounds
    assert config(width=width).effective_rounds(width) == rounds


def test_cq13_configured_rounds_override_the_width_rule() -> None:
    assert config(rounds=7).effective_rounds(100) == 7


def test_cq_config_json_schema_lists_every_key_with_its_range() -> None:
    schema = config_schema(CraftingQuestConfig)
    assert set(schema["properties"]) == set(SPEC_DEFAULTS)
    width = schema["properties"]["width"]
    assert (width["minimum"], width["maximum"], width["default"]) == (50, 100, 60)
