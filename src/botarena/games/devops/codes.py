"""Spec 7.5: the bonus-code API of a running Devops game, mounted by the organizer's server under its
API root (`/api`) when `bonus_codes_enabled`:

    POST /games/{gameId}/devops/codes                      organizer (X-ORGANIZER-KEY): issue a code
    GET  /games/{gameId}/devops/factions/{factionId}/codes that faction's team: its usable codes
    POST /games/{gameId}/devops/redeem                     that faction's team: queue a code for DV-20

A team authenticates with `X-SECURE-KEY` equal to its faction's key (its bot's `secure_key`, or the
one the organizer gave it). Codes are opaque random tokens (`secrets`, 128 bits), never drawn from
the game streams; the engine records what DV-20 takes, so replays need no codes.
"""

import secrets
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from botarena.games.devops.observe import BONUS_TYPES
from botarena.games.devops.rules import DevopsEngine, RedemptionExpired, RedemptionLocked

ORGANIZER_HEADER = "X-ORGANIZER-KEY"
TEAM_HEADER = "X-SECURE-KEY"


class CodeError(Exception):
    """A refused request: its HTTP status (spec 7.5's table) and a one-line reason."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


@dataclass
class Code:
    code: str
    type: str
    game_id: str
    faction_id: int
    valid_until_turn: int
    redeemed: bool = False

    def json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "type": self.type,
            "gameId": self.game_id,
            "factionId": self.faction_id,
            "validUntilTurn": self.valid_until_turn,
        }


def _same(given: str | None, expected: str | None) -> bool:
    return bool(given) and bool(expected) and secrets.compare_digest(str(given), str(expected))


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class CodeBook:
    """The issued codes of one game and the rules of the three routes, thread-safe (the server's
    threads call it while the engine plays; the engine's own lock orders redemptions with turns)."""

    def __init__(
        self,
        engine: Callable[[], DevopsEngine | None],
        team_keys: Mapping[int, str | None],
        organizer_key: str,
    ) -> None:
        self._engine = engine
        self.team_keys = dict(team_keys)
        self.organizer_key = organizer_key
        self._codes: dict[str, Code] = {}
        self._lock = threading.Lock()

    def _game(self, game_id: str) -> DevopsEngine:
        engine = self._engine()
        if engine is None:
            raise CodeError(423, "the game has not started yet")
        if not secrets.compare_digest(game_id, engine.game_id):
            raise CodeError(403, f"not the running game ({game_id!r})")
        return engine

    def _team(self, engine: DevopsEngine, faction_id: Any, key: str | None) -> int:
        faction = _int(faction_id)
        if faction is None or not 1 <= faction <= engine.n or not _same(key, self.team_keys.get(faction)):
            raise CodeError(403, f"not faction {faction_id}'s team (X-SECURE-KEY)")
        return faction

    def issue(self, game_id: str, body: Any, organizer_key: str | None) -> dict[str, Any]:
        """POST .../codes: 201 with the code object."""
        engine = self._game(game_id)
        if not _same(organizer_key, self.organizer_key):
            raise CodeError(403, f"the organizer's key ({ORGANIZER_HEADER}) is missing or wrong")
        if not isinstance(body, dict):
            raise CodeError(400, "the body must be a JSON object")
        faction, kind, valid = _int(body.get("factionId")), body.get("type"), body.get("validTurns")
        if faction is None or not 1 <= faction <= engine.n:
            raise CodeError(400, f"factionId must be 1..{engine.n}")
        if kind not in BONUS_TYPES:
            raise CodeError(400, f"type must be one of {', '.join(BONUS_TYPES)}")
        if valid is not None and (_int(valid) is None or not 1 <= valid <= 100_000):
            raise CodeError(400, "validTurns must be an integer 1..100000")
        turn, finished = engine.current_turn()
        if finished:
            raise CodeError(423, "the game is over")
        until = turn + (valid if valid is not None else engine.config.bonus_code_valid_turns)
        code = Code(secrets.token_urlsafe(16), kind, engine.game_id, faction, until)
        with self._lock:
            self._codes[code.code] = code
        return code.json()

    def listing(self, game_id: str, faction_id: str, key: str | None) -> list[dict[str, Any]]:
        """GET .../factions/{factionId}/codes: 200 with the faction's issued, unredeemed, unexpired codes."""
        engine = self._game(game_id)
        faction = self._team(engine, int(faction_id) if faction_id.isdecimal() else None, key)
        turn, _ = engine.current_turn()
        with self._lock:
            codes = [c for c in self._codes.values() if c.faction_id == faction]
            return [c.json() for c in codes if not c.redeemed and turn <= c.valid_until_turn]

    def redeem(self, game_id: str, body: Any, key: str | None) -> dict[str, Any]:
        """POST .../redeem: 202 `{"status": "queued", "type", "activatesAtTurn"}`."""
        if (
            not isinstance(body, dict)
            or _int(body.get("factionId")) is None
            or not isinstance(body.get("code"), str)
        ):
            raise CodeError(400, 'the body must be {"factionId": int, "code": string}')
        engine = self._game(game_id)
        faction = self._team(engine, body["factionId"], key)
        with self._lock:
            code = self._codes.get(body["code"])
            if code is None:
                raise CodeError(404, "unknown code")
            if code.faction_id != faction:
                raise CodeError(403, f"the code is not faction {faction}'s")
            if code.redeemed:
                raise CodeError(409, "the code has been redeemed already")
            try:
                turn = engine.redeem(faction, code.type, code.valid_until_turn)
            except RedemptionExpired as exc:
                raise CodeError(410, f"the code has expired: {exc}") from None
            except RedemptionLocked as exc:
                raise CodeError(423, str(exc)) from None
            code.redeemed = True
        return {"status": "queued", "type": code.type, "activatesAtTurn": turn}


def live_routes(match: Any) -> Any:
    """`GameInfo.extras["live_routes"]`: the spec 7.5 routes (a FastAPI APIRouter) for the live match
    `match` (`.engine`: the engine once created, `.config`, `.players`, `.organizer_key`, and optional
    `.team_keys`: faction id -> key, default each bot's `secure_key`), or None without bonus codes."""
    if not getattr(match.config, "bonus_codes_enabled", False):
        return None
    from fastapi import APIRouter, Request
    from fastapi.responses import JSONResponse
    from starlette.concurrency import run_in_threadpool

    keys = getattr(match, "team_keys", None) or {
        seat + 1: getattr(bot, "secure_key", None) for seat, bot in enumerate(match.players)
    }
    book = CodeBook(lambda: getattr(match, "engine", None), keys, match.organizer_key)
    router = APIRouter()

    async def body_of(request: Request) -> Any:
        try:
            return orjson.loads(await request.body())
        except orjson.JSONDecodeError:
            return None

    async def answer(call: Callable[..., Any], status: int, *args: Any) -> JSONResponse:
        try:
            return JSONResponse(await run_in_threadpool(call, *args), status_code=status)
        except CodeError as exc:
            return JSONResponse({"detail": exc.detail}, status_code=exc.status)

    @router.post("/games/{game_id}/devops/codes", status_code=201)
    async def issue(game_id: str, request: Request) -> JSONResponse:
        body = await body_of(request)
        return await answer(book.issue, 201, game_id, body, request.headers.get(ORGANIZER_HEADER))

    @router.get("/games/{game_id}/devops/factions/{faction_id}/codes")
    async def listing(game_id: str, faction_id: str, request: Request) -> JSONResponse:
        return await answer(book.listing, 200, game_id, faction_id, request.headers.get(TEAM_HEADER))

    @router.post("/games/{game_id}/devops/redeem", status_code=202)
    async def redeem(game_id: str, request: Request) -> JSONResponse:
        body = await body_of(request)
        return await answer(book.redeem, 202, game_id, body, request.headers.get(TEAM_HEADER))

    router.book = book  # type: ignore[attr-defined]  # for tests and the organizer's tools
    return router
