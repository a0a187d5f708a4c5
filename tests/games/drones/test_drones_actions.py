"""Action validation (spec 5.2 `seed`, 5.3 `bravolt2018`) and the start and end exchanges (5.4)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from drones_testkit import GAME, ScriptedBot, act, config, new_engine, reply, turn
from hypothesis import given
from hypothesis import strategies as st

from botarena.bots.inprocess import PythonBot
from botarena.core.protocol import MessageType, Reply
from botarena.core.status import Reason, Status
from botarena.games.drones.actions import judge_bravolt, judge_seed
from botarena.games.drones.bots.examples import Pacifist
from botarena.games.drones.engine import DronesEngine
from botarena.runner import run_match

BAD_COUNTS = [
    "3",
    "",
    None,
    [1],
    [],
    {"n": 1},
    0.5,
    2.25,
    -1,
    -0.5,
    -3.0,
    math.nan,
    math.inf,
    -math.inf,
    True,
    False,
]


def _seed(payload: Any) -> tuple[Any, Any]:
    return judge_seed(Reply(0, Status.OK, payload))


def _bravolt(payload: Any) -> tuple[Any, Any]:
    return judge_bravolt(Reply(0, Status.OK, payload))


# -- 5.2 seed --------------------------------------------------------------------------------------


@pytest.mark.parametrize("payload", [None, [], [1, 2], "hello", "", 3, 0, 1.5, True, False])
def test_seed_5_2_step2_not_an_object_is_invalid(payload: Any) -> None:
    action, verdict = _seed(payload)
    assert action is None
    assert (verdict.status, verdict.reason, verdict.detail) == (
        Status.INVALID,
        Reason.NOT_OBJECT,
        "action must be an object",
    )


def test_seed_5_2_step3_error_without_action_keys_is_a_bot_error() -> None:
    action, verdict = _seed({"error": "playTurn: boom"})
    assert action is None
    assert (verdict.status, verdict.reason, verdict.detail) == (
        Status.CRASHED,
        Reason.BOT_ERROR,
        "playTurn: boom",
    )


@pytest.mark.parametrize("key", ["newProducers", "newSoldiers"])
@pytest.mark.parametrize("value", BAD_COUNTS, ids=repr)
def test_seed_5_2_step4_bad_counts_make_the_whole_action_invalid(key: str, value: Any) -> None:
    payload = {"newProducers": 1, "newSoldiers": 1, "launchAttack": True, key: value}
    action, verdict = _seed(payload)
    assert action is None
    assert (verdict.status, verdict.reason) == (Status.INVALID, Reason.BAD_FIELD)
    assert verdict.detail == f"{key} must be a non-negative integer"


@pytest.mark.parametrize(("value", "expected"), [(3, 3), (3.0, 3), (1e3, 1000), (0, 0), (0.0, 0), (-0.0, 0)])
def test_seed_5_2_step4_integral_numbers_are_integers(value: Any, expected: int) -> None:
    action, verdict = _seed({"newProducers": value, "newSoldiers": value})
    assert verdict.status is Status.OK
    assert (action.producers, action.soldiers) == (expected, expected)
    assert type(action.producers) is int


@pytest.mark.parametrize("value", [1, 0, "true", None, [], {}, 1.0], ids=repr)
def test_seed_5_2_step5_launch_attack_must_be_a_boolean(value: Any) -> None:
    action, verdict = _seed({"newSoldiers": 1, "launchAttack": value})
    assert action is None
    assert (verdict.status, verdict.reason, verdict.detail) == (
        Status.INVALID,
        Reason.BAD_FIELD,
        "launchAttack must be a boolean",
    )


def test_seed_5_2_first_failure_decides() -> None:
    _, verdict = _seed({"newProducers": "x", "launchAttack": "y"})
    assert verdict.detail == "newProducers must be a non-negative integer"
    _, verdict = _seed({"newSoldiers": -1, "launchAttack": "y"})
    assert verdict.detail == "newSoldiers must be a non-negative integer"


def test_seed_5_2_step6_absent_keys_and_unknown_keys() -> None:
    action, verdict = _seed({})
    assert (action.producers, action.soldiers, action.attack, verdict.status) == (0, 0, False, Status.OK)
    # 5.1: an unknown key is ignored by the rules; the platform still tells the author (issue 15)
    action, verdict = _seed({"newProducers": 1, "comment": "hi", "launchAttack": False})
    assert (action.producers, action.attack, verdict.status) == (1, False, Status.OK)
    assert verdict.warnings == [{"code": "UNKNOWN_KEY", "detail": "unknown key 'comment' ignored"}]


def test_seed_5_2_invalid_turn_is_recorded_and_does_nothing() -> None:
    step = turn(new_engine(), act(P=1, S="2", A=True), act(P=1))
    entry = step.record["players"][0]
    assert entry == {
        "status": "INVALID",
        "reason": "bad_field",
        "warnings": [],
        "requested": {"newProducers": 1, "newSoldiers": "2", "launchAttack": True},
        "applied": None,
        "producers": 1,
        "soldiers": 0,
        "detail": "newSoldiers must be a non-negative integer",
    }
    assert "roundResult" not in step.record


def test_seed_numpy_scalars_from_in_process_bots_are_their_values() -> None:
    action, verdict = _seed(
        {"newProducers": np.int64(2), "newSoldiers": np.float64(1.0), "launchAttack": np.bool_(1)}
    )
    assert verdict.status is Status.OK
    assert (action.producers, action.soldiers, action.attack) == (2, 1, True)
    assert type(action.producers) is int and type(action.attack) is bool
    _, verdict = _seed({"newProducers": np.float64(0.5)})
    assert verdict.status is Status.INVALID


@given(st.one_of(st.text(), st.none(), st.lists(st.integers()), st.booleans(), st.floats(), st.integers()))
def test_seed_5_2_any_count_value_is_judged_without_crashing(value: Any) -> None:
    action, verdict = _seed({"newSoldiers": value})
    valid = type(value) in (int, float) and math.isfinite(value) and float(value).is_integer() and value >= 0
    assert (verdict.status is Status.OK) == valid
    assert (action is not None) == valid


# -- 5.3 bravolt2018 -------------------------------------------------------------------------------


def test_bravolt_5_3_null_payload_is_no_action_ok() -> None:
    action, verdict = _bravolt(None)
    assert action is None
    assert (verdict.status, [w["code"] for w in verdict.warnings]) == (Status.OK, ["NO_ACTION"])


@pytest.mark.parametrize("payload", [[], "hello", 3, True, False])
def test_bravolt_5_3_other_non_objects_are_invalid(payload: Any) -> None:
    action, verdict = _bravolt(payload)
    assert action is None
    assert (verdict.status, verdict.reason) == (Status.INVALID, Reason.NOT_OBJECT)


def test_bravolt_5_3_error_without_action_keys_is_a_bot_error() -> None:
    action, verdict = _bravolt({"error": "load failed"})
    assert action is None and (verdict.status, verdict.reason) == (Status.CRASHED, Reason.BOT_ERROR)


@pytest.mark.parametrize(
    "value", ["3", "", None, [1], [], {"n": 1}, True, False, math.nan, math.inf], ids=repr
)
def test_bravolt_5_3_non_numbers_are_coerced_to_zero_with_a_warning(value: Any) -> None:
    action, verdict = _bravolt({"newProducers": value, "newSoldiers": 1, "launchAttack": True})
    assert verdict.status is Status.OK
    assert (action.producers, action.soldiers, action.attack) == (0, 1, True)
    assert [w["code"] for w in verdict.warnings] == ["COERCED"]
    assert "newProducers" in verdict.warnings[0]["detail"]


@pytest.mark.parametrize("value", [-1, -0.5, 0, 0.0, -0.0])
def test_bravolt_5_3_negatives_and_zero_are_silently_zero(value: Any) -> None:
    action, verdict = _bravolt({"newSoldiers": value, "launchAttack": True})
    assert (action.soldiers, action.attack, verdict.status, verdict.warnings) == (0, True, Status.OK, [])


@pytest.mark.parametrize(("value", "expected"), [(0.5, 0.5), (3, 3), (3.0, 3), (1e-7, 1e-7)])
def test_bravolt_5_3_positive_numbers_are_used_as_doubles(value: Any, expected: Any) -> None:
    action, _ = _bravolt({"newProducers": value})
    assert action.producers == expected


@pytest.mark.parametrize(
    ("value", "attack", "warned"),
    [
        (True, True, False),
        (1, True, False),
        (1.0, True, False),
        (False, False, False),
        (0, False, True),
        ("true", False, True),
        ("1", False, True),
        (None, False, True),
        ([1], False, True),
        ({}, False, True),
        (2, False, True),
    ],
    ids=repr,
)
def test_bravolt_5_3_launch_attack_is_true_or_the_number_one(value: Any, attack: bool, warned: bool) -> None:
    action, verdict = _bravolt({"launchAttack": value})
    assert action.attack is attack
    assert ([w["code"] for w in verdict.warnings] == ["COERCED"]) is warned


def test_bravolt_5_3_counts_coerced_independently_rest_applies() -> None:
    step = turn(new_engine("bravolt2018"), {"newProducers": "5", "newSoldiers": 1, "launchAttack": True}, {})
    entry = step.record["players"][0]
    assert entry["status"] == "OK"
    assert (entry["producers"], entry["soldiers"]) == (1, 1)
    assert step.record["roundResult"]["trigger"] == "ATTACK"


@given(
    st.recursive(
        st.none() | st.booleans() | st.floats() | st.integers() | st.text(),
        lambda children: st.lists(children) | st.dictionaries(st.text(), children),
        max_leaves=8,
    )
)
def test_bravolt_5_3_any_json_value_is_judged_without_crashing(value: Any) -> None:
    for payload in (value, {"newProducers": value, "newSoldiers": value, "launchAttack": value}):
        action, verdict = _bravolt(payload)
        assert verdict.status in (Status.OK, Status.INVALID, Status.CRASHED)
        if action is not None:
            assert action.producers >= 0 and action.soldiers >= 0


# -- 5.4 errors, transport statuses ----------------------------------------------------------------


@pytest.mark.parametrize("judge", [judge_seed, judge_bravolt])
def test_5_4_error_with_action_keys_is_applied_with_hook_error(judge: Any) -> None:
    action, verdict = judge(Reply(0, Status.OK, {"error": "onRoundStart: oops", "newProducers": 1}))
    assert action.producers == 1 and verdict.status is Status.OK
    assert verdict.warnings == [{"code": "HOOK_ERROR", "detail": "onRoundStart: oops"}]


@pytest.mark.parametrize("judge", [judge_seed, judge_bravolt])
@pytest.mark.parametrize(
    ("status", "reason"),
    [
        (Status.TIMEOUT, Reason.DEADLINE),
        (Status.CRASHED, Reason.PROCESS_EXITED),
        (Status.CRASHED, Reason.BOT_ERROR),
        (Status.INVALID, Reason.BAD_JSON),
    ],
)
def test_5_4_transport_failures_pass_through_as_no_action(judge: Any, status: Status, reason: str) -> None:
    action, verdict = judge(Reply(1, status, None, reason))
    assert action is None
    assert (verdict.seat, verdict.status, verdict.reason) == (1, status, reason)


def test_5_4_a_timed_out_bot_is_asked_again() -> None:
    engine = new_engine()
    step = turn(engine, Reply(0, Status.TIMEOUT, None, Reason.DEADLINE), {})
    assert step.record["players"][0]["status"] == "TIMEOUT"
    step = turn(engine, act(P=1), {})
    assert step.record["players"][0]["status"] == "OK"
    assert step.record["players"][0]["producers"] == 2


# -- 5.4 the start exchange ------------------------------------------------------------------------

META = {"name": "Bot", "author": "me"}
ANONYMOUS = {"name": "Anonymous Player"}


@pytest.mark.parametrize(
    ("start", "status", "reason", "warnings", "meta"),
    [
        ({}, "OK", None, [], {"name": "Anonymous Player"}),
        ({"meta": META}, "OK", None, [], META),
        ({"meta": None}, "OK", None, [], None),
        ({"meta": META, "error": "onMatchStart: x"}, "OK", None, ["HOOK_ERROR"], META),
        ({"error": "cannot load"}, "CRASHED", "bot_error", [], {"name": "Anonymous Player"}),
        ("hello", "INVALID", "not_object", [], {"name": "Anonymous Player"}),
        (None, "INVALID", "not_object", [], {"name": "Anonymous Player"}),
        (Reply(0, Status.TIMEOUT, None, Reason.DEADLINE), "TIMEOUT", "deadline", [], ANONYMOUS),
        (Reply(0, Status.CRASHED, None, Reason.PROCESS_EXITED), "CRASHED", "process_exited", [], ANONYMOUS),
    ],
)
def test_5_4_start_exchange(start: Any, status: str, reason: Any, warnings: list[str], meta: Any) -> None:
    engine = DronesEngine(config(), 0)
    engine.start_requests()
    verdicts = engine.apply_start([reply(0, start), reply(1, {"meta": META})])
    assert (verdicts[0].status.value, verdicts[0].reason) == (status, reason)
    assert [w["code"] for w in verdicts[0].warnings] == warnings
    assert (verdicts[1].status, verdicts[1].warnings) == (Status.OK, [])
    assert engine.result().details["meta"] == [meta, META]
    # Whatever the start status, a live bot still gets every turn request.
    assert [r.seat for r in engine.next_requests()] == [0, 1]


def test_5_4_start_hook_error_text_is_kept() -> None:
    engine = DronesEngine(config(), 0)
    verdicts = engine.apply_start([reply(0, {"meta": META, "error": "onMatchStart: x"}), reply(1, {})])
    assert verdicts[0].warnings == [{"code": "HOOK_ERROR", "detail": "onMatchStart: x"}]
    assert verdicts[0].detail is None


def test_5_4_start_timeout_then_still_plays_every_turn_through_the_runner() -> None:
    class SlowStarter:
        def setup(self, start: dict[str, Any]) -> dict[str, Any]:
            import time

            time.sleep(30)  # preempted at the setup deadline
            return {"meta": META}

        def act(self, obs: dict[str, Any]) -> dict[str, Any]:
            return {"newProducers": obs["producers"]}

    cfg = config(rounds=2, turn_limit=3, setup_timeout_ms=100)
    run = run_match(GAME, [PythonBot(SlowStarter), PythonBot(Pacifist)], config=cfg, seed=5)
    assert run.replay.start["verdicts"][0][:2] == ["TIMEOUT", "deadline"]
    assert run.result.details["meta"][0] == {"name": "Anonymous Player"}
    assert len(run.replay.steps) == 6
    assert all(s["record"]["players"][0]["status"] == "OK" for s in run.replay.steps)


@pytest.mark.parametrize(
    ("end", "status", "reason", "warnings"),
    [
        ({}, "OK", None, []),
        ({"anything": 1}, "OK", None, []),
        ({"error": "onRoundEnd: x"}, "OK", None, ["HOOK_ERROR"]),
        ("garbage", "INVALID", "not_object", []),
        (None, "INVALID", "not_object", []),
        (Reply(0, Status.TIMEOUT, None, Reason.DEADLINE), "TIMEOUT", "deadline", []),
        (Reply(0, Status.CRASHED, None, Reason.BOT_ERROR), "CRASHED", "bot_error", []),
    ],
)
def test_5_4_end_exchange_gets_a_status_and_changes_nothing(
    end: Any, status: str, reason: Any, warnings: list[str]
) -> None:
    engine = new_engine(rounds=1, turn_limit=1)
    turn(engine, act(S=1), {})
    before = engine.result().to_json()
    verdicts = engine.apply_end([reply(0, end), reply(1, {})])
    assert (verdicts[0].status.value, verdicts[0].reason) == (status, reason)
    assert [w["code"] for w in verdicts[0].warnings] == warnings
    assert engine.result().to_json() == before


def test_5_4_end_request_through_the_runner() -> None:
    def respond(request: Any) -> Any:
        if request.type is MessageType.END:
            return "garbage"
        if request.type is MessageType.START:
            return {}
        return {"newSoldiers": request.payload["producers"], "launchAttack": request.payload["turn"] == 2}

    bots = [ScriptedBot(respond), ScriptedBot(lambda request: {})]
    run = run_match(GAME, bots, config=config(rounds=2), seed=1)
    assert run.replay.end["verdicts"][0][:2] == ["INVALID", "not_object"]
    assert run.result.details["outcome"] == "PLAYER 1"
    end = bots[0].requests[-1]
    assert end.type is MessageType.END
    assert end.payload["outcome"] == "WIN" and end.payload["roundWins"] == 2
    assert end.payload["lastRound"]["outcome"] == "WIN"


@pytest.mark.parametrize("rules", ["seed", "bravolt2018"])
def test_odd_in_process_values_never_crash_the_engine(rules: str) -> None:
    """Principle 3: whatever an in-process bot hands back, the engine judges it."""
    engine = new_engine(rules, rounds=1, turn_limit=6)
    odd = [
        {"error": 10**5000},
        {"error": 10**5000, "newProducers": 1},
        {"newProducers": 10**5000, "newSoldiers": 10**400},
        {"newSoldiers": math.inf, "launchAttack": math.nan},
        {"newProducers": np.float64("nan")},
    ]
    steps = [turn(engine, payload, {}) for payload in odd]
    assert [s.record["players"][0]["status"] for s in steps] == (
        ["CRASHED", "OK", "OK", "INVALID", "INVALID"]
        if rules == "seed"
        else ["CRASHED", "OK", "OK", "OK", "OK"]
    )
    details = [w["detail"] for s in steps for w in s.record["players"][0]["warnings"]]
    details += [s.verdicts[0].detail or "" for s in steps]
    assert details and all(len(text) < 200 for text in details)
    verdicts = engine.apply_end([reply(0, {"error": 10**5000}), reply(1, {})])
    assert verdicts[0].warnings == [{"code": "HOOK_ERROR", "detail": "<int>"}]
