"""Preemptive time limits for in-process bots (DESIGN principle 4), on both mechanisms.

In the main thread the interval timer stops the bot; inside any other thread the watchdog does. Every
test asserts statuses and reasons, never how fast anything was.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from typing import Any

import pytest

from botarena.bots.inprocess import PythonBot
from botarena.bots.preempt import BotTimeout, call_with_timeout
from botarena.core.game import GameInfo
from botarena.core.replay import Replay
from botarena.runner import MatchRun, run_match

from .zoo import (
    BAD_TURN,
    BadEnd,
    Catcher,
    Looper,
    Raiser,
    ShortSleeper,
    Sleeper,
    SlowSetup,
    Swallower,
    in_thread,
)

TURNS = 3
LIMIT_MS = 50


def play(game: GameInfo, factory: Callable[[], Any], **overrides: Any) -> MatchRun:
    """One round of 3 turns, 50 ms per turn: the bad bot in seat 0, Pacifist in seat 1."""
    config = game.config(
        overrides={"rounds": 1, "turn_limit": TURNS, "turn_timeout_ms": LIMIT_MS, **overrides}
    )
    bots = [PythonBot(factory, "bad"), PythonBot(game.starter_bots["pacifist"], "pacifist")]
    return run_match(game, bots, config=config, seed=3)


def seat0_verdicts(replay: Replay) -> list[list[Any]]:
    return [step["verdicts"][0] for step in replay.steps]


def assert_bad_turn(run: MatchRun, status: str, reason: str) -> None:
    replay = run.replay
    assert len(replay.steps) == TURNS  # the match went on to the end
    verdicts = seat0_verdicts(replay)
    for turn, verdict in enumerate(verdicts, start=1):
        if turn == BAD_TURN:
            assert verdict[:2] == [status, reason]
        else:
            assert verdict == ["OK", None], f"turn {turn}: {verdict}"
    assert [step["verdicts"][1] for step in replay.steps] == [["OK", None]] * TURNS
    # GD-26: a failed turn is no action
    bad = replay.steps[BAD_TURN - 1]["record"]["players"][0]
    assert bad["applied"] is None and bad["requested"] is None
    assert replay.statuses[0] == {"OK": TURNS, status: 1}  # start, two turns, end
    assert run.result.ranks  # a result, whatever happened
    assert replay.end["verdicts"][0] == ["OK", None]


CASES = [
    pytest.param(Looper, "TIMEOUT", "deadline", id="loops-forever"),
    pytest.param(Catcher, "TIMEOUT", "deadline", id="catches-Exception"),
    pytest.param(Swallower, "TIMEOUT", "deadline", id="swallows-one-BotTimeout"),
    pytest.param(Raiser, "CRASHED", "bot_error", id="raises"),
]


@pytest.mark.parametrize(
    ("factory", "status", "reason"), [*CASES, pytest.param(Sleeper, "TIMEOUT", "deadline", id="sleeps")]
)
def test_main_thread_timer(drones: GameInfo, factory: Callable[[], Any], status: str, reason: str) -> None:
    assert threading.current_thread() is threading.main_thread()
    assert_bad_turn(play(drones, factory), status, reason)


@pytest.mark.parametrize(
    ("factory", "status", "reason"), [*CASES, pytest.param(ShortSleeper, "TIMEOUT", "deadline", id="sleeps")]
)
def test_watchdog_in_another_thread(
    drones: GameInfo, factory: Callable[[], Any], status: str, reason: str
) -> None:
    run = in_thread(lambda: play(drones, factory))
    assert_bad_turn(run, status, reason)


def test_raising_bot_is_asked_again_and_its_error_is_recorded(drones: GameInfo) -> None:
    run = play(drones, Raiser)
    verdict = run.replay.steps[BAD_TURN - 1]["verdicts"][0]
    assert verdict[3] == [{"code": "EXCEPTION", "detail": "RuntimeError: boom on turn 2"}]
    log = run.replay.logs[0]
    assert "Traceback" in log["text"] and "boom on turn 2" in log["text"]
    assert run.replay.logs[1]["text"] == ""


def test_setup_timeout(drones: GameInfo) -> None:
    run = play(drones, SlowSetup, setup_timeout_ms=50)
    assert run.replay.start["verdicts"][0][:2] == ["TIMEOUT", "deadline"]
    assert seat0_verdicts(run.replay) == [["OK", None]] * TURNS  # still asked every turn


def test_end_crash_changes_nothing(drones: GameInfo) -> None:
    run = play(drones, BadEnd)
    assert run.replay.end["verdicts"][0][:2] == ["CRASHED", "bot_error"]
    assert run.result.details["outcome"] in {"PLAYER 1", "PLAYER 2", "DRAW"}


def test_bot_timeout_is_not_an_exception() -> None:
    assert issubclass(BotTimeout, BaseException) and not issubclass(BotTimeout, Exception)


def spin(arg: Any) -> Any:
    while True:
        pass


@pytest.mark.parametrize("where", ["main", "thread"])
def test_call_with_timeout(where: str) -> None:
    def check() -> None:
        assert call_with_timeout(lambda x: x + 1, 41, 1.0) == 42
        with pytest.raises(BotTimeout):
            call_with_timeout(spin, None, 0.02)
        with pytest.raises(ZeroDivisionError):
            call_with_timeout(lambda x: 1 // x, 0, 1.0)
        # a later call is unaffected by the earlier timeout
        assert call_with_timeout(lambda x: x * 2, 4, 1.0) == 8

    if where == "main":
        check()
    else:
        in_thread(check)


def test_someone_elses_alarm_handler_is_replaced() -> None:
    """Another SIGALRM user (pytest-timeout's signal method) must not break preemption."""
    calls: list[int] = []
    previous = signal.signal(signal.SIGALRM, lambda *a: calls.append(1))
    try:
        with pytest.raises(BotTimeout):
            call_with_timeout(spin, None, 0.02)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert calls == []


def test_no_timer_is_left_armed_after_a_match(drones: GameInfo) -> None:
    play(drones, Looper)
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_concurrent_matches_on_both_mechanisms(drones: GameInfo) -> None:
    """Three worker threads (watchdog) and the main thread (timer) stop their own bots, each in its
    own match, at the same time."""
    runs: dict[str, MatchRun] = {}
    errors: list[BaseException] = []

    def worker(name: str, factory: Callable[[], Any]) -> None:
        try:
            runs[name] = play(drones, factory)
        except BaseException as exc:
            errors.append(exc)

    threads = [
        threading.Thread(target=worker, args=(f"t{i}", factory))
        for i, factory in enumerate([Looper, Catcher, Raiser])
    ]
    for thread in threads:
        thread.start()
    main_run = play(drones, Catcher)
    for thread in threads:
        thread.join(30)
    assert not errors and not any(t.is_alive() for t in threads)
    assert_bad_turn(main_run, "TIMEOUT", "deadline")
    assert_bad_turn(runs["t0"], "TIMEOUT", "deadline")
    assert_bad_turn(runs["t1"], "TIMEOUT", "deadline")
    assert_bad_turn(runs["t2"], "CRASHED", "bot_error")
