"""Spec 7.5 with DV-20 in the engine: redemptions from other threads wait for the next turn's start,
the step record of that turn lists them, and a re-run takes them from there."""

from __future__ import annotations

import threading

import pytest
from devops_testkit import engine, play

from botarena.core.protocol import Reply
from botarena.core.status import Status
from botarena.games.devops.rules import RedemptionExpired, RedemptionLocked


def test_a_redemption_during_a_turn_activates_in_the_next_one() -> None:
    e = engine(bonus_codes_enabled=True)
    play(e)
    requests = e.next_requests()  # turn 2's gather phase has started
    assert e.queue_redemption(1, "CHEAPER_UNITS", 10) == 3
    record = e.apply([Reply(r.seat, Status.OK, {"type": "IDLE"}) for r in requests]).record
    assert "redemptions" not in record and "CHEAPER_UNITS" not in e.state.faction(1).bonuses
    record, _, _ = play(e)  # turn 3
    assert record["redemptions"] == [{"faction": 1, "type": "CHEAPER_UNITS", "validUntilTurn": 10}]
    assert {"event": "bonus_activated", "faction": 1, "type": "CHEAPER_UNITS"} in record["events"]
    assert e.state.faction(1).bonuses["CHEAPER_UNITS"] == 3 + 10 - 1
    record, _, _ = play(e)
    assert "redemptions" not in record


def test_checked_redemptions_refuse_expired_codes_and_finished_games() -> None:
    e = engine(bonus_codes_enabled=True)
    play(e)
    play(e)
    with pytest.raises(RedemptionExpired):
        e.redeem(1, "EXTRA_GOLD", 1)
    assert e.redeem(1, "EXTRA_GOLD", 2) == 3
    e.state.faction(2).defeated = True
    with pytest.raises(RedemptionLocked):
        e.redeem(2, "EXTRA_GOLD", 9)
    e.state.finished = True
    with pytest.raises(RedemptionLocked):
        e.redeem(1, "EXTRA_GOLD", 9)
    assert e.current_turn() == (2, True)


def test_restored_inputs_replay_the_recorded_redemptions() -> None:
    first, second = engine(bonus_codes_enabled=True), engine(bonus_codes_enabled=True)
    play(first)
    first.queue_redemption(2, "INCOME_MULTIPLIER", 5)
    record, _, _ = play(first)
    second.restore_external_inputs({"turn": 1, "events": []})  # nothing recorded: nothing queued
    play(second)
    second.restore_external_inputs(record)
    again, _, _ = play(second)
    assert again == record
    edited = {"redemptions": [{"faction": 9, "type": "EXTRA_GOLD", "validUntilTurn": 9}, "x", {"faction": 1}]}
    second.restore_external_inputs(edited)  # nothing usable: the re-run shows no redemption
    assert "redemptions" not in play(second)[0]


def test_concurrent_redemptions_are_each_taken_once() -> None:
    e = engine(bonus_codes_enabled=True, bonus_duration_turns=1000)
    kinds = ["INCOME_MULTIPLIER", "CHEAPER_UNITS", "RUSH_ATTACK"]

    def redeem_many(kind: str) -> None:
        for _ in range(200):
            e.queue_redemption(1, kind, 10_000)

    threads = [threading.Thread(target=redeem_many, args=(kind,)) for kind in kinds]
    taken = 0
    for thread in threads:
        thread.start()
    while any(thread.is_alive() for thread in threads):
        record, _, _ = play(e)
        taken += len(record.get("redemptions", []))
    for thread in threads:
        thread.join()
    record, _, _ = play(e)
    taken += len(record.get("redemptions", []))
    assert taken == 600
    assert sorted(e.state.faction(1).bonuses) == sorted(kinds)
