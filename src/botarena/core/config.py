"""Game configuration: one frozen dataclass per game, named presets, clear errors.

A game declares its config as a frozen stdlib dataclass whose fields carry their ranges as pydantic
constraints (`Annotated[StrictInt, Field(ge=1, le=50)]`). `build_config` applies a preset, then the
user's overrides, normalizes integral floats to ints (the platform's number rule) and validates the
result with pydantic; any failure is a `ConfigError` naming the key. The JSON schema used for docs
comes from the same dataclass (`config_schema`).
"""

from __future__ import annotations

import dataclasses
import difflib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar, runtime_checkable

from pydantic import TypeAdapter, ValidationError

from botarena.core.numbers import normalize_integral

T = TypeVar("T")


@runtime_checkable
class LimitsConfig(Protocol):
    """The keys of a game's config that the runner reads: every game's config has them (DESIGN,
    platform vocabulary)."""

    overage_bank_ms: int


@runtime_checkable
class PacedConfig(Protocol):
    """A config that paces its matches for live viewing: a batch starts no earlier than
    `turn_interval_ms` after the previous one started (Devops DV-51); 0 is unpaced."""

    turn_interval_ms: int


class ConfigError(ValueError):
    """An organiser's configuration mistake: unknown key, wrong type, out of range, unknown preset."""


_ADAPTERS: dict[type[Any], TypeAdapter[Any]] = {}


def _adapter(cls: type[Any]) -> TypeAdapter[Any]:
    adapter = _ADAPTERS.get(cls)
    if adapter is None:
        adapter = _ADAPTERS[cls] = TypeAdapter(cls)
    return adapter


def _describe(error: Mapping[str, Any], cls: type[Any]) -> str:
    loc = ".".join(str(part) for part in error.get("loc", ()))
    msg = str(error.get("msg", "invalid"))
    if error.get("type") == "unexpected_keyword_argument":
        return f"unknown config key {loc!r}{_closest_hint(loc, config_keys(cls))}"
    return f"config key {loc!r}: {msg[0].lower() + msg[1:]}" if loc else msg


def config_keys(cls: type[Any]) -> list[str]:
    """Every key of a config dataclass, in declaration order."""
    return [f.name for f in dataclasses.fields(cls)]


def _closest_hint(key: str, known: Sequence[str]) -> str:
    """ " (did you mean 'x'?)" for the closest known key, or a pointer to the list of keys."""
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    if not close:
        lowered = {name.lower(): name for name in known}
        close = [lowered[key.lower()]] if key.lower() in lowered else []
    if close:
        return f" (did you mean {close[0]!r}?)"
    return " (`botarena config GAME` lists the keys)"


def build_config(
    cls: type[T],
    presets: Mapping[str, Mapping[str, Any]],
    preset: str = "default",
    overrides: Mapping[str, Any] | None = None,
) -> T:
    """Defaults, then `preset`'s overrides, then `overrides`; validated. Raises ConfigError."""
    if preset not in presets:
        known = ", ".join(sorted(presets))
        raise ConfigError(f"unknown preset {preset!r} (known: {known})")
    data: dict[str, Any] = {**presets[preset], **(overrides or {})}
    data = normalize_integral(data)
    try:
        value = _adapter(cls).validate_python(data)
    except ValidationError as exc:
        raise ConfigError("; ".join(_describe(e, cls) for e in exc.errors())) from None
    check = getattr(value, "check", None)
    if check is not None:
        try:
            check()
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    return value  # type: ignore[no-any-return]


def config_to_dict(config: Any) -> dict[str, Any]:
    """A JSON-able dict of every key of a config dataclass (tuples become lists)."""
    return json.loads(json.dumps(dataclasses.asdict(config)))  # type: ignore[no-any-return]


def config_schema(cls: type[Any]) -> dict[str, Any]:
    """The JSON schema of a config dataclass, for docs and editors."""
    return _adapter(cls).json_schema()  # type: ignore[no-any-return]


def load_overrides(path: str | Path) -> dict[str, Any]:
    """Config overrides from a JSON file holding one object (raises ConfigError in one line)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"cannot read config file {path}: {getattr(exc, 'strerror', None) or exc}"
        ) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"config file {path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"config file {path}: expected a JSON object of config keys")
    return data


def parse_override(text: str) -> tuple[str, Any]:
    """Parse a command-line `key=value`: the value as JSON when it parses, else as a string."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError(f"expected key=value, got {text!r}")
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return key, value


@dataclasses.dataclass(frozen=True)
class ConfigKey:
    """One key of a game's config, as `botarena config GAME` lists it."""

    name: str
    value: Any
    """Its value in the preset asked for."""
    default: Any
    """Its value with no preset."""
    allowed: str
    """What it may be: a range (`1..50`), choices (`seed | bravolt2018`), or a type."""
    meaning: str


def describe_config(cls: type[Any], config: Any) -> list[ConfigKey]:
    """Every key of config class `cls`: `config`'s value, the default, what is allowed, the meaning
    (the field's description), in declaration order."""
    properties = config_schema(cls).get("properties", {})
    values = config_to_dict(config)
    defaults = config_to_dict(build_config(cls, {"default": {}}))
    return [
        ConfigKey(
            name,
            values[name],
            defaults[name],
            _allowed(properties.get(name, {})),
            str(properties.get(name, {}).get("description", "")),
        )
        for name in config_keys(cls)
    ]


def _allowed(schema: Mapping[str, Any]) -> str:
    """A short text of what a JSON schema allows."""
    if "anyOf" in schema:
        return " or ".join(_allowed(option) for option in schema["anyOf"])
    if "enum" in schema:
        return " | ".join(json.dumps(choice) for choice in schema["enum"])
    if "const" in schema:
        return json.dumps(schema["const"])
    kind = schema.get("type", "any")
    if kind == "array":
        items = schema.get("prefixItems")
        if items:
            return "[" + ", ".join(_allowed(item) for item in items) + "]"
        return f"list of {_allowed(schema.get('items', {}))}"
    low, high = schema.get("minimum", schema.get("exclusiveMinimum")), schema.get("maximum")
    if low is not None or high is not None:
        return f"{'' if low is None else low}..{'' if high is None else high}"
    if kind == "string" and "pattern" in schema:
        return f"string matching {schema['pattern']}"
    return str(kind)
