"""The arena's routes (specs/arena.md, part 1), one APIRouter per resource, mounted under `/api` by
`install_arena` (called by `botarena.server.app.create_app`):

- `session`: `POST/DELETE /api/session`, `GET /api/me`;
- `competitions`: `GET /api/competitions[/{cid}]`, `PATCH /api/competitions/{cid}`, `.../audit`;
- `teams`: `POST .../teams`, `POST .../register`, `POST/DELETE .../teams/{tid}/tokens[/{kid}]`.

Who may call what is declared in each route through `auth` (the one dependency that resolves the
caller); `tests/arena/test_isolation.py` checks every route against every kind of caller.
"""

from __future__ import annotations

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

    from botarena.server.arena import competitions, session, teams
    from botarena.store.arena import ArenaStore

    arena = ArenaStore(store)
    app.state.arena = arena
    app.state.arena_auth = ArenaAuth(arena) if clock is None else ArenaAuth(arena, clock)

    async def coded(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, CodedError)
        return JSONResponse({"detail": exc.detail, "code": exc.code}, status_code=exc.status_code)

    app.add_exception_handler(CodedError, coded)
    for module in (session, competitions, teams):
        app.include_router(module.router, prefix="/api")


__all__ = ["install_arena"]
