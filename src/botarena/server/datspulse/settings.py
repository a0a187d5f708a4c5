"""The DatsPulse server's config file: the teams and their tokens, the preset and its overrides.

A TOML file, parsed strictly (pydantic, unknown keys refused), for example:

    preset = "compat"            # test, final, ci, compat, ... (`--preset` overrides it)
    seed = 2025                  # optional: the series seed; every round's match seed derives from it
    series_name = "spring-cup"   # optional: the series' name in the store (default <realm_prefix>-<series>)

    [game]                       # optional: overrides of the preset's keys (spec §2)
    min_teams = 2

    [spectators]                 # optional: who may watch a running round (spec §4, fog of war)
    mode = "after-round"         # after-round (default), delayed or open
    delay_turns = 30             # delayed: the public stream runs this many turns behind
    organizer_key = "9d2e..."    # the organiser's full live stream (default: drawn at start, printed)

    [[teams]]
    name = "Vyatich Enjoyers"
    token = "4f1c..."            # what the team sends as X-Auth-Token

Every mistake is a `SettingsError` with one line naming the file and the key (the CLI prints it and
exits with code 2): a syntax error, an unknown key, a bad token, a duplicate token or team name, a
preset or game key the game refuses, a preset that is not real time.
"""

from __future__ import annotations

import secrets
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from botarena.core.config import ConfigError
from botarena.core.rng import MAX_SEED
from botarena.server.secrecy import ORGANIZER_KEY_PATTERN
from botarena.server.spectators import LivePolicy, SpectatorPolicy

# A header value a client can send as is: printable ASCII, no spaces or quotes.
TOKEN_PATTERN = r"^[!#-~]{1,256}$"
MAX_TEAMS_IN_FILE = 10_000


class SettingsError(ValueError):
    """A mistake in the server's config file or options (one line)."""


class TeamEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    name: Annotated[str, StringConstraints(min_length=1, max_length=100, pattern=r"^\S(.*\S)?$")]
    token: Annotated[str, StringConstraints(pattern=TOKEN_PATTERN)]


class SpectatorMode(StrEnum):
    """Who sees a running round besides its teams (the public live stream; spec §4 as amended)."""

    AFTER_ROUND = "after-round"  # nothing of a round until it ends, then all of it (the default)
    DELAYED = "delayed"  # the round `delay_turns` turns behind, its map and every unit included
    OPEN = "open"  # everything at once, as it is played: every team could watch its rivals


DEFAULT_DELAY_TURNS = 30


class SpectatorFile(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    mode: Literal["after-round", "delayed", "open"] = "after-round"
    delay_turns: Annotated[int, Field(ge=1, le=100_000)] = DEFAULT_DELAY_TURNS
    organizer_key: Annotated[str, StringConstraints(pattern=ORGANIZER_KEY_PATTERN)] | None = None


@dataclass(frozen=True)
class Spectators:
    """The spectator policy the server runs with, and the organiser's key for the full live stream."""

    mode: SpectatorMode
    delay_turns: int
    organizer_key: str

    @property
    def policy(self) -> SpectatorPolicy:
        """The same policy in the platform's words (`botarena.server.spectators`): after-round is
        `after` (a round is a match), a turn is a step."""
        mode = {
            SpectatorMode.AFTER_ROUND: LivePolicy.AFTER,
            SpectatorMode.DELAYED: LivePolicy.DELAYED,
            SpectatorMode.OPEN: LivePolicy.OPEN,
        }[self.mode]
        return SpectatorPolicy(mode, self.delay_turns)


class ServerFile(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    preset: Annotated[str, StringConstraints(min_length=1, max_length=64)] = "test"
    seed: Annotated[int, Field(ge=0, le=MAX_SEED)] | None = None
    series_name: Annotated[str, StringConstraints(min_length=1, max_length=200)] | None = None
    game: dict[str, Any] = Field(default_factory=dict)
    spectators: SpectatorFile = Field(default_factory=SpectatorFile)
    teams: Annotated[list[TeamEntry], Field(min_length=1, max_length=MAX_TEAMS_IN_FILE)]


@dataclass(frozen=True)
class ServerSettings:
    """What the server runs: the game config (a realtime DatsPulseConfig), the teams by token."""

    config: Any
    preset: str
    overrides: dict[str, Any]
    teams: dict[str, str]  # token -> team name, in file order
    seed: int | None
    series_name: str
    source: str  # the file, for messages
    spectators: Spectators = field(
        default_factory=lambda: Spectators(
            SpectatorMode.AFTER_ROUND, DEFAULT_DELAY_TURNS, new_organizer_key()
        )
    )


def _describe(error: Mapping[str, Any]) -> str:
    where = ".".join(str(part) for part in error.get("loc", ()))
    if error.get("type") == "extra_forbidden":
        return f"unknown key {where!r}"
    message = str(error.get("msg", "invalid"))
    if where.endswith(".token") and error.get("type") == "string_pattern_mismatch":
        message = "a token is 1-256 printable ASCII characters without spaces or quotes"
    return f"{where}: {message}" if where else message


def new_organizer_key() -> str:
    return secrets.token_urlsafe(24)


def parse_settings(
    data: Mapping[str, Any],
    *,
    source: str = "config",
    preset: str | None = None,
    spectators: str | None = None,
    spectator_delay: int | None = None,
) -> ServerSettings:
    """Validate a parsed config file (and `--preset`, `--spectators`, `--spectator-delay`, which win
    over the file's); SettingsError."""
    try:
        overrides = dict(data)
        table = dict(overrides.get("spectators") or {})
        if spectators is not None:
            table["mode"] = spectators
        if spectator_delay is not None:
            table["delay_turns"] = spectator_delay
        if table:
            overrides["spectators"] = table
        parsed = ServerFile.model_validate(overrides)
    except ValidationError as exc:
        raise SettingsError(f"{source}: {'; '.join(_describe(e) for e in exc.errors())}") from None
    tokens: dict[str, str] = {}
    names: set[str] = set()
    for index, team in enumerate(parsed.teams):
        if team.token in tokens:
            raise SettingsError(f"{source}: teams.{index}: token already used by team {tokens[team.token]!r}")
        if team.name in names:
            raise SettingsError(f"{source}: teams.{index}: team name {team.name!r} is listed twice")
        tokens[team.token] = team.name
        names.add(team.name)
    chosen = preset or parsed.preset
    try:
        config = game_config(chosen, parsed.game)
    except ConfigError as exc:
        raise SettingsError(f"{source}: {exc}") from None
    if getattr(config, "mode", "realtime") != "realtime":
        raise SettingsError(
            f'{source}: preset {chosen!r} plays lockstep; the server needs mode = "realtime" '
            "(use a real-time preset such as test, final, ci or compat)"
        )
    prefix = str(getattr(config, "realm_prefix", "antprotocol"))
    series = str(getattr(config, "series", "test"))
    return ServerSettings(
        config=config,
        preset=chosen,
        overrides=dict(parsed.game),
        teams=tokens,
        seed=parsed.seed,
        series_name=parsed.series_name or f"{prefix}-{series}",
        source=source,
        spectators=Spectators(
            SpectatorMode(parsed.spectators.mode),
            parsed.spectators.delay_turns,
            parsed.spectators.organizer_key or new_organizer_key(),
        ),
    )


def load_settings(
    path: str | Path,
    *,
    preset: str | None = None,
    spectators: str | None = None,
    spectator_delay: int | None = None,
) -> ServerSettings:
    """Read and validate the TOML config file at `path`; SettingsError with one line."""
    source = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise SettingsError(f"cannot read {source}: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise SettingsError(f"{source}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{source}: not valid TOML ({exc})") from None
    return parse_settings(
        data, source=source, preset=preset, spectators=spectators, spectator_delay=spectator_delay
    )


def game_config(preset: str, overrides: Mapping[str, Any]) -> Any:
    """The DatsPulse game config for `preset` plus `overrides` (raises ConfigError)."""
    from botarena.games.datspulse.config import datspulse_config

    return datspulse_config(preset, dict(overrides))
