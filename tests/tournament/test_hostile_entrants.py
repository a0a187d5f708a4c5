"""Tournaments against hostile entrants (issue 12, items 3 and 4).

- An entrant's Python file never shares a process with the engine or another entrant: one that patches
  the engine and the `adaptive` starter at import, and rewrites the in-process bots it finds through
  `gc`, leaves every result as it is with a quiet file in its place (pool workers and inline), and
  `replay --verify` stays honest.
- Tournaments survive any bot: an (unsandboxed) entrant that SIGKILLs or SIGTERMs its pool worker in
  every match it plays breaks the pool each time; the pool is replaced, the matches retried and then
  recorded failed with the reason, the others are played, the run ends. A pool found broken at
  submit is replaced too. Killing the coordinator leaves no worker or bot process behind.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from botarena.bots.resolve import untrusted
from botarena.core.replay import read_replay
from botarena.games.drones import rules
from botarena.games.drones.bots import examples
from botarena.runner.verify import verify_replay
from botarena.store import Store
from botarena.tournament.executor import WorkerPool, close_executor, make_executor
from botarena.tournament.service import Entrant, TournamentPlan, create_tournament, run_tournament
from waiting import wait_until

ENTRANTS = Path(__file__).parent / "entrants"
SHORT = {"rounds": 3, "turn_limit": 6}
Starters = tuple[str, ...] | None  # None: plan()'s default starters


@pytest.fixture
def store(tmp_path: Path) -> Any:
    opened = Store.open(f"sqlite:///{tmp_path / 'arena.db'}", replay_dir=tmp_path / "replays")
    yield opened
    opened.close()


def plan(
    name: str, hostile: Path, starters: tuple[str, ...] = ("adaptive", "zergy", "pacifist")
) -> TournamentPlan:
    entrants = [Entrant(s, s) for s in starters] + [Entrant("hostile", str(hostile))]
    return TournamentPlan(
        name=name, game="drones", format="round-robin", entrants=entrants, seed=9, overrides=SHORT
    )


def outcomes(store: Store, name: str) -> dict[str, tuple[Any, ...]]:
    tournament = store.find_tournament(name)
    assert tournament is not None
    return {
        r.key: (r.status, tuple(r.seats), r.seed, r.ranks, r.scores)
        for r in store.list_matches(tournament.id)
    }


def run(store: Store, name: str, hostile: Path, workers: int, *, starters: Starters = None, **kw: Any) -> Any:
    planned = plan(name, hostile) if starters is None else plan(name, hostile, starters)
    tournament = create_tournament(store, planned, isolation=kw.get("isolation"))
    if not workers:
        return run_tournament(store, tournament.id, **kw)
    factory = partial(make_executor, workers)
    executor: Executor = factory()
    try:
        return run_tournament(store, tournament.id, executor, executor_factory=factory, **kw)
    finally:
        close_executor(executor)


@pytest.fixture(scope="module")
def quiet_outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Any, ...]]:
    """The same tournament with a quiet entrant in the hostile one's place, played inline once for
    the module: results depend on the plan and its seed, never on the pool (test_service.py checks
    that), so both parametrizations below compare with this one run."""
    folder = tmp_path_factory.mktemp("quiet")
    opened = Store.open(f"sqlite:///{folder / 'arena.db'}", replay_dir=folder / "replays")
    try:
        run(opened, "quiet", ENTRANTS / "quiet.py", 0)
        return outcomes(opened, "quiet")
    finally:
        opened.close()


@pytest.mark.timeout(600)
@pytest.mark.parametrize("workers", [0, 2])
def test_an_entrant_that_patches_the_engine_and_its_rivals_changes_no_result(
    store: Store, workers: int, quiet_outcomes: dict[str, tuple[Any, ...]]
) -> None:
    act, produce = examples.AdaptiveDefender.act, rules.produce_seed
    run(store, "patched", ENTRANTS / "patcher.py", workers)
    # inline (workers 0) the coordinator is this process: the file was never imported here
    assert examples.AdaptiveDefender.act is act and rules.produce_seed is produce
    patched, quiet = outcomes(store, "patched"), quiet_outcomes
    assert patched == quiet and all(o[0] == "finished" for o in patched.values())
    tournament = store.find_tournament("patched")
    assert tournament is not None
    for row in store.list_matches(tournament.id):
        if set(row.seats) == {"adaptive", "hostile"}:
            replay = read_replay(store.replay_path(row.replay_hash))
            assert verify_replay(replay).identical  # replay --verify stays honest


@pytest.mark.timeout(900)
@pytest.mark.parametrize("sig", ["SIGKILL", "SIGTERM"])
def test_an_entrant_that_kills_its_worker_in_every_match_cannot_stop_the_tournament(
    store: Store, tmp_path: Path, sig: str
) -> None:
    killer = tmp_path / ("worker_killer.py" if sig == "SIGKILL" else "worker_killer_term.py")
    shutil.copy(ENTRANTS / "worker_killer.py", killer)
    # two starters, not three: two matches that kill their worker (each costs a pool and its retries
    # alone) and one that must be played around them make the claim; more of each only cost time
    isolation = untrusted(sandbox=None)  # unsandboxed: it sees its worker
    summary = run(store, "t", killer, 2, isolation=isolation, starters=("adaptive", "zergy"))
    assert summary.status == "finished"
    tournament = store.find_tournament("t")
    assert tournament is not None
    rows = store.list_matches(tournament.id)
    assert len(rows) == 3 and sum("hostile" in row.seats for row in rows) == 2
    for row in rows:  # every match ends recorded: played, or failed after retries with the reason
        if "hostile" in row.seats:
            assert row.status == "failed" and "BrokenProcessPool" in (row.error or ""), row
        else:
            assert row.status == "finished", row


@pytest.mark.timeout(600)
def test_sandboxed_the_same_entrant_only_crashes_itself(store: Store, tmp_path: Path) -> None:
    killer = tmp_path / "worker_killer.py"
    shutil.copy(ENTRANTS / "worker_killer.py", killer)
    summary = run(store, "t", killer, 2)  # the default: untrusted and sandboxed
    assert summary.status == "finished" and summary.failed == 0
    tournament = store.find_tournament("t")
    assert tournament is not None
    for row in store.list_matches(tournament.id):
        assert row.status == "finished"
        if "hostile" in row.seats:
            assert row.ranks is not None and row.ranks[row.seats.index("hostile")] == 2  # it lost


@pytest.mark.timeout(600)
def test_a_pool_found_broken_at_submit_is_replaced(store: Store) -> None:
    factory = partial(make_executor, 1)
    broken = factory()
    probe = broken.submit(os.kill, os.getpid(), 0)
    probe.result(timeout=120)  # the worker is up
    assert isinstance(broken, WorkerPool)
    for pid in broken.worker_pids():  # the worker that played the probe reported itself first
        os.kill(pid, signal.SIGKILL)
    with pytest.raises(BrokenProcessPool):  # the pool knows it is broken once this fails
        broken.submit(os.getpid).result(timeout=120)
    tournament = create_tournament(store, plan("t", ENTRANTS / "quiet.py"))
    try:
        summary = run_tournament(store, tournament.id, broken, executor_factory=factory)
    finally:
        close_executor(broken)
    assert summary.status == "finished" and summary.played == 6 and summary.failed == 0


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


def _parent(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as handle:
        return int(handle.read().rsplit(")", 1)[1].split()[1])


@pytest.mark.timeout(600)
def test_killing_the_coordinator_leaves_no_worker_or_bot_process(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    (bots / "pids").mkdir(parents=True)
    # the sleepers run from their artifacts' copies (bots/artifacts.py): they write to this folder
    sleeper = (ENTRANTS / "sleeper.py").read_text().replace("Path(__file__).parent", f"Path({str(bots)!r})")
    (bots / "a.py").write_text(sleeper)
    (bots / "b.py").write_text(sleeper)
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    args = [
        "tournament", "drones", "--bots", f"{bots / 'a.py'},{bots / 'b.py'},zergy", "--workers", "2",
        "--db", db, "--no-progress", "--unsandboxed", "--set", "setup_timeout_ms=120000",
    ]  # fmt: skip
    coordinator = subprocess.Popen(
        [sys.executable, "-m", "botarena", *args], cwd=tmp_path, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_until(  # both workers are in a match once two bots have written their pids
            lambda: len(list((bots / "pids").iterdir())) >= 2 or coordinator.poll() is not None,
            "two bots writing their pids",
            600,
            pause=0.1,
        )
        bot_pids = [int(p.name) for p in (bots / "pids").iterdir()]
        assert len(bot_pids) >= 2, "the bots never started"
        worker_pids = {_parent(pid) for pid in bot_pids}
        assert coordinator.pid not in worker_pids and all(_alive(p) for p in [*bot_pids, *worker_pids])
        coordinator.kill()  # the coordinator alone: its workers and bots must follow it
        coordinator.wait(timeout=60)
        watched = [*bot_pids, *worker_pids]

        def alive() -> list[int]:
            return [pid for pid in watched if _alive(pid)]

        wait_until(
            lambda: not alive(), "every worker and bot ending after the coordinator was killed", seen=alive
        )
    finally:
        with_group = coordinator.pid
        with contextlib.suppress(ProcessLookupError):
            os.killpg(with_group, signal.SIGKILL)
