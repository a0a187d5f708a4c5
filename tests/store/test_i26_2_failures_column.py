"""Issue 26, item 2: each seat's failures are kept with its result (`match_players.failure`, store
revision 0003), on SQLite and PostgreSQL; a database at revision 0002 upgrades keeping its results,
whose failures are then counted from their status counts."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from alembic import command
from sqlalchemy import create_engine, inspect

from botarena.store import Store, StoreError
from botarena.store.engine import _alembic_config
from botarena.tournament.service import tournament_board

from .helpers import StoreFactory, result, spec

CRASH = {
    "kinds": ["crashed"],
    "status": "CRASHED",
    "reason": "bot_error",
    "detail": "ZeroDivisionError",
    "where": "step 1",
}


def _failure_columns(url: str) -> list[str]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return [c["name"] for c in inspect(conn).get_columns("match_players") if c["name"] == "failure"]
    finally:
        engine.dispose()


def test_i26_2_failures_are_kept_with_each_seats_result(tournament: SimpleNamespace) -> None:
    store: Store = tournament.store
    store.add_matches(tournament.id, [spec("m1")])
    statuses = [{"OK": 1, "CRASHED": 9}, {"OK": 10}]
    assert store.record_result(tournament.id, "m1", **result(statuses=statuses, failures=[CRASH, None]))
    (row,) = store.list_matches(tournament.id)
    assert row.failures == [CRASH, None]


def test_i26_2_failures_that_do_not_fit_the_seats_are_refused(tournament: SimpleNamespace) -> None:
    store: Store = tournament.store
    store.add_matches(tournament.id, [spec("m1")])
    with pytest.raises(StoreError, match="1 failures for 2 seats"):
        store.record_result(tournament.id, "m1", **result(failures=[CRASH]))
    assert store.count_matches(tournament.id)["finished"] == 0  # nothing half-written


def test_i26_2_an_0002_database_upgrades_keeping_its_results(
    open_store: StoreFactory, tournament: SimpleNamespace
) -> None:
    store: Store = tournament.store
    url = store.connect_url
    store.add_matches(tournament.id, [spec("m1"), spec("m2", seats=("b", "a"))])
    old = result(statuses=[{"OK": 8, "CRASHED": 2}, {"OK": 10}])
    assert store.record_result(tournament.id, "m1", **old)
    store.close()
    engine = create_engine(url)
    with engine.begin() as conn:
        command.downgrade(_alembic_config(conn), "0002")  # the schema before this item
    engine.dispose()
    assert _failure_columns(url) == []

    again = open_store()  # opening migrates to the head
    assert _failure_columns(url) == ["failure"]
    (m1,) = again.list_matches(tournament.id, status="finished")
    assert (m1.key, m1.statuses, m1.failures) == ("m1", old["statuses"], [None, None])
    assert again.record_result(tournament.id, "m2", **result(failures=[None, CRASH]))
    row = again.get_tournament(tournament.id)
    assert row is not None
    (a,) = tournament_board(again, row)["failures"]
    # the old result counts from its statuses; the first reason is the new one's, which has it
    assert (a["name"], a["played"], a["counts"]["crashed"]) == ("a", 2, 2)
    assert a["line"] == "crashed 2/2: CRASHED (bot_error) at step 1: ZeroDivisionError (match m2)"
