"""Domains game cost: seconds per whole game, engine ms per round (bots excluded), peak memory.

Scenarios (issue 4), each in a fresh child process so that its peak RSS is its own:

- `2p`: the default 2-player game (50x50, 500 rounds), dummy vs dummy, through the real runner with
  its replay recorded;
- `4p`: a 4-player default game between starter bots (dummy, surveyor, demo, dummy);
- `trace`: the engine alone replaying the 2-player reference game of spec section 11 (no bots, no
  runner): the closest figure to the original C++ engine's own work, about 0.3 ms per round.

"Engine" time is the engine's side of every round: building the observations (`next_requests`)
plus judging the replies and playing the round (`apply`). Targets: <= 1 ms per round of engine
work, <= 2 s per whole 2-player game with the Dummy-style starters, <= 300 MB peak.

    .venv/bin/python benchmarks/domains_game.py [--repeat 1]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

TARGET_MS_PER_ROUND = 1.0
TARGET_GAME_S = 2.0
TARGET_PEAK_MB = 300
FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "games" / "domains" / "fixtures"


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run_game(names: list[str], seed: int = 3) -> dict[str, Any]:
    from botarena.bots.inprocess import PythonBot
    from botarena.core.registry import get_game
    from botarena.games.domains.engine import DomainsEngine
    from botarena.runner import run_match

    game = get_game("domains")
    spent = {"observe": 0.0, "apply": 0.0, "rounds": 0}

    class TimedEngine(DomainsEngine):
        def next_requests(self):  # type: ignore[no-untyped-def]
            started = time.perf_counter()
            try:
                return super().next_requests()
            finally:
                spent["observe"] += time.perf_counter() - started

        def apply(self, replies):  # type: ignore[no-untyped-def]
            started = time.perf_counter()
            try:
                return super().apply(replies)
            finally:
                spent["apply"] += time.perf_counter() - started
                spent["rounds"] += 1

    timed = dataclasses.replace(game, new_engine=TimedEngine)
    bots = [PythonBot(game.starter_bots[name], name) for name in names]
    started = time.perf_counter()
    run = run_match(timed, bots, seed=seed)
    seconds = time.perf_counter() - started
    rounds = spent["rounds"]
    return {
        "seconds": seconds,
        "rounds": rounds,
        "engine_ms_per_round": 1000.0 * (spent["observe"] + spent["apply"]) / rounds,
        "rules_ms_per_round": 1000.0 * spent["apply"] / rounds,
        "observe_ms_per_round": 1000.0 * spent["observe"] / rounds,
        "bots_ms": [round(t, 1) for t in run.replay.time_used_ms],
        "scores": run.result.scores,
        "peak_mb": peak_mb(),
    }


def run_trace() -> dict[str, Any]:
    from botarena.core.config import build_config
    from botarena.games.domains.actions import order_json, parse_orders
    from botarena.games.domains.config import PRESETS, DomainsConfig
    from botarena.games.domains.protocol import export_new, parse_trace
    from botarena.games.domains.rules import DomainsGame

    trace = parse_trace((FIXTURES / "dummy2p_seed1.trace.txt").read_text())
    config = build_config(DomainsConfig, PRESETS, "reference", {"num_players": 2})
    lists = [
        [
            parse_orders({"orders": [order_json(o) for o in listed]}, config.unit_table_size)[0]
            for listed in traced.orders
        ]
        for traced in trace.rounds
    ]
    game = DomainsGame(config, trace.seed)
    started = time.perf_counter()
    for traced, orders in zip(trace.rounds, lists, strict=True):
        game.source.index = traced.index  # type: ignore[attr-defined]
        game.play_round(orders)
    seconds = time.perf_counter() - started
    exact = export_new(game, ["Dummy", "Dummy"]) == (FIXTURES / "dummy2p_seed1.txt").read_text()
    return {
        "seconds": seconds,
        "ms_per_round": 1000.0 * seconds / len(lists),
        "byte_exact": exact,
        "peak_mb": peak_mb(),
    }


SCENARIOS = {
    "2p": lambda: run_game(["dummy", "dummy"]),
    "4p": lambda: run_game(["dummy", "surveyor", "demo", "dummy"]),
    "trace": run_trace,
}


def child(name: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--one", name], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--one", choices=sorted(SCENARIOS), help=argparse.SUPPRESS)
    parser.add_argument("--repeat", type=int, default=1, help="runs per scenario; the best is shown")
    args = parser.parse_args()
    if args.one:
        print(json.dumps(SCENARIOS[args.one]()))
        return
    trace = min((child("trace") for _ in range(args.repeat)), key=lambda r: r["seconds"])
    print(
        f"engine alone, reference 2p game (500 rounds): {trace['ms_per_round']:.3f} ms/round "
        f"({trace['seconds']:.2f} s), byte-exact {trace['byte_exact']}, peak {trace['peak_mb']:.0f} MB "
        f"[original C++ engine: ~0.3 ms/round]"
    )
    for name, label in (("2p", "2 players, dummy vs dummy"), ("4p", "4 players, dummy/surveyor/demo/dummy")):
        best = min((child(name) for _ in range(args.repeat)), key=lambda r: r["seconds"])
        print(
            f"{label}, 50x50, 500 rounds: {best['seconds']:.2f} s per game; engine "
            f"{best['engine_ms_per_round']:.3f} ms/round (rules {best['rules_ms_per_round']:.3f} + "
            f"observations {best['observe_ms_per_round']:.3f}); bots {best['bots_ms']} ms; "
            f"peak {best['peak_mb']:.0f} MB"
        )
    print(
        f"targets: engine <= {TARGET_MS_PER_ROUND} ms/round, 2p game <= {TARGET_GAME_S} s, "
        f"peak <= {TARGET_PEAK_MB} MB"
    )


if __name__ == "__main__":
    main()
