"""Framework overhead per turn, and the cost of each preemption mechanism (DESIGN principles 4, 7).

1. Overhead per turn with trivial bots: in-process bots that reply a constant `{}`, on one long
   match, through the real `run_match` (time limits armed, replay recorded). Two engines:
   - a null engine defined here (constant requests, an empty record): everything measured is
     framework: the runner, the in-process transport, the timer and the replay;
   - GameOfDrones with `rounds` large: the engine alone is timed separately (driven with the same
     replies, no runner) and subtracted.
   Target: <= 50 us per turn.
2. Preemption, cost per call of a trivial function: the interval timer (`setitimer`, main thread),
   the watchdog thread (any other thread), and, for comparison, a round trip to a worker process
   over a `multiprocessing` Pipe (what a process-isolated in-Python bot would cost).

    .venv/bin/python benchmarks/overhead.py
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from botarena.bots import preempt
from botarena.bots.inprocess import PythonBot
from botarena.core.game import Engine, GameInfo, MatchResult, Step
from botarena.core.protocol import MessageType, Reply, Request, Verdict
from botarena.core.registry import get_game
from botarena.core.status import Status
from botarena.runner import run_match

TARGET_US = 50.0
NULL_STEPS = 100_000
DRONES_ROUNDS = 2_000  # x 50 turns: 100,000 turns of `{}` (no attack, so every round is 50 turns)
CALLS = 100_000


def constant_bot() -> Callable[[Any], Any]:
    def act(payload: Any) -> Any:
        return {}

    return act


@dataclass(frozen=True)
class NullConfig:
    steps: int = NULL_STEPS
    turn_timeout_ms: int = 1000
    setup_timeout_ms: int = 1000


class NullEngine(Engine):
    """`steps` turns of two seats; the same request payload every turn, an empty record."""

    def __init__(self, config: NullConfig, seed: int, players: int) -> None:
        self.players = players
        self.left = config.steps
        self.payload = {"turn": 0}

    def start_requests(self) -> list[Request]:
        return [Request(s, {}, 1000, MessageType.START) for s in range(self.players)]

    def apply_start(self, replies: list[Reply]) -> list[Verdict]:
        return [Verdict(r.seat, r.status) for r in replies]

    def next_requests(self) -> list[Request]:
        if self.left <= 0:
            return []
        return [Request(s, self.payload, 1000) for s in range(self.players)]

    def apply(self, replies: list[Reply]) -> Step:
        self.left -= 1
        return Step({}, [Verdict(r.seat, r.status) for r in replies])

    def end_requests(self) -> list[Request]:
        return [Request(s, {}, 1000, MessageType.END) for s in range(self.players)]

    def result(self) -> MatchResult:
        return MatchResult([1] * self.players, [0.0] * self.players)

    def keyframe(self) -> dict[str, Any]:
        return {}


NULL_GAME = GameInfo(
    id="null",
    rules_version="null_v1",
    title="null",
    min_players=2,
    max_players=2,
    config_class=NullConfig,
    presets={"default": {}},
    new_engine=NullEngine,
    starter_bots={},
    random_bot=constant_bot,
    keyframe_every=1_000_000,
)


def drive_engine_alone(game: GameInfo, config: Any) -> tuple[int, float]:
    """(turns, seconds) of the engine given constant OK `{}` replies: no runner, no bots."""
    engine = game.new_engine(config, 1, 2)
    engine.apply_start([Reply(r.seat, Status.OK, {}) for r in engine.start_requests()])
    replies = [Reply(0, Status.OK, {}), Reply(1, Status.OK, {})]  # engines only read replies
    turns = 0
    started = time.perf_counter()
    while engine.next_requests():
        engine.apply(replies)
        turns += 1
    return turns, time.perf_counter() - started


def time_match(game: GameInfo, config: Any) -> tuple[int, float]:
    bots = [PythonBot(constant_bot, "constant"), PythonBot(constant_bot, "constant")]
    started = time.perf_counter()
    run = run_match(game, bots, config=config, seed=1)
    elapsed = time.perf_counter() - started
    assert all(set(tally) == {"OK"} for tally in run.replay.statuses), run.replay.statuses
    return len(run.replay.steps), elapsed


def overhead_per_turn() -> None:
    print("1. framework overhead per turn (two in-process bots replying {}, run_match, replay recorded)")
    turns, seconds = time_match(NULL_GAME, NullConfig())
    null_turns, null_seconds = drive_engine_alone(NULL_GAME, NullConfig())
    engine_us = null_seconds / null_turns * 1e6
    total_us = seconds / turns * 1e6
    print(
        f"   null engine : {total_us:6.2f} us/turn total, engine {engine_us:5.2f} -> "
        f"framework {total_us - engine_us:6.2f} us/turn  (target <= {TARGET_US:.0f})  [{turns:,} turns]"
    )
    drones = get_game("drones")
    config = drones.config(overrides={"rounds": DRONES_ROUNDS, "turn_limit": 50})
    turns, seconds = time_match(drones, config)
    alone_turns, alone_seconds = drive_engine_alone(drones, config)
    engine_us = alone_seconds / alone_turns * 1e6
    total_us = seconds / turns * 1e6
    print(
        f"   drones      : {total_us:6.2f} us/turn total, engine {engine_us:5.2f} -> "
        f"framework {total_us - engine_us:6.2f} us/turn  (target <= {TARGET_US:.0f})  [{turns:,} turns]"
    )


def _noop(arg: Any) -> Any:
    return arg


def _per_call_us(call: Callable[[], Any], calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        call()
    return (time.perf_counter() - started) / calls * 1e6


def _bare_and_timed(results: dict[str, float], key: str) -> None:
    fn = _noop
    call = preempt.call_with_timeout
    results[key + ".bare"] = _per_call_us(lambda: fn(None), CALLS)
    results[key + ".timed"] = _per_call_us(lambda: call(fn, None, 1.0), CALLS)


def _worker(conn: Connection) -> None:
    while True:
        message = conn.recv()
        if message is None:
            return
        conn.send(_noop(message))


def preemption_costs() -> None:
    print(f"2. preemption, cost per call of a trivial function ({CALLS:,} calls each)")
    results: dict[str, float] = {}
    _bare_and_timed(results, "main")
    thread = threading.Thread(target=_bare_and_timed, args=(results, "thread"))
    thread.start()
    thread.join()
    timer_us = results["main.timed"] - results["main.bare"]
    watchdog_us = results["thread.timed"] - results["thread.bare"]
    print(f"   interval timer (setitimer, main thread): {timer_us:7.2f} us/call over a bare call")
    print(f"   watchdog thread (other threads)        : {watchdog_us:7.2f} us/call over a bare call")
    parent, child = multiprocessing.Pipe()
    process = multiprocessing.get_context("fork").Process(target=_worker, args=(child,), daemon=True)
    process.start()
    payload = {"turn": 1, "producers": 3}
    for _ in range(100):
        parent.send(payload)
        parent.recv()
    calls = CALLS // 5

    def round_trip() -> None:
        parent.send(payload)
        parent.recv()

    pipe_us = _per_call_us(round_trip, calls)
    parent.send(None)
    process.join(5)
    print(
        f"   worker process (multiprocessing Pipe)  : {pipe_us:7.2f} us/call round trip "
        f"({pipe_us / max(timer_us, 1e-9):.0f}x the timer)"
    )


def main() -> None:
    overhead_per_turn()
    preemption_costs()


if __name__ == "__main__":
    main()
