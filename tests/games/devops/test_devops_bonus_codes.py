"""Spec 7.5 with DV-20 in the engine: a queued redemption waits for the next turn's start, the step
record of that turn lists them, and a re-run takes them from there; the plain `CodeBook` judges a
redemption against the engine (410, 423). Redemptions from the server's threads: tests/server."""

from __future__ import annotations

from devops_testkit import engine, play

from botarena.core.protocol import Reply
from botarena.core.status import Status
from botarena.games.devops.codes import CodeBook, CodeError


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
    book = CodeBook({1: "k1", 2: "k2"}, "boss")
    issue = {"factionId": 1, "type": "EXTRA_GOLD", "validTurns": 1}
    expired = book.issue(e, e.game_id, issue, "boss", "code-a")  # valid until turn 0 + 1
    usable = book.issue(e, e.game_id, {**issue, "validTurns": 2}, "boss", "code-b")
    second = book.issue(e, e.game_id, {**issue, "factionId": 2, "validTurns": 9}, "boss", "code-c")
    late = book.issue(e, e.game_id, {**issue, "validTurns": 9}, "boss", "code-d")
    play(e)
    play(e)

    def status(code: dict[str, object], key: str) -> int:
        body = {"factionId": code["factionId"], "code": code["code"]}
        try:
            book.redeem(e, e.game_id, body, key)
        except CodeError as exc:
            return exc.status
        return 202

    assert status(expired, "k1") == 410
    assert book.redeem(e, e.game_id, {"factionId": 1, "code": usable["code"]}, "k1")["activatesAtTurn"] == 3
    e.state.faction(2).defeated = True
    assert status(second, "k2") == 423
    e.state.finished = True
    assert status(late, "k1") == 423
    e.state.finished = False
    assert play(e)[0]["redemptions"] == [{"faction": 1, "type": "EXTRA_GOLD", "validUntilTurn": 2}]


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
