"""A competition's public standings (specs/arena.md, Routes): the leaderboard, one team's record against
each opponent, and the arena's figures (`/stats`).

The leaderboard is cached as the bytes of its answer per (competition, rating_epoch, offset, limit):
every rating write bumps `competitions.rating_epoch` (the coordinator does, in the transaction that
records a rated result), so a page is built once per epoch and a hit costs the epoch's read and a
dict lookup. A team's own change that moves the board without a rating write (activate, retire, a
new version, an organizer's disable) forgets this process's pages of that competition; another
server instance sees it at the next rating write, which the coordinator makes as it starts rating
the newly active version.

A page that misses builds from the epoch's ranking: the active versions joined with their ratings and
their W/D/L counters (`version_records`, kept where results are recorded: store/arena_reads.py),
ranked once per epoch and shared by every page of it, so a miss costs O(active versions), never
O(history). `/pairs` reads the team's `pair_records` rows.

A version with no `ratings_current` row yet (the coordinator has not rated it) is shown at the
model's prior, 0 games, provisional.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from botarena.arena.rating import MU0, SIGMA0, VersionRating, provisional
from botarena.server.arena.common import ArenaDep, CompetitionId, TeamId, competition_or_404
from botarena.server.arena.versions import VersionsDep, team_or_404, wall_clock
from botarena.store.arena_versions import ArenaVersions, BoardRow, percentiles

router = APIRouter(tags=["arena"])

MAX_PAGES = 512
MAX_RANKINGS = 8  # (competition, epoch) rankings kept: the newest epochs of a few competitions
EXTERNAL = "external: not sandboxed"


class BoardCache:
    """Leaderboard answers as bytes by (competition, epoch, offset, limit), the newest `size` kept."""

    def __init__(self, size: int = MAX_PAGES) -> None:
        self.size = size
        self._pages: OrderedDict[tuple[int, int, int, int], bytes] = OrderedDict()
        self._rankings: OrderedDict[tuple[int, int], list[BoardRow]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[int, int, int, int]) -> bytes | None:
        with self._lock:
            found = self._pages.get(key)
            if found is not None:
                self._pages.move_to_end(key)
            return found

    def put(self, key: tuple[int, int, int, int], page: bytes) -> None:
        with self._lock:
            self._pages[key] = page
            while len(self._pages) > self.size:
                self._pages.popitem(last=False)

    def ranking(self, key: tuple[int, int], build: Callable[[], list[BoardRow]]) -> list[BoardRow]:
        """The ranked rows of (competition, epoch), built once per epoch and shared by its pages:
        a new epoch (every rated result) costs one read of the active versions, not one per page."""
        with self._lock:
            found = self._rankings.get(key)
        if found is None:
            found = build()  # (outside the lock: two builders of one epoch give equal rows)
            with self._lock:
                self._rankings[key] = found
                while len(self._rankings) > MAX_RANKINGS:
                    self._rankings.popitem(last=False)
        return found

    def forget(self, competition_id: int) -> None:
        """Drop every page of the competition (a change that moved its board without a rating write)."""
        with self._lock:
            for key in [k for k in self._pages if k[0] == competition_id]:
                del self._pages[key]
            for ranking in [k for k in self._rankings if k[0] == competition_id]:
                del self._rankings[ranking]


def board_row(rank: int, row: BoardRow, players: int, *, world: bool = False) -> dict[str, Any]:
    rating = VersionRating(
        row.mu if row.mu is not None else MU0, row.sigma if row.sigma is not None else SIGMA0, row.games
    )
    return {
        "rank": rank,
        "team_id": row.team_id,
        "team": row.team,
        "version": row.number,
        "mu": rating.mu,
        "sigma": rating.sigma,
        "ordinal": rating.ordinal,
        "games": rating.games,
        "wins": row.record.wins,
        "draws": row.record.draws,
        "losses": row.record.losses,
        "provisional": provisional(rating, players, world=world),
        "external": EXTERNAL if row.kind == "url" else None,
    }


def _ranked(versions: ArenaVersions, cid: int) -> list[BoardRow]:
    """The competition's active versions with their W/D/L counters, best ordinal first."""
    return sorted(versions.active_versions(cid), key=lambda r: (-_ordinal(r), r.version_id))


def _ordinal(row: BoardRow) -> float:
    return VersionRating(
        row.mu if row.mu is not None else MU0, row.sigma if row.sigma is not None else SIGMA0
    ).ordinal


@router.get("/competitions/{cid}/leaderboard", response_class=Response)
def leaderboard(
    request: Request,
    arena: ArenaDep,
    versions: VersionsDep,
    cid: CompetitionId,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> Response:
    """Rank, team, active version, mu, sigma, ordinal, games, W/D/L, provisional; cached per rating
    epoch and page. (P)"""
    competition = competition_or_404(arena, cid)
    cache: BoardCache = request.app.state.arena_board
    key = (cid, competition.rating_epoch, offset, limit)
    page = cache.get(key)
    if page is None:
        ranked = cache.ranking((cid, competition.rating_epoch), lambda: _ranked(versions, cid))
        chosen = [
            board_row(offset + i + 1, r, competition.players, world=competition.format == "world")
            for i, r in enumerate(ranked[offset : offset + limit])
        ]
        body = {
            "competition_id": cid,
            "epoch": competition.rating_epoch,
            "total": len(ranked),
            "offset": offset,
            "limit": limit,
            "rows": chosen,
        }
        page = orjson.dumps(body)
        cache.put(key, page)
    return Response(page, media_type="application/json")


@router.get("/competitions/{cid}/teams/{tid}/pairs")
def pairs(arena: ArenaDep, versions: VersionsDep, cid: CompetitionId, tid: TeamId) -> dict[str, Any]:
    """The team's rated record against each opponent team. (P)"""
    competition = competition_or_404(arena, cid)
    team_or_404(arena, cid, tid)
    found = versions.pairs(competition.tournament_id, tid)
    names = versions.team_names(found)  # only the opponents met, not every team of the competition
    rows = [
        {
            "team_id": other,
            "team": names.get(other),
            "games": r.games,
            "wins": r.wins,
            "draws": r.draws,
            "losses": r.losses,
        }
        for other, r in sorted(found.items(), key=lambda item: (-item[1].games, item[0]))
    ]
    return {"team_id": tid, "opponents": rows}


@router.get("/competitions/{cid}/stats")
def stats(request: Request, arena: ArenaDep, versions: VersionsDep, cid: CompetitionId) -> dict[str, Any]:
    """In flight by kind, waiting validations, the oldest wait, rated games in the last hour per
    active version (p10/p50/p90). (P)"""
    competition = competition_or_404(arena, cid)
    found = versions.stats(cid, competition.tournament_id, at=wall_clock(request)())
    return {
        "in_flight": found.in_flight,
        "waiting_validations": found.waiting_validations,
        "oldest_wait_s": found.oldest_wait_s,
        "games_last_hour": {"versions": len(found.games_last_hour), **percentiles(found.games_last_hour)},
    }


__all__ = ["BoardCache", "router"]
