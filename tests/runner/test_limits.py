"""The overage bank, the chain budget, and dead bots (GD-26), through the runner."""

from __future__ import annotations

from typing import Any

import pytest

from botarena.bots.inprocess import PythonBot
from botarena.core.game import GameInfo
from botarena.core.protocol import MessageType, Request
from botarena.core.replay import Replay
from botarena.runner import run_match
from botarena.runner.match import _Exchange

from .zoo import FakeBot, SteadySleeper


def statuses(replay: Replay, seat: int) -> list[str]:
    return [step["verdicts"][seat][0] for step in replay.steps]


def fake_match(game: GameInfo, bot: FakeBot, turns: int, **overrides: Any) -> Replay:
    config = game.config(overrides={"rounds": 1, "turn_limit": turns, **overrides})
    opponent = PythonBot(game.starter_bots["pacifist"])
    return run_match(game, [bot, opponent], config=config, seed=1).replay


def test_bank_lets_a_slow_bot_through_until_it_is_spent(drones: GameInfo) -> None:
    """Scripted times: 30 ms a turn against a 20 ms limit and a 100 ms bank."""
    bot = FakeBot([30.0] * 12)
    replay = fake_match(drones, bot, 12, turn_timeout_ms=20, overage_bank_ms=100)
    assert statuses(replay, 0) == ["OK"] * 10 + ["TIMEOUT"] * 2
    # each request's hard limit is its own limit plus what is left in the bank
    assert bot.turn_allowances_ms == [120, 110, 100, 90, 80, 70, 60, 50, 40, 30, 20, 20]
    assert replay.time_used_ms[0] == pytest.approx(10 * 30 + 2 * 20)


def test_without_a_bank_every_deadline_is_hard(drones: GameInfo) -> None:
    bot = FakeBot([30.0, 10.0, 30.0])
    replay = fake_match(drones, bot, 3, turn_timeout_ms=20)
    assert statuses(replay, 0) == ["TIMEOUT", "OK", "TIMEOUT"]
    assert bot.turn_allowances_ms == [20, 20, 20]


def test_bank_is_drawn_only_by_time_over_the_limit(drones: GameInfo) -> None:
    bot = FakeBot([10.0, 25.0, 10.0, 26.0])
    fake_match(drones, bot, 4, turn_timeout_ms=20, overage_bank_ms=10)
    assert bot.turn_allowances_ms == [30, 30, 25, 25]


def test_bank_with_a_real_in_process_bot(drones: GameInfo) -> None:
    """A bot 20 ms over a 50 ms limit on every turn, with a 200 ms bank: OK until the bank is spent,
    then TIMEOUT for good. Only statuses are asserted (jitter only spends the bank sooner)."""
    config = drones.config(
        overrides={"rounds": 1, "turn_limit": 14, "turn_timeout_ms": 50, "overage_bank_ms": 200}
    )
    bots = [PythonBot(lambda: SteadySleeper(0.07), "slow"), PythonBot(drones.starter_bots["pacifist"])]
    replay = run_match(drones, bots, config=config, seed=1).replay
    seen = statuses(replay, 0)
    assert seen[:2] == ["OK", "OK"]  # over the 50 ms limit, paid from the bank
    assert "TIMEOUT" in seen
    first = seen.index("TIMEOUT")
    assert set(seen[first:]) == {"TIMEOUT"}
    assert seen[:first] == ["OK"] * first
    assert statuses(replay, 1) == ["OK"] * 14


def test_chain_budget() -> None:
    """Requests of one chain share its budget; a spent budget is a TIMEOUT without asking."""
    bot = FakeBot([40.0, 40.0, 40.0, 40.0])
    exchange = _Exchange([bot], 0)
    bot.open("m", 0)

    def ask() -> Any:
        request = Request(0, {"producers": 1}, 50, MessageType.TURN, 1, chain="t1", chain_budget_ms=100)
        return exchange.run([request])[0]

    first, second, third, fourth = ask(), ask(), ask(), ask()
    assert [first.status, second.status, third.status, fourth.status] == ["OK", "OK", "TIMEOUT", "TIMEOUT"]
    assert bot.turn_allowances_ms == [50, 50, 20]  # the fourth was never sent
    assert exchange.time_used_ms == [100.0]


@pytest.mark.parametrize("alive_for", [0, 1, 2, 4])
def test_dead_bot_is_crashed_without_being_asked(drones: GameInfo, alive_for: int) -> None:
    """GD-26: once a bot's process has exited it gets no more requests; every remaining exchange is
    CRASHED with reason process_exited, and the match is played to the end."""
    bot = FakeBot(alive_for=alive_for)
    replay = fake_match(drones, bot, 5)
    assert len(bot.sent) == alive_for  # never asked once dead (FakeBot.send asserts it too)
    asked_turns = max(alive_for - 1, 0)  # the first request is the start exchange
    if alive_for == 0:
        assert replay.start["verdicts"][0] == ["CRASHED", "process_exited"]
    else:
        assert replay.start["verdicts"][0] == ["OK", None]
    verdicts = [step["verdicts"][0] for step in replay.steps]
    assert verdicts == [["OK", None]] * asked_turns + [["CRASHED", "process_exited"]] * (5 - asked_turns)
    for step in replay.steps[asked_turns:]:
        assert step["record"]["players"][0]["applied"] is None
    assert replay.end["verdicts"][0][:2] == (
        ["CRASHED", "process_exited"] if alive_for <= 5 else ["OK", None]
    )
    assert len(replay.steps) == 5
    assert replay.statuses[1] == {"OK": 6}  # the start exchange and five turns


def test_chain_budget_for_in_process_bots() -> None:
    """The same rule on the in-process fast path, with real time (statuses only: wide margins)."""
    # 200 ms a call in a 500 ms budget: the 2nd call is allowed 300 ms, the 3rd 100 ms (100 ms of
    # margin either way, for a loaded machine), and nothing is left for the 4th
    bot = PythonBot(lambda: SteadySleeper(0.2), "slow")
    exchange = _Exchange([bot], 0)
    bot.open("m", 0)
    payload = {"producers": 1}
    results = [
        exchange.run([Request(0, payload, 400, MessageType.TURN, 1, chain="t", chain_budget_ms=500)])[0]
        for _ in range(4)
    ]
    bot.close()
    assert [r.status for r in results] == ["OK", "OK", "TIMEOUT", "TIMEOUT"]
    assert results[3].time_ms == 0.0  # never asked: nothing left of the budget
