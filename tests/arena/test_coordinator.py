"""The arena coordinator (specs/arena.md: Coordinator, Validation, Scheduler, Ratings, Version states;
goals G3, G4, G11): validation verdicts with their codes, rated matches filled as results arrive,
ratings equal to `rerate`, one transaction for a result and its rating, the lock, crash streaks,
platform failures retried and never rated.

Matches are real sealed drones matches (rounds=1) of versions built as the upload route builds them
(tests/arena/arena_world.py). Where a test must know what is in flight, the executor is a manual one
whose tasks run when the test says (`ManualExecutor`); elsewhere a process pool of 2. Every wait is on
store state (tests/waiting.py)."""

from __future__ import annotations

import os
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, select, update

from botarena.arena.coordinator import ArenaCoordinator, CoordinatorOptions, RunSummary
from botarena.arena.rerating import rebuild
from botarena.core.credentials import WorkerSecrets
from botarena.store import Store
from botarena.store import arena_runs as arena_runs_module
from botarena.store.arena_runs import ArenaRunStore, CoordinatorBusy, RatedWrite, RatingWrite
from botarena.store.models import ArenaCoordinator as LockRow
from botarena.store.models import MatchPlayer, RatingHistory, utcnow
from botarena.tournament.executor import WorkerPool, close_executor, make_executor
from waiting import wait_until

from .arena_world import (
    ATTACKER,
    CONFIG,
    CRASH_AT_START,
    CRASHER,
    PATIENT,
    STALLER,
    STARTER,
    TIMEOUT,
    World,
    open_world,
)
from .coordinating import drive

FAST = CoordinatorOptions(poll_s=0.05, heartbeat_s=0.5)


@pytest.fixture
def store(db_url: str, tmp_path: Any) -> Iterator[Store]:
    opened = Store.open(db_url, replay_dir=tmp_path / "replays")
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture
def sqlite_store(tmp_path: Any) -> Iterator[Store]:
    opened = Store.open(f"sqlite:///{tmp_path / 'arena.db'}", replay_dir=tmp_path / "replays")
    try:
        yield opened
    finally:
        opened.close()


class Running:
    """A coordinator running in a thread over a process pool of 2, stopped at the end."""

    def __init__(self, coordinator: ArenaCoordinator, thread: threading.Thread) -> None:
        self.coordinator = coordinator
        self.thread = thread
        self.summary: RunSummary | None = None
        self.error: BaseException | None = None


@contextmanager
def running(world: World, **kwargs: Any) -> Iterator[Running]:
    secrets = WorkerSecrets.of(world.store.connect_url)

    def factory() -> Executor:
        return make_executor(2, credentials=secrets)

    executor = factory()
    stop = threading.Event()
    coordinator = ArenaCoordinator(
        world.store, world.competition.id, executor, executor_factory=factory, stop=stop,
        options=kwargs.pop("options", FAST), **kwargs,
    )  # fmt: skip
    handle = Running(coordinator, threading.Thread())

    def run() -> None:
        try:
            handle.summary = coordinator.run()
        except BaseException as exc:  # reported by the test below
            handle.error = exc

    handle.thread = threading.Thread(target=run, name="arena-coordinator", daemon=True)
    handle.thread.start()
    try:
        yield handle
    finally:
        stop.set()
        handle.thread.join(timeout=60)
        close_executor(coordinator.executor, cancel=True)
        close_executor(executor, cancel=True)
    assert handle.error is None, handle.error


def states(world: World) -> dict[int, tuple[str, str | None]]:
    return {v.id: (v.state, v.reason_code) for v in world.runs.versions(world.competition.id)}


def settled(world: World, versions: list[int]) -> Callable[[], bool]:
    def look() -> bool:
        found = states(world)
        return all(found[v][0] in ("active", "rejected") for v in versions)

    return look


def rated_finished(world: World) -> int:
    return len(world.runs.matches(world.competition.tournament_id, statuses=["finished"], kind="rated"))


def seats_of(world: World, version: int) -> set[int]:
    matches = world.runs.matches(world.competition.tournament_id, kind="validation")
    return {seat for m in matches for seat, v in m.versions.items() if v == version}


# ---------------------------------------------------------------------------------- validation


@pytest.mark.timeout(300)
def test_validation_passes_and_rejects_with_the_right_codes_in_both_seats(sqlite_store: Store) -> None:
    world = open_world(sqlite_store, 5)
    good = world.upload(world.teams[0], STARTER)
    crasher = world.upload(world.teams[1], CRASHER)
    dead = world.upload(world.teams[2], CRASH_AT_START)
    slow = world.upload(world.teams[3], TIMEOUT)
    stalled = world.upload(world.teams[4], STALLER)
    everyone = [good, crasher, dead, slow, stalled]
    with running(world):
        wait_until(settled(world, everyone), "every version judged", seen=lambda: states(world))
    found = states(world)
    assert found[good] == ("active", None)
    assert found[crasher] == ("rejected", "crashed")
    assert found[dead] == ("rejected", "crashed_at_start")
    assert found[slow] == ("rejected", "timeout")
    assert found[stalled][0] == "rejected" and found[stalled][1] in ("timeout", "crashed_at_start")
    for version in everyone:
        assert seats_of(world, version) == {0, 1}  # one validation game in each seat order
    rejected = world.version(crasher)
    assert rejected.reason.startswith("CRASHED (bot_error) at step")
    assert "crasher gives up at turn 2" in rejected.reason
    with world.store.read_session("test") as session:
        from botarena.store.models import Version

        log = session.get(Version, crasher).log
    assert "crasher gives up at turn 2" in log  # its own stderr, kept on the version


@pytest.mark.timeout(300)
def test_a_newer_ready_version_replaces_the_active_one_which_retires(sqlite_store: Store) -> None:
    world = open_world(sqlite_store, 2)
    first = world.upload(world.teams[0], STARTER)
    rival = world.upload(world.teams[1], ATTACKER)
    with running(world):
        wait_until(settled(world, [first, rival]), "the first versions active", seen=lambda: states(world))
        wait_until(lambda: rated_finished(world) >= 2, "two rated matches")
        second = world.upload(world.teams[0], ATTACKER + "\n# v2\n")
        wait_until(
            lambda: states(world)[second][0] == "active", "the new version active", seen=lambda: states(world)
        )
    found = states(world)
    assert found[first][0] == "retired" and found[second][0] == "active"
    assert world.version(second).inherits_from == first
    assert rebuild(world.store, world.competition.id).equal


# ----------------------------------------------------------------------- rated matches, no waves


class ManualExecutor(Executor):
    """An executor whose tasks run only when the test runs them (in the test's thread)."""

    slots = 2

    def __init__(self) -> None:
        self.pending: list[tuple[Future[Any], Callable[..., Any], tuple[Any, ...]]] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        self.pending.append((future, fn, args))
        return future

    def run_first(self) -> Future[Any]:
        future, fn, args = self.pending.pop(0)
        future.set_result(fn(*args))
        return future


@pytest.mark.timeout(300)
def test_g4_a_result_starts_the_next_match_at_once_while_the_others_play(sqlite_store: Store) -> None:
    """No waves: when one of two matches in flight ends, the next turn starts a new one while the
    other is still unfinished (and the 2 x C cap is kept)."""
    world = open_world(sqlite_store, 4)
    versions = world.upload_all(STARTER, ATTACKER, STARTER, ATTACKER)
    executor = ManualExecutor()
    coordinator = ArenaCoordinator(world.store, world.competition.id, executor, options=FAST)
    coordinator.start()
    drive(coordinator, executor, settled(world, versions))
    drive(coordinator, executor, lambda: len(coordinator.tasks) == 2)  # two rated matches at once
    before = set(coordinator.tasks)
    finished = executor.run_first()
    (still_running,) = before - {finished}
    coordinator.tick()
    after = set(coordinator.tasks)
    assert finished not in after and still_running in after and not still_running.done()
    assert len(after) == 2 and after - before  # a new task at once, beside the one still playing
    assert len(coordinator.tasks) <= 2 * executor.slots
    coordinator.close()


@pytest.mark.timeout(600)
def test_g3_rated_matches_play_continuously_and_ratings_equal_rerate(store: Store) -> None:
    world = open_world(store, 4)
    versions = world.upload_all(STARTER, ATTACKER, STARTER, ATTACKER)
    with running(world):
        wait_until(lambda: rated_finished(world) >= 8, "8 rated matches", seen=lambda: states(world))
    report = rebuild(world.store, world.competition.id)
    assert report.results >= 8 and report.equal, report.differing
    assert set(report.stored) == set(versions)
    history = world.runs.rating_history(world.competition.id)
    rated = world.runs.matches(world.competition.tournament_id, statuses=["finished"], kind="rated")
    assert len(history) == 2 * len(rated)  # each rated result rated once, both seats
    for version in versions:
        assert world.version(version).first_rated_match_at is not None
    with world.store.read_session("test") as session:
        linked = session.scalar(
            select(func.count()).select_from(MatchPlayer).where(MatchPlayer.bot_version_id.is_not(None))
        )
    finished = world.runs.matches(world.competition.tournament_id, statuses=["finished"])
    assert linked == sum(len(match.versions) for match in finished)  # every version's seat, no opponent's


def test_rerate_skips_voided_matches_and_write_makes_it_equal(sqlite_store: Store) -> None:
    world = open_world(sqlite_store, 2)
    versions = world.upload_all(STARTER, ATTACKER)
    executor = ManualExecutor()
    coordinator = ArenaCoordinator(world.store, world.competition.id, executor, options=FAST)
    coordinator.start()
    drive(coordinator, executor, lambda: rated_finished(world) >= 3)
    coordinator.close()
    assert rebuild(world.store, world.competition.id).equal
    first = world.runs.matches(world.competition.tournament_id, statuses=["finished"], kind="rated")[0]
    from botarena.store.models import Match

    with world.store.write_session("test") as session:
        session.execute(update(Match).where(Match.id == first.id).values(voided=True))
    report = rebuild(world.store, world.competition.id)
    assert report.voided == 1 and not report.equal and set(report.differing) == set(versions)
    from botarena.arena.rerating import write

    write(world.store, world.competition.id, report)
    assert rebuild(world.store, world.competition.id).equal


# ------------------------------------------------------------------- one transaction (G11)


def test_g11_a_result_and_its_rating_commit_together_or_not_at_all(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failure between the result and the rating writes leaves neither: the match stays unfinished,
    no history, no rating change, the epoch unmoved."""
    world = open_world(store, 2)
    versions = world.upload_all(STARTER, ATTACKER)
    executor = ManualExecutor()
    coordinator = ArenaCoordinator(world.store, world.competition.id, executor, options=FAST)
    coordinator.start()
    drive(coordinator, executor, lambda: len(coordinator.tasks) == 1 and all(
        p.kind == "rated" for t in coordinator.tasks.values() for p in t.plans
    ))  # fmt: skip
    epoch = world.arena.get_competition(world.competition.id).rating_epoch
    ratings = world.runs.ratings(world.competition.id)

    def broken(conn: Any, competition_id: int) -> None:
        raise RuntimeError("the machine died here")

    monkeypatch.setattr(arena_runs_module, "_bump_epoch", broken)
    executor.run_first()
    with pytest.raises(Exception, match="the machine died here"):
        coordinator.tick()
    assert rated_finished(world) == 0
    assert world.runs.rating_history(world.competition.id) == []
    assert world.runs.ratings(world.competition.id) == ratings
    assert world.arena.get_competition(world.competition.id).rating_epoch == epoch
    assert all(world.version(v).first_rated_match_at is None for v in versions)
    monkeypatch.undo()
    coordinator.close()


def test_g11_record_rated_is_exactly_once(store: Store) -> None:
    world = open_world(store, 2)
    versions = world.upload_all(STARTER, ATTACKER)
    runs = ArenaRunStore(world.store)
    tournament = world.competition.tournament_id
    runs.add_match(
        tournament, key="m1", round=1, seats=["a", "b"], seed=1, kind="rated", reason="deficit",
        versions={0: versions[0], 1: versions[1]},
    )  # fmt: skip
    from botarena.arena.rating import HistoryRow
    from botarena.runner.record import MatchRecord

    record = MatchRecord("m1", [1, 2], [1.0, 0.0], [{"OK": 3}, {"OK": 3}], [1.0, 1.0], 3, 0.1, b"x", None)
    write = RatedWrite(
        [RatingWrite(versions[0], 26.0, 8.0, 1), RatingWrite(versions[1], 24.0, 8.0, 1)],
        [HistoryRow(0, versions[0], 25.0, 8.3, 26.0, 8.0), HistoryRow(0, versions[1], 25.0, 8.3, 24.0, 8.0)],
    )
    assert runs.record_rated(tournament, world.competition.id, [record], {"m1": write}) == [True]
    assert runs.record_rated(tournament, world.competition.id, [record], {"m1": write}) == [False]
    assert len(runs.rating_history(world.competition.id)) == 2
    assert world.arena.get_competition(world.competition.id).rating_epoch == 1


# ------------------------------------------------------------------------------------ the lock


def test_the_lock_refuses_a_second_coordinator_and_takes_over_a_stale_one(store: Store) -> None:
    world = open_world(store, 1)
    runs = ArenaRunStore(world.store)
    cid = world.competition.id
    host = socket.gethostname()

    def alive(host: str, pid: int) -> bool:
        return True

    runs.claim_coordinator(
        cid, host=host, pid=os.getpid(), owner="first", stale_s=15, alive=lambda h, p: True
    )
    with pytest.raises(
        CoordinatorBusy, match=rf"competition {cid} already has a coordinator \({host}, {os.getpid()}\)"
    ):
        runs.claim_coordinator(cid, host=host, pid=1, owner="second", stale_s=15, alive=lambda h, p: True)
    # its process gone: taken over at once
    taken = runs.claim_coordinator(cid, host=host, pid=2, owner="third", stale_s=15, alive=lambda h, p: False)
    assert taken is not None and taken.owner == "first"
    assert not runs.heartbeat(cid, "first") and runs.heartbeat(cid, "third")
    # its heartbeat stale (another host, which cannot be asked): taken over
    with world.store.write_session("test") as session:
        session.execute(
            update(LockRow).values(host="elsewhere", heartbeat_at=utcnow() - timedelta(seconds=60))
        )
    taken = runs.claim_coordinator(cid, host=host, pid=3, owner="fourth", stale_s=15, alive=alive)
    assert taken is not None and taken.host == "elsewhere"


def test_a_running_coordinator_refuses_a_second_one(sqlite_store: Store) -> None:
    world = open_world(sqlite_store, 1)
    executor = ManualExecutor()
    first = ArenaCoordinator(world.store, world.competition.id, executor, options=FAST)
    stop = threading.Event()
    first.stop = stop
    thread = threading.Thread(target=first.run, daemon=True)
    thread.start()
    try:
        wait_until(lambda: ArenaRunStore(world.store).lock_holder(world.competition.id), "the lock taken")
        second = ArenaCoordinator(world.store, world.competition.id, ManualExecutor(), options=FAST)
        with pytest.raises(CoordinatorBusy, match="already has a coordinator"):
            second.run()
    finally:
        stop.set()
        thread.join(timeout=30)
    assert ArenaRunStore(world.store).lock_holder(world.competition.id) is None  # released at the end


# ------------------------------------------------------------------- crash streaks, phases


@pytest.mark.timeout(300)
def test_a_crash_streak_pauses_the_version(sqlite_store: Store) -> None:
    """A version that passes validation (one timeout allowed per game here) but times out in every
    rated match is paused with reason crash_streak after `crash_streak` of its last `crash_window`.

    Its one slow turn overshoots a 2 s limit by 0.2 s, so its next (instant) turn, answered once the
    late one is, still has 1.8 s to spare: a loaded machine cannot add timeouts (CI's 300 ms did)."""
    flaky = TIMEOUT.replace("time.sleep(1.0)", "time.sleep(2.2 if obs['turn'] == 1 else 0)")
    config = {**CONFIG, "turn_timeout_ms": 2000}
    policy = {"crash_streak": 2, "crash_window": 3, "max_timeout_fraction": 0.5}
    world = open_world(sqlite_store, 2, config=config, **policy)
    steady = world.upload(world.teams[0], STARTER)
    shaky = world.upload(world.teams[1], flaky)
    with running(world):
        wait_until(
            lambda: states(world)[shaky] == ("paused", "crash_streak"),
            "the pause",
            240,
            seen=lambda: states(world),
        )
    assert states(world)[steady][0] == "active"
    rated = world.runs.matches(world.competition.tournament_id, statuses=["finished"], kind="rated")
    assert len(rated) == 2  # paused after exactly its 2nd bad match: nothing more was scheduled for it


def test_phase_paused_schedules_nothing_new(sqlite_store: Store) -> None:
    world = open_world(sqlite_store, 2)
    world.upload_all(STARTER, ATTACKER)
    world.arena.update_competition(world.competition.id, actor="test", phase="paused")
    executor = ManualExecutor()
    coordinator = ArenaCoordinator(world.store, world.competition.id, executor, options=FAST)
    coordinator.start()
    for _ in range(5):
        coordinator.tick()
    assert executor.pending == [] and coordinator.tasks == {}
    world.arena.update_competition(world.competition.id, actor="test", phase="open")
    coordinator.polled_at = -1e18  # look at the store at the next turn
    coordinator.tick()
    assert executor.pending  # validations start once the competition is open again
    coordinator.close()


# ---------------------------------------------------------------- platform failures (a worker)


@pytest.mark.timeout(600)
def test_g11_a_worker_killed_mid_match_is_a_platform_failure_retried_never_rated(sqlite_store: Store) -> None:
    slow = STARTER.replace("def act(obs):", "import time\n\ndef act(obs):\n    time.sleep(0.15)")
    world = open_world(sqlite_store, 2, config=PATIENT)
    versions = world.upload_all(slow, slow + "\n# b\n")
    with running(world) as handle:
        wait_until(settled(world, versions), "both versions active", seen=lambda: states(world))
        tournament = world.competition.tournament_id

        def a_rated_match_running() -> Any:
            return [m for m in world.runs.matches(tournament, statuses=["running"], kind="rated")]

        victim = wait_until(a_rated_match_running, "a rated match running")[0]
        pool = handle.coordinator.executor
        assert isinstance(pool, WorkerPool)
        for pid in pool.worker_pids():
            os.kill(pid, signal.SIGKILL)
        wait_until(
            lambda: world.store.get_match(victim.id).status == "finished", "the killed match played again"
        )
    row = world.store.get_match(victim.id)
    assert row.attempts >= 2  # played again under its own key
    assert handle.summary is not None and handle.summary.platform_failures >= 1
    with world.store.read_session("test") as session:
        rows = session.scalar(
            select(func.count()).select_from(RatingHistory).where(RatingHistory.match_id == victim.id)
        )
        players = session.scalar(
            select(func.count()).select_from(MatchPlayer).where(MatchPlayer.match_id == victim.id)
        )
    assert rows == 2 and players == 2  # rated once, for the try that finished
    assert rebuild(world.store, world.competition.id).equal


class Clock:
    """The coordinator's clock, moved by the test (it starts at the real time: the store's rows are
    stamped with it)."""

    def __init__(self) -> None:
        import time

        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def test_an_overdue_match_is_given_up_and_replayed_its_late_result_ignored(sqlite_store: Store) -> None:
    """specs/arena.md, Scheduler failures: a match running longer than `match_timeout_s` is cancelled
    and replayed (a platform failure, attempt 2); should the first try still end, it is not recorded."""
    world = open_world(sqlite_store, 2)
    world.upload_all(STARTER, ATTACKER)
    executor = ManualExecutor()
    clock = Clock()
    options = CoordinatorOptions(poll_s=0.05, heartbeat_s=0.5, expected_match_s=1.0)  # timeout: 10 s
    coordinator = ArenaCoordinator(world.store, world.competition.id, executor, options=options, clock=clock)
    coordinator.start()
    drive(
        coordinator,
        executor,
        lambda: any(p.kind == "rated" for t in coordinator.tasks.values() for p in t.plans),
    )
    (late,) = [t for t in coordinator.tasks.values() if t.plans[0].kind == "rated"]
    key = late.keys[0]
    clock.now += 11.0
    coordinator.tick()
    assert coordinator.summary.platform_failures == 1
    retried = [t for t in coordinator.tasks.values() if t.keys == (key,) and t is not late]
    assert len(retried) == 1 and retried[0].plans[0].attempt == 2  # replayed at once, same key
    executor.run_first()  # the first try ends after all: ignored
    coordinator.tick()
    match = world.store.find_match(world.competition.tournament_id, key)
    assert match is not None and match.status != "finished"

    def replayed() -> bool:
        found = world.store.find_match(world.competition.tournament_id, key)
        return found is not None and found.status == "finished"

    drive(coordinator, executor, replayed)
    match = world.store.find_match(world.competition.tournament_id, key)
    assert match is not None and match.status == "finished" and match.attempts == 2
    assert rebuild(world.store, world.competition.id).equal
    coordinator.close()


# ---------------------------------------------------------------------------------- the commands


def test_arena_run_refuses_in_one_line_where_bots_cannot_be_sandboxed(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from botarena.bots import sandbox
    from botarena.cli import main

    def missing(policy: Any) -> None:
        raise sandbox.SandboxUnavailable("bubblewrap (bwrap) is not installed")

    monkeypatch.setattr(sandbox, "check_sandbox", missing)
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    code = main(["arena", "run", "--competition", "1", "--db", db, "--workers", "2"])
    err = capsys.readouterr().err
    assert code == 2 and "bubblewrap (bwrap) is not installed" in err
    assert len(err.strip().splitlines()) == 1


def test_arena_rerate_says_whether_the_stored_ratings_are_equal(
    sqlite_store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    from botarena.cli import main
    from botarena.store.models import Match

    world = open_world(sqlite_store, 2)
    world.upload_all(STARTER, ATTACKER)
    executor = ManualExecutor()
    coordinator = ArenaCoordinator(world.store, world.competition.id, executor, options=FAST)
    coordinator.start()
    drive(coordinator, executor, lambda: rated_finished(world) >= 2)
    coordinator.close()
    args = ["arena", "rerate", "--competition", str(world.competition.id), "--db", world.store.connect_url]
    assert main(args) == 0
    assert "equal the stored ones" in capsys.readouterr().out
    first = world.runs.matches(world.competition.tournament_id, statuses=["finished"], kind="rated")[0]
    with world.store.write_session("test") as session:
        session.execute(update(Match).where(Match.id == first.id).values(voided=True))
    assert main(args) == 1
    assert "differ from the stored ones for 2 versions" in capsys.readouterr().out
    assert main([*args, "--write"]) == 0 and main(args) == 0
