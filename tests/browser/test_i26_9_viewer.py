"""Issue 26, item 9: the viewer fixes and one seat convention.

- the Devops map uses the whole stage at `course` size (not a 500 px box of a 960 px canvas);
- rock-paper-scissors hands are shapes, not emoji (Debian's chromium has no emoji font);
- long team names are never cut silently: ellipsized with the whole name in a title attribute;
- the notebook's 640 px frame shows the step controls;
- every viewer labels seats "seat N · name", N 0-based as the CLI prints them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from short_replays import GAMES, play_short
from viewer_page import pixel, scrub, texts

import botarena
from botarena.bots.inprocess import PythonBot
from botarena.core.registry import get_game
from botarena.core.replay import Replay
from botarena.notebook import IFRAME_HEIGHT
from botarena.runner import run_match
from botarena.standalone import write_standalone_html

pytestmark = pytest.mark.browser

# Every string the page draws on a canvas, kept in window.__drawn (installed before the page's scripts).
RECORD_CANVAS_TEXT = """
window.__drawn = [];
for (const name of ["fillText", "strokeText"]) {
  const original = CanvasRenderingContext2D.prototype[name];
  CanvasRenderingContext2D.prototype[name] = function (text, ...rest) {
    window.__drawn.push(String(text));
    return original.call(this, text, ...rest);
  };
}
"""

# Emoji blocks (pictographs, dingbats such as U+270A-270C, the variation selector that asks for an
# emoji presentation): none can be drawn without an emoji font.
EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\ufe0f]")

# The seat names of before: 1-based "PLAYER 1", "faction 1", "team 1", "player 1" (and "player 0").
OLD_SEAT_NAMES = re.compile(r"\b(PLAYER|[Pp]layer|[Ff]action|[Tt]eam) \d")

SEAT_VIEWERS = ["craftingquest", "datspulse", "devops", "domains", "drones"]
assert sorted(SEAT_VIEWERS) == GAMES


def play(game_id: str, names: list[str], preset: str, overrides: dict[str, Any], seed: int = 5) -> Replay:
    game = get_game(game_id)
    bots = [PythonBot(game.starter_bots[name], name) for name in names]
    config = game.config(preset, overrides)
    with ThreadPoolExecutor(1) as pool:  # SIGALRM preemption belongs to a worker thread under pytest
        return pool.submit(run_match, game, bots, config=config, seed=seed).result().replay


def open_page(page: Any, html: Path) -> Any:
    page.add_init_script(RECORD_CANVAS_TEXT)
    page.goto(html.as_uri())
    page.wait_for_function("window.__botarena && (window.__botarena.ready || window.__botarena.error)")
    assert page.evaluate("window.__botarena.error") is None
    return page


def drawn(page: Any) -> list[str]:
    return list(page.evaluate("window.__drawn"))


# ------------------------------------------------------------------ 1. the Devops map fills the stage


@pytest.fixture(scope="module")
def course_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Devops game on a `course` map (150-200 x 100-160 tiles), a few turns long."""
    replay = play("devops", ["expander", "starter"], "course", {"turn_limit": 4}, seed=3)
    return write_standalone_html(replay, tmp_path_factory.mktemp("course") / "course.html")


def map_on_screen(page: Any) -> dict[str, float]:
    """The map's box and tile in CSS pixels, from the renderer's probe and the canvas's shown size."""
    return dict(
        page.evaluate(
            """() => {
                const c = document.querySelector('[data-testid="canvas"]');
                const p = window.__botarena.probe();
                const r = c.getBoundingClientRect();
                const scale = r.width / p.canvas.width;
                return { w: p.map.w * scale, h: p.map.h * scale, cell: p.cell * scale,
                         aspect: r.height / r.width, logical: p.canvas.height / p.canvas.width,
                         bottom: document.querySelector('[data-testid="scrub"]')
                             .getBoundingClientRect().bottom };
            }"""
        )
    )


@pytest.mark.parametrize("viewport", [(1440, 960), (1920, 1080), (1024, 700)])
def test_i26_9_devops_course_map_fills_the_stage(browser: Any, course_page: Path, viewport: Any) -> None:
    width, height = viewport
    context = browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=1)
    try:
        page = open_page(context.new_page(), course_page)
        stage = page.evaluate("window.__botarena.stage")
        shown = map_on_screen(page)
        share = max(shown["w"] / stage["width"], shown["h"] / stage["height"])
        assert share >= 0.9, (shown, stage)
        assert shown["aspect"] == pytest.approx(shown["logical"], rel=0.01)  # scaled, never stretched
        # the old 500 px box of a 960 px canvas gave 2.7 px a tile at 1440 x 960
        assert shown["cell"] >= 3.5, shown
        assert shown["bottom"] <= height, "the step slider is below the window"
    finally:
        context.close()


def test_i26_9_devops_ranking_is_in_the_side_panel(page: Any, course_page: Path) -> None:
    """Spec devops.md 12's live ranking moved from the canvas to each faction's card."""
    open_page(page, course_page)
    shown = texts(page)
    ranks = sorted(shown[f"player-{seat}-rank"] for seat in (0, 1))
    assert ranks == ["1 of 2", "2 of 2"]
    for key in ("score", "gold", "territory", "units", "kills", "bombs", "status"):
        assert shown[f"player-0-{key}"], key
    probe = page.evaluate("window.__botarena.probe()")
    assert probe["map"]["w"] >= 0.98 * probe["canvas"]["width"] - 8


# ------------------------------------------------------------------ 2. rps hands without emoji


@pytest.fixture(scope="module")
def rps_page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Replay, Path]:
    game = get_game("rps")
    names = sorted(game.starter_bots)[:2]
    replay = play("rps", names, "default", {"rounds": 12}, seed=4)
    return replay, write_standalone_html(replay, tmp_path_factory.mktemp("rps") / "rps.html")


def test_i26_9_rps_hands_are_drawn_shapes_not_emoji(page: Any, rps_page: Any) -> None:
    replay, html = rps_page
    open_page(page, html)
    moves = set()
    for index in range(len(replay.steps)):
        scrub(page, index)
        for hand in page.evaluate("window.__botarena.probe()").get("hands", []):
            moves.add(hand["move"])
            assert pixel(page, hand["sample"]) == (0xE2, 0xE8, 0xF0), hand  # the hand's fill
    assert moves == {"rock", "paper", "scissors"}, moves  # the cycler plays each
    shown = " ".join(drawn(page)) + page.evaluate("document.body.innerText")
    assert not EMOJI.findall(shown), EMOJI.findall(shown)


# ------------------------------------------------------------------ 3. long names are never cut


LONG = [
    "an-entrant-with-a-remarkably-long-team-name-from-the-north",
    "its-rival-with-an-even-longer-team-name-from-the-south",
]


@pytest.mark.parametrize("game", GAMES)
def test_i26_9_long_names_are_whole_in_titles_and_never_cut_silently(
    game: str, page: Any, tmp_path: Path
) -> None:
    replay, _ = play_short(game, tmp_path, names=LONG)
    open_page(page, write_standalone_html(replay, tmp_path / f"{game}.html"))
    for index in (0, len(replay.steps) - 1):
        scrub(page, index)
    for seat, name in enumerate(LONG):
        card = page.get_by_test_id(f"player-{seat}-name")
        assert card.get_attribute("title") == name
        assert card.inner_text() == name  # CSS ellipsizes the box, the text is whole
        fits = page.evaluate(
            "(s) => { const c = document.querySelector(`[data-testid=player-${s}-card]`);"
            " return c.scrollWidth <= c.clientWidth; }",
            seat,
        )
        assert fits, f"seat {seat}'s card overflows"
        assert name in texts(page)["players"]
    for text in drawn(page):  # on the canvas: the whole name, or a cut that says so
        for name in LONG:
            if name[:10] in text and name not in text:
                assert "…" in text, text


# ------------------------------------------------------------------ 4. the notebook frame


@pytest.fixture(scope="module")
def notebook_html() -> Callable[[str], str]:
    """notebook_html(game) -> the `_repr_html_` of a short `botarena.play` of `game`, played once per
    module: both widths show the same match."""
    made: dict[str, str] = {}

    def get(game: str) -> str:
        if game not in made:
            starters, preset, overrides = {
                "drones": (["zergy", "adaptive"], "default", {"rounds": 2, "turn_limit": 6}),
                "devops": (["expander", "starter"], "course", {"turn_limit": 3}),
            }[game]
            with ThreadPoolExecutor(1) as pool:
                match = pool.submit(
                    botarena.play, game, starters, seed=5, preset=preset, config=overrides
                ).result()
            made[game] = match._repr_html_()
        return made[game]

    return get


@pytest.mark.parametrize("game", ["drones", "devops"])
@pytest.mark.parametrize("width", [1400, 820])
def test_i26_9_notebook_frame_shows_the_controls(
    page: Any, notebook_html: Callable[[str], str], game: str, width: int
) -> None:
    page.set_content(
        f'<!doctype html><html><body><div style="width:{width}px">{notebook_html(game)}</div></body></html>'
    )
    element = page.wait_for_selector("iframe")
    frame_box = element.bounding_box()
    assert frame_box is not None and frame_box["height"] == IFRAME_HEIGHT
    frame = element.content_frame()
    frame.wait_for_function("window.__botarena && (window.__botarena.ready || window.__botarena.error)")
    assert frame.evaluate("window.__botarena.error") is None
    bottom = frame_box["y"] + frame_box["height"]
    for testid in ("play", "scrub", "forward", "back", "step-counter", "canvas"):
        box = frame.get_by_test_id(testid).bounding_box()
        assert box is not None and box["y"] >= frame_box["y"] and box["y"] + box["height"] <= bottom, testid
    assert frame.evaluate("document.scrollingElement.scrollTop") == 0


# ------------------------------------------------------------------ 5. one seat convention


@pytest.mark.parametrize("game", SEAT_VIEWERS)
def test_i26_9_seats_read_seat_n_name(game: str, page: Any, tmp_path: Path) -> None:
    replay, _ = play_short(game, tmp_path)
    names = [p["name"] for p in replay.players]
    open_page(page, write_standalone_html(replay, tmp_path / f"{game}.html"))
    seen = []
    for index in range(0, len(replay.steps), max(1, len(replay.steps) // 6)):
        scrub(page, index)
        shown = texts(page)
        assert shown["player-0-seat"] == f"seat 0 · {names[0]}"
        assert shown["player-1-seat"] == f"seat 1 · {names[1]}"
        seen += drawn(page)
        seen.append(page.evaluate("document.body.innerText"))
    old = sorted({m.group(0) for text in seen for m in OLD_SEAT_NAMES.finditer(text)})
    assert not old, f"1-based or game-specific seat names are still shown: {old}"
    assert any("seat 0" in text for text in [*seen, texts(page)["result"]])
