"""The coordinator's grouped writes (issue 18, item 4): a batch of matches marked running in one
transaction and its results recorded in one, exactly once each, on SQLite and PostgreSQL."""

from __future__ import annotations

import gzip
import threading
from types import SimpleNamespace

import pytest
from sqlalchemy import create_engine

from botarena.runner.record import MatchRecord
from botarena.store import Store, StoreError

from .helpers import result, spec


def outcome(key: str, replay: bytes | None = None, **overrides: object) -> MatchRecord:
    fields = result(replay=replay if replay is not None else key.encode(), **overrides)
    return MatchRecord(key=key, **fields)


def player_rows(store: Store) -> int:
    engine = create_engine(store.connect_url)
    try:
        with engine.connect() as conn:
            return int(conn.exec_driver_sql("SELECT count(*) FROM match_players").scalar() or 0)
    finally:
        engine.dispose()


def test_mark_running_many_counts_an_attempt_each_and_skips_finished(tournament: SimpleNamespace) -> None:
    store: Store = tournament.store
    tid = tournament.id
    store.add_matches(tid, [spec("m1"), spec("m2"), spec("m3")])
    assert store.record_result(tid, "m3", **result())
    store.mark_running_many(tid, ["m1", "m2", "m3"])
    store.mark_running_many(tid, ["m2"])
    rows = {row.key: row for row in store.list_matches(tid)}
    assert [(rows[k].status, rows[k].attempts) for k in ("m1", "m2", "m3")] == [
        ("running", 1),
        ("running", 2),
        ("finished", 0),
    ]
    with pytest.raises(StoreError, match="no match 'zz' in tournament"):
        store.mark_running_many(tid, ["m1", "zz"])


def test_record_results_records_a_batch_in_one_call(tournament: SimpleNamespace) -> None:
    store: Store = tournament.store
    tid = tournament.id
    keys = [f"m{i}" for i in range(5)]
    store.add_matches(tid, [spec(k) for k in keys])
    assert store.record_result(tid, "m2", **result(replay=b"first"))
    answers = store.record_results(tid, [outcome(k) for k in keys])
    assert answers == [True, True, False, True, True]
    rows = {row.key: row for row in store.list_matches(tid)}
    assert all(row.status == "finished" and row.ranks == [0, 1] for row in rows.values())
    for key in ("m0", "m1", "m3", "m4"):
        replay_hash = rows[key].replay_hash
        assert replay_hash is not None
        assert gzip.decompress(store.replay_path(replay_hash).read_bytes()) == key.encode()
    assert gzip.decompress(store.replay_path(str(rows["m2"].replay_hash)).read_bytes()) == b"first"
    assert player_rows(store) == 2 * len(keys)


def test_record_results_takes_a_repeated_key_once(tournament: SimpleNamespace) -> None:
    store: Store = tournament.store
    tid = tournament.id
    store.add_matches(tid, [spec("m1")])
    answers = store.record_results(tid, [outcome("m1", b"one"), outcome("m1", b"two")])
    assert answers == [True, False]
    row = store.list_matches(tid)[0]
    assert gzip.decompress(store.replay_path(str(row.replay_hash)).read_bytes()) == b"one"
    assert player_rows(store) == 2


def test_a_bad_result_in_a_batch_records_nothing(tournament: SimpleNamespace) -> None:
    store: Store = tournament.store
    tid = tournament.id
    store.add_matches(tid, [spec("m1"), spec("m2")])
    with pytest.raises(StoreError, match="no match 'zz'"):
        store.record_results(tid, [outcome("m1"), outcome("zz")])
    with pytest.raises(StoreError, match="match 'm2': 3 ranks for 2 seats"):
        store.record_results(tid, [outcome("m1"), outcome("m2", ranks=[0, 1, 2])])
    assert store.count_matches(tid)["finished"] == 0
    assert player_rows(store) == 0
    assert store.record_results(tid, []) == []


def test_concurrent_batches_record_each_match_once(tournament: SimpleNamespace) -> None:
    """Eight recorders race with overlapping batches (as a resumed coordinator and a stale one might):
    every match is recorded by exactly one of them, with one set of players."""
    store: Store = tournament.store
    tid = tournament.id
    keys = [f"m{i}" for i in range(12)]
    store.add_matches(tid, [spec(k) for k in keys])
    won: dict[str, list[int]] = {k: [] for k in keys}
    errors: list[BaseException] = []
    barrier = threading.Barrier(8)

    def recorder(n: int) -> None:
        batch = keys[n % 3 :: 2] + keys[: n % 4]  # overlapping, in different orders
        try:
            barrier.wait()
            answers = store.record_results(tid, [outcome(k, f"{k} by {n}".encode()) for k in batch])
            for key, recorded in zip(batch, answers, strict=True):
                if recorded:
                    won[key].append(n)
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=recorder, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert all(len(winners) == 1 for winners in won.values()), won
    for row in store.list_matches(tid):
        replay = gzip.decompress(store.replay_path(str(row.replay_hash)).read_bytes())
        assert replay == f"{row.key} by {won[row.key][0]}".encode()
    assert player_rows(store) == 2 * len(keys)
