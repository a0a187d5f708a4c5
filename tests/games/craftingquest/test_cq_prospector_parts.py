"""Unit tests of the Prospector's pure parts (spec §10): learning, memory, searches, goals, one turn."""

from __future__ import annotations

import random
from typing import Any

from cq_testkit import O4, O10
from hypothesis import given, settings
from hypothesis import strategies as st

from botarena.games.craftingquest.bots.prospector import Prospector
from botarena.games.craftingquest.bots.prospector_learning import TypeLearner, agreed_attributes
from botarena.games.craftingquest.bots.prospector_memory import UNKNOWN, Memory
from botarena.games.craftingquest.bots.prospector_planning import (
    bfs_path,
    choose_alternative,
    craftable,
    goal_blueprint,
    missing,
    move_cost,
)

ENTER = {
    "grass": ["devil", "fox", "crocodile"],
    "dirt": ["devil"],
    "sand": ["devil", "fox", "crocodile"],
    "snow": ["fox"],
    "rock": [],
    "swamp": ["devil", "fox", "crocodile"],
    "water": ["crocodile"],
    "deep_water": ["crocodile"],
}
PENALTY = {
    "grass": 0,
    "dirt": 20,
    "sand": 10,
    "snow": 25,
    "rock": None,
    "swamp": 25,
    "water": 0,
    "deep_water": 10,
}


def grass_rows(x: int, y: int, width: int = 50, height: int = 50, radius: int = 5) -> list[str]:
    """The view terrain of a unit at (x, y) on an all-Grass map (`-` outside the map, §4.2)."""
    return [
        "".join(
            "." if 0 <= xx < width and 0 <= yy < height else "-" for xx in range(x - radius, x + radius + 1)
        )
        for yy in range(y - radius, y + radius + 1)
    ]


def unit(uid: int, kind: str, x: int, y: int, energy: int = 150, **extra: Any) -> dict[str, Any]:
    return {
        "id": uid,
        "kind": kind,
        "x": x,
        "y": y,
        "energy": energy,
        "resources": extra.get("resources", {}),
        "objects": extra.get("objects", {}),
        "view": {"x0": x - 5, "y0": y - 5, "terrain": grass_rows(x, y), "cells": extra.get("cells", [])},
    }


def setup_payload(units: list[dict[str, Any]] | None = None, **over: Any) -> dict[str, Any]:
    payload = {
        "type": "setup",
        "player": 1,
        "opponent": 2,
        "width": 50,
        "height": 50,
        "rounds": 160,
        "turn_budget_ms": 0,
        "turn_grace_ms": 100,
        "credit": 300,
        "bot_seed": 7,
        "rules": {
            "unit_energy": 150,
            "move_base_cost": 20,
            "carry_divisor": 2,
            "terrain": {n: {"penalty_pct": PENALTY[n], "enter": ENTER[n]} for n in ENTER},
            "dig_cost": 10,
            "scan_cost": 10,
            "pickup_cost": 5,
            "drop_cost": 0,
            "craft_cost": 0,
            "sell_cost": 0,
            "buy_cost": 0,
            "tower_energy_cost": 0,
            "tower_price": 75,
            "tower_strength": 250,
            "tower_radius": 4,
            "tower_drain_base": 60,
            "sight_radius": 5,
            "scan_radius": 7,
            "camp_radius": 1,
            "scan_attribute_count": 5,
            "scan_attribute_max_value": 5,
            "max_actions_per_turn": 200,
            "max_quantity": 1000000,
        },
        "resource_types": [f"R{i}" for i in range(1, 13)],
        "object_types": [f"O{i}" for i in range(1, 13)],
        "blueprints": [O4, O10],
        "units": units
        if units is not None
        else [unit(3, "devil", 3, 3), unit(4, "fox", 4, 3), unit(5, "crocodile", 5, 3)],
    }
    payload.update(over)
    return payload


# ----------------------------------------------------------------- learning (CQ-19 to CQ-21, Ex 5)


def test_cq20_hypothesis_is_the_agreed_attributes() -> None:
    assert agreed_attributes([(2, 3, 4, 1, 1)]) == {0: 2, 1: 3, 2: 4, 3: 1, 4: 1}
    assert agreed_attributes([(2, 3, 4, 1, 1), (2, 1, 4, 3, 1)]) == {0: 2, 2: 4, 4: 1}


def test_cq21_worked_example_5_differs_in_every_attribute() -> None:
    """Ex 5: (9,9) dug as R3 labels [2,3,4,1,1]; at (3,3) [1,5,2,2,3] differs from it everywhere, so it
    is R8, and [2,1,4,3,1] is R3."""
    learner = TypeLearner()
    learner.observe([(2, 3, 4, 1, 1)], ["R3"])
    assert learner.classify((2, 3, 4, 1, 1)) == "R3"
    learner.observe([(1, 5, 2, 2, 3), (2, 1, 4, 3, 1)], ["R3", "R8"])
    assert learner.label_of[(1, 5, 2, 2, 3)] == "R8"
    assert learner.label_of[(2, 1, 4, 3, 1)] == "R3"
    assert learner.hypothesis["R3"] == {0: 2, 2: 4, 4: 1}
    assert learner.pending == []


def test_cq21_ambiguous_constraint_waits_for_a_later_label() -> None:
    """Ex 5 in the order the example plays it: the (3,3) pair first (ambiguous), then (9,9)."""
    learner = TypeLearner()
    learner.observe([(1, 5, 2, 2, 3), (2, 1, 4, 3, 1)], ["R3", "R8"])
    assert learner.label_of == {}
    assert len(learner.pending) == 1
    learner.observe([(2, 3, 4, 1, 1)], ["R3"])
    assert learner.label_of[(1, 5, 2, 2, 3)] == "R8"
    assert learner.label_of[(2, 1, 4, 3, 1)] == "R3"
    assert learner.pending == []


def test_cq20_classification_generalises_and_never_confuses() -> None:
    """R7 tests {a2: 3, a0: 1} (Ex 18); two examples narrow its hypothesis, so an unseen R7 vector is
    classified, while a vector of another type (differing on a tested attribute) is not."""
    learner = TypeLearner()
    learner.observe([(1, 4, 3, 2, 5)], ["R7"])
    learner.observe([(1, 2, 3, 4, 1)], ["R7"])
    assert learner.hypothesis["R7"] == {0: 1, 2: 3}
    assert learner.classify((1, 5, 3, 1, 2)) == "R7"
    assert learner.classify((2, 5, 3, 1, 2)) is None
    learner.observe([(2, 5, 1, 1, 2)], ["R1"])
    assert learner.classify((2, 5, 1, 1, 2)) == "R1"
    assert learner.classify((1, 5, 1, 1, 2)) is None  # fits neither hypothesis


def test_cq20_mismatched_counts_teach_nothing() -> None:
    """A cell emptied of a type between scan and dig shows more vectors than types: no label."""
    learner = TypeLearner()
    learner.observe([(1, 1, 1, 1, 1), (2, 2, 2, 2, 2)], ["R1"])
    assert learner.label_of == {} and learner.pending == []


def test_cq20_all_types_labelled_then_one_touching_hypothesis_decides() -> None:
    learner = TypeLearner(type_count=2)
    learner.observe([(1, 1, 1, 1, 1)], ["R1"])
    learner.observe([(2, 2, 2, 2, 2)], ["R2"])
    assert learner.classify((1, 3, 3, 3, 3)) == "R1"  # touches R1 only
    assert learner.classify((1, 2, 3, 3, 3)) is None  # touches both


# ----------------------------------------------------------------- memory (§4.2, CQ-39, CQ-40)


def test_cq40_memory_pairs_scan_and_dig_as_in_example_5() -> None:
    memory = Memory(setup_payload())
    c33, c99 = memory.cell(3, 3), memory.cell(9, 9)
    memory.absorb_dig(c33, {"R3": 10, "R8": 2})  # Ex 4, before any scan
    memory.absorb_scan(
        3,
        3,
        [
            {"x": 3, "y": 3, "vectors": [[1, 5, 2, 2, 3], [2, 1, 4, 3, 1]]},
            {"x": 9, "y": 9, "vectors": [[2, 3, 4, 1, 1]]},
        ],
    )
    assert memory.unexplained(c99) and not memory.unexplained(c33)
    memory.absorb_dig(c99, {"R3": 7})
    assert memory.learner.label_of == {(2, 3, 4, 1, 1): "R3", (1, 5, 2, 2, 3): "R8", (2, 1, 4, 3, 1): "R3"}
    memory.refresh()
    assert memory.located["R3"] == {c33, c99} and memory.located["R8"] == {c33}
    assert memory.unexplained_cells == set()
    assert memory.scan_covered[memory.cell(10, 10)] and not memory.scan_covered[memory.cell(11, 3)]
    assert memory.near_scan[memory.cell(8, 8)] and not memory.near_scan[memory.cell(9, 9)]


def test_cq41_pickups_lower_known_quantities_and_a_pickup_error_forgets_them() -> None:
    memory = Memory(setup_payload())
    c = memory.cell(3, 3)
    memory.absorb_dig(c, {"R3": 10, "R8": 2})
    memory.took(c, {"R3": 6})
    assert memory.types_at(c) == {"R3": 4, "R8": 2}
    memory.took(c, {"R8": 2})
    assert memory.types_at(c) == {"R3": 4}
    memory.forget_quantities(c)
    assert c not in memory.dug and memory.types_at(c) == {}


def test_cq3_view_terrain_camps_and_towers() -> None:
    rows = grass_rows(5, 5)
    rows[5] = rows[5][:6] + "w" + rows[5][7:]  # (6,5) is Water
    cells = [
        {"x": 6, "y": 6, "camp": {"stock": ["O1", "O4"]}},
        {"x": 9, "y": 9, "camp": {"stock": None}},
        {"x": 2, "y": 8, "tower": {"id": 1, "owner": 2, "strength": 250}},
    ]
    payload = unit(3, "devil", 5, 5)
    payload["view"] = {"x0": 0, "y0": 0, "terrain": rows, "cells": cells}
    memory = Memory(setup_payload())
    memory.absorb_unit(payload)
    assert memory.terrain[memory.cell(6, 5)] == 6 and memory.terrain[memory.cell(11, 5)] == UNKNOWN
    assert memory.may_enter("crocodile", memory.cell(6, 5)) and not memory.may_enter(
        "devil", memory.cell(6, 5)
    )
    assert memory.camps == {memory.cell(6, 6): ("O1", "O4"), memory.cell(9, 9): None}
    assert not memory.passable["devil"][memory.cell(6, 6)]  # a camp (CQ-37 ObstacleError)
    assert memory.guarded[memory.cell(6, 8)] and not memory.guarded[memory.cell(7, 8)]  # CQ-41, radius 4
    # the tower is gone from a later view of the same window: it was destroyed (CQ-38)
    payload["view"]["cells"] = cells[:2]
    memory.absorb_unit(payload)
    assert memory.towers == {} and not memory.guarded[memory.cell(6, 8)]


# ----------------------------------------------------------------- searches and goals (§10)


def test_cq1_bfs_takes_diagonals_and_avoids_closed_cells() -> None:
    memory = Memory(setup_payload())
    open_ = bytearray([1]) * memory.size
    start, goal = memory.cell(0, 0), memory.cell(3, 3)
    path = bfs_path(memory.neighbours, open_, start, lambda c: c == goal)
    assert path == [memory.cell(1, 1), memory.cell(2, 2), goal]
    for y in range(0, 4):
        open_[memory.cell(2, y)] = 0  # a wall at x = 2, open below y = 4
    path = bfs_path(memory.neighbours, open_, start, lambda c: c == goal)
    assert path is not None and len(path) == 5 and all(open_[c] for c in path)
    open_[memory.cell(2, 4)] = open_[memory.cell(1, 4)] = open_[memory.cell(0, 4)] = 0
    open_[memory.cell(3, 4)] = 0
    for x in range(0, 4):
        open_[memory.cell(x, 4)] = 0
    assert bfs_path(memory.neighbours, open_, start, lambda c: c == goal) is None


def test_cq23_goal_is_the_cheapest_affordable_simple_blueprint() -> None:
    cheap = {"id": "O9", "kind": "simple", "price": 50, "value": 200, "alternatives": []}
    same = {"id": "O2", "kind": "simple", "price": 50, "value": 200, "alternatives": []}
    assert goal_blueprint([O4, O10, cheap], 300) == "O9"
    assert goal_blueprint([O4, cheap, same], 300) == "O2"  # the lowest id on ties
    assert goal_blueprint([O4, O10], 56) is None  # O10 is complex, O4 costs 57


def test_cq43_alternative_choice_prefers_located_types_then_fewer_units() -> None:
    alts = O4["alternatives"]
    assert missing({"R1": 5}, alts[0]) == {"R1": 15, "R2": 10}
    # R3 is not located: alternative 0 (everything located) wins despite alternative 1 being nearer
    assert choose_alternative({"R1": 8, "R2": 4}, [("O4", alts)], lambda t: t != "R3") == ("O4", 0)
    # with every type located, fewer missing units wins
    assert choose_alternative({"R1": 8, "R2": 4}, [("O4", alts)], lambda t: True) == ("O4", 1)
    assert craftable({"R1": 23, "R2": 10}, [("O4", alts)]) == ("O4", 0)  # Ex 10: the surplus stays
    assert craftable({"R1": 19, "R2": 10}, [("O4", alts)]) is None


def test_cq37_move_cost_matches_example_1() -> None:
    assert move_cost(20, 10, 9, 2) == 26
    assert move_cost(20, 0, 9, 2) == 24


# ----------------------------------------------------------------- one turn, question by question (§7.2)


def result(action: dict[str, Any], state: dict[str, Any], **extra: Any) -> dict[str, Any]:
    payload = {
        "type": "result",
        "round": 1,
        "ok": True,
        "error": None,
        "action": action,
        "energy_spent": 0,
        "drained": [],
        "unit": state,
        "credit": 300,
        "blueprints_owned": [],
        "towers": [],
        "actions_left": 150,
    }
    payload.update(extra)
    return payload


def test_cq40_first_questions_scan_then_dig_then_pickup() -> None:
    """With O4 owned (no buyer), unit 3 scans (no team scan near it), digs its cell's unexplained
    vector, labels it, and picks up the needed quantity (§10 step 4)."""
    units = [unit(3, "devil", 3, 3), unit(4, "fox", 4, 3), unit(5, "crocodile", 5, 3)]
    bot = Prospector()
    bot.setup(setup_payload(units, blueprints=[O4]))
    start = {"type": "turn_start", "round": 1, "rounds_left": 159, "credit": 243, "blueprints_owned": ["O4"]}
    first = bot.act({**start, "towers": [], "units": units, "late": None, "actions_left": 200})
    assert first == {"action": "scan", "unit": 3}
    owned = {"credit": 243, "blueprints_owned": ["O4"]}
    scan = [{"x": 3, "y": 3, "vectors": [[1, 1, 1, 1, 1]]}]
    second = bot.act(result(first, unit(3, "devil", 3, 3, 140), scan=scan, **owned))
    assert second == {"action": "dig", "unit": 3}
    third = bot.act(result(second, unit(3, "devil", 3, 3, 130), dig={"R1": 10}, **owned))
    assert third == {"action": "pickup", "unit": 3, "items": {"R1": 10}}
    assert bot.memory is not None and bot.memory.learner.label_of == {(1, 1, 1, 1, 1): "R1"}
    carrying = unit(3, "devil", 3, 3, 125, resources={"R1": 10})
    fourth = bot.act(result(third, carrying, **owned))
    # nothing else is known: unit 3 walks to an unscanned cell (the scan covered radius 7)
    assert fourth["action"] == "move" and fourth["unit"] == 3


def test_cq43_craft_then_sell() -> None:
    """§10 steps 1–2: a unit carrying a full alternative crafts it by index, then sells the object."""
    units = [
        unit(3, "devil", 3, 3, resources={"R1": 23, "R2": 10}),
        unit(4, "fox", 4, 3),
        unit(5, "crocodile", 5, 3),
    ]
    bot = Prospector()
    bot.setup(setup_payload(units, blueprints=[O4]))
    start = {"type": "turn_start", "round": 9, "rounds_left": 151, "credit": 243, "blueprints_owned": ["O4"]}
    first = bot.act({**start, "towers": [], "units": units, "late": None, "actions_left": 200})
    assert first == {"action": "craft", "unit": 3, "object": "O4", "alternative": 0}
    crafted = unit(3, "devil", 3, 3, resources={"R1": 3}, objects={"O4": 1})
    second = bot.act(result(first, crafted, credit=243, blueprints_owned=["O4"]))
    assert second == {"action": "sell", "unit": 3, "object": "O4", "quantity": 1}


def test_cq31_closed_turn_gets_end_turn() -> None:
    bot = Prospector()
    units = [unit(3, "devil", 3, 3), unit(4, "fox", 4, 3), unit(5, "crocodile", 5, 3)]
    bot.setup(setup_payload(units))
    start = {"type": "turn_start", "round": 1, "rounds_left": 159, "credit": 300, "blueprints_owned": []}
    assert bot.act({**start, "towers": [], "units": units, "late": None, "actions_left": 0}) == {
        "action": "end_turn"
    }


def turn_start(units: list[dict[str, Any]], **over: Any) -> dict[str, Any]:
    payload = {
        "type": "turn_start",
        "round": 1,
        "rounds_left": 159,
        "credit": 300,
        "blueprints_owned": [],
        "towers": [],
        "units": units,
        "late": None,
        "actions_left": 200,
    }
    payload.update(over)
    return payload


def test_cq45_buyer_buys_the_goal_next_to_a_camp_that_stocks_it() -> None:
    """§10 step 3: the unit within camp_radius of a camp whose stock holds the goal buys it (units 4
    and 5 both are; the tie goes to the lower id). Unit 3, out of energy, has nothing to do."""
    camp = [{"x": 5, "y": 4, "camp": {"stock": ["O1", "O4"]}}]
    units = [
        unit(3, "devil", 3, 3, 0),
        unit(4, "fox", 4, 3, cells=camp),
        unit(5, "crocodile", 5, 3, cells=camp),
    ]
    bot = Prospector()
    bot.setup(setup_payload(units, blueprints=[O4]))
    action = bot.act(turn_start(units))
    assert action == {"action": "buy", "unit": 4, "blueprint": "O4"}
    bought = bot.act(result(action, units[1], credit=243, blueprints_owned=["O4"]))
    assert bought["action"] != "buy"  # it buys no other blueprint (§10 "Goal")


def test_cq45_buyer_walks_to_a_camp_that_stocks_the_goal() -> None:
    """§10 step 3: the camp at (9,3) stocks O4 (seen earlier); the nearest unit, 5, walks east to it
    (units 3 and 4 have no energy left, so unit 5 acts first)."""
    units = [unit(3, "devil", 3, 3, 0), unit(4, "fox", 4, 3, 0), unit(5, "crocodile", 5, 3)]
    bot = Prospector()
    bot.setup(setup_payload(units, blueprints=[O4]))
    assert bot.memory is not None
    bot.memory.camps[bot.memory.cell(9, 3)] = ("O4",)
    bot.memory.blocked[bot.memory.cell(9, 3)] = 1
    action = bot.act(turn_start(units))
    assert action["action"] == "move" and action["unit"] == 5 and action["x"] == 6


def test_cq49_endgame_buys_nothing() -> None:
    """§10 "Endgame": in the last 15 rounds the bot buys nothing, even next to a stocking camp."""
    camp = [{"x": 5, "y": 4, "camp": {"stock": ["O4"]}}]
    units = [unit(3, "devil", 3, 3), unit(4, "fox", 4, 3, cells=camp), unit(5, "crocodile", 5, 3, cells=camp)]
    bot = Prospector()
    bot.setup(setup_payload(units, blueprints=[O4]))
    first = bot.act(turn_start(units, round=150, rounds_left=10))
    assert first["action"] != "buy"
    assert first == {"action": "end_turn"}  # no blueprint and no buying: nothing useful to do


def test_cq41_pickup_error_forgets_the_cell_and_digs_again() -> None:
    """§10 step 4: after a PickupError (the opponent emptied the cell) the bot digs again before its
    next pickup there, instead of retrying the same pickup."""
    units = [unit(3, "devil", 3, 3), unit(4, "fox", 4, 3), unit(5, "crocodile", 5, 3)]
    bot = Prospector()
    bot.setup(setup_payload(units, blueprints=[O4]))
    owned = {"credit": 243, "blueprints_owned": ["O4"]}
    assert bot.act(turn_start(units, **owned)) == {"action": "scan", "unit": 3}
    scan = [{"x": 3, "y": 3, "vectors": [[1, 1, 1, 1, 1]]}]
    dig = bot.act(result({"action": "scan", "unit": 3}, unit(3, "devil", 3, 3, 140), scan=scan, **owned))
    pickup = bot.act(result(dig, unit(3, "devil", 3, 3, 130), dig={"R1": 10}, **owned))
    assert pickup == {"action": "pickup", "unit": 3, "items": {"R1": 10}}
    error = {"code": "PickupError", "reason": "only 4 left"}
    again = bot.act(result(pickup, unit(3, "devil", 3, 3, 125), ok=False, error=error, **owned))
    assert again == {"action": "dig", "unit": 3}
    retry = bot.act(result(again, unit(3, "devil", 3, 3, 115), dig={"R1": 4}, **owned))
    assert retry == {"action": "pickup", "unit": 3, "items": {"R1": 4}}


def test_cq36_failed_move_ends_that_units_turn() -> None:
    """A refused action (here an ObstacleError) is not retried in the same turn: the next unit acts."""
    units = [unit(3, "devil", 3, 3), unit(4, "fox", 4, 3), unit(5, "crocodile", 5, 3)]
    bot = Prospector()
    bot.setup(setup_payload(units, blueprints=[O4]))
    first = bot.act(turn_start(units))
    assert first["unit"] == 3
    error = {"code": "ObstacleError", "reason": "a tower"}
    second = bot.act(result(first, unit(3, "devil", 3, 3), ok=False, error=error))
    assert second.get("unit") == 4


def test_cq37_components_join_known_cells_a_kind_may_enter() -> None:
    """Reachability over known terrain: a Water column splits Grass for the Devil, not the Crocodile."""
    rows = grass_rows(5, 5)
    rows = [row[:5] + "w" + row[6:] for row in rows]  # x = 5 is Water from y = 0 to 10
    payload = unit(3, "devil", 5, 5)
    payload["view"] = {"x0": 0, "y0": 0, "terrain": rows, "cells": []}
    memory = Memory(setup_payload())
    memory.absorb_unit(payload)
    west, east = memory.cell(2, 5), memory.cell(8, 5)
    assert memory.component("devil", west)[0] != memory.component("devil", east)[0]
    assert memory.component("devil", west)[1] == 5 * 11
    assert memory.component("crocodile", west)[0] == memory.component("crocodile", east)[0]
    assert memory.component("devil", memory.cell(5, 5)) == (-1, 0)


def test_cq45_buyer_visits_a_camp_of_unknown_stock_on_its_way() -> None:
    """§10 step 3: heading for the camp at (12,3) that stocks O4, the buyer first goes next to the
    camp at (8,3), whose stock it has not seen and which lies on its way."""
    units = [unit(3, "devil", 3, 3, 0), unit(4, "fox", 4, 3, 0), unit(5, "crocodile", 5, 3)]
    bot = Prospector()
    bot.setup(setup_payload(units, blueprints=[O4]))
    assert bot.memory is not None
    memory = bot.memory
    for x, stock in ((12, ("O4",)), (8, None)):
        memory.camps[memory.cell(x, 3)] = stock
        memory.blocked[memory.cell(x, 3)] = 1
    plan = bot._buy_plan(5)
    assert plan is not None and plan[0] == "buy"
    assert memory.cheb(plan[1][-1], memory.cell(8, 3)) == 1
    memory.camps[memory.cell(8, 3)] = ("O1",)  # seen from next to it: not the goal
    bot.paths.clear()
    plan = bot._buy_plan(5)
    assert plan is not None and memory.cheb(plan[1][-1], memory.cell(12, 3)) == 1


def random_types(rng: random.Random, k: list[int]) -> list[dict[int, int]]:
    """The leaves of a random CQ-19-style tree over attributes with k[i] values: each leaf's tests."""
    leaves: list[dict[int, int]] = []

    def grow(tests: dict[int, int], depth: int) -> None:
        free = [a for a in range(len(k)) if a not in tests]
        if depth > 0 and (not free or rng.random() < 0.4 or len(leaves) >= 11):
            leaves.append(tests)
            return
        attribute = rng.choice(free)
        for value in range(1, k[attribute] + 1):
            grow({**tests, attribute: value}, depth + 1)

    grow({}, 0)
    return leaves


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_cq20_learning_is_sound_on_random_hidden_structures(seed: int) -> None:
    """CQ-19 to CQ-21: whatever the hidden tree and whichever cells are dug, every label and every
    classification the learner gives is the true type."""
    rng = random.Random(seed)
    k = [rng.randint(4, 5) for _ in range(5)]
    tests = random_types(rng, k)
    names = [f"R{i + 1}" for i in range(len(tests))]

    def vector(t: int) -> tuple[int, ...]:
        return tuple(tests[t].get(a, rng.randint(1, k[a])) for a in range(5))

    cells = []
    for _ in range(60):
        kinds = rng.sample(range(len(tests)), rng.randint(1, min(3, len(tests))))
        cells.append({vector(t): names[t] for t in kinds})
    truth = {v: t for cell in cells for v, t in cell.items()}
    learner = TypeLearner(type_count=len(tests))
    for cell in rng.sample(cells, 30):
        learner.observe(list(cell), list(cell.values()))
    assert learner.label_of
    assert all(truth[v] == t for v, t in learner.label_of.items())
    assert all(learner.classify(v) in (None, t) for v, t in truth.items())
