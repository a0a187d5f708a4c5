"""Issue 25, item 6: faults of the platform lose no match, and only a bot's own fault fails one.

- A worker killed from outside while the bots are sandboxed (they cannot have killed it): SIGKILLed
  three times during a sandboxed tournament on a process pool, always while it plays a match (the test
  waits for a bot process under the worker before each kill), it fails no match: every match ends
  finished, with the results of an undisturbed run, and no replay is left unreferenced.
- A match the platform cannot play (a platform MatchFailure every time, a whole task lost) is played
  again and, once the run gives up on it, left scheduled with the reason: never failed, never rated,
  the run "stopped" with the reason; the next run (`--resume`) plays it.
- A full artifact-cache disk (a real tmpfs of 64 KiB, where the test may mount one): `botarena
  tournament` says the cache is full (never "not a readable archive"), exits 1, and `--resume` with
  room on the disk plays every match.
- A coordinator SIGKILLed between writing replays and recording them (in the coordinator, and by pool
  workers writing to the store's folder themselves) leaves unreferenced replays; the next run removes
  exactly those, never one that a match references or another tournament's.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import Any

import pytest
from tournament_entrants import ENTRANTS, sandbox_ready, unreferenced_replays

from botarena.bots.resolve import untrusted
from botarena.core.replay import parse_replay
from botarena.store import Store
from botarena.tournament.executor import (
    MatchFailure,
    MatchTask,
    WorkerPool,
    close_executor,
    play_batch,
)
from botarena.tournament.service import (
    PLATFORM_ATTEMPTS,
    Entrant,
    TournamentPlan,
    create_tournament,
    run_tournament,
    tournament_board,
)
from waiting import wait_until

SHORT = {"rounds": 2, "turn_limit": 3}
# Generous limits: a sandboxed interpreter's start on a loaded CI box must not TIMEOUT.
SANDBOXED = {"setup_timeout_ms": 30_000, "turn_timeout_ms": 5_000, **SHORT}
WAIT_S = 120.0  # a bound on every wait, never a synchronisation


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(f"sqlite:///{tmp_path / 'arena.db'}", replay_dir=tmp_path / "replays")
    yield opened
    opened.close()


def plan(name: str, entrants: list[Entrant], **overrides: Any) -> TournamentPlan:
    return TournamentPlan(
        name=name,
        game="drones",
        format="round-robin",
        entrants=entrants,
        seed=7,
        overrides=overrides or SHORT,
    )


def outcomes(store: Store, tournament_id: int) -> dict[str, tuple[Any, ...]]:
    return {
        r.key: (r.status, tuple(r.seats), r.seed, r.ranks, r.scores)
        for r in store.list_matches(tournament_id)
    }


def wait_for(condition: Callable[[], Any], what: str) -> Any:
    """`condition`'s first true answer (looked at every 10 ms, up to WAIT_S)."""
    return wait_until(condition, what, WAIT_S, pause=0.01)


def children(pid: int) -> list[int]:
    """The pids whose parent is `pid`."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError), open(f"/proc/{entry}/stat") as handle:
                if int(handle.read().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry))
    return found


# -- a worker killed from outside ----------------------------------------------------------------------

KILLS = 3


@pytest.mark.timeout(600)
def test_pool_workers_sigkilled_from_outside_fail_no_sandboxed_match(store: Store, tmp_path: Path) -> None:
    sandbox_ready()
    quiet = tmp_path / "quiet.py"  # a sandboxed subprocess: a bot process under its worker while it plays
    shutil.copy(ENTRANTS / "quiet.py", quiet)
    entrants = [Entrant("zergy", "zergy"), Entrant("adaptive", "adaptive"), Entrant("quiet", str(quiet))]
    reference = create_tournament(store, plan("undisturbed", entrants, **SANDBOXED))
    assert run_tournament(store, reference.id).status == "finished"

    pools: list[WorkerPool] = []

    def factory() -> Executor:
        pools.append(WorkerPool(2))  # what make_executor(2) makes
        return pools[-1]

    def worker_in_a_match() -> int | None:
        for pid in pools[-1].worker_pids():
            if children(pid):  # its match's bot is running under it
                return pid
        return None

    killed: list[int] = []
    ended = threading.Event()

    def killer() -> None:
        for n in range(KILLS):
            pid = wait_for(lambda: worker_in_a_match() or ended.is_set(), "pool worker in a match")
            if ended.is_set():
                return
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
            wait_for(lambda n=n: len(pools) > n + 1 or ended.is_set(), "replaced pool")  # type: ignore[misc]

    disturbed = create_tournament(store, plan("killed", entrants, **SANDBOXED))
    executor = factory()
    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    try:
        summary = run_tournament(store, disturbed.id, executor, executor_factory=factory)
    finally:
        ended.set()
        thread.join(timeout=WAIT_S)
        for pool in pools:
            close_executor(pool, cancel=True)
    assert len(killed) == KILLS and len(pools) == KILLS + 1  # each kill broke a pool, replaced each time
    assert (summary.status, summary.played, summary.failed, summary.unplayed) == ("finished", 3, 0, 0)
    after = outcomes(store, disturbed.id)
    assert after == outcomes(store, reference.id)  # every match finished, as in the undisturbed run
    assert unreferenced_replays(store) == set()
    assert max(row.attempts for row in store.list_matches(disturbed.id)) > 1  # the kills hit matches


# -- the platform's failures are postponed, never failed -----------------------------------------------


class AlteringExecutor(Executor):
    """Plays each batch at once in this thread, then lets `alter` change what the task gives back:
    a list of results, or an exception for the whole task."""

    slots = 2

    def __init__(self, alter: Callable[[list[MatchTask], Any], Any]) -> None:
        self.alter = alter

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        assert fn is play_batch
        future: Future[Any] = Future()
        found = self.alter(args[0], fn(*args, **kwargs))
        if isinstance(found, BaseException):
            future.set_exception(found)
        else:
            future.set_result(found)
        return future


STARTERS = ("adaptive", "pacifist", "zergy")
CACHE_FULL = "ArtifactCacheError: the artifact cache at /cache/artifacts is full: No space left on device"


def test_matches_the_platform_cannot_play_are_left_for_resume_never_failed(store: Store) -> None:
    entrants = [Entrant(s, s) for s in STARTERS]
    reference = create_tournament(store, plan("reference", entrants))
    run_tournament(store, reference.id)
    keys = sorted(outcomes(store, reference.id))
    full_disk, lost_once = keys[0], keys[1]
    lost: list[str] = []

    def alter(tasks: list[MatchTask], found: list[Any]) -> Any:
        if lost_once in [t.key for t in tasks] and not lost:
            lost.append(lost_once)
            return ConnectionError("the scheduler dropped the task")  # a whole task lost, once
        return [
            MatchFailure(r.key, CACHE_FULL, retry=True, platform=True) if r.key == full_disk else r
            for r in found
        ]

    tournament = create_tournament(store, plan("faulty", entrants))
    summary = run_tournament(store, tournament.id, AlteringExecutor(alter), max_in_flight=1)
    assert (summary.status, summary.played, summary.failed, summary.unplayed) == ("stopped", 2, 0, 1)
    assert summary.reason == f"{CACHE_FULL} (1 match)"
    rows = {row.key: row for row in store.list_matches(tournament.id)}
    assert rows[full_disk].status == "scheduled" and rows[full_disk].error == CACHE_FULL
    assert rows[full_disk].attempts == PLATFORM_ATTEMPTS  # every try counted in the store, none as a failure
    assert rows[lost_once].status == "finished" and rows[lost_once].attempts == 2  # played again at once
    assert store.get_tournament(tournament.id).status == "running"  # type: ignore[union-attr]  # not finished
    board = tournament_board(store, store.get_tournament(tournament.id))  # type: ignore[arg-type]
    assert sum(row["played"] for row in board["rows"]) == 2 * 2  # the postponed match counts for no one
    assert store.ratings(tournament.id) == []  # and nothing is rated before the tournament is done

    resumed = run_tournament(store, tournament.id)  # what `--resume` does
    assert (resumed.status, resumed.played, resumed.failed, resumed.reason) == ("finished", 1, 0, None)
    assert outcomes(store, tournament.id) == outcomes(store, reference.id)
    assert store.find_match(tournament.id, full_disk).error is None  # type: ignore[union-attr]
    assert [r.name for r in store.ratings(tournament.id)] == [r.name for r in store.ratings(reference.id)]


# -- a full artifact cache -----------------------------------------------------------------------------


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs mounted on a folder of tmp_path (skipped where the test cannot mount one)."""
    folder = tmp_path / "tiny"
    folder.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs for the full-disk test needs root and mount(8)")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)], capture_output=True, text=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip() or done.returncode}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def botarena(*args: str, cwd: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "BOTARENA_CACHE_DIR": str(cache), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "botarena", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.timeout(600)
def test_a_full_artifact_cache_is_reported_as_such_and_resume_plays_its_matches(
    tmp_path: Path, tiny_disk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = tmp_path / "bots" / "big.py"  # its file alone is more than the disk holds
    big.parent.mkdir()
    padding = os.urandom(60_000).hex()
    big.write_text(f'PADDING = "{padding}"\n\n' + (ENTRANTS / "quiet.py").read_text())
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    args = ["--db", db, "--no-progress", "--unsandboxed"]  # the disk is the point here, not the sandbox
    run = botarena(
        "tournament", "drones", "--bots", f"zergy,adaptive,{big}", "--name", "full", "--workers", "1",
        "--set", "rounds=2", "--set", "turn_limit=3", *args, cwd=tmp_path, cache=tiny_disk,
    )  # fmt: skip
    assert run.returncode == 1, run.stderr
    assert "stopped: 1 matches played now, 0 failed, 2 not played" in run.stdout
    last = run.stderr.strip().splitlines()[-1]
    full = f"the artifact cache at {tiny_disk / 'artifacts'} is full: No space left on device"
    assert last.startswith(f"botarena: 2 matches could not be played: ArtifactCacheError: {full}"), last
    assert "--resume" in last and "not a readable archive" not in run.stderr
    with Store.open(db) as store:
        tournament = store.find_tournament("full")
        assert tournament is not None
        rows = store.list_matches(tournament.id)
        assert sorted(r.status for r in rows) == ["finished", "scheduled", "scheduled"]  # none failed
        assert all(full in (r.error or "") for r in rows if r.status == "scheduled")

    monkeypatch.setenv("BOTARENA_CACHE_DIR", str(tmp_path / "roomy"))  # room on the disk now
    with Store.open(db) as store:
        tournament = store.find_tournament("full")
        assert tournament is not None
        resumed = run_tournament(store, tournament.id, isolation=untrusted(sandbox=None))  # = `--resume`
        assert (resumed.status, resumed.played, resumed.failed, resumed.reason) == ("finished", 2, 0, None)
        assert {r.status for r in store.list_matches(tournament.id)} == {"finished"}


# -- replays written and never recorded ----------------------------------------------------------------

KILLED_COORDINATOR = """
import os, signal, sys
from botarena.store import Store
from botarena.store.replays import ReplayFiles
from botarena.tournament.executor import make_executor
from botarena.tournament.service import Entrant, TournamentPlan, create_tournament, run_tournament


def die_on_the_second(original, mode):
    calls = []

    def patched(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            if mode == "coordinator":
                original(*args, **kwargs)  # the replay is written...
            os.kill(os.getpid(), signal.SIGKILL)  # ...and the coordinator dies before recording it
        return original(*args, **kwargs)

    return patched


if __name__ == "__main__":  # (pool workers start from this file too: they only import it)
    mode, db, replays = sys.argv[1:4]
    if mode == "coordinator":
        ReplayFiles.write_many = die_on_the_second(ReplayFiles.write_many, mode)
    else:  # the pool's workers write the replays to the store's folder: none gets recorded
        Store.record_results = die_on_the_second(Store.record_results, mode)
    store = Store.open(db, replay_dir=replays)
    plan = TournamentPlan(
        name="killed", game="drones", format="round-robin", seed=5, overrides={"rounds": 2, "turn_limit": 3},
        entrants=[Entrant(s, s) for s in ("adaptive", "pacifist", "zergy", "randomonium")],
    )
    tournament = create_tournament(store, plan)
    executor = make_executor(1) if mode == "workers" else None
    run_tournament(store, tournament.id, executor, max_in_flight=1)
"""


@pytest.mark.timeout(600)
@pytest.mark.parametrize("writer", ["coordinator", "workers"])
def test_replays_written_but_never_recorded_are_removed_and_no_other(
    store: Store, tmp_path: Path, writer: str
) -> None:
    other = create_tournament(store, plan("other", [Entrant(s, s) for s in STARTERS]))
    run_tournament(store, other.id)
    kept = {row.replay_hash for row in store.list_matches(other.id)}
    # another tournament's replay that nothing references (its own coordinator killed): not ours to remove
    decoy_row = store.list_matches(other.id)[0]
    decoy = parse_replay(store.read_replay(str(decoy_row.replay_hash)))
    decoy.logs = [{"text": "another try"} for _ in decoy.players]
    decoy_hash = store.replays.write(gzip.compress(decoy.dumps(), mtime=0))

    script = tmp_path / "killed.py"
    script.write_text(textwrap.dedent(KILLED_COORDINATOR))
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    killed = subprocess.run(
        [sys.executable, str(script), writer, db, str(tmp_path / "replays")], capture_output=True, timeout=300
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr.decode()
    tournament = store.find_tournament("killed")
    assert tournament is not None
    finished = {r.key: r for r in store.list_matches(tournament.id, status="finished")}
    left = unreferenced_replays(store) - {decoy_hash}
    assert finished and left  # it died with results recorded and replays written but not recorded
    assert all(parse_replay(store.read_replay(d)).match_id.startswith(f"t{tournament.id}-") for d in left)

    summary = run_tournament(store, tournament.id)  # what `--resume` does
    assert summary.status == "finished"
    assert unreferenced_replays(store) == {decoy_hash}  # ours gone, the other tournament's kept
    rows = store.list_matches(tournament.id)
    assert all(r.status == "finished" and store.replays.exists(str(r.replay_hash)) for r in rows)
    for key, row in finished.items():  # recorded before the kill: kept exactly, replay and all
        assert store.find_match(tournament.id, key) == row
    assert all(store.replays.exists(str(digest)) for digest in kept)


def test_a_run_with_nothing_tried_before_lists_no_replays(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sweep reads the whole replay store: a run with nothing tried and unrecorded skips it."""
    listed: list[str] = []
    monkeypatch.setattr(store.replays, "digests", lambda: listed.append("listed") or iter(()))
    tournament = create_tournament(store, plan("fresh", [Entrant(s, s) for s in STARTERS]))
    assert run_tournament(store, tournament.id).status == "finished"
    assert run_tournament(store, tournament.id).status == "finished"  # resumed: nothing left to play
    assert listed == []
