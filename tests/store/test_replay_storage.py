"""Where a store keeps its replays (store/replays.py): a directory, a shared `file://` location or the
database, on SQLite and PostgreSQL (issue 18, item 2). Every kind writes idempotently by content
hash, reads back only bytes that match their hash, and says what is wrong in one line."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from sqlalchemy import func, select, update

from botarena.store import Store, StoreError
from botarena.store.models import ReplayBlob
from botarena.store.replays import (
    ReplayBlobs,
    ReplayDamaged,
    ReplayFiles,
    ReplayMissing,
    replay_hash,
    ship_replay,
)

from .helpers import StoreFactory, result, spec

KINDS = ["db", "dir", "shared"]
DATA = gzip.compress(b'{"format": "botarena.replay"}', mtime=0)
ABSENT = "0" * 64


def replays_of(kind: str, tmp_path: Path) -> str:
    """The `replays=` value of each kind."""
    if kind == "db":
        return "db"
    if kind == "dir":
        return str(tmp_path / "own")
    return (tmp_path / "nfs").as_uri()  # file:///.../nfs


@pytest.fixture(params=KINDS)
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def store(open_store: StoreFactory, kind: str, tmp_path: Path) -> Store:
    return open_store(replay_dir=None, replays=replays_of(kind, tmp_path))


def blob_rows(store: Store) -> int:
    with store._engine.connect() as conn:
        return int(conn.scalar(select(func.count()).select_from(ReplayBlob)) or 0)


def test_the_kind_named_is_the_kind_used(store: Store, kind: str, tmp_path: Path) -> None:
    if kind == "db":
        assert isinstance(store.replays, ReplayBlobs) and store.replays.target is None
    else:
        assert isinstance(store.replays, ReplayFiles)
        root = tmp_path / ("own" if kind == "dir" else "nfs")
        assert store.replays.root == root and root.is_dir()  # created at open
        # only a location given as a URL is shared: workers write there themselves
        assert store.replays.target == (root.as_uri() if kind == "shared" else None)


def test_writes_are_idempotent_by_content(store: Store, kind: str) -> None:
    digest = store.replays.write(DATA)
    assert digest == replay_hash(DATA)
    assert store.replays.write(DATA) == digest  # again: nothing changes, no error
    assert store.replays.exists(digest) and store.read_replay(digest) == DATA
    if kind == "db":
        assert blob_rows(store) == 1
    else:
        assert isinstance(store.replays, ReplayFiles)
        assert [p.name for p in store.replays.root.rglob("*.json.gz")] == [f"{digest}.json.gz"]


def test_a_missing_replay_is_a_one_line_error(store: Store) -> None:
    assert not store.replays.exists(ABSENT)
    with pytest.raises(ReplayMissing, match=r"^replay not found: 0{64} is not in ") as caught:
        store.read_replay(ABSENT)
    assert "\n" not in str(caught.value)
    with pytest.raises(StoreError, match="not a replay hash"):
        store.read_replay("../../etc/passwd")  # a hash is a name, never a path


def test_a_damaged_replay_is_detected_on_read(store: Store, kind: str) -> None:
    digest = store.replays.write(DATA)
    tampered = gzip.compress(b'{"format": "botarena.replay", "forged": 1}', mtime=0)
    if kind == "db":
        with store._engine.begin() as conn:
            conn.execute(update(ReplayBlob).where(ReplayBlob.digest == digest).values(data=tampered))
    else:
        assert isinstance(store.replays, ReplayFiles)
        store.replays.path(digest).write_bytes(tampered)
    with pytest.raises(ReplayDamaged, match=f"replay {digest} in .* is damaged"):
        store.read_replay(digest)


def test_record_result_keeps_the_replay_where_the_store_keeps_them(store: Store) -> None:
    a = store.register_bot("drones", "a", "pkg:a")
    b = store.register_bot("drones", "b", "pkg:b")
    t = store.create_tournament(
        name="t", game="drones", format="round-robin", preset="default", config={}, seed=1,
        options={}, entrants=[("a", a.id), ("b", b.id)],
    )  # fmt: skip
    store.add_matches(t.id, [spec("m1"), spec("m2"), spec("m3")])
    fields = result(replay=b"the replay of m1")
    assert store.record_result(t.id, "m1", **fields)
    row = store.get_match(store.list_matches(t.id)[0].id)
    assert row is not None and row.replay_hash == replay_hash(fields["replay_gz"])
    assert store.read_replay(row.replay_hash) == fields["replay_gz"]
    assert gzip.decompress(store.read_replay(row.replay_hash)) == b"the replay of m1"

    # a worker that wrote the replay itself sends only its hash: recorded once it is there...
    written = store.replays.write(DATA)
    assert store.record_result(t.id, "m2", **{**result(), "replay_gz": b""}, replay_hash=written)
    # ...and refused (the match stays unfinished, to be played again) when it is not
    with pytest.raises(ReplayMissing, match=r"match 'm3': its replay 0{64} is not in "):
        store.record_result(t.id, "m3", **{**result(), "replay_gz": b""}, replay_hash=ABSENT)
    statuses = {m.key: (m.status, m.replay_hash) for m in store.list_matches(t.id)}
    assert statuses["m2"] == ("finished", written) and statuses["m3"] == ("scheduled", None)


def test_the_default_is_the_database_on_postgresql_and_files_next_to_sqlite(
    db_url: str, backend: str, tmp_path: Path
) -> None:
    with Store.open(db_url) as store:
        if backend == "postgresql":  # every machine that reaches the database sees the replays
            assert isinstance(store.replays, ReplayBlobs)
            with pytest.raises(StoreError, match="not in files"):
                store.replay_path(ABSENT)
        else:
            assert isinstance(store.replays, ReplayFiles)
            assert store.replays.root == tmp_path / "db" / "replays" and store.replays.target is None
    with Store.open(db_url, replay_dir=tmp_path / "mine") as store:  # as before: tests use it
        assert isinstance(store.replays, ReplayFiles) and store.replays.root == tmp_path / "mine"


@pytest.mark.parametrize(
    ("replays", "message"),
    [
        ("s3://bucket/replays", r"unsupported replay location 's3://bucket/replays'"),
        ("http://host/replays", "unsupported replay location"),
        ("file://nfs-host/replays", r"bad replay location 'file://nfs-host/replays': write file:///"),
        ("file:relative/dir", "bad replay location"),
        ("file:///srv/replays?mode=rw", "bad replay location"),
        ("  ", "empty replay location"),
    ],
)
def test_bad_replay_locations_are_one_line_errors(db_url: str, replays: str, message: str) -> None:
    with pytest.raises(StoreError, match=message) as caught:
        Store.open(db_url, replays=replays)
    assert "\n" not in str(caught.value)


def test_an_unwritable_location_and_two_locations_are_refused(db_url: str, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    with pytest.raises(StoreError, match="cannot create the replay directory"):
        Store.open(db_url, replays=(blocker / "replays").as_uri())
    with pytest.raises(StoreError, match="not both"):
        Store.open(db_url, replays="db", replay_dir=tmp_path / "r")


def test_a_worker_ships_its_replay_to_a_shared_location_and_sends_only_the_hash(tmp_path: Path) -> None:
    assert ship_replay(None, DATA) == (DATA, None)  # no shared location: the bytes go back
    shared = tmp_path / "nfs"
    shared.mkdir()
    sent, digest = ship_replay(shared.as_uri(), DATA)
    assert sent == b"" and digest == replay_hash(DATA)
    assert ReplayFiles(shared).read(digest) == DATA
    # a location not mounted on the worker is refused, not created there (no one else would see it)
    with pytest.raises(StoreError, match=r"shared replay location file:///.*/gone is not on this machine"):
        ship_replay((tmp_path / "gone").as_uri(), DATA)
    assert not (tmp_path / "gone").exists()


def replay_of(match_id: str, text: str) -> bytes:
    """A replay's gzip bytes naming `match_id` (what the sweep reads of an unreferenced replay)."""
    from botarena.core.replay import Replay

    replay = Replay("drones", "drones_v1", "default", {}, 1, [], match_id=match_id, logs=[{"text": text}])
    return gzip.compress(replay.dumps(), mtime=0)


def test_only_unreferenced_replays_of_the_matches_named_are_removed(store: Store) -> None:
    """Issue 25: replays written for tries that were never recorded go; none that a match references,
    none of another match, and nothing that is no replay, whatever kind of storage keeps them."""
    a = store.register_bot("drones", "a", "pkg:a")
    b = store.register_bot("drones", "b", "pkg:b")
    t = store.create_tournament(
        name="t", game="drones", format="round-robin", preset="default", config={}, seed=1,
        options={}, entrants=[("a", a.id), ("b", b.id)],
    )  # fmt: skip
    store.add_matches(t.id, [spec("m1"), spec("m2")])
    recorded = replay_of("t1-m1", "the try that was recorded")
    assert store.record_result(t.id, "m1", **{**result(), "replay_gz": recorded})
    superseded = store.replays.write(replay_of("t1-m1", "an earlier try, never recorded"))
    unrecorded = store.replays.write(replay_of("t1-m2", "a try its coordinator died before recording"))
    others = store.replays.write(replay_of("t9-m2", "another tournament's, never recorded"))
    junk = store.replays.write(DATA)  # no replay at all: not the sweep's to judge
    store.postpone(
        t.id, "m2", "ArtifactCacheError: the artifact cache at /c is full: No space left on device"
    )
    row = store.find_match(t.id, "m2")
    assert row is not None and row.status == "scheduled" and row.error and row.error.startswith("Artifact")

    assert store.remove_unrecorded_replays(["t1-m1", "t1-m2"]) == 2
    left = set(store.replays.digests())
    assert left == {replay_hash(recorded), others, junk}
    assert superseded not in left and unrecorded not in left
    assert store.remove_unrecorded_replays(["t1-m1", "t1-m2"]) == 0  # nothing more to remove
    assert store.read_replay(replay_hash(recorded)) == recorded
