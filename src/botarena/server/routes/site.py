"""`/` (to the arena page), `GET /api/health` and `GET /api/games`."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import RedirectResponse

from botarena import __version__
from botarena.server.api_models import GameOut, Health
from botarena.server.routes.context import ContextDep

ARENA_PAGE = "/arena.html"

router = APIRouter()


@router.get("/", include_in_schema=False)
def root() -> RedirectResponse:
    return RedirectResponse(ARENA_PAGE, status_code=307)


@router.get("/api/health", response_model=Health)
def health(context: ContextDep) -> Health:
    live_count = len(context.gate.live_matches())  # (held matches included)
    return Health(status="ok", version=__version__, store=str(context.store.dialect), live=live_count)


@router.get("/api/games", response_model=list[GameOut])
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
