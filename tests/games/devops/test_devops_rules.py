"""DV rules not already covered by the worked examples (test_devops_examples.py), one test or more each."""

from __future__ import annotations

import pytest
from devops_testkit import TEN, engine, inputs, own, play, unit

from botarena.core.config import ConfigError
from botarena.core.protocol import Reply
from botarena.core.rng import stream
from botarena.core.status import Status
from botarena.games.devops import GAME
from botarena.games.devops.actions import UnitMove, UnitMoveType, judge_base, judge_unit
from botarena.games.devops.engine import DevopsEngine


def test_dv3_population_cap_grows_with_territory() -> None:
    e = engine()
    for x in range(10):
        own(e, x, 0, 1)
    _, requests, _ = play(e)
    assert inputs(requests, e)[(1, 0)]["faction"]["populationCap"] == 5 + 11 // 10


def test_dv4_fixed_bounds_draw_nothing_and_game_id_comes_from_its_stream() -> None:
    e = DevopsEngine(GAME.config(overrides=TEN), 77, 2)
    assert (e.state.board.width, e.state.board.height) == (10, 10)
    draw = int(stream(77, "devops.game_id").integers(0, 2**48))
    assert e.game_id == f"devops-{draw:012x}"
    named = DevopsEngine(GAME.config(overrides={**TEN, "game_id": "cup-1"}), 77, 2)
    assert named.game_id == "cup-1"


def test_dv6_map_too_small_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="map too small"):
        DevopsEngine(GAME.config(overrides=TEN), 1, 5)


def test_dv9_overlapping_starting_areas_are_a_config_error() -> None:
    config = GAME.config(overrides={**TEN, "start_territory_radius": 3, "min_tiles_per_faction": 9})
    with pytest.raises(ConfigError, match="map too small"):
        DevopsEngine(config, 1, 4)


def test_dv10_resources_outside_starting_areas() -> None:
    e = DevopsEngine(GAME.config(overrides={**TEN, "resource_density": 0.2}), 5, 2)
    board = e.state.board
    resources = [t for t in range(100) if board.resource[t]]
    assert len(resources) == 20
    assert all(board.owner[t] == 0 for t in resources)


def test_dv11_unit_ids_are_global_and_never_reused() -> None:
    e = DevopsEngine(GAME.config(overrides={**TEN, "score_largest_territory": 0}), 5, 2)
    assert sorted(e.state.units) == [1, 2, 3, 4]
    assert [e.state.units[i].owner for i in (1, 2, 3, 4)] == [1, 1, 2, 2]


def test_dv12_config_errors_are_one_line() -> None:
    with pytest.raises(ConfigError, match="unknown config key 'nope'"):
        GAME.config(overrides={"nope": 1})
    with pytest.raises(ConfigError, match="unit_cost"):
        GAME.config(overrides={"unit_cost": {"PIONEER": 1}})


def test_dv14_upkeep_paid_and_dv13_expiry() -> None:
    e = engine()
    a = e.state.faction(1)
    unit(e, 1, "FIGHTER", 3, 3)
    a.gold = 100
    a.bonuses["CHEAPER_UNITS"] = 1
    play(e)
    assert a.gold == 10 and a.score == 0 and "CHEAPER_UNITS" in a.bonuses
    play(e)
    assert a.gold == 0 and a.score == -75 and "CHEAPER_UNITS" not in a.bonuses


def test_dv16_batch_order_and_chain() -> None:
    e = engine(n=3)
    unit(e, 2, "PIONEER", 5, 5, uid=7)
    unit(e, 1, "PIONEER", 3, 3, uid=9)
    unit(e, 1, "WORKER", 4, 4, uid=8)
    requests = e.next_requests()
    assert e._pending == [(1, 0), (1, 8), (1, 9), (2, 0), (2, 7), (3, 0)]
    assert [r.payload["call"] for r in requests] == ["base", "unit", "unit", "base", "unit", "base"]
    assert requests[0].chain == requests[2].chain != requests[3].chain
    assert requests[0].chain_budget_ms == 20000 and requests[0].timeout_ms == 1000


def test_dv17_turn_budget_reason_and_dv18_penalties() -> None:
    e = engine()
    p = unit(e, 1, "PIONEER", 3, 3)
    _, _, calls = play(
        e,
        {
            (1, 0): Reply(0, Status.CRASHED, None, "bot_error"),
            (1, p.id): Reply(0, Status.TIMEOUT, None, "turn_budget"),
            (2, 0): Reply(1, Status.CRASHED, None, "process_exited"),
        },
    )
    assert (calls[(1, 0)]["status"], calls[(1, 0)]["reason"]) == ("CRASHED", "exception")
    assert (calls[(1, p.id)]["status"], calls[(1, p.id)]["reason"]) == ("TIMEOUT", "turn_budget")
    assert (calls[(2, 0)]["status"], calls[(2, 0)]["reason"]) == ("CRASHED", "transport")
    assert e.state.faction(1).score == -200 and e.state.faction(2).score == -100
    assert "outcome" not in calls[(1, 0)]


def test_dv19_unaffordable_build_and_bomb() -> None:
    costs = dict.fromkeys(("PIONEER", "WORKER", "FIGHTER", "CLERIC", "SAPPER"), 300)
    assert (
        judge_base({"type": "BUILD_UNIT", "unitToBuild": "WORKER"}, 200, costs, 500, 10, 10)[2]
        == "unaffordable"
    )
    assert judge_base({"type": "MANUFACTURE_BOMB"}, 499, costs, 500, 10, 10)[2] == "unaffordable"
    assert (
        judge_base({"type": "BUILD_UNIT", "unitToBuild": "TANK"}, 999, costs, 500, 10, 10)[2]
        == "bad_parameter"
    )
    assert judge_base({"type": 3}, 999, costs, 500, 10, 10)[2] == "bad_type"
    assert judge_base([], 999, costs, 500, 10, 10)[2] == "bad_json"


def test_section5_tolerant_parsing() -> None:
    costs = {"FORTIFY": 250}
    ok = judge_unit(
        {"type": "TRAVEL", "targetLocation": {"x": 3.0, "y": 4, "owner": None}, "targetUnit": None, "x": 1},
        "PIONEER",
        0,
        costs,
        10,
        10,
    )
    assert ok[0] == UnitMove(UnitMoveType.TRAVEL, target=(3, 4)) and ok[1] is Status.OK
    attack = judge_unit(
        {"type": "ATTACK", "targetUnit": {"id": 4, "owner": 2, "type": "PIONEER"}},
        "FIGHTER",
        0,
        costs,
        10,
        10,
    )
    assert attack[0] == UnitMove(UnitMoveType.ATTACK, target_unit=4)
    assert (
        judge_unit({"type": "TRAVEL", "targetLocation": {"x": 1.5, "y": 0}}, "PIONEER", 0, costs, 10, 10)[2]
        == "bad_parameter"
    )
    assert (
        judge_unit({"type": "TRAVEL", "targetLocation": {"x": True, "y": 0}}, "PIONEER", 0, costs, 10, 10)[2]
        == "bad_parameter"
    )
    assert judge_unit({"type": "travel"}, "PIONEER", 0, costs, 10, 10)[2] == "bad_type"
    assert judge_unit({"type": "ATTACK", "targetUnit": 4}, "FIGHTER", 0, costs, 10, 10)[2] == "bad_parameter"


def test_dv22_every_faction_acts_and_dv23_unit_order_is_shuffled() -> None:
    e = engine()
    a = e.state.faction(1)
    p1 = unit(e, 1, "PIONEER", 3, 3)
    p2 = unit(e, 1, "PIONEER", 5, 3)
    to = {"type": "TRAVEL", "targetLocation": {"x": 4, "y": 3}}
    from devops_testkit import FixedOrder

    e.order_rng = FixedOrder([0, 1], [1, 0])  # type: ignore[assignment]
    _, _, calls = play(e, {(1, p1.id): to, (1, p2.id): to})
    assert (p2.x, p2.y) == (4, 3) and calls[(1, p1.id)]["outcomeReason"] == "target_occupied"
    assert a.score == 0


def test_dv26_continue_with_empty_slot_and_dv28_bomb_and_dv29_move_base_conditions() -> None:
    e = engine()
    a = e.state.faction(1)
    a.gold = 2000
    _, _, calls = play(e, {(1, 0): {"type": "CONTINUE_BUILDING_UNIT"}})
    assert calls[(1, 0)]["outcomeReason"] == "slot_empty"
    play(e, {(1, 0): {"type": "MANUFACTURE_BOMB"}})
    assert a.bombs == 1 and a.gold == 1500
    _, _, calls = play(e, {(1, 0): {"type": "MOVE_BASE", "baseLocation": {"x": 5, "y": 5}}})
    assert calls[(1, 0)]["outcomeReason"] == "not_a_base"
    _, _, calls = play(e, {(1, 0): {"type": "MOVE_BASE", "baseLocation": {"x": 1, "y": 9}}})
    assert calls[(1, 0)]["outcomeReason"] == "not_own_tile"
    _, _, calls = play(e, {(1, 0): {"type": "MOVE_BASE", "baseLocation": {"x": 0, "y": 9}}})
    assert calls[(1, 0)]["outcomeReason"] == "same_base"


def test_dv25_build_conditions() -> None:
    e = engine()
    a = e.state.faction(1)
    for x in range(5):
        unit(e, 1, "PIONEER", x, 2)
    a.gold = 5000
    _, _, calls = play(e, {(1, 0): {"type": "BUILD_UNIT", "unitToBuild": "PIONEER"}})
    assert calls[(1, 0)]["outcomeReason"] == "population_cap"


def test_dv37_dv38_dv42_dv43_conditions() -> None:
    e = engine()
    a = e.state.faction(1)
    own(e, 3, 3, 1, fortified=True)
    w = unit(e, 1, "WORKER", 3, 3)
    s = unit(e, 1, "SAPPER", 5, 5)
    f = unit(e, 1, "FIGHTER", 7, 7)
    a.gold = 5000
    _, _, calls = play(
        e,
        {
            (1, w.id): {"type": "FORTIFY"},
            (1, s.id): {"type": "DEPLOY_BOMB"},
            (1, f.id): {"type": "PREPARE_DEFENSE"},
        },
    )
    assert calls[(1, w.id)]["outcomeReason"] == "already_fortified"
    assert calls[(1, s.id)]["outcomeReason"] == "not_own_tile"
    assert f.defense
    own(e, 5, 5, 1)
    _, _, calls = play(e, {(1, s.id): {"type": "DEPLOY_BOMB"}})
    assert calls[(1, s.id)]["outcomeReason"] == "no_bombs"
    _, _, calls = play(e, {(1, s.id): {"type": "CLEAR_BOMB"}})
    assert calls[(1, s.id)]["outcomeReason"] == "not_rigged"


def test_dv46_bomb_persists_and_dv47_neutral_tiles_unfortified() -> None:
    e = engine()
    own(e, 4, 4, 2, fortified=True)
    e.state.board.bomb[e.state.board.index(4, 4)] = 2
    fighter = unit(e, 1, "FIGHTER", 4, 4)
    play(e, {(1, fighter.id): {"type": "NEUTRALIZE_ENEMY_TILE"}})
    play(e, {(1, fighter.id): {"type": "NEUTRALIZE_ENEMY_TILE"}})
    play(e, {(1, fighter.id): {"type": "CONQUER_NEUTRAL_TILE"}})
    tile = e.state.board.index(4, 4)
    assert e.state.board.owner[tile] == 1 and e.state.board.bomb[tile] == 2
    e.state.set_owner(tile, 0)
    e.state.board.fortified[tile] = 0
    e.state.set_owner(tile, 1)
    e.state.board.fortified[tile] = 1
    e.state.set_owner(tile, 0)
    assert not e.state.board.fortified[tile]


def test_dv51_end_conditions_and_abort() -> None:
    e = engine(turn_limit=2)
    play(e)
    assert not e.state.finished
    play(e)
    assert e.state.finished and e.next_requests() == []
    e = engine(abort_on_logic_error=True)
    play(e, {(1, 0): Reply(0, Status.TIMEOUT, None, "deadline")})
    assert e.state.finished and e.state.aborted and e.result().details["aborted"]


def test_section4_hidden_information_in_a_real_game() -> None:
    e = DevopsEngine(GAME.config("smoke"), 3, 2)
    e.state.board.bomb[e.state.board.index(*e.state.faction(1).base)] = 1
    requests = e.next_requests()
    for request in requests:
        payload = request.payload["input"]
        assert payload["faction"]["base"]["mined"] is False
        assert payload["faction"]["defeated"] is False
        text = str(payload)
        assert "'gold'" in text and text.count("'gold'") == 1  # only the asking faction's gold


def test_dv1_map_grid_coordinates_and_tile_fields() -> None:
    e = engine(map_width_min=12, map_width_max=12)
    board = e.state.board
    assert (board.width, board.height) == (12, 10) and len(board.owner) == 120
    assert board.index(11, 2) == 2 * 12 + 11  # x grows to the right, y grows downwards
    assert board.index(0, 3) == board.index(11, 2) + 1
    tile = own(e, 11, 2, 1, resource=True, fortified=True)
    board.bomb[tile] = 2  # rigged by faction 2
    sapper = unit(e, 1, "SAPPER", 11, 2)
    _, requests, _ = play(e)
    seen = inputs(requests, e)[(1, sapper.id)]
    here = seen["unitLocation"]
    assert (here["x"], here["y"]) == (11, 2)
    assert here["base"] is False and here["resource"] is True and here["fortified"] is True
    assert here["owner"] == 1 and here["occupyingUnit"]["id"] == sapper.id
    assert here["mined"] is True and here["rigged"] is True  # a tile holding a bomb is rigged
    neighbours = [(n["x"], n["y"]) for n in seen["neighbouringLocations"]]
    assert all(0 <= x < 12 and 0 <= y < 10 for x, y in neighbours)
    assert neighbours == [(10, 1), (10, 2), (10, 3), (11, 1), (11, 3), (0, 1), (0, 2), (0, 3)]
    base = inputs(requests, e)[(1, 0)]["faction"]["base"]
    assert (base["x"], base["y"], base["base"], base["owner"]) == (0, 9, True, 1)
    assert base["occupyingUnit"] is None and base["resource"] is False and base["fortified"] is False
    empty = board.index(5, 5)
    assert board.owner[empty] == 0 and empty not in board.unit_at and empty not in board.bomb  # neutral


DV5_TABLE = {
    "TRAVEL": {"PIONEER", "WORKER", "FIGHTER", "CLERIC", "SAPPER"},
    "CONQUER_NEUTRAL_TILE": {"PIONEER", "WORKER", "FIGHTER"},
    "NEUTRALIZE_ENEMY_TILE": {"PIONEER", "FIGHTER"},
    "GENERATE_GOLD": {"PIONEER", "WORKER"},
    "ATTACK": {"PIONEER", "FIGHTER", "CLERIC", "SAPPER"},
    "PREPARE_DEFENSE": {"FIGHTER", "SAPPER"},
    "FORTIFY": {"WORKER"},
    "PRAY": {"CLERIC"},
    "HEAL": {"CLERIC"},
    "CONVERT": {"CLERIC"},
    "DEPLOY_BOMB": {"SAPPER"},
    "CLEAR_BOMB": {"SAPPER"},
    "RETIRE": {"PIONEER", "WORKER", "FIGHTER", "CLERIC", "SAPPER"},
    "IDLE": {"PIONEER", "WORKER", "FIGHTER", "CLERIC", "SAPPER"},
}


def test_dv5_move_table_per_unit_type() -> None:
    for move, allowed in DV5_TABLE.items():
        payload = {"type": move, "targetLocation": {"x": 1, "y": 1}, "targetUnit": {"id": 1}}
        for kind in ("PIONEER", "WORKER", "FIGHTER", "CLERIC", "SAPPER"):
            judged = judge_unit(payload, kind, 0, {}, 10, 10)
            if kind in allowed:
                assert judged[1] is Status.OK and judged[0] is not None and judged[0][0] == move, (move, kind)
            else:
                assert judged == (None, Status.INVALID, "type_not_allowed"), (move, kind)


def test_dv5_a_move_outside_the_type_table_is_invalid_and_idle() -> None:
    e = engine()
    a = e.state.faction(1)
    own(e, 3, 3, 1)
    fighter = unit(e, 1, "FIGHTER", 3, 3)
    worker = unit(e, 1, "WORKER", 5, 5)
    a.gold = 1000
    upkeep = e.config.unit_upkeep["FIGHTER"] + e.config.unit_upkeep["WORKER"]
    _, _, calls = play(e, {(1, fighter.id): {"type": "FORTIFY"}, (1, worker.id): {"type": "PREPARE_DEFENSE"}})
    for u in (fighter, worker):
        assert (calls[(1, u.id)]["status"], calls[(1, u.id)]["reason"]) == ("INVALID", "type_not_allowed")
    assert not e.state.board.fortified[e.state.board.index(3, 3)] and not worker.defense
    assert a.score == -2 * e.config.penalty_error and a.gold == 1000 - upkeep


def test_dv15_every_input_of_the_turn_is_built_from_the_post_upkeep_snapshot() -> None:
    e = engine()
    a = e.state.faction(1)
    a.gold = 100
    p1 = unit(e, 1, "PIONEER", 3, 3)
    p2 = unit(e, 1, "FIGHTER", 4, 3)
    upkeep = e.config.unit_upkeep["PIONEER"] + e.config.unit_upkeep["FIGHTER"]  # 135 > 100: unpaid
    requests = e.next_requests()
    seen = inputs(requests, e)
    assert a.gold == 0 and a.score == -e.config.penalty_upkeep and upkeep > 100
    for key in ((1, 0), (1, p1.id), (1, p2.id)):
        faction = seen[key]["faction"]
        assert (faction["gold"], faction["score"], faction["population"]) == (0, -e.config.penalty_upkeep, 2)
    # the inputs are fixed at S_t: applying p1's move does not change what p2 was shown
    replies = [
        Reply(
            r.seat,
            Status.OK,
            {"type": "TRAVEL", "targetLocation": {"x": 3, "y": 4}} if key == (1, p1.id) else {"type": "IDLE"},
        )
        for r, key in zip(requests, e._pending, strict=True)
    ]
    e.apply(replies)
    assert (p1.x, p1.y) == (3, 4)
    neighbours = {(n["x"], n["y"]): n["occupyingUnit"] for n in seen[(1, p2.id)]["neighbouringLocations"]}
    assert neighbours[(3, 3)]["id"] == p1.id and neighbours[(3, 4)] is None


def test_dv30_base_idle_has_no_effect() -> None:
    e = engine()
    a = e.state.faction(1)
    a.gold, a.bombs = 700, 2
    a.slot = ["WORKER", 1]
    owners = list(e.state.board.owner)
    _, _, calls = play(e, {(1, 0): {"type": "IDLE"}})
    assert calls[(1, 0)]["status"] == "OK" and "outcomeReason" not in calls[(1, 0)]
    assert (a.gold, a.bombs, a.score, a.slot, a.base) == (700, 2, 0, ["WORKER", 1], (0, 9))
    assert a.ignored == 0 and e.state.board.owner == owners and e.state.units == {}


def test_dv45_unit_idle_has_no_effect() -> None:
    e = engine()
    a = e.state.faction(1)
    a.gold = 500
    own(e, 3, 3, 2)
    fighter = unit(e, 1, "FIGHTER", 3, 3, health=7, defense=True)
    owners = list(e.state.board.owner)
    _, _, calls = play(e, {(1, fighter.id): {"type": "IDLE"}})
    assert calls[(1, fighter.id)]["status"] == "OK" and "outcomeReason" not in calls[(1, fighter.id)]
    assert (fighter.x, fighter.y, fighter.health, fighter.defense, fighter.enlightened) == (
        3,
        3,
        7,
        True,
        False,
    )
    assert a.gold == 500 - e.config.unit_upkeep["FIGHTER"] and a.score == 0 and a.ignored == 0
    assert e.state.board.owner == owners and fighter.id in e.state.units
