"""Determinism (spec 11.2), replays, hidden information (4.5) and record serialization (3.6)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from drones_testbots import Garbage
from drones_testkit import GAME, act, config, new_engine, turn
from hypothesis import given, settings
from hypothesis import strategies as st

from botarena.bots.inprocess import PythonBot
from botarena.core.replay import read_replay, write_replay
from botarena.games.drones.bots.random import RandomLegal
from botarena.runner import run_match
from botarena.runner.verify import verify_replay

PAIRS = [("randomonium", "adaptive"), ("tactician", "zergy"), ("pacifist", "tactician")]


def _run(one: str, two: str, seed: int, **overrides: Any) -> Any:
    bots = [PythonBot(GAME.starter_bots[one], one), PythonBot(GAME.starter_bots[two], two)]
    return run_match(GAME, bots, config=config(**overrides), seed=seed)


@pytest.mark.parametrize(("one", "two"), PAIRS)
@pytest.mark.parametrize("rules", ["seed", "bravolt2018"])
def test_11_2_same_seed_same_records_byte_for_byte(one: str, two: str, rules: str) -> None:
    first = _run(one, two, 2018, rules=rules, rounds=25, turn_limit_range=[3, 12])
    second = _run(one, two, 2018, rules=rules, rounds=25, turn_limit_range=[3, 12])
    assert orjson.dumps([s["record"] for s in first.replay.steps]) == orjson.dumps(
        [s["record"] for s in second.replay.steps]
    )
    assert first.result.to_json() == second.result.to_json()


@pytest.mark.parametrize(("one", "two"), PAIRS)
def test_2_replay_re_run_is_identical(one: str, two: str, tmp_path: Path) -> None:
    run = _run(one, two, 99, rounds=30, turn_limit_range=[1, 15])
    path = write_replay(run.replay, tmp_path / "match.json.gz")
    report = verify_replay(read_replay(path))
    assert report.identical, str(report)
    assert report.steps_checked == len(run.replay.steps)


def test_2_replay_of_misbehaving_bots_re_runs_identically(tmp_path: Path) -> None:
    class Weird:
        def act(self, obs: dict[str, Any]) -> Any:
            return [
                None,
                {"newProducers": 0.5},
                {"newSoldiers": -1, "launchAttack": 1},
                {"error": "x"},
                {"newProducers": 10**6, "launchAttack": True},
            ][obs["turn"] % 5]

    for rules in ("seed", "bravolt2018"):
        run = run_match(GAME, [PythonBot(Weird), PythonBot(Garbage)], config=config(rules, rounds=8), seed=3)
        path = write_replay(run.replay, tmp_path / f"{rules}.json.gz")
        assert verify_replay(read_replay(path)).identical


def test_2_a_tampered_replay_is_caught() -> None:
    run = _run("randomonium", "adaptive", 5, rounds=5)
    data = json.loads(run.replay.dumps())
    data["steps"][3]["replies"][0]["payload"] = {"newSoldiers": 1, "launchAttack": True}
    from botarena.core.replay import Replay

    report = verify_replay(Replay.from_json(data))
    assert not report.identical
    assert "step 4" in report.where


def test_11_2_turn_limits_depend_only_on_the_match_seed() -> None:
    def limits(one: str, two: str) -> list[int]:
        run = _run(one, two, 77, rounds=20, turn_limit_range=[2, 9])
        return [
            s["record"]["roundResult"]["turnLimit"] for s in run.replay.steps if "roundResult" in s["record"]
        ]

    assert limits("zergy", "pacifist") == limits("tactician", "randomonium") == limits("adaptive", "adaptive")


def test_4_5_observations_hide_the_opponent() -> None:
    """A turn payload has exactly the 4.2 keys; nothing in it changes with the opponent's play."""
    keys = {
        "round",
        "rounds",
        "turn",
        "turnLimit",
        "defenderBonus",
        "producers",
        "soldiers",
        "roundWins",
        "roundLosses",
        "roundDraws",
        "previousRound",
    }
    seen: list[list[dict[str, Any]]] = []
    for opponent in ({}, act(P=1), act(S=1)):
        engine = new_engine(turn_limit=3)
        payloads = []
        for _ in range(3):
            request = engine.next_requests()[0]
            payloads.append(request.payload)
            assert set(request.payload) == keys
            turn(engine, act(P=1), opponent)
        seen.append(payloads)
    assert seen[0] == seen[1] == seen[2]
    start = GAME.new_engine(config(), 123, 2).start_requests()
    assert set(start[0].payload) == {"rules", "rounds", "drawAllowed", "playerSeed", "bot_seed"}
    assert start[0].payload["playerSeed"] != start[1].payload["playerSeed"]
    assert 123 not in (start[0].payload["playerSeed"], start[1].payload["playerSeed"])


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), rules=st.sampled_from(["seed", "bravolt2018"]))
def test_3_6_records_serialize_and_read_back_exactly(seed: int, rules: str) -> None:
    """Every record is JSON with integral values as integers, and reads back equal (floats exactly)."""
    run = run_match(
        GAME, [PythonBot(RandomLegal), PythonBot(RandomLegal)], config=config(rules, rounds=3), seed=seed
    )
    for step in run.replay.steps:
        record = step["record"]
        text = orjson.dumps(record)
        assert orjson.loads(text) == record
        assert json.loads(text) == record
        for entry in record["players"]:
            for key in ("producers", "soldiers"):
                assert type(entry[key]) is int
    assert orjson.loads(orjson.dumps(run.result.to_json())) == run.result.to_json()


@given(
    st.lists(
        st.tuples(st.floats(0, 64, allow_nan=False), st.floats(0, 64, allow_nan=False)),
        min_size=1,
        max_size=6,
    )
)
def test_3_6_bravolt_fractions_round_trip_exactly(requests: list[tuple[float, float]]) -> None:
    engine = new_engine("bravolt2018", turn_limit=6)
    for producers, soldiers in requests:
        step = turn(engine, act(P=producers, S=soldiers), {})
        back = json.loads(orjson.dumps(step.record))
        assert back == step.record
        for entry in step.record["players"]:
            if type(entry["producers"]) is float:
                assert not entry["producers"].is_integer()  # integral values are ints (3.6)
        if "roundResult" in step.record:
            break


def test_keyframes_follow_the_state() -> None:
    engine = new_engine(rounds=2, turn_limit=2)
    assert engine.keyframe() == {
        "round": 1,
        "turn": 1,
        "turnLimit": 2,
        "finished": False,
        "players": [{"producers": 1, "soldiers": 0, "wins": 0, "losses": 0, "draws": 0}] * 2,
    }
    turn(engine, act(P=1), act(S=1))
    turn(engine, {}, act(S=1, A=True))
    frame = engine.keyframe()
    assert (frame["round"], frame["turn"]) == (2, 1)
    assert frame["players"][1]["wins"] == 1 and frame["players"][0]["losses"] == 1
