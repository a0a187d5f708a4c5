"""A notebook's `PlayedMatch` shows the per-seat failure report (issue 26, item 1): a crashing `act`
shows where and why and its traceback's last lines, not only "(6 CRASHED)"; a clean match stays one
line and one iframe."""

from __future__ import annotations

import html
from typing import Any

import botarena


def crash(observation: dict[str, Any]) -> dict[str, Any]:
    raise RuntimeError("boom")


def test_i26_1_a_crashing_act_shows_its_seat_reason_and_traceback() -> None:
    match = botarena.play("craftingquest", ["prospector", crash], seed=4, config={"rounds": 2})
    summary, *report = repr(match).splitlines()
    assert (
        summary.startswith("<PlayedMatch craftingquest seed=4, ")
        and "crash rank 1 score 300 (2 CRASHED)" in summary
    )
    assert report[0].startswith(
        "seat 1 (crash) never played: CRASHED (bot_error) at step 2: RuntimeError: boom"
    )
    assert report[-1] == "    RuntimeError: boom"
    assert any(line.strip().startswith("raise RuntimeError") for line in report)
    assert match.report() == "\n".join(report)
    assert [r.seat for r in match.failures] == [1]

    markup = match._repr_html_()
    assert markup.count("<iframe") == 1 and markup.endswith("></iframe>")
    pre = markup[: markup.index("<iframe")]
    assert pre.startswith("<pre ") and pre.endswith("</pre>")
    assert html.escape(match.report(), quote=True) in pre


def test_i26_1_a_clean_match_shows_no_report() -> None:
    match = botarena.play("rps", ["rock", "cycler"], seed=1, config={"rounds": 3})
    assert match.failures == [] and match.report() == ""
    assert "\n" not in repr(match)
    assert match._repr_html_().startswith("<iframe ")
