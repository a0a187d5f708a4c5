"""Starter bots (spec section 10): mulberry32 (7.4), the four examples, Tactician and its strength (11.4),
and the test-only bots."""

from __future__ import annotations

from typing import Any

import pytest
from drones_testbots import Garbage, Greedy, Idle, Kamikaze, Sleeper
from drones_testkit import GAME, config, new_engine, play_with, reply

from botarena.bots.inprocess import PythonBot
from botarena.games.drones.bots import STARTERS
from botarena.games.drones.bots.examples import AdaptiveDefender, Pacifist, Randomonium, Zergy
from botarena.games.drones.bots.mulberry import Mulberry32
from botarena.games.drones.bots.random import RandomLegal
from botarena.games.drones.bots.tactician import (
    Tactician,
    clamp_plan,
    infer,
    outcome,
    plans,
    producer_switch,
    projection,
)
from botarena.games.drones.engine import DronesEngine
from botarena.runner import run_match


@pytest.mark.parametrize(
    ("seed", "outputs"),
    [
        (0, [0.26642920868471265, 0.0003297457005828619, 0.2232720274478197]),
        (1, [0.6270739405881613, 0.002735721180215478, 0.5274470399599522]),
        (42, [0.6011037519201636, 0.44829055899754167, 0.8524657934904099]),
    ],
)
def test_7_4_mulberry32_vectors(seed: int, outputs: list[float]) -> None:
    generator = Mulberry32(seed)
    assert [generator.random() for _ in range(3)] == outputs


def test_7_4_mulberry32_range_and_32_bit_seed() -> None:
    generator = Mulberry32(2**32 + 1)  # reduced mod 2^32, like JavaScript's >>> 0
    assert generator.random() == Mulberry32(1).random()
    values = [generator.random() for _ in range(1000)]
    assert all(0 <= v < 1 for v in values)


def test_starters_are_registered() -> None:
    assert set(STARTERS) == {"randomonium", "zergy", "pacifist", "adaptive", "tactician"}
    assert GAME.starter_bots["tactician"] is Tactician


# -- the four examples -----------------------------------------------------------------------------


def _obs(**fields: Any) -> dict[str, Any]:
    base = {
        "round": 1,
        "rounds": 10,
        "turn": 1,
        "turnLimit": 10,
        "defenderBonus": 1,
        "producers": 1,
        "soldiers": 0,
        "roundWins": 0,
        "roundLosses": 0,
        "roundDraws": 0,
        "previousRound": None,
    }
    return {**base, **fields}


def test_example_metas() -> None:
    names = {
        cls: cls().setup({"playerSeed": 1})["meta"]
        for cls in (Randomonium, Zergy, Pacifist, AdaptiveDefender)
    }
    assert names[Zergy] == {"name": "Zergy McZergface (Example Bot)", "author": "Bravo LT"}
    assert names[Pacifist] == {"name": "Hard Hitting Pacifist (Example Bot)", "author": "Bravo LT"}
    assert names[AdaptiveDefender] == {"name": "Adaptive Defender (Example Bot)", "author": "Bravo LT"}
    assert names[Randomonium] == {"name": "Randomonium (Example Bot)", "author": "Bravo LT"}


def test_zergy_attacks_once_soldiers_reach_bonus_plus_one() -> None:
    zergy = Zergy()
    assert zergy.act(_obs()) == {"newProducers": 0, "newSoldiers": 1, "launchAttack": False}
    assert zergy.act(_obs(turn=2, soldiers=1)) == {"newProducers": 0, "newSoldiers": 1, "launchAttack": True}
    assert zergy.act(_obs(turn=2, soldiers=1, defenderBonus=3))["launchAttack"] is False
    assert zergy.act(_obs(turn=4, soldiers=3, defenderBonus=3))["launchAttack"] is True  # 3 + 1 >= 3 + 1


def test_pacifist_and_adaptive_defender() -> None:
    pacifist = Pacifist()
    assert pacifist.act(_obs(turn=9, producers=256)) == {
        "newProducers": 256,
        "newSoldiers": 0,
        "launchAttack": False,
    }
    assert pacifist.act(_obs(turn=10, producers=512)) == {
        "newProducers": 0,
        "newSoldiers": 512,
        "launchAttack": False,
    }
    adaptive = AdaptiveDefender()
    attacked = {"outcome": "LOSE", "turnsPlayed": 4, "you": {}, "them": {"launchedAttack": True}}
    held = {"outcome": "WIN", "turnsPlayed": 4, "you": {}, "them": {"launchedAttack": False}}
    assert adaptive.act(_obs(turn=3, producers=4, previousRound=attacked))["newProducers"] == 4
    assert adaptive.act(_obs(turn=4, producers=8, previousRound=attacked))["newSoldiers"] == 8
    assert adaptive.act(_obs(turn=4, producers=8, previousRound=held))["newProducers"] == 8  # switches on L


@pytest.mark.parametrize("rules", ["seed", "bravolt2018"])
def test_examples_e6_e11_through_the_runner(rules: str) -> None:
    run = run_match(GAME, [PythonBot(Zergy), PythonBot(Pacifist)], config=config(rules, rounds=3), seed=1)
    assert run.result.details["roundTotals"]["player1Wins"] == 3  # E6 every round
    run = run_match(
        GAME, [PythonBot(AdaptiveDefender), PythonBot(Pacifist)], config=config(rules, rounds=3), seed=1
    )
    ends = [s["record"]["roundResult"] for s in run.replay.steps if "roundResult" in s["record"]]
    assert [(r["player1"]["soldiers"], r["player2"]["soldiers"]) for r in ends] == [(512, 512)] * 3  # E11
    assert {r["decidedBy"] for r in ends} == ({"RANDOM"} if rules == "seed" else {"DRAW"})


def test_randomonium_draws_in_the_documented_order() -> None:
    """Round start: the attack turn floor(r * (L + 1)) + 1; then each turn soldiers floor(r * (c + 1))."""
    bot = Randomonium()
    bot.setup({"playerSeed": 42})
    reference = Mulberry32(42)
    attack_turn = int(reference.random() * 4) + 1
    soldiers = int(reference.random() * 2)
    assert bot.act(_obs(turnLimit=3)) == {
        "newProducers": 1 - soldiers,
        "newSoldiers": soldiers,
        "launchAttack": attack_turn <= 1,
    }


# -- Tactician -------------------------------------------------------------------------------------


def test_tactician_plan_enumeration_order() -> None:
    assert plans(3) == [(1, None), (1, 1), (1, 2), (1, 3), (2, None), (2, 2), (2, 3), (3, None), (3, 3)]
    assert len(plans(10)) == sum(11 - s + 1 for s in range(1, 11))


@pytest.mark.parametrize(
    ("plan", "turn", "expected"),
    [
        ((3, None), 1, (2, 0)),
        ((3, None), 2, (4, 0)),
        ((3, None), 3, (4, 4)),
        ((3, None), 5, (4, 12)),
        ((1, 1), 4, (1, 4)),
    ],
)
def test_tactician_projection(plan: tuple[int, int | None], turn: int, expected: tuple[int, int]) -> None:
    assert projection(plan, turn) == expected


@pytest.mark.parametrize("rules", ["seed", "bravolt2018"])
@pytest.mark.parametrize(("limit", "bonus"), [(1, 1), (3, 0), (4, 1), (6, 3)])
def test_tactician_outcome_agrees_with_the_engine(rules: str, limit: int, bonus: int) -> None:
    """outcome(mine, theirs) simulates the active rule set: check every plan pair against the engine."""

    def plan_bot(plan: tuple[int, int | None]) -> Any:
        def act(obs: dict[str, Any]) -> dict[str, Any]:
            capacity = obs["producers"]
            if obs["turn"] < plan[0]:
                return {"newProducers": capacity}
            return {"newSoldiers": capacity, "launchAttack": obs["turn"] == plan[1]}

        return act

    class Coin:
        def integers(self, lo: int, hi: int) -> int:
            return 0

    for mine in plans(limit):
        for theirs in plans(limit):
            engine = new_engine(rules, rounds=1, turn_limit=limit, defender_bonus=bonus)
            engine.seed_streams["drones.tiebreak"] = Coin()
            play_with(engine, plan_bot(mine), plan_bot(theirs))
            record = engine.state.round_results[0]
            expected = (
                0.5 if record["decidedBy"] in ("RANDOM", "DRAW") else float(record["outcome"] == "PLAYER 1")
            )
            assert outcome(mine, theirs, limit, rules, bonus) == expected, (mine, theirs)


def _previous(turns: int, producers: int, soldiers: int, attacked: bool) -> dict[str, Any]:
    return {
        "outcome": "WIN",
        "turnsPlayed": turns,
        "you": {"producers": 1, "soldiers": 0, "launchedAttack": False},
        "them": {"producers": producers, "soldiers": soldiers, "launchedAttack": attacked},
    }


def test_tactician_inference_of_plan_players_is_the_spec_estimate() -> None:
    for limit in (3, 7, 10):
        for s, a in plans(limit):
            k = a if a is not None else limit
            producers, soldiers = projection((s, a), k)
            inferred = infer(_previous(k, producers, soldiers, a is not None), limit)
            assert inferred == (producer_switch(producers, k) if soldiers > 0 else limit, a)
            assert inferred == (s, a)


def test_tactician_inference_details() -> None:
    assert infer(_previous(6, 64, 0, False), 10) == (10, None)  # no soldiers: that round's L
    assert producer_switch(3, 10) == 3  # round(log2 3) + 1 = round(1.58) + 1
    assert producer_switch(64, 4) == 4  # clamped to k
    assert infer(_previous(4, 5, 5, True), 10) == (3, 4)  # a splitting bot: round(log2 5) + 1 = 3
    assert infer(_previous(2, 2, 0, True), 10) == (10, 2)  # an attack without soldiers: a < s
    assert clamp_plan((8, 9), 6) == (6, None)
    assert clamp_plan((3, 5), 6) == (3, 5)


def test_tactician_round_one_plan_and_play() -> None:
    bot = Tactician()
    bot.setup({"playerSeed": 3, "rules": "seed"})
    assert bot.act(_obs(turn=1)) == {"newProducers": 1, "newSoldiers": 0, "launchAttack": False}
    assert bot.plan == (8, 9)
    assert bot.act(_obs(turn=8, producers=128)) == {
        "newProducers": 0,
        "newSoldiers": 128,
        "launchAttack": False,
    }
    assert bot.act(_obs(turn=9, producers=128, soldiers=128))["launchAttack"] is True
    short = Tactician()
    short.setup({"playerSeed": 3})
    short.act(_obs(turnLimit=2))
    assert short.plan == (1, None)


def test_tactician_learns_to_beat_a_repeating_attacker() -> None:
    run = run_match(GAME, [PythonBot(Tactician), PythonBot(Zergy)], config=config(rounds=20), seed=2)
    rounds = [s["record"]["roundResult"] for s in run.replay.steps if "roundResult" in s["record"]]
    assert sum(r["outcome"] == "PLAYER 1" for r in rounds[2:]) >= 16


def test_tactician_is_deterministic_given_its_seed_and_survives_varying_limits() -> None:
    cfg = config(rounds=30, turn_limit_range=[1, 12])
    first = run_match(GAME, [PythonBot(Tactician), PythonBot(Randomonium)], config=cfg, seed=9)
    second = run_match(GAME, [PythonBot(Tactician), PythonBot(Randomonium)], config=cfg, seed=9)
    assert [s["record"] for s in first.replay.steps] == [s["record"] for s in second.replay.steps]
    assert first.replay.statuses[0] == {"OK": len(first.replay.steps) + 1}


def _round_share(opponent: str, matches: int = 20, rounds: int = 100) -> float:
    """Share of rounds Tactician wins over `matches` matches of `rounds` rounds (seed defaults otherwise);
    it plays PLAYER 1 in even matches and PLAYER 2 in odd ones, with match seeds 0, 1, 2, ..."""
    cfg = config("seed", rounds=rounds)
    won = 0
    for seed in range(matches):
        bots = [PythonBot(Tactician, "tactician"), PythonBot(GAME.starter_bots[opponent], opponent)]
        seat = seed % 2
        if seat:
            bots.reverse()
        totals = run_match(GAME, bots, config=cfg, seed=seed).result.details["roundTotals"]
        won += totals["player1Wins" if seat == 0 else "player2Wins"]
    return won / (matches * rounds)


@pytest.mark.parametrize(
    ("opponent", "required"), [("randomonium", 0.55), ("zergy", 0.85), ("pacifist", 0.85), ("adaptive", 0.85)]
)
def test_11_4_tactician_strength(opponent: str, required: float) -> None:
    """Spec 11.4: >= 55% of rounds against Randomonium, >= 85% against each other example, measured over
    20 matches of 100 rounds with the seed defaults."""
    assert _round_share(opponent) >= required


# -- test-only bots --------------------------------------------------------------------------------


def test_test_only_bots() -> None:
    obs = _obs(producers=4)
    assert Idle().act(obs) == {}
    assert Greedy().act(obs) == {"newProducers": 4}
    assert Kamikaze().act(obs) == {"newSoldiers": 4, "launchAttack": True}
    garbage = Garbage()
    assert [garbage.act(obs), garbage.act(obs), garbage.act(obs)] == ["hello", {"newSoldiers": "3"}, "hello"]


@pytest.mark.parametrize(("rules", "statuses"), [("seed", {"INVALID"}), ("bravolt2018", {"INVALID", "OK"})])
def test_garbage_bot_statuses(rules: str, statuses: set[str]) -> None:
    engine = new_engine(rules, rounds=2, turn_limit=2)
    garbage = Garbage()
    steps = play_with(engine, garbage.act, Idle().act)
    assert {s.record["players"][0]["status"] for s in steps} == statuses


def test_sleeper_times_out_on_turn_2_only() -> None:
    cfg = config(rounds=2, turn_limit=3, turn_timeout_ms=50)
    run = run_match(GAME, [PythonBot(Sleeper), PythonBot(Idle)], config=cfg, seed=1)
    seen = [(s["record"]["turn"], s["record"]["players"][0]["status"]) for s in run.replay.steps]
    assert seen == [(1, "OK"), (2, "TIMEOUT"), (3, "OK")] * 2


def test_random_legal_plays_only_legal_actions() -> None:
    engine = DronesEngine(config(rounds=30), 4)
    bots = [RandomLegal(), RandomLegal()]
    starts = engine.start_requests()
    engine.apply_start([reply(seat, bots[seat].setup(starts[seat].payload)) for seat in (0, 1)])
    steps = play_with(engine, bots[0].act, bots[1].act)
    assert {p["status"] for s in steps for p in s.record["players"]} == {"OK"}
    assert all(p["warnings"] == [] for s in steps for p in s.record["players"])
