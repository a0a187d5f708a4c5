"""The Python player API (api.py, a typed SDK) and the example bot in examples/drones/my_bot.py."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from drones_testkit import E6_TURN_2_OBSERVATION, GAME, config

from botarena.bots.inprocess import PythonBot
from botarena.games.drones.api import Action, Bot, MatchEnd, MatchStart, Observation, RoundResult, SideResult
from botarena.runner import run_match
from botarena.runner.verify import verify_replay

MY_BOT = Path(__file__).resolve().parents[3] / "examples" / "drones" / "my_bot.py"

ROUND = {
    "outcome": "WIN",
    "turnsPlayed": 2,
    "you": {"producers": 1, "soldiers": 2, "launchedAttack": True},
    "them": {"producers": 4, "soldiers": 0, "launchedAttack": False},
}


def test_observation_from_the_4_2_payload() -> None:
    obs = Observation.from_payload(E6_TURN_2_OBSERVATION)
    assert (obs.round, obs.rounds, obs.turn, obs.turn_limit, obs.defender_bonus) == (1, 1, 2, 10, 1)
    assert (obs.producers, obs.soldiers, obs.capacity) == (1, 1, 1)
    assert (obs.round_wins, obs.round_losses, obs.round_draws) == (0, 0, 0)
    assert obs.previous_round is None and not obs.last_turn
    obs = Observation.from_payload({**E6_TURN_2_OBSERVATION, "turn": 10, "previousRound": ROUND})
    assert obs.last_turn
    assert obs.previous_round == RoundResult("WIN", 2, SideResult(1, 2, True), SideResult(4, 0, False))
    assert obs.previous_round.won and not obs.previous_round.lost
    assert obs.previous_round.them.total == 4


def test_round_result_round_trips_to_the_4_3_payload() -> None:
    result = RoundResult.from_payload(ROUND)
    assert result.to_payload() == ROUND
    assert list(result.to_payload()) == ["outcome", "turnsPlayed", "you", "them"]


def test_match_start_and_end() -> None:
    start = MatchStart.from_payload(
        {"rules": "bravolt2018", "rounds": 5, "drawAllowed": True, "playerSeed": 9, "bot_seed": 9}
    )
    assert start == MatchStart("bravolt2018", 5, True, 9)
    end = MatchEnd.from_payload(
        {"lastRound": ROUND, "outcome": "DRAW", "roundWins": 2, "roundLosses": 2, "roundDraws": 1}
    )
    assert end.last_round == RoundResult.from_payload(ROUND)
    assert (end.outcome, end.round_wins, end.round_losses, end.round_draws) == ("DRAW", 2, 2, 1)


def test_action_to_payload() -> None:
    assert Action().to_payload() == {"newProducers": 0, "newSoldiers": 0, "launchAttack": False}
    assert Action(producers=2, soldiers=1, attack=True).to_payload() == {
        "newProducers": 2,
        "newSoldiers": 1,
        "launchAttack": True,
    }


class Recorder(Bot):
    """Records the order of its hooks."""

    name = "Recorder"
    author = "tests"

    def on_match_start(self, start: MatchStart) -> None:
        self.calls = [("match_start", start.rounds)]
        self.draws = [self.random.random()]

    def on_round_start(self, obs: Observation) -> None:
        self.calls.append(("round_start", obs.round))

    def play_turn(self, obs: Observation) -> Action:
        self.calls.append(("turn", obs.round, obs.turn))
        if obs.turn < obs.turn_limit:
            return Action(producers=obs.capacity)
        return Action(soldiers=obs.capacity)

    def on_round_end(self, result: RoundResult) -> None:
        self.calls.append(("round_end", result.turns_played))

    def on_match_end(self, end: MatchEnd) -> None:
        self.calls.append(("match_end", end.outcome))


def test_bot_hooks_map_onto_setup_act_end() -> None:
    bot = Recorder()
    reply = bot.setup({"rules": "seed", "rounds": 2, "drawAllowed": True, "playerSeed": 5, "bot_seed": 5})
    assert reply == {"meta": {"name": "Recorder", "author": "tests"}}
    base = {**E6_TURN_2_OBSERVATION, "rounds": 2, "turnLimit": 2}
    assert bot.act({**base, "turn": 1, "producers": 1, "soldiers": 0}) == Action(producers=1).to_payload()
    assert bot.act({**base, "turn": 2, "producers": 2, "soldiers": 0}) == Action(soldiers=2).to_payload()
    bot.act({**base, "round": 2, "turn": 1, "producers": 1, "soldiers": 0, "previousRound": ROUND})
    assert (
        bot.end({"lastRound": ROUND, "outcome": "WIN", "roundWins": 2, "roundLosses": 0, "roundDraws": 0})
        == {}
    )
    assert bot.calls == [
        ("match_start", 2),
        ("round_start", 1),
        ("turn", 1, 1),
        ("turn", 1, 2),
        ("round_end", 2),
        ("round_start", 2),
        ("turn", 2, 1),
        ("round_end", 2),
        ("match_end", "WIN"),
    ]


def test_bot_random_is_seeded_by_player_seed() -> None:
    def draws(seed: int) -> list[float]:
        bot = Recorder()
        bot.setup({"playerSeed": seed, "rounds": 1})
        return bot.draws

    assert draws(7) == draws(7)
    assert draws(7) != draws(8)


def test_play_turn_may_return_a_dict_or_none() -> None:
    class Plain(Bot):
        def play_turn(self, obs: Observation) -> Any:
            return {"newSoldiers": obs.capacity} if obs.turn == 1 else None

    bot = Plain()
    bot.setup({"playerSeed": 1})
    assert bot.act({**E6_TURN_2_OBSERVATION, "turn": 1}) == {"newSoldiers": 1}
    assert bot.act({**E6_TURN_2_OBSERVATION, "turn": 2}) == {}
    assert bot.meta() == {"name": "Anonymous Player"}


@pytest.mark.parametrize("rules", ["seed", "bravolt2018"])
def test_an_sdk_bot_class_is_an_in_process_factory(rules: str) -> None:
    run = run_match(
        GAME, [PythonBot(Recorder), PythonBot(GAME.starter_bots["zergy"])], config=config(rules), seed=4
    )
    assert run.replay.statuses[0] == {"OK": len(run.replay.steps) + 1}
    assert run.replay.end["verdicts"][0] == ["OK", None]
    assert run.result.details["meta"][0] == {"name": "Recorder", "author": "tests"}
    assert verify_replay(run.replay).identical


def _load_my_bot() -> ModuleType:
    spec = importlib.util.spec_from_file_location("drones_example_my_bot", MY_BOT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_my_bot_defines_create_bot() -> None:
    module = _load_my_bot()
    bot = module.create_bot()
    assert isinstance(bot, Bot)
    assert module.create_bot() is not bot  # a fresh bot per call


@pytest.mark.parametrize("opponent", ["zergy", "pacifist", "adaptive", "randomonium", "tactician"])
def test_my_bot_plays_a_full_match(opponent: str) -> None:
    module = _load_my_bot()
    cfg = config(rounds=30)
    run = run_match(
        GAME,
        [PythonBot(module.create_bot, "my_bot"), PythonBot(GAME.starter_bots[opponent])],
        config=cfg,
        seed=7,
    )
    rounds = [s["record"]["roundResult"] for s in run.replay.steps if "roundResult" in s["record"]]
    assert len(rounds) == 30
    assert run.replay.statuses[0] == {"OK": len(run.replay.steps) + 1}
    assert all(not s["record"]["players"][0]["warnings"] for s in run.replay.steps)
    assert run.result.details["meta"][0]["name"] == "Watchful Economist (example)"
    if opponent == "zergy":
        assert run.result.details["roundTotals"]["player1Wins"] >= 25  # it learns Zergy's attack turn


def test_my_bot_loads_like_the_cli_loads_it() -> None:
    from botarena.bots.resolve import python_file_factory

    factory = python_file_factory(MY_BOT)
    assert isinstance(factory(), Bot)
