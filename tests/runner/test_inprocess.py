"""In-process bots: what they may return, what becomes of their errors, and their logs."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from botarena.bots.base import Bot
from botarena.bots.inprocess import LOG_CAP_BYTES, PythonBot
from botarena.bots.subprocess import SubprocessBot
from botarena.core.game import GameInfo
from botarena.core.protocol import MessageType, Request
from botarena.core.status import Reason, Status
from botarena.runner import MatchRun, run_match

from .zoo import BAD_TURN, build


def play(game: GameInfo, factory: Any, turns: int = 3) -> MatchRun:
    config = game.config(overrides={"rounds": 1, "turn_limit": turns})
    return run_match(
        game, [PythonBot(factory, "subject"), PythonBot(game.starter_bots["pacifist"])], config=config, seed=2
    )


class Reuser:
    """Returns the same dict every turn and changes it afterwards."""

    def __init__(self) -> None:
        self.action: dict[str, Any] = {"newProducers": 0, "newSoldiers": 0, "launchAttack": False}

    def act(self, obs: dict[str, Any]) -> dict[str, Any]:
        self.action["newProducers"] = obs["producers"]
        self.action["newSoldiers"] = obs["turn"]  # over capacity: clamped, so the record shows it
        return self.action


def test_a_reused_reply_object_cannot_rewrite_the_replay(drones: GameInfo) -> None:
    replay = play(drones, Reuser, turns=4).replay
    requested = [step["replies"][0]["payload"]["newSoldiers"] for step in replay.steps]
    assert requested == [1, 2, 3, 4]
    assert [step["record"]["players"][0]["requested"]["newSoldiers"] for step in replay.steps] == requested


@pytest.mark.parametrize(
    "value",
    [{1, 2}, {"newSoldiers": {1}}, object()],
    ids=["set", "nested-set", "object"],
)
def test_a_reply_that_is_not_json_is_invalid(drones: GameInfo, value: Any) -> None:
    run = play(drones, lambda: lambda obs: value)
    for step in run.replay.steps:
        assert step["verdicts"][0][:2] == ["INVALID", "bad_json"]
        assert step["replies"][0]["payload"] is None
        assert step["replies"][0]["warnings"][0]["code"] == "NOT_JSON"
    run.replay.dumps()  # and the replay is still writable


def test_what_only_the_standard_json_writer_takes_reads_as_a_wire_reply(drones: GameInfo) -> None:
    # A Python bot speaking the protocol would write these with `json`; the subprocess transport reads
    # the line with orjson: an int key becomes a string, an integer beyond 64 bits a float.
    run = play(drones, lambda: lambda obs: {3: 1, "newSoldiers": 2**70})
    for step in run.replay.steps:
        assert step["replies"][0]["payload"] == {"3": 1, "newSoldiers": float(2**70)}
        assert step["verdicts"][0][0] == "OK"  # 5.2: an integral number, clamped to capacity
    run.replay.dumps()  # and the replay is still writable


def test_json_like_values_are_taken_as_the_wire_would(drones: GameInfo) -> None:
    def act(obs: dict[str, Any]) -> Any:
        return {"newProducers": np.int64(obs["producers"]), "newSoldiers": 0, "launchAttack": np.bool_(False)}

    run = play(drones, lambda: act)
    for step in run.replay.steps:
        assert step["verdicts"][0] == ["OK", None]
        payload = step["replies"][0]["payload"]
        assert type(payload["newProducers"]) is int and payload["launchAttack"] is False


def test_a_plain_function_is_act_and_setup_end_default(drones: GameInfo) -> None:
    run = play(drones, lambda: build)
    assert run.replay.start["replies"][0]["payload"] == {}
    assert run.replay.end["replies"][0]["payload"] == {}
    assert all(step["verdicts"][0] == ["OK", None] for step in run.replay.steps)
    assert run.replay.players[0] == {"seat": 0, "name": "subject", "kind": "python"}


def test_a_failing_factory_crashes_every_exchange(drones: GameInfo) -> None:
    def factory() -> Any:
        raise ImportError("no such module: brains")

    run = play(drones, factory)
    assert run.replay.start["verdicts"][0][:2] == ["CRASHED", "bot_error"]
    assert [step["verdicts"][0][:2] for step in run.replay.steps] == [["CRASHED", "bot_error"]] * 3
    assert "no such module: brains" in run.replay.logs[0]["text"]


def test_logs_are_capped(drones: GameInfo) -> None:
    def act(obs: dict[str, Any]) -> Any:
        raise ValueError("x" * 10_000)

    config = drones.config(overrides={"rounds": 4, "turn_limit": 10})
    run = run_match(drones, [PythonBot(lambda: act), PythonBot(lambda: act)], config=config, seed=1)
    log = run.replay.logs[0]
    assert len(log["text"]) <= LOG_CAP_BYTES
    assert log["dropped_bytes"] > 0
    # the warning's detail is capped too
    assert len(run.replay.steps[0]["verdicts"][0][3][0]["detail"]) <= 500


def test_ask_without_a_match_handler() -> None:
    bot = PythonBot(lambda: None, "nothing")
    bot.open("m", 0)
    reply = bot.ask(Request(0, {}, 100, MessageType.TURN), 0.1)
    assert reply.status is Status.CRASHED and reply.reason == "bot_error"


def test_send_and_receive_equal_ask() -> None:
    bot = PythonBot(lambda: lambda obs: {"echo": obs}, "echo")
    bot.open("m", 1)
    bot.send(Request(1, {"x": [1, 2]}, 100), 7, 0.1)
    reply = bot.receive()
    assert reply.status is Status.OK and reply.payload == {"echo": {"x": [1, 2]}} and reply.seat == 1
    assert reply.time_ms >= 0.0


# -- a bot that exits or raises a BaseException (issue 12, item 3) ---------------------------------------

ZOO_KIT_BOT = Path(__file__).parents[1] / "bots" / "zoo" / "kit_bot.py"


class Fatal(BaseException):
    """Not an Exception: `except Exception` in a runner would let it through."""


def _attack(kind: str) -> None:
    if kind == "sys.exit":
        sys.exit()
    if kind == "SystemExit(3)":
        raise SystemExit(3)
    if kind == "os._exit":
        os._exit(0)
    if kind == "KeyboardInterrupt":
        raise KeyboardInterrupt
    raise Fatal("boom")


ATTACKS = ["sys.exit", "SystemExit(3)", "os._exit", "KeyboardInterrupt", "BaseException"]
EXITS = {"sys.exit", "SystemExit(3)", "os._exit"}


def attacker(kind: str) -> Any:
    def act(obs: dict[str, Any]) -> Any:
        if obs["turn"] == BAD_TURN:
            _attack(kind)
        return build(obs)

    return lambda: act


def opponent(kind: str, drones: GameInfo) -> Bot:
    if kind == "subprocess":
        return SubprocessBot([sys.executable, "-m", "botarena.kit", str(ZOO_KIT_BOT)], name="kit")
    return PythonBot(drones.starter_bots["adaptive"], name="adaptive")


@pytest.mark.parametrize("other", ["inprocess", "subprocess"])
@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("kind", ATTACKS)
def test_a_bot_that_exits_or_raises_a_base_exception_is_crashed_and_the_match_completes(
    drones: GameInfo, kind: str, seat: int, other: str
) -> None:
    real_exit = os._exit
    bots: list[Bot] = [opponent(other, drones)]
    bots.insert(seat, PythonBot(attacker(kind), "attacker"))
    config = drones.config(overrides={"rounds": 1, "turn_limit": 4})
    run = run_match(drones, bots, config=config, seed=3)
    assert os._exit is real_exit  # put back once no in-process bot is open
    verdicts = [step["verdicts"][seat][:2] for step in run.replay.steps]
    assert verdicts[0] == ["OK", None] and len(verdicts) == 4, "the match went on to its end"
    if kind in EXITS:  # the bot is gone for the rest of the match, as an exited process would be
        assert verdicts[1:] == [["CRASHED", Reason.PROCESS_EXITED]] * 3
        assert run.replay.end["verdicts"][seat][0] == "CRASHED"
        expected = "os._exit(0)" if kind == "os._exit" else "SystemExit"
    else:  # an exception: crashed for that exchange, asked again after
        assert verdicts[1:] == [["CRASHED", Reason.BOT_ERROR], ["OK", None], ["OK", None]]
        expected = "KeyboardInterrupt" if kind == "KeyboardInterrupt" else "Fatal: boom"
    assert expected in run.replay.steps[1]["replies"][seat]["warnings"][0]["detail"]
    # the opponent's statuses are those of a match against a quiet bot: all OK
    assert set(run.replay.statuses[1 - seat]) == {"OK"}


def test_exiting_in_a_late_reply_worker_is_crashed_too() -> None:
    bot = PythonBot(attacker("os._exit"), "attacker")
    bot.late_replies_kept = True
    bot.open("m", 0)
    try:
        bot.send(Request(0, {"turn": BAD_TURN}, 100, MessageType.TURN), 1, 5.0)
        reply = bot.receive()
        assert (reply.status, reply.reason) == (Status.CRASHED, Reason.PROCESS_EXITED)
        bot.send(Request(0, {"turn": 3}, 101, MessageType.TURN), 2, 5.0)
        again = bot.receive()
        assert (again.status, again.reason) == (Status.CRASHED, Reason.PROCESS_EXITED)
    finally:
        bot.close()


def test_os_exit_in_a_forked_child_still_exits() -> None:
    bot = PythonBot(lambda: build, "quiet")
    bot.open("m", 0)
    try:
        pid = os.fork()
        if pid == 0:  # the child of a bot's fork must not unwind into the runner's code
            os._exit(7)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 7
    finally:
        bot.close()
