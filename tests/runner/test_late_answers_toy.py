"""A toy engine with Crafting Quest's turn shape, for the late-answer tests (CQ-28 to CQ-35).

Two seats alternate turns of many actions. A turn is a chain of single-request batches: `turn_start`,
then a `result` after every action, until the bot sends `end_turn`, the chain's time runs out, or
`actions_per_turn` actions were taken (the last `result` is then sent with `await_reply=False`).
An action is `{"action": "add", "n": int}` and adds n to the seat's score. The engine opts into late
replies: a late action is queued and applied at the start of that seat's next turn (CQ-33), a late
`end_turn` or a late answer to `setup` is discarded, and a turn that starts while its seat owes an
answer is skipped (CQ-34). Everything the engine does goes into its step records, so a re-run that
fed a late reply at another point would differ.

This module also holds the tests of the plain case: a chain answered in time.
"""

from __future__ import annotations

import sys
import textwrap
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from botarena.bots.base import Bot
from botarena.bots.inprocess import PythonBot
from botarena.bots.subprocess import SubprocessBot
from botarena.core import registry
from botarena.core.game import Dynamics, Engine, GameInfo, Information, MatchResult, Step
from botarena.core.protocol import MessageType, Reply, Request, Verdict
from botarena.core.replay import Replay
from botarena.core.status import Status
from botarena.runner import run_match
from botarena.runner.verify import verify_replay

TOY_ID = "late_toy"


@dataclass(frozen=True)
class ToyConfig:
    rounds: int = 4
    actions_per_turn: int = 4
    turn_budget_ms: int = 250  # 0: untimed (CQ-35)
    turn_grace_ms: int = 50
    turn_timeout_ms: int = 5000
    setup_timeout_ms: int = 5000
    end_timeout_ms: int = 5000
    overage_bank_ms: int = 0
    engine_pause_ms: int = 0  # the engine sleeps this long after each action (wall-clock chain tests)


class LateToy(Engine):
    """See the module docstring."""

    late_replies = True

    def __init__(self, config: ToyConfig, seed: int, players: int) -> None:
        self.c = self.config = config
        self.turns = [(r, seat) for r in range(1, config.rounds + 1) for seat in (0, 1)]
        self.next_turn = 0
        self.current: list[int] | None = None  # [round, seat, actions left] of the open turn
        self.request: Request | None = None  # the open turn's next request
        self.owes: list[str | None] = [None, None]  # what the seat owes an answer to: setup / action
        self.dead = [False, False]
        self.queued: list[dict[str, Any] | None] = [None, None]
        self.scores = [0, 0]
        self.events: list[dict[str, Any]] = []  # what happened since the last step record
        self.sent_to: list[int] = []  # the seat of every request sent, for the tests

    # -- requests ------------------------------------------------------------------------------
    def _ask(self, seat: int, rnd: int, payload: dict[str, Any], await_reply: bool = True) -> Request:
        c = self.c
        if c.turn_budget_ms > 0:  # CQ-31: the whole turn shares budget + grace, from turn_start
            limit = c.turn_budget_ms + c.turn_grace_ms
            return Request(seat, payload, limit, MessageType.TURN, rnd, (rnd, seat), limit, await_reply)
        return Request(seat, payload, c.turn_timeout_ms, MessageType.TURN, rnd, await_reply=await_reply)

    def start_requests(self) -> list[Request]:
        return [
            Request(seat, {"type": "setup", "seat": seat}, self.c.setup_timeout_ms, MessageType.START)
            for seat in (0, 1)
        ]

    def apply_start(self, replies: list[Reply]) -> list[Verdict]:
        for reply in replies:
            self._note_failure(reply, "setup")
        return [Verdict(r.seat, r.status, r.reason) for r in replies]

    def next_requests(self) -> list[Request]:
        if self.current is not None:
            assert self.request is not None
            self.sent_to.append(self.request.seat)
            return [self.request]
        while self.next_turn < len(self.turns):
            rnd, seat = self.turns[self.next_turn]
            self.next_turn += 1
            left = self.c.actions_per_turn
            late = None
            queued = self.queued[seat]
            if queued is not None:  # CQ-30 step 2
                self.queued[seat] = None
                late = self._act(seat, queued)
                left -= 1
                self.events.append({"kind": "late_action", "round": rnd, "seat": seat, "n": late})
            if self.dead[seat] or self.owes[seat] is not None:  # CQ-30 step 3, CQ-34
                self.events.append({"kind": "no_answer", "round": rnd, "seat": seat})
                continue
            self.current = [rnd, seat, left]
            payload = {"type": "turn_start", "round": rnd, "late": late, "actions_left": left}
            self.request = self._ask(seat, rnd, payload, await_reply=left > 0)
            self.sent_to.append(seat)
            return [self.request]
        return []

    # -- replies -------------------------------------------------------------------------------
    def _act(self, seat: int, action: dict[str, Any]) -> int:
        n = action.get("n")
        if type(n) is not int:
            return 0
        self.scores[seat] += n
        return n

    def _note_failure(self, reply: Reply, question: str) -> bool:
        """Record a reply that is not an answer; whether it was one."""
        if reply.status is Status.TIMEOUT:
            self.owes[reply.seat] = question
        elif reply.status is Status.CRASHED:
            self.dead[reply.seat] = True
        else:
            return False
        self.events.append({"kind": reply.status.value.lower(), "seat": reply.seat, "reason": reply.reason})
        return True

    def apply(self, replies: list[Reply]) -> Step:
        (reply,) = replies
        assert self.current is not None
        rnd, seat, left = self.current
        kind = "action"
        if self._note_failure(reply, "action"):
            kind = "closed"
        elif not (_is_add(reply.payload) or reply.payload == {"action": "end_turn"}):
            left -= 1
            kind = "bad_action"
        elif reply.payload["action"] == "end_turn":
            kind = "end_turn"
        else:
            left -= 1
            self._act(seat, reply.payload)
        if self.c.engine_pause_ms:
            time.sleep(self.c.engine_pause_ms / 1000.0)
        if kind in ("closed", "end_turn"):
            self.current = self.request = None
        else:
            # At 0 actions left the turn closes with this reply, whose answer is late by definition
            # (CQ-31): it is sent without waiting, and its TIMEOUT `not_awaited` closes the turn.
            self.current = [rnd, seat, left]
            payload = {"type": "result", "round": rnd, "score": self.scores[seat], "actions_left": left}
            self.request = self._ask(seat, rnd, payload, await_reply=left > 0)
        record = {"round": rnd, "seat": seat, "kind": kind, "events": self.events}
        self.events = []
        return Step(record, [Verdict(reply.seat, reply.status, reply.reason)])

    def late_reply(self, reply: Reply) -> None:
        seat = reply.seat
        question, self.owes[seat] = self.owes[seat], None
        event: dict[str, Any] = {"kind": "late", "seat": seat, "status": reply.status.value}
        if reply.status is Status.CRASHED:
            self.dead[seat] = True
        elif question == "action" and _is_add(reply.payload):
            self.queued[seat] = reply.payload  # CQ-33
            event["queued"] = reply.payload
        else:
            event["discarded"] = True
        self.events.append(event)

    def end_requests(self) -> list[Request]:
        payload = {"type": "game_over", "scores": list(self.scores)}
        return [Request(seat, payload, self.c.end_timeout_ms, MessageType.END) for seat in (0, 1)]

    def result(self) -> MatchResult:
        a, b = self.scores
        ranks = [1, 1] if a == b else ([1, 2] if a > b else [2, 1])
        return MatchResult(ranks, [float(a), float(b)], {"events": self.events})

    def keyframe(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "owes": list(self.owes), "queued": list(self.queued)}


def _is_add(payload: Any) -> bool:
    return isinstance(payload, dict) and payload.get("action") == "add"


def _new_toy(config: Any, seed: int, players: int) -> Engine:
    return LateToy(config, seed, players)


def _turn_ender() -> Any:
    return lambda payload: {"action": "end_turn"}


TOY = GameInfo(
    id=TOY_ID,
    rules_version="late_toy_v1",
    title="Late toy",
    min_players=2,
    max_players=2,
    dynamics=Dynamics.ALTERNATING,
    information=Information.FULL,
    config_class=ToyConfig,
    presets={"default": {}},
    new_engine=_new_toy,
    starter_bots={"turn_ender": _turn_ender},
    random_bot=_turn_ender,
    text_renderer=lambda keyframe: str(dict(keyframe)),
)


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> GameInfo:
    """The toy game, registered for the test (runner/verify.py looks games up by id)."""
    monkeypatch.setitem(registry._loaded, TOY_ID, TOY)
    return TOY


def play(toy: GameInfo, bots: list[Bot], **overrides: Any) -> tuple[LateToy, Replay]:
    """Run a toy match; the engine is kept for the tests to look at."""
    engines: list[LateToy] = []

    def new_engine(config: Any, seed: int, players: int) -> Engine:
        engines.append(LateToy(config, seed, players))
        return engines[-1]

    game = GameInfo(**{**toy.__dict__, "new_engine": new_engine})
    replay = run_match(game, bots, config=toy.config(overrides=overrides), seed=5).replay
    return engines[0], replay


# -- bots ------------------------------------------------------------------------------------------
class Adder:
    """Adds 1, then 2, ... within each turn, `per_turn` actions, then ends its turn."""

    def __init__(self, per_turn: int = 2, pause_s: float = 0.0) -> None:
        self.per_turn = per_turn
        self.pause_s = pause_s
        self.done = 0

    def setup(self, payload: Any) -> Any:
        return {"ready": True}

    def act(self, payload: Any) -> Any:
        if self.pause_s:
            time.sleep(self.pause_s)
        if payload["type"] == "turn_start":
            self.done = 0
        if self.done >= self.per_turn:
            return {"action": "end_turn"}
        self.done += 1
        return {"action": "add", "n": self.done}


BOT_SCRIPT = textwrap.dedent(
    """
    import json, sys, time
    mode, pause = sys.argv[1], float(sys.argv[2])
    turns = 0
    for line in sys.stdin:
        request = json.loads(line)
        payload = request["payload"]
        answer = {}
        if request["type"] == "end":
            answer = {"bye": True}
        elif request["type"] == "turn" and payload["type"] == "turn_start":
            turns += 1
            if turns == 1 and mode == "sleepy":
                time.sleep(pause)
                answer = {"action": "add", "n": 100}
            elif turns == 1 and mode == "dies":
                time.sleep(pause)
                sys.exit(3)
            elif mode == "sleepy_last" and payload["round"] == int(sys.argv[3]):
                time.sleep(pause)
                answer = {"action": "add", "n": 7}
            elif mode == "garbage_late" and turns == 1:
                time.sleep(pause)
                print("this is not json", flush=True)
                continue
            else:
                answer = {"action": "add", "n": 1}
        elif request["type"] == "turn":
            answer = {"action": "end_turn"} if payload["actions_left"] < 3 else {"action": "add", "n": 1}
        print(json.dumps({"id": request["id"], "payload": answer}), flush=True)
    """
)


@pytest.fixture
def script_bot(tmp_path: Path) -> Iterator[Any]:
    """script_bot(mode, pause_s, *extra): a subprocess bot speaking the generic JSON-lines protocol."""
    path = tmp_path / "toy_bot.py"
    path.write_text(BOT_SCRIPT)
    made: list[SubprocessBot] = []

    def make(mode: str, pause_s: float = 0.0, *extra: str) -> SubprocessBot:
        bot = SubprocessBot([sys.executable, str(path), mode, str(pause_s), *extra], name=mode)
        made.append(bot)
        return bot

    yield make
    for bot in made:
        bot.close()


def kinds(replay: Replay, seat: int) -> list[str]:
    return [step["record"]["kind"] for step in replay.steps if step["record"]["seat"] == seat]


# -- the plain case -------------------------------------------------------------------------------
def test_cq31_a_chain_answered_in_time_in_process(toy: GameInfo) -> None:
    """CQ-31: each action gets its result at once, until `end_turn`; nothing is late or owed."""
    engine, replay = play(toy, [PythonBot(Adder), PythonBot(lambda: Adder(3))])
    assert engine.scores == [4 * (1 + 2), 4 * (1 + 2 + 3)]
    assert kinds(replay, 0) == ["action", "action", "end_turn"] * 4
    assert kinds(replay, 1) == ["action", "action", "action", "end_turn"] * 4
    assert replay.late == []
    assert all(step["verdicts"] == [["OK", None]] for step in replay.steps)
    assert replay.end["verdicts"] == [["OK", None], ["OK", None]]
    assert "late" not in replay.to_json()  # replays without late replies are written as before
    assert verify_replay(replay).identical


def test_cq31_a_chain_answered_in_time_subprocess(toy: GameInfo, script_bot: Any) -> None:
    """CQ-31 over the generic JSON-lines protocol: a request per action, each answered at once."""
    engine, replay = play(toy, [script_bot("steady"), PythonBot(Adder)])
    # turn_start -> add 1, result (4 left... 3) -> add 1, result (2 left) -> end_turn
    assert kinds(replay, 0) == ["action", "action", "end_turn"] * 4
    assert engine.scores == [4 * 2, 4 * 3]
    assert replay.late == []
    assert replay.end["replies"][0]["payload"] == {"bye": True}
    assert verify_replay(replay).identical


def test_cq31_the_action_limit_closes_the_turn_and_its_last_result_is_not_awaited(toy: GameInfo) -> None:
    """CQ-31: the reply to the last allowed action is sent with `await_reply=False`; the runner
    answers TIMEOUT `not_awaited` at once, the seat owes, and the bot's answer comes back late."""
    _, replay = play(toy, [PythonBot(lambda: Adder(9)), PythonBot(lambda: Adder(1))], actions_per_turn=3)
    not_awaited = [step for step in replay.steps if step["replies"][0].get("reason") == "not_awaited"]
    assert all(step["replies"][0]["seat"] == 0 for step in not_awaited)
    assert all(step["replies"][0]["status"] == "TIMEOUT" for step in not_awaited)
    # A turn starts only once the answer owed from the last one came back (else it is skipped),
    # so seat 0 reaches the limit in at least every other of its 4 turns.
    assert len(not_awaited) >= 2
    # Each owed answer (an "add" to the closing result) comes back through late_reply, and only the
    # last may be cut off by the end of the game (CQ-49).
    assert len(not_awaited) - 1 <= len(replay.late) <= len(not_awaited)
    for entry in replay.late:
        assert entry["reply"]["seat"] == 0
        assert entry["reply"]["status"] == "OK"
        assert entry["reply"]["payload"]["action"] == "add"
    applied = [e for step in replay.steps for e in step["record"]["events"] if e["kind"] == "late_action"]
    assert len(applied) >= len(replay.late) - 1  # CQ-33: applied at the next turn start
    assert verify_replay(replay).identical
