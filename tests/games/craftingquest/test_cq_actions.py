"""Spec 5.1-5.5: shape checks in their order, typed actions, and bad input that never stops the game."""

from __future__ import annotations

from typing import Any

import pytest
from cq_testkit import Driver, error_code
from hypothesis import given, settings
from hypothesis import strategies as st

from botarena.core.status import Status
from botarena.games.craftingquest.actions import (
    ActionError,
    BuildTower,
    Buy,
    Craft,
    Dig,
    Drop,
    EndTurn,
    Move,
    Pickup,
    Scan,
    Sell,
    parse_action,
)
from botarena.games.craftingquest.constants import ERROR_CODES

MAX = 1_000_000


def parse(payload: Any, player: int = 1) -> Any:
    return parse_action(payload, player, MAX)


def test_spec5_1_every_request_shape_parses_to_its_typed_action() -> None:
    assert parse({"action": "move", "unit": 3, "x": 4, "y": 4}) == Move(3, 4, 4)
    assert parse({"action": "dig", "unit": 3}) == Dig(3)
    assert parse({"action": "scan", "unit": 4}) == Scan(4)
    assert parse({"action": "pickup", "unit": 3, "items": {"R3": 6, "O2": 1}}) == Pickup(
        3, {"R3": 6, "O2": 1}
    )
    assert parse({"action": "drop", "unit": 3, "items": {"R3": 2}}) == Drop(3, {"R3": 2})
    assert parse(
        {"action": "craft", "unit": 3, "object": "O4", "ingredients": {"R1": 20, "R2": 10}}
    ) == Craft(3, "O4", {"R1": 20, "R2": 10}, None)
    assert parse({"action": "craft", "unit": 3, "object": "O4", "alternative": 0}) == Craft(3, "O4", None, 0)
    assert parse({"action": "sell", "unit": 3, "object": "O4", "quantity": 1}) == Sell(3, "O4", 1)
    assert parse({"action": "buy", "unit": 3, "blueprint": "O4"}) == Buy(3, "O4")
    assert parse({"action": "build_tower", "unit": 5}) == BuildTower(5)
    assert parse({"action": "end_turn"}) == EndTurn()
    assert parse({"action": "move", "unit": 6, "x": 1, "y": 1}, player=2) == Move(6, 1, 1)


def test_spec5_1_unknown_extra_fields_are_ignored() -> None:
    assert parse({"action": "dig", "unit": 3, "comment": "hi", "x": "no"}) == Dig(3)
    assert parse({"action": "end_turn", "unit": "whatever"}) == EndTurn()


def test_spec5_2_integral_numbers_are_integers() -> None:
    assert parse({"action": "move", "unit": 3.0, "x": 4.0, "y": 1e1}) == Move(3, 4, 10)
    # a far target is well-formed; CQ-37 refuses it later with MoveError
    assert parse({"action": "move", "unit": 3, "x": 10**12, "y": -5}) == Move(3, 10**12, -5)


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        ("hello", "OperandError"),
        ([{"action": "dig", "unit": 3}], "OperandError"),
        (None, "OperandError"),
        (7, "OperandError"),
        ({}, "OperandError"),
        ({"action": 5, "unit": 3}, "OperandError"),
        ({"action": None}, "OperandError"),
        ({"action": "fly"}, "UnknownError"),  # item 2 before item 3: no unit needed to be unknown
        ({"action": "Move", "unit": 3, "x": 1, "y": 1}, "UnknownError"),
        ({"action": "trade", "unit": 3}, "UnknownError"),
        ({"action": "dig"}, "OperandError"),
        ({"action": "dig", "unit": True}, "OperandError"),
        ({"action": "dig", "unit": "3"}, "OperandError"),
        ({"action": "dig", "unit": 3.5}, "OperandError"),
        ({"action": "dig", "unit": 6}, "OperandError"),  # the opponent's unit
        ({"action": "dig", "unit": 9}, "OperandError"),
        ({"action": "move", "unit": 3, "x": 4}, "OperandError"),
        ({"action": "move", "unit": 3, "x": "4", "y": 4}, "OperandError"),
        ({"action": "move", "unit": 3, "x": 4.5, "y": 4}, "OperandError"),
        ({"action": "move", "unit": 3, "x": False, "y": 4}, "OperandError"),
        ({"action": "pickup", "unit": 3}, "OperandError"),
        ({"action": "pickup", "unit": 3, "items": {}}, "OperandError"),
        ({"action": "pickup", "unit": 3, "items": [["R3", 1]]}, "OperandError"),
        ({"action": "pickup", "unit": 3, "items": {"R13": 1}}, "OperandError"),
        ({"action": "pickup", "unit": 3, "items": {"O0": 1}}, "OperandError"),
        ({"action": "pickup", "unit": 3, "items": {"r3": 1}}, "OperandError"),
        ({"action": "pickup", "unit": 3, "items": {"R3": 0}}, "OperandError"),
        ({"action": "pickup", "unit": 3, "items": {"R3": -5}}, "OperandError"),
        ({"action": "pickup", "unit": 3, "items": {"R3": MAX + 1}}, "OperandError"),
        ({"action": "pickup", "unit": 3, "items": {"R3": 1e300}}, "OperandError"),
        ({"action": "pickup", "unit": 3, "items": {"R3": float("inf")}}, "OperandError"),
        ({"action": "pickup", "unit": 3, "items": {"R3": "1"}}, "OperandError"),
        ({"action": "drop", "unit": 3, "items": {"R3": 2.5}}, "OperandError"),
        ({"action": "craft", "unit": 3, "object": "O4"}, "OperandError"),
        (
            {"action": "craft", "unit": 3, "object": "O4", "alternative": 0, "ingredients": {"R1": 1}},
            "OperandError",
        ),
        ({"action": "craft", "unit": 3, "object": "O4", "alternative": -1}, "OperandError"),
        ({"action": "craft", "unit": 3, "object": "O4", "alternative": 0.5}, "OperandError"),
        ({"action": "craft", "unit": 3, "object": "R4", "alternative": 0}, "OperandError"),
        ({"action": "craft", "unit": 3, "alternative": 0}, "OperandError"),
        ({"action": "sell", "unit": 3, "object": "O4"}, "OperandError"),
        ({"action": "sell", "unit": 3, "object": "O4", "quantity": 0}, "OperandError"),
        ({"action": "sell", "unit": 3, "object": "O4", "quantity": True}, "OperandError"),
        ({"action": "sell", "unit": 3, "object": "O13", "quantity": 1}, "OperandError"),
        ({"action": "buy", "unit": 3, "blueprint": "O13"}, "OperandError"),
        ({"action": "buy", "unit": 3, "blueprint": "R1"}, "OperandError"),
        ({"action": "buy", "unit": 3}, "OperandError"),
    ],
)
def test_spec5_2_shape_failures_give_the_spec_code(payload: Any, code: str) -> None:
    parsed = parse(payload)
    assert isinstance(parsed, ActionError) and parsed.code == code, payload


def test_spec5_2_a_field_error_still_names_the_valid_unit() -> None:
    bad_items = parse({"action": "pickup", "unit": 4, "items": {"R3": -1}})
    assert isinstance(bad_items, ActionError) and bad_items.unit == 4
    not_yours = parse({"action": "pickup", "unit": 7, "items": {"R3": 1}})
    assert isinstance(not_yours, ActionError) and not_yours.unit is None


def test_spec5_2_craft_alternative_out_of_range_is_well_formed() -> None:
    # an index that names no alternative is CQ-43's CraftingError, not a shape failure
    assert parse({"action": "craft", "unit": 3, "object": "O4", "alternative": 7}) == Craft(3, "O4", None, 7)


def test_spec5_4_bad_input_changes_nothing_counts_and_the_game_goes_on() -> None:
    d = Driver(max_actions_per_turn=3)
    before = d.engine.keyframe()
    result = d.act({"action": "move", "unit": 7, "x": 4, "y": 4})  # the other player's unit
    assert error_code(result) == "OperandError" and result["unit"] is None and result["actions_left"] == 2
    result = d.act({"action": "pickup", "unit": 3, "items": {"R3": -1000000000}})
    assert error_code(result) == "OperandError" and result["unit"]["id"] == 3 and result["actions_left"] == 1
    assert d.engine.keyframe() == before
    d.reply(Status.OK, {"action": "fly", "unit": 3})  # the 3rd request: its result closes the turn
    assert d.question is not None and d.question["actions_left"] == 0
    assert error_code(d.question) == "UnknownError"
    assert d.request is not None and d.request.await_reply is False
    record = d.reply(Status.TIMEOUT, None, "not_awaited")
    assert (record["kind"], record["status"], record["reason"]) == ("limit", "OK", "action_limit")
    assert d.seat == 1 and d.question is not None and d.question["type"] == "turn_start"


@pytest.mark.parametrize(
    ("setup", "action", "code"),
    [
        ({}, {"action": "drop", "unit": 3, "items": {"R3": 1}}, "ResourceMissingError"),
        (
            {"resources": {"R3": 2}},
            {"action": "drop", "unit": 3, "items": {"R3": 2, "O4": 1}},
            "ResourceMissingError",
        ),
        ({}, {"action": "sell", "unit": 3, "object": "O4", "quantity": 1}, "SellRequestError"),
        (
            {"objects": {"O4": 1}},
            {"action": "sell", "unit": 3, "object": "O4", "quantity": 2},
            "SellRequestError",
        ),
        (
            {"resources": {"R1": 20, "R2": 10}},
            {"action": "craft", "unit": 3, "object": "O4", "alternative": 0},
            "CraftingError",
        ),
        ({}, {"action": "pickup", "unit": 3, "items": {"O4": 1}}, "PickupError"),
        ({}, {"action": "pickup", "unit": 3, "items": {"R3": 1000000}}, "PickupError"),
    ],
)
def test_spec5_4_items_not_carried_or_blueprints_not_owned_fail_their_check(
    setup: dict[str, dict[str, int]], action: dict[str, Any], code: str
) -> None:
    d = Driver()
    devil = d.unit(3)
    devil.resources = dict(setup.get("resources", {}))
    devil.objects = dict(setup.get("objects", {}))
    result = d.act(action)
    assert error_code(result) == code and not result["ok"]
    assert (d.records[-1]["status"], d.records[-1]["reason"]) == ("OK", None)  # a game check, not a status
    assert devil.resources == setup.get("resources", {}) and devil.objects == setup.get("objects", {})
    assert d.state.teams[1].credit == 300


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=6,
)
ACTIONS = st.fixed_dictionaries(
    {
        "action": st.sampled_from(
            ["move", "dig", "scan", "pickup", "drop", "craft", "sell", "buy", "build_tower"]
        )
    },
    optional={
        "unit": st.sampled_from([3, 4, 5, 6, 3.0, True, "3", None]),
        "x": st.integers(-3, 60) | JSON,
        "y": st.integers(-3, 60) | JSON,
        "items": st.dictionaries(st.sampled_from(["R3", "R8", "O4", "R13", "x"]), st.integers(-2, 12) | JSON),
        "ingredients": JSON,
        "alternative": st.integers(-1, 3) | JSON,
        "object": st.sampled_from(["O4", "O10", "O13", "R3"]) | JSON,
        "blueprint": st.sampled_from(["O1", "O4", "O10"]) | JSON,
        "quantity": st.integers(-1, 3) | JSON,
    },
)


@settings(max_examples=60, deadline=None)
@given(st.lists(ACTIONS | JSON, min_size=1, max_size=8))
def test_spec5_4_no_answer_ever_crashes_the_engine(answers: list[Any]) -> None:
    d = Driver()
    for index, answer in enumerate(answers, start=1):
        d.reply(Status.OK, answer)
        result = d.question
        assert result is not None and result["type"] == "result" and result["actions_left"] == 200 - index
        assert result["ok"] or result["error"]["code"] in ERROR_CODES
        for unit in d.state.units.values():
            assert unit.energy >= 0  # CQ-36
        assert d.state.teams[1].credit >= 0
