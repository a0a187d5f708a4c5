"""Deviation 6 as amended (DV-18, DV-19, spec 5.2): in `course` an invalid move of any kind is only
ignored (a lost turn, recorded as a warning); only a timeout, a transport/HTTP error or an unreadable
reply costs a penalty. Elsewhere `penalty_invalid` prices invalid moves."""

from __future__ import annotations

from typing import Any

from devops_testkit import engine, own, unit

from botarena.core.protocol import Reply
from botarena.core.status import Status
from botarena.games.devops import GAME
from botarena.games.devops.engine import DevopsEngine

# one of each kind of invalid move the seed says the host ignores: malformed, impossible, unaffordable
INVALID_UNIT_MOVES: dict[str, dict[str, Any]] = {
    "bad_type": {"type": "DANCE"},
    "bad_parameter": {"type": "TRAVEL"},
    "type_not_allowed": {"type": "FORTIFY"},  # a PIONEER cannot fortify (DV-5)
}


def play_invalid(e: DevopsEngine) -> tuple[dict[str, Any], list[Any], list[Any]]:
    """Faction 1 sends an unaffordable build and one invalid move per unit; faction 2 idles.
    Returns (record, verdicts, the faction-1 pioneers)."""
    a = e.state.faction(1)
    own(e, 3, 3, 1)
    pioneers = [unit(e, 1, "PIONEER", 3 + i, 3) for i in range(3)]
    worker = unit(e, 1, "WORKER", 3, 5)
    a.gold = 300  # above upkeep, below a SAPPER (850) and a FORTIFY after upkeep (250)
    requests = e.next_requests()
    moves: dict[tuple[int, int], dict[str, Any]] = {(1, 0): {"type": "BUILD_UNIT", "unitToBuild": "SAPPER"}}
    for pioneer, payload in zip(pioneers, INVALID_UNIT_MOVES.values(), strict=True):
        moves[(1, pioneer.id)] = payload
    moves[(1, worker.id)] = {"type": "FORTIFY"}  # the course starter's move: sent without checking gold
    replies = [
        Reply(r.seat, Status.OK, moves.get(key, {"type": "IDLE"}))
        for r, key in zip(requests, e._pending, strict=True)
    ]
    step = e.apply(replies)
    return step.record, step.verdicts, pioneers


def test_course_preset_prices_invalid_moves_at_zero_and_sends_the_course_model() -> None:
    """Deviation 6 and 2: the `course` preset's keys."""
    config = GAME.config("course")
    assert config.penalty_invalid == 0 and config.wire_model == "course-2024"
    assert config.penalty_timeout == 100 and config.penalty_error == 100
    default = GAME.config()
    assert default.penalty_invalid == 100 and default.wire_model == "botarena"


def test_dv18_dv19_deviation6_course_invalid_moves_are_ignored_with_a_warning_and_no_penalty() -> None:
    e = engine(penalty_invalid=0, abort_on_logic_error=True)
    record, verdicts, _ = play_invalid(e)
    a = e.state.faction(1)
    faction_one = [c for c in record["calls"] if c["faction"] == 1]
    assert len(faction_one) == 5
    reasons = sorted(c["outcomeReason"] for c in faction_one)
    assert reasons == ["bad_parameter", "bad_type", "type_not_allowed", "unaffordable", "unaffordable"]
    for call in faction_one:
        assert call["status"] == "OK" and call["outcome"] == "ignored" and call["move"] is None
    assert a.score == 0 and a.errors == 0 and a.ignored == 5  # never penalised, a lost turn each
    assert not e.state.board.fortified[e.state.board.index(3, 5)]
    assert e.state.faction(1).slot is None  # the unaffordable build started nothing
    warned = [v for v in verdicts if v.seat == 0]
    assert all(v.status is Status.OK for v in warned)
    codes = sorted(w["code"] for v in warned for w in v.warnings)
    assert codes == reasons
    assert not e.state.finished  # an ignored move is no logic error (abort_on_logic_error)
    assert e.result().details["results"][0]["errors"] == 0


def test_dv18_deviation6_course_still_penalises_timeouts_errors_and_unreadable_replies() -> None:
    config = GAME.config("course", {"turn_limit": 3})
    e = DevopsEngine(config, 7, 2)
    requests = e.next_requests()
    failures = [  # faction 1's base call and its two units' calls, in request order
        Reply(0, Status.TIMEOUT, None, "deadline"),
        Reply(0, Status.CRASHED, None, "http_status"),
        Reply(0, Status.INVALID, None, "bad_json"),
    ]
    replies = [
        failures.pop(0) if r.seat == 0 else Reply(r.seat, Status.OK, {"type": "IDLE"}) for r in requests
    ]
    assert not failures
    step = e.apply(replies)
    a = e.state.faction(1)
    statuses = [(c["status"], c.get("reason")) for c in step.record["calls"] if c["faction"] == 1]
    assert statuses == [("TIMEOUT", "deadline"), ("CRASHED", "http_status"), ("INVALID", "bad_json")]
    assert a.score == -config.penalty_timeout - 2 * config.penalty_error == -300
    assert a.timeouts == 1 and a.errors == 2


def test_dv18_penalty_invalid_prices_invalid_moves_outside_course_and_bad_json_keeps_penalty_error() -> None:
    e = engine(penalty_invalid=7, penalty_error=100)
    record, verdicts, _ = play_invalid(e)
    a = e.state.faction(1)
    faction_one = [c for c in record["calls"] if c["faction"] == 1]
    assert all(c["status"] == "INVALID" for c in faction_one)
    assert a.score == -5 * 7 and a.errors == 5 and a.ignored == 0
    assert all(v.status is Status.INVALID for v in verdicts if v.seat == 0)
    # an unreadable reply is no move at all: penalty_error, whatever penalty_invalid says
    e2 = engine(penalty_invalid=0)
    requests = e2.next_requests()
    replies = [
        Reply(r.seat, Status.INVALID, None, "bad_json")
        if r.seat == 0
        else Reply(r.seat, Status.OK, {"type": "IDLE"})
        for r in requests
    ]
    e2.apply(replies)
    assert e2.state.faction(1).score == -e2.config.penalty_error * sum(r.seat == 0 for r in requests)


def test_dv18_default_preset_keeps_penalising_invalid_moves_as_before() -> None:
    e = engine()
    play_invalid(e)
    assert e.state.faction(1).score == -5 * e.config.penalty_error
