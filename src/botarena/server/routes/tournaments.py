"""`GET /api/tournaments`, `GET /api/tournaments/{id}` (with its leaderboard) and its matches."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request

from botarena.server.api_models import (
    MATCH_STATUSES,
    MAX_ID,
    MAX_LIMIT,
    MatchPage,
    TournamentDetail,
    TournamentId,
    TournamentOut,
    counts_out,
    listed_match,
    match_out,
    tournament_out,
)
from botarena.server.routes.context import ContextDep, ServerContext
from botarena.server.secrecy import Shown
from botarena.store.arena import ARENA_FORMAT
from botarena.tournament.service import tournament_board

if TYPE_CHECKING:
    from botarena.store import MatchRow

router = APIRouter(prefix="/api/tournaments")


@router.get("", response_model=list[TournamentOut])
def tournaments(
    request: Request,
    context: ContextDep,
    game: Annotated[str | None, Query(max_length=64, description="only this game's")] = None,
) -> list[TournamentOut]:
    store = context.store
    playing = context.playing()
    return [
        tournament_out(
            row,
            store.count_matches(row.id),
            context.shown(request, Shown.of_tournament(row.status)),
            playing.get(row.id),
        )
        for row in store.list_tournaments(game or None)
    ]


@router.get("/{tournament_id}", response_model=TournamentDetail)
def tournament(request: Request, context: ContextDep, tournament_id: TournamentId) -> TournamentDetail:
    row = context.tournament(tournament_id)
    counts = context.store.count_matches(tournament_id)
    version = (row.status, tuple(sorted(counts.items())))
    board = context.boards.get(tournament_id, version)
    if board is None and row.format == ARENA_FORMAT:
        # an arena's matches seat versions, not entrants: its standings are the competition's
        # own leaderboard (server/arena/board.py), which this answer points to
        board = {"rows": [], "arena_leaderboard": _arena_board_url(request, tournament_id)}
    if board is None:
        board = tournament_board(context.store, row)
        context.boards.put(tournament_id, version, board)
    shown = context.shown(request, Shown.of_tournament(row.status))
    out = tournament_out(row, counts, shown, context.playing().get(tournament_id))
    return TournamentDetail(tournament=out, leaderboard=board)


@router.get("/{tournament_id}/matches", response_model=MatchPage)
def tournament_matches(
    request: Request,
    context: ContextDep,
    tournament_id: TournamentId,
    status: Annotated[str | None, Query(description="scheduled, running, finished or failed")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = 200,
    offset: Annotated[int, Query(ge=0, le=MAX_ID)] = 0,
) -> dict[str, Any]:
    if status is not None and status not in MATCH_STATUSES:
        raise HTTPException(
            422, f"unknown status {status[:40]!r} (expected one of {', '.join(MATCH_STATUSES)})"
        )
    parent = context.tournament(tournament_id)
    counts = counts_out(context.store.count_matches(tournament_id))
    total = counts.total if status is None else getattr(counts, status)
    rows = context.store.list_matches(tournament_id, status=status, limit=limit, offset=offset)
    return {
        "total": total,
        "offset": offset,
        "limit": limit,
        "matches": [
            listed_match(
                match_out(
                    row, context.gate, context.shown(request, Shown.of_match(row.status, parent.status))
                ),
                parent,
            )
            for row in rows
        ],
    }


def _match_shown(
    request: Request, context: ServerContext, row: MatchRow, parent_status: str
) -> dict[str, Any]:
    return match_out(row, context.gate, context.shown(request, Shown.of_match(row.status, parent_status)))


def _arena_board_url(request: Request, tournament_id: int) -> str | None:
    from botarena.server.arena.matches import arena_of

    competition = arena_of(request, tournament_id)
    return None if competition is None else f"/api/competitions/{competition.id}/leaderboard"
