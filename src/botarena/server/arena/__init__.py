"""The arena's routes (specs/arena.md, part 1), one APIRouter per resource, mounted under `/api` by
`install_arena` (called by `botarena.server.app.create_app`):

- `session`: `POST/DELETE /api/session`, `GET /api/me`;
- `competitions`: `GET /api/competitions[/{cid}]`, `PATCH /api/competitions/{cid}`, `.../audit`;
- `teams`: `GET/POST .../teams`, `POST .../register`, `GET/POST .../teams/{tid}/tokens`,
  `DELETE .../teams/{tid}/tokens/{kid}`;
- `versions`: `POST/GET .../teams/{tid}/versions`, `GET .../versions/{vid}[/events|/source]`,
  `POST .../versions/{vid}/activate|retire`;
- `matches`: `GET .../competitions/{cid}/matches`, `GET /api/matches/{id}/logs/{seat}`,
  `POST /api/matches/{id}/void`, `POST .../competitions/{cid}/versions/{vid}/disable|enable` (and
  the arena's answers of the platform's `GET /api/matches/{id}[/replay]`);
- `board`: `GET .../leaderboard`, `GET .../teams/{tid}/pairs`, `GET .../stats`;
- `live`: arena matches on `/api/live` and their live streams per the competition's `policy.live`;
- `pages`: the HTML pages `/team`, `/competition/{cid}`, `/admin` (not under `/api`, not in the schema).

Who may call what is declared in each route through `auth` (the one dependency that resolves the
caller); `tests/arena/test_isolation.py` checks every route against every kind of caller.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from botarena.server.arena.auth import ArenaAuth, Clock
from botarena.server.arena.common import CodedError

if TYPE_CHECKING:
    from fastapi import FastAPI, Request
    from fastapi.responses import JSONResponse

    from botarena.store import Store


def install_arena(app: FastAPI, store: Store, *, clock: Clock | None = None) -> None:
    """Mount the arena's routers on `app` under `/api`, over `store`; `clock` drives the rate limits
    (default: time.monotonic)."""
    from fastapi.responses import JSONResponse

    from botarena.arena.uploads import Conversions
    from botarena.server.arena import board, competitions, matches, pages, session, teams, versions
    from botarena.store.arena import ArenaStore
    from botarena.store.arena_versions import ArenaVersions

    arena = ArenaStore(store)
    app.state.arena = arena
    app.state.arena_versions = ArenaVersions(arena)
    from botarena.server.arena.live import govern_arena

    govern_arena(app.state.spectators, app.state.arena_versions)  # arena matches follow policy.live
    app.state.arena_now = versions.utc_now  # quotas and timestamps (a test swaps it for a fake clock)
    app.state.arena_conversions = Conversions()
    app.state.arena_reading = versions.Reading()
    app.state.arena_board = board.BoardCache()
    # set when the server shuts down: the versions' event streams end instead of holding uvicorn
    app.state.arena_closing = threading.Event()
    app.state.arena_auth = ArenaAuth(arena) if clock is None else ArenaAuth(arena, clock)

    async def coded(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, CodedError)
        return JSONResponse({"detail": exc.detail, "code": exc.code}, status_code=exc.status_code)

    app.add_exception_handler(CodedError, coded)
    for module in (session, competitions, teams, versions, matches, board):
        app.include_router(module.router, prefix="/api")
    app.include_router(pages.router)  # (before the static mount at /, which create_app adds last)


def close_arena_streams(app: FastAPI) -> None:
    """End the arena's event streams (the server is shutting down)."""
    closing = getattr(app.state, "arena_closing", None)
    if closing is not None:
        closing.set()


__all__ = ["close_arena_streams", "install_arena"]
