"""Config building: presets, overrides, one-line errors naming the key (core/config.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

import pytest
from pydantic import ConfigDict, Field, StrictInt

from botarena.core.config import ConfigError, build_config, config_schema, config_to_dict, parse_override
from botarena.core.registry import all_games


@dataclass(frozen=True)
class SampleConfig:
    __pydantic_config__ = ConfigDict(extra="forbid")

    mode: Literal["a", "b"] = "a"
    size: Annotated[StrictInt, Field(ge=1, le=10)] = 5
    span: tuple[StrictInt, StrictInt] | None = None
    turn_timeout_ms: Annotated[StrictInt, Field(ge=1)] = 1000

    def check(self) -> None:
        if self.span is not None and self.span[0] > self.span[1]:
            raise ValueError(f"config key 'span': lo {self.span[0]} is greater than hi {self.span[1]}")


PRESETS = {"default": {}, "big": {"size": 10}, "b": {"mode": "b", "size": 2}}


def build(preset: str = "default", **overrides: object) -> SampleConfig:
    return build_config(SampleConfig, PRESETS, preset, overrides)


def error(preset: str = "default", **overrides: object) -> str:
    with pytest.raises(ConfigError) as info:
        build(preset, **overrides)
    message = str(info.value)
    assert "\n" not in message, message
    return message


def test_defaults_and_presets() -> None:
    assert build() == SampleConfig()
    assert build("big").size == 10
    assert build("b") == SampleConfig(mode="b", size=2)


def test_overrides_win_over_the_preset() -> None:
    assert build("big", size=3).size == 3
    assert build("b", mode="a") == SampleConfig(mode="a", size=2)


def test_integral_floats_are_ints() -> None:
    config = build(size=3.0)
    assert config.size == 3 and type(config.size) is int
    assert build(span=[1.0, 2]).span == (1, 2)


def test_unknown_key() -> None:
    assert error(colour="red") == "unknown config key 'colour' (`botarena config GAME` lists the keys)"


def test_unknown_preset_lists_the_known_ones() -> None:
    assert error("huge") == "unknown preset 'huge' (known: b, big, default)"


@pytest.mark.parametrize(
    ("key", "value"),
    [("size", 0), ("size", 11), ("size", "3"), ("size", True), ("size", 2.5), ("mode", "c"), ("span", "x")],
)
def test_bad_values_name_the_key(key: str, value: object) -> None:
    assert f"config key {key!r}" in error(**{key: value})


def test_cross_key_check_is_a_config_error() -> None:
    assert error(span=[5, 2]) == "config key 'span': lo 5 is greater than hi 2"


def test_several_errors_stay_on_one_line() -> None:
    message = error(size=0, mode="z")
    assert "'size'" in message and "'mode'" in message


def test_config_to_dict_and_schema() -> None:
    expected = {"mode": "a", "size": 5, "span": [1, 2], "turn_timeout_ms": 1000}
    assert config_to_dict(build(span=[1, 2])) == expected
    schema = config_schema(SampleConfig)
    assert set(schema["properties"]) == {"mode", "size", "span", "turn_timeout_ms"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("size=3", ("size", 3)),
        ("mode=b", ("mode", "b")),
        ('mode="b"', ("mode", "b")),
        ("span=[1,2]", ("span", [1, 2])),
        (" size = 4", ("size", 4)),
        ("flag=true", ("flag", True)),
        ("name=", ("name", "")),
        ("eq=a=b", ("eq", "a=b")),
    ],
)
def test_parse_override(text: str, expected: tuple[str, object]) -> None:
    assert parse_override(text) == expected


@pytest.mark.parametrize("text", ["size", "=3", "", " =1"])
def test_parse_override_errors(text: str) -> None:
    with pytest.raises(ConfigError, match="expected key=value"):
        parse_override(text)


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.id)
def test_every_game_has_a_default_preset_and_rejects_unknown_keys(game) -> None:  # type: ignore[no-untyped-def]
    config = game.config()
    assert config_to_dict(config)
    assert "seed" not in config_to_dict(config)  # the match seed is never a config key
    with pytest.raises(ConfigError, match="unknown config key 'no_such_key'"):
        game.config(overrides={"no_such_key": 1})
