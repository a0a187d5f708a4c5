"""The Domains renderer in headless chromium: a real 4-player replay, DOM text and canvas pixels."""

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

COLORS = [(0x3B, 0x82, 0xF6), (0xEF, 0x44, 0x44), (0x22, 0xC5, 0x5E), (0xEA, 0xB3, 0x08)]
PAINT = [(0x1D, 0x3D, 0x73), (0x6E, 0x24, 0x30), (0x1D, 0x5A, 0x35), (0x6B, 0x57, 0x14)]
BONUS = (0xF5, 0x9E, 0x0B)
NAMES = ["dummy", "surveyor", "demo", "dummy2"]


@pytest.fixture(scope="module")
def domains_replay(tmp_path_factory: pytest.TempPathFactory) -> tuple[Replay, Path]:
    game = get_game("domains")
    starters = game.starter_bots
    bots = [PythonBot(starters[name.rstrip("2")], name) for name in NAMES]
    config = game.config(overrides={"number_of_rounds": 120, "board_height": 24, "board_width": 24})
    with ThreadPoolExecutor(1) as pool:  # SIGALRM preemption belongs to a worker thread under pytest
        replay = pool.submit(run_match, game, bots, config=config, seed=3).result().replay
    return replay, write_replay(replay, tmp_path_factory.mktemp("domains") / "domains.json.gz")


def test_domains_header_and_player_panels(serve: Any, open_viewer: Any, domains_replay: Any) -> None:
    replay, path = domains_replay
    page = open_viewer(serve(path).url)
    shown = texts(page)
    assert shown["game"] == "Domains"
    assert shown["players"] == " vs ".join(NAMES)
    assert shown["step-label"] == "Round 0"
    last = len(replay.steps) - 1
    scrub(page, last)
    shown = texts(page)
    record = replay.steps[last]["record"]
    for seat in range(4):
        assert shown[f"player-{seat}-points"] == str(record["points"][seat])
        assert shown[f"player-{seat}-units"] == str(sum(1 for u in record["units"] if u[1] == seat))
    final = replay.keyframes[-1]["state"]
    for seat in range(4):
        assert shown[f"player-{seat}-squares"] == str(final["painter"].count(seat))


def test_domains_board_rebuilt_from_records_matches_the_keyframe(
    serve: Any, open_viewer: Any, domains_replay: Any
) -> None:
    replay, path = domains_replay
    page = open_viewer(serve(path).url)
    keyframe = next(kf for kf in replay.keyframes if kf["step"] == 100)
    scrub(page, 97)
    scrub(page, 98)
    scrub(page, 99)  # played forward from step 97: the incremental path, not the keyframe
    shown = texts(page)
    for seat in range(4):
        assert shown[f"player-{seat}-squares"] == str(keyframe["state"]["painter"].count(seat))
    probe = page.evaluate("window.__botarena.probe()")
    assert probe["points"] == keyframe["state"]["points"]
    assert sorted(u["id"] for u in probe["units"]) == [u[0] for u in keyframe["state"]["units"]]


def test_domains_pixels_paint_units_trails_bonuses(serve: Any, open_viewer: Any, domains_replay: Any) -> None:
    replay, path = domains_replay
    page = open_viewer(serve(path).url)
    seen = {
        "paint": set(),
        "units": set(),
        "trails": 0,
        "bonuses": 0,
        "zones": 0,
        "upgraded": 0,
        "ticking": 0,
    }
    for index in range(0, len(replay.steps), 7):
        scrub(page, index)
        probe = page.evaluate("window.__botarena.probe()")
        for square in probe["paint"]:
            assert pixel(page, square["sample"]) == PAINT[square["player"]]
            seen["paint"].add(square["player"])
        for unit in probe["units"]:
            assert pixel(page, unit["sample"]) == COLORS[unit["player"]], unit
            seen["units"].add(unit["player"])
            seen["upgraded"] += unit["upgraded"]
        for square in probe["trails"]:
            assert pixel(page, square["sample"]) == COLORS[square["player"]]
            seen["trails"] += 1
        for bonus in probe["bonuses"]:
            assert pixel(page, bonus["sample"]) == BONUS
            seen["bonuses"] += 1
        seen["zones"] += len(probe["zones"])
        seen["ticking"] += sum(1 for b in probe["bubbles"] if b["rtp"] > 0)
    assert seen["paint"] == {0, 1, 2, 3} and seen["units"] == {0, 1, 2, 3}
    assert seen["trails"] and seen["bonuses"]
    assert seen["zones"], "no ability zone was shown"
