"""The organizer's API as it answers: response models, the conversions from the store's rows, and
the caches the routes share (`botarena.server.routes`). Field lists follow the store's rows
(`botarena.store.rows`); what a caller may see of them is decided by `botarena.server.secrecy`."""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from collections.abc import Container, Hashable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Path
from pydantic import BaseModel, ConfigDict, Field

from botarena.server.secrecy import Shown, public_view
from botarena.store.arena import ARENA_FORMAT

if TYPE_CHECKING:
    from botarena.store import MatchRow, TournamentRow

MATCH_STATUSES = ("scheduled", "running", "finished", "failed", "empty")
MAX_LIMIT = 1000
MAX_ID = 2**63 - 1  # the largest id a database integer column holds


def live_key(tournament_id: int, key: str) -> str:
    """The live-event key of a tournament's match (as the tournament service publishes it)."""
    return f"t{tournament_id}/{key}"


def live_events_url(key: str) -> str:
    return f"/api/live/{key}/events"


def match_replay_url(match_id: int) -> str:
    return f"/api/matches/{match_id}/replay"


TournamentId = Annotated[int, Path(ge=1, le=MAX_ID, description="tournament id")]
MatchId = Annotated[int, Path(ge=1, le=MAX_ID, description="match id")]


# ------------------------------------------------------------------------------------ response models


MAX_REFUSALS_SHOWN = 10  # an ingest answer names at most this many refused events
INGESTS_AT_ONCE = 2  # ingest requests read and parsed at the same time (the others wait their turn)


class IngestOut(BaseModel):
    accepted: int = Field(description="events the live hub took")
    refused: int = Field(
        0,
        description="events the live hub did not take (a header over its size cap, steps of a match it"
        " does not hold, ...); the rest of the request was taken",
    )
    refusals: list[str] = Field(
        default_factory=list,
        description=f"why, for the first {MAX_REFUSALS_SHOWN} refused events: 'event <index>: <reason>'",
    )


INGEST_ERRORS = {
    400: "the body is not JSON",
    401: "no or a wrong live token",
    403: "live ingest is disabled (the server has no live token)",
    413: "the body or its number of events is over the cap",
    422: "an event of the wrong shape",
}


class Health(BaseModel):
    status: str
    version: str
    store: str = Field(description="the store's database dialect: sqlite or postgresql")
    live: int = Field(description="live (and just finished) matches the server holds")


class GameOut(BaseModel):
    id: str
    title: str
    min_players: int
    max_players: int
    presets: list[str]
    starter_bots: list[str]


class EntrantOut(BaseModel):
    name: str
    spec: str
    version: int


class MatchCounts(BaseModel):
    scheduled: int = 0
    running: int = Field(0, description="being played now")
    queued: int = Field(
        0,
        description="handed to the workers and waiting for one (known for the tournaments whose matches"
        " this server sees played live; the others count them as running)",
    )
    finished: int = 0
    failed: int = 0
    empty: int = Field(0, description="real-time rounds nobody registered for (DatsPulse): not failures")
    total: int = 0


class TournamentOut(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: int
    name: str
    game: str
    format: str
    preset: str | None
    seed: int | None = Field(description="every match seed derives from it: null until the tournament ends")
    status: str = Field(description="created, running, finished or failed")
    options: dict[str, Any]
    config: dict[str, Any]
    created_at: datetime | None
    finished_at: datetime | None
    entrants: list[EntrantOut]
    matches: MatchCounts
    hidden: list[str] = Field(
        default_factory=list,
        description='what is withheld until the tournament is over: "seed", "config.<secret key>"',
    )


class TournamentDetail(BaseModel):
    tournament: TournamentOut
    leaderboard: dict[str, Any] = Field(
        description='{"rows": [{rank, name, mu, sigma, ordinal, played, wins, draws, losses, points}], '
        '"pairs": {"names": [...], "cells": [[{wins, draws, losses, played, score, ci}|null]]}, '
        '"standings": [...] (drones-2018 only), '
        '"game_standings": {title, columns: [{key, label}], rows: [{key: value}]} (games that declare '
        "their own tournament standings, e.g. DatsPulse spec 6.3), "
        '"failures": [{name, played, failed, counts: {never_started, crashed, timeout, invalid}, '
        "first: {status, reason, detail, where, match, match_id}|null, dead, line}] (the entrants that "
        "failed in a match, issue 26 item 2)}"
    )


class MatchOut(BaseModel):
    id: int
    tournament_id: int
    key: str
    round: int
    seats: list[str]
    seed: int | None = Field(description="null until the match is over (it determines what the rules hide)")
    status: str = Field(description="scheduled, running, finished or failed")
    attempts: int
    error: str | None
    ranks: list[int] | None
    scores: list[float] | None
    statuses: list[dict[str, int]] | None
    time_used_ms: list[float] | None
    steps: int | None
    duration_s: float | None
    created_at: datetime | None
    started_at: datetime | None
    finished_at: datetime | None
    replay_url: str | None = Field(description="the stored replay, once the match is finished")
    live_key: str | None = Field(description="the live-event key while the server streams the match")
    live_url: str | None
    hidden: list[str] = Field(default_factory=list, description='"seed" while the match is not over')


class MatchPage(BaseModel):
    total: int = Field(description="matches with this status (all statuses when none is given)")
    offset: int
    limit: int
    matches: list[MatchOut]


class MatchDetail(MatchOut):
    tournament_name: str | None
    game: str | None


LIVE_STATES = ("running", "finished")


class LiveMatchOut(BaseModel):
    key: str
    tournament_id: int | None
    match: str
    game: str
    players: list[str]
    steps: int
    state: str = Field(description="running (being played now) or finished (just over, kept a while)")
    finished: bool
    match_id: int | None
    result: dict[str, Any] | None
    started_at: float
    updated_at: float
    policy: str = Field(description="how the public sees it: open, after, delayed or organizer")
    delay: int | None = Field(description="delayed: how many steps behind its public stream runs")
    played: int = Field(description="steps played so far (`steps` is what its stream shows)")
    held: bool = Field(description="nothing of its state is shown yet (the policy holds it back)")
    progress: dict[str, Any] | None = Field(
        None,
        description="a held real-time match's clock (a DatsPulse round): turn, turns, next_turn_at and"
        " ends_at (wall-clock seconds)",
    )
    events_url: str
    replay_url: str | None


# ------------------------------------------------------------------------------------ conversions


def counts_out(counts: Mapping[str, int] | None, playing: int | None = None) -> MatchCounts:
    """The API's counts from the store's. The store marks a match running when it is handed to the
    workers; `playing` (how many of the tournament's matches are being played now, when this
    server sees them played live) splits those into running and queued."""
    counts = dict(counts or {})
    values = {status: int(counts.get(status, 0)) for status in MATCH_STATUSES}
    total = sum(values.values())
    if playing is not None:
        running = min(values["running"], playing)
        values["queued"] = values["running"] - running
        values["running"] = running
    return MatchCounts(**values, total=total)


class LiveTournaments:
    """Which tournaments' matches this server sees played live (their live events come here: the
    demo's, a local tournament's, live ingest's), and how many of each are being played now. Only
    for those can a match handed to the workers be told apart from one being played: the store knows
    no more than that it was handed out. A tournament counts once a match of it has been seen live;
    at most `size` are remembered (the oldest seen go first)."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._seen: OrderedDict[int, None] = OrderedDict()

    def playing(self, live: Sequence[Mapping[str, Any]]) -> dict[int, int]:
        """Tournament id -> matches being played now, from the live list (`SpectatorGate.live_matches`),
        for every tournament seen live so far (0 for one with none being played now)."""
        now: Counter[int] = Counter()
        with self._lock:
            for entry in live:
                tournament_id = entry.get("tournament_id")
                if not isinstance(tournament_id, int):
                    continue
                self._seen[tournament_id] = None
                self._seen.move_to_end(tournament_id)
                if not entry.get("finished"):
                    now[tournament_id] += 1
            while len(self._seen) > self.size:
                self._seen.popitem(last=False)
            return {tournament_id: now[tournament_id] for tournament_id in self._seen}


def tournament_out(
    row: TournamentRow,
    counts: Mapping[str, int] | None,
    shown: Shown | None = None,
    playing: int | None = None,
) -> TournamentOut:
    """The tournament as a route shows it: its secrets withheld as `shown` says (by default, as
    its status says: `botarena.server.secrecy`); `playing` as `counts_out` takes it."""
    fields = {
        "id": row.id,
        "name": row.name,
        "game": row.game,
        "format": row.format,
        "preset": row.preset,
        "seed": row.seed,
        "status": row.status,
        "options": dict(row.options or {}),
        "config": dict(row.config or {}),
        "created_at": row.created_at,
        "finished_at": row.finished_at,
        "entrants": [EntrantOut(name=e.name, spec=e.spec, version=e.version) for e in row.entrants],
        "matches": counts_out(counts, playing),
    }
    return TournamentOut(**public_view(row.game, fields, shown or Shown.of_tournament(row.status)))


def match_out(row: MatchRow, live: Container[str] | None, shown: Shown | None = None) -> dict[str, Any]:
    """The match as a route shows it: its seed withheld until it is over, unless `shown` says
    otherwise (the organizer). `live`: the keys of the live matches (a hub, or a SpectatorGate)."""
    key = live_key(row.tournament_id, row.key)
    streaming = live is not None and row.status == "running" and key in live
    if live is not None and row.status == "running" and not streaming:
        # a source that keys its matches its own way (the DatsPulse server: datspulse/<round>)
        find = getattr(live, "key_of", None)
        found = find(row.tournament_id, row.key) if find is not None else None
        if found is not None:
            key, streaming = found, True
    fields = {
        "id": row.id,
        "tournament_id": row.tournament_id,
        "key": row.key,
        "round": row.round,
        "seats": list(row.seats),
        "seed": row.seed,
        "status": row.status,
        "attempts": row.attempts,
        "error": row.error,
        "ranks": row.ranks,
        "scores": row.scores,
        "statuses": row.statuses,
        "time_used_ms": row.time_used_ms,
        "steps": row.steps,
        "duration_s": row.duration_s,
        "created_at": row.created_at,
        "started_at": row.started_at,
        "finished_at": row.finished_at,
        "replay_url": match_replay_url(row.id) if row.replay_hash else None,
        "live_key": key if streaming else None,
        "live_url": live_events_url(key) if streaming else None,
    }
    # (a match row holds no config, only its seed: the game, the tournament's, plays no part)
    return public_view("", fields, shown or Shown.of_match(row.status, None))


def listed_match(shown: dict[str, Any], parent: TournamentRow) -> dict[str, Any]:
    """A match as a tournament's list shows it; an arena match without its `error` (a failure's text
    may quote a bot's output, which is its team's alone: server/arena/matches.py)."""
    return {**shown, "error": None} if parent.format == ARENA_FORMAT else shown


class BoardCache:
    """The last leaderboard of each tournament, kept while its status and match counts stay the same
    (the ratings depend only on its finished and failed matches): spectators polling a big tournament
    cost one count query each, not a re-read of every match and a re-rating."""

    def __init__(self, size: int = 32) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._boards: OrderedDict[int, tuple[Hashable, dict[str, Any]]] = OrderedDict()

    def get(self, tournament_id: int, version: Hashable) -> dict[str, Any] | None:
        with self._lock:
            found = self._boards.get(tournament_id)
            if found is None or found[0] != version:
                return None
            self._boards.move_to_end(tournament_id)
            return found[1]

    def put(self, tournament_id: int, version: Hashable, board: dict[str, Any]) -> None:
        with self._lock:
            self._boards[tournament_id] = (version, board)
            self._boards.move_to_end(tournament_id)
            while len(self._boards) > self.size:
                self._boards.popitem(last=False)


def one_line(exc: BaseException) -> str:
    """An exception's message on one line (its type's name when it has none)."""
    text = " ".join(str(exc).split())
    return text or type(exc).__name__
