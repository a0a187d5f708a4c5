"""`botarena serve --live-policy` and its organizer key (issue 25, item 4): the command, as an
organizer starts it, holds back the live state of hidden-information games' matches as it is told,
takes its organizer key from a 0600 file (never from its command line) and shows that key's holder
every step; a wrong option is one line before anything is opened."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from botarena.cli import main

pytest.importorskip("uvicorn", reason="the server extra (uvicorn) is not installed")

TOKEN = "live-token-of-the-serve-test-0123"
KEY = "organizer-key-of-the-serve-test-0123"
PLAYED, DELAY = 5, 2


def drones_events() -> list[dict[str, Any]]:
    """A real drones match's live events (header, its first PLAYED steps), as a worker posts them."""
    from botarena.bots.resolve import TRUSTED, resolve_bot
    from botarena.core.registry import get_game
    from botarena.runner.match import run_match

    game = get_game("drones")
    bots = [resolve_bot(name, game, isolation=TRUSTED) for name in ("zergy", "adaptive")]
    replay = run_match(game, bots, seed=11).replay
    head = {**replay.to_json(), "steps": []}
    return [
        {"type": "header", "key": "t1/r01-m001", "tournament_id": 1, "match": "r01-m001", "replay": head},
        {"type": "steps", "key": "t1/r01-m001", "first": 0, "steps": replay.steps[:PLAYED]},
    ]


def request(base: str, path: str, *, body: bytes | None = None, key: str | None = None) -> tuple[int, Any]:
    host, port = base.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=20)
    headers = {"X-Organizer-Key": key} if key else {}
    try:
        if body is not None:
            headers |= {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
            conn.request("POST", path, body=body, headers=headers)
        else:
            conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        if response.getheader("content-type", "").startswith("text/event-stream"):
            events, event = [], ""  # a running match's stream: its header and steps, then stop
            while len(events) < 2:
                line = response.readline().decode().rstrip("\r\n")
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:"):
                    events.append((event, json.loads(line[5:])))
            return response.status, events
        return response.status, json.loads(response.read())
    finally:
        conn.close()


@pytest.mark.timeout(120)
def test_serve_holds_a_hidden_match_back_and_shows_the_organizer_all_of_it(tmp_path: Path) -> None:
    key_file = tmp_path / "organizer.key"
    key_file.write_text(KEY + "\n")
    key_file.chmod(0o600)
    env = {name: value for name, value in os.environ.items() if not name.startswith("BOTARENA_")}
    env |= {"BOTARENA_LIVE_TOKEN": TOKEN, "BOTARENA_ORGANIZER_KEY_FILE": str(key_file)}
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    # (--unsandboxed: this server plays no match itself; a machine without the sandbox runs it too)
    command = [sys.executable, "-m", "botarena", "serve", "--port", "0", "--db", db, "--unsandboxed"]
    command += ["--live-policy", "delayed", "--live-delay", str(DELAY)]
    process = subprocess.Popen(
        command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline() for _ in range(5)]
        base = lines[1].strip().removesuffix("/arena.html")
        assert base.startswith("http://127.0.0.1:"), lines
        assert lines[3].startswith(f"live policy: delayed (matches of hidden-information games shown {DELAY}")
        assert lines[4].startswith("organizer key: requests with it in X-Organizer-Key")
        assert KEY not in "".join(lines)
        events = drones_events()
        status, answer = request(base, "/api/live/ingest", body=orjson.dumps(events))
        assert status == 200 and answer == {"accepted": 2, "refused": 0, "refusals": []}
        played = [orjson.loads(orjson.dumps(s)) for s in events[1]["steps"]]
        for key, steps in ((None, PLAYED - DELAY), ("wrong" + KEY[5:], PLAYED - DELAY), (KEY, PLAYED)):
            status, listed = request(base, "/api/live", key=key)
            assert status == 200 and [(m["steps"], m["played"]) for m in listed] == [(steps, PLAYED)]
            status, stream = request(base, "/api/live/t1/r01-m001/events", key=key)
            (_, header), (_, shown) = stream
            assert status == 200 and shown["steps"] == played[:steps], key
            assert (header["replay"]["seed"] == 11) == (key == KEY)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
    assert process.returncode == 0, process.stderr.read() if process.stderr else ""


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in ("DB", "LIVE_TOKEN", "ORGANIZER_KEY", "ORGANIZER_KEY_FILE"):
        monkeypatch.delenv(f"BOTARENA_{name}", raising=False)
    return tmp_path


def test_a_wrong_live_policy_or_organizer_key_is_one_line(
    elsewhere: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for extra, message in (
        (["--live-policy", "after-round"], "unknown live policy 'after-round' (expected one of after,"),
        (["--live-policy", "delayed", "--live-delay", "0"], "the live delay must be 1 to 100000 steps"),
        (["--live-delay", "5"], "--live-delay is for --live-policy delayed"),
    ):
        assert main(["serve", "--port", "0", *extra]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
    monkeypatch.setenv("BOTARENA_ORGANIZER_KEY", "short")
    assert main(["serve", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "an organizer key must be 16 to 256 printable ASCII characters" in err and err.count("\n") == 1
    monkeypatch.delenv("BOTARENA_ORGANIZER_KEY")
    key_file = elsewhere / "key"
    key_file.write_text(KEY)
    key_file.chmod(0o644)
    assert main(["serve", "--port", "0", "--organizer-key-file", str(key_file)]) == 2
    err = capsys.readouterr().err
    assert "has mode 0644: others may read it; chmod 600" in err and KEY not in err
    assert list(elsewhere.iterdir()) == [key_file]  # refused before the store was opened
