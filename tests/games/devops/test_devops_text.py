"""`keyframe_text` on real keyframes of a played game (spec 12's keyframe as the replay stores it)."""

from __future__ import annotations

from functools import cache
from typing import Any

from botarena.bots.inprocess import PythonBot
from botarena.games.devops import GAME
from botarena.games.devops.text import OWNER_CHARS, keyframe_text
from botarena.runner import run_match


@cache
def last_keyframe() -> dict[str, Any]:
    """The last keyframe of a 30-turn, 3-faction game of starters, as the replay stores it."""
    config = GAME.config("smoke", {"turn_limit": 30, "starting_bombs": 2})
    bots = [PythonBot(GAME.starter_bots[name], name) for name in ("expander", "random", "starter")]
    replay = run_match(GAME, bots, config=config, seed=7).replay
    return dict(replay.keyframes[-1]["state"])


def test_the_grid_shows_every_unit_base_and_owned_tile() -> None:
    keyframe = last_keyframe()
    lines = keyframe_text(keyframe).splitlines()
    width, height = keyframe["mapWidth"], keyframe["mapHeight"]
    assert lines[0] == f"devops {keyframe['gameId']} turn {keyframe['turnNumber']} ({width}x{height})"
    grid = lines[1 : 1 + height]
    assert all(len(row) == 2 * width for row in grid)

    def cell(x: int, y: int) -> str:
        return grid[y][2 * x : 2 * x + 2]

    occupied = set()
    for unit in keyframe["units"]:  # DV-5's types by initial, with their faction
        assert cell(unit["x"], unit["y"]) == unit["type"][0] + OWNER_CHARS[unit["owner"] - 1]
        occupied.add((unit["x"], unit["y"]))
    assert keyframe["units"], "a 30-turn game has units to draw"
    shown = {(t["x"], t["y"]) for t in keyframe["tiles"]}
    for tile in keyframe["tiles"]:
        if (tile["x"], tile["y"]) in occupied:
            continue
        owner = OWNER_CHARS[tile["owner"] - 1] if tile["owner"] else " "
        kind = "B" if tile["base"] else "#" if tile["fortified"] else "$" if tile["resource"] else "."
        assert cell(tile["x"], tile["y"]) == kind + owner
    bases = [f["base"] for f in keyframe["factions"]]
    assert sum(row.count("B") for row in grid) >= len([b for b in bases if (b["x"], b["y"]) not in occupied])
    for y in range(height):
        for x in range(width):
            if (x, y) not in shown and (x, y) not in occupied:
                assert cell(x, y) == ". "


def test_one_line_per_faction_with_its_figures() -> None:
    keyframe = last_keyframe()
    height = keyframe["mapHeight"]
    lines = keyframe_text(keyframe).splitlines()
    faction_lines = lines[1 + height :]
    assert len(faction_lines) == len(keyframe["factions"]) == 3
    for line, faction in zip(faction_lines, keyframe["factions"], strict=True):
        units = [u for u in keyframe["units"] if u["owner"] == faction["id"]]
        assert line.startswith(f"faction {faction['id']} [{OWNER_CHARS[faction['id'] - 1]}]: ")
        assert f"score {faction['score']}," in line and f"gold {faction['gold']}," in line
        assert f"territory {faction['territorySize']}," in line
        assert f"units {len(units)}/{faction['populationCap']}" in line
        assert ("defeated at turn" in line) == faction["defeated"]


def test_a_defeated_faction_and_deployed_bombs() -> None:
    keyframe = {
        "turnNumber": 9,
        "mapWidth": 3,
        "mapHeight": 2,
        "gameId": "g",
        "tiles": [
            {"x": 0, "y": 0, "owner": 1, "base": True, "resource": False, "fortified": False, "bombOwner": 1},
            {
                "x": 2,
                "y": 1,
                "owner": None,
                "base": False,
                "resource": True,
                "fortified": False,
                "bombOwner": None,
            },
            {
                "x": 1,
                "y": 1,
                "owner": 2,
                "base": False,
                "resource": False,
                "fortified": True,
                "bombOwner": None,
            },
        ],
        "units": [{"id": 4, "owner": 1, "type": "SAPPER", "x": 1, "y": 0, "health": 6}],
        "factions": [
            {"id": 1, "score": 5, "gold": 10, "territorySize": 1, "populationCap": 5, "bombs": 0, "kills": 1},
            {
                "id": 2,
                "score": -3,
                "gold": 0,
                "territorySize": 1,
                "populationCap": 5,
                "bombs": 2,
                "kills": 0,
                "defeated": True,
                "defeatTurn": 8,
            },
        ],
    }
    assert keyframe_text(keyframe) == (
        "devops g turn 9 (3x2)\n"
        "B1S1. \n"
        ". #2$ \n"
        "faction 1 [1]: score 5, gold 10, territory 1, units 1/5 (SAPPERx1), "
        "bombs 0 in stock 1 deployed, kills 1\n"
        "faction 2 [2]: score -3, gold 0, territory 1, units 0/5, bombs 2 in stock 0 deployed, kills 0, "
        "defeated at turn 8\n"
    )
