"""Rules CQ-28 to CQ-50 (spec 3.3-3.5), one or more tests per rule id, on scenario E (untimed unless
said otherwise) played request by request."""

from __future__ import annotations

from typing import Any

import pytest
from cq_testkit import Driver, error_code, scenario_e

from botarena.core.protocol import MessageType, Reply
from botarena.core.status import Status


def move(unit: int, x: int, y: int) -> dict[str, Any]:
    return {"action": "move", "unit": unit, "x": x, "y": y}


def turn_starts(d: Driver) -> list[tuple[int, int]]:
    """(round, seat) of every turn_start sent so far."""
    return [(p["round"], seat) for seat, p, _ in d.sent if p.get("type") == "turn_start"]


# -- 3.3 game flow -----------------------------------------------------------------------------------


def test_cq28_setup_goes_to_both_players_and_its_content_is_ignored() -> None:
    d = Driver(setup=False)
    assert [(r.seat, r.type, r.payload["type"]) for r in d.setups] == [
        (0, MessageType.START, "setup"),
        (1, MessageType.START, "setup"),
    ]
    assert all(r.timeout_ms == 3000 for r in d.setups)
    verdicts = d.engine.apply_start([Reply(0, Status.OK, {"anything": [1, 2]}), Reply(1, Status.OK, "junk")])
    assert [(v.status, v.reason) for v in verdicts] == [(Status.OK, None), (Status.INVALID, "not_object")]
    d.pull()
    assert d.seat == 0 and d.question is not None and d.question["type"] == "turn_start"


def test_cq28_a_missing_setup_answer_is_owed() -> None:
    d = Driver(setup=False)
    d.engine.apply_start([Reply(0, Status.TIMEOUT, None, "deadline"), Reply(1, Status.OK, {})])
    d.pull()
    assert d.seat == 1  # player 1 owes its setup answer: its first turn is skipped
    d.late(0, Status.OK, {"ready": True})  # a late setup answer is discarded (CQ-33)
    d.end_turn()
    assert d.seat == 0 and d.question is not None and d.question["round"] == 2 and d.question["late"] is None
    # both events happened between batches: they ride in the first step's record, in order
    kinds = [(e["kind"], e["status"], e["reason"], e["round"], e["player"]) for e in d.records[0]["before"]]
    assert kinds == [("no_answer", "TIMEOUT", "answer_owed", 1, 1), ("late_discarded", "OK", "late", 1, 1)]


def test_cq29_rounds_alternate_player_1_then_player_2() -> None:
    d = Driver(rounds=3)
    while d.question is not None:
        d.end_turn()
    assert turn_starts(d) == [(1, 0), (1, 1), (2, 0), (2, 1), (3, 0), (3, 1)]


def test_cq30_energy_resets_to_unit_energy_and_leftover_is_lost() -> None:
    d = Driver()
    d.act({"action": "dig", "unit": 3})
    d.end_turn()
    d.end_turn()
    assert d.question is not None
    assert [u["energy"] for u in d.question["units"]] == [150, 150, 150]
    d.unit(4).energy = 999  # leftover above the reset value is lost as well
    d.end_turn()
    d.end_turn()
    assert d.unit(4).energy == 150


def test_cq30_a_late_action_counts_towards_the_limit_and_becomes_late() -> None:
    d = Driver(max_actions_per_turn=5)
    d.act({"action": "dig", "unit": 3})
    d.reply(Status.TIMEOUT, None, "deadline")
    d.late(0, Status.OK, {"action": "scan", "unit": 4})
    d.end_turn()
    start = d.question
    assert start is not None and start["actions_left"] == 4
    assert start["late"]["type"] == "result" and start["late"]["scan"] is not None
    assert start["late"]["actions_left"] == 4 and start["late"]["unit"]["energy"] == 140


def test_cq30_with_one_action_per_turn_a_late_action_closes_the_turn_at_once() -> None:
    d = Driver(max_actions_per_turn=1)
    d.reply(Status.TIMEOUT, None, "deadline")  # owes its answer to turn_start
    d.late(0, Status.OK, {"action": "dig", "unit": 3})
    d.end_turn()  # player 2
    assert d.question is not None and d.question["actions_left"] == 0 and d.question["late"]["ok"]
    assert d.request is not None and d.request.await_reply is False
    record = d.reply(Status.TIMEOUT, None, "not_awaited")
    assert (record["kind"], record["reason"]) == ("limit", "action_limit")
    assert d.seat == 1  # and player 1 owes the answer to that turn_start


def test_cq31_the_reply_to_the_last_allowed_request_closes_the_turn() -> None:
    d = Driver(max_actions_per_turn=2)
    assert d.act({"action": "dig", "unit": 3})["actions_left"] == 1
    assert d.request is not None and d.request.await_reply
    result = d.act({"action": "dig", "unit": 4})
    assert result["actions_left"] == 0 and d.request is not None and not d.request.await_reply
    d.reply(Status.TIMEOUT, None, "not_awaited")
    assert d.seat == 1
    d.late(0, Status.OK, {"action": "end_turn"})  # the answer to that result is late: discarded
    d.end_turn()
    assert d.seat == 0 and d.question is not None and d.question["late"] is None
    assert d.records[-1]["before"][0]["kind"] == "late_discarded"


def test_cq31_a_transport_that_waits_for_the_closing_result_hands_a_late_answer() -> None:
    d = Driver(max_actions_per_turn=1)
    d.act({"action": "dig", "unit": 3})
    record = d.reply(Status.OK, {"action": "scan", "unit": 3})  # arrived after the turn closed
    assert record["kind"] == "limit"
    d.end_turn()
    assert d.question is not None and d.question["late"]["action"] == {"action": "scan", "unit": 3}


def test_cq31_timed_questions_share_the_turn_budget_as_one_chain() -> None:
    d = Driver(turn_budget_ms=1000, turn_grace_ms=100)
    first = d.request
    d.act({"action": "dig", "unit": 3})
    second = d.request
    assert first is not None and second is not None
    assert first.chain == second.chain == (1, 1)
    assert first.chain_budget_ms == second.chain_budget_ms == first.timeout_ms == 1100
    d.end_turn()
    assert d.request is not None and d.request.chain == (1, 2)


def test_cq32_closing_a_turn_applies_nothing() -> None:
    d = Driver()
    d.act({"action": "dig", "unit": 3})
    before = d.engine.keyframe()
    d.end_turn()
    after = d.engine.keyframe()
    assert after["units"] == before["units"] and after["towers"] == before["towers"]
    assert d.seat == 1  # the opponent's turn begins at once


def test_cq33_a_late_end_turn_is_discarded_and_a_late_action_queued() -> None:
    d = Driver()
    d.reply(Status.TIMEOUT, None, "deadline")
    d.late(0, Status.OK, {"action": "end_turn"})
    assert d.engine.queued == {}
    d.end_turn()
    assert d.question is not None and d.question["late"] is None
    d.reply(Status.TIMEOUT, None, "deadline")
    d.late(0, Status.OK, {"action": "fly", "unit": 3})  # a late malformed action still counts
    d.end_turn()
    late = d.question
    assert late is not None and late["late"]["error"]["code"] == "UnknownError"
    d.act({"action": "dig", "unit": 3})
    entry = d.records[-1]["before"][0]
    assert (entry["kind"], entry["status"], entry["reason"]) == ("late_action", "INVALID", "UnknownError")


def test_cq33_an_unreadable_late_line_is_an_operand_error() -> None:
    d = Driver()
    d.reply(Status.TIMEOUT, None, "deadline")
    d.late(0, Status.INVALID, None, "bad_json")
    d.end_turn()
    assert d.question is not None
    late = d.question["late"]
    assert late["error"]["code"] == "OperandError" and late["action"] is None and late["unit"] is None


def test_cq33_a_queued_action_is_discarded_when_the_game_ends_first() -> None:
    d = Driver(rounds=1)
    d.end_turn()
    d.reply(Status.TIMEOUT, None, "deadline")  # player 2, last turn of the game
    assert d.request is None
    d.late(1, Status.OK, {"action": "dig", "unit": 6})
    assert d.engine.next_requests() == [] and d.engine.queued == {}


def test_cq34_a_bot_that_owes_is_sent_nothing_and_its_turns_are_skipped() -> None:
    d = Driver(rounds=4)
    d.reply(Status.TIMEOUT, None, "deadline")
    while d.question is not None:
        assert d.seat == 1
        d.end_turn()
    assert turn_starts(d) == [(1, 0), (1, 1), (2, 1), (3, 1), (4, 1)]
    skipped = [e for r in d.records for e in r.get("before", []) if e["kind"] == "no_answer"]
    assert [(e["round"], e["status"], e["reason"]) for e in skipped] == [
        (2, "TIMEOUT", "answer_owed"),
        (3, "TIMEOUT", "answer_owed"),
        (4, "TIMEOUT", "answer_owed"),
    ]
    assert [r.seat for r in d.engine.end_requests()] == [0, 1]  # game_over goes to an owing bot too


def test_cq34_a_crashed_bot_keeps_its_credit_and_its_units_idle() -> None:
    d = Driver(rounds=3)
    d.act({"action": "dig", "unit": 3})
    record = d.reply(Status.CRASHED, None, "process_exited")
    assert (record["kind"], record["status"], record["reason"]) == ("no_answer", "CRASHED", "process_exited")
    while d.question is not None:
        assert d.seat == 1
        d.end_turn()
    skipped = [e for r in d.records for e in r.get("before", []) if e["kind"] == "no_answer"]
    assert [(e["round"], e["status"], e["reason"]) for e in skipped] == [
        (2, "CRASHED", "process_exited"),
        (3, "CRASHED", "process_exited"),
    ]
    assert d.state.teams[1].credit == 300 and [r.seat for r in d.engine.end_requests()] == [1]


def test_cq34_a_bot_that_dies_while_owing_is_skipped_as_crashed() -> None:
    d = Driver(rounds=3)
    d.reply(Status.TIMEOUT, None, "deadline")
    d.late(0, Status.CRASHED, None, "process_exited")
    d.end_turn()
    d.end_turn()
    entry = d.records[-1]["before"][0]
    assert (entry["kind"], entry["status"], entry["reason"], entry["round"]) == (
        "no_answer",
        "CRASHED",
        "process_exited",
        2,
    )


def test_cq34_an_in_process_exception_closes_the_turn_but_the_bot_plays_on() -> None:
    d = Driver()
    record = d.reply(Status.CRASHED, None, "bot_error")
    assert (record["kind"], record["status"], record["reason"]) == ("no_answer", "CRASHED", "bot_error")
    d.end_turn()
    assert d.seat == 0 and d.question is not None and d.question["round"] == 2


def test_cq35_untimed_mode_waits_turn_timeout_ms_per_answer_without_a_chain() -> None:
    d = Driver(turn_timeout_ms=5000)
    assert d.request is not None and d.request.chain is None and d.request.timeout_ms == 5000
    record = d.reply(Status.TIMEOUT, None, "deadline")
    assert (record["kind"], record["status"], record["reason"]) == ("timeout", "TIMEOUT", "deadline")
    assert d.engine.owes[1] == "turn"


# -- 3.4 actions ---------------------------------------------------------------------------------------


def test_cq36_the_first_failing_check_decides() -> None:
    d = Driver()
    d.unit(3).energy = 0
    d.tower(2, 7, 7)
    # pickup: NoEnergyError comes before GuardError and PickupError
    assert error_code(d.act({"action": "pickup", "unit": 3, "items": {"R5": 1}})) == "NoEnergyError"
    # move: MoveError before TerrainError before ObstacleError before NoEnergyError
    assert error_code(d.act(move(5, 7, 1))) == "MoveError"
    d.place(4, 10, 9)
    d.unit(4).energy = 0
    assert error_code(d.act(move(4, 10, 10))) == "ObstacleError"


def test_cq36_a_cost_of_zero_is_allowed_at_zero_energy_and_energy_never_goes_below_zero() -> None:
    d = Driver()
    d.state.teams[1].blueprints.add("O4")
    devil = d.unit(3)
    devil.energy = 0
    devil.resources = {"R1": 20, "R2": 10}
    assert d.act({"action": "craft", "unit": 3, "object": "O4", "alternative": 0})["ok"]
    assert d.act({"action": "sell", "unit": 3, "object": "O4", "quantity": 1})["ok"]
    assert error_code(d.act({"action": "drop", "unit": 3, "items": {"R1": 1}})) == "ResourceMissingError"
    assert devil.energy == 0


@pytest.mark.parametrize(
    ("unit", "start", "terrain", "cost"),
    [
        (3, (20, 20), ".", 20),
        (3, (20, 20), "s", 22),
        (5, (20, 20), "W", 22),
        (3, (20, 20), ":", 24),
        (3, (20, 20), "~", 25),
        (4, (20, 20), "*", 25),
        (5, (20, 20), "w", 20),
    ],
)
def test_cq37_move_costs_by_terrain(unit: int, start: tuple[int, int], terrain: str, cost: int) -> None:
    scenario = scenario_e()
    row = list(scenario["terrain"][20])
    row[21] = terrain
    scenario["terrain"][20] = "".join(row)
    d = Driver(scenario)
    d.place(unit, *start)
    result = d.act(move(unit, 21, 20))
    assert result["ok"] and result["energy_spent"] == cost and result["unit"]["energy"] == 150 - cost


@pytest.mark.parametrize("target", [(-1, 2), (2, -1), (50, 10), (10, 50)])
def test_cq37_targets_outside_the_map_are_move_errors(target: tuple[int, int]) -> None:
    d = Driver()
    d.place(3, min(max(target[0], 0), 49), min(max(target[1], 0), 49))
    assert error_code(d.act(move(3, *target))) == "MoveError"


def test_cq37_other_units_in_the_target_do_not_matter() -> None:
    d = Driver()
    d.place(6, 3, 4)
    assert d.act(move(3, 3, 4))["ok"]


def test_cq38_own_towers_never_drain_and_standing_still_costs_nothing() -> None:
    d = Driver()
    d.tower(1, 5, 5)
    result = d.act(move(4, 5, 4))  # next to its own tower: Sand costs 22, nothing drains
    assert result["drained"] == [] and result["unit"]["energy"] == 128
    result = d.act({"action": "dig", "unit": 4})
    assert result["drained"] == [] and result["unit"]["energy"] == 118


def test_cq38_drained_lists_every_tower_in_range_even_at_zero() -> None:
    d = Driver()
    d.tower(2, 8, 3)
    d.tower(2, 30, 30)  # out of range
    d.unit(5).energy = 20
    result = d.act(move(5, 6, 3))  # d = 2 from tower 1, energy 0 after the move
    assert result["drained"] == [{"tower": 1, "amount": 0}] and result["unit"]["energy"] == 0
    assert d.state.towers[0].strength == 250


def test_cq39_dig_shows_buried_only_and_changes_nothing() -> None:
    d = Driver()
    d.state.resource_piles[(3, 3)] = {"R5": 2}
    before = d.engine.keyframe()
    result = d.act({"action": "dig", "unit": 3})
    assert result["dig"] == {"R3": 10, "R8": 2}
    after = d.engine.keyframe()
    assert after["cells"] == before["cells"]


def test_cq40_scan_hides_piles_and_forgets_an_emptied_type() -> None:
    d = Driver()
    d.state.resource_piles[(4, 4)] = {"R5": 2}
    d.unit(3).energy = 150
    d.act({"action": "pickup", "unit": 3, "items": {"R8": 2}})
    result = d.act({"action": "scan", "unit": 3})
    assert result["scan"][0] == {"x": 3, "y": 3, "vectors": [[2, 1, 4, 3, 1]]}  # R8 is gone
    assert all((c["x"], c["y"]) != (4, 4) for c in result["scan"])


def test_cq41_objects_come_from_the_dropped_pile_and_a_fallen_tower_guards_nothing() -> None:
    d = Driver()
    tower = d.tower(2, 6, 6)
    tower.alive = False
    del d.state.tower_at[(6, 6)]
    d.state.object_piles[(3, 3)] = {"O4": 2}
    result = d.act({"action": "pickup", "unit": 3, "items": {"O4": 2, "R3": 1}})
    assert (
        result["ok"] and result["unit"]["objects"] == {"O4": 2} and result["unit"]["resources"] == {"R3": 1}
    )
    assert (3, 3) not in d.state.object_piles and d.state.buried[(3, 3)]["R3"] == 9
    assert d.records[-1]["state"]["cells"] == [
        {"x": 3, "y": 3, "resources": {}, "objects": {}, "buried": {"R3": 9, "R8": 2}}
    ]


def test_cq42_drop_makes_piles_that_a_team_mate_picks_up() -> None:
    d = Driver()
    d.unit(3).resources = {"R1": 5}
    d.place(4, 3, 3)
    assert d.act({"action": "drop", "unit": 3, "items": {"R1": 5}})["ok"]
    assert d.state.resource_piles[(3, 3)] == {"R1": 5}
    result = d.act({"action": "dig", "unit": 4})
    here = next(c for c in result["unit"]["view"]["cells"] if (c["x"], c["y"]) == (3, 3))
    assert here["resources"] == {"R1": 5}
    assert d.act({"action": "pickup", "unit": 4, "items": {"R1": 5}})["unit"]["resources"] == {"R1": 5}
    assert d.unit(3).resources == {}


def test_cq42_drop_cost_needs_energy() -> None:
    d = Driver(drop_cost=7)
    d.unit(3).resources = {"R1": 1}
    d.unit(3).energy = 6
    assert error_code(d.act({"action": "drop", "unit": 3, "items": {"R1": 1}})) == "NoEnergyError"


def test_cq43_complex_crafting_consumes_objects_and_the_first_matching_alternative() -> None:
    scenario = scenario_e()
    scenario["blueprints"][0]["alternatives"] = [{"R1": 2}, {"R1": 2}]
    d = Driver(scenario)
    d.state.teams[1].blueprints |= {"O4", "O10"}
    devil = d.unit(3)
    devil.resources = {"R1": 2}
    devil.objects = {"O2": 2, "O5": 4}
    assert d.act({"action": "craft", "unit": 3, "object": "O4", "ingredients": {"R1": 2}})["ok"]
    result = d.act({"action": "craft", "unit": 3, "object": "O10", "alternative": 0})
    assert result["ok"] and result["unit"]["objects"] == {"O4": 1, "O5": 1, "O10": 1}
    assert (
        error_code(d.act({"action": "craft", "unit": 3, "object": "O10", "alternative": 2}))
        == "CraftingError"
    )


def test_cq43_team_mates_inventories_do_not_count() -> None:
    d = Driver()
    d.state.teams[1].blueprints.add("O4")
    d.unit(3).resources = {"R1": 20}
    d.unit(4).resources = {"R2": 10}
    d.place(4, 3, 3)
    assert (
        error_code(d.act({"action": "craft", "unit": 3, "object": "O4", "alternative": 0}))
        == "ResourceMissingError"
    )


def test_cq44_sell_pays_value_times_quantity() -> None:
    d = Driver()
    d.unit(5).objects = {"O10": 3}
    result = d.act({"action": "sell", "unit": 5, "object": "O10", "quantity": 2})
    assert result["credit"] == 300 + 2 * 2475 and result["unit"]["objects"] == {"O10": 1}


def test_cq45_buy_needs_credit_and_a_camp_within_camp_radius() -> None:
    d = Driver(camp_radius=2)
    d.place(4, 8, 8)  # 2 from the camp at (10,10)
    d.state.teams[1].credit = 56
    assert error_code(d.act({"action": "buy", "unit": 4, "blueprint": "O4"})) == "NoCreditError"
    d.state.teams[1].credit = 57
    result = d.act({"action": "buy", "unit": 4, "blueprint": "O4"})
    assert result["ok"] and result["credit"] == 0


def test_cq46_build_errors_and_tower_ids_across_players() -> None:
    d = Driver()
    assert error_code(d.act({"action": "build_tower", "unit": 3})) == "BuildError"  # buried at (3,3)
    d.state.teams[1].credit = 74
    assert error_code(d.act({"action": "build_tower", "unit": 4})) == "NoCreditError"
    d.state.teams[1].credit = 300
    assert d.act({"action": "build_tower", "unit": 4})["towers"][0]["id"] == 1
    assert error_code(d.act({"action": "build_tower", "unit": 4})) == "BuildError"  # a structure
    assert d.act(move(4, 4, 2))["ok"]  # a unit on a tower's cell may leave
    assert error_code(d.act(move(4, 4, 3))) == "ObstacleError"  # and nobody may enter it
    d.unit(5).objects = {"O4": 1}
    d.act({"action": "drop", "unit": 5, "items": {"O4": 1}})
    assert error_code(d.act({"action": "build_tower", "unit": 5})) == "BuildError"  # a dropped object
    d.end_turn()
    d.place(6, 30, 30)
    result = d.act({"action": "build_tower", "unit": 6})
    assert result["towers"] == [{"id": 2, "x": 30, "y": 30, "strength": 250, "alive": True}]
    assert d.state.teams[2].credit == 225


def test_cq47_end_turn_gets_no_reply() -> None:
    d = Driver()
    count = len(d.sent)
    d.end_turn()
    assert len(d.sent) == count + 1 and d.sent[-1][0] == 1 and d.sent[-1][1]["type"] == "turn_start"


def test_cq48_credit_and_blueprints_belong_to_the_team() -> None:
    d = Driver()
    d.place(4, 9, 9)
    d.act({"action": "buy", "unit": 4, "blueprint": "O4"})
    d.unit(5).resources = {"R1": 20, "R2": 10}
    result = d.act({"action": "craft", "unit": 5, "object": "O4", "alternative": 0})
    assert result["ok"] and result["credit"] == 243 and result["blueprints_owned"] == ["O4"]
    d.end_turn()
    d.unit(6).resources = {"R1": 20, "R2": 10}
    assert (
        error_code(d.act({"action": "craft", "unit": 6, "object": "O4", "alternative": 0})) == "CraftingError"
    )


# -- 3.5 end of game -----------------------------------------------------------------------------------


def test_cq49_the_game_ends_after_player_2_in_the_last_round() -> None:
    d = Driver(rounds=2)
    while d.question is not None:
        d.end_turn()
    assert [(r["round"], r["player"]) for r in d.records] == [(1, 1), (1, 2), (2, 1), (2, 2)]
    assert d.engine.next_requests() == []
    ends = d.engine.end_requests()
    assert [(r.seat, r.type, r.payload["type"]) for r in ends] == [
        (0, MessageType.END, "game_over"),
        (1, MessageType.END, "game_over"),
    ]
    assert ends[0].timeout_ms == 60000


def test_cq50_when_both_bots_are_gone_the_game_stops_early() -> None:
    d = Driver(rounds=100)
    d.reply(Status.CRASHED, None, "process_exited")
    assert d.seat == 1
    d.reply(Status.CRASHED, None, "disconnected")
    assert d.request is None and d.engine.end_requests() == []
    result = d.engine.result()
    assert result.ranks == [1, 1] and result.details["winner"] is None
