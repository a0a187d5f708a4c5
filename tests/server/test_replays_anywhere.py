"""The server shows every replay, wherever its match ran (issue 18, item 2).

A tournament plays on a Dask cluster of worker processes; its replays, bot logs included, go to the
database, or to a shared `file://` location the workers write themselves (the coordinator then
never receives the bytes). A server opened on the same database from another, empty working
directory serves every match's replay."""

from __future__ import annotations

import gzip
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import orjson
import pytest

from botarena.bots.resolve import untrusted
from botarena.core.replay import Replay
from botarena.runner.record import MatchRecord
from botarena.store import Store
from botarena.store.replays import ReplayBlobs, ReplayFiles
from botarena.tournament.executor import close_executor
from botarena.tournament.service import Entrant, TournamentPlan, create_tournament, run_tournament

from .conftest import Server, get, get_json

SHORT = {"rounds": 3, "turn_limit": 6}
CHATTY = '''"""A drones bot that logs every turn (the kit sends print() to stderr, the bot's log)."""
import sys


def act(obs):
    print(f"chatty sees turn {obs['turn']}")
    sys.stderr.write("chatty stderr line\\n")
    return {"newProducers": obs["producers"], "newSoldiers": 0, "launchAttack": False}
'''


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, host="127.0.0.1"
    ) as running:
        yield running


class Recording(Executor):
    """An executor that hands tasks to `inner` and keeps every MatchRecord its futures return,
    i.e. exactly what reached the coordinator."""

    def __init__(self, inner: Executor) -> None:
        self.inner = inner
        self.outcomes: list[MatchRecord] = []
        self._lock = threading.Lock()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future = self.inner.submit(fn, *args, **kwargs)
        future.add_done_callback(self._keep)
        return future

    def _keep(self, future: Future[Any]) -> None:
        if future.cancelled() or future.exception() is not None:
            return
        found = future.result()
        with self._lock:  # a batch of outcomes, or one
            self.outcomes.extend(found if isinstance(found, list | tuple) else [found])

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        close_executor(self.inner, cancel=cancel_futures)


def play_on_dask(store: Store, cluster: Any, bot: Path) -> tuple[int, Recording]:
    from botarena.tournament.executor import dask_executor

    plan = TournamentPlan(
        name="anywhere",
        game="drones",
        format="round-robin",
        entrants=[Entrant("chatty", str(bot)), Entrant("adaptive", "adaptive"), Entrant("zergy", "zergy")],
        seed=3,
        overrides=SHORT,
    )
    isolation = untrusted(sandbox=None)  # the sandbox on Dask workers is tested with the guarantees
    tournament = create_tournament(store, plan, isolation=isolation)
    executor = Recording(dask_executor(cluster.scheduler_address))
    try:
        summary = run_tournament(store, tournament.id, executor, isolation=isolation)
    finally:
        executor.shutdown()
    assert summary.status == "finished" and summary.played == 3 and summary.failed == 0, summary
    return tournament.id, executor


def served_replay(server: Server, match_id: int) -> Replay:
    status, headers, body = get(server.url + f"/api/matches/{match_id}/replay")
    assert status == 200, body[:200]
    assert headers.get("content-encoding") == "gzip"
    return Replay.from_json(orjson.loads(gzip.decompress(body)))


def assert_the_server_shows_them_all(server: Server, store: Store, tournament_id: int) -> None:
    rows = store.list_matches(tournament_id)
    assert len(rows) == 3 and all(r.status == "finished" and r.replay_hash for r in rows)
    for row in rows:
        replay = served_replay(server, row.id)
        assert replay.game == "drones" and replay.seed == row.seed
        names = [p["name"] for p in replay.players]
        assert names == list(row.seats)
        if "chatty" in names:  # its log survived the trip from the worker
            seat = names.index("chatty")
            text = "".join(log["text"] for log in replay.logs if log["seat"] == seat)
            assert "chatty sees turn 1" in text and "chatty stderr line" in text
    status, body = get_json(server.url + f"/api/tournaments/{tournament_id}")
    assert status == 200 and sum(r["played"] for r in body["leaderboard"]["rows"]) == 6


@pytest.fixture
def chatty(tmp_path: Path) -> Path:
    path = tmp_path / "bots" / "chatty.py"
    path.parent.mkdir()
    path.write_text(CHATTY)
    return path


@pytest.mark.timeout(300)
def test_replays_in_the_database_are_served_by_a_server_on_another_machine(
    db_url: str,
    backend: str,
    tmp_path: Path,
    cluster: Any,
    chatty: Path,
    start_server: Callable[..., Server],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with Store.open(db_url, replays="db") as coordinator:
        tournament_id, executor = play_on_dask(coordinator, cluster, chatty)
    assert len(executor.outcomes) == 3
    assert all(o.replay_gz and o.replay_hash is None for o in executor.outcomes)  # the bytes came back
    if backend == "sqlite":  # nothing went to the directory next to the database file
        assert not list((tmp_path / "db").rglob("*.json.gz"))

    elsewhere = tmp_path / "another-machine"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # no replay directory here, and none is needed
    # PostgreSQL's default is the database; a SQLite file says so explicitly
    with Store.open(db_url, replays="db" if backend == "sqlite" else None) as server_store:
        assert isinstance(server_store.replays, ReplayBlobs)
        assert_the_server_shows_them_all(start_server(server_store), server_store, tournament_id)
    assert not any(elsewhere.iterdir())


@pytest.mark.timeout(300)
def test_workers_write_replays_to_a_shared_location_and_the_coordinator_never_gets_the_bytes(
    db_url: str,
    tmp_path: Path,
    cluster: Any,
    chatty: Path,
    start_server: Callable[..., Server],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shared = (tmp_path / "nfs" / "replays").as_uri()
    with Store.open(db_url, replays=shared) as coordinator:
        tournament_id, executor = play_on_dask(coordinator, cluster, chatty)
    assert len(executor.outcomes) == 3
    assert all(o.replay_gz == b"" and o.replay_hash for o in executor.outcomes)  # only the hashes came back
    written = sorted(p.name for p in (tmp_path / "nfs" / "replays").rglob("*.json.gz"))
    assert written == sorted(f"{o.replay_hash}.json.gz" for o in executor.outcomes)

    elsewhere = tmp_path / "another-machine"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    with Store.open(db_url, replays=shared) as server_store:
        assert isinstance(server_store.replays, ReplayFiles) and server_store.replays.target == shared
        assert_the_server_shows_them_all(start_server(server_store), server_store, tournament_id)


class LosesTheFirstReplay(ThreadPoolExecutor):
    """Plays tasks in threads; the first replay written to the shared location vanishes before the
    coordinator checks it (an unmounted share, a disk cleaned under us)."""

    def __init__(self, root: Path) -> None:
        super().__init__(1)
        self.root = root
        self.lost: list[str] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        def play_and_lose() -> Any:
            outcomes = fn(*args, **kwargs)  # play_batch: a list, one per match of the batch
            if not self.lost:
                self.lost.append(outcomes[0].replay_hash)
                ReplayFiles(self.root).path(outcomes[0].replay_hash).unlink()
            return outcomes

        return super().submit(play_and_lose)


@pytest.mark.timeout(120)
def test_a_replay_missing_from_the_shared_location_means_the_match_is_played_again(tmp_path: Path) -> None:
    root = tmp_path / "nfs"
    with Store.open(f"sqlite:///{tmp_path / 'arena.db'}", replays=root.as_uri()) as store:
        plan = TournamentPlan(
            name="lossy", game="drones", format="round-robin",
            entrants=[Entrant("adaptive", "adaptive"), Entrant("zergy", "zergy")], seed=3, overrides=SHORT,
        )  # fmt: skip
        isolation = untrusted(sandbox=None)
        tournament = create_tournament(store, plan, isolation=isolation)
        executor = LosesTheFirstReplay(root)
        try:
            summary = run_tournament(store, tournament.id, executor, isolation=isolation)
        finally:
            executor.shutdown()
        (row,) = store.list_matches(tournament.id)
        assert summary.status == "finished" and row.status == "finished" and row.attempts == 2
        # recorded with the second attempt's replay (times differ: another hash), which is there
        assert len(executor.lost) == 1 and row.replay_hash and store.replays.exists(row.replay_hash)
        assert store.load_replay(row.replay_hash).seed == row.seed


def test_a_damaged_or_missing_replay_in_the_database_is_a_one_line_410_or_404(
    db_url: str, tmp_path: Path, start_server: Callable[..., Server]
) -> None:
    from sqlalchemy import delete, update

    from botarena.store.models import ReplayBlob

    with Store.open(db_url, replays="db") as store:
        a = store.register_bot("drones", "a", "adaptive")
        b = store.register_bot("drones", "b", "zergy")
        t = store.create_tournament(
            name="t", game="drones", format="round-robin", preset="default", config={}, seed=1,
            options={}, entrants=[("a", a.id), ("b", b.id)],
        )  # fmt: skip
        store.add_matches(t.id, [_Spec("damaged"), _Spec("gone")])
        for key in ("damaged", "gone"):
            store.record_result(
                t.id, key, ranks=[0, 1], scores=[1.0, 0.0], statuses=[{"OK": 1}] * 2, time_used_ms=[1.0] * 2,
                steps=1, duration_s=0.1, replay_gz=gzip.compress(key.encode(), mtime=0),
            )  # fmt: skip
        rows = {r.key: r for r in store.list_matches(t.id)}
        with store._engine.begin() as conn:
            damaged, gone = rows["damaged"].replay_hash, rows["gone"].replay_hash
            conn.execute(update(ReplayBlob).where(ReplayBlob.digest == damaged).values(data=b"forged"))
            conn.execute(delete(ReplayBlob).where(ReplayBlob.digest == gone))
        server = start_server(store)
        status, body = get_json(server.url + f"/api/matches/{rows['damaged'].id}/replay")
        assert status == 410 and body["detail"].endswith("is damaged (its content does not match its hash)")
        status, body = get_json(server.url + f"/api/matches/{rows['gone'].id}/replay")
        assert status == 404 and "replay not found" in body["detail"] and "\n" not in body["detail"]


class _Spec:
    """A MatchSpec-like object (the store reads .key .round .seats .seed)."""

    def __init__(self, key: str) -> None:
        self.key, self.round, self.seats, self.seed = key, 1, ("a", "b"), 7
