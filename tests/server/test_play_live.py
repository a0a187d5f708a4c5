"""`botarena play ... --live`: the match is streamed to the viewer's live endpoint while it runs."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from botarena.core.replay import read_replay

pytest.importorskip("uvicorn")


def read_sse(url: str, timeout_s: float = 60.0) -> list[tuple[str, Any]]:
    """The (event, data) pairs of an SSE stream, up to and including its "end" event."""
    events: list[tuple[str, Any]] = []
    with urllib.request.urlopen(url, timeout=timeout_s) as response:
        assert response.headers["Content-Type"].startswith("text/event-stream")
        kind = None
        for raw in response:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: ") and kind is not None:
                events.append((kind, json.loads(line[6:])))
                if kind == "end":
                    return events
                kind = None
    return events


def test_play_live_streams_a_paced_devops_match_to_its_end(tmp_path: Path) -> None:
    replay_path = tmp_path / "game.json.gz"
    command = [
        sys.executable,
        "-m",
        "botarena.cli",
        "play",
        "devops",
        "starter",
        "expander",
        "--preset",
        "smoke",
        "--seed",
        "4",
        "--set",
        "turn_limit=30",
        "--set",
        "turn_interval_ms=20",
        "--replay",
        str(replay_path),
        "--live",
        "--live-linger",
        "600",
    ]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        found = re.search(r"(http://127\.0\.0\.1:\d+)/index\.html\?live=(/api/live/\S+/events)", first)
        assert found, first
        base, events_path = found.groups()
        # the viewer page itself is served too
        with urllib.request.urlopen(base + "/index.html", timeout=10) as page:
            assert page.status == 200
        events = read_sse(base + events_path)
        kinds = [kind for kind, _ in events]
        assert kinds[0] == "header" and kinds[-1] == "end" and "steps" in kinds[1:-1]
        header = events[0][1]
        # the seed decides what the rules hide: not while the match is played (DESIGN principle 7),
        # in the header, the match's name or its live key; the end event brings it
        assert header["replay"]["game"] == "devops" and header["replay"]["seed"] is None
        assert header["replay"]["hidden"] == ["seed"] and header["match"] == "devops: starter, expander"
        assert not header["replay"]["match_id"].startswith("devops-4-")
        steps: list[Any] = []
        for kind, data in events:
            if kind == "steps":
                assert data["first"] == len(steps)  # no gap, no overlap
                steps += data["steps"]
        end = events[-1][1]["fields"]
        assert end["seed"] == 4
        # the result is printed as soon as the match is over, while the server still lingers
        printed = [first]
        while not printed[-1].startswith("replay written to"):
            line = proc.stdout.readline()
            assert line, "".join(printed)
            printed.append(line)
        assert proc.poll() is None  # still serving: the result did not wait for the linger
        # stop the lingering server as a person would (Ctrl-C)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        out = "".join(printed) + out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert proc.returncode == 0, err
    assert "devops · seed 4" in out and f"replay written to {replay_path}" in out
    replay = read_replay(replay_path)
    assert len(steps) == len(replay.steps) == 30
    assert steps == json.loads(json.dumps(replay.steps))
    assert end["result"] == json.loads(json.dumps(replay.result))


def test_play_live_rejects_a_negative_port_in_one_line() -> None:
    command = [sys.executable, "-m", "botarena.cli", "play", "drones", "pacifist", "pacifist", "--live"]
    done = subprocess.run([*command, "--live-port", "-1"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "botarena: error: --live-port and --live-linger must be 0 or more"
    ]
