"""The viewer's HTTP routes, over a real uvicorn server (no browser needed)."""

from __future__ import annotations

import gzip
import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from botarena.core.replay import ReplayError

pytest.importorskip("fastapi", reason="the server extra (fastapi) is not installed")
pytest.importorskip("uvicorn", reason="the server extra (uvicorn) is not installed")

from botarena.server.viewer import bind_socket, main, mount_web, serve_viewer, viewer_url, web_root

# No proxy, even if the environment names one: these requests go to 127.0.0.1.
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def get(url: str) -> tuple[int, dict[str, str], bytes]:
    """(status, headers with lower-case names, raw body): urllib never inflates gzip itself."""
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"})
    try:
        with _opener.open(request, timeout=10) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read()


def test_web_root_holds_the_viewer() -> None:
    root = web_root()
    for name in ("index.html", "player.js", "registry.js", "style.css", "renderers/drones.js"):
        assert (root / name).is_file(), name


def test_index_and_static_files(serve: Any, zergy_replay: tuple[Any, Path]) -> None:
    server = serve(zergy_replay[1])
    status, headers, body = get(server.url + "/")
    assert status == 200
    assert headers["content-type"].startswith("text/html")
    assert b'src="player.js"' in body
    for path in ("/player.js", "/renderers/drones.js"):
        status, headers, body = get(server.url + path)
        assert status == 200, path
        assert "javascript" in headers["content-type"], headers["content-type"]
    status, _, _ = get(server.url + "/renderers/nosuchgame.js")
    assert status == 404


def test_gzip_replay_is_served_with_content_encoding(serve: Any, zergy_replay: tuple[Any, Path]) -> None:
    replay, path = zergy_replay
    server = serve(path)
    status, headers, body = get(server.url + "/api/replay")
    assert status == 200
    assert headers["content-type"] == "application/json"
    assert headers["content-encoding"] == "gzip"
    assert body == path.read_bytes()
    data = json.loads(gzip.decompress(body))
    assert data["format"] == "botarena.replay"
    assert data["seed"] == replay.seed
    assert len(data["steps"]) == len(replay.steps)


def test_plain_json_replay_has_no_content_encoding(
    serve: Any, zergy_replay: tuple[Any, Path], tmp_path: Path
) -> None:
    plain = tmp_path / "plain.json"
    plain.write_bytes(zergy_replay[0].dumps())
    server = serve(plain)
    status, headers, body = get(server.url + "/api/replay")
    assert status == 200
    assert headers["content-type"] == "application/json"
    assert "content-encoding" not in headers
    assert json.loads(body)["game"] == "drones"


def test_missing_replay_is_404(serve: Any, tmp_path: Path) -> None:
    server = serve(tmp_path / "gone.json.gz")
    status, _, body = get(server.url + "/api/replay")
    assert status == 404
    assert json.loads(body) == {"detail": "replay not found: gone.json.gz"}


def test_health(serve: Any, zergy_replay: tuple[Any, Path]) -> None:
    server = serve(zergy_replay[1])
    status, _, body = get(server.url + "/api/health")
    assert status == 200
    health = json.loads(body)
    assert health["status"] == "ok"
    assert health["replay"] == "zergy-adaptive.json.gz"


def test_mount_web_lets_another_app_add_routes(serve: Any) -> None:
    """The organizer's server will build its own app and mount the viewer last."""
    from fastapi import FastAPI

    app = FastAPI()

    @app.get("/api/matches")
    def matches() -> list[str]:
        return ["m1"]

    mount_web(app)
    server = serve(app)
    assert json.loads(get(server.url + "/api/matches")[2]) == ["m1"]
    assert get(server.url + "/")[0] == 200


def test_serve_viewer_rejects_a_missing_file_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(ReplayError, match="cannot read"):
        serve_viewer(tmp_path / "nope.json.gz")


def test_main_reports_errors_without_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main([str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "not valid JSON" in err
    assert "Traceback" not in err
    assert err.count("\n") == 1


def test_viewer_url_and_free_port() -> None:
    assert viewer_url("127.0.0.1", 8000) == "http://127.0.0.1:8000/?replay=/api/replay"
    assert viewer_url("0.0.0.0", 8000) == "http://127.0.0.1:8000/?replay=/api/replay"
    sock = bind_socket("127.0.0.1", 0)
    try:
        port = sock.getsockname()[1]
        assert port > 0
        sock.listen()
        with pytest.raises(OSError, match=f"cannot listen on 127.0.0.1:{port}"):
            bind_socket("127.0.0.1", port)
    finally:
        sock.close()
