"""Spec 7.5: the bonus-code API of a running Devops game, mounted by the organizer's server under its
API root (`/api`) when `bonus_codes_enabled`:

    POST /games/{gameId}/devops/codes                      organizer (X-ORGANIZER-KEY): issue a code
    GET  /games/{gameId}/devops/factions/{factionId}/codes that faction's team: its usable codes
    POST /games/{gameId}/devops/redeem                     that faction's team: queue a code for DV-20

The rules of the three routes are the game's plain `CodeBook` (`botarena.games.devops.codes`); this
module adds HTTP and threads. The routes run on the server's threads while the match runs on its
own: every route takes the match's lock, and the match thread holds the same lock while its engine
runs a phase (`botarena.server.live.LockedEngine`), so a redemption sees a turn's start (where DV-20
takes the queue) and its end (DV-49 defeat, DV-51 the game's end) whole or not at all.
"""

# no `from __future__ import annotations`: FastAPI reads the routes' annotations, whose `Request` is
# imported inside `live_routes` (the server extra is optional)
import secrets
import threading
from collections.abc import Callable
from typing import Any

import orjson

from botarena.games.devops.codes import ORGANIZER_HEADER, TEAM_HEADER, CodeBook, CodeError


class LiveCodes:
    """The `CodeBook` of the live match `match`, each call under `match.lock` (see `live_routes`)."""

    def __init__(self, match: Any) -> None:
        keys = getattr(match, "team_keys", None) or {
            seat + 1: getattr(bot, "secure_key", None) for seat, bot in enumerate(match.players)
        }
        self.match = match
        self.lock = getattr(match, "lock", None) or threading.RLock()
        self.book = CodeBook(keys, match.organizer_key)
        # a resumed game (`play --resume`): the codes issued and redeemed before the kill
        self.book.restore(getattr(match, "external", None) or ())
        self.journal = getattr(match, "journal", None)  # where accepted codes are written at once

    def _record(self, event: dict[str, Any]) -> None:
        if self.journal is not None:
            self.journal.external(event)

    def _engine(self) -> Any:
        return getattr(self.match, "engine", None)

    def issue(self, game_id: str, body: Any, organizer_key: str | None) -> dict[str, Any]:
        token = secrets.token_urlsafe(16)  # 128 bits, never from the game's streams
        with self.lock:
            code = self.book.issue(self._engine(), game_id, body, organizer_key, token)
            self._record(self.book.issued_event(code))
            return code

    def listing(self, game_id: str, faction_id: str, key: str | None) -> list[Any]:
        with self.lock:
            return self.book.listing(self._engine(), game_id, faction_id, key)

    def redeem(self, game_id: str, body: Any, key: str | None) -> dict[str, Any]:
        with self.lock:
            answer = self.book.redeem(self._engine(), game_id, body, key)
            self._record(self.book.redeemed_event(body["code"], answer["activatesAtTurn"]))
            return answer


def live_routes(match: Any) -> Any:
    """The spec 7.5 routes (a FastAPI APIRouter) for the live match `match`, or None without bonus
    codes. `match` has `.engine` (the engine once created), `.config`, `.players`, `.organizer_key`,
    and optionally `.team_keys` (faction id -> key; default each bot's `secure_key`), `.lock` (the
    lock its engine's phases hold; default a lock of the routes' own), `.journal` (a ReplayJournal:
    every issued and redeemed code is written to it at once) and `.external` (a resumed game's
    journal events, whose codes are restored)."""
    if not getattr(match.config, "bonus_codes_enabled", False):
        return None
    from fastapi import APIRouter, Request
    from fastapi.responses import JSONResponse
    from starlette.concurrency import run_in_threadpool

    codes = LiveCodes(match)
    router = APIRouter()

    async def body_of(request: Request) -> Any:
        try:
            return orjson.loads(await request.body())
        except orjson.JSONDecodeError:
            return None

    async def answer(call: Callable[..., Any], status: int, *args: Any) -> JSONResponse:
        try:  # in the thread pool: waiting for the match's lock must not stall the event loop
            return JSONResponse(await run_in_threadpool(call, *args), status_code=status)
        except CodeError as exc:
            return JSONResponse({"detail": exc.detail}, status_code=exc.status)

    @router.post("/games/{game_id}/devops/codes", status_code=201)
    async def issue(game_id: str, request: Request) -> JSONResponse:
        body = await body_of(request)
        return await answer(codes.issue, 201, game_id, body, request.headers.get(ORGANIZER_HEADER))

    @router.get("/games/{game_id}/devops/factions/{faction_id}/codes")
    async def listing(game_id: str, faction_id: str, request: Request) -> JSONResponse:
        return await answer(codes.listing, 200, game_id, faction_id, request.headers.get(TEAM_HEADER))

    @router.post("/games/{game_id}/devops/redeem", status_code=202)
    async def redeem(game_id: str, request: Request) -> JSONResponse:
        body = await body_of(request)
        return await answer(codes.redeem, 202, game_id, body, request.headers.get(TEAM_HEADER))

    router.codes = codes  # type: ignore[attr-defined]  # for tests and the organizer's tools
    return router
