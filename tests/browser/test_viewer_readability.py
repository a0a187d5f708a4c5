"""What a newcomer reads at a glance (issue 15, item 5): a legend for every game, Domains' round the
same on the map and in the step label, signed scores that cannot be misread, and a page that fits
a 390 px wide phone."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from short_replays import GAMES, play_short
from viewer_page import scrub, text, texts

from botarena.core.replay import Replay
from botarena.standalone import write_standalone_html

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
MINUS = "\u2212"


@pytest.fixture(scope="module")
def short(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Replay, Path]]:
    """A short replay of every game and its self-contained page (module-scoped: played once)."""
    folder = tmp_path_factory.mktemp("short")
    out = {}
    for game in GAMES:
        replay, _ = play_short(game, folder)
        out[game] = (replay, write_standalone_html(replay, folder / f"{game}.html"))
    return out


def open_page(page: Any, html: Path) -> Any:
    page.goto(html.as_uri())
    page.wait_for_function("window.__botarena && (window.__botarena.ready || window.__botarena.error)")
    assert page.evaluate("window.__botarena.error") is None
    return page


@pytest.fixture
def phone_page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport=PHONE, device_scale_factor=1)
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert not errors


@pytest.mark.parametrize("game", GAMES)
def test_every_game_shows_a_legend_with_the_board(game: str, page: Any, short: Any) -> None:
    _, html = short[game]
    open_page(page, html)
    assert page.get_by_test_id("legend").is_visible()
    items = page.evaluate(
        """() => [...document.querySelectorAll('[data-testid="legend-item"]')].map((li) => {
            const glyph = li.querySelector('.glyph');
            const css = getComputedStyle(glyph);
            const colour = [css.backgroundColor, css.borderTopColor, css.borderBottomColor, css.boxShadow]
                .find((c) => c && !/rgba\\(0, 0, 0, 0\\)|none/.test(c));
            return {label: li.innerText.trim(), colour: colour || null};
        })"""
    )
    assert len(items) >= 5, items
    for item in items:
        assert item["label"] and item["colour"], item
    assert len({item["label"] for item in items}) == len(items)


def test_domains_legend_names_every_glyph_of_the_board(page: Any, short: Any) -> None:
    open_page(page, short["domains"][1])
    legend = text(page, "legend")
    for thing in ("owned square", "trail", "ability zone", "unit", "upgraded", "bubble", "bonus"):
        assert thing in legend


def test_devops_legend_names_tiles_icons_and_units(page: Any, short: Any) -> None:
    open_page(page, short["devops"][1])
    legend = text(page, "legend")
    for thing in ("territory", "base", "resource", "fortified", "bomb", "pioneer", "worker", "fighter"):
        assert thing in legend


def test_domains_round_is_the_same_on_the_map_and_in_the_step_label(page: Any, short: Any) -> None:
    """DR-35: rounds are numbered 0 .. number_of_rounds-1, as the bots see them; the step label and
    the map's heading both show the round just played."""
    replay, html = short["domains"]
    open_page(page, html)
    total = replay.config["number_of_rounds"]
    for index, step in enumerate(replay.steps):
        scrub(page, index)
        played = step["record"]["round"]
        assert text(page, "step-label") == f"Round {played}"
        probe = page.evaluate("window.__botarena.probe()")
        assert probe["roundText"] == f"Round {played} · {played + 1} of {total} played"
    assert replay.steps[-1]["record"]["round"] == total - 1


def negative(replay: Replay, **result: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(replay.dumps())
    data["result"] = {**data["result"], **result}
    return data


def load(page: Any, data: dict[str, Any]) -> str:
    page.evaluate("(r) => window.__botarena.load(r)", data)
    page.wait_for_function("window.__botarena.ready")
    return text(page, "result")


def test_signed_scores_use_a_minus_sign_and_a_colon(page: Any, short: Any) -> None:
    replay, html = short["domains"]
    open_page(page, html)
    names = [p["name"] for p in replay.players]
    # the shell's own result text (a game without a renderer)
    unknown = negative(replay, ranks=[1, 2], scores=[20095, -10500])
    unknown["game"] = "nosuchgame"
    assert load(page, unknown) == f"seat 0 · {names[0]} wins (20095 : {MINUS}10500)"
    fraction = negative(replay, ranks=[2, 1], scores=[-3, 12.5])
    assert load(page, fraction) == f"seat 1 · {names[1]} wins ({MINUS}3 : 12.5)"


@pytest.mark.parametrize("game", ["devops", "craftingquest"])
def test_signed_scores_in_the_games_result_texts(game: str, page: Any, short: Any) -> None:
    replay, html = short[game]
    open_page(page, html)
    data = negative(replay, scores=[20095, -10500])
    assert load(page, data).endswith(f"(20095 : {MINUS}10500)")
    assert "–-" not in text(page, "result")


OVERFLOW = """() => {
    const width = document.documentElement.clientWidth;
    const wide = [...document.querySelectorAll('body *')].filter((e) => {
        const r = e.getBoundingClientRect();
        if (!r.width || r.right <= width + 0.5) return false;
        for (let p = e.parentElement; p; p = p.parentElement) {   // inside a box that scrolls: fine
            const s = getComputedStyle(p);
            const clips = /(auto|scroll|hidden)/.test(s.overflowX);
            if (clips && p.getBoundingClientRect().right <= width + 0.5) return false;
        }
        return true;
    }).map((e) => `${e.tagName}#${e.id}.${e.className} right=${e.getBoundingClientRect().right}`);
    return {scrollWidth: document.documentElement.scrollWidth, wide};
}"""


@pytest.mark.parametrize("game", GAMES)
def test_the_viewer_fits_a_390_px_phone(game: str, phone_page: Any, short: Any) -> None:
    replay, html = short[game]
    page = open_page(phone_page, html)
    page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    for index in (0, len(replay.steps) - 1):
        scrub(page, index)
        measured = page.evaluate(OVERFLOW)
        assert measured["scrollWidth"] <= PHONE["width"], measured
        assert not measured["wide"], measured
    assert texts(page)["step-counter"].endswith(f"/ {len(replay.steps)}")


def test_each_seat_panel_holds_its_log_for_the_whole_match(page: Any, short: Any) -> None:
    replay, html = short["drones"]
    open_page(page, html)
    data: dict[str, Any] = json.loads(replay.dumps())
    data["logs"] = [
        {"seat": 0, "text": "turn 1: attack\n</script><b>not markup</b>\n", "dropped_bytes": 0},
        {"seat": 1, "text": "", "dropped_bytes": 4096},
    ]
    load(page, data)
    log = page.get_by_test_id("player-0-log")
    assert log.locator("summary").inner_text() == "log for the whole match (2 lines)"
    assert not page.get_by_test_id("player-0-log-text").is_visible()  # collapsed until asked for
    log.locator("summary").click()
    shown = page.get_by_test_id("player-0-log-text").inner_text()
    assert shown == "turn 1: attack\n</script><b>not markup</b>\n"
    other = page.get_by_test_id("player-1-log")
    assert other.locator("summary").inner_text() == "log for the whole match (0 lines, 4096 bytes dropped)"
    data["logs"] = []
    load(page, data)
    assert page.get_by_test_id("player-0-log").locator("summary").inner_text() == "log: no output"


class _Counter:
    """Prints which call it is in, with non-ASCII text (the marks are UTF-8 byte offsets)."""

    def __init__(self) -> None:
        self.calls = 0

    def act(self, obs: Any) -> Any:
        self.calls += 1
        print(f"call {self.calls} ✓ é")
        return {"newProducers": obs["producers"], "newSoldiers": 0, "launchAttack": False}


def test_each_frame_shows_what_the_bots_printed_during_it(page: Any, tmp_path: Path) -> None:
    from botarena.bots.inprocess import PythonBot
    from botarena.core.registry import get_game
    from botarena.runner import run_match

    game = get_game("drones")
    bots = [PythonBot(_Counter, name="counter"), PythonBot(game.starter_bots["pacifist"], name="quiet")]
    run = run_match(game, bots, config=game.config(overrides={"rounds": 1}), seed=4)
    open_page(page, write_standalone_html(run.replay, tmp_path / "logs.html"))
    for index in (0, 1, len(run.replay.steps) - 1):
        scrub(page, index)
        assert page.get_by_test_id("player-0-step-log").inner_text() == f"call {index + 1} ✓ é"
        assert not page.get_by_test_id("player-1-step-log").is_visible()  # it printed nothing
