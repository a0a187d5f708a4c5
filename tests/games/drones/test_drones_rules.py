"""One test (or more) per rule GD-1 .. GD-26 of the GameOfDrones spec (section 3)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from drones_testbots import Greedy, Kamikaze
from drones_testkit import (
    BOTH,
    CRASH,
    DEAD,
    E6_ROUND_RECORD,
    GAME,
    TIMEOUT,
    ScriptedBot,
    Stub,
    act,
    config,
    counts,
    greedy,
    idle,
    new_engine,
    play_round,
    play_with,
    round_result,
    turn,
)
from hypothesis import given
from hypothesis import strategies as st

from botarena.bots.inprocess import PythonBot
from botarena.core.protocol import MessageType, Request
from botarena.core.rng import stream
from botarena.games.drones.bots.examples import Pacifist, Zergy
from botarena.games.drones.engine import DronesEngine
from botarena.runner import run_match

# -- 3.1 Match setup -------------------------------------------------------------------------------


def test_gd1_exactly_two_players() -> None:
    with pytest.raises(ValueError, match="exactly 2 players"):
        DronesEngine(config(), 0, 3)
    with pytest.raises(ValueError):
        GAME.check_players(1)
    GAME.check_players(2)


@pytest.mark.parametrize("rules", BOTH)
def test_gd1_no_rule_depends_on_the_slot(rules: str) -> None:
    """Swapping the seats mirrors every record: the slot only labels the results."""
    script_one = [act(P=1), act(P=2), act(S=4, A=True)]
    script_two = [act(S=1), {}, {}]
    straight = play_round(new_engine(rules, turn_limit=3), script_one, script_two)
    swapped = play_round(new_engine(rules, turn_limit=3), script_two, script_one)
    for a, b in zip(straight, swapped, strict=True):
        assert counts(a) == counts(b)[::-1]
    one, two = round_result(straight), round_result(swapped)
    assert one["outcome"] == "PLAYER 1" and two["outcome"] == "PLAYER 2"
    assert one["player1"] == two["player2"] and one["player2"] == two["player1"]
    assert one["decidedBy"] == two["decidedBy"] == "ATTACK_WON"


def test_gd2_parameters_are_fixed_for_the_match() -> None:
    engine = new_engine(turn_limit=3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        engine.config.turn_limit = 5  # type: ignore[misc]
    play_round(engine, [], [])
    assert engine.next_requests()[0].payload["turnLimit"] == 3


def test_gd3_the_engine_uses_only_its_named_streams() -> None:
    engine = new_engine(turn_limit_range=[2, 5], rounds=30)
    play_with(engine, greedy, greedy)  # every round is a full tie: a coin each round
    assert set(engine.seed_streams) == {"drones.turns", "drones.tiebreak"}


def test_gd3_turn_limits_depend_only_on_the_match_seed() -> None:
    """The turn-limit stream is separate: clash outcomes (and coins) never shift it."""

    def limits(one, two, seed: int) -> list[int]:  # type: ignore[no-untyped-def]
        engine = new_engine(seed=seed, turn_limit_range=[1, 50], rounds=25)
        steps = play_with(engine, one, two)
        return [s.record["roundResult"]["turnLimit"] for s in steps if "roundResult" in s.record]

    kamikaze = Kamikaze().act
    assert limits(greedy, greedy, 11) == limits(kamikaze, idle, 11) == limits(idle, greedy, 11)
    expected = stream(11, "drones.turns").integers(1, 51, size=25).tolist()
    assert limits(greedy, greedy, 11) == expected
    assert limits(greedy, greedy, 11) != limits(greedy, greedy, 12)


def test_gd4_player_seed_comes_from_the_bot_streams() -> None:
    engine = DronesEngine(config(), 2018)
    requests = engine.start_requests()
    for seat, request in enumerate(requests):
        payload = request.payload
        expected = int(stream(2018, f"drones.bot.{seat}").integers(0, 2**32))
        assert payload["playerSeed"] == payload["bot_seed"] == expected
        assert 0 <= payload["playerSeed"] < 2**32
    assert requests[0].payload["playerSeed"] != requests[1].payload["playerSeed"]


def test_gd5_start_goes_to_both_before_any_turn_and_tallies_start_at_zero() -> None:
    seen: list[tuple[int, MessageType]] = []

    def respond(request):  # type: ignore[no-untyped-def]
        seen.append((request.seat, request.type))
        return {}

    bots = [ScriptedBot(respond), ScriptedBot(respond)]
    run_match(GAME, bots, config=config(rounds=1, turn_limit=2), seed=1)
    assert seen[:2] == [(0, MessageType.START), (1, MessageType.START)]
    assert all(kind is MessageType.TURN for _, kind in seen[2:-2])
    first_turn = bots[0].requests[1].payload
    assert (first_turn["roundWins"], first_turn["roundLosses"], first_turn["roundDraws"]) == (0, 0, 0)
    start = bots[0].requests[0].payload
    assert start == {
        "rules": "seed",
        "rounds": 1,
        "drawAllowed": True,
        "playerSeed": start["playerSeed"],
        "bot_seed": start["playerSeed"],
    }


# -- 3.2 Round start -------------------------------------------------------------------------------


def test_gd6_rounds_are_numbered_and_played_in_order() -> None:
    engine = new_engine(rounds=4, turn_limit=2)
    steps = play_with(engine, idle, idle)
    assert [s.record["round"] for s in steps] == [1, 1, 2, 2, 3, 3, 4, 4]
    assert [r["round"] for r in engine.state.round_results] == [1, 2, 3, 4]


def test_gd7_fixed_turn_limit() -> None:
    engine = new_engine(turn_limit=4, rounds=2)
    steps = play_with(engine, idle, idle)
    assert len(steps) == 8
    assert "drones.turns" not in engine.seed_streams


def test_gd7_drawn_turn_limit_one_draw_per_round_told_on_every_turn() -> None:
    engine = DronesEngine(config(turn_limit_range=[2, 6], rounds=3), 0)
    stub = engine.seed_streams["drones.turns"] = Stub(3, 2, 6)
    engine.start_requests()
    engine.apply_start([])
    limits = []
    while requests := engine.next_requests():
        limits.append((requests[0].payload["turnLimit"], requests[1].payload["turnLimit"]))
        turn(engine, {}, {})
    assert limits == [(3, 3)] * 3 + [(2, 2)] * 2 + [(6, 6)] * 6
    assert stub.calls == [(2, 7)] * 3  # integers(lo, hi + 1), once per round


def test_gd7_lo_equal_hi_consumes_nothing() -> None:
    generator = stream(5, "drones.turns")
    before = generator.bit_generator.state
    assert generator.integers(7, 8) == 7
    assert generator.bit_generator.state == before
    engine = new_engine(seed=5, turn_limit_range=[7, 7], rounds=2)
    assert engine.next_requests()[0].payload["turnLimit"] == 7


def test_gd8_every_round_starts_at_one_producer_no_soldiers() -> None:
    engine = new_engine(rounds=3, turn_limit=3)
    while requests := engine.next_requests():
        if requests[0].payload["turn"] == 1:
            for request in requests:
                assert (request.payload["producers"], request.payload["soldiers"]) == (1, 0)
        turn(engine, greedy(requests[0].payload), act(S=1))


# -- 3.3 Turn processing ---------------------------------------------------------------------------


def test_gd9_both_requests_come_from_the_state_at_turn_start() -> None:
    engine = new_engine()
    turn(engine, act(P=1), act(S=1))
    requests = engine.next_requests()
    assert [r.seat for r in requests] == [0, 1]
    assert (requests[0].payload["producers"], requests[0].payload["soldiers"]) == (2, 0)
    assert (requests[1].payload["producers"], requests[1].payload["soldiers"]) == (1, 1)
    # Asking again before replying gives the same requests: nothing depends on a reply yet.
    assert [r.payload for r in engine.next_requests()] == [r.payload for r in requests]


@pytest.mark.parametrize(
    "failure", [TIMEOUT, CRASH, DEAD, "garbage", {"newSoldiers": -1, "launchAttack": True}]
)
def test_gd10_no_action_produces_nothing_and_does_not_attack(failure: object) -> None:
    engine = new_engine()
    step = turn(engine, failure, act(P=1))
    mine = step.record["players"][0]
    assert mine["applied"] is None
    assert mine["status"] != "OK"
    assert (mine["producers"], mine["soldiers"]) == (1, 0)
    assert "roundResult" not in step.record  # no attack, and the game goes on
    assert engine.next_requests()


def test_gd11_capacity_is_producers_at_turn_start() -> None:
    engine = new_engine()
    turn(engine, act(P=1), {})  # (2, 0)
    step = turn(engine, act(P=3), {})  # capacity 2, not 3
    assert counts(step)[0] == (4, 0)
    assert step.record["players"][0]["applied"]["newProducers"] == 2


def test_gd12_seed_production_serves_producers_first() -> None:
    engine = new_engine()
    turn(engine, act(P=2), {})  # clamped to 1
    step = turn(engine, act(P=1, S=5), {})  # capacity 2: P 1, S 1
    entry = step.record["players"][0]
    assert entry["applied"] == {"newProducers": 1, "newSoldiers": 1, "launchAttack": False}
    assert [w["code"] for w in entry["warnings"]] == ["CLAMPED"]
    step = turn(engine, act(P=3, S=0), {})  # capacity 3: all producers, no clamp
    assert step.record["players"][0]["warnings"] == []
    assert counts(step)[0] == (6, 1)


@given(
    steps=st.lists(
        st.tuples(st.integers(0, 2**60), st.integers(0, 2**60), st.booleans()), min_size=1, max_size=10
    )
)
def test_gd12_seed_production_never_exceeds_capacity(steps: list[tuple[int, int, bool]]) -> None:
    engine = new_engine(turn_limit=10)
    for producers, soldiers, _ in steps:
        before = engine.next_requests()[0].payload
        capacity = before["producers"]
        step = turn(engine, act(P=producers, S=soldiers), {})
        entry = step.record["players"][0]
        applied = entry["applied"]
        assert applied["newProducers"] == min(producers, capacity)
        assert applied["newSoldiers"] == min(soldiers, capacity - applied["newProducers"])
        assert applied["newProducers"] + applied["newSoldiers"] <= capacity
        assert entry["producers"] == capacity + applied["newProducers"]
        assert entry["soldiers"] == before["soldiers"] + applied["newSoldiers"]
        clamped = producers > capacity or soldiers > capacity - min(producers, capacity)
        assert [w["code"] for w in entry["warnings"]] == (["CLAMPED"] if clamped else [])
        if "roundResult" in step.record:
            break


def test_gd13_bravolt_float_production_in_binary64_order() -> None:
    engine = new_engine("bravolt2018")
    turn(engine, act(P=0.3), {})
    step = turn(engine, act(P=0.1, S=5), {})
    entry = step.record["players"][0]
    assert entry["producers"] == 1.3 + 0.1 == 1.4000000000000001
    assert entry["soldiers"] == 1.3 - 0.1 == 1.2
    assert entry["applied"] == {"newProducers": 0.1, "newSoldiers": 1.2, "launchAttack": False}
    assert [w["code"] for w in entry["warnings"]] == ["CLAMPED"]


def test_gd13_bravolt_over_request_takes_all_capacity_for_producers() -> None:
    engine = new_engine("bravolt2018")
    step = turn(engine, act(P=5, S=5), {})  # p >= c: p = c, remaining 0, s = 0
    assert counts(step)[0] == (2, 0)
    assert step.record["players"][0]["applied"] == {
        "newProducers": 1,
        "newSoldiers": 0,
        "launchAttack": False,
    }
    assert type(step.record["players"][0]["producers"]) is int  # integral values stay integers (3.6)


@given(
    st.lists(
        st.tuples(st.floats(0, 1e6, allow_nan=False), st.floats(0, 1e6, allow_nan=False)),
        min_size=1,
        max_size=10,
    )
)
def test_gd13_bravolt_production_never_exceeds_capacity(requests: list[tuple[float, float]]) -> None:
    engine = new_engine("bravolt2018", turn_limit=10)
    for producers, soldiers in requests:
        capacity = engine.next_requests()[0].payload["producers"]
        step = turn(engine, act(P=producers, S=soldiers), {})
        applied = step.record["players"][0]["applied"]
        assert applied["newProducers"] <= capacity
        assert applied["newSoldiers"] <= capacity - applied["newProducers"] or applied["newSoldiers"] == 0
        assert applied["newProducers"] <= producers or producers == 0
        if "roundResult" in step.record:
            break


def test_gd14_new_soldiers_fight_at_once_new_producers_count_in_totals() -> None:
    engine = new_engine()
    step = turn(engine, act(S=1, A=True), {})  # the new soldier attacks on the turn it is made
    assert counts(step)[0] == (1, 1)
    assert round_result([step])["trigger"] == "ATTACK"
    # New producers count in the total units of this turn's field battle (E9's TOTAL_UNITS).
    engine = new_engine(turn_limit=1)
    step = turn(engine, act(P=1), act(S=1))
    assert counts(step) == [(2, 0), (1, 1)]
    assert round_result([step])["decidedBy"] == "SOLDIERS"
    engine = new_engine(turn_limit=1)
    step = turn(engine, act(P=1), {})
    result = round_result([step])
    assert (result["outcome"], result["decidedBy"]) == ("PLAYER 1", "TOTAL_UNITS")


def test_gd14_production_of_one_player_does_not_affect_the_other() -> None:
    a = turn(new_engine(), act(P=1), act(S=1))
    b = turn(new_engine(), act(P=1), {})
    assert counts(a)[0] == counts(b)[0] == (2, 0)


def test_gd15_unspent_capacity_is_lost() -> None:
    engine = new_engine()
    turn(engine, act(P=1), {})  # (2, 0)
    step = turn(engine, {}, {})  # spends nothing
    assert counts(step)[0] == (2, 0)
    step = turn(engine, act(S=3), {})  # capacity is still 2, nothing carried over
    assert counts(step)[0] == (2, 2)
    assert step.record["players"][0]["applied"]["newSoldiers"] == 2


def test_gd16_only_an_effective_action_attacks() -> None:
    engine = new_engine()
    step = turn(engine, {"newSoldiers": 1.5, "launchAttack": True}, {})  # INVALID in seed
    assert step.record["players"][0]["status"] == "INVALID"
    assert "roundResult" not in step.record
    step = turn(engine, act(S=1, A=False), {})
    assert "roundResult" not in step.record
    step = turn(engine, act(A=True), {})
    assert round_result([step])["player1"]["launchedAttack"] is True


@pytest.mark.parametrize(
    ("one", "two", "limit", "trigger"),
    [
        (act(A=True), {}, 5, "ATTACK"),
        ({}, act(A=True), 5, "ATTACK"),
        (act(A=True), act(A=True), 5, "FIELD"),
        ({}, {}, 1, "TURN_LIMIT"),
        (act(A=True), {}, 1, "ATTACK"),  # a lone attack on the last turn is not a field battle
    ],
)
def test_gd17_clash_triggers(one: dict, two: dict, limit: int, trigger: str) -> None:
    step = turn(new_engine(turn_limit=limit), one, two)
    assert round_result([step])["trigger"] == trigger


def test_gd17_no_clash_goes_on_to_the_next_turn() -> None:
    engine = new_engine(turn_limit=3)
    first = turn(engine, {}, {})
    second = turn(engine, {}, {})
    assert "roundResult" not in first.record and "roundResult" not in second.record
    assert round_result([turn(engine, {}, {})])["turnsPlayed"] == 3


# -- 3.4 Clash resolution --------------------------------------------------------------------------


def _attack(rules: str, attacker: int, defender: int, bonus: int = 1) -> dict:
    """A lone attack with `attacker` soldiers against `defender` soldiers, built over three turns."""
    engine = new_engine(rules, turn_limit=5, defender_bonus=bonus)
    turn(engine, act(P=1), act(P=1))  # (2, 0) each
    turn(engine, act(P=2), act(P=2))  # (4, 0) each
    return round_result([turn(engine, act(S=attacker, A=True), act(S=defender))])


@pytest.mark.parametrize(
    ("attacker", "defender", "bonus", "winner"),
    [
        (4, 2, 1, "PLAYER 1"),
        (4, 3, 1, "PLAYER 2"),
        (3, 3, 1, "PLAYER 2"),
        (4, 3, 0, "PLAYER 1"),
        (4, 0, 3, "PLAYER 1"),
        (4, 1, 3, "PLAYER 2"),
        (3, 3, 0, "PLAYER 2"),
    ],
)
def test_gd18_seed_lone_attack_needs_more_than_defender_plus_bonus(
    attacker: int, defender: int, bonus: int, winner: str
) -> None:
    result = _attack("seed", attacker, defender, bonus)
    assert result["outcome"] == winner
    assert result["decidedBy"] == ("ATTACK_WON" if winner == "PLAYER 1" else "DEFENCE_HELD")


def test_gd19_seed_field_battle_soldiers_then_totals_then_coin() -> None:
    engine = new_engine(turn_limit=2)
    result = round_result(play_round(engine, [act(S=1), act(S=1, A=True)], [act(P=1), act(S=1, A=True)]))
    assert (result["outcome"], result["decidedBy"]) == ("PLAYER 1", "SOLDIERS")  # 2 vs 1
    engine = new_engine(turn_limit=2)
    result = round_result(play_round(engine, [act(S=1), {}], [act(P=1), act(S=2)]))  # (1, 1) vs (2, 2)
    assert (result["trigger"], result["outcome"], result["decidedBy"]) == (
        "TURN_LIMIT",
        "PLAYER 2",
        "SOLDIERS",
    )
    for coin, winner in ((0, "PLAYER 1"), (1, "PLAYER 2")):
        engine = new_engine(turn_limit=2)
        stub = engine.seed_streams["drones.tiebreak"] = Stub(coin)
        result = round_result(play_round(engine, [act(P=1), act(S=2)], [act(P=1), act(S=2)]))
        assert (result["outcome"], result["decidedBy"]) == (winner, "RANDOM")
        assert stub.calls == [(0, 2)]


def test_gd19_the_coin_is_drawn_only_for_a_full_tie() -> None:
    engine = new_engine(turn_limit=2, rounds=3)
    stub = engine.seed_streams["drones.tiebreak"] = Stub()  # any draw would fail: no values
    play_round(engine, [act(S=1), act(S=1, A=True)], [act(P=1), act(S=1, A=True)])
    play_round(engine, [act(S=1)], [act(P=1)])
    play_round(engine, [act(S=1, A=True)], [{}])
    assert stub.calls == []


@pytest.mark.parametrize(
    ("defender", "bonus", "winner"), [(2, 1, "PLAYER 1"), (3, 0, "PLAYER 2"), (2, 5, "PLAYER 1")]
)
def test_gd20_bravolt_lone_attack_always_uses_one(defender: int, bonus: int, winner: str) -> None:
    result = _attack("bravolt2018", 4, defender, bonus)
    assert result["outcome"] == winner


def test_gd20_bravolt_tells_zero_bonus_as_one() -> None:
    assert new_engine("bravolt2018", defender_bonus=0).next_requests()[0].payload["defenderBonus"] == 1
    assert new_engine("bravolt2018", defender_bonus=3).next_requests()[0].payload["defenderBonus"] == 3
    assert new_engine("seed", defender_bonus=0).next_requests()[0].payload["defenderBonus"] == 0


def test_gd21_bravolt_equal_soldiers_is_a_draw_never_random() -> None:
    engine = new_engine("bravolt2018", turn_limit=2)
    stub = engine.seed_streams["drones.tiebreak"] = Stub()
    result = round_result(play_round(engine, [act(P=1), act(S=2)], [act(S=1), act(S=1)]))
    assert (result["outcome"], result["decidedBy"]) == ("DRAW", "DRAW")  # totals 4 vs 3 are ignored
    assert stub.calls == []
    result = round_result(play_round(new_engine("bravolt2018", turn_limit=1), [act(S=0.5)], [act(S=0.25)]))
    assert result["outcome"] == "PLAYER 1"


# -- 3.5 Round end and match end -------------------------------------------------------------------


def test_gd22_round_record_and_tallies() -> None:
    engine = new_engine(rounds=2)
    steps = play_round(engine, [act(S=1), act(S=1, A=True)], [act(P=1), act(P=2)])
    assert round_result(steps) == E6_ROUND_RECORD  # the same play as E6
    one, two = engine.state.sides
    assert (one.wins, one.losses, one.draws, two.wins, two.losses, two.draws) == (1, 0, 0, 0, 1, 0)


def test_gd23_round_result_in_every_turn_of_the_next_round_and_in_the_end_request() -> None:
    engine = new_engine(rounds=2, turn_limit=3)
    engine.seed_streams["drones.tiebreak"] = Stub(1)
    play_round(engine, [act(S=1), act(S=1, A=True)], [act(P=1), act(P=2)])
    expected_one = {
        "outcome": "WIN",
        "turnsPlayed": 2,
        "you": {"producers": 1, "soldiers": 2, "launchedAttack": True},
        "them": {"producers": 4, "soldiers": 0, "launchedAttack": False},
    }
    seen = []
    while requests := engine.next_requests():
        seen.append([r.payload["previousRound"] for r in requests])
        turn(engine, {}, {})
    assert len(seen) == 3
    for one, two in seen:
        assert one == expected_one
        assert list(one) == ["outcome", "turnsPlayed", "you", "them"]
        assert two == {
            "outcome": "LOSE",
            "turnsPlayed": 2,
            "you": expected_one["them"],
            "them": expected_one["you"],
        }
    ends = [r.payload for r in engine.end_requests()]
    assert ends[0]["lastRound"]["turnsPlayed"] == 3
    assert ends[0]["lastRound"]["outcome"] == "LOSE"  # round 2: a full tie at (1, 0), the coin says 1
    assert ends[1]["lastRound"]["outcome"] == "WIN"
    assert (ends[0]["roundWins"], ends[0]["roundLosses"], ends[0]["outcome"]) == (1, 1, "DRAW")


def test_gd23_round_one_has_no_previous_round() -> None:
    requests = new_engine().next_requests()
    assert [r.payload["previousRound"] for r in requests] == [None, None]


def test_gd24_all_rounds_are_played_after_the_match_is_decided() -> None:
    run = run_match(GAME, [PythonBot(Zergy), PythonBot(Greedy)], config=config(rounds=7), seed=3)
    assert run.result.details["roundTotals"] == {"player1Wins": 7, "player2Wins": 0, "draws": 0}
    rounds = [s["record"]["roundResult"]["round"] for s in run.replay.steps if "roundResult" in s["record"]]
    assert rounds == list(range(1, 8))


@pytest.mark.parametrize("rules", BOTH)
def test_gd25_more_round_wins_wins_equal_is_a_draw(rules: str) -> None:
    engine = new_engine(rules, rounds=2, turn_limit=2)
    play_round(engine, [act(S=1), act(S=1, A=True)], [])  # P1 wins
    play_round(engine, [], [act(S=1), act(S=1, A=True)])  # P2 wins
    result = engine.result()
    assert result.details["outcome"] == "DRAW" and result.ranks == [1, 1]
    assert result.scores == [1.0, 1.0]
    assert [r.payload["outcome"] for r in engine.end_requests()] == ["DRAW", "DRAW"]


def test_gd25_bravolt_drawn_rounds_count_for_nobody() -> None:
    engine = new_engine("bravolt2018", rounds=3, turn_limit=1)
    play_round(engine, [act(S=1)], [])  # P1 wins on soldiers
    play_round(engine, [], [])  # DRAW
    play_round(engine, [], [])  # DRAW
    result = engine.result()
    assert result.details["outcome"] == "PLAYER 1" and result.ranks == [1, 2]
    assert result.details["roundTotals"] == {"player1Wins": 1, "player2Wins": 0, "draws": 2}
    ends = [r.payload for r in engine.end_requests()]
    assert [e["outcome"] for e in ends] == ["WIN", "LOSE"]
    assert [e["roundDraws"] for e in ends] == [2, 2]


def test_gd26_a_failing_bot_never_stops_the_match() -> None:
    engine = new_engine(rounds=3, turn_limit=2)
    steps = play_with(engine, lambda obs: TIMEOUT, lambda obs: "garbage")
    assert len(steps) == 6
    assert {p["status"] for s in steps for p in s.record["players"]} == {"TIMEOUT", "INVALID"}
    assert len(engine.state.round_results) == 3


def test_gd26_a_dead_process_gets_no_more_requests_and_crashed_turns() -> None:
    def kamikaze(request: Request) -> Any:
        return Kamikaze().act(request.payload) if request.type is MessageType.TURN else {}

    def greedy_bot(request: Request) -> Any:
        return greedy(request.payload) if request.type is MessageType.TURN else {}

    dying = ScriptedBot(kamikaze, dies_at=2)
    other = ScriptedBot(greedy_bot)
    run = run_match(GAME, [dying, other], config=config(rounds=3, turn_limit=3), seed=1)
    turn_requests = [r for r in dying.requests if r.type is MessageType.TURN]
    assert len(turn_requests) == 2  # the request it died on, then nothing
    assert not any(r.type is MessageType.END for r in dying.requests)
    records = [s["record"] for s in run.replay.steps]
    statuses = [(r["players"][0]["status"], r["players"][0]["reason"]) for r in records[1:]]
    assert statuses and all(s == ("CRASHED", "process_exited") for s in statuses)
    assert len(run.replay.steps) == 1 + 3 + 3  # round 1 ends on turn 1 (Kamikaze wins it); then all turns
    assert run.replay.end["verdicts"][0][:2] == ["CRASHED", "process_exited"]


def test_gd26_a_process_dead_at_start_gets_crashed_turns() -> None:
    dead = ScriptedBot(lambda request: {}, dies_at=0)
    dead._alive = False
    run = run_match(GAME, [dead, PythonBot(Pacifist)], config=config(rounds=2, turn_limit=2), seed=1)
    assert run.replay.start["verdicts"][0][:2] == ["CRASHED", "process_exited"]
    assert run.result.details["meta"][0] == {"name": "Anonymous Player"}
    assert all(s["record"]["players"][0]["status"] == "CRASHED" for s in run.replay.steps)
    assert dead.requests == []
