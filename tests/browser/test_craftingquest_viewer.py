"""The Crafting Quest 2 renderer in headless chromium: a real replay of two scripted bots whose first
turn is a known chain of actions (a move, a dig, a scan, a refused move, a tower), then idle turns.

Cell positions are computed here from CQ-1 and the renderer's documented layout (760 px square, whole
pixels per cell); terrain colours, team colours and action colours are the renderer's constants.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from viewer_page import pixel, scrub, text, texts

from botarena.bots.inprocess import PythonBot
from botarena.core.registry import get_game
from botarena.core.replay import Replay, write_replay
from botarena.runner import run_match

pytestmark = pytest.mark.browser

SIZE = 50
ROUNDS = 3
MAP_X = MAP_Y = 10
MAP_PX = 760
# craftingquest.js TERRAIN, by CQ-3 character
TERRAIN = {
    ".": (0x3D, 0x6B, 0x35),
    ":": (0x7A, 0x5A, 0x3A),
    "s": (0xC8, 0xB2, 0x73),
    "*": (0xDF, 0xE4, 0xEA),
    "#": (0x1F, 0x24, 0x30),
    "~": (0x4A, 0x5D, 0x3F),
    "w": (0x3B, 0x82, 0xC4),
    "W": (0x1E, 0x3A, 0x8A),
}
TEAM = {1: (0x3B, 0x82, 0xF6), 2: (0xEF, 0x44, 0x44)}
OK_GREEN = (0x4A, 0xDE, 0x80)
ERROR_RED = (0xF8, 0x71, 0x71)
BURIED = (0xFB, 0x92, 0x3C)


class Scripted:
    """Round 1: move the devil one row towards the middle, dig with the fox, scan with the crocodile,
    move the devil onto its own cell (MoveError, CQ-37), build a tower with the fox; then end the turn.
    Every later turn: end it at once."""

    def __init__(self) -> None:
        self.player = 0
        self.queue: list[dict[str, Any]] = []

    def setup(self, payload: dict[str, Any]) -> dict[str, Any]:
        self.player = payload["player"]
        return {}

    def act(self, payload: dict[str, Any]) -> dict[str, Any]:
        if payload.get("type") == "turn_start":
            self.queue = self._plan(payload) if payload["round"] == 1 else []
        return self.queue.pop(0) if self.queue else {"action": "end_turn"}

    def _plan(self, turn: dict[str, Any]) -> list[dict[str, Any]]:
        units = {u["kind"]: u for u in turn["units"]}
        devil, fox, croc = units["devil"], units["fox"], units["crocodile"]
        step = 1 if self.player == 1 else -1
        return [
            {"action": "move", "unit": devil["id"], "x": devil["x"], "y": devil["y"] + step},
            {"action": "dig", "unit": fox["id"]},
            {"action": "scan", "unit": croc["id"]},
            {"action": "move", "unit": devil["id"], "x": devil["x"], "y": devil["y"] + step},
            {"action": "build_tower", "unit": fox["id"]},
        ]

    def end(self, payload: dict[str, Any]) -> dict[str, Any]:
        return {}


@pytest.fixture(scope="module")
def cq_replay(tmp_path_factory: pytest.TempPathFactory) -> tuple[Replay, Path]:
    game = get_game("craftingquest")
    bots = [PythonBot(Scripted, "north"), PythonBot(Scripted, "south")]
    config = game.config("default", {"width": SIZE, "height": SIZE, "rounds": ROUNDS})
    with ThreadPoolExecutor(1) as pool:  # SIGALRM preemption belongs to a worker thread under pytest
        replay = pool.submit(run_match, game, bots, config=config, seed=4).result().replay
    return replay, write_replay(replay, tmp_path_factory.mktemp("craftingquest") / "cq.json.gz")


def cell_centre(x: int, y: int) -> dict[str, float]:
    """CQ-1: column x left to right, row y top to bottom, in whole-pixel cells."""
    cell = MAP_PX // SIZE
    return {"x": MAP_X + (x + 0.5) * cell, "y": MAP_Y + (y + 0.5) * cell}


def close(a: tuple[int, int, int], b: tuple[int, int, int], tolerance: int = 3) -> bool:
    return all(abs(p - q) <= tolerance for p, q in zip(a, b, strict=True))


def actions(replay: Replay) -> list[tuple[int, dict[str, Any]]]:
    return [(i, s["record"]) for i, s in enumerate(replay.steps) if s["record"]["kind"] == "action"]


def test_cq29_rounds_players_and_panels_follow_the_steps(
    serve: Any, open_viewer: Any, cq_replay: Any
) -> None:
    replay, path = cq_replay
    page = open_viewer(serve(path).url)
    shown = texts(page)
    assert shown["game"] == "Crafting Quest 2"
    assert shown["players"] == "north vs south"
    assert len(actions(replay)) == 10  # five per player in round 1
    for index in sorted(
        {*range(0, len(replay.steps), max(1, len(replay.steps) // 8)), len(replay.steps) - 1}
    ):
        scrub(page, index)
        record = replay.steps[index]["record"]
        state = record["state"]
        shown = texts(page)
        assert shown["step-label"] == f"Round {record['round']} · seat {record['player'] - 1}"
        for seat, player in ((0, 1), (1, 2)):
            assert shown[f"player-{seat}-credit"] == str(state["credits"][str(player)])
            standing = sum(1 for t in state["towers"] if t["owner"] == player and t["alive"])
            assert shown[f"player-{seat}-towers"] == str(standing)
            energies = [
                u["energy"] for u in sorted(state["units"], key=lambda u: u["id"]) if u["player"] == player
            ]
            assert [int(part.split()[1]) for part in shown[f"player-{seat}-energy"].split(" · ")] == energies
        probe = page.evaluate("window.__botarena.probe()")
        assert probe["round"] == record["round"] and probe["player"] == record["player"]
        assert {u["id"]: (u["x"], u["y"], u["energy"]) for u in probe["units"]} == {
            u["id"]: (u["x"], u["y"], u["energy"]) for u in state["units"]
        }


def test_cq3_terrain_and_units_at_their_cells(serve: Any, open_viewer: Any, cq_replay: Any) -> None:
    replay, path = cq_replay
    terrain = replay.keyframes[0]["state"]["terrain"]
    page = open_viewer(serve(path).url)
    last = len(replay.steps) - 1
    scrub(page, last)
    probe = page.evaluate("window.__botarena.probe()")
    assert probe["cell"] == MAP_PX // SIZE
    assert len(probe["terrain"]) >= 3
    for char, sample in probe["terrain"].items():
        assert terrain[sample["y"]][sample["x"]] == char
        assert sample["sample"] == cell_centre(sample["x"], sample["y"])
        assert close(pixel(page, sample["sample"]), TERRAIN[char]), (char, sample)
    units = replay.steps[last]["record"]["state"]["units"]
    for unit in units:
        if any(o is not unit and max(abs(o["x"] - unit["x"]), abs(o["y"] - unit["y"])) <= 1 for o in units):
            continue  # spread or crowded: another unit may cover this one's sample
        drawn = next(u for u in probe["units"] if u["id"] == unit["id"])
        assert drawn["sample"] == cell_centre(unit["x"], unit["y"])
        above_letter = {"x": drawn["sample"]["x"], "y": drawn["sample"]["y"] - probe["cell"] * 0.32}
        assert close(pixel(page, above_letter), TEAM[unit["player"]]), unit


def test_cq37_cq39_actions_drawn_and_described(serve: Any, open_viewer: Any, cq_replay: Any) -> None:
    replay, path = cq_replay
    page = open_viewer(serve(path).url)
    steps = actions(replay)
    # player 1's chain: move, dig, scan, refused move, tower
    (move_i, move), (dig_i, dig), (scan_i, scan), (bad_i, bad), (tower_i, tower) = steps[:5]
    assert [r["request"]["action"] for _, r in steps[:5]] == ["move", "dig", "scan", "move", "build_tower"]

    scrub(page, move_i)
    start = replay.steps[move_i - 1]["record"]["state"] if move_i else replay.keyframes[0]["state"]
    devil = next(u for u in start["units"] if u["id"] == move["request"]["unit"])
    target = move["request"]["x"], move["request"]["y"]
    lines = text(page, "record").splitlines()
    assert lines[0] == "Round 1 · seat 0 · north"  # the game's player 1 is seat 0 (issue 26 item 9)
    assert lines[1] == f"move unit {devil['id']} to ({target[0]}, {target[1]})"
    if move["result"]["ok"]:
        assert lines[2].startswith(f"ok, {move['result']['energy_spent']} energy")
    else:
        assert lines[2].startswith(f"failed: {move['result']['error']['code']}")
    # the arrow from the devil's cell to the target: its shaft, a fifth of the way (clear of the unit
    # now on the target and of its ring), sampled at a whole pixel's corner
    a, b = cell_centre(devil["x"], devil["y"]), cell_centre(*target)
    shaft = {"x": a["x"] + (b["x"] - a["x"]) / 5 - 0.5, "y": a["y"] + (b["y"] - a["y"]) / 5 - 0.5}
    assert close(pixel(page, shaft), OK_GREEN if move["result"]["ok"] else ERROR_RED, tolerance=6)

    scrub(page, dig_i)
    found = dig["result"].get("dig")
    if dig["result"]["ok"]:
        items = " ".join(f"{k}×{v}" for k, v in found.items()) or "nothing"
        assert f"dig found {items}" in text(page, "record")

    scrub(page, scan_i)
    if scan["result"]["ok"]:
        assert f"scan: {len(scan['result']['scan'])} cells with deposits" in text(page, "record")

    scrub(page, bad_i)
    record_text = text(page, "record")
    assert bad["result"]["ok"] is False and bad["result"]["error"]["code"] == "MoveError"
    assert "failed: MoveError" in record_text
    # the turn's earlier move stays as a faint arrow in the team's colour over the ground
    ground = TERRAIN[replay.keyframes[0]["state"]["terrain"][devil["y"]][devil["x"]]]
    faint = ground
    if move["result"]["ok"]:
        faint = tuple(round(0.45 * c + 0.55 * g) for c, g in zip(TEAM[1], ground, strict=True))
    assert close(pixel(page, shaft), faint, tolerance=4)

    scrub(page, tower_i)
    expected = "ok" if tower["result"]["ok"] else f"failed: {tower['result']['error']['code']}"
    assert text(page, "record").splitlines()[2].startswith(expected)
    standing = sum(1 for t in tower["state"]["towers"] if t["alive"] and t["owner"] == 1)
    assert text(page, "player-0-towers") == str(standing)


def test_cq4_hidden_layer_toggle_shows_buried_deposits(serve: Any, open_viewer: Any, cq_replay: Any) -> None:
    replay, path = cq_replay
    terrain = replay.keyframes[0]["state"]["terrain"]
    page = open_viewer(serve(path).url)
    last = len(replay.steps) - 1
    assert replay.steps[last]["record"]["kind"] == "end_turn"  # nothing of an action drawn over the map
    scrub(page, last)
    toggle = page.get_by_test_id("option-hidden")
    assert not toggle.is_checked()
    probe = page.evaluate("window.__botarena.probe()")
    units = [(u["x"], u["y"]) for u in probe["units"]]
    buried = [b for b in probe["buried"] if all(max(abs(b["x"] - x), abs(b["y"] - y)) > 2 for x, y in units)]
    assert len(buried) >= 3
    samples = buried[:8]
    before = [pixel(page, b["sample"]) for b in samples]
    for b, colour in zip(samples, before, strict=True):
        assert close(colour, TERRAIN[terrain[b["y"]][b["x"]]]), b  # hidden: plain terrain
    toggle.check()
    assert page.evaluate("window.__botarena.probe()")["hidden"] is True
    for b in samples:
        alpha = min(0.9, 0.3 + b["amount"] / 60)
        ground = TERRAIN[terrain[b["y"]][b["x"]]]
        blended = tuple(round(alpha * c + (1 - alpha) * g) for c, g in zip(BURIED, ground, strict=True))
        assert close(pixel(page, b["sample"]), blended, tolerance=4), b  # shown: an orange disc
    toggle.uncheck()
    assert [pixel(page, b["sample"]) for b in samples] == before


def test_cq_live_steps_fold_to_the_states_of_the_whole_replay(
    serve: Any, open_viewer: Any, cq_replay: Any
) -> None:
    """A live game arrives as a header (the first keyframe only) and batches of steps: the states the
    page folds while it follows the newest step equal those of the whole replay."""
    replay, path = cq_replay
    page = open_viewer(serve(path).url)
    data = json.loads(replay.dumps())
    picks = sorted({*range(0, len(data["steps"]), 5), len(data["steps"]) - 1})
    read = "(i) => { window.__botarena.setStep(i); return window.__botarena.probe(); }"
    whole = [page.evaluate(read, i) for i in picks]
    head = {**data, "steps": [], "keyframes": data["keyframes"][:1], "result": {}}
    page.evaluate("(r) => window.__botarena.load(r)", head)
    page.wait_for_function("window.__botarena.ready && window.__botarena.stepCount === 0")
    for first in range(0, len(data["steps"]), 4):
        page.evaluate("(s) => window.__botarena.append(s)", data["steps"][first : first + 4])
        newest = min(first + 4, len(data["steps"])) - 1
        assert page.evaluate("window.__botarena.currentStep") == newest  # it follows the newest step
        record = data["steps"][newest]["record"]
        assert text(page, "step-label") == f"Round {record['round']} · seat {record['player'] - 1}"
    assert [page.evaluate(read, i) for i in picks] == whole
