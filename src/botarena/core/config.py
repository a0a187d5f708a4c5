"""Game configuration: one frozen dataclass per game, named presets, clear errors.

A game declares its config as a frozen stdlib dataclass whose fields carry their ranges as pydantic
constraints (`Annotated[StrictInt, Field(ge=1, le=50)]`). `build_config` applies a preset, then the
user's overrides, normalizes integral floats to ints (the platform's number rule) and validates the
result with pydantic; any failure is a `ConfigError` naming the key. The JSON schema used for docs
comes from the same dataclass (`config_schema`).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
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


def _describe(error: Mapping[str, Any]) -> str:
    loc = ".".join(str(part) for part in error.get("loc", ()))
    msg = str(error.get("msg", "invalid"))
    if error.get("type") == "unexpected_keyword_argument":
        return f"unknown config key {loc!r}"
    return f"config key {loc!r}: {msg[0].lower() + msg[1:]}" if loc else msg


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
        raise ConfigError("; ".join(_describe(e) for e in exc.errors())) from None
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
