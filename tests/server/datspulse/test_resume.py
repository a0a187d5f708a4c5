"""A DatsPulse server killed mid-round resumes the round on restart (issue 16; spec §7.5 replays).

The real `botarena datspulse serve` is SIGKILLed twice during one round, at points chosen by the
round's journal (after step 1, then mid-round after the first resume), and restarted with the
same command each time; two real `botarena datspulse client` processes play the whole round through
the restarts (they retry while the server is down). The stored replay must verify as one game,
keep every step the journals held, and record both resumes. Everything waits on recorded steps or
process exits, with bounded waits only as timeouts.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from botarena.core.replay import Replay, ReplayError, read_replay
from botarena.runner.verify import verify_replay
from botarena.store import Store

TURNS = 30  # 6 s of play: the kill points (step 1, step 12) are far from the round's end
SECOND_KILL = 12
"""The second kill's step: after it, 18 turns (3.6 s of the clock, which a restart does not run)
are left for the kill to land in before the round could end, and for the clients to play in after."""
TEAMS = {"tok-alpha": "alpha", "tok-beta": "beta"}
WAIT_S = 120.0  # a timeout only: every wait below ends on an event
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

CONFIG = """
preset = "ci"
seed = 4242

[game]
min_teams = 2
turns = {turns}
turn_seconds = 0.2
lobby_seconds = 1
break_seconds = 1
rate_limit_per_second = 20

[[teams]]
name = "alpha"
token = "tok-alpha"

[[teams]]
name = "beta"
token = "tok-beta"
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Serve:
    """`botarena datspulse serve` on a fixed port (so the clients find it again after a restart)."""

    def __init__(self, tmp_path: Path) -> None:
        config = tmp_path / "server.toml"
        config.write_text(CONFIG.format(turns=TURNS))
        self.db = tmp_path / "dp.db"
        self.port = _free_port()
        self.api = f"http://127.0.0.1:{self.port}/api"
        self.command = [sys.executable, "-m", "botarena", "datspulse", "serve", "--config", str(config)]
        self.command += ["--port", str(self.port), "--db", f"sqlite:///{self.db}"]
        self.env = {**os.environ, "NO_PROXY": "127.0.0.1"}
        self.log = tmp_path / "server.log"
        self.process: subprocess.Popen[str] | None = None

    def start(self) -> None:
        with self.log.open("a") as err:
            self.process = subprocess.Popen(
                self.command, stdout=subprocess.PIPE, stderr=err, text=True, env=self.env
            )
        assert self.process.stdout is not None
        first = self.process.stdout.readline()  # printed once listening
        assert first.startswith("DatsPulse server:"), (first, self.log.read_text())

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=WAIT_S)
        assert self.process.returncode == -signal.SIGKILL
        if self.process.stdout is not None:
            self.process.stdout.close()

    def stop(self) -> None:
        """Ctrl-C, as an organiser would; the store's writes are done when it exits."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.communicate(timeout=WAIT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.communicate()

    def call(self, method: str, path: str, token: str | None = None) -> tuple[int, Any]:
        headers = {"X-Auth-Token": token} if token else {}
        request = urllib.request.Request(self.api + path, method=method, headers=headers)
        try:
            with _opener.open(request, timeout=30) as reply:
                return reply.status, json.loads(reply.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Serve]:
    server = Serve(tmp_path)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def clients() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=WAIT_S)


def _deadline_passed(deadline: float, what: str) -> None:
    if time.monotonic() > deadline:
        raise AssertionError(f"timed out waiting for {what}")


def _register_both(serve: Serve) -> str:
    """Register both teams in the same lobby (the next one if this one closes meanwhile): the realm.
    The clients need no lobby: a team registered in the round is answered 200 while it runs."""
    deadline = time.monotonic() + WAIT_S
    while True:
        answers = [serve.call("POST", "/register", token) for token in TEAMS]
        realms = {body.get("realm") for status, body in answers if status == 200}
        lobby = all(status == 200 and body["lobbyEndsIn"] > 0 for status, body in answers)
        if lobby and len(realms) == 1:
            return str(realms.pop())
        _deadline_passed(deadline, "a lobby both teams are registered in")
        time.sleep(0.05)


def _journal(tmp_path: Path, realm: str) -> Path:
    return tmp_path / "journals" / "antprotocol-test" / f"{realm}.json.gz"


def _wait_steps(path: Path, steps: int, resumes: int) -> None:
    """Wait until the round's journal holds `steps` steps and `resumes` resumes."""
    deadline = time.monotonic() + WAIT_S
    while True:
        with contextlib.suppress(ReplayError, OSError):
            partial = read_replay(path)
            if len(partial.steps) >= steps and len(partial.resumes) == resumes:
                return
        _deadline_passed(deadline, f"{steps} steps in {path}")
        time.sleep(0.02)


def _partial(path: Path) -> Replay:
    replay = read_replay(path)
    assert replay.partial
    return replay


def test_dp75_server_killed_twice_mid_round_resumes_and_the_replay_verifies_as_one_game(
    serve: Serve, clients: list[subprocess.Popen[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    serve.start()
    realm = _register_both(serve)
    for token in TEAMS:  # real clients: they register (already done: 200), play, retry while it is down
        command = [sys.executable, "-m", "botarena", "datspulse", "client", "--url", serve.api]
        command += ["--bot", "forager", "--rounds", "1", "--rate-limit", "20"]
        log = (tmp_path / f"client-{token}.log").open("w")
        env = {**serve.env, "BOTARENA_DATSPULSE_TOKEN": token}  # a token never goes on a command line
        clients.append(subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, text=True, env=env))
        log.close()
    journal = _journal(tmp_path, realm)

    # the first kill: once step 1 is recorded
    _wait_steps(journal, 1, resumes=0)
    serve.kill()
    first = _partial(journal)
    cut1 = len(first.steps)
    assert 1 <= cut1 < TURNS and first.resumes == []

    # restarted: the same round goes on from its journal; the second kill mid-round
    serve.start()
    _wait_steps(journal, max(SECOND_KILL, cut1 + 1), resumes=1)
    serve.kill()
    second = _partial(journal)
    cut2 = len(second.steps)
    assert cut1 < cut2 < TURNS
    assert second.steps[:cut1] == first.steps  # no recorded step changed
    assert [r["after_step"] for r in second.resumes] == [cut1]

    # restarted again: the round plays to its end and its complete replay is stored
    serve.start()
    for process in clients:  # each client plays its one round to the end, then exits
        assert process.wait(timeout=WAIT_S) == 0, (tmp_path / "server.log").read_text()
    deadline = time.monotonic() + WAIT_S
    while realm not in serve.call("GET", "/datspulse/series")[1]["recorded"]:
        _deadline_passed(deadline, f"{realm} to be recorded")
        time.sleep(0.05)
    serve.stop()
    assert not journal.exists()  # deleted once the complete replay is in the store

    store = Store.open(f"sqlite:///{serve.db}", replay_dir=tmp_path / "replays")
    try:
        tournament = store.find_tournament("antprotocol-test")
        assert tournament is not None
        match = store.find_match(tournament.id, realm)
        assert match is not None and match.status == "finished" and match.steps == TURNS
        assert sorted(match.seats) == ["alpha", "beta"]
        with gzip.open(store.replay_path(match.replay_hash or "")) as raw:
            assert b'"partial"' not in raw.read()
        replay = read_replay(store.replay_path(match.replay_hash or ""))
    finally:
        store.close()
    report = verify_replay(replay)
    assert report.identical and not report.partial, str(report)
    assert len(replay.steps) == TURNS and replay.result["details"]["turns"] == TURNS
    assert replay.steps[:cut2] == second.steps
    assert [(r["after_step"], r["replies"]) for r in replay.resumes] == [(cut1, []), (cut2, [])]
    assert all(r["created_by"].endswith("datspulse server") for r in replay.resumes)
    # the clients kept playing after the last restart: their orders are in the live steps
    moved = {
        seat
        for step in replay.steps[cut2:]
        for seat, reply in enumerate(step["replies"])
        if (reply.get("payload") or {}).get("moves")
    }
    assert moved == {0, 1}
