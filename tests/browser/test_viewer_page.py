"""The replay viewer in headless chromium: real replays, real server, DOM text and canvas pixels."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from viewer_page import pixel, scrub, text, texts

from botarena.core.replay import Replay

pytestmark = pytest.mark.browser

BLUE = (0x3B, 0x82, 0xF6)
RED = (0xEF, 0x44, 0x44)
COLORS = {"PLAYER 1": BLUE, "PLAYER 2": RED}
PANEL = (0x11, 0x1A, 0x2E)  # the idle banner's fill


# ------------------------------------------------------------------------------------- helpers


def probe(page: Any) -> dict[str, Any]:
    result = page.evaluate("window.__botarena.probe()")
    assert result is not None
    return dict(result)


def record(replay: Replay, index: int) -> dict[str, Any]:
    return dict(replay.steps[index]["record"])


def label(rec: dict[str, Any]) -> str:
    return f"Round {rec['round']} · Turn {rec['turn']}"


def assert_step_shown(page: Any, replay: Replay, index: int) -> None:
    """The label and both sides' counts and statuses equal the replay's record at `index`."""
    rec = record(replay, index)
    shown = texts(page)
    assert shown["step-label"] == label(rec)
    assert shown["step-counter"] == f"{index + 1} / {len(replay.steps)}"
    for seat, side in enumerate(rec["players"]):
        assert shown[f"player-{seat}-producers"] == str(side["producers"])
        assert shown[f"player-{seat}-soldiers"] == str(side["soldiers"])
        assert shown[f"player-{seat}-status"] == side["status"]
        assert shown[f"player-{seat}-reason"] == (side["reason"] or "")


def first_step(replay: Replay, predicate: Any) -> int:
    return next(i for i, step in enumerate(replay.steps) if predicate(step["record"]))


# ------------------------------------------------------------------------------------- tests


def test_header_and_first_step(serve: Any, open_viewer: Any, zergy_replay: tuple[Replay, Path]) -> None:
    replay, path = zergy_replay
    page = open_viewer(serve(path).url)
    assert page.evaluate("window.__botarena.stepCount") == len(replay.steps)
    assert page.evaluate("window.__botarena.currentStep") == 0
    assert text(page, "game") == "GameOfDrones"
    assert text(page, "players") == "zergy vs adaptive"
    assert text(page, "seed") == "7"
    totals = replay.result["details"]["roundTotals"]
    assert replay.result["details"]["outcome"] == "PLAYER 2"
    score = f"{totals['player1Wins']} : {totals['player2Wins']}"
    assert text(page, "result") == f"seat 1 · adaptive wins {score}"  # seats 0-based (issue 26 item 9)
    assert text(page, "player-0-name") == "zergy"
    assert text(page, "player-1-name") == "adaptive"
    assert_step_shown(page, replay, 0)
    assert text(page, "step-label") == "Round 1 · Turn 1"
    assert "Round 1 of 10 · Turn 1 of 10" in text(page, "record")


def test_scrub_to_a_clash(serve: Any, open_viewer: Any, zergy_replay: tuple[Replay, Path]) -> None:
    replay, path = zergy_replay
    page = open_viewer(serve(path).url)
    clashes = [i for i, step in enumerate(replay.steps) if "roundResult" in step["record"]]
    target = clashes[2]  # the clash that ends round 3
    scrub(page, target)
    assert_step_shown(page, replay, target)
    rr = record(replay, target)["roundResult"]
    assert rr["round"] == 3
    assert f"CLASH: trigger {rr['trigger']}, decided by {rr['decidedBy']}" in text(page, "record")
    wins = sum(1 for i in clashes[:3] if replay.steps[i]["record"]["roundResult"]["outcome"] == "PLAYER 2")
    assert text(page, "player-1-wins") == str(wins)
    # and a step that is not a clash, further on
    scrub(page, target + 1)
    assert_step_shown(page, replay, target + 1)
    assert "CLASH" not in text(page, "record")


def test_bar_pixels_are_the_players_colours(
    serve: Any, open_viewer: Any, zergy_replay: tuple[Replay, Path]
) -> None:
    replay, path = zergy_replay
    page = open_viewer(serve(path).url)
    # a step where PLAYER 1 has soldiers and PLAYER 2 has producers: both bars are drawn
    index = first_step(replay, lambda r: r["players"][0]["soldiers"] > 0 and r["players"][1]["producers"] > 0)
    scrub(page, index)
    geometry = probe(page)
    blue_bar = geometry["bars"][0]["soldiers"]
    red_bar = geometry["bars"][1]["producers"]
    assert blue_bar["value"] == record(replay, index)["players"][0]["soldiers"]
    assert pixel(page, blue_bar["sample"]) == BLUE
    assert pixel(page, red_bar["sample"]) == RED
    # the empty part of a bar's track is not the player's colour
    track = blue_bar["track"]
    end = {"x": track["x"] + track["w"] - 2, "y": track["y"] + track["h"] / 2}
    assert blue_bar["fill"]["w"] < track["w"] - 4
    assert pixel(page, end) != BLUE


def test_clash_banner_and_attack_arrow(
    serve: Any, open_viewer: Any, zergy_replay: tuple[Replay, Path]
) -> None:
    replay, path = zergy_replay
    page = open_viewer(serve(path).url)
    clash = first_step(replay, lambda r: "roundResult" in r)
    quiet = first_step(replay, lambda r: "roundResult" not in r)
    winner = record(replay, clash)["roundResult"]["outcome"]

    scrub(page, clash)
    at_clash = probe(page)
    assert at_clash["banner"]["clash"] is True
    clash_colour = pixel(page, at_clash["banner"]["sample"])
    assert clash_colour == COLORS[winner]
    attackers = [
        s for s, p in enumerate(record(replay, clash)["players"]) if (p["applied"] or {}).get("launchAttack")
    ]
    assert [a["seat"] for a in at_clash["arrows"]] == attackers
    for arrow in at_clash["arrows"]:
        assert pixel(page, arrow["sample"]) == (BLUE, RED)[arrow["seat"]]

    scrub(page, quiet)
    at_quiet = probe(page)
    assert at_quiet["banner"]["clash"] is False
    assert at_quiet["arrows"] == []
    quiet_colour = pixel(page, at_quiet["banner"]["sample"])
    assert quiet_colour == PANEL
    assert quiet_colour != clash_colour
    for arrow in at_clash["arrows"]:  # no arrow where there was one
        assert pixel(page, arrow["sample"]) not in (BLUE, RED)


def test_round_strip_colours_each_round_by_its_winner(
    serve: Any, open_viewer: Any, zergy_replay: tuple[Replay, Path]
) -> None:
    replay, path = zergy_replay
    page = open_viewer(serve(path).url)
    page.keyboard.press("End")
    assert page.evaluate("window.__botarena.currentStep") == len(replay.steps) - 1
    cells = probe(page)["strip"]["cells"]
    outcomes = [s["record"]["roundResult"]["outcome"] for s in replay.steps if "roundResult" in s["record"]]
    assert len(cells) == len(outcomes) == replay.config["rounds"]
    for cell, outcome in zip(cells, outcomes, strict=True):
        assert pixel(page, cell["sample"]) == COLORS[outcome], cell["round"]
    # at the first step no round is decided yet: no cell has a player's colour
    page.keyboard.press("Home")
    for cell in cells:
        assert pixel(page, cell["sample"]) not in (BLUE, RED)


def test_keyboard_steps_and_plays(serve: Any, open_viewer: Any, zergy_replay: tuple[Replay, Path]) -> None:
    replay, path = zergy_replay
    page = open_viewer(serve(path).url)
    current = "window.__botarena.currentStep"
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.evaluate(current) == 2
    assert_step_shown(page, replay, 2)
    page.keyboard.press("ArrowLeft")
    assert page.evaluate(current) == 1
    page.keyboard.press("Shift+ArrowRight")
    assert page.evaluate(current) == 11
    page.keyboard.press("End")
    assert page.evaluate(current) == len(replay.steps) - 1
    page.keyboard.press("Home")
    assert page.evaluate(current) == 0
    page.keyboard.press(" ")
    assert page.evaluate("window.__botarena.playing") is True
    page.keyboard.press(" ")
    assert page.evaluate("window.__botarena.playing") is False
    # the buttons
    page.get_by_test_id("forward").click()
    page.get_by_test_id("forward").click()
    page.get_by_test_id("back").click()
    assert page.evaluate(current) == 1


def test_play_advances(serve: Any, open_viewer: Any, zergy_replay: tuple[Replay, Path]) -> None:
    replay, path = zergy_replay
    page = open_viewer(serve(path).url)
    page.get_by_test_id("speed").select_option("2")  # 4 steps a second: 5 s to the end
    assert page.evaluate("window.__botarena.speed") == 2
    page.get_by_test_id("play").click()
    page.wait_for_function("window.__botarena.currentStep >= 2", timeout=5000)
    page.get_by_test_id("play").click()  # pause
    assert page.evaluate("window.__botarena.playing") is False
    stopped = page.evaluate("window.__botarena.currentStep")
    page.wait_for_timeout(200)
    assert page.evaluate("window.__botarena.currentStep") == stopped
    assert_step_shown(page, replay, stopped)
    assert page.get_by_test_id("scrub").input_value() == str(stopped)
    # playing on to the end stops there
    page.get_by_test_id("speed").select_option("16")
    page.get_by_test_id("play").click()
    page.wait_for_function(f"window.__botarena.currentStep === {len(replay.steps) - 1}", timeout=8000)
    page.wait_for_function("window.__botarena.playing === false", timeout=2000)


def test_statuses_of_a_misbehaving_bot(
    serve: Any, open_viewer: Any, erratic_replay: tuple[Replay, Path]
) -> None:
    replay, path = erratic_replay
    page = open_viewer(serve(path).url)
    seen = set()
    for status, reason in (("INVALID", "not_object"), ("CRASHED", "bot_error"), ("TIMEOUT", "deadline")):
        index = first_step(replay, lambda r, s=status: r["players"][0]["status"] == s)
        scrub(page, index)
        assert_step_shown(page, replay, index)
        assert text(page, "player-0-status") == status
        assert text(page, "player-0-reason") == reason
        assert text(page, "player-1-status") == "OK"
        assert f"seat 0 · erratic: {status} ({reason}" in text(page, "record")
        seen.add(status)
    assert seen == {"INVALID", "CRASHED", "TIMEOUT"}
    # the invalid reply itself is shown, and the crash's exception as a warning
    invalid = first_step(replay, lambda r: r["players"][0]["status"] == "INVALID")
    scrub(page, invalid)
    assert text(page, "player-0-requested") == '"hello"'
    assert text(page, "player-0-action") == "no action"
    crashed = first_step(replay, lambda r: r["players"][0]["status"] == "CRASHED")
    scrub(page, crashed)
    assert "EXCEPTION: RuntimeError: boom" in text(page, "player-0-warnings")
    clamped = first_step(replay, lambda r: any(w["code"] == "CLAMPED" for w in r["players"][0]["warnings"]))
    scrub(page, clamped)
    assert text(page, "player-0-status") == "OK"
    assert "CLAMPED: requested 1000+0" in text(page, "player-0-warnings")
    # at the last step the counts so far are the whole match's
    page.keyboard.press("End")
    assert text(page, "player-0-counts") == "OK 13 · INVALID 1 · TIMEOUT 1 · CRASHED 1"
    assert replay.statuses[0] == {"OK": 13, "INVALID": 1, "CRASHED": 1, "TIMEOUT": 1}
    assert text(page, "player-1-counts") == f"OK {replay.statuses[1]['OK']}"
    assert text(page, "player-0-time-match").endswith("ms")


def test_counts_up_to_two_to_the_fifty(
    serve: Any, open_viewer: Any, huge_replay: tuple[Replay, Path]
) -> None:
    replay, path = huge_replay
    page = open_viewer(serve(path).url)
    page.keyboard.press("End")
    last = len(replay.steps) - 1
    assert record(replay, last)["players"][0]["producers"] == 2**50
    assert_step_shown(page, replay, last)
    assert text(page, "player-0-producers") == "1125899906842624"
    bar = probe(page)["bars"][0]["producers"]
    assert bar["fill"]["w"] == bar["track"]["w"]  # the largest count fills the bar, and no more
    assert pixel(page, bar["sample"]) == BLUE
    page.keyboard.press("Home")  # 2 producers: a short bar
    bar = probe(page)["bars"][1]["producers"]
    assert 2 <= bar["fill"]["w"] < bar["track"]["w"] / 4
    assert pixel(page, bar["sample"]) == RED


def test_file_picker_reads_a_gzip_replay(serve: Any, page: Any, erratic_replay: tuple[Replay, Path]) -> None:
    replay, path = erratic_replay
    page.goto(serve(path).url + "/")  # no ?replay=: an empty viewer
    page.wait_for_function("window.__botarena !== undefined")
    assert page.evaluate("window.__botarena.ready") is False
    page.wait_for_selector("#welcome-text:has-text('Open a replay file')")
    page.set_input_files("[data-testid=file]", str(path))
    page.wait_for_function("window.__botarena.ready")
    assert text(page, "players") == "erratic vs pacifist"
    assert_step_shown(page, replay, 0)


def test_unreadable_replay_is_one_clear_line(serve: Any, open_viewer: Any, tmp_path: Path) -> None:
    page = open_viewer(serve(tmp_path / "gone.json.gz").url, expect_error=True)
    error = page.evaluate("window.__botarena.error")
    assert "HTTP 404" in error and "replay not found: gone.json.gz" in error
    assert text(page, "error") == error
    page.js_errors.clear()  # chromium logs the failed fetch itself


def test_live_steps_are_appended(serve: Any, open_viewer: Any, zergy_replay: tuple[Replay, Path]) -> None:
    """The hook a live game will use: load the head of a match, then append steps as they come."""
    replay, path = zergy_replay
    page = open_viewer(serve(path).url)
    data = json.loads(replay.dumps())
    steps = data["steps"]
    head = {**data, "steps": [], "result": {}, "end": {}, "statuses": [], "time_used_ms": [], "keyframes": []}
    page.evaluate("(r) => window.__botarena.load(r)", head)
    page.wait_for_function("window.__botarena.ready")
    assert text(page, "result") == "in progress"
    assert page.evaluate("window.__botarena.stepCount") == 0
    assert text(page, "step-label") == "No turns yet"

    page.evaluate("(s) => window.__botarena.append(s)", steps[:3])
    assert page.evaluate("window.__botarena.stepCount") == 3
    assert page.evaluate("window.__botarena.currentStep") == 2  # follows the newest step
    assert_step_shown_partial(page, steps, 2)
    scrub(page, 0)  # the user looks back: new steps must not move the view
    page.evaluate("(s) => window.__botarena.append(s)", steps[3:])
    assert page.evaluate("window.__botarena.currentStep") == 0
    assert page.evaluate("window.__botarena.stepCount") == len(steps)
    page.evaluate(
        "(f) => window.__botarena.finish(f)", {"result": data["result"], "statuses": data["statuses"]}
    )
    assert text(page, "result").startswith("seat 1 · adaptive wins")


def assert_step_shown_partial(page: Any, steps: list[dict[str, Any]], index: int) -> None:
    rec = steps[index]["record"]
    assert text(page, "step-label") == label(rec)
    count = page.evaluate("window.__botarena.stepCount")
    assert text(page, "step-counter") == f"{index + 1} / {count}"
    for seat, side in enumerate(rec["players"]):
        assert text(page, f"player-{seat}-producers") == str(side["producers"])
        assert text(page, f"player-{seat}-soldiers") == str(side["soldiers"])
