"""The starter logic HTTP service (spec 7.6): FastAPI on uvicorn, wrapping any `FactionLogic`.

    botarena devops-service --port 8081 --bot expander      (or: HTTP_PORT=8081 python -m ...)

Routes: `POST /moves/base`, `POST /moves/unit`, `GET /logs` (spec 7.4). Environment: `HTTP_PORT`
(default 8080), `SECURE_ENDPOINTS` (default false) and `SECURE_KEY`: when secured, a missing or wrong
`X-SECURE-KEY` gets 401. An unparseable body gets 400, an exception in the logic 500, other paths 404.
Calls may arrive concurrently; the logic runs on the event loop, so it gets one call at a time and
needs no lock of its own. A new `gameId` resets the logic's memory (the starter bots do that
themselves, seeded by spec 10's rule) and logs a line.
"""

from __future__ import annotations

import collections
import json
import os
import threading
from typing import Any

try:
    from fastapi import FastAPI, Request
    from fastapi.responses import JSONResponse, PlainTextResponse
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError("the starter service needs FastAPI: pip install 'botarena[server]'") from exc

LOG_LINES = 500


def create_app(logic: Any = None, *, secure_key: str | None = None) -> Any:
    """The service's FastAPI app around `logic` (default: a fresh `starter`)."""
    from botarena.games.devops.bots import LOGICS

    if logic is None:
        logic = LOGICS["starter"]()
    app = FastAPI(title="Devops Game faction logic")
    logs: collections.deque[str] = collections.deque(maxlen=LOG_LINES)
    state = {"gameId": None}
    lock = threading.Lock()

    def log(line: str) -> None:
        with lock:
            logs.append(line)

    async def handle(request: Request, method: str) -> Any:
        if secure_key is not None and request.headers.get("X-SECURE-KEY") != secure_key:
            return PlainTextResponse("missing or wrong X-SECURE-KEY", status_code=401)
        raw = await request.body()
        try:
            body = json.loads(raw)
            game_id = body["context"]["gameId"]
        except (ValueError, KeyError, TypeError):
            return PlainTextResponse("the body is not a Devops move input", status_code=400)
        if game_id != state["gameId"]:
            state["gameId"] = game_id
            log(f"new game {game_id}")
        try:
            move = getattr(logic, method)(body)
        except Exception as exc:
            log(f"error in {method}: {type(exc).__name__}: {exc}")
            return PlainTextResponse("logic error", status_code=500)
        return JSONResponse(move)

    @app.post("/moves/base")
    async def base_move(request: Request) -> Any:
        return await handle(request, "next_base_move")

    @app.post("/moves/unit")
    async def unit_move(request: Request) -> Any:
        return await handle(request, "next_unit_move")

    @app.get("/logs")
    async def read_logs() -> Any:
        with lock:
            lines = list(logs)
            logs.clear()
        return JSONResponse(lines)

    return app


def serve(port: int | None = None, bot: str = "starter", host: str = "127.0.0.1") -> None:
    """Run the service until interrupted (uvicorn). Port and key come from the environment by default."""
    from botarena.games.devops.bots import LOGICS

    port = port if port is not None else int(os.environ.get("HTTP_PORT", "8080"))
    secured = os.environ.get("SECURE_ENDPOINTS", "false").lower() in ("1", "true", "yes")
    key = os.environ.get("SECURE_KEY", "") if secured else None
    app = create_app(LOGICS[bot](), secure_key=key)
    from botarena.server.guard import ArenaServer
    from botarena.server.httpconfig import server_config

    config = server_config(app, host=host, port=port, log_level="warning")  # bounded heads, timeouts, ...
    ArenaServer(config).run()


if __name__ == "__main__":  # pragma: no cover
    serve()
