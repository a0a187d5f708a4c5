"""Section 5: parse-time validation, statuses and warnings; bad input never crashes a game."""

from __future__ import annotations

from typing import Any

import pytest
from domains_bots import Idle, Scripted, Sleeper

from botarena.bots.inprocess import PythonBot
from botarena.core.protocol import Reply
from botarena.core.registry import get_game
from botarena.core.status import Status
from botarena.games.domains.actions import judge, parse_direction, parse_orders
from botarena.games.domains.state import Order, OrderKind
from botarena.runner import run_match

U = 20


def parsed(payload: Any) -> tuple[list[Order], str, Any, list[str]]:
    orders, status, reason, warnings, _detail = parse_orders(payload, U)
    return orders, status.value, reason, [w["code"] for w in warnings]


@pytest.mark.parametrize(
    ("value", "expected"),
    [(1, 1), (1.0, 1), (0, 0), (8, 8), ("UP", 1), ("dr", 8), ("null", 0), ("Left", 3)],
)
def test_section5_directions_numbers_and_names(value: Any, expected: int) -> None:
    assert parse_direction(value) == expected


@pytest.mark.parametrize("value", [None, True, False, 9, -1, 1.5, "north", [], {}, float("nan")])
def test_section5_bad_directions(value: Any) -> None:
    assert parse_direction(value) is None


def test_section5_valid_reply_keeps_the_order_given() -> None:
    payload = {
        "orders": [{"unit": 3, "type": "attack", "dir": "UL"}, {"unit": 0, "type": "move", "dir": 2.0}]
    }
    orders, status, reason, warnings = parsed(payload)
    assert orders == [Order(3, OrderKind.attack, 5), Order(0, OrderKind.move, 2)]
    assert (status, reason, warnings) == ("OK", None, [])


def test_section5_ability_ignores_dir_whatever_it_is() -> None:
    orders, status, _, warnings = parsed({"orders": [{"unit": 1, "type": "ability", "dir": "garbage"}]})
    assert orders == [Order(1, OrderKind.ability, 0)] and status == "OK" and warnings == []


def test_section5_bad_entries_are_dropped_with_a_warning_each() -> None:
    payload = {
        "orders": [
            "not an object",
            {"unit": 20, "type": "move", "dir": 1},  # outside [0, U)
            {"unit": -1, "type": "move", "dir": 1},
            {"unit": True, "type": "move", "dir": 1},
            {"unit": 1.5, "type": "move", "dir": 1},
            {"unit": 2, "type": "jump", "dir": 1},
            {"unit": 2, "type": "move"},
            {"unit": 2, "type": "attack", "dir": None},
            {"unit": 2, "type": "move", "dir": 12},
            {"unit": 4.0, "type": "move", "dir": "right"},
        ]
    }
    orders, status, reason, warnings = parsed(payload)
    assert orders == [Order(4, OrderKind.move, 4)]
    assert status == "OK" and reason is None
    assert warnings == ["DROPPED_ENTRY"] * 9


def test_f5_second_order_for_a_unit_is_dropped() -> None:
    payload = {"orders": [{"unit": 1, "type": "move", "dir": 1}, {"unit": 1, "type": "attack", "dir": 2}]}
    orders, status, _, warnings = parsed(payload)
    assert orders == [Order(1, OrderKind.move, 1)]
    assert status == "OK" and warnings == ["DUPLICATE_UNIT"]


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ("orders", "not_object"),
        ([{"unit": 1}], "not_object"),
        ({}, "bad_orders"),
        ({"orders": {"unit": 1}}, "bad_orders"),
        ({"orders": [{"unit": 0, "type": "move", "dir": 1}] * 1001}, "too_many_orders"),
    ],
)
def test_section5_invalid_replies_give_no_orders(payload: Any, reason: str) -> None:
    orders, status, got, _ = parsed(payload)
    assert (orders, status, got) == ([], "INVALID", reason)


def test_section5_error_field_is_crashed_bot_error() -> None:
    orders, status, reason, _ = parsed({"orders": [{"unit": 0, "type": "move", "dir": 1}], "error": "boom"})
    assert (orders, status, reason) == ([], "CRASHED", "bot_error")


def test_dr8_transport_failures_give_no_orders() -> None:
    for status, reason in ((Status.TIMEOUT, "deadline"), (Status.CRASHED, "process_exited")):
        orders, verdict = judge(Reply(0, status, None, reason), U)
        assert orders == [] and verdict.status is status and verdict.reason == reason
    orders, verdict = judge(Reply(1, Status.INVALID, None, "bad_json"), U)
    assert orders == [] and verdict.status is Status.INVALID and verdict.reason == "not_json"


def small_match(*factories: Any, rounds: int = 6) -> Any:
    game = get_game("domains")
    config = game.config(overrides={"number_of_rounds": rounds, "board_height": 10, "board_width": 10})
    bots = [PythonBot(factory, f"seat{i}") for i, factory in enumerate(factories)]
    return run_match(game, bots, config=config, seed=5)


def test_bad_input_matches_complete_with_statuses() -> None:
    garbage: list[Any] = [
        "hello",
        {"orders": [{"unit": 1, "type": "move", "dir": "sideways"}, {"unit": 0, "type": "move", "dir": 1}]},
        {"orders": [{"unit": 0, "type": "move", "dir": 1}, {"unit": 0, "type": "move", "dir": 2}]},
        {"orders": [], "error": "exception in play()"},
        {"orders": "nope"},
        {"orders": [{"unit": 0, "type": "attack", "dir": 4}]},  # unit 0 is not seat 1's: refused later
    ]
    run = small_match(Idle, lambda: Scripted(garbage))
    verdicts = [step["verdicts"][1] for step in run.replay.steps]
    assert [v[0] for v in verdicts] == ["INVALID", "OK", "OK", "CRASHED", "INVALID", "OK"]
    assert [v[1] for v in verdicts] == ["not_object", None, None, "bot_error", "bad_orders", None]
    assert verdicts[1][3][0]["code"] == "DROPPED_ENTRY"
    assert verdicts[2][3][0]["code"] == "DUPLICATE_UNIT"
    refused = run.replay.steps[5]["record"]["events"]
    assert [1, 0, 1, 4, "NOT_OWNED"] in refused
    assert len(run.replay.steps) == 6 and run.result.ranks


def test_a_sleeping_bot_times_out_and_is_asked_again() -> None:
    game = get_game("domains")
    config = game.config(
        overrides={"number_of_rounds": 3, "board_height": 8, "board_width": 8, "turn_timeout_ms": 200}
    )
    run = run_match(game, [PythonBot(Idle, "idle"), PythonBot(Sleeper, "sleeper")], config=config, seed=1)
    statuses = [step["verdicts"][1][0] for step in run.replay.steps]
    assert statuses == ["OK", "TIMEOUT", "OK"]
