"""Validation of a new version (specs/arena.md, Validation): judged on the version's own seats only, in
both seats, against bots of every transport (in-process, subprocess, HTTP). The matches are real drones
matches played by the runner; the judge reads their replays."""

from __future__ import annotations

import http.server
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from botarena.arena.validation import (
    LOG_HEAD_BYTES,
    LOG_TAIL_BYTES,
    ValidationGame,
    cut_log,
    judge,
    own_log,
    timeout_allowance,
)
from botarena.arena.vocabulary import ValidationRejection
from botarena.bots.base import Bot
from botarena.bots.inprocess import PythonBot
from botarena.bots.resolve import resolve_bot
from botarena.core.registry import get_game
from botarena.core.replay import Replay
from botarena.runner import run_match

GAME = get_game("drones")
CONFIG = GAME.config(overrides={"rounds": 1, "turn_timeout_ms": 1000})
STARTER = GAME.starter_bots["adaptive"]


class Raises:
    def act(self, observation: Any) -> Any:
        raise ValueError("validation canary: no idea")


class StallsOnTurns:
    """Plays like the starter, but never answers the turns it is told to stall on (the runner's
    preemptive timer ends the wait: the bot does not decide how long a turn takes)."""

    def __init__(self, stall: set[int]) -> None:
        self.stall = stall
        self.inner = STARTER()
        self.turn = 0

    def act(self, observation: Any) -> Any:
        self.turn += 1
        if self.turn in self.stall:
            time.sleep(600)
        return self.inner.act(observation)


class Chatty:
    """A starter that writes a canary line to its log on every turn."""

    def __init__(self, canary: str) -> None:
        self.canary = canary
        self.inner = STARTER()

    def act(self, observation: Any) -> Any:
        print(self.canary, file=sys.stderr)
        return self.inner.act(observation)


CRASH_AT_START = "import sys\nsys.stdin.readline()\nraise RuntimeError('gave up before the start')\n"
GARBAGE = "import sys\nfor line in sys.stdin:\n    print('not json', flush=True)\n"


def games_with(version: Bot | None, opponent: Bot | None = None) -> list[ValidationGame]:
    """The version's two validation games (one per seat order) against `opponent` (a starter)."""
    played = []
    for seat in (0, 1):
        other = opponent or PythonBot(STARTER, name="starter")
        bots = [version, other] if seat == 0 else [other, version]
        played.append(ValidationGame(run_match(GAME, bots, config=CONFIG, seed=7 + seat).replay, (seat,)))
    return played


def one_game(version: Bot, seat: int) -> list[ValidationGame]:
    other = PythonBot(STARTER, name="starter")
    bots = [version, other] if seat == 0 else [other, version]
    return [ValidationGame(run_match(GAME, bots, config=CONFIG, seed=11).replay, (seat,))]


def script(tmp_path: Path, name: str, text: str) -> Bot:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return resolve_bot(f"cmd:{sys.executable} {path}", GAME)


class _Garbage(http.server.BaseHTTPRequestHandler):
    """An HTTP bot that answers every request with a body that is not JSON."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = b"<html>not a reply</html>"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def garbage_url() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Garbage)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def test_validation_a_version_that_plays_cleanly_passes() -> None:
    verdict = judge(games_with(PythonBot(STARTER, name="version")))
    assert verdict.passed and verdict.code is None


@pytest.mark.parametrize("seat", [0, 1])
def test_validation_an_in_process_crash_is_crashed_in_either_seat(seat: int) -> None:
    verdict = judge(one_game(PythonBot(Raises, name="version"), seat))
    assert not verdict.passed and verdict.code == ValidationRejection.CRASHED
    assert "at step 1 of game 1" in verdict.first_error
    assert "ValueError: validation canary: no idea" in verdict.first_error
    assert "validation canary" in verdict.log  # the team's own traceback


@pytest.mark.parametrize("seat", [0, 1])
def test_validation_a_subprocess_that_dies_at_start_is_crashed_at_start(seat: int, tmp_path: Path) -> None:
    verdict = judge(one_game(script(tmp_path, "crash.py", CRASH_AT_START), seat))
    assert verdict.code == ValidationRejection.CRASHED_AT_START
    assert verdict.first_error.startswith("CRASHED (process_exited) at start of game 1")
    assert "gave up before the start" in verdict.log


@pytest.mark.parametrize("seat", [0, 1])
def test_validation_garbage_from_a_subprocess_is_an_invalid_reply(seat: int, tmp_path: Path) -> None:
    verdict = judge(one_game(script(tmp_path, "garbage.py", GARBAGE), seat))
    assert verdict.code == ValidationRejection.INVALID_REPLY
    assert verdict.first_error.startswith("INVALID (bad_json) at start of game 1")


@pytest.mark.parametrize("seat", [0, 1])
def test_validation_garbage_from_an_http_bot_is_an_invalid_reply(seat: int, garbage_url: str) -> None:
    verdict = judge(one_game(resolve_bot(garbage_url, GAME), seat))
    assert verdict.code == ValidationRejection.INVALID_REPLY and "of game 1" in verdict.first_error


@pytest.mark.parametrize("seat", [0, 1])
def test_validation_an_opponents_failures_are_never_the_versions(seat: int, tmp_path: Path) -> None:
    """kaggle-environments #1041: only the version's own seats count; a crashing, garbage-speaking or
    HTTP-failing opponent does not reject it."""
    version = PythonBot(STARTER, name="version")
    opponent = script(tmp_path, "crash.py", CRASH_AT_START)
    bots = [version, opponent] if seat == 0 else [opponent, version]
    replay = run_match(GAME, bots, config=CONFIG, seed=5).replay
    assert any(str(v[0]) == "CRASHED" for v in replay.start["verdicts"])  # the opponent did crash
    assert judge([ValidationGame(replay, (seat,))]).passed


@pytest.mark.parametrize("seat", [0, 1])
def test_validation_one_timeout_is_allowed_two_are_not(seat: int) -> None:
    once = judge(one_game(PythonBot(lambda: StallsOnTurns({2}), name="version"), seat))
    assert once.passed, once.first_error
    twice = judge(one_game(PythonBot(lambda: StallsOnTurns({2, 3}), name="version"), seat))
    assert twice.code == ValidationRejection.TIMEOUT
    assert twice.first_error.startswith("TIMEOUT on 2 of ")
    assert "(allowed 1), the first at step 2 of game 1" in twice.first_error


def test_validation_timeout_allowance_is_max_one_or_the_fraction() -> None:
    assert [timeout_allowance(turns, 0.01) for turns in (0, 10, 199, 200, 1000)] == [1, 1, 1, 2, 10]


def test_validation_a_setup_error_and_an_unreachable_url_have_their_codes() -> None:
    setup = judge([ValidationGame(None, (0,), setup_error="bot.cpp:3: error: expected ';'\n  more")])
    assert (setup.code, setup.first_error) == (
        ValidationRejection.SETUP,
        "bot.cpp:3: error: expected ';' more",
    )
    unreachable = judge(
        [ValidationGame(None, (0,), setup_error="connect to 10.0.0.9:80 failed", unreachable=True)]
    )
    assert unreachable.code == ValidationRejection.UNREACHABLE


def test_validation_a_game_not_played_or_not_finished_is_not_a_pass() -> None:
    assert judge([ValidationGame(None, (0,))]).code == ValidationRejection.SETUP
    replay = games_with(PythonBot(STARTER, name="version"))[0].replay
    assert replay is not None
    unfinished = Replay.from_json({**replay.to_json(), "end": None, "result": {}})
    verdict = judge([ValidationGame(unfinished, (0,))])
    assert verdict.code == ValidationRejection.CRASHED and verdict.first_error == "game 1 did not finish"


def test_validation_a_rerun_that_differs_is_verify_mismatch() -> None:
    verdict = judge(games_with(PythonBot(STARTER, name="version")), verify_mismatch="step 3: verdict differs")
    assert verdict.code == ValidationRejection.VERIFY_MISMATCH
    assert verdict.first_error == "re-run differs: step 3: verdict differs"


def test_validation_the_log_is_the_versions_own_never_the_opponents() -> None:
    """What the team sees of a rejection holds its own log: a canary the opponent logs is not in it."""
    version = PythonBot(Raises, name="version")
    opponent = PythonBot(lambda: Chatty("OPPONENT-CANARY-7f3"), name="starter")
    verdict = judge(games_with(version, opponent)[:1])
    assert verdict.code == ValidationRejection.CRASHED
    assert "validation canary" in verdict.log and "OPPONENT-CANARY-7f3" not in verdict.log
    replay = run_match(GAME, [opponent, PythonBot(STARTER, name="v")], config=CONFIG, seed=3).replay
    assert "OPPONENT-CANARY-7f3" in own_log(replay, (0,)) and own_log(replay, (1,)) == ""


def test_validation_a_long_log_keeps_its_head_and_tail() -> None:
    text = "H" * LOG_HEAD_BYTES + "M" * 100_000 + "T" * LOG_TAIL_BYTES
    cut = cut_log(text)
    assert cut.startswith("H" * LOG_HEAD_BYTES + "\n[... 100000 bytes left out ...]\n")
    assert cut.endswith("T" * LOG_TAIL_BYTES) and "M" not in cut
    assert cut_log("short") == "short"


def test_validation_needs_a_game() -> None:
    with pytest.raises(ValueError, match="at least one game"):
        judge([])
