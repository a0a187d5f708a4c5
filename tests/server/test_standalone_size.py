"""The `view --html` page within a budget (issue 26 item 5): the replay, the style and the scripts are
packed (gzip in base64), so a page is about 4/3 of its .json.gz replay plus a fixed ~40 KB of viewer.
Sizes only: that the packed page still plays the same frames is tests/browser/test_viewer_standalone.py."""

from __future__ import annotations

import gzip
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from botarena.core.game import MatchResult
from botarena.core.registry import get_game
from botarena.core.replay import Replay, ReplayError
from botarena.notebook import PlayedMatch
from botarena.standalone import DATA_OPEN, embedded_replay, standalone_html

# medium games: long enough that the replay, not the viewer's fixed code, is most of the page
MEDIUM: dict[str, tuple[list[str], str, dict[str, Any]]] = {
    "domains": (
        ["surveyor", "dummy"],
        "default",
        {"number_of_rounds": 150, "board_height": 30, "board_width": 30},
    ),
    "devops": (["expander", "starter"], "default", {"turn_limit": 150, "turn_interval_ms": 0}),
}


def played(game_id: str, starters: list[str], preset: str, overrides: dict[str, Any]) -> Replay:
    from botarena.bots.inprocess import PythonBot
    from botarena.runner import run_match

    game = get_game(game_id)
    bots = [PythonBot(game.starter_bots[s], s) for s in starters]
    config = game.config(preset, overrides)
    with ThreadPoolExecutor(1) as pool:  # SIGALRM preemption belongs to a worker thread under pytest
        return pool.submit(run_match, game, bots, config=config, seed=3).result().replay


def gzip_size(replay: Replay) -> int:
    """The size of the replay's .json.gz file, as `write_replay` writes it."""
    return len(gzip.compress(replay.dumps(), compresslevel=6, mtime=0))


@pytest.mark.parametrize("game_id", sorted(MEDIUM))
def test_i26_5_a_medium_games_page_and_notebook_view_are_within_3x_its_gzip_replay(game_id: str) -> None:
    replay = played(game_id, *MEDIUM[game_id])
    packed = gzip_size(replay)
    assert packed > 20_000, "the game is too short to say anything about the ratio"
    page = standalone_html(replay).encode("utf-8")
    view = PlayedMatch(game_id, replay.seed, MatchResult([], []), replay).iframe().encode("utf-8")
    assert len(page) <= 3 * packed, f"page {len(page)} bytes for a {packed}-byte gzip replay"
    assert len(view) <= 3 * packed, f"notebook view {len(view)} bytes for a {packed}-byte gzip replay"
    assert len(page) < len(replay.dumps()) / 3  # the old page carried the JSON as it is


def test_i26_5_the_page_carries_the_whole_replay_and_the_same_replay_makes_the_same_page() -> None:
    replay = played("domains", *MEDIUM["domains"])
    page = standalone_html(replay)
    assert embedded_replay(page).dumps() == replay.dumps()
    assert standalone_html(replay) == page  # no timestamp in the gzip streams


def test_i26_5_the_viewers_fixed_part_of_a_page_stays_small() -> None:
    """A 1-round game: nearly all of the page is the packed style and scripts and the loader."""
    replay = played("domains", ["surveyor", "dummy"], "default", {"number_of_rounds": 1})
    page = standalone_html(replay).encode("utf-8")
    assert len(page) - gzip_size(replay) * 4 / 3 < 60_000, f"{len(page)} bytes"


@pytest.mark.parametrize(
    ("data", "reason"),
    [(None, "no embedded replay"), ("***", "not base64"), ("H4sIAAAA", "gzip")],
)
def test_i26_5_reading_a_page_back_says_why_it_holds_no_replay(data: str | None, reason: str) -> None:
    page = "<html>no replay here</html>" if data is None else f"{DATA_OPEN}{data}</script>"
    with pytest.raises(ReplayError, match=reason):
        embedded_replay(page)
