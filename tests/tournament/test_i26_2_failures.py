"""Issue 26, item 2: a tournament counts, per entrant, the matches in which it never started, crashed,
timed out or was invalid, with the first reason, and keeps that with each seat's result in the store.

The summary of a seat comes from its match's verdicts (`seat_failures`); the coordinator's running
count (`TournamentSummary.failing`) and the leaderboard's (`tournament_board(...)["failures"]`, from
the store's rows, no replay read) agree. The crashing entrant plays both seats (two cycles), as an
in-process bot (trusted) and as a subprocess bot (untrusted).
"""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from botarena.bots.resolve import TRUSTED, Isolation, untrusted
from botarena.core.replay import Replay
from botarena.store import Store
from botarena.tournament.failures import FailureTally, seat_failures
from botarena.tournament.service import (
    Entrant,
    TournamentPlan,
    TournamentSummary,
    create_tournament,
    run_tournament,
    tournament_board,
)

CRASHY = "def act(obs):\n    return 1 // 0\n"
DEAD = "raise SystemExit(3)\n"


def _replay(start: list[Any], steps: list[dict[str, Any]], players: int = 2) -> Replay:
    return Replay(
        game="drones",
        rules="drones_v1",
        preset="default",
        config={},
        seed=1,
        players=[{"seat": seat} for seat in range(players)],
        start={"replies": [{"seat": s} for s in range(players)], "verdicts": start},
        steps=steps,
    )


@pytest.mark.parametrize("seat", [0, 1])
def test_i26_2_a_seat_that_crashes_every_turn_is_crashed_with_its_first_exception(seat: int) -> None:
    crash = ["CRASHED", "bot_error", None, [{"code": "EXCEPTION", "detail": "ZeroDivisionError: boom"}]]
    verdicts: list[Any] = [["OK", None], ["OK", None]]
    verdicts[seat] = crash
    step = {"replies": [{"seat": 0}, {"seat": 1}], "verdicts": verdicts}
    failures = seat_failures(_replay([["OK", None], ["OK", None]], [step, step]))
    assert failures[1 - seat] is None
    assert failures[seat] == {
        "kinds": ["crashed"],
        "status": "CRASHED",
        "reason": "bot_error",
        "detail": "ZeroDivisionError: boom",
        "where": "step 1",
    }


@pytest.mark.parametrize("seat", [0, 1])
def test_i26_2_a_seat_whose_start_failed_never_started(seat: int) -> None:
    start: list[Any] = [["OK", None], ["OK", None]]
    start[seat] = ["CRASHED", "process_exited"]
    failures = seat_failures(_replay(start, []))
    assert failures[1 - seat] is None
    assert failures[seat] is not None
    assert failures[seat]["kinds"] == ["never_started", "crashed"]
    assert failures[seat]["where"] == "start"


def test_i26_2_per_call_verdicts_are_counted_for_the_seat_of_their_reply() -> None:
    """Devops and Crafting Quest give several verdicts per seat in one exchange: the seat is the
    reply's, never the verdict's index (the bug issue 26's first bullet found in `play`)."""
    step = {
        "replies": [{"seat": 1}, {"seat": 1}, {"seat": 0}],
        "verdicts": [["OK", None], ["TIMEOUT", "deadline"], ["OK", None]],
    }
    failures = seat_failures(_replay([["OK", None], ["OK", None]], [step]))
    assert failures[0] is None
    assert failures[1] is not None and failures[1]["kinds"] == ["timeout"]


def test_i26_2_results_recorded_before_the_summary_count_from_their_statuses() -> None:
    """A result from before store revision 0003 has no failure summary: its status counts give the
    kinds, and the first reason is said to be unknown."""
    tally = FailureTally(["a", "b"])
    tally.add("m1", 1, ("a", "b"), None, [{"OK": 3, "TIMEOUT": 2}, {"OK": 5}])
    (a,) = tally.failing()
    assert a.name == "a" and a.counts["timeout"] == 1 and a.played == 1
    assert a.line() == "timed out 1/1: no reason recorded (match m1)"


def test_i26_2_the_first_failure_is_the_first_match_in_canonical_order() -> None:
    tally = FailureTally(["a", "b"])
    late = {
        "kinds": ["invalid"],
        "status": "INVALID",
        "reason": "bad_json",
        "detail": None,
        "where": "step 4",
    }
    early = {
        "kinds": ["crashed"],
        "status": "CRASHED",
        "reason": "bot_error",
        "detail": "x",
        "where": "step 2",
    }
    tally.add("r02-m001", 2, ("a", "b"), [late, None])  # finished first, played in a later round
    tally.add("r01-m001", 1, ("b", "a"), [None, early])
    (a,) = tally.failing()
    assert a.first is not None and a.first["match"] == "r01-m001"
    assert a.line() == "crashed 1/2, invalid 1/2: CRASHED (bot_error) at step 2: x (match r01-m001)"
    assert not a.dead


def _play(store: Store, name: str, entrants: list[Entrant], isolation: Isolation) -> TournamentSummary:
    plan = TournamentPlan(
        name=name, game="drones", format="round-robin", entrants=entrants, seed=7,
        overrides={"rounds": 2}, options={"cycles": 2},
    )  # fmt: skip
    tournament = create_tournament(store, plan, isolation=isolation)
    # in a worker thread: the in-process bots' timer signal is for non-main threads under pytest-timeout
    with ThreadPoolExecutor(1) as pool:
        summary = pool.submit(run_tournament, store, tournament.id, None, isolation=isolation).result(300)
    assert summary.status == "finished", summary
    return summary


@pytest.fixture
def store(tmp_path: Path) -> Any:
    with Store.open(f"sqlite:///{tmp_path / 'arena.db'}", replay_dir=tmp_path / "replays") as opened:
        yield opened


@pytest.mark.parametrize("isolation", [TRUSTED, untrusted(sandbox=None)], ids=["in-process", "subprocess"])
def test_i26_2_a_crashing_entrant_is_counted_in_both_seats_with_its_first_reason(
    store: Store, tmp_path: Path, isolation: Isolation
) -> None:
    bot = tmp_path / "crashy.py"
    bot.write_text(CRASHY)
    summary = _play(store, "t", [Entrant("bad", str(bot)), Entrant("ok", "pacifist")], isolation)
    (bad,) = summary.failing
    assert (bad.name, bad.played, bad.failed, bad.counts["crashed"], bad.dead) == ("bad", 2, 2, 2, False)
    assert bad.first is not None
    assert (bad.first["status"], bad.first["reason"], bad.first["where"]) == (
        "CRASHED",
        "bot_error",
        "step 1",
    )
    assert "ZeroDivisionError" in bad.first["detail"]
    assert bad.line().startswith("crashed 2/2: CRASHED (bot_error) at step 1: ")
    tournament = store.find_tournament("t")
    assert tournament is not None
    rows = store.list_matches(tournament.id, status="finished")
    assert sorted(row.seats.index("bad") for row in rows) == [0, 1]  # both seats
    for row in rows:
        assert row.failures is not None
        assert row.failures[row.seats.index("ok")] is None
        assert row.failures[row.seats.index("bad")]["kinds"] == ["crashed"]  # type: ignore[index]
    board = tournament_board(store, tournament)
    assert board["failures"] == [bad.to_json()]  # the store's count is the coordinator's


def test_i26_2_an_entrant_that_never_starts_is_dead_and_resume_keeps_the_count(
    store: Store, tmp_path: Path
) -> None:
    (tmp_path / "dead.py").write_text(DEAD)
    dead = Entrant("dead", f"cmd:{sys.executable} {tmp_path / 'dead.py'}")
    summary = _play(store, "t", [dead, Entrant("ok", "pacifist")], untrusted(sandbox=None))
    assert [e.name for e in summary.dead] == ["dead"]
    (entrant,) = summary.failing
    assert entrant.counts["never_started"] == 2 == entrant.played
    assert entrant.first_text().startswith("CRASHED (process_exited) at start (match ")
    tournament = store.find_tournament("t")
    assert tournament is not None
    again = run_tournament(store, tournament.id, None, isolation=untrusted(sandbox=None))
    assert again.played == 0 and [e.to_json() for e in again.failing] == [entrant.to_json()]
