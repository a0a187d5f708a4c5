"""The Devops renderer in headless chromium: a real 4-faction replay, DOM text and canvas pixels
(owner tiles blended with white, units in full faction colour, the ranking panel)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from viewer_page import pixel, scrub, texts

from botarena.bots.inprocess import PythonBot
from botarena.core.registry import get_game
from botarena.core.replay import Replay, write_replay
from botarena.runner import run_match

pytestmark = pytest.mark.browser

FACTION_COLORS = ["#E6194B", "#3CB44B", "#4363D8", "#F58231"]
NAMES = ["expander", "starter", "banker", "random"]


def rgb(hex_colour: str) -> tuple[int, int, int]:
    n = int(hex_colour[1:], 16)
    return (n >> 16) & 255, (n >> 8) & 255, n & 255


def blended(hex_colour: str) -> tuple[int, int, int]:
    r, g, b = rgb(hex_colour)
    return round((r + 255) / 2), round((g + 255) / 2), round((b + 255) / 2)


@pytest.fixture(scope="module")
def devops_replay(tmp_path_factory: pytest.TempPathFactory) -> tuple[Replay, Path]:
    game = get_game("devops")
    bots = [PythonBot(game.starter_bots[name], name) for name in NAMES]
    config = game.config("smoke", {"turn_limit": 60})
    with ThreadPoolExecutor(1) as pool:  # SIGALRM preemption belongs to a worker thread under pytest
        replay = pool.submit(run_match, game, bots, config=config, seed=11).result().replay
    return replay, write_replay(replay, tmp_path_factory.mktemp("devops") / "devops.json.gz")


def close(a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
    return all(abs(x - y) <= 2 for x, y in zip(a, b, strict=True))


def test_devops_header_panels_and_ranking(serve: Any, open_viewer: Any, devops_replay: Any) -> None:
    replay, path = devops_replay
    page = open_viewer(serve(path).url)
    shown = texts(page)
    assert shown["game"] == "Devops Game"
    last = len(replay.steps) - 1
    scrub(page, last)
    shown = texts(page)
    rows = {row["factionId"]: row for row in replay.result["details"]["results"]}
    for seat in range(4):
        row = rows[seat + 1]
        assert shown[f"player-{seat}-score"] == str(row["score"])
        assert shown[f"player-{seat}-territory"] == str(row["territorySize"])
        status = "alive" if row["status"] == "alive" else f"defeated at turn {row['defeatTurn']}"
        assert shown[f"player-{seat}-status"] == status
    probe = page.evaluate("window.__botarena.probe()")
    ordered = [row["factionId"] for row in replay.result["details"]["results"]]
    assert probe["ranking"] == ordered


def test_devops_pixels_tiles_and_units(serve: Any, open_viewer: Any, devops_replay: Any) -> None:
    replay, path = devops_replay
    page = open_viewer(serve(path).url)
    owners, unit_owners, letters = set(), set(), set()
    for index in range(0, len(replay.steps), 9):
        scrub(page, index)
        probe = page.evaluate("window.__botarena.probe()")
        keyed = {(u["x"], u["y"]) for u in probe["units"]}
        for tile in probe["tiles"][:20]:
            assert close(pixel(page, tile["sample"]), blended(FACTION_COLORS[tile["owner"] - 1])), tile
            owners.add(tile["owner"])
        for unit in probe["units"][:20]:
            assert (unit["x"], unit["y"]) in keyed
            assert close(pixel(page, unit["sample"]), rgb(FACTION_COLORS[unit["owner"] - 1])), unit
            unit_owners.add(unit["owner"])
            letters.add(unit["type"])
        # the record-built state matches the keyframe where one exists
        step = index + 1
        frame = next((kf for kf in replay.keyframes if kf["step"] == step), None)
        if frame is not None:
            assert sorted(u["id"] for u in probe["units"]) == [u["id"] for u in frame["state"]["units"]]
    assert len(owners) >= 2 and len(unit_owners) >= 2 and len(letters) >= 2
