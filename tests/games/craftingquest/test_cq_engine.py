"""The engine through the real runner: whole games, the replay's shape (step records, keyframes, the
scenario), determinism and `verify`, late and owed answers, crashes and the action limit."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from cq_bots import IdleBot
from cq_testkit import Driver, config_e, scenario_e
from hypothesis import given, settings
from hypothesis import strategies as st

from botarena.bots.inprocess import PythonBot
from botarena.bots.subprocess import SubprocessBot
from botarena.core.replay import Replay, read_replay, write_replay
from botarena.core.status import Status
from botarena.games.craftingquest import GAME
from botarena.games.craftingquest.bots import Prospector, RandomBot
from botarena.games.craftingquest.scenario import Scenario
from botarena.runner import run_match
from botarena.runner.verify import verify_replay

RECORD_KEYS = {"round", "player", "seat", "kind", "status", "reason", "request", "result", "state"}
STATE_KEYS = {"units", "credits", "towers", "cells"}
UNIT_KEYS = {"id", "player", "kind", "x", "y", "energy", "resources", "objects"}
KEYFRAME_KEYS = {
    "round",
    "player",
    "width",
    "height",
    "terrain",
    "camps",
    "units",
    "credits",
    "towers",
    "blueprints_owned",
    "cells",
}
KINDS = {"action", "late_action", "end_turn", "late_discarded", "timeout", "limit", "no_answer"}


def play(factories: list[Any], config: Any, seed: int = 3) -> Replay:
    """A match of in-process bots made by `factories`."""
    bots = [PythonBot(factory, f"seat{seat}") for seat, factory in enumerate(factories)]
    return run_match(GAME, bots, config=config, seed=seed).replay


def events(replay: Replay) -> list[dict[str, Any]]:
    """Every log entry in order: each step's `before` events, then its own."""
    out: list[dict[str, Any]] = []
    for step in replay.steps:
        record = step["record"]
        out += record.get("before", [])
        out.append({k: v for k, v in record.items() if k != "before"})
    return out


def blanked(replay: Replay) -> bytes:
    data = orjson.loads(replay.dumps())
    data["match_id"], data["time_used_ms"], data["logs"] = "", [], []
    for section in [data["start"], *data["steps"], data["end"], *data.get("late", [])]:
        for reply in section.get("replies", [section.get("reply")] if "reply" in section else []):
            reply["ms"] = 0
    return orjson.dumps(data)


def test_cq29_cq49_a_whole_game_of_trivial_bots_through_the_runner() -> None:
    replay = play([IdleBot, IdleBot], config_e())
    assert len(replay.steps) == 320  # 160 rounds, two end_turns each
    assert replay.result == {
        "ranks": [1, 1],
        "scores": [300.0, 300.0],
        "details": {"credits": {"1": 300, "2": 300}, "winner": None},
    }
    assert [v[0] for s in replay.steps for v in s["verdicts"]] == ["OK"] * 320
    assert replay.end["verdicts"] == [["OK", None], ["OK", None]]
    last = replay.keyframes[-1]
    assert last["step"] == 320 and (last["state"]["round"], last["state"]["player"]) == (160, 2)
    assert replay.config["width"] == replay.config["scenario"]["width"] == 50


def test_spec7_4_replay_shape_records_keyframes_and_the_scenario() -> None:
    config = GAME.config(overrides={"turn_budget_ms": 0, "width": 50, "height": 50, "rounds": 15})
    replay = play([Prospector, RandomBot], config)
    scenario = Scenario.from_json(replay.config["scenario"])  # the complete CQ-26 record
    assert replay.config["scenario"] == scenario.to_json() and scenario.width == 50
    assert scenario.origin == {"seed": 3, "map": "generated"}  # for information only (CQ-26)
    for step in replay.steps:
        record = step["record"]
        assert set(record) - {"before"} == RECORD_KEYS and record["kind"] in KINDS
        assert set(record["state"]) == STATE_KEYS
        assert [u["id"] for u in record["state"]["units"]] == [3, 4, 5, 6, 7, 8]
        assert all(set(u) == UNIT_KEYS for u in record["state"]["units"])
        assert set(record["state"]["credits"]) == {"1", "2"}
        for cell in record["state"]["cells"]:
            assert set(cell) == {"x", "y", "resources", "objects", "buried"}
        if record["kind"] in ("action", "late_action"):
            assert {"ok", "error", "energy_spent", "drained"} <= set(record["result"])
    kinds = {e["kind"] for e in events(replay)}
    assert {"action", "end_turn"} <= kinds
    for frame in replay.keyframes:
        assert set(frame["state"]) == KEYFRAME_KEYS
        assert len(frame["state"]["terrain"]) == 50
    first = replay.keyframes[0]["state"]
    buried_cells = {(d.x, d.y) for d in scenario.deposits}
    assert {(c["x"], c["y"]) for c in first["cells"]} == buried_cells
    assert replay.result["details"]["credits"] == replay.keyframes[-1]["state"]["credits"]


def test_spec7_4_cells_in_a_record_are_the_ones_its_event_changed() -> None:
    scenario = scenario_e()

    class PickOnce:
        def __init__(self) -> None:
            self.done = False

        def act(self, payload: dict[str, Any]) -> dict[str, Any]:
            if self.done:
                return {"action": "end_turn"}
            self.done = True
            return {"action": "pickup", "unit": 3, "items": {"R3": 4}}

    replay = play([PickOnce, IdleBot], config_e(scenario, rounds=1))
    first = replay.steps[0]["record"]
    assert first["state"]["cells"] == [
        {"x": 3, "y": 3, "resources": {}, "objects": {}, "buried": {"R3": 6, "R8": 2}}
    ]
    assert [s["record"]["state"]["cells"] for s in replay.steps[1:]] == [[], []]


def test_determinism_same_seed_same_replay_and_verify_reruns_it(tmp_path: Path) -> None:
    config = GAME.config(overrides={"width": 50, "height": 50, "rounds": 10})
    one = play([Prospector, RandomBot], config, seed=11)
    two = play([Prospector, RandomBot], config, seed=11)
    assert blanked(one) == blanked(two)
    back = read_replay(write_replay(one, tmp_path / "cq.json.gz"))
    report = verify_replay(back)
    assert report.identical, str(report)
    other = play([Prospector, RandomBot], config, seed=12)
    assert other.config["scenario"] != one.config["scenario"]


def test_verify_reports_an_edited_replay() -> None:
    replay = play([RandomBot, RandomBot], config_e(rounds=4))
    replay.steps[3]["replies"][0]["payload"] = {
        "action": "dig",
        "unit": replay.steps[3]["replies"][0]["seat"] * 3 + 3,
    }
    report = verify_replay(replay)
    assert not report.identical


class Sleepy:
    """Answers its first action of round 2 only after `delay` seconds, then digs once per turn."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.slept = False

    def act(self, payload: dict[str, Any]) -> dict[str, Any]:
        if payload["type"] == "turn_start" and payload["round"] == 2 and not self.slept:
            self.slept = True
            time.sleep(self.delay)
            return {"action": "scan", "unit": 4}
        if payload["type"] == "turn_start":
            return {"action": "dig", "unit": 3}
        return {"action": "end_turn"}


class SlowIdle:
    """Ends every turn after `pause` seconds (so the owed answer has time to arrive)."""

    def __init__(self, pause: float) -> None:
        self.pause = pause

    def act(self, payload: dict[str, Any]) -> dict[str, Any]:
        time.sleep(self.pause)
        return {"action": "end_turn"}


def test_cq31_cq33_cq34_a_late_answer_through_the_runner_is_queued_and_verifies() -> None:
    config = config_e(rounds=8, turn_budget_ms=300, turn_grace_ms=0)
    replay = run_match(
        GAME,
        [PythonBot(lambda: Sleepy(0.5), "sleepy"), PythonBot(lambda: SlowIdle(0.1), "slow")],
        config=config,
        seed=1,
    ).replay
    log = events(replay)
    timeouts = [e for e in log if e["kind"] == "timeout"]
    assert [(e["round"], e["player"], e["status"], e["reason"]) for e in timeouts] == [
        (2, 1, "TIMEOUT", "deadline")
    ]
    late = [e for e in log if e["kind"] == "late_action"]
    assert (
        len(late) == 1 and late[0]["request"] == {"action": "scan", "unit": 4} and late[0]["status"] == "OK"
    )
    index = log.index(late[0])
    assert log.index(timeouts[0]) < index
    # between the timeout and the late action, player 1's turns were skipped, none was played
    between = [e for e in log[log.index(timeouts[0]) + 1 : index] if e["player"] == 1]
    assert all(e["kind"] == "no_answer" and e["reason"] == "answer_owed" for e in between)
    assert replay.late and replay.late[0]["reply"]["payload"] == {"action": "scan", "unit": 4}
    assert verify_replay(replay).identical


class Raiser:
    def act(self, payload: dict[str, Any]) -> dict[str, Any]:
        if payload["type"] == "turn_start" and payload["round"] == 2:
            raise RuntimeError("bug in round 2")
        return {"action": "end_turn"}


def test_cq34_an_exception_closes_the_turn_and_the_game_goes_on() -> None:
    replay = play([Raiser, IdleBot], config_e(rounds=3))
    crashed = [e for e in events(replay) if e["status"] == "CRASHED"]
    assert [(e["kind"], e["round"], e["reason"]) for e in crashed] == [("no_answer", 2, "bot_error")]
    assert len(replay.steps) == 6 and replay.result["ranks"] == [1, 1]


class Digger:
    """Never ends its turn: the action limit does."""

    def act(self, payload: dict[str, Any]) -> dict[str, Any]:
        return {"action": "dig", "unit": 3}


def test_cq31_the_action_limit_closes_a_turn_through_the_runner() -> None:
    replay = play([Digger, IdleBot], config_e(rounds=3, max_actions_per_turn=4))
    log = events(replay)
    limits = [e for e in log if e["kind"] == "limit"]
    assert limits and all(
        (e["status"], e["reason"], e["player"]) == ("OK", "action_limit", 1) for e in limits
    )
    assert {e["kind"] for e in log if e["player"] == 1} <= {
        "action",
        "limit",
        "late_action",
        "no_answer",
        "late_discarded",
    }
    assert verify_replay(replay).identical


def test_a_subprocess_bot_plays_a_whole_game(tmp_path: Path) -> None:
    source = tmp_path / "digger.py"
    source.write_text(
        "def act(obs):\n"
        "    if obs['type'] == 'turn_start':\n"
        "        return {'action': 'dig', 'unit': obs['units'][0]['id']}\n"
        "    return {'action': 'end_turn'}\n"
    )
    bot = SubprocessBot([sys.executable, "-m", "botarena.kit", str(source)], name="digger")
    replay = run_match(GAME, [bot, PythonBot(IdleBot, "idle")], config=config_e(rounds=5), seed=2).replay
    assert replay.statuses[0] == {"OK": 11}, (replay.statuses, replay.logs)  # first: a failing bot says why
    digs = [e for e in events(replay) if e["kind"] == "action"]
    assert len(digs) == 5 and all(e["result"]["ok"] for e in digs)
    assert digs[0]["result"]["dig"] == {"R3": 10, "R8": 2}


def test_cq33_a_late_line_from_a_subprocess_bot_is_queued_and_verifies(tmp_path: Path) -> None:
    source = tmp_path / "sleepy.py"
    source.write_text(
        "import time\n"
        "def act(obs):\n"
        "    if obs['type'] == 'turn_start' and obs['round'] == 2:\n"
        "        time.sleep(1.2)\n"
        "        return {'action': 'scan', 'unit': 4}\n"
        "    return {'action': 'end_turn'}\n"
    )
    bot = SubprocessBot([sys.executable, "-m", "botarena.kit", str(source)], name="sleepy")
    # generous margins: round 1's answers need well under 500 ms, and the late line (0.7 s after the
    # deadline) arrives long before player 2's 0.2 s turns run out
    config = config_e(rounds=8, turn_budget_ms=500, turn_grace_ms=0, setup_timeout_ms=20000)
    replay = run_match(GAME, [bot, PythonBot(lambda: SlowIdle(0.2), "slow")], config=config, seed=4).replay
    log = events(replay)
    assert [(e["kind"], e["round"]) for e in log if e["kind"] == "timeout"] == [("timeout", 2)]
    late = [e for e in log if e["kind"] == "late_action"]
    assert len(late) == 1 and late[0]["request"] == {"action": "scan", "unit": 4} and late[0]["result"]["ok"]
    assert verify_replay(replay).identical


@pytest.mark.parametrize("preset", ["default", "generated"])
def test_presets_default_and_generated_build_a_game(preset: str) -> None:
    config = GAME.config(preset, {"rounds": 1})
    replay = play([IdleBot, IdleBot], config)
    assert replay.config["scenario"]["width"] == 60 and len(replay.steps) == 2


# -- CQ-31 to CQ-35 as properties: any mix of answers, timeouts, crashes and late arrivals -------------

ANSWERS = st.sampled_from(
    [
        ("ok", {"action": "dig", "unit": 3}),
        ("ok", {"action": "move", "unit": 7, "x": 44, "y": 45}),
        ("ok", {"action": "end_turn"}),
        ("ok", "garbage"),
        ("invalid", None),
        ("timeout", None),
        ("bot_error", None),
        ("exited", None),
    ]
)
LATE = st.sampled_from([None, {"action": "scan", "unit": 3}, {"action": "end_turn"}, "crash"])


def _play_script(script: list[tuple[tuple[str, Any], Any]]) -> tuple[list[Any], list[tuple[int, Any]]]:
    """Play a scripted game; every question is checked to go to a seat that owes nothing."""
    d = Driver(rounds=4, max_actions_per_turn=3)
    asked: list[tuple[int, Any]] = []
    moves = iter(script)
    while d.request is not None:
        player = d.seat + 1
        assert d.engine.owes[player] is None and d.engine.dead[player] is None  # CQ-34
        asked.append((d.seat, d.question))
        (kind, payload), late = next(moves, (("ok", {"action": "end_turn"}), None))
        status, reason = {
            "ok": (Status.OK, None),
            "invalid": (Status.INVALID, "bad_json"),
            "timeout": (Status.TIMEOUT, "not_awaited" if not d.request.await_reply else "deadline"),
            "bot_error": (Status.CRASHED, "bot_error"),
            "exited": (Status.CRASHED, "process_exited"),
        }[kind]
        if not d.request.await_reply and kind != "exited":
            status, reason, payload = Status.TIMEOUT, "not_awaited", None
        d.reply(status, payload, reason)
        for seat in (0, 1):
            if late is not None and d.engine.owes[seat + 1] is not None:
                if late == "crash":
                    d.late(seat, Status.CRASHED, None, "process_exited")
                else:
                    d.late(seat, Status.OK, late)
    return d.records, asked


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(ANSWERS, LATE), max_size=40))
def test_cq31_to_cq35_any_mix_of_answers_ends_and_never_asks_an_owing_seat(script: list[Any]) -> None:
    records, asked = _play_script(script)
    assert len(asked) <= 4 * 2 * 4  # at most rounds x players x (max actions + 1) questions
    log = [e for r in records for e in [*r.get("before", []), r]]
    assert {e["kind"] for e in log} <= KINDS
    assert all(e["round"] <= 4 for e in log)
    assert (records, asked) == _play_script(script)  # deterministic
