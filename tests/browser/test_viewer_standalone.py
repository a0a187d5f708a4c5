"""`botarena view FILE --html out.html`: one self-contained page that plays the replay from file://
(issue 15, item 5), for every game, with the network blocked and every request recorded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from short_replays import GAMES, play_short
from viewer_page import scrub, texts

from botarena.cli import main
from botarena.standalone import embedded_replay

pytestmark = pytest.mark.browser

CANVAS_HASH = """() => {
    const c = document.querySelector('[data-testid="canvas"]');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let h = 0;
    for (let i = 0; i < d.length; i += 7) h = (h * 31 + d[i]) | 0;
    return h;
}"""


def write_page(replay_path: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert main(["view", str(replay_path), "--html", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    return out


def open_offline(page: Any, html: Path) -> list[str]:
    """Open `html` by its file:// URL with every non-file request refused; the URLs requested."""
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.route(
        "**/*", lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort()
    )
    page.goto(html.as_uri())
    page.wait_for_function("window.__botarena && (window.__botarena.ready || window.__botarena.error)")
    assert page.evaluate("window.__botarena.error") is None
    return requests


@pytest.mark.parametrize("game", GAMES)
def test_html_page_plays_the_replay_from_file_without_any_request(
    game: str, page: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replay, path = play_short(game, tmp_path)
    html = write_page(path, tmp_path / "share" / f"{game}.html", capsys)
    # nothing next to the page: the viewer's files are not there to be found
    assert sorted(p.name for p in html.parent.iterdir()) == [html.name]
    requests = open_offline(page, html)
    n = len(replay.steps)
    assert page.evaluate("window.__botarena.stepCount") == n
    shown = texts(page)
    assert shown["step-counter"] == f"1 / {n}"
    assert shown["players"] == " vs ".join(p["name"] for p in replay.players)
    first_label, first_canvas = shown["step-label"], page.evaluate(CANVAS_HASH)
    assert first_label
    # step forward (the button, as a user would) until the label changes
    for _ in range(n - 1):
        page.get_by_test_id("forward").click()
        if texts(page)["step-label"] != first_label:
            break
    assert texts(page)["step-label"] != first_label
    scrub(page, n - 1)
    shown = texts(page)
    assert shown["step-counter"] == f"{n} / {n}"
    assert page.evaluate(CANVAS_HASH) != first_canvas
    assert shown["result"] and shown["result"] != "in progress"
    assert requests == [html.as_uri()], f"the page requested more than itself: {requests}"


def test_markup_in_the_replay_cannot_break_out_of_the_page(
    page: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    names = ["</script><b>zergy", "<!--adaptive"]
    _, path = play_short("drones", tmp_path, names)
    html = write_page(path, tmp_path / "drones.html", capsys)
    text = html.read_text(encoding="utf-8")
    assert "zergy" not in text and "adaptive" not in text  # base64 in the page: no markup of its own
    assert [p["name"] for p in embedded_replay(text).players] == names  # read back whole
    open_offline(page, html)  # the embedded JSON parsed whole: nothing ended the element early
    assert texts(page)["players"] == " vs ".join(names)


def test_i26_5_a_browser_without_decompressionstream_is_told_why_the_page_cannot_start(
    page: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The page packs its code and replay as gzip (issue 26 item 5): where the browser cannot expand
    them, the page says so instead of staying blank."""
    _, path = play_short("drones", tmp_path)
    html = write_page(path, tmp_path / "drones.html", capsys)
    page.add_init_script("delete window.DecompressionStream")
    page.goto(html.as_uri())
    page.wait_for_function("window.__botarena && window.__botarena.error")
    error = page.evaluate("window.__botarena.error")
    assert "cannot start its viewer" in error and "DecompressionStream" in error
    assert "cannot start its viewer" in page.inner_text("body")


def test_html_from_a_broken_replay_is_one_line_and_no_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "botarena.replay", "format_version": 1, "game": "dro', encoding="utf-8")
    out = tmp_path / "out.html"
    assert main(["view", str(broken), "--html", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not valid JSON" in err
    assert not out.exists()
