"""Keys in a bot's reply that the game does not read (a misspelt `newproducers`) are not silently
accepted (issue 15, item 3): the reply is judged as if the key were absent, and its verdict carries an
UNKNOWN_KEY warning naming the closest key, recorded in the replay and summed up by `botarena play`.
Checked for every game, in both seats, with the misspelling added to the game's random bot's replies."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from botarena.bots.inprocess import PythonBot
from botarena.core.registry import get_game
from botarena.core.status import UNKNOWN_KEY
from botarena.runner import run_match

# game -> (a misspelt key added to every decision reply, the key the warning must suggest, config)
MISSPELLINGS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "drones": ("newproducers", "newProducers", {"rounds": 2}),
    "domains": ("order", "orders", {"number_of_rounds": 6, "board_height": 10, "board_width": 10}),
    "devops": ("typ", "type", {"turn_limit": 4}),
    "datspulse": ("move", "moves", {"turns": 4, "map_hexes_per_team": 300}),
    "craftingquest": ("actoin", "action", {"width": 50, "height": 50, "rounds": 2}),
}


class Misspeller:
    """The game's random bot, with one more key in every object it returns."""

    def __init__(self, inner: Any, key: str) -> None:
        self.inner, self.key = inner, key

    def setup(self, payload: Any) -> Any:
        setup = getattr(self.inner, "setup", None)
        return setup(payload) if setup is not None else {}

    def act(self, payload: Any) -> Any:
        act = getattr(self.inner, "act", None)
        reply = act(payload) if act is not None else self.inner(payload)
        return {**reply, self.key: 1} if isinstance(reply, dict) else reply


def warnings_of(replay: Any, seat: int) -> list[dict[str, str]]:
    found = []
    for step in replay.steps:
        for index, verdict in enumerate(step["verdicts"]):
            seat_of = step["replies"][index].get("seat", index)
            if seat_of == seat and len(verdict) > 3 and verdict[3]:
                found += [w for w in verdict[3] if w["code"] == UNKNOWN_KEY]
    return found


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("game_id", sorted(MISSPELLINGS))
def test_a_misspelt_key_is_a_warning_naming_the_right_one(game_id: str, seat: int) -> None:
    game = get_game(game_id)
    key, suggested, overrides = MISSPELLINGS[game_id]
    players = max(2, game.min_players)
    bots = [PythonBot(game.random_bot, name=f"plain{s}") for s in range(players)]
    bots[seat] = PythonBot(lambda: Misspeller(game.random_bot(), key), name="typo")
    run = run_match(game, bots, config=game.config(overrides=overrides), seed=7)
    warned = warnings_of(run.replay, seat)
    assert warned, f"no UNKNOWN_KEY warning for {key!r}"
    assert all(f"unknown key {key!r} ignored (did you mean {suggested!r}?)" in w["detail"] for w in warned)
    for other in range(players):
        if other != seat:
            assert warnings_of(run.replay, other) == []


def test_play_prints_the_unknown_keys_of_a_subprocess_bot(tmp_path: Path) -> None:
    bot = tmp_path / "typo.py"
    bot.write_text(
        "def act(obs):\n"
        "    return {'newproducers': obs['producers'], 'newSoldiers': 0, 'launchAttack': False}\n"
    )
    spec = f"cmd:{sys.executable} -m botarena.kit {bot}"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "botarena",
            "play",
            "drones",
            "pacifist",
            spec,
            "--seed",
            "2",
            "--set",
            "rounds=1",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    line = done.stderr.splitlines()[0]
    assert (
        line.startswith("botarena: seat 1 (typo.py, cmd:")
        and "unknown keys ignored (UNKNOWN_KEY), the first at step 1" in line
    )
    assert "unknown key 'newproducers' ignored (did you mean 'newProducers'?)" in line
