"""The real-time driver's replay (spec §7.5 "Replays of both drivers"), without HTTP: a round driven
transition by transition as the server does, with orders merged from several submissions per turn,
re-runs identically through the lockstep engine, keyframes included."""

from __future__ import annotations

import random

import pytest

from botarena.core.replay import Replay
from botarena.games.datspulse.config import datspulse_config
from botarena.games.datspulse.engine import Round
from botarena.games.datspulse.hexgrid import distance, neighbours
from botarena.runner.verify import verify_replay
from botarena.server.datspulse.driver import RoundDriver, replay_config


def drive(turns: int, keyframe_every: int, seed: int = 11) -> RoundDriver:
    config = datspulse_config("ci", {"turns": turns})
    round_ = Round.create(config, seed, ["alpha", "beta", "gamma"], round_number=2)
    driver = RoundDriver(
        round_, round_number=2, preset="ci", match_id="antprotocol-test-2", keyframe_every=keyframe_every
    )
    rng = random.Random(seed)
    while not round_.finished:
        for team in range(3):
            for _ in range(2):  # two calls per turn: they merge per ant (§7.2)
                view = round_.arena(team, 1.0)
                moves = []
                for ant in view["ants"]:
                    steps = [
                        h for h in neighbours(ant["q"], ant["r"]) if distance(h, (0, 0)) <= round_.radius
                    ]
                    if ant["health"] > 0 and rng.random() < 0.7:
                        q, r = rng.choice(steps)
                        moves.append({"ant": ant["id"], "path": [{"q": q, "r": r}]})
                round_.submit(team, {"moves": moves})
        record, logs = driver.transition()
        assert record["turnNo"] == round_.turn_no and set(logs) <= {0, 1, 2}
    driver.finish()
    return driver


def test_dp75_driver_replay_reruns_identically_with_keyframes(monkeypatch: pytest.MonkeyPatch) -> None:
    driver = drive(turns=10, keyframe_every=3)
    replay = Replay.from_json(driver.replay.to_json())  # (as written: the live one holds JSON bytes)
    assert [k["step"] for k in replay.keyframes] == [0, 3, 6, 9, 10]
    assert len(replay.steps) == 10 and replay.statuses == [{"OK": 11}] * 3  # start + 10 turns
    assert replay.result["details"]["turns"] == 10
    report = verify_replay(replay)
    assert report.identical, str(report)


def test_dp47_replay_config_names_the_generator_a_cycle_used() -> None:
    config = datspulse_config("final")
    assert [replay_config(config, n)["map_generator"] for n in (1, 2, 3, 4)] == [
        "scatter",
        "mirror",
        "zones",
        "scatter",
    ]
    assert replay_config(datspulse_config("ci"), 5)["map_generator"] == "any"


def test_dp75_applied_records_the_step_apply_gives_for_the_merged_slots() -> None:
    """`engine.applied` (the real-time record, made after the transition ran) gives the same Step as
    `engine.apply` re-submitting the same merged slots before the transition (one implementation of a
    step's record for both drivers)."""
    from botarena.core.protocol import Reply
    from botarena.core.replay import verdict_json
    from botarena.core.status import Status
    from botarena.games.datspulse.actions import orders_body
    from botarena.games.datspulse.engine import DatsPulseEngine

    config = datspulse_config("ci", {"turns": 6})
    names = ["alpha", "beta", "gamma"]
    realtime, lockstep = Round.create(config, 5, names), Round.create(config, 5, names)
    driver = RoundDriver(realtime, round_number=1, preset="ci", match_id="m", keyframe_every=50)
    engine = DatsPulseEngine.from_round(lockstep)
    rng = random.Random(5)
    while not realtime.finished:
        for team in range(3):
            moves = []
            for ant in realtime.arena(team, 1.0)["ants"]:
                q, r = rng.choice(neighbours(ant["q"], ant["r"]))
                moves.append({"ant": ant["id"], "path": [{"q": q, "r": r}]})
            assert realtime.submit(team, {"moves": moves}) == lockstep.submit(team, {"moves": moves})
        replies = [Reply(seat, Status.OK, orders_body(lockstep.orders(seat))) for seat in range(3)]
        logs = driver.advance()
        record = driver.record()
        step = engine.apply(replies)
        assert logs == engine.last_logs and record == step.record
        recorded = driver.replay.to_json()["steps"][-1]
        assert recorded["verdicts"] == [verdict_json(v) for v in step.verdicts]
        assert recorded["replies"] == [r.to_json() for r in replies]
