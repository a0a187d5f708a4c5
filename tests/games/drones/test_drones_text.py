"""ASCII rendering of keyframes, turn records and round records (text.py)."""

from __future__ import annotations

import orjson
from drones_testkit import GAME, TIMEOUT, act, config, new_engine, play_round, turn

from botarena.bots.inprocess import PythonBot
from botarena.games.drones.bots.examples import Pacifist, Zergy
from botarena.games.drones.text import keyframe_text, render_action, render_round, render_step
from botarena.runner import run_match


def test_render_action_uses_the_spec_shorthand() -> None:
    assert render_action({"newProducers": 1, "newSoldiers": 2, "launchAttack": True}) == "{P:1 S:2 A}"
    assert render_action({"newProducers": 3, "launchAttack": False}) == "{P:3}"
    assert render_action({}) == "{}"
    assert render_action(None) == "-"
    assert render_action({"newSoldiers": 1.0, "launchAttack": "yes", "x": 1}) == "{S:1 A:'yes' x:1}"
    assert render_action("hello") == "'hello'"


def test_render_step_of_e13_turn_2() -> None:
    engine = new_engine(rounds=1)
    turn(engine, act(P=0, S=1, A=False), act(P=1))
    step = turn(engine, act(P=0, S=1, A=True), TIMEOUT)
    assert render_step(step.record) == "\n".join(
        [
            "round 1 turn 2",
            "  PLAYER 1  OK                  {P:0 S:1 A}   -> (1, 2)",
            "  PLAYER 2  TIMEOUT deadline    -             -> (2, 0)",
            "clash ATTACK on turn 2 of 10: PLAYER 1 wins (ATTACK_WON)",
            "  PLAYER 1  (1, 2) attacked",
            "  PLAYER 2  (2, 0)",
        ]
    )


def test_render_step_shows_warnings_and_ignored_requests() -> None:
    engine = new_engine()
    step = turn(engine, act(P=5), act(P=1, S="x"))
    lines = render_step(step.record).splitlines()
    assert (
        lines[1]
        == "  PLAYER 1  OK                  {P:1 S:0}     -> (2, 0)  [CLAMPED: requested 5+0, applied 1+0]"
    )
    assert lines[2].startswith("  PLAYER 2  INVALID bad_field   ignored {P:1 S:'x'} -> (1, 0)")
    assert lines[2].endswith("[newSoldiers must be a non-negative integer]")
    assert len(lines) == 3  # no clash yet


def test_render_round_record_alone_and_draws() -> None:
    engine = new_engine("bravolt2018", turn_limit=1)
    steps = play_round(engine, [act(P=0.5, S=0.5)], [act(S=0.5)])
    record = steps[-1].record["roundResult"]
    assert render_step(record) == render_round(record)
    assert render_round(record).splitlines() == [
        "clash TURN_LIMIT on turn 1 of 1: a DRAW (DRAW)",
        "  PLAYER 1  (1.5, 0.5)",
        "  PLAYER 2  (1, 0.5)",
    ]


def test_keyframe_text_of_a_real_match_e6_three_times() -> None:
    """E6 three times (GD-17, GD-18): Zergy attacks with 2 soldiers on turn 2 and wins every round."""
    cfg = config(rounds=3)
    run = run_match(GAME, [PythonBot(Zergy), PythonBot(Pacifist)], config=cfg, seed=1)
    stored = orjson.loads(orjson.dumps(run.replay.to_json()))["keyframes"]
    assert [k["step"] for k in stored] == [0, 6]
    assert keyframe_text(stored[0]["state"]).splitlines() == [
        "round 1, turn 1 of 10",
        "  PLAYER 1  (1, 0)  wins 0  losses 0  draws 0",
        "  PLAYER 2  (1, 0)  wins 0  losses 0  draws 0",
    ]
    assert keyframe_text(stored[1]["state"]).splitlines() == [
        "match over after round 3",
        "  PLAYER 1  (1, 2)  wins 3  losses 0  draws 0",
        "  PLAYER 2  (4, 0)  wins 0  losses 3  draws 0",
    ]


def test_keyframe_text_mid_round_with_fractions_and_a_draw() -> None:
    """bravolt2018 (GD-13, GD-21): fractional counts print as the replay holds them; a draw is tallied."""
    engine = new_engine("bravolt2018", rounds=2, turn_limit=3)
    play_round(engine, [act(P=0.5, S=0.5)], [act(S=0.5)])  # round 1 ends on turn 3 in a draw
    turn(engine, act(P=0.5, S=0.25), act(P=1))
    keyframe = orjson.loads(orjson.dumps(engine.keyframe()))
    assert keyframe_text(keyframe).splitlines() == [
        "round 2, turn 2 of 3",
        "  PLAYER 1  (1.5, 0.25)  wins 0  losses 0  draws 1",
        "  PLAYER 2  (2, 0)  wins 0  losses 0  draws 1",
    ]
