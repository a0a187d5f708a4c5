"""Crafting Quest 2 game cost: a whole game of the Prospector against the Wanderer, untimed.

One game on each original map (`map_v1`, `map_v5`, `map_v2`) and one on a generated map, through the
real runner with its replay recorded. The original maps are read from `$BOTARENA_CQ_MAPS`, else from
`../shared/fixtures/craftingquest/maps` next to the checkout; without them each preset prints
"skipped: ...". For each game it prints:

- seconds for the whole game (set-up, every turn, the replay),
- actions per second (every request the engine judged, both players, end_turn included),
- the Prospector's own time per answer (its `act` calls alone, mean and worst, in ms),
- the final credits (Prospector, Wanderer) and the Prospector's seat.

Scenario generation is benchmarked separately (CQ-A's script).

    .venv/bin/python benchmarks/craftingquest_game.py [--seed 1] [--seat 0] [--opponent wanderer]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

SHARED_MAPS = Path(__file__).resolve().parents[1] / ".." / "shared" / "fixtures" / "craftingquest" / "maps"
PRESETS = ("map_v1", "map_v5", "map_v2")


def maps_directory() -> Path | None:
    from botarena.games.craftingquest.maps import find_maps_directory

    return find_maps_directory(SHARED_MAPS)


def play(preset: str, seed: int, seat: int, opponent: str) -> dict[str, Any]:
    from botarena.bots.inprocess import PythonBot
    from botarena.core.registry import get_game
    from botarena.games.craftingquest.bots import STARTERS
    from botarena.games.craftingquest.bots.prospector import Prospector
    from botarena.runner import run_match

    answers: list[float] = []

    class TimedProspector(Prospector):
        def act(self, payload: dict[str, Any]) -> dict[str, Any]:
            started = time.perf_counter()
            try:
                return super().act(payload)
            finally:
                answers.append(time.perf_counter() - started)

    game = get_game("craftingquest")
    config = game.config(preset, overrides={"turn_budget_ms": 0})
    bots = [PythonBot(TimedProspector, "prospector"), PythonBot(STARTERS[opponent], opponent)]
    if seat == 1:
        bots.reverse()
    started = time.perf_counter()
    run = run_match(game, bots, config=config, seed=seed)
    seconds = time.perf_counter() - started
    requests = sum(1 for step in run.replay.steps if step["record"]["kind"] in ("action", "end_turn"))
    scores = run.result.scores
    return {
        "seconds": seconds,
        "actions_per_s": requests / seconds,
        "requests": requests,
        "prospector_ms_mean": 1000.0 * sum(answers) / max(1, len(answers)),
        "prospector_ms_max": 1000.0 * max(answers, default=0.0),
        "credits": (int(scores[seat]), int(scores[1 - seat])),
        "size": f"{config.width}x{config.height}" if preset == "default" else preset,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seat", type=int, choices=(0, 1), default=0, help="the Prospector's seat")
    parser.add_argument("--opponent", default="wanderer")
    args = parser.parse_args(argv)

    from botarena.games.craftingquest.bots import STARTERS

    if args.opponent not in STARTERS:
        print(f"skipped: no starter bot {args.opponent!r} (have: {', '.join(sorted(STARTERS))})")
        return 0
    found = maps_directory()
    if found is not None:
        os.environ["BOTARENA_CQ_MAPS"] = str(found)
    print(f"Prospector (seat {args.seat}) vs {args.opponent}, seed {args.seed}, untimed")
    for preset in (*PRESETS, "default"):
        if preset != "default" and found is None:
            print(f"{preset:8}  skipped: original maps not found (set BOTARENA_CQ_MAPS)")
            continue
        r = play(preset, args.seed, args.seat, args.opponent)
        print(
            f"{preset:8}  {r['size']:8} {r['seconds']:6.2f} s/game  {r['actions_per_s']:7.0f} actions/s "
            f"({r['requests']} requests)  prospector {r['prospector_ms_mean']:.3f} ms/answer "
            f"(max {r['prospector_ms_max']:.1f})  credits {r['credits'][0]} vs {r['credits'][1]}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
