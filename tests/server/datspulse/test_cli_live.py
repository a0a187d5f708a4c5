"""`botarena datspulse serve` as a user runs it (a subprocess: the URLs it prints, Ctrl-C exits 0 with
the round recorded) with the example config file, and live watching: a running round is published
to the live hub (header, steps, end; in the `open` spectator mode) and streamed by the same server's
SSE route (test_spectators.py has the other modes)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from botarena.server.datspulse.settings import load_settings
from botarena.store import Store
from waiting import wait_until

from .conftest import DpServer, make_settings

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "datspulse" / "server.toml"
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def test_example_config_file_parses() -> None:
    settings = load_settings(EXAMPLE)
    assert settings.preset == "compat" and settings.config.turn_seconds == 2.0
    assert len(settings.teams) == 3 and "Vyatich Enjoyers" in settings.teams.values()


def test_cli_serve_prints_urls_plays_and_exits_0_on_ctrl_c(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    command = [sys.executable, "-m", "botarena", "datspulse", "serve", "--config", str(EXAMPLE)]
    command += ["--preset", "ci", "--port", "0", "--db", f"sqlite:///{db}"]
    env = {**os.environ, "NO_PROXY": "127.0.0.1"}
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline() for _ in range(3)]
        assert lines[0].startswith("DatsPulse server: 3 teams, preset ci"), lines
        api = lines[1].split()[-1]
        viewer = lines[2].split()[-1]
        assert api.startswith("http://127.0.0.1:") and api.endswith("/api")
        assert viewer.endswith("/arena.html")
        with _opener.open(viewer, timeout=10) as page:
            assert page.status == 200 and b"<html" in page.read().lower()
        request = urllib.request.Request(
            api + "/register", method="POST", headers={"X-Auth-Token": "replace-me-token-0001"}
        )
        with _opener.open(request, timeout=10) as reply:
            registration = json.loads(reply.read())
        assert registration["name"] == "Vyatich Enjoyers" and registration["realm"] == "antprotocol-test-1"

        def a_few_turns_in() -> dict[str, Any] | None:
            with _opener.open(api + "/datspulse/series", timeout=10) as reply:
                status = json.loads(reply.read())
            return status if status["current"] and status["current"]["turnNo"] >= 3 else None

        status = wait_until(a_few_turns_in, "the round running 3 turns")
        assert status["current"]["turnNo"] >= 3
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert "DatsPulse server stopped" in out
    store = Store.open(f"sqlite:///{db}", replay_dir=tmp_path / "replays")
    try:
        tournament = store.find_tournament("antprotocol-test")
        assert tournament is not None
        (match,) = store.list_matches(tournament.id)
        # the round under way when the server stopped is recorded as such, nothing is lost
        assert match.status == "failed" and "server stopped" in (match.error or "")
        assert match.seats == ["Vyatich Enjoyers"]
    finally:
        store.close()


def test_live_round_is_published_and_streamed(
    start_dp: Callable[..., DpServer], store: Store, sse: Any
) -> None:
    settings = make_settings(  # open: the organiser's explicit choice (the default is after-round)
        lobby_seconds=0.5,
        turns=6,
        turn_seconds=0.1,
        break_seconds=30.0,
        rate_limit_per_second=100,
        spectators={"mode": "open"},
    )
    server = start_dp(settings, store, register=("alpha",))
    # The round lasts 0.6 s: on a loaded machine it may be over (the 30 s break) before a poll sees
    # it running; the hub lists a finished live match and streams it whole all the same.
    server.wait_phase("running", "break")

    def listed() -> list[dict[str, Any]]:  # the recorder thread publishes the round's header
        with _opener.open(server.api + "/live", timeout=10) as reply:
            return [m for m in json.loads(reply.read()) if m["key"] == "datspulse/antprotocol-test-1"]

    (entry,) = wait_until(listed, "the round's live match listed in /api/live")
    assert entry["game"] == "datspulse" and entry["players"] == ["alpha"]
    stream = sse(server.url, entry["events_url"])
    assert stream.status == 200
    events = stream.read_all()  # header, steps..., end, then the stream closes
    kinds = [e.event for e in events if e.event != "comment"]
    assert kinds[0] == "header" and kinds[-1] == "end" and "steps" in kinds
    header = json.loads(events[[e.event for e in events].index("header")].data)
    assert header["replay"]["game"] == "datspulse" and header["replay"]["players"][0]["name"] == "alpha"
    steps = [s for e in events if e.event == "steps" for s in json.loads(e.data)["steps"]]
    assert [s["record"]["turnNo"] for s in steps] == list(range(1, 7))
    end = json.loads(events[-1].data)
    assert end["fields"]["result"]["details"]["turns"] == 6
    assert end["match_id"] is not None and end["replay_url"] == f"/api/matches/{end['match_id']}/replay"
