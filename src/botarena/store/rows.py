"""What the store hands out: frozen dataclasses, never ORM objects (sessions never leak)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

MatchStatus = Literal["scheduled", "running", "finished", "failed", "empty"]
TournamentStatus = Literal["created", "running", "finished", "failed"]

# "empty": a real-time round nobody registered for (DatsPulse): never played, neither finished nor failed
MATCH_STATUSES: tuple[MatchStatus, ...] = ("scheduled", "running", "finished", "failed", "empty")
TOURNAMENT_STATUSES: tuple[TournamentStatus, ...] = ("created", "running", "finished", "failed")


class StoreError(Exception):
    """A one-line, user-facing reason the store cannot do what was asked (bad URL, unreachable
    server, unwritable path, unknown match, ...)."""


@dataclass(frozen=True, slots=True)
class BotVersionRow:
    """One version of a bot: a (spec, digest) pair under a (game, name)."""

    id: int
    bot_id: int
    game: str
    name: str
    version: int  # 1, 2, ... per bot, in registration order
    spec: str
    digest: str | None
    created_at: datetime
    artifact: str | None = None  # the digest of the bot's files in the store's artifacts (None: no files)
    run_spec: str | None = None  # the spec that runs the unpacked artifact ("{artifact}" = its folder)


@dataclass(frozen=True, slots=True)
class EntrantRow:
    """A tournament entrant: its name in the tournament and the bot version it plays."""

    name: str
    bot_version_id: int
    spec: str
    version: int
    artifact: str | None = None  # as in BotVersionRow
    run_spec: str | None = None


@dataclass(frozen=True, slots=True)
class TournamentRow:
    id: int
    name: str
    game: str
    format: str
    preset: str | None
    config: dict[str, Any]
    seed: int
    options: dict[str, Any]
    status: TournamentStatus
    created_at: datetime
    finished_at: datetime | None
    entrants: list[EntrantRow]  # in registration order


@dataclass(frozen=True, slots=True)
class MatchRow:
    """A scheduled match and, once finished, its result (per-seat lists in seat order)."""

    id: int
    tournament_id: int
    key: str
    round: int
    seats: list[str]
    seed: int
    status: MatchStatus
    attempts: int
    error: str | None
    replay_hash: str | None
    ranks: list[int] | None
    scores: list[float] | None
    statuses: list[dict[str, int]] | None
    time_used_ms: list[float] | None
    steps: int | None
    duration_s: float | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    # per seat: its failures in the match (botarena.tournament.failures), None for a seat all OK
    failures: list[dict[str, Any] | None] | None = None


@dataclass(frozen=True, slots=True)
class RatingRow:
    name: str
    mu: float
    sigma: float
    ordinal: float
    played: int
