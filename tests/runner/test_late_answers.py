"""Late and owed answers through the runner (Crafting Quest CQ-28 to CQ-35, spec 5.4, 7.2 and 7.3),
with the toy engine of test_late_answers_toy.py, over subprocess and in-process bots.

No timing assertions: the bots sleep far past their deadlines (or never answer), so the order of
events is certain, and the checks are about order, statuses and counts.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from botarena.bots.base import Bot
from botarena.bots.inprocess import PythonBot
from botarena.core.game import Engine, GameInfo
from botarena.core.protocol import Request
from botarena.core.replay import Replay
from botarena.runner import run_match
from botarena.runner.verify import verify_replay

from .test_late_answers_toy import Adder, LateToy, kinds, play, script_bot, toy

__all__ = ["script_bot", "toy"]  # fixtures used here

SLEEP_S = 0.8  # far past the 300 ms a toy turn allows (250 ms budget + 50 ms grace)


class SleepsOnce:
    """An in-process bot that sleeps `seconds` in its first turn, then answers `add 100`."""

    def __init__(self, seconds: float = SLEEP_S) -> None:
        self.seconds = seconds
        self.turns = 0

    def act(self, payload: Any) -> Any:
        if payload["type"] == "turn_start":
            self.turns += 1
            if self.turns == 1:
                threading.Event().wait(self.seconds)
                return {"action": "add", "n": 100}
        return {"action": "end_turn"}


def events(replay: Replay) -> list[dict[str, Any]]:
    """Every event of the toy's step records, in order, each with the step it was recorded in."""
    found = []
    for index, step in enumerate(replay.steps, start=1):
        for event in step["record"]["events"]:
            found.append({**event, "step": index})
    return found


def assert_owed_then_late(engine: LateToy, replay: Replay, payload: Any) -> None:
    """Seat 0's first turn closed at its deadline; its turns were skipped while it owed; its answer
    came back through late_reply; the first turn after that applied it (CQ-30 to CQ-34)."""
    first = replay.steps[0]
    assert first["record"]["seat"] == 0
    assert first["replies"][0]["status"] == "TIMEOUT"
    assert first["replies"][0]["reason"] == "deadline"
    assert len(replay.late) == 1
    late = replay.late[0]
    assert late["reply"]["seat"] == 0
    assert late["reply"]["status"] == "OK"
    assert late["reply"]["payload"] == payload
    assert late["reply"]["ms"] >= 300.0  # it came after the deadline the first request waited for
    # between the timeout and the delivery, seat 0 was sent nothing: its turns were skipped
    delivered_after = late["after_step"]
    for step in replay.steps[1:delivered_after]:
        assert step["record"]["seat"] == 1
    seat0 = [e for e in events(replay) if e["seat"] == 0 and e["kind"] in ("no_answer", "late_action")]
    skipped = [e for e in seat0 if e["kind"] == "no_answer"]
    assert all(e["step"] <= delivered_after for e in skipped)  # only while it owed
    applied = [e for e in seat0 if e["kind"] == "late_action"]
    assert len(applied) == 1 and applied[0]["n"] == payload["n"]  # CQ-33, at the next turn start
    assert engine.owes == [None, None]
    assert verify_replay(replay).identical


def test_cq33_subprocess_answer_after_the_deadline_is_delivered_late(toy: GameInfo, script_bot: Any) -> None:
    """CQ-31, CQ-33, CQ-34 over the JSON-lines protocol: the turn closes at the deadline without
    the answer, which arrives later under its own request id and is handed to late_reply."""
    engine, replay = play(toy, [script_bot("sleepy", SLEEP_S), PythonBot(lambda: Adder(1, 0.04))], rounds=12)
    assert_owed_then_late(engine, replay, {"action": "add", "n": 100})
    assert engine.scores[0] >= 100
    assert replay.time_used_ms[0] >= replay.late[0]["reply"]["ms"]  # the owed time counts for the seat


def test_cq33_in_process_call_goes_on_past_the_deadline(toy: GameInfo) -> None:
    """Spec 7.3: the turn closes at its deadline while the in-process call goes on in the bot's
    worker; its return value is a late answer."""
    engine, replay = play(toy, [PythonBot(SleepsOnce), PythonBot(lambda: Adder(1, 0.04))], rounds=12)
    assert_owed_then_late(engine, replay, {"action": "add", "n": 100})


def test_cq35_untimed_wait_runs_out_and_the_answer_is_owed(toy: GameInfo) -> None:
    """CQ-35: with no turn budget each answer gets `turn_timeout_ms`, no chain; when that runs out
    the turn closes and the answer is owed exactly as in timed mode."""
    bots: list[Bot] = [PythonBot(SleepsOnce), PythonBot(lambda: Adder(1, 0.04))]
    engine, replay = play(toy, bots, rounds=12, turn_budget_ms=0, turn_timeout_ms=300)
    assert_owed_then_late(engine, replay, {"action": "add", "n": 100})


def test_cq34_a_bot_that_dies_while_owing_is_crashed(toy: GameInfo, script_bot: Any) -> None:
    """Spec 5.4: a bot whose process exits while it owes an answer is CRASHED `process_exited`
    (delivered as its late reply), and is never asked anything again."""
    engine, replay = play(toy, [script_bot("dies", 0.5), PythonBot(lambda: Adder(1, 0.04))], rounds=12)
    assert len(replay.late) == 1
    late = replay.late[0]["reply"]
    assert (late["seat"], late["status"], late["reason"]) == (0, "CRASHED", "process_exited")
    assert engine.dead == [True, False]
    assert engine.sent_to.count(0) == 1  # its first turn_start, nothing after
    assert replay.end["verdicts"][0] == ["CRASHED", "process_exited"]
    assert replay.end["verdicts"][1] == ["OK", None]
    assert verify_replay(replay).identical


def test_cq34_the_end_reply_is_told_from_the_owed_answer_by_id(toy: GameInfo, script_bot: Any) -> None:
    """Spec 7.2: `end` goes to a bot that still owes; its owed answer (the old id) comes first, is
    discarded, and the `end` reply is read; nothing is delivered late after the end (CQ-49)."""
    bot = script_bot("sleepy_last", 1.0, "3")  # sleeps through its turn in round 3, the last
    engine, replay = play(toy, [bot, PythonBot(Adder)], rounds=3)
    last_seat0 = [step for step in replay.steps if step["record"]["seat"] == 0][-1]
    assert last_seat0["replies"][0]["status"] == "TIMEOUT"
    assert replay.late == []
    end_reply = replay.end["replies"][0]
    assert end_reply["status"] == "OK"
    assert end_reply["payload"] == {"bye": True}
    assert [w["code"] for w in end_reply["warnings"]] == ["LATE_REPLY_DISCARDED"]
    assert engine.queued == [None, None]  # the owed action was never applied
    assert verify_replay(replay).identical


@pytest.fixture
def never_returns() -> Iterator[threading.Event]:
    """An event an in-process bot waits on for ever; set after the test, so its thread can end."""
    release = threading.Event()
    yield release
    release.set()


def test_spec73_an_in_process_call_that_never_returns(toy: GameInfo, never_returns: threading.Event) -> None:
    """Spec 7.3: a call that never returns leaves the bot owing until the end: every later turn is
    skipped, the `end` exchange does not wait for the bot (TIMEOUT `answer_owed`), and the match
    ends."""

    class Stuck:
        def act(self, payload: Any) -> Any:
            never_returns.wait()
            return {"action": "end_turn"}

    engine, replay = play(toy, [PythonBot(Stuck), PythonBot(Adder)], rounds=6, end_timeout_ms=60_000)
    assert replay.late == []
    assert engine.sent_to.count(0) == 1
    skipped = [e for e in events(replay) if e["kind"] == "no_answer"]
    assert [e["seat"] for e in skipped] == [0] * 5
    assert replay.end["verdicts"][0] == ["TIMEOUT", "answer_owed"]
    assert replay.end["verdicts"][1] == ["OK", None]
    assert kinds(replay, 1) == ["action", "action", "end_turn"] * 6
    assert verify_replay(replay).identical


def test_cq31_the_chain_deadline_is_wall_clock_from_turn_start(toy: GameInfo) -> None:
    """CQ-31: the turn's deadline is turn_start + budget + grace by the clock, engine time
    included, not the sum of the bot's answer times. The engine pauses 100 ms after each action, so
    by its 4th request a turn of 300 ms is over though the bot answers at once; that request is
    still sent (TIMEOUT `deadline` at once), and its answer comes back late."""
    bots: list[Bot] = [PythonBot(lambda: Adder(50)), PythonBot(lambda: Adder(1))]
    _, replay = play(toy, bots, rounds=2, actions_per_turn=50, engine_pause_ms=100)
    seat0 = [step for step in replay.steps if step["record"]["seat"] == 0]
    answered = [step for step in seat0 if step["replies"][0]["status"] == "OK"]
    closing = [step for step in seat0 if step["replies"][0]["status"] == "TIMEOUT"]
    assert closing and all(step["replies"][0]["reason"] == "deadline" for step in closing)
    turns = len(closing)
    assert 1 <= turns <= 2
    assert len(answered) <= 3 * turns  # requests sent 300 ms or more after turn_start are not waited for
    assert all(entry["reply"]["payload"]["action"] == "add" for entry in replay.late)
    assert verify_replay(replay).identical


def test_late_reply_is_fed_at_the_recorded_step_when_verifying(toy: GameInfo) -> None:
    """Replays: each late reply is recorded with the step it followed, and verify feeds it there;
    moved to another step, the re-run differs."""
    _, replay = play(toy, [PythonBot(SleepsOnce), PythonBot(lambda: Adder(1, 0.04))], rounds=12)
    assert len(replay.late) == 1
    assert verify_replay(replay).identical
    moved = Replay.from_json(replay.to_json())
    moved.late[0]["after_step"] += 2
    report = verify_replay(moved)
    assert not report.identical
    assert report.where.startswith("step")
    beyond = Replay.from_json(replay.to_json())
    beyond.late[0]["after_step"] = len(replay.steps) + 1
    report = verify_replay(beyond)
    assert (report.identical, report.where) == (False, "late replies")


class AsksOwingSeats(LateToy):
    """A broken engine: it forgets that a seat owes an answer and asks it again."""

    def next_requests(self) -> list[Request]:
        self.owes = [None, None]
        return super().next_requests()


def test_asking_an_owing_seat_is_an_engine_bug(toy: GameInfo) -> None:
    """The runner refuses to send a request other than `end` to a seat that owes an answer."""

    def new_engine(config: Any, seed: int, players: int) -> Engine:
        return AsksOwingSeats(config, seed, players)

    game = GameInfo(**{**toy.__dict__, "new_engine": new_engine})
    bots: list[Bot] = [PythonBot(SleepsOnce), PythonBot(Adder)]
    with pytest.raises(RuntimeError, match="owes an answer"):
        run_match(game, bots, config=toy.config(overrides={"rounds": 3}), seed=5)
