"""The store's contract on SQLite and PostgreSQL: bots, tournaments, matches, results, ratings."""

from __future__ import annotations

import dataclasses
import gzip
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import create_engine, inspect

from botarena.store import Store, StoreError

from .helpers import StoreFactory, result, spec

TABLES = {"bots", "bot_versions", "tournaments", "tournament_entrants", "matches", "match_players", "ratings"}


# ------------------------------------------------------------------------------- open / migrate


def test_migrate_from_empty_creates_every_table(db_url: str, open_store: StoreFactory) -> None:
    store = open_store()
    engine = create_engine(store.connect_url)
    try:
        assert TABLES | {"alembic_version"} <= set(inspect(engine).get_table_names())
    finally:
        engine.dispose()
    assert store.dialect in ("sqlite", "postgresql")
    assert store.list_tournaments() == []


def test_reopen_keeps_data_and_migrating_again_is_a_no_op(open_store: StoreFactory) -> None:
    first = open_store()
    bot = first.register_bot("drones", "a", "spec")
    first.close()
    again = open_store()  # migrate=True on a database at head
    assert again.register_bot("drones", "a", "spec") == bot
    checked = open_store(migrate=False)
    assert checked.register_bot("drones", "a", "spec") == bot


def test_migrate_false_on_an_empty_database_is_a_one_line_error(open_store: StoreFactory) -> None:
    with pytest.raises(StoreError, match="no botarena tables") as info:
        open_store(migrate=False)
    assert "\n" not in str(info.value)


def test_sqlite_runs_in_wal_mode_with_foreign_keys(backend: str, store: Store) -> None:
    if backend != "sqlite":
        pytest.skip("SQLite only")
    with store._engine.connect() as conn:  # the pragmas are per connection: ask one of the store's
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 1000


def test_default_url_is_sqlite_under_var(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(str(tmp_path))
    with Store.open() as store:
        assert store.dialect == "sqlite"
        assert store.url == "sqlite:///./var/botarena.db"
        assert store.replays.root.resolve() == (tmp_path / "var" / "replays").resolve()  # type: ignore[operator]
    assert (tmp_path / "var" / "botarena.db").exists()  # type: ignore[operator]


# ----------------------------------------------------------------------------------------- bots


def test_bot_versions(store: Store) -> None:
    first = store.register_bot("drones", "tactician", "pkg:tactician")
    assert (first.game, first.name, first.version, first.spec, first.digest) == (
        "drones",
        "tactician",
        1,
        "pkg:tactician",
        None,
    )
    assert first.created_at.tzinfo is not None
    assert store.register_bot("drones", "tactician", "pkg:tactician") == first
    second = store.register_bot("drones", "tactician", "pkg:tactician", digest="abc")
    third = store.register_bot("drones", "tactician", "other.py")
    assert (second.version, third.version) == (2, 3)
    assert second.bot_id == third.bot_id == first.bot_id
    assert second.digest == "abc"
    assert store.register_bot("drones", "tactician", "pkg:tactician", digest="abc") == second
    elsewhere = store.register_bot("domains", "tactician", "pkg:tactician")
    assert elsewhere.bot_id != first.bot_id
    assert elsewhere.version == 1


def test_concurrent_registrations_agree(store: Store) -> None:
    specs = ["one.py", "two.py", "one.py", "three.py", "two.py", "one.py"] * 2
    barrier = threading.Barrier(len(specs))

    def register(spec: str) -> tuple[str, int, int]:
        barrier.wait()
        row = store.register_bot("drones", "racer", spec)
        return spec, row.id, row.version

    with ThreadPoolExecutor(len(specs)) as pool:
        rows = set(pool.map(register, specs))
    assert len(rows) == 3  # one version per spec, whoever won each race
    assert sorted(version for _, _, version in rows) == [1, 2, 3]


def test_rows_are_frozen(store: Store) -> None:
    row = store.register_bot("drones", "a", "x")
    with pytest.raises(dataclasses.FrozenInstanceError):
        row.name = "b"  # type: ignore[misc]


# ---------------------------------------------------------------------------------- tournaments


def test_create_and_find_tournaments(tournament: SimpleNamespace) -> None:
    store: Store = tournament.store
    row = tournament.row
    assert (row.name, row.game, row.format, row.preset, row.seed, row.status) == (
        "cup",
        "drones",
        "round-robin",
        "default",
        42,
        "created",
    )
    assert row.config == {"rounds": 10, "nested": {"list": [1, 2.5, "x"]}}
    assert row.options == {"cycles": 2}
    assert [(e.name, e.version, e.spec) for e in row.entrants] == [
        ("a", 1, "botarena.games.drones.bots:tactician"),
        ("b", 1, "botarena.games.drones.bots:adaptive"),
    ]
    assert row.finished_at is None
    assert row.created_at.tzinfo == UTC
    assert store.get_tournament(row.id) == row
    assert store.get_tournament(row.id + 1000) is None
    assert store.find_tournament("cup") == row
    assert store.find_tournament("nope") is None

    version = row.entrants[0].bot_version_id
    later = store.create_tournament(
        name="cup", game="domains", format="swiss", preset=None, config={}, seed=1, options={},
        entrants=[("x", version)],
    )  # fmt: skip
    assert store.find_tournament("cup") == later  # the newest of that name
    assert [t.id for t in store.list_tournaments()] == [later.id, row.id]
    assert [t.id for t in store.list_tournaments("drones")] == [row.id]
    assert store.list_tournaments("craftingquest") == []


def test_tournament_status(tournament: SimpleNamespace) -> None:
    store: Store = tournament.store
    store.set_tournament_status(tournament.id, "running")
    running = store.get_tournament(tournament.id)
    assert running is not None and running.status == "running" and running.finished_at is None
    store.set_tournament_status(tournament.id, "finished")
    finished = store.get_tournament(tournament.id)
    assert finished is not None and finished.status == "finished" and finished.finished_at is not None
    with pytest.raises(StoreError, match="unknown tournament status 'done'"):
        store.set_tournament_status(tournament.id, "done")
    with pytest.raises(StoreError, match="no tournament 999"):
        store.set_tournament_status(999, "running")


def test_bad_entrants_are_one_line_errors(store: Store) -> None:
    bot = store.register_bot("drones", "a", "x")
    common: dict[str, Any] = {
        "game": "drones", "format": "round-robin", "preset": None, "config": {}, "seed": 0, "options": {},
    }  # fmt: skip
    with pytest.raises(StoreError, match="entrant 'a' is listed twice"):
        store.create_tournament(name="t", entrants=[("a", bot.id), ("a", bot.id)], **common)
    with pytest.raises(StoreError, match="no bot version 12345"):
        store.create_tournament(name="t", entrants=[("a", bot.id), ("b", 12345)], **common)
    with pytest.raises(StoreError, match="tournament 't': seed -9223372036854775809 does not fit"):
        store.create_tournament(name="t", entrants=[("a", bot.id)], **{**common, "seed": -(2**63) - 1})
    with pytest.raises(StoreError, match="not JSON serializable"):
        store.create_tournament(name="t", entrants=[("a", bot.id)], **{**common, "config": {"x": object()}})
    assert store.list_tournaments() == []


# -------------------------------------------------------------------------------------- matches


def test_add_matches_is_idempotent(tournament: SimpleNamespace) -> None:
    store: Store = tournament.store
    tid = tournament.id
    first = [spec("r02-m001", 2), spec("r01-m002", 1, ("b", "a"), 9), spec("r01-m001", 1)]
    assert store.add_matches(tid, first) == 3
    assert store.add_matches(tid, first) == 0
    changed = [spec("r01-m001", 1, ("b", "a"), 1234), spec("r02-m002", 2), spec("r02-m002", 2, seed=99)]
    assert store.add_matches(tid, changed) == 1  # the existing key untouched, the repeated key once
    assert store.add_matches(tid, []) == 0
    matches = store.list_matches(tid)
    assert [m.key for m in matches] == ["r01-m001", "r01-m002", "r02-m001", "r02-m002"]
    assert (matches[0].seats, matches[0].seed) == (["a", "b"], 7)
    assert (matches[1].seats, matches[1].seed, matches[1].round) == (["b", "a"], 9, 1)
    assert matches[3].seed == 7
    assert all(m.status == "scheduled" and m.attempts == 0 and m.ranks is None for m in matches)
    assert store.count_matches(tid) == {"scheduled": 4, "running": 0, "finished": 0, "failed": 0, "empty": 0}
    assert [m.key for m in store.list_matches(tid, limit=2, offset=1)] == ["r01-m002", "r02-m001"]
    assert [m.key for m in store.list_matches(tid, offset=3)] == ["r02-m002"]
    assert store.get_match(matches[2].id) == matches[2]
    assert store.get_match(matches[2].id + 1000) is None
    with pytest.raises(StoreError, match="no tournament 999"):
        store.add_matches(999, [spec("x")])
    with pytest.raises(StoreError, match="match 'big': seed 18446744073709551616 does not fit in 64 bits"):
        store.add_matches(tid, [spec("big", seed=2**64)])


def test_add_matches_in_large_batches(tournament: SimpleNamespace) -> None:
    store: Store = tournament.store
    specs = [spec(f"w{i // 10:04d}-m{i % 10:02d}", i // 10 + 1) for i in range(1234)]
    assert store.add_matches(tournament.id, specs[:700]) == 700
    assert store.add_matches(tournament.id, specs) == 534
    assert store.count_matches(tournament.id)["scheduled"] == 1234


def test_matches_of_every_tournament_and_by_status(tournament: SimpleNamespace) -> None:
    store: Store = tournament.store
    version = tournament.row.entrants[0].bot_version_id
    other = store.create_tournament(
        name="other", game="drones", format="ladder", preset=None, config={}, seed=1, options={},
        entrants=[("a", version)],
    )  # fmt: skip
    store.add_matches(tournament.id, [spec("m1"), spec("m2")])
    store.add_matches(other.id, [spec("m1", seats=("a", "a"))])
    store.mark_running(tournament.id, "m2")
    assert [(m.tournament_id, m.key) for m in store.list_matches()] == [
        (tournament.id, "m1"),
        (tournament.id, "m2"),
        (other.id, "m1"),
    ]
    assert [m.key for m in store.list_matches(tournament.id, status="running")] == ["m2"]
    assert len(store.list_matches(status=["running", "scheduled"])) == 3
    assert store.list_matches(other.id, status="finished") == []


def test_running_attempts_and_reset(tournament: SimpleNamespace) -> None:
    store: Store = tournament.store
    tid = tournament.id
    store.add_matches(tid, [spec("m1"), spec("m2"), spec("m3")])
    store.mark_running(tid, "m1")
    store.mark_running(tid, "m2")
    store.mark_running(tid, "m2")
    m2 = store.list_matches(tid)[1]
    assert (m2.status, m2.attempts) == ("running", 2)
    assert m2.started_at is not None and m2.started_at.tzinfo == UTC
    assert store.record_result(tid, "m1", **result())
    store.mark_running(tid, "m1")  # a finished match stays finished
    assert store.reset_running(tid) == 1
    assert store.count_matches(tid) == {"scheduled": 2, "running": 0, "finished": 1, "failed": 0, "empty": 0}
    assert store.reset_running(tid) == 0
    with pytest.raises(StoreError, match="no match 'zz' in tournament"):
        store.mark_running(tid, "zz")


def test_record_result_exactly_once(tournament: SimpleNamespace) -> None:
    store: Store = tournament.store
    tid = tournament.id
    store.add_matches(tid, [spec("m1", seats=("b", "a"))])
    store.mark_running(tid, "m1")
    fields = result(statuses=[{"OK": 9, "TIMEOUT": 1}, {"OK": 10}])
    assert store.record_result(tid, "m1", **fields) is True
    done = store.list_matches(tid)[0]
    assert done.status == "finished"
    assert (done.ranks, done.scores, done.time_used_ms) == ([0, 1], [2.0, 1.0], [1.5, 3.0])
    assert done.statuses == [{"OK": 9, "TIMEOUT": 1}, {"OK": 10}]
    assert (done.steps, done.duration_s, done.attempts, done.error) == (10, 0.25, 1, None)
    assert done.finished_at is not None and done.replay_hash is not None
    assert store.replay_path(done.replay_hash).read_bytes() == fields["replay_gz"]

    other = result(ranks=[1, 0], scores=[0.0, 5.0], replay=b"a different replay")
    assert store.record_result(tid, "m1", **other) is False
    assert store.list_matches(tid)[0] == done
    # the losing call's replay was never written: only the winner's file is in the replay directory
    assert [p.name for p in store.replays.root.rglob("*.json.gz")] == [f"{done.replay_hash}.json.gz"]


def test_record_result_rejects_unknown_matches_and_bad_lengths(tournament: SimpleNamespace) -> None:
    store: Store = tournament.store
    store.add_matches(tournament.id, [spec("m1")])
    with pytest.raises(StoreError, match="no match 'zz'"):
        store.record_result(tournament.id, "zz", **result())
    with pytest.raises(StoreError, match="3 ranks for 2 seats"):
        store.record_result(tournament.id, "m1", **result(ranks=[0, 1, 2]))
    assert store.list_matches(tournament.id)[0].status == "scheduled"


def test_concurrent_record_result_records_once(tournament: SimpleNamespace) -> None:
    store: Store = tournament.store
    tid = tournament.id
    keys = [f"m{i}" for i in range(4)]
    store.add_matches(tid, [spec(k) for k in keys])
    outcomes: dict[str, list[bool]] = {k: [] for k in keys}
    errors: list[BaseException] = []
    barrier = threading.Barrier(8)

    def worker(n: int) -> None:
        try:
            barrier.wait()
            for key in keys:
                ok = store.record_result(tid, key, **result(replay=f"{key} by {n}".encode()))
                outcomes[key].append(ok)
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert {k: sorted(v) for k, v in outcomes.items()} == {k: [False] * 7 + [True] for k in keys}
    for match in store.list_matches(tid):
        assert match.status == "finished" and match.ranks == [0, 1]
        assert match.replay_hash is not None
        replay = gzip.decompress(store.replay_path(match.replay_hash).read_bytes())
        assert replay.startswith(match.key.encode())
    engine = create_engine(store.connect_url)
    with engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM match_players").scalar() == 2 * len(keys)
    engine.dispose()


def test_record_failure_never_overrides_a_result(tournament: SimpleNamespace) -> None:
    store: Store = tournament.store
    tid = tournament.id
    store.add_matches(tid, [spec("m1"), spec("m2")])
    store.mark_running(tid, "m1")
    store.record_failure(tid, "m1", "worker lost\n" + "x" * 10_000)
    failed = store.list_matches(tid)[0]
    assert failed.status == "failed" and failed.error is not None and failed.error.startswith("worker lost")
    assert len(failed.error) <= 4000
    # a failed match can still be played again and finish
    store.mark_running(tid, "m1")
    assert store.record_result(tid, "m1", **result())
    finished = store.list_matches(tid)[0]
    assert (finished.status, finished.error, finished.attempts) == ("finished", None, 2)
    store.record_failure(tid, "m1", "late failure")
    assert store.list_matches(tid)[0] == finished
    with pytest.raises(StoreError, match="no match 'zz'"):
        store.record_failure(tid, "zz", "boom")


# -------------------------------------------------------------------------------------- ratings


def test_ratings_save_and_load(tournament: SimpleNamespace) -> None:
    store: Store = tournament.store
    tid = tournament.id
    assert store.ratings(tid) == []
    store.save_ratings(
        tid,
        [
            SimpleNamespace(name="b", mu=20.0, sigma=5.0, ordinal=5.0, played=3),
            SimpleNamespace(name="a", mu=30.0, sigma=4.0, ordinal=18.0, played=3),
            SimpleNamespace(name="c", mu=20.0, sigma=5.0, ordinal=5.0, played=2),
        ],
    )
    assert [(r.name, r.mu, r.sigma, r.ordinal, r.played) for r in store.ratings(tid)] == [
        ("a", 30.0, 4.0, 18.0, 3),
        ("b", 20.0, 5.0, 5.0, 3),
        ("c", 20.0, 5.0, 5.0, 2),
    ]
    store.save_ratings(tid, [SimpleNamespace(name="a", mu=31.0, sigma=3.0, ordinal=22.0, played=4)])
    assert [(r.name, r.played) for r in store.ratings(tid)] == [("a", 4)]
    with pytest.raises(StoreError, match="no tournament 999"):
        store.save_ratings(999, [])


# -------------------------------------------------------------------------------------- replays


def test_replay_files_are_content_addressed(store: Store) -> None:
    import hashlib

    data = gzip.compress(b'{"format": "botarena.replay"}', mtime=0)
    digest = store.replays.write(data)
    assert digest == hashlib.sha256(data).hexdigest()
    path = store.replay_path(digest)
    assert path == store.replays.root / digest[:2] / f"{digest}.json.gz"
    assert path.read_bytes() == data
    assert store.replays.write(data) == digest  # idempotent
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary files left
    with pytest.raises(StoreError, match="not a replay hash"):
        store.replay_path("../../etc/passwd")


# ------------------------------------------------------------------------------------- bad URLs


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("not a url", "not a database URL: 'not a url'"),
        ("mysql://u:secret@host/db", "unsupported database 'mysql'"),
        ("postgresql://botarena:secret@127.0.0.1:1/none", "cannot open postgresql+psycopg://botarena:***@"),
        ("sqlite:////proc/botarena/db.sqlite", "cannot create /proc/botarena"),
        ("sqlite:////proc/version", "cannot open sqlite:////proc/version"),
    ],
)
def test_bad_urls_are_one_line_store_errors(url: str, message: str, tmp_path: object) -> None:
    with pytest.raises(StoreError) as info:
        Store.open(url, replay_dir=str(tmp_path))
    text = str(info.value)
    assert message in text
    assert "\n" not in text and "secret" not in text


def test_an_unwritable_replay_directory_is_a_store_error(db_url: str) -> None:
    with pytest.raises(StoreError, match="cannot create the replay directory /proc/replays"):
        Store.open(db_url, replay_dir="/proc/replays")


def test_the_shown_url_hides_the_password(backend: str, store: Store) -> None:
    if backend == "sqlite":
        assert store.url == store.connect_url and store.url.startswith("sqlite:///")
    else:
        assert store.url.startswith("postgresql+psycopg://") and "***" in store.url
        assert ":***@" not in store.connect_url
    assert store.url in repr(store)


def test_postgresql_urls_get_the_psycopg_driver() -> None:
    from botarena.store.engine import normalize_url

    for url in ("postgresql://u:p@h/db", "postgres://u:p@h/db", "postgresql+psycopg://u:p@h/db"):
        assert normalize_url(url).drivername == "postgresql+psycopg"
    with pytest.raises(StoreError, match="unsupported database 'postgresql\\+psycopg2'"):
        normalize_url("postgresql+psycopg2://u:p@h/db")
