"""The worked examples E1 .. E18 of the GameOfDrones spec (section 9), each as a test."""

from __future__ import annotations

import json
from typing import Any

import pytest
from drones_testkit import (
    BOTH,
    E6_ROUND_RECORD,
    E6_TURN_2_OBSERVATION,
    GAME,
    TIMEOUT,
    Stub,
    act,
    config,
    counts,
    greedy,
    new_engine,
    play_round,
    play_with,
    reply,
    round_result,
    turn,
)

from botarena.bots.inprocess import PythonBot
from botarena.core.protocol import Reply
from botarena.core.roundrobin import MatchScore, circle_schedule, standings
from botarena.core.status import Status
from botarena.games.drones.bots.examples import AdaptiveDefender, Pacifist, Randomonium, Zergy
from botarena.games.drones.engine import DronesEngine
from botarena.games.drones.protocol import original_result_json
from botarena.runner import run_match


@pytest.mark.parametrize("rules", BOTH)
def test_e1_production_and_capacity(rules: str) -> None:
    engine = new_engine(rules)
    results = [counts(turn(engine, action, {}))[0] for action in (act(P=1), act(P=2), act(P=1, S=3))]
    assert results == [(2, 0), (4, 0), (5, 3)]
    assert engine.next_requests()[0].payload["producers"] == 5  # turn 4's capacity


@pytest.mark.parametrize("rules", BOTH)
def test_e2_over_request_clamp(rules: str) -> None:
    engine = new_engine(rules)
    turn(engine, act(P=1), {})
    turn(engine, act(P=1), {})  # (3, 0)
    step = turn(engine, act(P=2, S=5), {})
    entry = step.record["players"][0]
    assert counts(step)[0] == (5, 1)
    assert entry["applied"] == {"newProducers": 2, "newSoldiers": 1, "launchAttack": False}
    assert entry["warnings"] == [{"code": "CLAMPED", "detail": "requested 2+5, applied 2+1"}]
    step = turn(engine, act(P=7, S=1, A=True), {})
    entry = step.record["players"][0]
    assert counts(step)[0] == (10, 1)
    assert entry["status"] == "OK" and [w["code"] for w in entry["warnings"]] == ["CLAMPED"]
    assert entry["applied"] == {"newProducers": 5, "newSoldiers": 0, "launchAttack": True}
    assert round_result([step])["trigger"] == "ATTACK"  # the attack still happens


def test_e3_fractions_seed() -> None:
    engine = new_engine("seed")
    step = turn(engine, act(P=0.5, S=0.5), {})
    entry = step.record["players"][0]
    assert (entry["status"], entry["reason"]) == ("INVALID", "bad_field")
    assert entry["detail"] == "newProducers must be a non-negative integer"
    assert counts(step)[0] == (1, 0)
    step = turn(engine, act(P=1, S=1), {})
    assert counts(step)[0] == (2, 0)
    assert step.record["players"][0]["applied"] == {
        "newProducers": 1,
        "newSoldiers": 0,
        "launchAttack": False,
    }


def test_e3_fractions_bravolt() -> None:
    engine = new_engine("bravolt2018")
    assert counts(turn(engine, act(P=0.5, S=0.5), {}))[0] == (1.5, 0.5)
    step = turn(engine, act(P=1, S=1), {})
    assert counts(step)[0] == (2.5, 1)
    assert step.record["players"][0]["applied"] == {
        "newProducers": 1,
        "newSoldiers": 0.5,
        "launchAttack": False,
    }


def test_e4_float_arithmetic_order() -> None:
    engine = new_engine("bravolt2018", rounds=1, turn_limit=2)
    turn(engine, act(P=0.3), {})
    assert engine.next_requests()[0].payload["producers"] == 1.3
    step = turn(engine, act(P=0.1, S=5), {})
    assert counts(step)[0] == (1.4000000000000001, 1.2)
    text = original_result_json(engine)
    assert '"producers": 1.4000000000000001,\n' in text
    assert '"soldiers": 1.2,\n' in text


def test_e5_negative_count_with_attack_seed() -> None:
    engine = new_engine("seed")
    step = turn(engine, act(P=-1, S=1, A=True), act(P=1))
    one = step.record["players"][0]
    assert (one["status"], one["reason"], one["applied"]) == ("INVALID", "bad_field", None)
    assert counts(step) == [(1, 0), (2, 0)]
    assert "roundResult" not in step.record
    assert engine.next_requests()[0].payload["turn"] == 2


def test_e5_negative_count_with_attack_bravolt() -> None:
    engine = new_engine("bravolt2018")
    step = turn(engine, act(P=-1, S=1, A=True), act(P=1))
    one = step.record["players"][0]
    assert (one["status"], one["warnings"]) == ("OK", [])
    assert counts(step) == [(1, 1), (2, 0)]
    result = round_result([step])
    assert (result["trigger"], result["outcome"], result["decidedBy"], result["turnsPlayed"]) == (
        "ATTACK",
        "PLAYER 2",
        "DEFENCE_HELD",
        1,
    )


E6_ORIGINAL_JSON = """\
{
  "roundResults": [
    {
      "outcome": "PLAYER 1",
      "turnsPlayed": 2,
      "player1": {
        "producers": 1,
        "soldiers": 2,
        "launchedAttack": true
      },
      "player2": {
        "producers": 4,
        "soldiers": 0,
        "launchedAttack": false
      }
    }
  ],
  "outcomeDecidedByRandomChance": false,
  "roundTotals": {
    "player1Wins": 1,
    "player2Wins": 0,
    "draws": 0,
    "error": 0,
    "ambiguous": 0
  },
  "outcome": "PLAYER 1",
  "player1": {
    "name": "Zergy McZergface (Example Bot)",
    "author": "Bravo LT"
  },
  "player2": {
    "name": "Hard Hitting Pacifist (Example Bot)",
    "author": "Bravo LT"
  }
}
"""


@pytest.mark.parametrize("rules", BOTH)
def test_e6_zergy_vs_pacifist(rules: str) -> None:
    run = run_match(GAME, [PythonBot(Zergy), PythonBot(Pacifist)], config=config(rules, rounds=1), seed=6)
    records = [s["record"] for s in run.replay.steps]
    assert len(records) == 2
    assert [p["applied"] for p in records[0]["players"]] == [
        {"newProducers": 0, "newSoldiers": 1, "launchAttack": False},
        {"newProducers": 1, "newSoldiers": 0, "launchAttack": False},
    ]
    assert [(p["producers"], p["soldiers"]) for p in records[0]["players"]] == [(1, 1), (2, 0)]
    assert [p["applied"] for p in records[1]["players"]] == [
        {"newProducers": 0, "newSoldiers": 1, "launchAttack": True},
        {"newProducers": 2, "newSoldiers": 0, "launchAttack": False},
    ]
    assert records[1]["roundResult"] == E6_ROUND_RECORD
    assert original_result_json(run) == E6_ORIGINAL_JSON
    assert original_result_json(run.replay) == E6_ORIGINAL_JSON
    assert original_result_json(json.loads(run.replay.dumps())) == E6_ORIGINAL_JSON


def test_e6_observation_of_zergy_on_turn_2() -> None:
    engine = new_engine(rounds=1)
    turn(engine, act(P=0, S=1), act(P=1))
    assert engine.next_requests()[0].payload == E6_TURN_2_OBSERVATION


@pytest.mark.parametrize("rules", BOTH)
def test_e7_an_attacker_one_soldier_up_loses(rules: str) -> None:
    steps = play_round(new_engine(rules), [act(S=1), act(S=5, A=True)], [act(P=1), act(S=1)])
    assert counts(steps[-1]) == [(1, 2), (2, 1)]
    assert steps[-1].record["players"][0]["applied"]["newSoldiers"] == 1
    result = round_result(steps)
    assert (result["outcome"], result["decidedBy"]) == ("PLAYER 2", "DEFENCE_HELD")


@pytest.mark.parametrize(("rules", "winner"), [("seed", "PLAYER 2"), ("bravolt2018", "PLAYER 1")])
def test_e8_configured_defender_bonus(rules: str, winner: str) -> None:
    engine = new_engine(rules, turn_limit=3, defender_bonus=3)
    assert [r.payload["defenderBonus"] for r in engine.next_requests()] == [3, 3]
    steps = play_round(engine, [act(P=1), act(P=2), act(S=4, A=True)], [act(S=1), {}, {}])
    assert counts(steps[-1]) == [(4, 4), (1, 1)]
    assert round_result(steps)["outcome"] == winner


@pytest.mark.parametrize(
    ("rules", "outcome", "decided"), [("seed", "PLAYER 2", "TOTAL_UNITS"), ("bravolt2018", "DRAW", "DRAW")]
)
def test_e9_both_attack_equal_soldiers(rules: str, outcome: str, decided: str) -> None:
    engine = new_engine(rules, rounds=2)
    steps = play_round(engine, [act(S=1), act(S=1, A=True)], [act(P=1), act(S=2, A=True)])
    assert counts(steps[-1]) == [(1, 2), (2, 2)]
    result = round_result(steps)
    assert (result["trigger"], result["turnsPlayed"], result["outcome"], result["decidedBy"]) == (
        "FIELD",
        2,
        outcome,
        decided,
    )
    if rules == "bravolt2018":
        assert [r.payload["previousRound"]["outcome"] for r in engine.next_requests()] == ["DRAW", "DRAW"]


@pytest.mark.parametrize(("rules", "outcome"), [("seed", "PLAYER 2"), ("bravolt2018", "DRAW")])
def test_e10_turn_limit_reached_equal_soldiers(rules: str, outcome: str) -> None:
    steps = play_round(new_engine(rules, turn_limit=3), [act(S=1)] * 3, [act(P=1), act(P=1), act(S=4)])
    assert counts(steps[-1]) == [(1, 3), (3, 3)]
    assert [w["code"] for w in steps[-1].record["players"][1]["warnings"]] == ["CLAMPED"]
    result = round_result(steps)
    assert (result["trigger"], result["outcome"]) == ("TURN_LIMIT", outcome)
    assert result["decidedBy"] == ("TOTAL_UNITS" if rules == "seed" else "DRAW")


@pytest.mark.parametrize(("coin", "winner"), [(0, "PLAYER 1"), (1, "PLAYER 2")])
def test_e11_full_tie_decided_by_the_coin_seed(coin: int, winner: str) -> None:
    engine = new_engine("seed", rounds=1)
    stub = engine.seed_streams["drones.tiebreak"] = Stub(coin)
    steps = play_with(engine, greedy, greedy)
    assert counts(steps[-1]) == [(1024, 0), (1024, 0)]
    result = round_result(steps)
    assert (result["trigger"], result["outcome"], result["decidedBy"]) == ("TURN_LIMIT", winner, "RANDOM")
    assert stub.calls == [(0, 2)]


@pytest.mark.parametrize(("coin", "winner"), [(0, "PLAYER 1"), (1, "PLAYER 2")])
def test_e11_adaptive_vs_pacifist_round_one_seed(coin: int, winner: str) -> None:
    engine = DronesEngine(config("seed", rounds=1), 0)
    stub = engine.seed_streams["drones.tiebreak"] = Stub(coin)
    adaptive, pacifist = AdaptiveDefender(), Pacifist()
    starts = engine.start_requests()
    engine.apply_start(
        [reply(0, adaptive.setup(starts[0].payload)), reply(1, pacifist.setup(starts[1].payload))]
    )
    steps = play_with(engine, adaptive.act, pacifist.act)
    assert counts(steps[-1]) == [(512, 512), (512, 512)]
    assert (round_result(steps)["outcome"], round_result(steps)["decidedBy"]) == (winner, "RANDOM")
    assert stub.calls == [(0, 2)]


def test_e11_bravolt_draw_every_round() -> None:
    engine = new_engine("bravolt2018", rounds=5)
    steps = play_with(engine, greedy, greedy)
    assert [r["outcome"] for r in engine.state.round_results] == ["DRAW"] * 5
    assert counts(steps[-1]) == [(1024, 0), (1024, 0)]
    assert "drones.tiebreak" not in engine.seed_streams
    config_1000 = config("bravolt2018", rounds=1000)
    run = run_match(GAME, [PythonBot(AdaptiveDefender), PythonBot(Pacifist)], config=config_1000, seed=11)
    details = run.result.details
    assert details["roundTotals"] == {"player1Wins": 0, "player2Wins": 0, "draws": 1000}
    assert details["outcome"] == "DRAW" and run.result.ranks == [1, 1]
    first = run.replay.steps[9]["record"]["roundResult"]
    assert (first["player1"]["producers"], first["player1"]["soldiers"]) == (512, 512)


@pytest.mark.parametrize("rules", BOTH)
def test_e12_lone_attack_on_the_last_turn_is_not_a_field_battle(rules: str) -> None:
    attack = play_round(
        new_engine(rules, turn_limit=3), [act(P=1), act(P=2), act(S=4, A=True)], [act(S=1)] * 3
    )
    assert counts(attack[-1]) == [(4, 4), (1, 3)]
    result = round_result(attack)
    assert (result["trigger"], result["outcome"]) == ("ATTACK", "PLAYER 2")
    hold = play_round(new_engine(rules, turn_limit=3), [act(P=1), act(P=2), act(S=4)], [act(S=1)] * 3)
    result = round_result(hold)
    assert (result["trigger"], result["outcome"], result["decidedBy"]) == (
        "TURN_LIMIT",
        "PLAYER 1",
        "SOLDIERS",
    )


def test_e13_timeout() -> None:
    engine = new_engine("seed", rounds=1)
    zergy = Zergy()
    first = engine.next_requests()
    turn(engine, zergy.act(first[0].payload), act(P=1))
    second = engine.next_requests()
    step = turn(engine, zergy.act(second[0].payload), TIMEOUT)
    assert step.record == {
        "round": 1,
        "turn": 2,
        "players": [
            {
                "status": "OK",
                "reason": None,
                "warnings": [],
                "requested": {"newProducers": 0, "newSoldiers": 1, "launchAttack": True},
                "applied": {"newProducers": 0, "newSoldiers": 1, "launchAttack": True},
                "producers": 1,
                "soldiers": 2,
            },
            {
                "status": "TIMEOUT",
                "reason": "deadline",
                "warnings": [],
                "requested": None,
                "applied": None,
                "producers": 2,
                "soldiers": 0,
            },
        ],
        "roundResult": step.record["roundResult"],
    }
    assert step.record["roundResult"]["outcome"] == "PLAYER 1"
    # Without the timeout P2 holds: (2, 2) against 2 soldiers.
    engine = new_engine("seed", rounds=1)
    steps = play_round(engine, [act(P=0, S=1), act(P=0, S=1, A=True)], [act(P=1), act(S=2)])
    assert counts(steps[-1])[1] == (2, 2)
    assert round_result(steps)["outcome"] == "PLAYER 2"


def test_e13_timeout_through_the_runner() -> None:
    class LateHolder:
        def act(self, obs: dict[str, Any]) -> dict[str, Any]:
            if obs["turn"] == 2:
                import time

                time.sleep(30)  # preempted at the deadline
            return act(P=1) if obs["turn"] == 1 else act(S=2)

    cfg = config("seed", rounds=1, turn_timeout_ms=100)
    run = run_match(GAME, [PythonBot(Zergy), PythonBot(LateHolder)], config=cfg, seed=13)
    record = run.replay.steps[1]["record"]
    late = record["players"][1]
    assert (late["status"], late["reason"], late["requested"], late["applied"]) == (
        "TIMEOUT",
        "deadline",
        None,
        None,
    )
    assert (late["producers"], late["soldiers"]) == (2, 0)
    assert record["roundResult"]["outcome"] == "PLAYER 1"


def test_e13_crash_variant_thrower() -> None:
    engine = new_engine("seed", rounds=1)
    turn(engine, act(P=0, S=1), act(P=1))
    step = turn(engine, act(P=0, S=1, A=True), {"error": "playTurn: boom"})
    thrower = step.record["players"][1]
    assert (thrower["status"], thrower["reason"], thrower["applied"]) == ("CRASHED", "bot_error", None)
    assert step.verdicts[1].detail == "playTurn: boom"
    assert step.record["roundResult"]["outcome"] == "PLAYER 1"


def test_e14_null_action_quirk_not_reproduced() -> None:
    steps = play_round(new_engine("bravolt2018", turn_limit=3), [act(S=1), act(S=1), None], [act(S=1)] * 3)
    one = steps[-1].record["players"][0]
    assert (one["status"], one["applied"]) == ("OK", None)
    assert [w["code"] for w in one["warnings"]] == ["NO_ACTION"]
    assert counts(steps[-1]) == [(1, 2), (1, 3)]
    result = round_result(steps)
    assert (result["trigger"], result["outcome"]) == ("TURN_LIMIT", "PLAYER 2")
    assert result["player1"]["launchedAttack"] is False


def _play_rounds(engine: DronesEngine, winners: list[str]) -> None:
    """One-turn rounds (turn_limit 1) won by PLAYER 1, PLAYER 2, or drawn ('D', bravolt only)."""
    for winner in winners:
        one = act(S=1) if winner == "1" else {}
        two = act(S=1) if winner == "2" else {}
        play_round(engine, [one], [two])


def test_e15_match_outcomes() -> None:
    engine = new_engine("seed", rounds=10, turn_limit=1)
    _play_rounds(engine, ["1", "2"] * 5)
    result = engine.result()
    assert (result.details["outcome"], result.ranks) == ("DRAW", [1, 1])
    assert MatchScore("a", "b", 5, 5).points() == (0.5, 0.5)

    engine = new_engine("bravolt2018", rounds=10, turn_limit=1)
    _play_rounds(engine, ["1", "1", "1", "2", "2", "D", "D", "D", "D", "D"])
    result = engine.result()
    assert (result.details["outcome"], result.ranks) == ("PLAYER 1", [1, 2])
    assert result.details["roundTotals"] == {"player1Wins": 3, "player2Wins": 2, "draws": 5}

    engine = new_engine("bravolt2018", rounds=1000, turn_limit=1)
    _play_rounds(engine, ["D"] * 1000)
    result = engine.result()
    assert (result.details["outcome"], result.ranks) == ("DRAW", [1, 1])
    assert MatchScore("a", "b", 0, 0, 1000).points() == (0.5, 0.5)


E16_TABLE = [
    ((1, 0), act(P=1, S=0, A=False)),
    ((2, 0), act(P=1, S=1, A=False)),
    ((3, 1), act(P=0, S=3, A=False)),
    ((3, 4), act(P=0, S=3, A=False)),
    ((3, 7), act(P=2, S=1, A=False)),
    ((5, 8), act(P=2, S=3, A=False)),
    ((7, 11), act(P=2, S=5, A=True)),
]


@pytest.mark.parametrize("rules", BOTH)
def test_e16_randomonium_with_player_seed_1(rules: str) -> None:
    engine = DronesEngine(config(rules, rounds=3, turn_limit=10), 16)
    randomonium, pacifist = Randomonium(), Pacifist()
    starts = engine.start_requests()
    randomonium.setup({**starts[0].payload, "playerSeed": 1, "bot_seed": 1})
    pacifist.setup(starts[1].payload)
    engine.apply_start([Reply(0, Status.OK, {}), Reply(1, Status.OK, {})])
    seen: list[tuple[tuple[int, int], dict[str, Any]]] = []
    steps = []
    while requests := engine.next_requests():
        obs = requests[0].payload
        action = randomonium.act(obs)
        if obs["round"] == 1:
            seen.append(((obs["producers"], obs["soldiers"]), action))
        steps.append(engine.apply([reply(0, action), reply(1, pacifist.act(requests[1].payload))]))
    assert seen == E16_TABLE
    rounds = engine.state.round_results
    assert (rounds[0]["outcome"], rounds[0]["turnsPlayed"]) == ("PLAYER 1", 7)
    assert rounds[0]["player1"] == {"producers": 9, "soldiers": 16, "launchedAttack": True}
    assert rounds[0]["player2"] == {"producers": 128, "soldiers": 0, "launchedAttack": False}
    assert (rounds[1]["outcome"], rounds[1]["turnsPlayed"]) == ("PLAYER 1", 5)
    assert (rounds[1]["player1"]["producers"], rounds[1]["player1"]["soldiers"]) == (10, 4)
    assert (rounds[2]["outcome"], rounds[2]["turnsPlayed"]) == ("PLAYER 2", 3)
    assert rounds[2]["player1"] == {"producers": 6, "soldiers": 1, "launchedAttack": True}
    assert (rounds[2]["player2"]["producers"], rounds[2]["player2"]["soldiers"]) == (8, 0)


def test_e16_attack_turn_draw() -> None:
    randomonium = Randomonium()
    randomonium.setup({"playerSeed": 1})
    randomonium.act({"turn": 1, "turnLimit": 10, "producers": 1, "soldiers": 0})
    assert randomonium.attack_turn == int(0.6270739405881613 * 11) + 1 == 7


def test_e17_turn_limit_drawn_per_round() -> None:
    engine = DronesEngine(config("seed", rounds=2, turn_limit_range=[5, 8]), 17)
    stub = engine.seed_streams["drones.turns"] = Stub(7, 5)
    pacifist = Pacifist()
    engine.start_requests()
    engine.apply_start([reply(0, {}), reply(1, {})])
    limits: dict[int, set[int]] = {}

    def pacifist_act(obs: dict[str, Any]) -> dict[str, Any]:
        limits.setdefault(obs["round"], set()).add(obs["turnLimit"])
        assert obs["defenderBonus"] == 1
        return pacifist.act(obs)

    steps = play_with(engine, pacifist_act, greedy)
    assert limits == {1: {7}, 2: {5}}
    assert stub.calls == [(5, 9), (5, 9)]
    first = engine.state.round_results[0]
    assert (first["turnLimit"], first["turnsPlayed"], first["trigger"]) == (7, 7, "TURN_LIMIT")
    assert counts(steps[6]) == [(64, 64), (128, 0)]
    assert (first["outcome"], first["decidedBy"]) == ("PLAYER 1", "SOLDIERS")
    assert engine.state.round_results[1]["turnLimit"] == 5


def test_e18_tournament_schedule_and_points() -> None:
    entrants = ["A", "B", "C", "D"]
    assert circle_schedule(entrants) == [
        [("A", "D"), ("B", "C")],
        [("A", "C"), ("D", "B")],
        [("A", "B"), ("C", "D")],
    ]
    results = [
        MatchScore("A", "D", 600, 400),
        MatchScore("B", "C", 500, 500),
        MatchScore("A", "C", 300, 700),
        MatchScore("D", "B", 0, 0, 1000),
        MatchScore("A", "B", 510, 490),
        MatchScore("C", "D", 480, 520),
    ]
    assert [r.outcome for r in results] == ["PLAYER 1", "DRAW", "PLAYER 2", "DRAW", "PLAYER 1", "PLAYER 2"]
    table = standings(entrants, results)
    assert [(s.entrant, s.points, s.rank) for s in table] == [
        ("A", 2.0, 1),
        ("D", 1.5, 2),
        ("C", 1.5, 3),
        ("B", 1.0, 4),
    ]
    # D beat C head to head, although C has the better round difference (+360 against -160).
    by_name = {s.entrant: s for s in table}
    assert by_name["C"].round_difference > by_name["D"].round_difference
    # The original credited both draws to PLAYER 2 (C in B-C, B in D-B): A 2, C 2, B 1, D 1.
    original = {name: 0 for name in entrants}
    for score in results:
        winner = score.player1 if score.wins1 > score.wins2 else score.player2
        original[winner] += 1
    assert original == {"A": 2, "B": 1, "C": 2, "D": 1}
