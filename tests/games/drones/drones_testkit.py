"""Helpers for the GameOfDrones tests: drive the engine directly with scripted replies.

`{P:x, S:y, A}` in the spec is `act(P=x, S=y, A=True)` here. A script is a list of per-turn items:
a payload (sent with status OK), or one of the sentinels TIMEOUT, CRASH, DEAD, or a ready `Reply`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from botarena.bots.base import Bot, BotLog
from botarena.core.game import Step
from botarena.core.protocol import MessageType, Reply, Request
from botarena.core.registry import get_game
from botarena.core.status import Reason, Status
from botarena.games.drones.config import DronesConfig
from botarena.games.drones.engine import DronesEngine

GAME = get_game("drones")
BOTH = ("seed", "bravolt2018")

# Spec E6 (Zergy vs Hard Hitting Pacifist, rounds 1): PLAYER 1's turn-2 observation and the round record.
E6_TURN_2_OBSERVATION: dict[str, Any] = {
    "round": 1,
    "rounds": 1,
    "turn": 2,
    "turnLimit": 10,
    "defenderBonus": 1,
    "producers": 1,
    "soldiers": 1,
    "roundWins": 0,
    "roundLosses": 0,
    "roundDraws": 0,
    "previousRound": None,
}
E6_ROUND_RECORD: dict[str, Any] = {
    "round": 1,
    "turnLimit": 10,
    "turnsPlayed": 2,
    "trigger": "ATTACK",
    "decidedBy": "ATTACK_WON",
    "outcome": "PLAYER 1",
    "player1": {"producers": 1, "soldiers": 2, "launchedAttack": True},
    "player2": {"producers": 4, "soldiers": 0, "launchedAttack": False},
}

TIMEOUT = object()
CRASH = object()  # a bot_error crash (an exception in the bot)
DEAD = object()  # a dead process
_UNSET = object()


def act(P: Any = _UNSET, S: Any = _UNSET, A: Any = _UNSET) -> dict[str, Any]:
    """The spec's shorthand: `act(P=1, S=2, A=True)` is {P:1, S:2, A}; absent parts are omitted."""
    payload: dict[str, Any] = {}
    if P is not _UNSET:
        payload["newProducers"] = P
    if S is not _UNSET:
        payload["newSoldiers"] = S
    if A is not _UNSET:
        payload["launchAttack"] = A
    return payload


def config(rules: str = "seed", **overrides: Any) -> DronesConfig:
    return GAME.config("default", {"rules": rules, **overrides})  # type: ignore[no-any-return]


def reply(seat: int, item: Any) -> Reply:
    """One scripted item as the transport would hand it to the engine."""
    if isinstance(item, Reply):
        item.seat = seat
        return item
    if item is TIMEOUT:
        return Reply(seat, Status.TIMEOUT, None, Reason.DEADLINE)
    if item is CRASH:
        return Reply(seat, Status.CRASHED, None, Reason.BOT_ERROR)
    if item is DEAD:
        return Reply(seat, Status.CRASHED, None, Reason.PROCESS_EXITED)
    return Reply(seat, Status.OK, item)


def new_engine(
    rules: str = "seed", seed: int = 0, starts: Sequence[Any] = ({}, {}), **overrides: Any
) -> DronesEngine:
    """An engine whose start exchange is done (start replies `starts`, OK by default)."""
    engine = DronesEngine(config(rules, **overrides), seed)
    engine.start_requests()
    engine.apply_start([reply(seat, item) for seat, item in enumerate(starts)])
    return engine


def turn(engine: DronesEngine, one: Any, two: Any) -> Step:
    """Play one turn with these two scripted items."""
    assert engine.next_requests(), "the match is over"
    return engine.apply([reply(0, one), reply(1, two)])


def play_round(engine: DronesEngine, one: Iterable[Any], two: Iterable[Any]) -> list[Step]:
    """Play scripted turns until the round ends (missing items are `{}`); return the turn steps."""
    first, second = list(one), list(two)
    steps: list[Step] = []
    while True:
        index = len(steps)
        a = first[index] if index < len(first) else {}
        b = second[index] if index < len(second) else {}
        step = turn(engine, a, b)
        steps.append(step)
        if "roundResult" in step.record:
            return steps


def play_with(
    engine: DronesEngine, one: Callable[[dict[str, Any]], Any], two: Callable[[dict[str, Any]], Any]
) -> list[Step]:
    """Play the rest of the match with two act functions (observation -> item); return every step."""
    steps: list[Step] = []
    while requests := engine.next_requests():
        items = [one(requests[0].payload), two(requests[1].payload)]
        steps.append(engine.apply([reply(seat, item) for seat, item in enumerate(items)]))
    return steps


def counts(step: Step) -> list[tuple[Any, Any]]:
    """(producers, soldiers) of both players after the step's production."""
    return [(p["producers"], p["soldiers"]) for p in step.record["players"]]


def round_result(steps: Sequence[Step]) -> dict[str, Any]:
    result = steps[-1].record["roundResult"]
    assert isinstance(result, dict)
    return result


class Stub:
    """A stand-in for a numpy Generator in `engine.seed_streams`: returns queued values, logs calls."""

    def __init__(self, *values: int) -> None:
        self.values = list(values)
        self.calls: list[tuple[int, int]] = []

    def integers(self, lo: int, hi: int) -> int:
        self.calls.append((lo, hi))
        value = self.values.pop(0)
        assert lo <= value < hi, f"stub value {value} outside [{lo}, {hi})"
        return value


def greedy(obs: dict[str, Any]) -> dict[str, Any]:
    """Always `{P: capacity}`."""
    return {"newProducers": obs["producers"]}


def idle(obs: dict[str, Any]) -> dict[str, Any]:
    return {}


class ScriptedBot(Bot):
    """A fake transport for run_match: replies come from a function of the request; can die."""

    kind = "scripted"

    def __init__(self, respond: Callable[[Request], Any], name: str = "scripted", dies_at: int | None = None):
        self.respond = respond
        self.name = name
        self.dies_at = dies_at  # after this many turn requests the process is gone
        self.turns_seen = 0
        self.requests: list[Request] = []
        self._pending: Request | None = None
        self._alive = True

    @property
    def alive(self) -> bool:
        return self._alive

    def send(self, request: Request, request_id: int, timeout_s: float) -> None:
        self._pending = request
        self.requests.append(request)

    def receive(self) -> Reply:
        request = self._pending
        assert request is not None
        if request.type is MessageType.TURN:
            self.turns_seen += 1
            if self.dies_at is not None and self.turns_seen >= self.dies_at:
                self._alive = False
                return Reply(request.seat, Status.CRASHED, None, Reason.PROCESS_EXITED)
        return reply(request.seat, self.respond(request))

    def close(self) -> BotLog:
        return BotLog()
