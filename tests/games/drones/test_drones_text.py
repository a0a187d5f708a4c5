"""ASCII rendering of turn and round records (text.py)."""

from __future__ import annotations

from drones_testkit import TIMEOUT, act, new_engine, play_round, turn

from botarena.games.drones.text import render_action, render_round, render_step


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
