"""Framework overhead per turn, the cost of each preemption mechanism, and replay I/O (DESIGN 4, 7).

1. Overhead per turn with trivial bots (both reply a constant `{}`) through the real `run_match`
   (time limits armed, replay recorded), best of three runs, for: a null engine defined here
   (constant requests, empty records: everything measured is framework), one long GameOfDrones match
   (800 rounds of 50 turns), and many default-config GameOfDrones matches (per-match costs included).
   Each is also timed with the engine alone (driven with constant replies, no runner), which is
   subtracted. Target: <= 50 us per turn.
2. Preemption, cost per call of a trivial function over a bare call: the interval timer
   (`setitimer`, main thread) disarmed after every call and with the lazy disarm the in-process bots
   use, the watchdog thread (any other thread), and, for comparison, a round trip to a worker
   process over a `multiprocessing` Pipe (what a process-isolated Python bot would cost).
3. The long match's replay: `dumps`, `write_replay` (gzip) and `read_replay`.

    .venv/bin/python benchmarks/overhead.py
"""

from __future__ import annotations

import multiprocessing
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from botarena.bots import preempt
from botarena.bots.inprocess import PythonBot
from botarena.core.game import Dynamics, Engine, GameInfo, Information, MatchResult, Step
from botarena.core.protocol import MessageType, Reply, Request, Verdict
from botarena.core.registry import get_game
from botarena.core.replay import read_replay, write_replay
from botarena.core.status import Status
from botarena.runner import run_match

TARGET_US = 50.0
REPEATS = 3
NULL_STEPS = 40_000
LONG_ROUNDS = 800  # x 50 turns: 40,000 turns of `{}` (no attack, so every round is 50 turns)
SHORT_MATCHES = 400  # x 100 turns (10 rounds x 10 turns)
CALLS = 50_000


def constant_bot() -> Callable[[Any], Any]:
    def act(payload: Any) -> Any:
        return {}

    return act


@dataclass(frozen=True)
class NullConfig:
    steps: int = NULL_STEPS
    turn_timeout_ms: int = 1000
    setup_timeout_ms: int = 1000
    overage_bank_ms: int = 0


class NullEngine(Engine):
    """`steps` turns of two seats; the same request payload every turn, an empty record."""

    def __init__(self, config: NullConfig, seed: int, players: int) -> None:
        self.config = config
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
    dynamics=Dynamics.SIMULTANEOUS,
    information=Information.FULL,
    config_class=NullConfig,
    presets={"default": {}},
    new_engine=NullEngine,
    starter_bots={},
    random_bot=constant_bot,
    text_renderer=lambda keyframe: str(dict(keyframe)),
    keyframe_every=1_000_000,
)


def drive_engine_alone(game: GameInfo, config: Any, matches: int = 1) -> tuple[int, float]:
    """(turns, seconds) of the engine given constant OK `{}` replies: no runner, no bots."""
    turns = 0
    started = time.perf_counter()
    for seed in range(matches):
        engine = game.new_engine(config, seed, 2)
        engine.apply_start([Reply(r.seat, Status.OK, {}) for r in engine.start_requests()])
        replies = [Reply(0, Status.OK, {}), Reply(1, Status.OK, {})]  # engines only read replies
        while engine.next_requests():
            engine.apply(replies)
            turns += 1
        engine.apply_end([Reply(r.seat, Status.OK, {}) for r in engine.end_requests()])
        engine.result()
    return turns, time.perf_counter() - started


def time_matches(game: GameInfo, config: Any, matches: int = 1) -> tuple[int, float]:
    """(turns, seconds) of `matches` full run_match calls with two constant bots."""
    turns = 0
    started = time.perf_counter()
    for seed in range(matches):
        bots = [PythonBot(constant_bot, "constant"), PythonBot(constant_bot, "constant")]
        run = run_match(game, bots, config=config, seed=seed)
        assert all(set(tally) == {"OK"} for tally in run.replay.statuses), run.replay.statuses
        turns += len(run.replay.steps)
    return turns, time.perf_counter() - started


def _best_us(measure: Callable[[], tuple[int, float]]) -> tuple[float, int]:
    """Best of REPEATS measurements, in us per turn (the best run has the least noise)."""
    runs = [measure() for _ in range(REPEATS)]
    return min(seconds / turns * 1e6 for turns, seconds in runs), runs[0][0]


def overhead_per_turn() -> None:
    print(
        "1. framework overhead per turn: two in-process bots replying {}, run_match, replay recorded"
        f" (best of {REPEATS})"
    )
    drones = get_game("drones")
    cases = [
        ("null engine, one long match", NULL_GAME, NullConfig(), 1),
        (
            "drones, one long match",
            drones,
            drones.config(overrides={"rounds": LONG_ROUNDS, "turn_limit": 50}),
            1,
        ),
        ("drones, default config matches", drones, drones.config(), SHORT_MATCHES),
    ]
    for label, game, config, matches in cases:
        total_us, turns = _best_us(lambda g=game, c=config, m=matches: time_matches(g, c, m))
        engine_us, _ = _best_us(lambda g=game, c=config, m=matches: drive_engine_alone(g, c, m))
        print(
            f"   {label:<32}: {total_us:6.2f} us/turn, engine alone {engine_us:5.2f} -> framework "
            f"{total_us - engine_us:6.2f} us/turn (target <= {TARGET_US:.0f}) [{turns:,} turns]"
        )


def _noop(arg: Any) -> Any:
    return arg


def _per_call_us(call: Callable[[], Any], calls: int, repeats: int = 3) -> float:
    """Best of `repeats` runs of `calls` calls, in us per call (the best run has the least noise)."""
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        for _ in range(calls):
            call()
        best = min(best, time.perf_counter() - started)
    return best / calls * 1e6


def _in_process_costs(results: dict[str, float], key: str) -> None:
    fn = _noop
    results[key + ".bare"] = _per_call_us(lambda: fn(None), CALLS)
    if key == "main":
        timer = preempt.signal_call
        results["timer.disarm"] = _per_call_us(lambda: timer(fn, None, 1.0, False), CALLS)
        results["timer.lazy"] = _per_call_us(lambda: timer(fn, None, 1.0, True), CALLS)
        preempt.disarm()
    else:
        watchdog = preempt.watchdog_call
        results["watchdog"] = _per_call_us(lambda: watchdog(fn, None, 1.0), CALLS)


def _worker(conn: Connection) -> None:
    while True:
        message = conn.recv()
        if message is None:
            return
        conn.send(_noop(message))


def preemption_costs() -> None:
    print(f"2. preemption, cost per call of a trivial function (best of 3 x {CALLS:,} calls)")
    results: dict[str, float] = {}
    _in_process_costs(results, "main")
    thread = threading.Thread(target=_in_process_costs, args=(results, "thread"))
    thread.start()
    thread.join()
    bare, thread_bare = results["main.bare"], results["thread.bare"]
    print(f"   {'bare call (no limit)':<46}: {bare:7.2f} us/call")
    for label, key, base in [
        ("interval timer, armed + disarmed (2 syscalls)", "timer.disarm", bare),
        ("interval timer, lazy disarm (1 syscall) *", "timer.lazy", bare),
        ("watchdog thread (other threads) *", "watchdog", thread_bare),
    ]:
        print(f"   {label:<46}: {results[key] - base:7.2f} us/call over a bare call")
    parent, child = multiprocessing.Pipe()
    process = multiprocessing.get_context("fork").Process(target=_worker, args=(child,), daemon=True)
    process.start()
    payload = {"turn": 1, "producers": 3}
    for _ in range(100):
        parent.send(payload)
        parent.recv()

    def round_trip() -> None:
        parent.send(payload)
        parent.recv()

    pipe_us = _per_call_us(round_trip, CALLS // 5)
    parent.send(None)
    process.join(5)
    lazy = results["timer.lazy"] - bare
    print(
        f"   {'worker process (multiprocessing Pipe)':<46}: {pipe_us:7.2f} us/call round trip "
        f"({pipe_us / max(lazy, 1e-9):.0f}x the lazy timer)"
    )
    print("   * what PythonBot uses: the lazy timer in the main thread, the watchdog elsewhere")


def replay_costs() -> None:
    """Writing and reading the long match's replay (the runner records it, the store writes it)."""
    drones = get_game("drones")
    config = drones.config(overrides={"rounds": LONG_ROUNDS, "turn_limit": 50})
    bots = [PythonBot(constant_bot, "constant"), PythonBot(constant_bot, "constant")]
    replay = run_match(drones, bots, config=config, seed=1).replay
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "long.json.gz"
        timings = {}
        for label, action in [
            ("dumps", replay.dumps),
            ("write (gzip)", lambda: write_replay(replay, path)),
            ("read (gunzip + parse)", lambda: read_replay(path)),
        ]:
            best = float("inf")
            for _ in range(REPEATS):
                started = time.perf_counter()
                action()
                best = min(best, time.perf_counter() - started)
            timings[label] = best
        size = len(replay.dumps())
        packed = path.stat().st_size
    steps = len(replay.steps)
    print(
        f"3. replay of one long match: {steps:,} steps, {size / 1e6:.1f} MB JSON, {packed / 1e6:.2f} MB gzip"
    )
    for label, seconds in timings.items():
        print(f"   {label:<22}: {seconds * 1e3:8.1f} ms ({seconds / steps * 1e6:5.2f} us/step)")


def main() -> None:
    overhead_per_turn()
    preemption_costs()
    replay_costs()


if __name__ == "__main__":
    main()
