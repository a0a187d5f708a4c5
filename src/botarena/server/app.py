"""The organizer's server: tournaments, leaderboards, matches, replays and live matches over HTTP.

    app = create_app(store, hub)          # a FastAPI app (the web pages are mounted last, at /)
    serve(store, hub=hub, on_ready=...)    # run it with uvicorn until interrupted

JSON API (errors are `{"detail": "<one line>"}` with a 4xx status, never a traceback):

    GET /api/health                              status, version, store dialect, live matches
    GET /api/games                               the registered games
    GET /api/tournaments[?game=]                 newest first, with match counts by status
    GET /api/tournaments/{id}                    the tournament and its leaderboard (ratings, pair
                                                 matrix, drones-2018 standings, the game's own
                                                 standings table where it declares one)
    GET /api/tournaments/{id}/matches[?status=&limit=&offset=]
    GET /api/matches/{id}                        one match and its result
    GET /api/matches/{id}/replay                 the replay file (gzip, Content-Encoding: gzip)
    GET /api/live[?state=running|finished]       the matches being played (state "running") and
                                                 the ones just finished ("finished"), each with
                                                 the spectator policy it is shown under
    GET /api/live/{key}/events                   one live match as server-sent events: header,
                                                 steps..., end (a `: ping` comment while idle);
                                                 "held" notices first while the policy holds it
    POST /api/live/ingest                        live events from workers and tournament processes
                                                 elsewhere (a JSON list, as `LiveStreamer` makes
                                                 them; `Authorization: Bearer <live token>`): 403
                                                 without `live_token`, 401 wrong token, 413 over
                                                 the size or event cap, 400/422 bad JSON or shapes
                                                 (botarena.server.ingest); only the hub sees them
    /api/...                                     `create_app(routers=...)`: a live game's own routes
                                                 (`play --live`: devops bonus codes, spec 7.5)

Secrets of a match still being played (DESIGN principle 7; `botarena.server.secrecy`): until a
match is over, its `seed` is null, a tournament's `seed` and its config's secret keys are withheld
until the tournament is over, and each object names what it withholds in `hidden`; the replay of a
match not over is 404, and live headers come without them. The live stream of a match of a
hidden-information game follows the spectator policy (`botarena.server.spectators`: by default
nothing of it until it ends). A request with the organizer key (`create_app(organizer_key=...)`,
header `X-Organizer-Key`) sees everything, live matches as they are played included.

The store is synchronous: its endpoints are plain `def`s, which FastAPI runs in its thread pool, so
the event loop (and every SSE stream) never waits on the database.
"""

from __future__ import annotations

import asyncio
import gc
import gzip
import logging
import secrets
import threading
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Callable, Container, Hashable, Mapping, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

import orjson
from pydantic import BaseModel, ConfigDict, Field

from botarena import __version__
from botarena.server.httpconfig import ServerLimits, server_config
from botarena.server.ingest import IngestError, authorize, check_length, check_live_token, parse_events
from botarena.server.live import LiveHub, sse_response
from botarena.server.secrecy import ORGANIZER_HEADER, Shown, is_over, public_view, withholds_config
from botarena.server.spectators import SpectatorGate
from botarena.server.viewer import (
    PIP_HINT,
    ServerDependencyError,
    _require,
    bind_socket,
    mount_web,
    viewer_url,
)
from botarena.tournament.live_http import INGEST_PATH, MAX_INGEST_BYTES

try:  # the server extra; FastAPI resolves the endpoints' annotations in this module's namespace
    from fastapi import FastAPI, HTTPException, Path, Query, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse, RedirectResponse, Response, StreamingResponse
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException as StarletteHTTPException
    from starlette.requests import ClientDisconnect
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ServerDependencyError(
        f"the server needs {exc.name}, which is not installed; run: {PIP_HINT}"
    ) from None

from botarena.store.arena import ARENA_FORMAT
from botarena.tournament.service import tournament_board

if TYPE_CHECKING:
    from botarena.store import MatchRow, Store, TournamentRow

log = logging.getLogger(__name__)

ARENA_PAGE = "/arena.html"
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


def _counts(counts: Mapping[str, int] | None, playing: int | None = None) -> MatchCounts:
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
    its status says: `botarena.server.secrecy`); `playing` as `_counts` takes it."""
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
        "matches": _counts(counts, playing),
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


def _listed(shown: dict[str, Any], parent: TournamentRow) -> dict[str, Any]:
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


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def _read_stored(store: Store, match_id: int, digest: str) -> bytes:
    """A recorded replay's bytes as stored. Gone: 404; damaged (its bytes no longer match their
    hash): 410; each with a one-line detail."""
    from botarena.store.replays import ReplayDamaged, ReplayMissing

    try:
        return store.read_replay(digest)
    except ReplayMissing as exc:
        raise HTTPException(404, f"match {match_id}: {_one_line(exc)}") from None
    except ReplayDamaged as exc:
        raise HTTPException(410, f"match {match_id}: {_one_line(exc)}") from None


def _replay_bytes_response(data: bytes) -> Response:
    headers = {"Cache-Control": "no-store"}
    if data[:2] == b"\x1f\x8b":
        headers["Content-Encoding"] = "gzip"
    return Response(data, media_type="application/json", headers=headers)


def stored_replay_response(store: Store, match_id: int, digest: str) -> Response:
    """A recorded match's replay, from wherever the store keeps replays (its directory, a shared
    location or the database, so a server on any machine shows it), sent gzip-encoded as stored.
    Gone: 404; damaged: 410."""
    return _replay_bytes_response(_read_stored(store, match_id, digest))


def public_replay_response(store: Store, match_id: int, digest: str, game: str) -> Response:
    """A finished match's replay without the secret config keys its tournament's matches share,
    while that tournament is still being played (`botarena.server.secrecy`); its seed is its own
    and shows. Rare (only a config that sets a secret key), so it is decoded and encoded again."""
    data = _read_stored(store, match_id, digest)
    try:
        replay = orjson.loads(gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data)
    except (OSError, EOFError, ValueError) as exc:  # (orjson's decode error is a ValueError)
        detail = f"match {match_id}: the stored replay cannot be read: {_one_line(exc)}"
        raise HTTPException(410, detail) from None
    if not isinstance(replay, dict):
        raise HTTPException(410, f"match {match_id}: the stored replay is not a replay object")
    shown = public_view(game, replay, Shown(seed=True, secret_config=False))
    return _replay_bytes_response(gzip.compress(orjson.dumps(shown), compresslevel=6, mtime=0))


def _validation_message(errors: Any) -> str:
    """FastAPI's validation errors as one line: `query limit: Input should be ...; path id: ...`."""
    parts = []
    for error in errors:
        where = " ".join(str(p) for p in error.get("loc", ()))
        parts.append(f"{where}: {error.get('msg', 'invalid')}" if where else str(error.get("msg")))
    return "; ".join(parts) or "invalid request"


# ------------------------------------------------------------------------------------ the app


def create_app(
    store: Store,
    hub: LiveHub | None = None,
    *,
    on_startup: Callable[[], None] | None = None,
    on_shutdown: Callable[[], None] | None = None,
    heartbeat_s: float = 15.0,
    routers: Sequence[Any] = (),
    live_token: str | None = None,
    organizer_key: str | None = None,
    spectators: SpectatorGate | None = None,
    arena_clock: Callable[[], float] | None = None,
) -> FastAPI:
    """The organizer's FastAPI app over `store`, streaming live matches from `hub` (a new, empty one
    if None, or the gate's).

    `spectators`: the gate in front of `hub` (`botarena.server.spectators`): give the tournaments
    its `publish` (live ingest publishes through it too), and it holds back the live state of
    hidden-information games' matches as its policy says. Default: a gate with the default policy
    (`after`), with an organizer's hub of its own when there is an organizer key. (What is
    published to `hub` itself bypasses the policy: it is shown as it comes.)

    `live_token` enables `POST /api/live/ingest` for clients that send it (ValueError if it is too
    short to be one: botarena.server.ingest.check_live_token); without it ingest answers 403.

    `organizer_key`: a request whose `X-Organizer-Key` header holds it sees the secrets of the
    matches still being played (seeds, secret config keys) and their live streams as they are
    played (the gate's organizer hub); everyone else gets the public view
    (`botarena.server.secrecy`, the spectator policy). Without it nobody does.

    `routers` (FastAPI APIRouters, e.g. a live game's own routes) are mounted under `/api`, after
    the hosted arena's (`botarena.server.arena`; `arena_clock` drives its rate limits).
    `on_startup()` and `on_shutdown()` run in the app's lifespan (they must not block: start a thread
    for long work). `heartbeat_s` is the idle time after which an SSE stream sends a comment.
    """
    live = hub if hub is not None else spectators.public if spectators is not None else LiveHub()
    gate = spectators if spectators is not None else default_gate(live, organizer_key)
    if gate.public is not live:
        raise ValueError("create_app: the spectator gate must stand in front of the app's hub")
    if live_token is not None:
        check_live_token(live_token)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if on_startup is not None:
            on_startup()
        try:
            yield
        finally:
            live.close()
            gate.close()
            if on_shutdown is not None:
                on_shutdown()

    app = FastAPI(
        title="botarena",
        version=__version__,
        summary="Tournaments, leaderboards, replays and live matches of the botarena games.",
        lifespan=lifespan,
        redoc_url=None,
    )
    app.state.store = store
    app.state.hub = live
    app.state.spectators = gate

    # ------------------------------------------------------------------ errors: one line, no traceback

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": _validation_message(exc.errors())}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        detail = exc.detail if isinstance(exc.detail, str) else _one_line(Exception(exc.detail))
        return JSONResponse({"detail": detail}, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> JSONResponse:
        from botarena.store import StoreError

        if isinstance(exc, StoreError):
            log.warning("store error on %s: %s", request.url.path, exc)
            return JSONResponse({"detail": f"store unavailable: {_one_line(exc)}"}, status_code=503)
        log.error("error on %s", request.url.path, exc_info=exc)
        return JSONResponse(
            {"detail": f"internal error: {type(exc).__name__}: {_one_line(exc)}"}, status_code=500
        )

    def _tournament(tournament_id: int) -> TournamentRow:
        row = store.get_tournament(tournament_id)
        if row is None:
            raise HTTPException(404, f"no tournament {tournament_id}")
        return row

    def _match(match_id: int) -> MatchRow:
        row = store.get_match(match_id)
        if row is None:
            raise HTTPException(404, f"no match {match_id}")
        return row

    def _organizer(request: Request) -> bool:
        given = request.headers.get(ORGANIZER_HEADER)
        return bool(organizer_key and given) and secrets.compare_digest(
            str(given).encode(), str(organizer_key).encode()
        )

    def _shown(request: Request, shown: Shown) -> Shown:
        """What `request` may see of a match or tournament whose state lets `shown` through."""
        return Shown.everything() if _organizer(request) else shown

    # ------------------------------------------------------------------ routes

    @app.get("/", include_in_schema=False)
    def root() -> RedirectResponse:
        return RedirectResponse(ARENA_PAGE, status_code=307)

    @app.get("/api/health", response_model=Health)
    def health() -> Health:
        live_count = len(gate.live_matches())  # (held matches included)
        return Health(status="ok", version=__version__, store=str(store.dialect), live=live_count)

    @app.get("/api/games", response_model=list[GameOut])
    def games() -> list[GameOut]:
        from botarena.core.registry import all_games

        return [
            GameOut(
                id=g.id,
                title=g.title,
                min_players=g.min_players,
                max_players=g.max_players,
                presets=list(g.presets),
                starter_bots=sorted(g.starter_bots),
            )
            for g in all_games()
        ]

    seen_live = LiveTournaments()

    def _playing() -> dict[int, int]:
        return seen_live.playing(gate.live_matches())

    @app.get("/api/tournaments", response_model=list[TournamentOut])
    def tournaments(
        request: Request,
        game: Annotated[str | None, Query(max_length=64, description="only this game's")] = None,
    ) -> list[TournamentOut]:
        rows = store.list_tournaments(game or None)
        playing = _playing()
        return [
            tournament_out(
                row,
                store.count_matches(row.id),
                _shown(request, Shown.of_tournament(row.status)),
                playing.get(row.id),
            )
            for row in rows
        ]

    boards = BoardCache()

    @app.get("/api/tournaments/{tournament_id}", response_model=TournamentDetail)
    def tournament(request: Request, tournament_id: TournamentId) -> TournamentDetail:
        row = _tournament(tournament_id)
        counts = store.count_matches(tournament_id)
        version = (row.status, tuple(sorted(counts.items())))
        board = boards.get(tournament_id, version)
        if board is None and row.format == ARENA_FORMAT:
            # an arena's matches seat versions, not entrants: its standings are the competition's
            # own leaderboard (server/arena/board.py), which this answer points to
            board = {"rows": [], "arena_leaderboard": _arena_board_url(request, tournament_id)}
        if board is None:
            board = tournament_board(store, row)
            boards.put(tournament_id, version, board)
        shown = _shown(request, Shown.of_tournament(row.status))
        out = tournament_out(row, counts, shown, _playing().get(tournament_id))
        return TournamentDetail(tournament=out, leaderboard=board)

    @app.get("/api/tournaments/{tournament_id}/matches", response_model=MatchPage)
    def tournament_matches(
        request: Request,
        tournament_id: TournamentId,
        status: Annotated[str | None, Query(description="scheduled, running, finished or failed")] = None,
        limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = 200,
        offset: Annotated[int, Query(ge=0, le=MAX_ID)] = 0,
    ) -> dict[str, Any]:
        if status is not None and status not in MATCH_STATUSES:
            raise HTTPException(
                422, f"unknown status {status[:40]!r} (expected one of {', '.join(MATCH_STATUSES)})"
            )
        parent = _tournament(tournament_id)
        counts = _counts(store.count_matches(tournament_id))
        total = counts.total if status is None else getattr(counts, status)
        rows = store.list_matches(tournament_id, status=status, limit=limit, offset=offset)
        return {
            "total": total,
            "offset": offset,
            "limit": limit,
            "matches": [
                _listed(
                    match_out(row, gate, _shown(request, Shown.of_match(row.status, parent.status))), parent
                )
                for row in rows
            ],
        }

    @app.get("/api/matches/{match_id}", response_model=MatchDetail)
    def match(request: Request, match_id: MatchId) -> Any:
        """One match and its result. An arena match answers in the arena's shape (its seats' teams,
        versions and digests; logs and failures only to their team: server/arena/matches.py)."""
        row = _match(match_id)
        parent = store.get_tournament(row.tournament_id)
        if parent is not None and parent.format == ARENA_FORMAT:
            # an arena match: what each seat's team may see of it (server/arena/matches.py)
            return _arena_answer(request, match_id, parent.id)
        shown = _shown(request, Shown.of_match(row.status, parent.status if parent else None))
        return {
            **match_out(row, gate, shown),
            "tournament_name": parent.name if parent else None,
            "game": parent.game if parent else None,
        }

    @app.get(
        "/api/matches/{match_id}/replay",
        response_class=Response,
        responses={200: {"content": {"application/json": {}}, "description": "the replay (gzip-encoded)"}},
    )
    def match_replay(request: Request, match_id: MatchId) -> Response:
        row = _match(match_id)
        arena_parent = store.get_tournament(row.tournament_id)
        if arena_parent is not None and arena_parent.format == ARENA_FORMAT:
            return _arena_replay(request, match_id, arena_parent.id)  # never another team's logs
        organizer = _organizer(request)
        if not row.replay_hash or not (is_over(row.status) or organizer):
            # (a replay of a match not over would hold its seed: DESIGN principle 7)
            raise HTTPException(404, f"match {match_id} has no replay yet (it is {row.status})")
        parent = store.get_tournament(row.tournament_id)
        shared_secrets = parent is not None and withholds_config(parent.game, parent.config)
        if parent is not None and shared_secrets and not organizer and not is_over(parent.status):
            # the config its siblings still being played share keeps its secret keys to itself
            return public_replay_response(store, match_id, row.replay_hash, parent.game)
        return stored_replay_response(store, match_id, row.replay_hash)

    @app.get("/api/live", response_model=list[LiveMatchOut])
    def live_matches(
        request: Request,
        state: Annotated[
            str | None, Query(description="only the running matches, or only the just finished ones")
        ] = None,
    ) -> list[dict[str, Any]]:
        if state is not None and state not in LIVE_STATES:
            raise HTTPException(422, f"unknown state {state[:40]!r} (expected running or finished)")
        listed = []
        for m in gate.live_matches(organizer=_organizer(request)):
            entry_state = "finished" if m["finished"] else "running"
            if state is not None and entry_state != state:
                continue
            listed.append(
                {
                    **m,
                    "state": entry_state,
                    "events_url": live_events_url(m["key"]),
                    "replay_url": match_replay_url(m["match_id"]) if m["match_id"] is not None else None,
                }
            )
        return listed

    @app.get(
        "/api/live/{key:path}/events",
        response_class=StreamingResponse,
        responses={200: {"content": {"text/event-stream": {}}, "description": "header, steps..., end"}},
    )
    async def live_events(request: Request, key: str) -> StreamingResponse:
        events = gate.subscribe(key, organizer=_organizer(request), heartbeat_s=heartbeat_s)
        if events is None:
            raise HTTPException(
                404, f"no live match {key[:80]!r} (finished ones stay listed at /api/live for a while)"
            )

        # A client that goes away cancels the stream (Starlette watches for the disconnect) or fails
        # its next write (the heartbeat at the latest); one that stops reading is dropped by the
        # HTTP layer once its send queue stays full (botarena.server.guard); either way the
        # subscription closes.
        response: StreamingResponse = sse_response(events)
        return response

    # An ingest request holds its body (up to 8 MiB) and its parsed events (as much again) while it
    # runs: at most INGESTS_AT_ONCE run at once, so that a token holder's parallel posts cannot add
    # up to more than that, whatever the number of connections.
    ingesting = asyncio.Semaphore(INGESTS_AT_ONCE)

    @app.post(
        INGEST_PATH,
        response_model=IngestOut,
        responses={code: {"description": text} for code, text in INGEST_ERRORS.items()},
    )
    async def live_ingest(request: Request) -> IngestOut:
        try:  # the door first: a client without the token never gets the server to read a body
            authorize(live_token, request.headers.get("authorization"))
            check_length(request.headers.get("content-length"))
            async with ingesting:  # the others wait here, their bodies unread (uvicorn pauses them)
                body = await _read_capped(request)
                events = await run_in_threadpool(parse_events, body)  # a large body: off the event loop
                refusals = await run_in_threadpool(_publish_all, gate, events)
        except IngestError as exc:
            headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
            raise HTTPException(exc.status, exc.detail, headers=headers) from None
        except ClientDisconnect:  # gone mid-body, or cut off by the body timeout: nobody hears this
            raise HTTPException(400, "the client disconnected before its body was read") from None
        return IngestOut(
            accepted=len(events) - len(refusals),
            refused=len(refusals),
            refusals=refusals[:MAX_REFUSALS_SHOWN],
        )

    from botarena.server.arena import install_arena

    install_arena(app, store, clock=arena_clock)
    for router in routers:
        app.include_router(router, prefix="/api")
    mount_web(app)  # last: a mount at / shadows every route added after it
    return app


# -- arena matches: the platform's match routes answer them through server/arena/matches.py


def _arena_board_url(request: Request, tournament_id: int) -> str | None:
    from botarena.server.arena.matches import arena_of

    competition = arena_of(request, tournament_id)
    return None if competition is None else f"/api/competitions/{competition.id}/leaderboard"


def _arena_answer(request: Request, match_id: int, tournament_id: int) -> Response:
    from botarena.server.arena.matches import arena_match_answer, arena_of

    competition = arena_of(request, tournament_id)
    if competition is None:
        raise HTTPException(404, f"no match {match_id}")
    return arena_match_answer(request, match_id, competition)


def _arena_replay(request: Request, match_id: int, tournament_id: int) -> Response:
    from botarena.server.arena.matches import arena_of, arena_replay_answer

    competition = arena_of(request, tournament_id)
    if competition is None:
        raise HTTPException(404, f"no match {match_id}")
    return arena_replay_answer(request, match_id, competition)


async def _read_capped(request: Request) -> bytes:
    """The request body, or IngestError 413 as soon as it grows over the cap (a chunked body too)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_INGEST_BYTES:
            raise IngestError(413, f"body over the {MAX_INGEST_BYTES}-byte cap")
        chunks.append(chunk)
    return b"".join(chunks)


def _publish_all(gate: SpectatorGate, events: list[dict[str, Any]]) -> list[str]:
    """Offer each event to the gate (which never raises); the refused ones, as 'event <i>: <why>'."""
    refusals = []
    for index, event in enumerate(events):
        reason = gate.offer(event)
        if reason is not None:
            refusals.append(f"event {index}: {reason}")
    return refusals


def default_gate(hub: LiveHub, organizer_key: str | None) -> SpectatorGate:
    """The spectator gate of a server that was not given one: the default policy (`after`), and an
    organizer's hub (every match as it is played) when there is an organizer key to read it with."""
    return SpectatorGate(hub, organizer=LiveHub(public=False) if organizer_key else None)


# ------------------------------------------------------------------------------------ running it


def arena_url(host: str, port: int) -> str:
    base = viewer_url(host, port).split("/?", 1)[0]
    return base + ARENA_PAGE


ON_READY_THREAD = "botarena-on-ready"
"""The name of `serve`'s thread that runs `on_ready` (the CLI checks whether it outlived the server)."""


def serve(
    store: Store,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    hub: LiveHub | None = None,
    on_ready: Callable[[str], None] | None = None,
    stop: threading.Event | None = None,
    log_level: str = "warning",
    stop_timeout_s: float = 10.0,
    routers: Sequence[Any] = (),
    live_token: str | None = None,
    organizer_key: str | None = None,
    limits: ServerLimits | None = None,
    spectators: SpectatorGate | None = None,
) -> None:
    """Serve the arena over `store` until interrupted (Ctrl-C, SIGTERM) or `stop` is set.

    `live_token` enables live ingest (`POST /api/live/ingest`) for workers and tournament processes
    elsewhere that send it (`botarena tournament --live-url ...` with the token in BOTARENA_LIVE_TOKEN).
    `organizer_key`: requests with it in `X-Organizer-Key` see the secrets of running matches
    (`create_app`). `spectators`: the gate in front of `hub` (`create_app`); give the tournaments
    its `publish`, and their matches follow its spectator policy.

    `on_ready(url)` is called once, in a thread of its own, as soon as the server accepts
    connections (`url` is the arena page); it may block, e.g. run a tournament with
    `live=spectators.publish, stop=stop`. When the server stops, `stop` is set, the hub's streams
    end, and the `on_ready` thread is given `stop_timeout_s` seconds to finish.

    `limits` are the HTTP layer's timeouts and bounds (`botarena.server.httpconfig`; default: the
    defaults with the environment's BOTARENA_HTTP_* overrides).

    Raises OSError (one line) if the port cannot be bound, LimitsError (a ValueError) for a bad
    limit in the environment, and ServerDependencyError without the `server` extra.
    """
    _require("uvicorn")  # the server extra, or a one-line error
    if live_token is not None:
        check_live_token(live_token)  # before the port is bound: a bad token is the caller's one-line error
    chosen = limits if limits is not None else ServerLimits.from_environ()  # (likewise a bad limit)
    live = hub if hub is not None else spectators.public if spectators is not None else LiveHub()
    gate = spectators if spectators is not None else default_gate(live, organizer_key)
    stopping = stop if stop is not None else threading.Event()
    sock = bind_socket(host, port)
    url = arena_url(host, sock.getsockname()[1])
    app = create_app(
        store, live, routers=routers, live_token=live_token, organizer_key=organizer_key, spectators=gate
    )
    threads: list[threading.Thread] = []

    from botarena.server.arena import close_arena_streams
    from botarena.server.guard import ArenaServer

    class _Server(ArenaServer):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets=sockets)
            if self.should_exit:  # the startup failed
                return
            # What startup made (modules, the app, its routes and models) lives as long as the server:
            # frozen, the collector no longer walks it in every full collection, which cost requests
            # 50-150 ms pauses at 1,000 teams (benchmarks/arena_api.py)
            gc.collect()
            gc.freeze()
            if on_ready is not None:
                thread = threading.Thread(target=on_ready, args=(url,), name=ON_READY_THREAD, daemon=True)
                threads.append(thread)
                thread.start()

        def handle_exit(self, sig: int, frame: Any) -> None:  # Ctrl-C, SIGTERM: the caller hears at once
            stopping.set()
            super().handle_exit(sig, frame)

        async def on_tick(self, counter: int) -> bool:  # every 0.1 s: also watch the caller's stop
            if stopping.is_set():
                self.should_exit = True
            return bool(await super().on_tick(counter))

        async def shutdown(self, sockets: Any = None) -> None:
            gc.unfreeze()  # (a process that goes on, e.g. a test run, collects those objects again)
            stopping.set()
            live.close()  # end the SSE streams first, or the server waits for them to close
            gate.close()
            close_arena_streams(app)
            await super().shutdown(sockets=sockets)

    config = server_config(app, limits=chosen, log_level=log_level, timeout_graceful_shutdown=5)
    server = _Server(config)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn re-raises the Ctrl-C it handled gracefully
        pass
    finally:
        stopping.set()
        live.close()
        gate.close()
        sock.close()
        for thread in threads:
            thread.join(stop_timeout_s)
