"""The DatsPulse REST API (spec §7.1, §7.2) as a FastAPI router, mounted under `/api`.

    POST|PUT /api/register   GET /api/arena   POST /api/move   GET /api/logs   GET /api/rounds
    GET /api/datspulse/series   the organiser's view (no token): phase, rounds, timing, standings
    GET /api/datspulse/live/<round>/events   the organiser's full live stream of a round, as it is
                                played (header `X-Organizer-Key` or `?key=`; 401 code 5 without it)

Each request is handled in this order, so that refused requests cost nothing:

1. the `X-Auth-Token` is looked up (401 code 5 for an unknown or missing one, counted for nothing);
2. the rate limit (§7.1): a request over it is answered 429 code 6 at once, before its body is read;
3. `/api/move` only: the body is read, at most `MoveLimits.body_bytes` (64 KiB: a declared larger
   Content-Length is refused before a byte of it is read, a larger stream as soon as it passes the
   bound), parsed, and its commands counted against the limits (at most `unit_limit` commands,
   paths of at most the fastest speed + 3 hexes): 400 code 4 otherwise, before the game lock is taken, so
   one request costs a few milliseconds at most whatever its sender tries;
4. the game work runs under the series lock once every transition due by now has run (§7.3 "no
   stale turns"): on the event loop when the lock is free and nothing is due (the common case, a
   fraction of a millisecond), else in a worker thread that waits for the lock or runs the due
   transition itself. The event loop never waits for a transition, so a slow transition or a slow
   client never holds up the acceptance of other requests.

Every non-200 reply is a PublicError body `{"code", "message"}`; an unexpected exception in a handler
is logged and answered 500 code 0 `internal error`, and the round goes on. A client that goes away
while its body is being read is not an error: it is counted as `disconnected`, and nothing is logged
above debug. Request heads, slow clients and connections are bounded by the HTTP layer
(`botarena.server.httpconfig`). Unknown paths under `/api` answer 404 code 7, and a known path with
the wrong method 405 code 7 with an `Allow` header naming the methods it serves.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import orjson

from botarena.server.datspulse import wire
from botarena.server.datspulse.ratelimit import SlidingWindowLimiter
from botarena.server.datspulse.series import Series
from botarena.server.datspulse.wire import MoveLimits, PublicError
from botarena.server.live import sse_response

try:
    from fastapi import APIRouter, Request
    from fastapi.responses import Response, StreamingResponse
    from fastapi.routing import APIRoute, iter_route_contexts
    from starlette.concurrency import run_in_threadpool
    from starlette.requests import ClientDisconnect
    from starlette.routing import Match
except ImportError as exc:  # pragma: no cover - exercised only without the server extra
    from botarena.server.viewer import PIP_HINT, ServerDependencyError

    raise ServerDependencyError(f"the DatsPulse server needs {exc.name}; run: {PIP_HINT}") from None

log = logging.getLogger(__name__)

TOKEN_HEADER = "x-auth-token"
ORGANIZER_HEADER = "x-organizer-key"
BAD_ORGANIZER_KEY = PublicError(401, wire.ErrorCode.BAD_TOKEN, "invalid or missing organizer key")
RATE_WINDOW_S = 2.0  # §7.1: the sliding window; its limit is 2 x rate_limit_per_second
ALL_METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]


def error_response(error: PublicError, headers: Mapping[str, str] | None = None) -> Response:
    return Response(
        content=error.body(),
        status_code=error.status,
        media_type=wire.JSON_TYPE,
        headers={**dict(error.headers), **(headers or {})},
    )


def json_response(value: Any) -> Response:
    return Response(content=wire.dumps(value), media_type=wire.JSON_TYPE)


class DatsPulseApi:
    """The request side of the server: tokens, the rate limit, and the series' operations."""

    def __init__(
        self,
        series: Series,
        teams: Mapping[str, str],
        *,
        clock: Callable[[], float] | None = None,
        status_extra: Callable[[], dict[str, Any]] | None = None,
        organizer_key: str | None = None,
        organizer_hub: Any = None,
    ) -> None:
        self.series = series
        self.organizer_key = organizer_key
        self.organizer_hub = organizer_hub
        self.teams = dict(teams)  # token -> team name
        self.clock = clock or series.clock
        per_second = int(series.config.rate_limit_per_second)
        self.per_second = per_second
        self.limiter = SlidingWindowLimiter(2 * per_second, RATE_WINDOW_S, self.clock)
        self.status_extra = status_extra
        self.limits = MoveLimits.from_config(series.config)
        self.counters = {
            "accepted": 0,
            "rate_limited": 0,
            "unauthorized": 0,
            "internal_errors": 0,
            "invalid_bodies": 0,
            "disconnected": 0,
        }

    # ------------------------------------------------------------------------------ the pipeline

    def _admit(self, request: Request) -> str:
        """Steps 1 and 2: the team's name, or PublicError 401 / 429."""
        token = request.headers.get(TOKEN_HEADER)
        name = self.teams.get(token) if token else None
        if name is None:
            self.counters["unauthorized"] += 1
            raise wire.BAD_TOKEN
        if not self.limiter.allow(token or "", self.clock()):
            self.counters["rate_limited"] += 1
            raise wire.rate_limited(self.per_second)
        self.counters["accepted"] += 1
        return name

    def _locked(self, operation: Callable[[float], Any]) -> Any:
        """Run `operation(now)` under the series lock once everything due by now has happened."""
        series = self.series
        with series.lock:
            now = self.clock()
            series.advance(now)
            return operation(now)

    async def handle(
        self, request: Request, operation: Callable[[str, Any, float], Any], *, body: bool = False
    ) -> Response:
        try:
            name = self._admit(request)
            parsed = await self._read_move(request) if body else None
            found, result = self._try_inline(operation, name, parsed)
            if not found:
                result = await run_in_threadpool(self._work, operation, name, parsed)
            return json_response(result)
        except PublicError as error:
            return error_response(error)
        except ClientDisconnect:  # the client went away mid-body: nobody to answer, nothing wrong here
            self.counters["disconnected"] += 1
            log.debug("DatsPulse %s %s: the client disconnected", request.method, request.url.path)
            return error_response(wire.invalid_body("the client disconnected"))
        except Exception:  # §7.1 robustness: logged, 500 code 0, and the round goes on
            self.counters["internal_errors"] += 1
            log.exception("DatsPulse %s %s failed", request.method, request.url.path)
            return error_response(wire.INTERNAL_ERROR)

    async def _read_move(self, request: Request) -> Any:
        """The move body read, parsed and held to the limits: on the event loop, outside the game
        lock. A body refused here (400 code 4) is counted in `invalid_bodies`."""
        try:
            parsed = parse_body(await read_body(request, self.limits.body_bytes))
            self.limits.check(parsed)
        except PublicError:
            self.counters["invalid_bodies"] += 1
            raise
        return parsed

    def _try_inline(
        self, operation: Callable[[str, Any, float], Any], name: str, parsed: Any
    ) -> tuple[bool, Any]:
        """The fast path, on the event loop: when the game lock is free and nothing is due, the
        request's work (a few hundred microseconds) runs at once, without a hop to a worker thread.
        Otherwise (a transition is running or due) it goes to a worker thread, which waits for the
        lock or runs the due transition: the event loop itself never waits and never transitions."""
        series = self.series
        if not series.lock.acquire(blocking=False):
            return False, None
        try:
            now = self.clock()
            deadline = series.next_deadline()
            if deadline is not None and now >= deadline:
                return False, None
            return True, operation(name, parsed, now)
        finally:
            series.lock.release()

    def _work(self, operation: Callable[[str, Any, float], Any], name: str, parsed: Any) -> Any:
        return self._locked(lambda now: operation(name, parsed, now))

    # ------------------------------------------------------------------------------ the operations

    def register(self, name: str, _body: Any, now: float) -> Any:
        return self.series.register(name, now)

    def arena(self, name: str, _body: Any, now: float) -> Any:
        return self.series.arena(name, now)

    def move(self, name: str, body: Any, now: float) -> Any:
        return self.series.move(name, body, now)

    def logs(self, name: str, _body: Any, now: float) -> Any:
        return self.series.logs(name)

    def rounds(self, name: str, _body: Any, now: float) -> Any:
        return self.series.rounds_listing(now)

    def _organizer(self, request: Request) -> bool:
        """True when the request carries the organizer key (header, or `key` for an EventSource)."""
        expected = self.organizer_key
        given = request.headers.get(ORGANIZER_HEADER) or request.query_params.get("key") or ""
        return bool(expected) and secrets.compare_digest(given.encode(), str(expected).encode())

    def organiser_status(self) -> dict[str, Any]:
        status: dict[str, Any] = self._locked(self.series.status)
        status["requests"] = dict(self.counters)
        if self.status_extra is not None:
            status.update(self.status_extra())
        return status

    # ------------------------------------------------------------------------------ the router

    def router(self) -> APIRouter:
        """The routes, for `botarena.server.app.create_app(routers=[...])` (mounted under /api)."""
        router = APIRouter()

        @router.api_route("/register", methods=["POST", "PUT"], include_in_schema=True)
        async def register(request: Request) -> Response:
            """Register the team for the coming round (§7.2)."""
            return await self.handle(request, self.register)

        @router.get("/arena")
        async def arena(request: Request) -> Response:
            """The team's view of the round (§4)."""
            return await self.handle(request, self.arena)

        @router.post("/move")
        async def move(request: Request) -> Response:
            """Give the team's ants their paths for the next transition (§5)."""
            return await self.handle(request, self.move, body=True)

        @router.get("/logs")
        async def logs(request: Request) -> Response:
            """The team's log of the round (§7.7)."""
            return await self.handle(request, self.logs)

        @router.get("/rounds")
        async def rounds(request: Request) -> Response:
            """The series' rounds (§7.2)."""
            return await self.handle(request, self.rounds)

        @router.get("/datspulse/series")
        async def series_status(request: Request) -> Response:
            """The organiser's view: phase, rounds, results, transition timing and standings."""
            try:
                return json_response(await run_in_threadpool(self.organiser_status))
            except Exception:
                log.exception("DatsPulse series status failed")
                return error_response(wire.INTERNAL_ERROR)

        @router.get("/datspulse/live/{round_name}/events", response_model=None)
        async def organizer_live(request: Request, round_name: str) -> Response | StreamingResponse:
            """The organiser's live stream of a round, every unit at once (the public one at
            /api/live follows the spectator policy): needs the organizer key."""
            if not self._organizer(request):
                return error_response(BAD_ORGANIZER_KEY)
            hub = self.organizer_hub
            events = hub.subscribe(f"datspulse/{round_name}") if hub is not None else None
            if events is None:
                return error_response(wire.NOT_FOUND)
            response: StreamingResponse = sse_response(events)  # (a slow reader is dropped: guard.py)
            return response

        own_routes = [route for route in router.routes if isinstance(route, APIRoute)]

        @router.api_route("/{path:path}", methods=ALL_METHODS, include_in_schema=False)
        async def unknown(request: Request, path: str) -> Response:
            """§7.1: anything else under /api is 404 code 7, or 405 code 7 for a known path."""
            allowed = allowed_methods(request, own_routes)
            if not allowed:
                return error_response(wire.NOT_FOUND)
            # RFC 9110 §15.5.6: a 405 names the methods the path does serve
            return error_response(wire.METHOD_NOT_ALLOWED, {"Allow": ", ".join(allowed)})

        return router


API_PREFIX = "/api"  # where `create_app(routers=...)` mounts this router


def allowed_methods(request: Request, own_routes: Sequence[APIRoute]) -> list[str]:
    """The methods the request's path is served with, sorted (empty for an unknown path): those of
    this router's own routes (`own_routes`, paths relative to /api) whose path matches, and those of
    the app's top-level routes that match it with another method (the organiser's routes, which come
    before this router)."""
    path = request.url.path
    methods: set[str] = set()
    if path.startswith(API_PREFIX):
        relative = path[len(API_PREFIX) :]
        for own in own_routes:
            if own.path_regex.match(relative):
                methods.update(own.methods or ())
    # every route of the app, those of included routers too (FastAPI keeps an included router as
    # one entry of `app.router.routes`; `iter_route_contexts` walks into it)
    for route in iter_route_contexts(request.app.router.routes):
        if route.methods:
            match, _ = route.matches(request.scope)
            if match is Match.PARTIAL:
                methods.update(route.methods)
    return sorted(methods)


def too_large(limit: int) -> PublicError:
    return wire.invalid_body(f"the body is larger than {limit // 1024} KiB")


async def read_body(request: Request, limit: int = wire.MAX_BODY_BYTES) -> bytes:
    """The request body, at most `limit` bytes (400 code 4 beyond, without reading the rest: a
    declared Content-Length is checked first, a stream as it comes)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise too_large(limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)


def parse_body(raw: bytes) -> Any:
    """A JSON body (§5), or 400 code 4 naming what is wrong.

    A number too large for a double (`1e400`) is valid JSON; orjson refuses it, so such a body is
    parsed again with the standard library, where it becomes an infinite float. The game then
    judges it like any other non-integral number: the entry holding it is skipped (§5 "one entry
    skipped"), the other commands still apply."""
    if not raw.strip():
        raise wire.invalid_body("the body is empty, not JSON")
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if OVERFLOW_MARK in str(exc):
            return _parse_overflowing(raw, exc)
        raise wire.invalid_body(f"not valid JSON ({exc})") from None


OVERFLOW_MARK = "infinity"  # orjson's message for a number that overflows a double


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _parse_overflowing(raw: bytes, first: orjson.JSONDecodeError) -> Any:
    """`raw` parsed by the standard library (overflowing numbers become +-inf), held to what orjson
    accepts otherwise: no `NaN`/`Infinity` literals, and no lone surrogates in strings (checked by
    serialising the result back with orjson, which refuses them)."""
    try:
        parsed = json.loads(raw, parse_constant=_refuse_constant)
        orjson.dumps(parsed)
    except (ValueError, TypeError, RecursionError):  # orjson.JSONEncodeError is a TypeError
        raise wire.invalid_body(f"not valid JSON ({first})") from None
    return parsed
