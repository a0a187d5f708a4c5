"""Serve the static replay viewer (`botarena/web`) and one replay file over HTTP.

The pieces are separate so the organizer's server can reuse them:

- `web_root()`: the folder of the static viewer;
- `mount_web(app)`: serve that folder at `/` (call it *after* adding your routes: a mount at `/`
  matches every path, so routes added after it are never reached);
- `replay_response(path)`: one replay file as an HTTP response (gzip files go out with
  `Content-Encoding: gzip`, so the browser inflates them and `fetch().json()` just works); the
  journal of a game still running or killed (`botarena.core.journal`) goes out as the partial
  replay it holds, read afresh at each request;
- `create_viewer_app(path)`: the three together, plus `/api/health`;
- `serve_viewer(path)`: run that app with uvicorn and print the URL to open.
"""

from __future__ import annotations

import gzip
import socket
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from botarena import __version__
from botarena.core.replay import JOURNAL_MARK, Replay, ReplayError, is_journal, read_replay
from botarena.standalone import web_root

if TYPE_CHECKING:
    from fastapi import FastAPI
    from starlette.responses import Response

GZIP_MAGIC = b"\x1f\x8b"
REPLAY_ROUTE = "/api/replay"
PIP_HINT = "pip install 'botarena[server]'"


class ServerDependencyError(ImportError):
    """FastAPI or uvicorn is missing: the `server` extra is not installed."""


def _require(module: str) -> Any:
    try:
        return __import__(module)
    except ImportError:
        raise ServerDependencyError(
            f"the viewer needs {module}, which is not installed; run: {PIP_HINT}"
        ) from None


def mount_web(app: FastAPI, path: str = "/", name: str = "web") -> None:
    """Serve the static viewer at `path` of `app`. Add it last: it shadows every route after it."""
    _require("fastapi")
    from starlette.staticfiles import StaticFiles

    app.mount(path, StaticFiles(directory=web_root(), html=True), name=name)


def is_gzip(path: Path) -> bool:
    with path.open("rb") as handle:
        return handle.read(2) == GZIP_MAGIC


def is_journal_file(path: Path) -> bool:
    """Whether the file at `path` is a replay journal (a game still running, or killed) rather than
    a finished replay: only its first bytes are read."""
    with path.open("rb") as handle:
        head = handle.read(4096)
    if head[:2] == GZIP_MAGIC:
        try:
            head = zlib.decompressobj(31).decompress(head, len(JOURNAL_MARK))
        except zlib.error:
            return False
    return is_journal(head)


def partial_summary(replay: Replay) -> str:
    """What the viewer says of a replay whose game did not finish (empty for a finished one)."""
    if not replay.partial:
        return ""
    steps = len(replay.steps)
    return f"partial replay: the game did not finish ({steps} step{'' if steps == 1 else 's'} recorded)"


def replay_response(path: Path) -> Response:
    """The replay file at `path` as JSON; 404 if it is not there (it may be deleted under us).

    A finished replay is sent as it is. A journal is not JSON, and a kill may have cut it mid-line:
    it is read (`read_replay`) up to its last complete step at each request, so a page reloaded
    while the game runs shows the steps written since, and sent as that partial replay's JSON
    (`"partial": true`). A journal whose header is unreadable is a 422 with the one-line reason.
    """
    _require("fastapi")
    from fastapi import HTTPException
    from starlette.responses import FileResponse

    headers = {"Cache-Control": "no-store"}
    try:
        gzipped = is_gzip(path)
        journal = is_journal_file(path)
    except OSError:
        raise HTTPException(status_code=404, detail=f"replay not found: {path.name}") from None
    if journal:
        return _partial_response(path, headers)
    if gzipped:
        headers["Content-Encoding"] = "gzip"
    return FileResponse(path, media_type="application/json", headers=headers)


def _partial_response(path: Path, headers: dict[str, str]) -> Response:
    from fastapi import HTTPException
    from starlette.responses import Response

    try:
        replay = read_replay(path)
    except ReplayError as exc:
        status = 404 if str(exc).startswith("cannot read") else 422
        raise HTTPException(status_code=status, detail=str(exc)) from None
    # level 1: a long game's steps compress well even so, and this runs at every request
    body = gzip.compress(replay.dumps(), compresslevel=1, mtime=0)
    headers["Content-Encoding"] = "gzip"
    return Response(body, media_type="application/json", headers=headers)


def create_viewer_app(replay_path: Path) -> FastAPI:
    """An app that shows one replay: `/` the viewer, `/api/replay` the file, `/api/health`."""
    fastapi = _require("fastapi")
    replay_path = Path(replay_path)
    app: FastAPI = fastapi.FastAPI(
        title="botarena viewer", version=__version__, docs_url=None, redoc_url=None
    )

    @app.get("/api/health")
    def health() -> dict[str, Any]:
        return {"status": "ok", "version": __version__, "replay": replay_path.name}

    @app.get(REPLAY_ROUTE)
    def replay() -> Response:
        return replay_response(replay_path)

    mount_web(app)
    return app


def _display_host(host: str) -> str:
    if host in ("", "0.0.0.0"):
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host


def bind_socket(host: str = "127.0.0.1", port: int = 0) -> socket.socket:
    """A listening-ready TCP socket on (host, port); port 0 picks a free one, with no race."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise OSError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


def viewer_url(host: str, port: int) -> str:
    return f"http://{_display_host(host)}:{port}/?replay={REPLAY_ROUTE}"


def serve_viewer(
    replay_path: str | Path,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    log_level: str = "warning",
) -> None:
    """Serve the viewer for `replay_path` until interrupted, after printing the URL to open.

    Raises ReplayError (one line) if the file is not a readable replay, ServerDependencyError if the
    `server` extra is missing, and OSError if the port cannot be bound.
    """
    _require("uvicorn")  # the server extra, or a one-line error
    path = Path(replay_path)
    replay = read_replay(path)  # fail here, in the terminal, rather than in the page
    if not web_root().joinpath("index.html").is_file():
        raise ReplayError(f"the viewer's web files are missing from {web_root()}")
    app = create_viewer_app(path)
    sock = bind_socket(host, port)
    sock.listen()  # before the URL is printed: a request sent at once waits for uvicorn, not refused
    bound_port = sock.getsockname()[1]
    print(f"botarena viewer: {replay.game} seed {replay.seed} from {path}", flush=True)
    if replay.partial:
        print(f"{partial_summary(replay)}; the page shows the steps written so far", flush=True)
    print(viewer_url(host, bound_port), flush=True)
    from botarena.server.guard import ArenaServer
    from botarena.server.httpconfig import server_config

    config = server_config(app, log_level=log_level)  # bounded heads, timeouts, connections
    try:
        ArenaServer(config).run(sockets=[sock])
    finally:
        sock.close()


def main(argv: list[str] | None = None) -> int:
    """Command-line entry (`REPLAY [PORT]`) for a CLI command to call (`botarena.server.viewer_cli`,
    a typer app: imported only here, so the server never pays for typer). Returns 0 when served
    until Ctrl-C, 1 for a file or port that cannot be served (one line on stderr), 2 for a usage
    mistake."""
    from botarena.server.viewer_cli import main as run

    return run(argv)
