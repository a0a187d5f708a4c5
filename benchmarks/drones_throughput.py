"""GameOfDrones throughput: matches/s and turns/s through the real runner, replays recorded.

Every match goes through `botarena.runner.run_match` with in-process starter bots (preemptive time
limits armed around every call) and records its full replay, exactly as a tournament would. The
config is the default preset (10 rounds of at most 10 turns). For scale, the figure is compared with
the original JavaScript engine's 27,000-46,000 matches/s measured on this machine.

A second figure drives the engine and the bots directly (no runner, no replay, no time limits), so
the runner's share of the time can be read off the difference.

    .venv/bin/python benchmarks/drones_throughput.py [--seconds 2.0]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from botarena.bots.inprocess import PythonBot
from botarena.core.game import GameInfo
from botarena.core.protocol import MessageType, Reply, Request
from botarena.core.registry import get_game
from botarena.core.status import Status
from botarena.runner import run_match

JS_MATCHES_PER_S = (27_000, 46_000)
PAIRINGS = [
    ("randomonium", "adaptive"),
    ("zergy", "pacifist"),
    ("pacifist", "adaptive"),
    ("randomonium", "zergy"),
    ("adaptive", "randomonium"),
]


def bench_runner(game: GameInfo, pair: tuple[str, str], seconds: float) -> tuple[int, int, float]:
    """(matches, turns, elapsed) of full `run_match` calls for about `seconds`."""
    config = game.config()
    factories = [game.starter_bots[name] for name in pair]
    matches = turns = 0
    started = time.perf_counter()
    deadline = started + seconds
    while True:
        for _ in range(20):
            run = run_match(
                game,
                [PythonBot(f, n) for f, n in zip(factories, pair, strict=True)],
                config=config,
                seed=matches,
            )
            matches += 1
            turns += len(run.replay.steps)
        now = time.perf_counter()
        if now >= deadline:
            return matches, turns, now - started


def _answer(handlers: list[Any], requests: list[Request]) -> list[Reply]:
    return [Reply(r.seat, Status.OK, handlers[r.seat][r.type](r.payload)) for r in requests]


def bench_direct(game: GameInfo, pair: tuple[str, str], seconds: float) -> tuple[int, int, float]:
    """The same matches with the engine calling the bots directly: no runner, no replay, no timer."""
    config = game.config()
    matches = turns = 0
    started = time.perf_counter()
    deadline = started + seconds
    while True:
        for _ in range(20):
            bots = [game.starter_bots[name]() for name in pair]
            handlers = [
                {MessageType.START: b.setup, MessageType.TURN: b.act, MessageType.END: b.end} for b in bots
            ]
            engine = game.new_engine(config, matches, 2)
            engine.apply_start(_answer(handlers, engine.start_requests()))
            while requests := engine.next_requests():
                engine.apply(_answer(handlers, requests))
                turns += 1
            engine.apply_end(_answer(handlers, engine.end_requests()))
            engine.result()
            matches += 1
        now = time.perf_counter()
        if now >= deadline:
            return matches, turns, now - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per pairing and mode")
    args = parser.parse_args()
    game = get_game("drones")
    bench_runner(game, PAIRINGS[0], 0.2)  # warm up imports and caches
    print(f"GameOfDrones, default config (10 rounds x 10 turns), {args.seconds:.1f} s per pairing")
    print(
        f"{'pairing':<26} {'run_match m/s':>14} {'turns/s':>10} {'us/turn':>8} "
        f"{'direct m/s':>11} {'turns/s':>10} {'us/turn':>8}"
    )
    total_m = total_t = 0
    total_s = 0.0
    for pair in PAIRINGS:
        m, t, s = bench_runner(game, pair, args.seconds)
        dm, dt, ds = bench_direct(game, pair, args.seconds / 2)
        total_m, total_t, total_s = total_m + m, total_t + t, total_s + s
        print(
            f"{pair[0] + ' v ' + pair[1]:<26} {m / s:>14,.0f} {t / s:>10,.0f} {s / t * 1e6:>8.1f} "
            f"{dm / ds:>11,.0f} {dt / ds:>10,.0f} {ds / dt * 1e6:>8.1f}"
        )
    rate = total_m / total_s
    print(f"{'all pairings':<26} {rate:>14,.0f} {total_t / total_s:>10,.0f} {total_s / total_t * 1e6:>8.1f}")
    lo, hi = JS_MATCHES_PER_S
    print(
        f"vs the JavaScript engine ({lo:,}-{hi:,} matches/s): "
        f"{rate / lo:.4f}x of {lo:,} ({lo / rate:.0f}x slower), "
        f"{rate / hi:.4f}x of {hi:,} ({hi / rate:.0f}x slower)"
    )


if __name__ == "__main__":
    main()
