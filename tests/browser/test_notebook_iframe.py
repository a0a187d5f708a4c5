"""`botarena.play(...)`'s inline viewer (issue 17, deliverable 5): a page holding nothing but the
match's `_repr_html_` output, as a notebook's output cell holds it, plays the match inside its iframe
with no request made."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from viewer_page import scrub, texts

import botarena
from botarena.notebook import IFRAME_HEIGHT, PlayedMatch

pytestmark = pytest.mark.browser


def test_repr_html_shows_the_viewer_playing_the_match(page: Any) -> None:
    with ThreadPoolExecutor(1) as pool:  # SIGALRM preemption belongs to a worker thread under pytest
        match: PlayedMatch = pool.submit(
            botarena.play, "drones", ["zergy", "adaptive"], seed=5, config={"rounds": 2, "turn_limit": 6}
        ).result()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.route("**/*", lambda route: route.abort())  # nothing may be fetched, from anywhere
    page.set_content(f"<!doctype html><html><body>{match._repr_html_()}</body></html>")

    element = page.wait_for_selector("iframe")
    box = element.bounding_box()
    assert box is not None and box["height"] == IFRAME_HEIGHT and box["width"] > 600
    frame = element.content_frame()
    assert frame is not None
    frame.wait_for_function("window.__botarena && (window.__botarena.ready || window.__botarena.error)")
    assert frame.evaluate("window.__botarena.error") is None
    n = len(match.replay.steps)
    shown = texts(frame)
    assert shown["step-counter"] == f"1 / {n}"
    assert shown["players"] == "zergy vs adaptive"
    scrub(frame, n - 1)
    shown = texts(frame)
    assert shown["step-counter"] == f"{n} / {n}"
    assert shown["result"] and shown["result"] != "in progress"
    assert requests == [], f"the inline viewer requested {requests}"
