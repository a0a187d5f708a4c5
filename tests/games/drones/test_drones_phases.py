"""The phase functions of rules.py on a bare MatchState, without an engine (rule ids as cited)."""

from __future__ import annotations

import numpy as np
import pytest
from drones_testkit import Stub, config

from botarena.games.drones import rules
from botarena.games.drones.actions import Action
from botarena.games.drones.state import MatchState, Side


def no_streams(name: str) -> np.random.Generator:
    raise AssertionError(f"stream {name} used")


def state(
    one: tuple[int, int, bool], two: tuple[int, int, bool], turn: int = 1, limit: int = 10
) -> MatchState:
    sides = tuple(Side(producers=p, soldiers=s, attacked=a) for p, s, a in (one, two))
    return MatchState(sides=sides, round=1, turn=turn, turn_limit=limit)


def test_setup_and_round_start_gd5_to_gd8() -> None:
    match = rules.setup()
    assert [(s.wins, s.losses, s.draws) for s in match.sides] == [(0, 0, 0), (0, 0, 0)]  # GD-5
    match.sides[0].producers, match.sides[1].soldiers = 9, 4
    stub = Stub(7)
    rules.begin_round(match, config(turn_limit_range=(3, 9)), lambda name: stub)
    assert (match.round, match.turn, match.turn_limit) == (1, 1, 7)  # GD-6, GD-7
    assert stub.calls == [(3, 10)]  # one draw, integers(lo, hi + 1)
    assert [(s.producers, s.soldiers) for s in match.sides] == [(1, 0), (1, 0)]  # GD-8
    rules.begin_round(match, config(rounds=1), no_streams)  # fixed limit: no draw
    assert match.finished  # GD-24: after the last round the match is over


def test_production_gd12_gd16() -> None:
    side, warnings = Side(producers=3), []
    action = Action(2, 5, True)
    rules.produce(side, action, rules.produce_seed, warnings)
    assert (side.producers, side.soldiers, side.attacked) == (5, 1, True)  # producers first (GD-12)
    assert (action.producers, action.soldiers) == (2, 1) and warnings[0]["code"] == "CLAMPED"
    rules.produce(side, None, rules.produce_seed, warnings)
    assert (side.producers, side.soldiers, side.attacked) == (5, 1, False)  # no action (GD-10, GD-16)


@pytest.mark.parametrize(
    ("one", "two", "turn", "trigger"),
    [
        ((1, 0, True), (1, 0, False), 3, "ATTACK"),
        ((1, 0, True), (1, 0, True), 3, "FIELD"),
        ((1, 0, False), (1, 0, True), 10, "ATTACK"),  # a lone attack on turn L is ATTACK
        ((1, 0, False), (1, 0, False), 10, "TURN_LIMIT"),
        ((1, 0, False), (1, 0, False), 9, None),
    ],
)
def test_clash_trigger_gd17(
    one: tuple[int, int, bool], two: tuple[int, int, bool], turn: int, trigger: str
) -> None:
    assert rules.clash_trigger(state(one, two, turn)) == trigger


def test_resolve_clash_gd18_to_gd21() -> None:
    seed, bravolt = config(defender_bonus=0), config("bravolt2018", defender_bonus=0)
    lone = state((1, 3, True), (4, 2, False))
    assert rules.resolve_clash(lone, seed, "ATTACK", no_streams) == ("PLAYER 1", "ATTACK_WON")  # GD-18
    assert rules.resolve_clash(lone, bravolt, "ATTACK", no_streams) == ("PLAYER 2", "DEFENCE_HELD")  # GD-20
    even = state((4, 2, False), (2, 2, False))
    assert rules.resolve_clash(even, seed, "TURN_LIMIT", no_streams) == ("PLAYER 1", "TOTAL_UNITS")  # GD-19
    assert rules.resolve_clash(even, bravolt, "TURN_LIMIT", no_streams) == ("DRAW", "DRAW")  # GD-21
    same = state((2, 2, True), (2, 2, True))
    stub = Stub(1)
    coin = rules.resolve_clash(same, seed, "FIELD", lambda name: stub)
    assert coin == ("PLAYER 2", "RANDOM")  # GD-19.3


def test_end_round_and_match_outcome_gd22_gd25() -> None:
    match = state((1, 3, True), (4, 0, False), turn=2)
    record = rules.end_round(match, config(), "ATTACK", no_streams)
    assert record["outcome"] == "PLAYER 1" and record["turnsPlayed"] == 2  # GD-22
    assert record["player1"] == {"producers": 1, "soldiers": 3, "launchedAttack": True}
    assert match.round_results == [record]
    assert [(s.wins, s.losses) for s in match.sides] == [(1, 0), (0, 1)]
    assert rules.match_outcome(match) == ("PLAYER 1", [1, 2])  # GD-25
    match.sides[1].wins = 1
    assert rules.match_outcome(match) == ("DRAW", [1, 1])  # equal round wins: a DRAW, no coin
