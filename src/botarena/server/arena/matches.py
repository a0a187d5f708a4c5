"""An arena's matches (specs/arena.md, Routes): the competition's match list, one match, its replay, a
seat's log, and the organizer's void.

What each caller sees of an arena match: anyone, the match with each seat's team, version number and
digest (a URL entry's digest is its team's only: it is marked "external: not sandboxed" instead) and
the replay with every seat's log removed (`arena.visibility.replay_for`); a team, also its own seats'
failures and logs; the organizer, everything. A match's seed shows once it is over, as everywhere.

`GET /api/matches/{id}` and `/replay` are the platform's routes (server/app.py); for a match of an
arena's own tournament they answer through `arena_match_answer` and `arena_replay_answer` here, so a
log never leaves through them either. `/api/tournaments/{id}/matches` leaves out an arena match's
`error` (a platform failure's text may quote a bot's output).
"""

from __future__ import annotations

import gzip
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, HTTPException, Path, Query, Request
from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse, PlainTextResponse, Response

from botarena.arena.access import Caller
from botarena.arena.visibility import replay_for
from botarena.arena.vocabulary import MatchKind, Phase, Role
from botarena.core.status import Status
from botarena.server.arena.auth import CallerDep, require_organizer, require_signed_in, resolve_caller
from botarena.server.arena.common import MAX_ID, ArenaDep, CompetitionId, competition_or_404
from botarena.server.arena.models import Reason
from botarena.server.arena.versions import VersionsDep, team_or_404, wall_clock
from botarena.server.secrecy import Shown, is_over, public_view, withholds_config
from botarena.store import MATCH_STATUSES, StoreError
from botarena.store.arena import CompetitionRow
from botarena.store.arena_versions import ArenaMatch, ArenaVersions, SeatInfo, seat_version

router = APIRouter(tags=["arena"])

MatchId = Annotated[int, Path(ge=1, le=MAX_ID, description="match id")]
Seat = Annotated[int, Path(ge=0, le=1000, description="0-based seat")]
OWN_STATUSES = frozenset({Status.TIMEOUT.value, Status.CRASHED.value, Status.INVALID.value})
EXTERNAL = "external: not sandboxed"
MAX_SCANNED = 20_000


def viewer_seats(
    caller: Caller, competition: CompetitionRow, match: ArenaMatch, seats: dict[int, SeatInfo]
) -> set[int] | None:
    """The seats whose logs and failures `caller` may read: None (all) for the organizer."""
    if caller.is_organizer_of(competition.id):
        return None
    if caller.role != Role.TEAM or caller.competition_id != competition.id:
        return set()
    own = set()
    for index, name in enumerate(match.seats):
        version = seat_version(name)
        if version is not None and version in seats and seats[version].team_id == caller.team_id:
            own.add(index)
    return own


def _seat_out(
    index: int, name: str, match: ArenaMatch, seats: dict[int, SeatInfo], mine: bool
) -> dict[str, Any]:
    version = seat_version(name)
    info = seats.get(version) if version is not None else None
    result = next((p for p in match.players if p.seat == index), None)
    shown: dict[str, Any] = {"seat": index, "team_id": None, "team": None, "version_id": None}
    if info is None:
        shown["starter"] = name  # the validation's opponent: a starter bot, no team's
    else:
        external = info.kind == "url"
        shown.update(
            team_id=info.team_id,
            team=info.team,
            version_id=info.version_id,
            version_number=info.number,
            kind=info.kind,
            digest=info.digest if not external or mine else None,
            external=EXTERNAL if external else None,
        )
    if result is not None:
        shown.update(
            rank=result.rank, score=result.score, statuses=result.statuses, time_used_ms=result.time_used_ms
        )
        shown["failure"] = result.failure if mine else None
    return shown


def match_out(
    match: ArenaMatch, competition: CompetitionRow, seats: dict[int, SeatInfo], own: set[int] | None
) -> dict[str, Any]:
    """The arena match as a caller who may read the seats `own` (None: all) sees it."""
    fields = {
        "id": match.id,
        "competition_id": competition.id,
        "key": match.key,
        "kind": match.kind,
        "reason": match.reason,
        "status": match.status,
        "round": match.round,
        "seed": match.seed,
        "attempts": match.attempts,
        "error": match.error if own is None else None,
        "steps": match.steps,
        "duration_s": match.duration_s,
        "created_at": match.created_at.isoformat(),
        "started_at": match.started_at.isoformat() if match.started_at else None,
        "finished_at": match.finished_at.isoformat() if match.finished_at else None,
        "seats": [
            _seat_out(i, name, match, seats, own is None or i in own) for i, name in enumerate(match.seats)
        ],
        "replay_url": f"/api/matches/{match.id}/replay" if match.replay_hash else None,
    }
    shown = Shown.everything() if own is None else Shown.of_match(match.status, None)
    return public_view("", fields, shown)


def _own_failed(match: ArenaMatch, own: set[int], statuses: frozenset[str]) -> bool:
    return any(p.seat in own and any(p.statuses.get(s, 0) > 0 for s in statuses) for p in match.players)


def _own_statuses(caller: Caller, cid: int, value: str | None) -> frozenset[str] | None:
    if value is None:
        return None
    require_signed_in(caller)
    if caller.role != Role.TEAM or caller.competition_id != cid:
        raise HTTPException(404, f"competition {cid} has no own matches for this token")
    wanted = frozenset(part.strip().upper() for part in value.split(",") if part.strip())
    if not wanted or not wanted <= OWN_STATUSES:
        raise HTTPException(422, "query own_status: a comma list of TIMEOUT, CRASHED, INVALID")
    return wanted


@router.get("/competitions/{cid}/matches", response_class=Response)
def list_matches(
    arena: ArenaDep,
    versions: VersionsDep,
    caller: CallerDep,
    cid: CompetitionId,
    team: Annotated[int | None, Query(ge=1, le=MAX_ID, description="only this team's")] = None,
    version: Annotated[int | None, Query(ge=1, le=MAX_ID, description="only this version's")] = None,
    kind: Annotated[MatchKind | None, Query(description="rated, validation, scrimmage or final")] = None,
    status: Annotated[
        str | None, Query(max_length=16, description="scheduled, running, finished, failed")
    ] = None,
    before: Annotated[int | None, Query(ge=1, le=MAX_ID, description="the cursor: ids below this")] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    own_status: Annotated[
        str | None,
        Query(max_length=64, description="(team) matches its own seats ended TIMEOUT, CRASHED, INVALID"),
    ] = None,
) -> Response:
    """The competition's matches, newest first, paged by `before` (`next_before`). (P; T own_status)"""
    competition = competition_or_404(arena, cid)
    if status is not None and status not in MATCH_STATUSES:
        raise HTTPException(422, f"query status: one of {', '.join(MATCH_STATUSES)}")
    failed = _own_statuses(caller, cid, own_status)
    if failed is not None:
        team = caller.team_id
    query = {"team_id": team, "version_id": version, "kind": kind.value if kind else None, "status": status}
    shown, cursor = _page(versions, competition, caller, query, (before, limit), failed)
    # bytes straight from orjson: FastAPI's own encoding of 50 nested matches (validated against the
    # return type, then walked by jsonable_encoder) cost more CPU than reading them from the store
    return Response(orjson.dumps({"matches": shown, "next_before": cursor}), media_type="application/json")


def _page(
    versions: ArenaVersions,
    competition: CompetitionRow,
    caller: Caller,
    query: dict[str, Any],
    window: tuple[int | None, int],
    failed: frozenset[str] | None,
) -> tuple[list[dict[str, Any]], int | None]:
    """Up to `limit` matches below the cursor that pass `failed` (the caller's own seats' statuses),
    and the next cursor (None once nothing is left; after MAX_SCANNED rows read, where it stopped)."""
    cursor, limit = window
    shown: list[dict[str, Any]] = []
    scanned = 0
    batch = limit if failed is None else 500
    while scanned < MAX_SCANNED:
        ids = versions.match_ids_page(competition.tournament_id, before=cursor, limit=batch, **query)
        scanned += len(ids)
        page = versions.matches(ids)
        seats = versions.seats(page)
        for match in page:
            own = viewer_seats(caller, competition, match, seats)
            if failed is not None and not _own_failed(match, own or set(), failed):
                cursor = match.id
                continue
            shown.append(match_out(match, competition, seats, own))
            cursor = match.id
            if len(shown) == limit:
                return shown, cursor
        if len(ids) < batch:
            return shown, None  # nothing older is left
    return shown, cursor


# ------------------------------------------------------------------- one match (through server/app.py)


def arena_of(request: Request, tournament_id: int) -> CompetitionRow | None:
    """The competition whose tournament this is (None: a plain tournament's match)."""
    versions: ArenaVersions = request.app.state.arena_versions
    return versions.competition_of_tournament(tournament_id)


def _match_of(request: Request, match_id: int) -> tuple[ArenaVersions, ArenaMatch]:
    versions: ArenaVersions = request.app.state.arena_versions
    found = versions.matches([match_id])
    if not found:
        raise HTTPException(404, f"no match {match_id}")
    return versions, found[0]


def arena_match_answer(request: Request, match_id: int, competition: CompetitionRow) -> Response:
    """`GET /api/matches/{id}` for an arena match (its own shape: seats with teams and versions)."""
    caller = resolve_caller(request)
    versions, match = _match_of(request, match_id)
    seats = versions.seats([match])
    own = viewer_seats(caller, competition, match, seats)
    shown = {
        **match_out(match, competition, seats, own),
        "game": competition.game,
        "tournament_name": competition.name,
    }
    return JSONResponse(jsonable_encoder(shown), headers={"Cache-Control": "private, no-store"})


def _replay_object(versions: ArenaVersions, match: ArenaMatch) -> dict[str, Any]:
    try:
        data = versions.store.read_replay(str(match.replay_hash))
        replay = orjson.loads(gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data)
    except StoreError as exc:
        raise HTTPException(404, f"match {match.id}: {exc}") from None
    except (OSError, EOFError, ValueError):
        raise HTTPException(410, f"match {match.id}: the stored replay cannot be read") from None
    if not isinstance(replay, dict):
        raise HTTPException(410, f"match {match.id}: the stored replay is not a replay object")
    return replay


def _visible_replay(
    request: Request, match_id: int, competition: CompetitionRow
) -> tuple[dict[str, Any], set[int] | None]:
    caller = resolve_caller(request)
    versions, match = _match_of(request, match_id)
    own = viewer_seats(caller, competition, match, versions.seats([match]))
    if not match.replay_hash or not (is_over(match.status) or own is None):
        raise HTTPException(404, f"match {match_id} has no replay yet (it is {match.status})")
    replay = replay_for(_replay_object(versions, match), own)
    if (
        own is not None
        and competition.phase != Phase.CLOSED
        and withholds_config(competition.game, competition.config)
    ):
        replay = public_view(competition.game, replay, Shown(seed=True, secret_config=False))
    return replay, own


def arena_replay_answer(request: Request, match_id: int, competition: CompetitionRow) -> Response:
    """`GET /api/matches/{id}/replay` for an arena match: the logs the caller may read, no other."""
    replay, _ = _visible_replay(request, match_id, competition)
    body = gzip.compress(orjson.dumps(replay), compresslevel=6, mtime=0)
    headers = {"Cache-Control": "private, no-store", "Content-Encoding": "gzip"}
    return Response(body, media_type="application/json", headers=headers)


@router.get("/matches/{match_id}/logs/{seat}", response_class=PlainTextResponse)
def seat_log(request: Request, caller: CallerDep, match_id: MatchId, seat: Seat) -> Response:
    """One seat's log of an arena match as text. (T of that seat, O; 404 otherwise)"""
    require_signed_in(caller)
    _, match = _match_of(request, match_id)
    competition = arena_of(request, match.tournament_id)
    if competition is None or caller.competition_id != competition.id:
        raise HTTPException(404, f"no match {match_id}")
    replay, own = _visible_replay(request, match_id, competition)
    logs = replay.get("logs")
    if (own is not None and seat not in own) or not isinstance(logs, list) or seat >= len(logs):
        raise HTTPException(404, f"match {match_id} has no log of seat {seat} for this token")
    entry = logs[seat]
    text = entry.get("text", "") if isinstance(entry, dict) else ""
    return PlainTextResponse(str(text), headers={"Cache-Control": "private, no-store"})


@router.post("/matches/{match_id}/void")
def void_match(request: Request, caller: CallerDep, match_id: MatchId, body: Reason) -> dict[str, Any]:
    """Void an arena match: it stops counting (the coordinator's `rerate` skips it), audited. (O)"""
    require_signed_in(caller)
    versions, match = _match_of(request, match_id)
    competition = arena_of(request, match.tournament_id)
    if competition is None or caller.competition_id != competition.id:
        raise HTTPException(404, f"no match {match_id}")
    require_organizer(caller, competition.id)
    now = wall_clock(request)()
    changed = versions.void_match(competition.id, match_id, actor=caller.actor, reason=body.reason, at=now)
    request.app.state.arena_board.forget(competition.id)
    return {"match_id": match_id, "void": True, "changed": changed}


@router.post("/competitions/{cid}/versions/{vid}/disable")
def disable_version(
    request: Request,
    arena: ArenaDep,
    versions: VersionsDep,
    caller: CallerDep,
    cid: CompetitionId,
    vid: Annotated[int, Path(ge=1, le=MAX_ID)],
    body: Reason,
) -> dict[str, Any]:
    """Take a version out of play, with the reason (audited). (O)"""
    return _organizer_change(request, arena, versions, caller, (cid, vid), body.reason, enable=False)


@router.post("/competitions/{cid}/versions/{vid}/enable")
def enable_version(
    request: Request,
    arena: ArenaDep,
    versions: VersionsDep,
    caller: CallerDep,
    cid: CompetitionId,
    vid: Annotated[int, Path(ge=1, le=MAX_ID)],
    body: Reason,
) -> dict[str, Any]:
    """Put a disabled version back (active, ready or received as it was), audited. (O)"""
    return _organizer_change(request, arena, versions, caller, (cid, vid), body.reason, enable=True)


def _organizer_change(
    request: Request,
    arena: Any,
    versions: ArenaVersions,
    caller: Caller,
    ids: tuple[int, int],
    reason: str,
    *,
    enable: bool,
) -> dict[str, Any]:
    from botarena.server.arena.common import CodedError
    from botarena.server.arena.versions import version_out
    from botarena.store.arena_versions import StateRefused

    cid, vid = ids
    require_organizer(caller, cid)
    competition = competition_or_404(arena, cid)
    row = versions.get_version(vid)
    team = arena.get_team(row.team_id) if row is not None else None
    if row is None or team is None or team.competition_id != cid:
        raise HTTPException(404, f"no version {vid} in competition {cid}")
    change = versions.enable if enable else versions.disable
    try:
        changed = change(cid, vid, actor=caller.actor, reason=reason, at=wall_clock(request)())
    except StateRefused as exc:
        raise CodedError(409, "state", str(exc)) from None
    request.app.state.arena_board.forget(cid)
    return version_out(versions, competition, changed)


__all__ = ["arena_match_answer", "arena_of", "arena_replay_answer", "router", "team_or_404"]
