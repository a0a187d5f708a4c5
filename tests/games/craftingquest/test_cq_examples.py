"""Spec 9's worked examples, each built on scenario E (or a "Suppose" state) in untimed mode, with
exactly the states, results and errors the spec states (spec 11 item 6)."""

from __future__ import annotations

import itertools

import pytest
from cq_testkit import (
    VECTOR_R3_AT_33,
    VECTOR_R3_AT_99,
    VECTOR_R8_AT_33,
    Driver,
    error_code,
    scenario_e,
)

from botarena.core.status import Status
from botarena.games.craftingquest.config import rounds_for_width
from botarena.games.craftingquest.scenario import Scenario


def move(unit: int, x: int, y: int) -> dict[str, object]:
    return {"action": "move", "unit": unit, "x": x, "y": y}


def test_ex1_move_cost_with_terrain_and_carried_items() -> None:
    d = Driver()
    fox = d.unit(4)
    fox.resources, fox.objects = {"R1": 7}, {"O2": 2}
    result = d.act(move(4, 5, 4))  # Sand: 20 * 110 // 100 + 9 // 2
    assert result["ok"] and result["energy_spent"] == 26 and result["unit"]["energy"] == 124
    result = d.act(move(4, 6, 5))  # Grass: 20 + 4
    assert result["energy_spent"] == 24 and result["unit"]["energy"] == 100


@pytest.mark.parametrize(
    ("unit", "start", "target", "code"),
    [
        (3, (3, 3), (4, 4), "TerrainError"),  # Water is for the Crocodile only
        (3, (3, 3), (3, 3), "MoveError"),  # its own cell
        (3, (3, 3), (5, 5), "MoveError"),  # 2 away
        (5, (5, 3), (6, 2), "TerrainError"),  # Rock
        (4, (9, 9), (10, 10), "ObstacleError"),  # a camp
    ],
)
def test_ex2_move_errors_change_nothing(
    unit: int, start: tuple[int, int], target: tuple[int, int], code: str
) -> None:
    d = Driver()
    d.place(unit, *start)
    before = d.engine.keyframe()
    result = d.act(move(unit, *target))
    assert not result["ok"] and error_code(result) == code
    assert result["energy_spent"] == 0 and result["unit"]["energy"] == 150
    assert (d.unit(unit).x, d.unit(unit).y) == start
    assert d.engine.keyframe() == before


def test_ex2_crocodile_may_enter_water() -> None:
    d = Driver()
    result = d.act(move(5, 4, 4))
    assert (
        result["ok"]
        and result["unit"]["energy"] == 130
        and (result["unit"]["x"], result["unit"]["y"]) == (4, 4)
    )


def test_ex3_running_out_of_energy() -> None:
    d = Driver()
    for x in range(6, 13):
        result = d.act(move(5, x, 3))
        assert result["ok"]
    assert result["unit"]["energy"] == 10
    result = d.act(move(5, 13, 3))
    assert error_code(result) == "NoEnergyError" and result["unit"]["x"] == 12
    result = d.act({"action": "dig", "unit": 5})
    assert result["ok"] and result["dig"] == {} and result["unit"]["energy"] == 0
    assert error_code(d.act({"action": "scan", "unit": 5})) == "NoEnergyError"
    # sell, buy and craft cost 0: they fail on their own checks, never for energy
    assert (
        error_code(d.act({"action": "sell", "unit": 5, "object": "O4", "quantity": 1})) == "SellRequestError"
    )
    assert error_code(d.act({"action": "buy", "unit": 5, "blueprint": "O4"})) == "BuyRequestError"
    assert (
        error_code(d.act({"action": "craft", "unit": 5, "object": "O4", "alternative": 0})) == "CraftingError"
    )


def test_ex4_dig_is_seen_by_the_digger_only() -> None:
    d = Driver()
    result = d.act({"action": "dig", "unit": 3})
    assert result["ok"] and result["dig"] == {"R3": 10, "R8": 2} and result["unit"]["energy"] == 140
    d.end_turn()
    seen = d.question
    quiet = Driver()
    quiet.end_turn()
    assert seen == quiet.question  # player 2's turn_start holds nothing about the dig
    assert seen is not None and seen["type"] == "turn_start"


def test_ex5_scan_window_and_sorted_vectors() -> None:
    d = Driver()
    result = d.act({"action": "scan", "unit": 3})
    assert result["unit"]["energy"] == 140
    assert result["scan"] == [
        {"x": 3, "y": 3, "vectors": [VECTOR_R8_AT_33, VECTOR_R3_AT_33]},
        {"x": 9, "y": 9, "vectors": [VECTOR_R3_AT_99]},
    ]


def test_ex5_a_resource_cell_8_away_is_left_out() -> None:
    scenario = scenario_e()
    scenario["deposits"].append({"x": 11, "y": 3, "buried": {"R3": 1}, "vectors": {"R3": VECTOR_R3_AT_99}})
    d = Driver(scenario)
    cells = [(c["x"], c["y"]) for c in d.act({"action": "scan", "unit": 3})["scan"]]
    assert cells == [(3, 3), (9, 9)]


def test_ex6_pickup_takes_the_visible_pile_first() -> None:
    d = Driver()
    d.state.resource_piles[(3, 3)] = {"R3": 4}
    result = d.act({"action": "pickup", "unit": 3, "items": {"R3": 6}})
    assert result["ok"] and result["energy_spent"] == 5
    assert (3, 3) not in d.state.resource_piles
    assert d.state.buried[(3, 3)] == {"R3": 8, "R8": 2}
    assert result["unit"]["resources"] == {"R3": 6} and result["unit"]["energy"] == 145
    scan = d.act({"action": "scan", "unit": 3})["scan"]
    assert scan[0] == {"x": 3, "y": 3, "vectors": [VECTOR_R8_AT_33, VECTOR_R3_AT_33]}


def test_ex7_failed_pickup_moves_nothing_but_costs_its_energy() -> None:
    d = Driver()
    d.state.resource_piles[(3, 3)] = {"R3": 4}
    d.act({"action": "pickup", "unit": 3, "items": {"R3": 6}})
    result = d.act({"action": "pickup", "unit": 3, "items": {"R3": 9, "R8": 1}})
    assert not result["ok"] and error_code(result) == "PickupError"
    assert result["energy_spent"] == 5 and result["unit"]["energy"] == 140
    assert result["unit"]["resources"] == {"R3": 6}
    assert d.state.buried[(3, 3)] == {"R3": 8, "R8": 2}


def test_ex8_guard_blocks_pickup_but_not_dig() -> None:
    d = Driver()
    d.tower(2, 7, 7)
    result = d.act({"action": "pickup", "unit": 3, "items": {"R3": 1}})
    assert (
        error_code(result) == "GuardError" and result["energy_spent"] == 0 and result["unit"]["energy"] == 150
    )
    assert d.act({"action": "dig", "unit": 3})["ok"]


def test_ex9_stock_visibility_and_buying() -> None:
    d = Driver()
    d.place(4, 9, 9)
    d.place(5, 5, 5)
    result = d.act({"action": "dig", "unit": 4})
    fox_camp = [c for c in result["unit"]["view"]["cells"] if (c["x"], c["y"]) == (10, 10)]
    assert fox_camp == [{"x": 10, "y": 10, "camp": {"stock": ["O1", "O4"]}}]
    result = d.act({"action": "dig", "unit": 5})
    croc_camp = [c for c in result["unit"]["view"]["cells"] if (c["x"], c["y"]) == (10, 10)]
    assert croc_camp == [{"x": 10, "y": 10, "camp": {"stock": None}}]
    result = d.act({"action": "buy", "unit": 4, "blueprint": "O4"})
    assert result["ok"] and result["credit"] == 243 and result["blueprints_owned"] == ["O4"]
    assert error_code(d.act({"action": "buy", "unit": 4, "blueprint": "O4"})) == "BuyRequestError"
    assert error_code(d.act({"action": "buy", "unit": 4, "blueprint": "O10"})) == "BuyRequestError"
    assert error_code(d.act({"action": "buy", "unit": 5, "blueprint": "O1"})) == "BuyRequestError"
    assert d.state.teams[1].credit == 243


def _crafting_team() -> Driver:
    d = Driver()
    d.state.teams[1].blueprints.add("O4")
    d.state.teams[1].credit = 243
    d.unit(3).resources = {"R1": 23, "R2": 10}
    return d


def test_ex10_exact_crafting_then_selling() -> None:
    d = _crafting_team()
    result = d.act({"action": "craft", "unit": 3, "object": "O4", "ingredients": {"R1": 23, "R2": 10}})
    assert error_code(result) == "CraftingError" and result["unit"]["resources"] == {"R1": 23, "R2": 10}
    result = d.act({"action": "craft", "unit": 3, "object": "O4", "ingredients": {"R1": 20, "R2": 10}})
    assert (
        result["ok"] and result["unit"]["resources"] == {"R1": 3} and result["unit"]["objects"] == {"O4": 1}
    )
    result = d.act({"action": "craft", "unit": 3, "object": "O4", "alternative": 0})
    assert error_code(result) == "ResourceMissingError" and result["unit"]["objects"] == {"O4": 1}
    result = d.act({"action": "sell", "unit": 3, "object": "O4", "quantity": 1})
    assert result["ok"] and result["credit"] == 474 and result["unit"]["objects"] == {}
    assert (
        error_code(d.act({"action": "sell", "unit": 3, "object": "O4", "quantity": 1})) == "SellRequestError"
    )


def test_ex10_alternative_zero_does_the_same() -> None:
    d = _crafting_team()
    result = d.act({"action": "craft", "unit": 3, "object": "O4", "alternative": 0})
    assert (
        result["ok"] and result["unit"]["resources"] == {"R1": 3} and result["unit"]["objects"] == {"O4": 1}
    )


def test_ex11_tower_and_drain_per_move() -> None:
    d = Driver()
    d.place(3, 20, 20)
    result = d.act({"action": "build_tower", "unit": 3})
    assert result["ok"] and result["credit"] == 225 and result["unit"]["energy"] == 150
    assert result["towers"] == [{"id": 1, "x": 20, "y": 20, "strength": 250, "alive": True}]
    d.end_turn()
    d.place(7, 25, 20)
    steps = [
        ((24, 20), 15, 115, 235),
        ((23, 21), 20, 75, 215),
        ((22, 22), 30, 25, 185),
        ((21, 21), 5, 0, 180),
    ]
    for index, ((x, y), drain, energy, strength) in enumerate(steps):
        result = d.act(move(7, x, y))
        assert result["ok"] and result["energy_spent"] == 20
        assert result["drained"] == [{"tower": 1, "amount": drain}], index
        assert result["unit"]["energy"] == energy and d.state.towers[0].strength == strength
    d.end_turn()
    d.end_turn()  # player 1's turn
    assert d.seat == 1 and d.question is not None
    fox = next(u for u in d.question["units"] if u["id"] == 7)
    assert fox["energy"] == 150 and d.state.towers[0].strength == 180  # nothing drains at turn start


@pytest.mark.parametrize(("strength", "final", "alive"), [(40, -20, False), (60, 0, True)])
def test_ex12_tower_destroyed_below_zero(strength: int, final: int, alive: bool) -> None:
    d = Driver()
    d.tower(1, 20, 20, strength)
    d.end_turn()
    d.place(7, 22, 20)
    result = d.act(move(7, 21, 20))
    assert result["unit"]["energy"] == 150 - 20 - 60
    assert d.state.towers[0].strength == final and d.state.towers[0].alive is alive
    entered = d.act(move(7, 20, 20))
    assert entered["ok"] is (not alive)
    if alive:
        assert error_code(entered) == "ObstacleError"
    d.end_turn()
    assert d.question is not None and d.question["towers"] == [
        {"id": 1, "x": 20, "y": 20, "strength": final, "alive": alive}
    ]


@pytest.mark.parametrize(("energy", "left", "first", "second"), [(30, 0, 240, 250), (150, 90, 230, 230)])
def test_ex13_two_towers_drain_in_id_order(energy: int, left: int, first: int, second: int) -> None:
    d = Driver()
    d.tower(1, 20, 20)
    d.tower(1, 26, 20)
    d.end_turn()
    d.place(7, 23, 21)
    d.unit(7).energy = energy
    result = d.act(move(7, 23, 20))
    assert result["unit"]["energy"] == left
    assert [t.strength for t in d.state.towers] == [first, second]
    assert [e["tower"] for e in result["drained"]] == [1, 2]


def _to_round_5(d: Driver) -> None:
    while d.question is not None and not (d.question["round"] == 5 and d.seat == 0):
        d.end_turn()


def test_ex14_a_late_request_is_applied_at_the_next_turn_start() -> None:
    d = Driver(turn_budget_ms=1000, turn_grace_ms=100)
    _to_round_5(d)
    assert d.request is not None and d.request.chain == (5, 1) and d.request.chain_budget_ms == 1100
    assert d.act(move(4, 5, 4))["ok"]
    timeout = d.reply(Status.TIMEOUT, None, "deadline")  # the turn closed at 1100
    assert (timeout["kind"], timeout["status"], timeout["reason"]) == ("timeout", "TIMEOUT", "deadline")
    assert d.seat == 1  # player 2 plays at once
    d.act({"action": "dig", "unit": 6})
    d.late(0, Status.OK, {"action": "dig", "unit": 3})  # arrives at 1150, during player 2's turn
    d.end_turn()  # player 2 ends at 1400
    start = d.question
    assert start is not None and start["type"] == "turn_start" and start["round"] == 6 and d.seat == 0
    assert start["late"]["action"] == {"action": "dig", "unit": 3} and start["late"]["ok"]
    assert start["late"]["unit"]["energy"] == 140 and start["actions_left"] == 199
    devil = next(u for u in start["units"] if u["id"] == 3)
    assert devil["energy"] == 140
    late = d.act({"action": "scan", "unit": 4})  # the next step carries the late action's entry
    assert late["actions_left"] == 198
    entry = d.records[-1]["before"][0]
    assert (entry["kind"], entry["status"], entry["round"], entry["player"]) == ("late_action", "OK", 6, 1)


def test_ex14_variant_the_owed_answer_skips_a_turn() -> None:
    d = Driver(turn_budget_ms=1000, turn_grace_ms=100)
    _to_round_5(d)
    d.act(move(4, 5, 4))
    d.reply(Status.TIMEOUT, None, "deadline")
    d.end_turn()  # player 2 ends at 1400; player 1 still owes, so its round-6 turn is skipped
    assert d.seat == 1 and d.question is not None and d.question["round"] == 6
    skipped = d.records[-1]  # nothing was sent to player 1: the skip rides in the next step
    d.act({"action": "dig", "unit": 6})
    entry = d.records[-1]["before"][0]
    assert (entry["kind"], entry["status"], entry["reason"], entry["round"]) == (
        "no_answer",
        "TIMEOUT",
        "answer_owed",
        6,
    )
    assert skipped["kind"] == "end_turn"
    d.late(0, Status.OK, {"action": "dig", "unit": 3})  # arrives at 1500
    d.end_turn()
    start = d.question
    assert start is not None and start["round"] == 7 and d.seat == 0 and start["late"]["ok"]
    assert start["late"]["unit"]["energy"] == 140 and start["actions_left"] == 199
    # every question went to a seat that did not owe
    assert [seat for seat, payload, _ in d.sent if payload.get("round") == 6] == [1, 1]


MALFORMED = [
    ({"action": "pickup", "unit": 3, "items": {"R3": -5}}, "OperandError"),
    ({"action": "pickup", "unit": 3, "items": {"R3": 2.5}}, "OperandError"),
    ({"action": "sell", "unit": 3, "object": "O4", "quantity": True}, "OperandError"),
    ({"action": "move", "unit": 7, "x": 4, "y": 4}, "OperandError"),
    ({"action": "buy", "unit": 3, "blueprint": "O13"}, "OperandError"),
    ({"action": "fly", "unit": 3}, "UnknownError"),
    ({"action": "craft", "unit": 3, "object": "O4"}, "OperandError"),
]


def test_ex15_malformed_requests_change_nothing_and_use_an_action() -> None:
    d = Driver()
    before = d.engine.keyframe()
    d.reply(Status.INVALID, None, "bad_json")  # `hello`: not JSON
    result = d.question
    assert result is not None and not result["ok"] and error_code(result) == "OperandError"
    assert result["action"] is None and result["unit"] is None and result["actions_left"] == 199
    assert (d.records[-1]["status"], d.records[-1]["reason"]) == ("INVALID", "OperandError")
    assert d.last_verdict.detail == "bad_json"  # the transport's reason is kept beside the code
    for index, (request, code) in enumerate(MALFORMED, start=2):
        result = d.act(request)
        assert not result["ok"] and error_code(result) == code, request
        assert result["action"] == request and result["actions_left"] == 200 - index
        assert (d.records[-1]["status"], d.records[-1]["reason"], d.records[-1]["kind"]) == (
            "INVALID",
            code,
            "action",
        )
        assert d.last_verdict.status is Status.INVALID and d.last_verdict.reason == code
    assert d.engine.keyframe() == before


def test_ex15_two_point_zero_is_accepted_as_two() -> None:
    d = Driver()
    result = d.act({"action": "pickup", "unit": 3, "items": {"R3": 2.0}})
    assert result["ok"] and result["unit"]["resources"] == {"R3": 2}


def test_ex16_simple_value() -> None:
    # R1 = 400, R2 = 200, R3 = 800, M = 800; CQ-23 with exact rationals
    from fractions import Fraction
    from math import ceil

    totals = {"R1": 400, "R2": 200, "R3": 800}
    big = max(totals.values())

    def alternative(types: list[str]) -> tuple[list[int], Fraction]:
        whole = sum(totals[t] for t in types)
        quantities = [30 * totals[t] // whole or 2 for t in types]
        return quantities, sum((Fraction(big, totals[t]) for t in types), Fraction(0))

    (q0, w0), (q1, w1) = alternative(["R1", "R2"]), alternative(["R3", "R1", "R2"])
    assert (q0, w0, q1, w1) == ([20, 10], 6, [17, 8, 4], 7)
    value = min(max(ceil(100 + 20 * (w0 * w0 + w1 * w1) / (w0 + w1)), 200), 483)
    assert value == 231 and value // 4 == 57
    catalogue = {b.id: b for b in Scenario.from_json(scenario_e()).blueprints}
    assert (catalogue["O4"].value, catalogue["O4"].price) == (value, value // 4)  # O4 in E
    assert dict(catalogue["O4"].alternatives[0]) == {"R1": q0[0], "R2": q0[1]}


def test_ex17_complex_value() -> None:
    values = {"O2": 300, "O5": 400, "O7": 250}

    def weight(ingredients: list[str]) -> tuple[list[int], int]:
        whole = sum(values[o] for o in ingredients)
        quantities = [6 * values[o] // whole or 2 for o in ingredients]
        return quantities, sum((200 + values[o]) * q for o, q in zip(ingredients, quantities, strict=True))

    (q0, s0), (q1, s1) = weight(["O2", "O5"]), weight(["O7", "O2", "O5"])
    assert (q0, s0, q1, s1) == ([2, 3], 2800, [1, 1, 2], 2150)
    value = min(max((s0 + s1) // 2, 1500), 4509)
    assert value == 2475 and value // 10 == 247
    o10 = next(b for b in Scenario.from_json(scenario_e()).blueprints if b.id == "O10")
    assert (o10.value, o10.price) == (value, value // 10)  # O10 in E


def test_ex18_attribute_structure_vectors() -> None:
    k = [4, 5, 4, 4, 5]
    tests = {2: 3, 0: 1}
    vectors = [
        v
        for v in itertools.product(*(range(1, n + 1) for n in k))
        if all(v[a] == x for a, x in tests.items())
    ]
    assert len(vectors) == 100
    # a cell holding R7 with the drawn a1, a3, a4 = 4, 2, 5, and its mirror with the same vector
    scenario = scenario_e()
    scenario["type_tests"]["R7"] = {"2": 3, "0": 1}
    scenario["deposits"] = [
        {"x": 3, "y": 4, "buried": {"R7": 5}, "vectors": {"R7": [1, 4, 3, 2, 5]}},
        {"x": 46, "y": 45, "buried": {"R7": 5}, "vectors": {"R7": [1, 4, 3, 2, 5]}},
    ]
    d = Driver(scenario)
    assert d.act({"action": "scan", "unit": 3})["scan"] == [{"x": 3, "y": 4, "vectors": [[1, 4, 3, 2, 5]]}]
    d.end_turn()
    assert d.act({"action": "scan", "unit": 6})["scan"] == [{"x": 46, "y": 45, "vectors": [[1, 4, 3, 2, 5]]}]
    bad = scenario_e()
    bad["type_tests"]["R7"] = {"2": 3, "0": 1}
    bad["deposits"] = [{"x": 3, "y": 4, "buried": {"R7": 5}, "vectors": {"R7": [2, 4, 3, 2, 5]}}]
    with pytest.raises(ValueError):
        Scenario.from_json(bad)  # a vector that fails its type's tests is no vector of that type


@pytest.mark.parametrize(("p1", "p2", "winner", "ranks"), [(474, 300, 1, [1, 2]), (300, 300, None, [1, 1])])
def test_ex19_end_and_ranking(p1: int, p2: int, winner: int | None, ranks: list[int]) -> None:
    d = Driver()
    d.state.teams[1].credit = p1
    d.state.teams[2].credit = p2
    d.unit(6).objects = {"O4": 1}  # unsold objects count for nothing
    turns = 0
    while d.question is not None:
        d.end_turn()
        turns += 1
    assert turns == 2 * 160
    assert d.records[-1]["round"] == 160 and d.records[-1]["player"] == 2
    ends = d.engine.end_requests()
    assert [r.seat for r in ends] == [0, 1]
    for request in ends:
        assert request.payload == {"type": "game_over", "credits": {"1": p1, "2": p2}, "winner": winner}
    result = d.engine.result()
    assert result.ranks == ranks and result.scores == [p1, p2]
    assert result.details == {"credits": {"1": p1, "2": p2}, "winner": winner}


@pytest.mark.parametrize(
    ("width", "height", "rounds"),
    [(50, 50, 160), (65, 90, 160), (75, 75, 180), (80, 50, 200), (100, 100, 200)],
)
def test_ex20_rounds_rule(width: int, height: int, rounds: int) -> None:
    from botarena.games.craftingquest import GAME
    from botarena.games.craftingquest.engine import CraftingQuestEngine

    assert rounds_for_width(width) == rounds
    engine = CraftingQuestEngine(GAME.config(overrides={"width": width, "height": height}), 1, 2)
    assert engine.state.rounds == rounds and engine.start_requests()[1].payload["rounds"] == rounds


def test_ex20_map_v5_plays_180_rounds_not_the_240_in_its_file(monkeypatch: pytest.MonkeyPatch) -> None:
    from cq_fixtures import require_maps

    from botarena.games.craftingquest import GAME
    from botarena.games.craftingquest.engine import CraftingQuestEngine

    monkeypatch.setenv("BOTARENA_CQ_MAPS", str(require_maps()))
    engine = CraftingQuestEngine(GAME.config("map_v5"), 5, 2)
    assert (engine.state.width, engine.state.rounds) == (70, 180)
    assert engine.start_requests()[0].payload["rounds"] == 180


def test_ex20_config_rounds_overrides_the_scenario() -> None:
    d = Driver(rounds=3)
    assert d.state.rounds == 3
    seen = 0
    while d.question is not None:
        d.end_turn()
        seen += 1
    assert seen == 6
