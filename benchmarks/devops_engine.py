"""Devops Game engine throughput: turns per second with in-process starter logic (issue 5, 7a).

Scenarios, through the real runner with the replay recorded:
- `8f-default`: 8 factions of the `starter` logic on the default map (32-48 x 24-36), 500 turns;
- `20f-course`: 20 factions of `starter` on the `course` map (150-200 x 100-160), the first 500 turns
  (turn_limit 500, no pacing).
"Engine" is the engine's own share (next_requests + apply); the rest is the bots and the runner.

    .venv/bin/python benchmarks/devops_engine.py
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from botarena.bots.inprocess import PythonBot
from botarena.core.registry import get_game
from botarena.runner import run_match


def scenario(factions: int, preset: str, turns: int, seed: int, bot: str) -> dict[str, Any]:
    game = get_game("devops")
    config = game.config(preset, {"turn_limit": turns, "turn_interval_ms": 0})
    engine_s = [0.0]
    calls = [0]
    original = game.new_engine

    def timed_engine(config: Any, seed: int, n: int) -> Any:
        engine = original(config, seed, n)
        next_requests, apply = engine.next_requests, engine.apply

        def timed_next() -> Any:
            t = time.perf_counter()
            out = next_requests()
            engine_s[0] += time.perf_counter() - t
            calls[0] += len(out)
            return out

        def timed_apply(replies: Any) -> Any:
            t = time.perf_counter()
            out = apply(replies)
            engine_s[0] += time.perf_counter() - t
            return out

        engine.next_requests, engine.apply = timed_next, timed_apply
        return engine

    object.__setattr__(game, "new_engine", timed_engine)
    try:
        bots = [PythonBot(game.starter_bots[bot], f"{bot}{i}") for i in range(factions)]
        started = time.perf_counter()
        run = run_match(game, bots, config=config, seed=seed)
        wall = time.perf_counter() - started
    finally:
        object.__setattr__(game, "new_engine", original)
    played = len(run.replay.steps)
    return {
        "turns": played,
        "calls": calls[0],
        "wall_s": wall,
        "turns_per_s": played / wall,
        "engine_ms_per_turn": engine_s[0] * 1000.0 / max(1, played),
        "calls_per_turn": calls[0] / max(1, played),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=500)
    parser.add_argument("--bot", default="starter")
    args = parser.parse_args()
    for name, factions, preset in (("8f-default", 8, "default"), ("20f-course", 20, "course")):
        r = scenario(factions, preset, args.turns, seed=1, bot=args.bot)
        print(
            f"{name:11s} {r['turns']:4d} turns in {r['wall_s']:6.2f} s: {r['turns_per_s']:7.1f} turns/s "
            f"(engine {r['engine_ms_per_turn']:.2f} ms/turn, "
            f"{r['calls_per_turn']:.0f} calls/turn, {args.bot})"
        )


if __name__ == "__main__":
    main()
