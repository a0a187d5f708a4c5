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
the event loop (and every SSE stream) never waits on the database. The routes are in
`botarena.server.routes` (one module per resource) and `botarena.server.arena`; this module builds
the app from them and runs it.
"""

from __future__ import annotations

import gc
import importlib
import logging
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from botarena import __version__
from botarena.server.api_models import live_events_url, live_key, one_line
from botarena.server.httpconfig import ServerLimits, server_config
from botarena.server.ingest import check_live_token
from botarena.server.live import LiveHub
from botarena.server.spectators import SpectatorGate
from botarena.server.viewer import (
    PIP_HINT,
    ServerDependencyError,
    _require,
    bind_socket,
    mount_web,
    viewer_url,
)

try:  # the server extra
    from fastapi import FastAPI, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse
    from starlette.exceptions import HTTPException as StarletteHTTPException
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ServerDependencyError(
        f"the server needs {exc.name}, which is not installed; run: {PIP_HINT}"
    ) from None

from botarena.server.routes import ROUTERS
from botarena.server.routes.context import ServerContext
from botarena.server.routes.site import ARENA_PAGE

if TYPE_CHECKING:
    from botarena.store import Store

__all__ = ["ARENA_PAGE", "ON_READY_THREAD", "create_app", "live_events_url", "live_key", "serve"]

log = logging.getLogger(__name__)


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
    if None, or the gate's): the routers of `botarena.server.routes` and of the hosted arena
    (`botarena.server.arena`), over one `ServerContext`.

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
    the hosted arena's (`arena_clock` drives its rate limits).
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
    app.state.context = ServerContext(
        store, live, gate, organizer_key=organizer_key, live_token=live_token, heartbeat_s=heartbeat_s
    )
    install_error_handlers(app)
    for name in ROUTERS:
        app.include_router(importlib.import_module(f"botarena.server.routes.{name}").router)

    from botarena.server.arena import install_arena

    install_arena(app, store, clock=arena_clock)
    for router in routers:
        app.include_router(router, prefix="/api")
    mount_web(app)  # last: a mount at / shadows every route added after it
    return app


def install_error_handlers(app: FastAPI) -> None:
    """Every error as `{"detail": "<one line>"}`: a bad request 422, an HTTP error its status, the
    store unreachable 503, anything else 500 without a traceback (it goes to the log)."""

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": _validation_message(exc.errors())}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        detail = exc.detail if isinstance(exc.detail, str) else one_line(Exception(exc.detail))
        return JSONResponse({"detail": detail}, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> JSONResponse:
        from botarena.store import StoreError

        if isinstance(exc, StoreError):
            log.warning("store error on %s: %s", request.url.path, exc)
            return JSONResponse({"detail": f"store unavailable: {one_line(exc)}"}, status_code=503)
        log.error("error on %s", request.url.path, exc_info=exc)
        return JSONResponse(
            {"detail": f"internal error: {type(exc).__name__}: {one_line(exc)}"}, status_code=500
        )


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
