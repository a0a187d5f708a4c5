"""The coordinator's batching (issue 18, item 4): several short matches per executor task, long ones
one per task, a failure inside a batch dealt with per match, every match recorded exactly once with
the results an unbatched (inline) run gives."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import Any

import pytest

from botarena.runner.record import MatchRecord
from botarena.store import Store
from botarena.tournament import service
from botarena.tournament.executor import (
    DaskExecutor,
    MatchFailure,
    MatchTask,
    close_executor,
    executor_slots,
    make_executor,
    play_batch,
)
from botarena.tournament.service import Entrant, TournamentPlan, create_tournament, run_tournament

STARTERS = ("adaptive", "pacifist", "randomonium", "zergy")


@pytest.fixture
def store(db_url: str, tmp_path: Path) -> Iterator[Store]:
    store = Store.open(db_url, replay_dir=tmp_path / "replays")
    yield store
    store.close()


@pytest.fixture(scope="module")
def pool() -> Iterator[Executor]:
    """One process pool of 2 workers for the module's tests that play on a pool: none breaks it,
    and a worker's start (an interpreter importing botarena) is the slowest part of a short run."""
    executor = make_executor(2)
    yield executor
    close_executor(executor)


def plan(name: str, cycles: int) -> TournamentPlan:
    return TournamentPlan(
        name=name,
        game="drones",
        format="round-robin",
        entrants=[Entrant(s, s) for s in STARTERS],
        seed=3,
        options={"cycles": cycles},
    )


def results(store: Store, tournament_id: int) -> dict[str, tuple[Any, ...]]:
    return {
        row.key: (row.status, tuple(row.seats), row.ranks, row.scores, row.attempts)
        for row in store.list_matches(tournament_id)
    }


class RecordingExecutor(Executor):
    """Passes tasks on to `inner` and records the match keys of every batch submitted."""

    def __init__(self, inner: Executor, alter: Callable[[list[MatchTask], Any], Any] | None = None) -> None:
        self.inner = inner
        self.batches: list[list[str]] = []
        self.alter = alter
        self.slots = executor_slots(inner)  # as many as the executor it wraps

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        assert fn is play_batch
        tasks: list[MatchTask] = args[0]
        self.batches.append([task.key for task in tasks])
        future = self.inner.submit(fn, *args, **kwargs)
        if self.alter is None:
            return future
        altered: Future[Any] = Future()
        future.add_done_callback(lambda done: altered.set_result(self.alter(tasks, done.result())))  # type: ignore[misc]
        return altered

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.inner.shutdown(wait=wait, cancel_futures=cancel_futures)


class InlineExecutor(Executor):
    """Runs each submitted call at once in this thread (a stand-in for a pool in unit tests)."""

    slots = 2

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        future.set_result(fn(*args, **kwargs))
        return future


def test_short_matches_go_several_per_task_with_the_results_of_an_inline_run(
    store: Store, pool: Executor, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Any measured duration now asks for big batches: the batch sizes no longer depend on how
    # fast this machine plays (only on how many matches wait and the pool's slots).
    monkeypatch.setattr(service, "BATCH_TARGET_S", 1e9)
    inline = create_tournament(store, plan("inline", 4))
    assert run_tournament(store, inline.id).status == "finished"

    batched = create_tournament(store, plan("batched", 4))
    executor = RecordingExecutor(pool)
    summary = run_tournament(store, batched.id, executor)
    assert (summary.status, summary.played, summary.failed) == ("finished", 24, 0)
    sizes = [len(batch) for batch in executor.batches]
    assert max(sizes) > 1 and max(sizes) <= service.MAX_BATCH
    assert sizes[0] == 1  # before any match is measured, one match per task
    submitted = [key for batch in executor.batches for key in batch]
    assert sorted(submitted) == sorted(results(store, batched.id))  # each match submitted once
    assert results(store, batched.id) == results(store, inline.id)


def test_long_matches_go_one_per_task(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service, "BATCH_TARGET_S", 1e-9)  # every match is "long" against this target
    tournament = create_tournament(store, plan("long", 1))
    executor = RecordingExecutor(InlineExecutor())
    summary = run_tournament(store, tournament.id, executor)
    assert (summary.status, summary.played) == ("finished", 6)
    assert [len(batch) for batch in executor.batches] == [1] * 6


def test_the_tail_of_a_tournament_is_spread_over_every_slot(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch never takes more than its share of what waits, so no slot idles while another task
    holds the last matches."""
    monkeypatch.setattr(service, "BATCH_TARGET_S", 1e9)
    tournament = create_tournament(store, plan("tail", 10))  # 60 matches
    executor = RecordingExecutor(InlineExecutor())
    run_tournament(store, tournament.id, executor, max_in_flight=4)
    sizes = [len(batch) for batch in executor.batches]
    assert sum(sizes) == 60
    assert sizes[:4] == [1, 1, 1, 1]  # the first four slots filled before any match was measured
    left = 60 - 4
    for size in sizes[4:]:  # each later task: its share of what waits when it is sent
        assert size == max(1, min(service.MAX_BATCH, left // 4))
        left -= size


def failing(keys: dict[str, bool]) -> Callable[[list[MatchTask], Any], Any]:
    """An `alter` that turns the first result of each key in `keys` into a failure (retry or not)."""

    def alter(tasks: list[MatchTask], found: list[MatchRecord | MatchFailure]) -> Any:
        altered: list[MatchRecord | MatchFailure] = []
        for result in found:
            if result.key in keys:
                retry = keys.pop(result.key)
                altered.append(MatchFailure(result.key, "RuntimeError: the worker says no", retry))
            else:
                altered.append(result)
        return altered

    return alter


def test_a_failure_inside_a_batch_is_the_failing_matchs_alone(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(service, "BATCH_TARGET_S", 1e9)
    tournament = create_tournament(store, plan("failing", 2))  # 12 matches
    keys = sorted(results(store, tournament.id) or [])
    run_tournament(store, tournament.id, RecordingExecutor(InlineExecutor()), max_in_flight=1)
    rows = {row.key: row for row in store.list_matches(tournament.id)}
    keys = sorted(rows)
    assert all(row.status == "finished" for row in rows.values())

    again = create_tournament(store, plan("failing-again", 2))
    retried, final = keys[3], keys[7]
    executor = RecordingExecutor(InlineExecutor(), alter=failing({retried: True, final: False}))
    summary = run_tournament(store, again.id, executor, max_in_flight=1)
    assert (summary.status, summary.played, summary.failed) == ("finished", 11, 1)
    after = {row.key: row for row in store.list_matches(again.id)}
    assert after[retried].status == "finished" and after[retried].attempts == 2
    assert after[final].status == "failed" and after[final].attempts == 1
    assert after[final].error == "RuntimeError: the worker says no"
    assert any(len(batch) > 1 and retried in batch for batch in executor.batches)
    for key in keys:
        if key != final:
            assert (after[key].ranks, after[key].scores) == (rows[key].ranks, rows[key].scores)


def test_play_batch_plays_on_past_a_match_that_cannot_be_played() -> None:
    task = MatchTask(
        tournament_id=1, key="ok", game="drones", preset="default", overrides={}, seed=1,
        seats=("a", "b"), specs=("zergy", "pacifist"),
    )  # fmt: skip
    broken = MatchTask(
        tournament_id=1, key="bad", game="drones", preset="default", overrides={"no_such_key": 1},
        seed=1, seats=("a", "b"), specs=("zergy", "pacifist"),
    )  # fmt: skip
    found = play_batch([task, broken, task])
    assert [type(result).__name__ for result in found] == ["MatchRecord", "MatchFailure", "MatchRecord"]
    failure = found[1]
    assert isinstance(failure, MatchFailure)
    assert (
        failure.key == "bad" and failure.retry is False and failure.error.startswith("MatchTaskError: bad:")
    )
    first, third = found[0], found[2]
    assert isinstance(first, MatchRecord) and isinstance(third, MatchRecord)
    assert (first.ranks, first.scores) == (third.ranks, third.scores)  # the same seed, the same match


def test_a_dask_clusters_slots_are_its_worker_threads() -> None:
    """The coordinator keeps two tasks per slot in flight: on Dask the slots are the workers'
    threads (a fixed guess would starve a big cluster)."""
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=3, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        assert executor_slots(DaskExecutor(client)) == 3  # not the default of 2
    assert executor_slots(InlineExecutor()) == 2
    pool = make_executor(1)
    try:
        assert executor_slots(pool) == 1
    finally:
        close_executor(pool)


def test_local_pool_workers_write_the_replays_themselves(
    store: Store, pool: Executor, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On this machine's process pool, a directory store's replays are written by the workers: the
    coordinator records hashes and never handles the bytes (it is the one process every match's
    result passes through)."""
    if getattr(store.replays, "root", None) is None:
        pytest.skip("this store keeps its replays in the database")
    seen: list[Any] = []
    record_results = Store.record_results

    def spy(self: Store, tournament_id: int, results: Any) -> list[bool]:
        seen.extend(results)
        return record_results(self, tournament_id, results)

    monkeypatch.setattr(Store, "record_results", spy)
    tournament = create_tournament(store, plan("pool", 1))
    summary = run_tournament(store, tournament.id, pool)
    assert (summary.status, summary.played) == ("finished", 6)
    assert len(seen) == 6 and all(o.replay_gz == b"" and o.replay_hash for o in seen)
    for row in store.list_matches(tournament.id):
        assert row.replay_hash in {o.replay_hash for o in seen}
        assert store.load_replay(str(row.replay_hash)).seed == row.seed
