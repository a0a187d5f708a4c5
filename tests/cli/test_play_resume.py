"""Issue 16: a real `botarena play devops --replay FILE` SIGKILLed mid-game, twice, and resumed with
`play --resume FILE` each time: an HTTP faction service (which keeps running and keeps its state),
a subprocess bot and an in-process starter. The kills are synchronised on recorded steps: the HTTP
service holds its answers from a chosen turn on (every call then times out, DV-16), the test waits
until the journal on disk shows a flushed keyframe past the kill point, then kills. Each partial replay
must keep every step the previous one had; the finished replay must verify as one whole game."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_in_process import botarena_in_process

from botarena.core.replay import Replay, ReplayError, read_replay
from botarena.games.devops.bots import LOGICS
from botarena.runner.verify import verify_replay

aiohttp_web = pytest.importorskip("aiohttp.web")

FACTION = """from botarena.games.devops import GAME

create_bot = GAME.starter_bots["expander"]
"""
WAIT_S = 120.0  # a bound on every wait, never a synchronisation


class GatedService:
    """A Devops faction service (spec 7.1) on its own thread that answers with the starter logic and,
    while its gate is closed, holds every call from turn `gate_turn` on until the gate opens."""

    def __init__(self) -> None:
        self.logic = LOGICS["starter"]()
        self.gate_turn = 10**9
        self.loop = asyncio.new_event_loop()
        self.opened = asyncio.Event()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.runner, self.port = asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(30)

    async def _handle(self, request: Any) -> Any:
        body = await request.json()
        if body["context"]["turnNumber"] >= self.gate_turn:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.opened.wait(), WAIT_S)
        kind = request.match_info["kind"]
        move = self.logic.next_base_move(body) if kind == "base" else self.logic.next_unit_move(body)
        return aiohttp_web.json_response(move)

    async def _start(self) -> tuple[Any, int]:
        app = aiohttp_web.Application()
        app.router.add_post("/moves/{kind}", self._handle)
        runner = aiohttp_web.AppRunner(app, shutdown_timeout=0.5)
        await runner.setup()
        site = aiohttp_web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        return runner, site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    def close_gate(self, turn: int) -> None:
        def close() -> None:
            self.gate_turn = turn
            self.opened.clear()

        self.loop.call_soon_threadsafe(close)

    def open_gate(self) -> None:
        self.loop.call_soon_threadsafe(self.opened.set)

    def stop(self) -> None:
        self.open_gate()
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@pytest.fixture
def service() -> Iterator[GatedService]:
    made = GatedService()
    yield made
    made.stop()


def start_play(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "botarena", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_steps(file: Path, steps: int, proc: subprocess.Popen[str]) -> None:
    """Poll the journal until it holds `steps` recorded steps (bounded; fails if play ends first)."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"play ended before step {steps}: {proc.communicate()}"
        try:
            if len(read_replay(file).steps) >= steps:
                return
        except ReplayError:
            pass  # not written yet
        time.sleep(0.05)  # a poll interval
    pytest.fail(f"the journal never reached step {steps}")


def kill(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL


def test_dv_a_killed_devops_game_resumes_twice_and_verifies_as_one_game(
    tmp_path: Path, service: GatedService
) -> None:
    faction = tmp_path / "faction.py"
    faction.write_text(FACTION)
    replay = tmp_path / "game.json.gz"
    seats = [f"http://127.0.0.1:{service.port}", f"cmd:{sys.executable} -m botarena.kit {faction}", "starter"]
    args = ["play", "devops", *seats, "--seed", "7", "--set", "turn_limit=110", "--replay", str(replay)]
    partials: list[Replay] = []
    # the keyframes come every 25 steps (devops GAME.keyframe_every): each is flushed at once
    for gate_turn, flushed in ((40, 25), (80, 75)):
        service.close_gate(gate_turn)
        proc = start_play(args, tmp_path)
        wait_for_steps(replay, flushed, proc)
        kill(proc)
        service.open_gate()
        partial = read_replay(replay)
        assert partial.partial and flushed <= len(partial.steps) < 110
        assert verify_replay(partial).identical
        if partials:  # nothing the previous run recorded changed
            assert partial.steps[: len(partials[-1].steps)] == partials[-1].steps
        partials.append(partial)
        args = ["play", "--resume", str(replay)]

    # the last resume runs to the end and is not killed: in this process, no process start to pay
    done = botarena_in_process(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"replay written to {replay}" in done.stdout
    final = read_replay(replay)
    assert not final.partial and len(final.steps) == 110 and final.result["ranks"]
    report = verify_replay(final)
    assert report.identical and report.steps_checked == 110, report
    assert final.steps[: len(partials[-1].steps)] == partials[-1].steps
    assert [entry["after_step"] for entry in final.resumes] == [len(p.steps) for p in partials]
    # every seat played on after each resume: the restarted bots answered their start request
    for entry in final.resumes:
        assert [reply["status"] for reply in entry["replies"]] == ["OK", "OK", "OK"], entry
    statuses = [sum(tally.values()) for tally in final.statuses]
    asked = [0, 0, 0]
    for exchange in (final.start, *final.steps):
        for reply in exchange["replies"]:
            asked[reply["seat"]] += 1
    assert statuses == asked  # the tallies cover the re-run steps and the live ones
    cli = botarena_in_process("replay", str(replay), "--verify")
    assert cli.returncode == 0 and cli.stdout.startswith("identical: 110 steps"), cli.stdout


def test_a_changed_bot_file_is_refused_in_one_line_and_the_journal_kept(
    tmp_path: Path, service: GatedService
) -> None:
    faction = tmp_path / "faction.py"
    faction.write_text(FACTION)
    replay = tmp_path / "game.json.gz"
    seats = [f"http://127.0.0.1:{service.port}", str(faction)]
    service.close_gate(30)
    proc = start_play(["play", "devops", *seats, "--seed", "3", "--replay", str(replay)], tmp_path)
    wait_for_steps(replay, 25, proc)
    kill(proc)
    service.open_gate()
    before = replay.read_bytes()
    faction.write_text(FACTION + "# edited\n")
    refused = botarena_in_process(
        "play", "--resume", str(replay), cwd=tmp_path, env={**os.environ, "COLUMNS": "200"}
    )
    assert refused.returncode == 2
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and f"seat 1's bot file {faction} changed since the game started" in lines[0]
    assert replay.read_bytes() == before  # nothing recorded is lost
    summary = botarena_in_process("replay", str(replay))
    assert "partial replay: the game did not finish" in summary.stdout
    assert f"botarena play --resume {replay}" in summary.stdout
