"""Spec 4: the payloads' exact key sets, numeric id order, views (window, `-` outside the map, cell
keys only when non-empty, camp stock `null` beyond `camp_radius`), turn_start, result, game_over."""

from __future__ import annotations

from typing import Any

from cq_testkit import Driver, scenario_e

from botarena.core.rng import bot_seed

SETUP_KEYS = {
    "type",
    "player",
    "opponent",
    "width",
    "height",
    "rounds",
    "turn_budget_ms",
    "turn_grace_ms",
    "credit",
    "bot_seed",
    "rules",
    "resource_types",
    "object_types",
    "blueprints",
    "units",
}
RULES_KEYS = {
    "unit_energy",
    "move_base_cost",
    "carry_divisor",
    "terrain",
    "dig_cost",
    "scan_cost",
    "pickup_cost",
    "drop_cost",
    "craft_cost",
    "sell_cost",
    "buy_cost",
    "tower_energy_cost",
    "tower_price",
    "tower_strength",
    "tower_radius",
    "tower_drain_base",
    "sight_radius",
    "scan_radius",
    "camp_radius",
    "scan_attribute_count",
    "scan_attribute_max_value",
    "max_actions_per_turn",
    "max_quantity",
}
UNIT_KEYS = {"id", "kind", "x", "y", "energy", "resources", "objects", "view"}
TURN_START_KEYS = {
    "type",
    "round",
    "rounds_left",
    "credit",
    "blueprints_owned",
    "towers",
    "units",
    "late",
    "actions_left",
}
RESULT_KEYS = {
    "type",
    "round",
    "ok",
    "error",
    "action",
    "energy_spent",
    "drained",
    "unit",
    "credit",
    "blueprints_owned",
    "towers",
    "actions_left",
}


def many_blueprints() -> dict[str, Any]:
    """Scenario E with blueprints O2 and O12 added, listed out of order."""
    scenario = scenario_e()
    extra = [
        {"id": "O12", "kind": "simple", "price": 50, "value": 200, "alternatives": [{"R10": 3, "R2": 1}]},
        {
            "id": "O2",
            "kind": "simple",
            "price": 60,
            "value": 240,
            "alternatives": [{"R1": 1}, {"R11": 2, "R3": 1}],
        },
    ]
    scenario["blueprints"] = extra + scenario["blueprints"]
    scenario["camps"][0]["stock"] = ["O12", "O2", "O4"]
    return scenario


def test_spec4_1_setup_keys_rules_and_catalogue_in_numeric_order() -> None:
    d = Driver(many_blueprints(), seed=77)
    for seat, request in enumerate(d.setups):
        setup = request.payload
        assert set(setup) == SETUP_KEYS
        assert (setup["player"], setup["opponent"]) == (seat + 1, 2 - seat)
        assert (setup["width"], setup["height"], setup["rounds"], setup["credit"]) == (50, 50, 160, 300)
        assert (setup["turn_budget_ms"], setup["turn_grace_ms"]) == (0, 100)
        assert setup["bot_seed"] == bot_seed(77, "craftingquest", seat)
        assert set(setup["rules"]) == RULES_KEYS
        assert setup["rules"]["scan_attribute_count"] == 5 and setup["rules"]["scan_attribute_max_value"] == 5
        terrain = setup["rules"]["terrain"]
        assert list(terrain) == ["grass", "dirt", "sand", "snow", "rock", "swamp", "water", "deep_water"]
        assert terrain["grass"] == {"penalty_pct": 0, "enter": ["devil", "fox", "crocodile"]}
        assert terrain["dirt"] == {"penalty_pct": 20, "enter": ["devil"]}
        assert terrain["rock"] == {"penalty_pct": None, "enter": []}
        assert terrain["deep_water"] == {"penalty_pct": 10, "enter": ["crocodile"]}
        assert setup["resource_types"] == [f"R{i}" for i in range(1, 13)]
        assert setup["object_types"] == [f"O{i}" for i in range(1, 13)]
        assert [b["id"] for b in setup["blueprints"]] == ["O2", "O4", "O10", "O12"]
        assert setup["blueprints"][3]["alternatives"] == [{"R2": 1, "R10": 3}]
        assert list(setup["blueprints"][0]["alternatives"][1]) == ["R3", "R11"]
        assert [u["id"] for u in setup["units"]] == [3 * (seat + 1) + i for i in range(3)]
        assert all(set(u) == UNIT_KEYS for u in setup["units"])


def test_spec4_2_unit_view_window_and_cells() -> None:
    d = Driver()
    d.state.resource_piles[(2, 2)] = {"R10": 1, "R2": 3}
    d.state.object_piles[(2, 2)] = {"O4": 1}
    d.unit(3).resources = {"R10": 2, "R9": 1}
    devil = d.act({"action": "dig", "unit": 3})["unit"]
    assert list(devil["resources"]) == ["R9", "R10"]
    view = devil["view"]
    assert (view["x0"], view["y0"]) == (-2, -2)
    assert len(view["terrain"]) == 11 and all(len(row) == 11 for row in view["terrain"])
    assert view["terrain"][0] == "-" * 11 and view["terrain"][2] == "--" + "." * 9
    assert view["terrain"][6][6] == "w" and view["terrain"][6][7] == "s" and view["terrain"][4][8] == "#"
    cells = {(c["x"], c["y"]): c for c in view["cells"]}
    assert list(cells) == sorted(cells, key=lambda c: (c[1], c[0]))  # row-major
    assert cells[(2, 2)] == {"x": 2, "y": 2, "resources": {"R2": 3, "R10": 1}, "objects": {"O4": 1}}
    assert cells[(3, 3)] == {
        "x": 3,
        "y": 3,
        "units": [{"id": 3, "player": 1, "kind": "devil", "energy": 140}],
    }
    assert (3, 4) not in cells  # nothing there: buried resources never show in a view
    assert (9, 9) not in cells  # beyond sight radius 5 (6 away)


def test_spec4_2_camp_stock_only_within_camp_radius_and_towers_of_either_team() -> None:
    d = Driver()
    d.place(4, 11, 11)
    d.place(5, 13, 10)
    d.tower(2, 12, 12, 235)
    fox = d.act({"action": "dig", "unit": 4})["unit"]["view"]["cells"]
    croc = d.act({"action": "dig", "unit": 5})["unit"]["view"]["cells"]
    assert {"x": 10, "y": 10, "camp": {"stock": ["O1", "O4"]}} in fox
    assert {"x": 10, "y": 10, "camp": {"stock": None}} in croc
    assert {"x": 12, "y": 12, "tower": {"id": 1, "owner": 2, "strength": 235}} in fox


def test_spec4_2_units_of_both_teams_share_a_cell_in_id_order() -> None:
    d = Driver()
    d.place(7, 3, 3)
    d.place(4, 3, 3)
    cell = next(
        c for c in d.act({"action": "dig", "unit": 3})["unit"]["view"]["cells"] if c["x"] == 3 == c["y"]
    )
    assert [u["id"] for u in cell["units"]] == [3, 4, 7]
    assert set(cell["units"][2]) == {"id", "player", "kind", "energy"}  # no inventory of anyone


def test_spec4_3_turn_start_fields() -> None:
    d = Driver()
    d.state.teams[1].blueprints |= {"O10", "O4"}
    d.tower(1, 20, 20, 235)
    d.end_turn()
    d.end_turn()
    start = d.question
    assert start is not None and set(start) == TURN_START_KEYS
    assert (start["type"], start["round"], start["rounds_left"], start["credit"]) == (
        "turn_start",
        2,
        158,
        300,
    )
    assert start["blueprints_owned"] == ["O4", "O10"]
    assert start["towers"] == [{"id": 1, "x": 20, "y": 20, "strength": 235, "alive": True}]
    assert (
        [u["id"] for u in start["units"]] == [3, 4, 5]
        and start["late"] is None
        and start["actions_left"] == 200
    )


def test_spec4_3_the_last_round_has_no_rounds_left() -> None:
    d = Driver(rounds=2)
    d.end_turn()
    d.end_turn()
    assert d.question is not None and d.question["round"] == 2 and d.question["rounds_left"] == 0


def test_spec4_4_result_fields_dig_and_scan_only_when_present() -> None:
    d = Driver()
    moved = d.act({"action": "move", "unit": 4, "x": 5, "y": 4})
    assert set(moved) == RESULT_KEYS
    assert moved["action"] == {"action": "move", "unit": 4, "x": 5, "y": 4} and moved["unit"]["id"] == 4
    assert moved["error"] is None and moved["drained"] == [] and moved["round"] == 1
    dug = d.act({"action": "dig", "unit": 3, "note": "extra fields are echoed"})
    assert set(dug) == RESULT_KEYS | {"dig"} and dug["action"]["note"] == "extra fields are echoed"
    scanned = d.act({"action": "scan", "unit": 3})
    assert set(scanned) == RESULT_KEYS | {"scan"}
    failed = d.act({"action": "scan", "unit": 9})
    assert set(failed) == RESULT_KEYS and failed["unit"] is None
    assert set(failed["error"]) == {"code", "reason"} and isinstance(failed["error"]["reason"], str)


def test_spec4_5_game_over_has_both_credits_and_the_winner() -> None:
    d = Driver(rounds=1)
    d.state.teams[2].credit = 301
    d.end_turn()
    d.end_turn()
    assert d.question is None
    payloads = [r.payload for r in d.engine.end_requests()]
    assert payloads == [{"type": "game_over", "credits": {"1": 300, "2": 301}, "winner": 2}] * 2
    assert payloads[0] is not payloads[1]  # each bot gets its own objects


def test_spec4_payloads_are_fresh_objects_the_engine_never_reads_back() -> None:
    d = Driver()
    result = d.act({"action": "dig", "unit": 3})
    result["unit"]["resources"]["R1"] = 99
    result["dig"]["R3"] = 0
    result["blueprints_owned"].append("O4")
    again = d.act({"action": "dig", "unit": 3})
    assert again["dig"] == {"R3": 10, "R8": 2} and again["blueprints_owned"] == []
    assert d.unit(3).resources == {}


def test_text_keyframe_text_shows_terrain_structures_units_and_piles() -> None:
    from botarena.games.craftingquest.text import keyframe_text

    d = Driver()
    d.tower(2, 20, 20)
    d.state.resource_piles[(8, 8)] = {"R1": 1}
    keyframe = d.engine.keyframe()
    lines = keyframe_text(keyframe, buried=True).splitlines()
    assert len(lines) == 52 and all(len(line) == 50 for line in lines[:50])
    assert lines[3][3:6] == "345" and lines[4][4:6] == "ws" and lines[2][6] == "#"
    assert lines[10][10] == "M" and lines[20][20] == "T" and lines[8][8] == "+" and lines[9][9] == "$"
    assert lines[46][44:47] == "876"
    assert lines[50].startswith("player 1: credit 300, blueprints -; 3:devil@(3,3) e150")
    assert keyframe_text(keyframe).splitlines()[9][9] == "."  # buried resources only on request
