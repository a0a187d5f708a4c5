"""One short real replay per game, for the browser tests that cover every game (the standalone page,
legends, phone width): starter bots, a small board, a few turns."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from botarena.bots.inprocess import PythonBot
from botarena.core.registry import get_game
from botarena.core.replay import Replay, write_replay
from botarena.runner import run_match

# game -> (starter bots, preset, config overrides)
SHORT: dict[str, tuple[list[str], str, dict[str, Any]]] = {
    "drones": (["zergy", "adaptive"], "default", {"rounds": 2, "turn_limit": 6}),
    "domains": (
        ["surveyor", "dummy"],
        "default",
        {"number_of_rounds": 12, "board_height": 10, "board_width": 10},
    ),
    "devops": (["expander", "starter"], "smoke", {"turn_limit": 12}),
    "datspulse": (["forager", "raider"], "default", {"turns": 8, "map_radius": 16}),
    "craftingquest": (["prospector", "wanderer"], "default", {"width": 50, "height": 50, "rounds": 2}),
}
GAMES = sorted(SHORT)


def play_short(game_id: str, folder: Path, names: list[str] | None = None) -> tuple[Replay, Path]:
    """A short match of `game_id`'s starter bots, written to `folder`/<game>.json.gz. `names`
    renames the seats (e.g. to put markup in a name)."""
    game = get_game(game_id)
    starters, preset, overrides = SHORT[game_id]
    shown = names or starters
    bots = [PythonBot(game.starter_bots[s], n) for s, n in zip(starters, shown, strict=True)]
    config = game.config(preset, overrides)
    with ThreadPoolExecutor(1) as pool:  # SIGALRM preemption belongs to a worker thread under pytest
        replay = pool.submit(run_match, game, bots, config=config, seed=5).result().replay
    return replay, write_replay(replay, folder / f"{game_id}.json.gz")
