"""`botarena replay FILE --text` prints every keyframe of a replay through its game's text renderer
(`GameInfo.text_renderer`, each game's text.py), for every registered game."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_in_process import botarena_in_process

from botarena.bots.inprocess import PythonBot
from botarena.core.game import GameInfo
from botarena.core.registry import all_games
from botarena.core.replay import write_replay
from botarena.runner import run_match


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.id)
def test_replay_text_prints_each_keyframe(game: GameInfo, tmp_path: Path) -> None:
    players = max(2, game.min_players)
    bots = [PythonBot(game.random_bot, name=f"r{seat}") for seat in range(players)]
    run = run_match(game, bots, config=game.config(overrides=game.test_overrides), seed=3)
    path = write_replay(run.replay, tmp_path / "r.json.gz")
    done = botarena_in_process("replay", str(path), "--text")  # what it prints: no process needed
    assert done.returncode == 0, done.stderr
    expected = "".join(
        f"-- step {frame['step']}\n{game.text_renderer(frame['state']).rstrip()}\n"
        for frame in run.replay.keyframes
    )
    assert done.stdout == expected
    assert done.stdout.count("-- step ") == len(run.replay.keyframes) >= 2
