"""Size of the self-contained viewer page against its replay, for a long game of each game (issue 26 item 5).

For each game a long match of starter bots is played (in-process, no pacing), its replay written as
`botarena play --replay` writes it (gzip JSON), and the page built as `botarena view FILE --html`
builds it, plus the notebook view (`PlayedMatch.iframe()`, the page in an `srcdoc` attribute).
Printed per game: turns (steps), replay bytes (the .json.gz file), the replay's JSON bytes
uncompressed, the page's bytes, the notebook view's bytes, and each as a ratio to the gzip replay
(the target: a full `course` Devops game <= 15 MB and no page over 3x its gzip replay).

`--keep DIR` keeps the replays in DIR and reuses them on the next run, so a second run with another
checkout first on the path (`PYTHONPATH=/path/to/other/src`) measures the other page builder on the
same games ("before" against "after") without playing them again.

    .venv/bin/python benchmarks/html_size.py [--keep DIR] [--games devops,drones] [--devops-factions 2]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from botarena.bots.inprocess import PythonBot
from botarena.core.game import MatchResult
from botarena.core.registry import get_game
from botarena.core.replay import Replay, read_replay, write_replay
from botarena.notebook import PlayedMatch
from botarena.runner import run_match
from botarena.server.standalone import standalone_html

# game -> (starter bots, preset, overrides): long games, each the length a real one has
LONG: dict[str, tuple[list[str], str, dict[str, Any]]] = {
    "devops": (["expander", "starter"], "course", {"turn_interval_ms": 0}),  # 2,400 turns
    "drones": (["tactician", "adaptive"], "default", {"rounds": 500, "turn_limit": 20}),
    "datspulse": (["forager", "raider"], "default", {"turns": 300}),
    "craftingquest": (["prospector", "wanderer"], "default", {"width": 100, "height": 100}),
    "domains": (["surveyor", "dummy"], "default", {}),  # 500 rounds on 50 x 50
}
MB = 1_000_000


def long_replay(game_id: str, folder: Path, factions: int) -> tuple[Replay, Path]:
    """The long match of `game_id`: read from `folder` when a previous run kept it, else played."""
    path = folder / f"{game_id}-long.json.gz"
    if path.is_file():
        return read_replay(path), path
    game = get_game(game_id)
    starters, preset, overrides = LONG[game_id]
    if game_id == "devops":
        starters = [starters[i % len(starters)] for i in range(factions)]
    bots = [PythonBot(game.starter_bots[s], f"{s}{i}") for i, s in enumerate(starters)]
    config = game.config(preset, overrides)
    with ThreadPoolExecutor(1) as pool:  # the runner's SIGALRM preemption wants a worker thread
        replay = pool.submit(run_match, game, bots, config=config, seed=7, preset=preset).result().replay
    return replay, write_replay(replay, path)


def measure(game_id: str, folder: Path, factions: int) -> dict[str, Any]:
    started = time.perf_counter()
    replay, path = long_replay(game_id, folder, factions)
    played = time.perf_counter() - started
    started = time.perf_counter()
    page = standalone_html(replay).encode("utf-8")
    built = time.perf_counter() - started
    view = PlayedMatch(game_id, replay.seed, MatchResult([], []), replay).iframe().encode("utf-8")
    return {
        "game": game_id,
        "turns": len(replay.steps),
        "gz": path.stat().st_size,
        "json": len(replay.dumps()),
        "page": len(page),
        "notebook": len(view),
        "play_s": played,
        "build_s": built,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="keep (and reuse) the replays in this folder")
    parser.add_argument("--games", default=",".join(LONG), help="comma-separated game ids")
    parser.add_argument("--devops-factions", type=int, default=2, help="factions in the Devops game")
    args = parser.parse_args()
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    unknown = sorted(set(games) - set(LONG))
    if unknown:
        parser.error(f"unknown game(s) {', '.join(unknown)}; choose from {', '.join(LONG)}")
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        header = (
            f"{'game':<14}{'turns':>6}{'replay.gz':>12}{'json':>12}{'page':>12}{'page/gz':>9}"
            f"{'notebook':>12}{'nb/gz':>7}{'play s':>8}{'build s':>8}"
        )
        print(header)
        for game_id in games:
            try:
                row = measure(game_id, folder, args.devops_factions)
            except FileNotFoundError as exc:  # e.g. a preset map that is not shipped
                print(f"{game_id:<14} skipped: {exc}")
                continue
            print(
                f"{row['game']:<14}{row['turns']:>6}{row['gz'] / MB:>10.2f}MB{row['json'] / MB:>10.2f}MB"
                f"{row['page'] / MB:>10.2f}MB{row['page'] / row['gz']:>8.2f}x"
                f"{row['notebook'] / MB:>10.2f}MB{row['notebook'] / row['gz']:>6.2f}x"
                f"{row['play_s']:>8.1f}{row['build_s']:>8.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
