"""The rock-paper-scissors renderer in headless chromium: a real replay with a forfeited round, DOM
text (title, round label, player fields, the record, the result) and the move bands' pixels."""

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

COLORS = ["#3b82f6", "#ef4444"]
FORFEIT = "#64748b"


class ForfeitsRoundTwo:
    """Paper, but `"lizard"` in round 2 (INVALID: the round is forfeited, RPS-4)."""

    def act(self, obs: dict[str, Any]) -> Any:
        return "lizard" if obs["round"] == 2 else {"move": "paper"}


def rgb(hex_colour: str) -> tuple[int, int, int]:
    n = int(hex_colour[1:], 16)
    return (n >> 16) & 255, (n >> 8) & 255, n & 255


@pytest.fixture(scope="module")
def rps_replay(tmp_path_factory: pytest.TempPathFactory) -> tuple[Replay, Path]:
    game = get_game("rps")
    bots = [PythonBot(game.starter_bots["cycler"], "cycler"), PythonBot(ForfeitsRoundTwo, "forfeiter")]
    config = game.config(overrides={"rounds": 5})
    with ThreadPoolExecutor(1) as pool:  # SIGALRM preemption belongs to a worker thread under pytest
        replay = pool.submit(run_match, game, bots, config=config, seed=3).result().replay
    return replay, write_replay(replay, tmp_path_factory.mktemp("rps") / "rps.json.gz")


def test_rps_round_moves_scores_and_result(serve: Any, open_viewer: Any, rps_replay: Any) -> None:
    replay, path = rps_replay
    page = open_viewer(serve(path).url)
    shown = texts(page)
    assert shown["game"] == "Rock-paper-scissors"
    # round 1: cycler's rock loses to paper
    assert shown["step-label"] == "Round 1"
    assert shown["player-0-move"] == "rock" and shown["player-1-move"] == "paper"
    assert shown["player-0-score"] == "0" and shown["player-1-score"] == "1"
    assert "forfeiter wins round 1" in shown["record"]
    # round 2: the forfeit (RPS-4) shows, and cycler's paper takes the point (RPS-5)
    scrub(page, 1)
    shown = texts(page)
    assert shown["step-label"] == "Round 2"
    assert shown["player-1-move"] == "forfeit"
    assert shown["player-0-score"] == "1"
    # rounds 3-5: scissors beats paper, rock loses to paper, paper draws with paper (RPS-6)
    assert replay.result["details"]["points"] == [2, 2]
    assert shown["result"] == "Draw 2–2"


def test_rps_move_bands_take_the_seats_colours_and_grey_for_a_forfeit(
    serve: Any, open_viewer: Any, rps_replay: Any
) -> None:
    _replay, path = rps_replay
    page = open_viewer(serve(path).url)
    bands = page.evaluate("window.__botarena.probe()")["bands"]
    assert [pixel(page, band) for band in bands] == [rgb(COLORS[0]), rgb(COLORS[1])]
    scrub(page, 1)
    bands = page.evaluate("window.__botarena.probe()")["bands"]
    assert [band["color"] for band in bands] == [COLORS[0], FORFEIT]
    assert [pixel(page, band) for band in bands] == [rgb(COLORS[0]), rgb(FORFEIT)]
