"""The viewer's server on a partial replay (issue 16, item 1): the journal a killed `botarena play
--replay FILE` leaves is not JSON, so `/api/replay` reads it up to its last complete step and sends
that replay, marked `partial`. Over a real uvicorn server, no browser needed."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from partial_replays import play_partial
from test_viewer_server import get  # the same raw HTTP client

from botarena.cli import main
from botarena.core.replay import read_replay
from botarena.standalone import embedded_replay

pytest.importorskip("fastapi", reason="the server extra (fastapi) is not installed")
pytest.importorskip("uvicorn", reason="the server extra (uvicorn) is not installed")

from botarena.server.viewer import is_journal_file, partial_summary


@pytest.fixture(scope="module")
def partial_drones(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    return play_partial("drones", tmp_path_factory.mktemp("partial"), 3, {"rounds": 9})


def served_json(server: Any) -> dict[str, Any]:
    status, headers, body = get(server.url + "/api/replay")
    assert status == 200, body
    assert headers["content-type"] == "application/json"
    assert headers["content-encoding"] == "gzip"
    assert headers["cache-control"] == "no-store"
    data: dict[str, Any] = json.loads(gzip.decompress(body))
    return data


def test_a_killed_games_journal_is_served_as_its_partial_replay(
    serve: Any, partial_drones: tuple[Path, int]
) -> None:
    path, steps = partial_drones
    assert is_journal_file(path)
    data = served_json(serve(path))
    assert data["format"] == "botarena.replay"
    assert data["partial"] is True
    assert len(data["steps"]) == steps
    assert [frame["step"] for frame in data["keyframes"]] == [0]  # none at the last step
    for absent in ("result", "logs", "time_used_ms", "statuses", "end"):
        assert not data[absent], absent
    assert data == read_replay(path).to_json()


def test_a_finished_replay_is_not_a_journal(zergy_replay: tuple[Any, Path], tmp_path: Path) -> None:
    assert not is_journal_file(zergy_replay[1])
    plain = tmp_path / "plain.json"
    plain.write_bytes(zergy_replay[0].dumps())
    assert not is_journal_file(plain)


def test_each_request_reads_the_journal_afresh(serve: Any, tmp_path: Path) -> None:
    """A page reloaded while the game runs (or after more of it was written) shows the new steps."""
    first, _ = play_partial("drones", tmp_path / "a", 2, {"rounds": 9})
    later, _ = play_partial("drones", tmp_path / "b", 5, {"rounds": 9})
    shown = tmp_path / "running.json.gz"
    shown.write_bytes(first.read_bytes())
    server = serve(shown)
    assert len(served_json(server)["steps"]) == 2
    shown.write_bytes(later.read_bytes())
    assert len(served_json(server)["steps"]) == 5


def test_a_journal_cut_inside_its_header_is_a_one_line_422(serve: Any, tmp_path: Path) -> None:
    cut = tmp_path / "cut.json"
    cut.write_bytes(b'{"journal": 1, "header": {"game": "dro')  # killed while writing its first line
    status, _, body = get(serve(cut).url + "/api/replay")
    assert status == 422
    detail = json.loads(body)["detail"]
    assert "header is missing or cut short" in detail and "\n" not in detail


def test_partial_summary_counts_the_recorded_steps(partial_drones: tuple[Path, int]) -> None:
    replay = read_replay(partial_drones[0])
    assert partial_summary(replay) == "partial replay: the game did not finish (3 steps recorded)"
    replay.steps = replay.steps[:1]
    assert partial_summary(replay).endswith("(1 step recorded)")
    replay.partial = False
    assert partial_summary(replay) == ""


def test_view_html_says_the_replay_is_partial(
    partial_drones: tuple[Path, int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "partial.html"
    assert main(["view", str(partial_drones[0]), "--html", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"wrote {out}: drones seed 5, 3 steps")
    assert lines[1] == "partial replay: the game did not finish (3 steps recorded); the page says so"
    assert embedded_replay(out.read_text(encoding="utf-8")).partial is True


def test_botarena_view_serves_a_killed_games_file_and_says_it_is_partial(
    partial_drones: tuple[Path, int],
) -> None:
    """`botarena view FILE` as a user runs it: the lines it prints, then the page's replay."""
    path, steps = partial_drones
    command = [sys.executable, "-m", "botarena", "view", str(path), "--port", "0"]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline().strip() for _ in range(3)]  # the URL comes once it listens
        assert lines[0] == f"botarena viewer: drones seed 5 from {path}"
        assert lines[1] == (
            f"partial replay: the game did not finish ({steps} steps recorded); "
            "the page shows the steps written so far"
        )
        assert lines[2].startswith("http://127.0.0.1:") and lines[2].endswith("/?replay=/api/replay")
        status, _, body = get(lines[2].replace("/?replay=", ""))
        assert status == 200
        data = json.loads(gzip.decompress(body))
        assert data["partial"] is True and len(data["steps"]) == steps
        os.kill(process.pid, signal.SIGINT)
        assert process.wait(timeout=30) == 130  # Ctrl-C: the CLI's usual exit status for it
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    stderr = process.stderr.read() if process.stderr else ""
    assert "Traceback" not in stderr, stderr
