"""Issue 26, item 1: `botarena play --replay FILE` never ends in an internal error for what a bot does,
and FILE is always a finished replay (never a journal left to resume), in either seat.

Devops gets the whole zoo: a refused HTTP service (the issue's reproduction), subprocess bots that
exit before `start`, at their first turn, at `end` or after three turns, or hang past every limit,
and in-process Python bots that raise in `setup`, in every `act` or in `end`, or overrun every call.
Every other game gets a subprocess bot that crashes at its first turn.

The failure report itself (which seat, which reason) is checked by the per-seat report's tests
(tests/runner/test_failures.py).
"""

from __future__ import annotations

import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from botarena.cli import main
from botarena.core.replay import Replay, read_replay
from botarena.runner.verify import verify_replay

PROCESS_BOT = r"""
import json, sys, time
mode = sys.argv[1]
if mode == "start":
    sys.exit(3)  # before reading anything
turns = 0
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "turn":
        turns += 1
        if mode == "step":
            sys.exit(4)
        if mode == "exit" and turns == 3:
            sys.exit(0)
        if mode == "hang":
            time.sleep(3600)  # past every limit: the runner kills it at the end
    if msg["type"] == "end" and mode == "end":
        sys.exit(5)
    print(json.dumps({"id": msg["id"], "payload": {}}), flush=True)
"""

PYTHON_BOT = """
import time

MODE = {mode!r}


class Bot:
    def setup(self, payload):
        if MODE == "raise_setup":
            raise RuntimeError("setup fails")
        return {{}}

    def act(self, payload):
        if MODE == "raise_act":
            raise RuntimeError("act fails")
        if MODE == "hang_act":
            time.sleep(30)  # preempted at the call's limit
        return {{"type": "RECEIVE_INCOME"}} if payload.get("call") == "base" else {{"type": "IDLE"}}

    def end(self, payload):
        if MODE == "raise_end":
            raise RuntimeError("end fails")
        return {{}}
"""

DEVOPS = ["--preset", "smoke", "--set", "turn_limit=5", "--set", "turn_timeout_ms=50"]
OTHER_GAMES = {
    "drones": ("pacifist", ["--set", "rounds=1"]),
    "domains": ("dummy", ["--set", "number_of_rounds=3"]),
    "datspulse": ("forager", ["--set", "turns=3"]),
    "craftingquest": ("prospector", ["--set", "rounds=1"]),
    "rps": ("rock", []),
}


@dataclass
class Played:
    code: int
    err: str
    replay: Replay
    seat: int


def play(game: str, bot: str, other: str, seat: int, extra: list[str], tmp_path: Path, capsys: Any) -> Played:
    """`botarena play GAME` with `bot` in `seat` and `other` in the other seat, `--replay` to a file."""
    file = tmp_path / f"{game}-{seat}.json.gz"
    bots = [other, bot] if seat else [bot, other]
    code = main(["play", game, *bots, "--seed", "3", *extra, "--replay", str(file)])
    err = capsys.readouterr().err
    return Played(code, err, read_replay(file), seat)


def assert_finished(played: Played, game: str) -> None:
    """The replay on disk is a whole game that re-runs, and `play` said nothing of an internal error."""
    replay = played.replay
    assert not replay.partial, played.err
    assert replay.result and replay.end, played.err
    assert verify_replay(replay).identical
    assert "go on with: botarena play --resume" not in played.err
    assert played.code in (0, 1), played.err
    assert "internal error" not in played.err, played.err


def process_bot(tmp_path: Path, mode: str) -> str:
    script = tmp_path / "misbehave.py"
    script.write_text(PROCESS_BOT)
    return f"cmd:{sys.executable} {script} {mode}"


def python_bot(tmp_path: Path, mode: str) -> str:
    script = tmp_path / f"{mode}.py"
    script.write_text(PYTHON_BOT.format(mode=mode))
    return str(script)


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def non_ok(replay: Replay, seat: int) -> set[str]:
    return {status for status in replay.statuses[seat] if status != "OK"}


@pytest.mark.parametrize("seat", [0, 1])
def test_i26_1_a_refused_devops_service_is_a_finished_game(tmp_path: Path, capsys: Any, seat: int) -> None:
    """The issue's reproduction: `play devops http://127.0.0.1:<closed> starter --replay FILE`."""
    url = f"http://127.0.0.1:{closed_port()}"
    played = play("devops", url, "starter", seat, ["--set", "turn_limit=20"], tmp_path, capsys)
    replay = played.replay
    assert len(replay.steps) == 20
    assert non_ok(replay, seat) == {"CRASHED"}
    assert set(replay.statuses[1 - seat]) == {"OK"}
    assert_finished(played, "devops")


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("mode", ["start", "step", "end", "exit", "hang"])
def test_i26_1_a_misbehaving_devops_process_is_a_finished_game(
    tmp_path: Path, capsys: Any, mode: str, seat: int
) -> None:
    played = play("devops", process_bot(tmp_path, mode), "starter", seat, DEVOPS, tmp_path, capsys)
    replay = played.replay
    assert len(replay.steps) == 5
    assert non_ok(replay, seat), replay.statuses  # (`end` mode: its empty moves are INVALID)
    assert set(replay.statuses[1 - seat]) == {"OK"}
    assert_finished(played, "devops")


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("mode", ["raise_setup", "raise_act", "raise_end", "hang_act"])
def test_i26_1_a_misbehaving_devops_python_bot_is_a_finished_game(
    tmp_path: Path, capsys: Any, mode: str, seat: int
) -> None:
    played = play("devops", python_bot(tmp_path, mode), "starter", seat, DEVOPS, tmp_path, capsys)
    replay = played.replay
    assert len(replay.steps) == 5
    if mode == "raise_end":
        assert set(replay.statuses[seat]) == {"OK"}  # it played every call; its `end` crashed
        end = zip(replay.end["verdicts"], replay.end["replies"], strict=True)
        assert [verdict[0] for verdict, reply in end if reply["seat"] == seat] == ["CRASHED"]
    else:
        assert non_ok(replay, seat) == {"TIMEOUT" if mode == "hang_act" else "CRASHED"}
    assert set(replay.statuses[1 - seat]) == {"OK"}
    assert_finished(played, "devops")


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("game", sorted(OTHER_GAMES))
def test_i26_1_a_crashing_process_bot_is_a_finished_game_in_every_game(
    tmp_path: Path, capsys: Any, game: str, seat: int
) -> None:
    other, extra = OTHER_GAMES[game]
    played = play(game, process_bot(tmp_path, "step"), other, seat, extra, tmp_path, capsys)
    replay = played.replay
    assert replay.steps
    assert non_ok(replay, seat) == {"CRASHED"}
    assert set(replay.statuses[1 - seat]) == {"OK"}
    assert "botarena: seat " in played.err  # named (which seat: the per-seat report's own tests)
    assert_finished(played, game)
