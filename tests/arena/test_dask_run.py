"""`botarena arena run --dask ADDR` (specs/arena.md: Components, Coordinator; Bad input: "`arena run`
on a machine that cannot sandbox refuses with the sandbox's one-line reason"; G11's "rerate equals
the stored ratings").

- On a Dask LocalCluster (one worker process, two threads, on 127.0.0.1), the real command validates
  two teams' uploads and plays rated drones matches, sealed, on the cluster's worker (the scheduler
  counts the tasks it ran); after Ctrl-C the stored ratings equal `arena rerate`'s. A second worker
  joined to the cluster cannot sandbox (no bubblewrap there): the command names it once, with its
  reason, and sends it nothing (every match is played at its first attempt).
- On a cluster whose only worker cannot sandbox (no bubblewrap there), the command refuses at once:
  exit 2, one line on stderr with the worker's reason, no lock taken, no match made.

The coordinator is the real command in a subprocess; the test waits on the store, never on time."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from botarena.arena.rerating import rebuild
from botarena.cli import main
from botarena.store import Store
from waiting import wait_until

from .arena_world import ATTACKER, STARTER, World, open_world

distributed = pytest.importorskip("distributed", reason="arena run --dask needs dask.distributed")

RATED = 4  # rated results to wait for


def sandbox_ready() -> None:
    """Skip without a sandbox here; fail where one is required (BOTARENA_REQUIRE_SANDBOX=1)."""
    from botarena.bots.sandbox import SandboxUnavailable, check_sandbox

    try:
        check_sandbox()
    except SandboxUnavailable as exc:
        if os.environ.get("BOTARENA_REQUIRE_SANDBOX") == "1":
            pytest.fail(f"BOTARENA_REQUIRE_SANDBOX=1 but the sandbox is unavailable: {exc}", pytrace=False)
        pytest.skip(str(exc))


def cluster(**kw: Any) -> Any:
    return distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=True, host="127.0.0.1",
        dashboard_address=None, scheduler_kwargs={"dashboard": False}, **kw,
    )  # fmt: skip


@contextlib.contextmanager
def broken_worker(address: str, cwd: Path) -> Iterator[str]:
    """A second worker joined to the cluster at `address`, on a machine without bubblewrap (its
    BOTARENA_BWRAP names none); its address, once the scheduler has it."""
    command = [sys.executable, "-m", "dask", "worker", address, "--nthreads", "1", "--no-nanny"]
    env = {**os.environ, "BOTARENA_BWRAP": "/nonexistent/bwrap"}
    process = subprocess.Popen(
        [*command, "--no-dashboard", "--name", "no-bwrap"], cwd=cwd, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        with distributed.Client(address, set_as_default=False) as client:
            client.wait_for_workers(2, timeout=120)
            (joined,) = [a for a, w in client.scheduler_info()["workers"].items() if w["name"] == "no-bwrap"]
        yield joined
    finally:
        process.kill()
        process.wait(timeout=60)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[str, World]]:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    store = Store.open(db)
    try:
        yield db, open_world(store, 2)
    finally:
        store.close()


def arena_run(db: str, competition: int, address: str, cwd: Path) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "botarena", "arena", "run", "--competition", str(competition)]
    return subprocess.Popen(
        [*command, "--db", db, "--dask", address],
        cwd=cwd, env={**os.environ, "PYTHONUNBUFFERED": "1"}, start_new_session=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def rated(world: World) -> list[Any]:
    return world.runs.matches(world.competition.tournament_id, statuses=["finished"], kind="rated")


def tasks_run(running: Any) -> int:
    """How many `play_batch` tasks the cluster's scheduler (in this process) has seen."""
    prefix = running.scheduler.task_prefixes.get("play_batch")
    return 0 if prefix is None else sum(prefix.state_counts.values())


@pytest.mark.timeout(300)
def test_arena_run_dask_validates_and_plays_rated_matches_on_the_cluster_and_rerate_agrees(
    world: tuple[str, World], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sandbox_ready()
    db, arena = world
    versions = arena.upload_all(STARTER, ATTACKER)
    with cluster() as running, broken_worker(running.scheduler_address, tmp_path) as broken:
        run = arena_run(db, arena.competition.id, running.scheduler_address, tmp_path)
        try:

            def progress() -> bool:
                assert run.poll() is None, f"arena run ended early: {run.communicate()}"
                return len(rated(arena)) >= RATED

            wait_until(
                progress, f"{RATED} rated results", seen=lambda: [arena.version(v).state for v in versions]
            )
        finally:
            run.send_signal(signal.SIGINT)  # Ctrl-C: the coordinator stops between two events
            out, err = run.communicate(timeout=120)
        assert run.returncode == 0, err
        assert "stopped (stopped)" in out
        assert tasks_run(running) > 0  # the matches were the cluster's tasks
        # the worker without bubblewrap is named once, with its reason, and is sent nothing: a match
        # sent there would have failed first (a second attempt, a "retrying" error on its row)
        refusals = [line for line in err.splitlines() if "takes no matches" in line]
        assert len(refusals) == 1 and broken in refusals[0], err
        assert "cannot sandbox bots: bubblewrap (bwrap) not found" in refusals[0]
    every = arena.runs.matches(arena.competition.tournament_id, statuses=["finished"])
    assert every and all(m.attempts == 1 for m in every), [(m.key, m.attempts) for m in every]
    assert [arena.version(v).state for v in versions] == ["active", "active"]  # validated, on Dask
    validation = arena.runs.matches(arena.competition.tournament_id, statuses=["finished"], kind="validation")
    assert {v for m in validation for v in m.versions.values()} == set(versions)
    results = rated(arena)
    assert len(results) >= RATED
    for match in results:  # played to the end by both seats, every result with its replay
        assert match.replay_hash and arena.store.replays.exists(match.replay_hash)
        assert match.statuses is not None and all(set(seat) == {"OK"} for seat in match.statuses)
        assert set(match.versions.values()) == set(versions)
    assert rebuild(arena.store, arena.competition.id).equal
    capsys.readouterr()
    assert main(["arena", "rerate", "--competition", str(arena.competition.id), "--db", db]) == 0
    assert "the recomputed ratings equal the stored ones" in capsys.readouterr().out
    assert arena.runs.lock_holder(arena.competition.id) is None


@pytest.mark.timeout(300)
def test_arena_run_dask_refuses_in_one_line_when_no_worker_can_sandbox(
    world: tuple[str, World], tmp_path: Path
) -> None:
    sandbox_ready()  # this machine can sandbox; the cluster's only worker cannot
    db, arena = world
    versions = arena.upload_all(STARTER, ATTACKER)
    with cluster(env={"BOTARENA_BWRAP": "/nonexistent/bwrap"}) as broken:
        address = broken.scheduler_address
        run = arena_run(db, arena.competition.id, address, tmp_path)
        out, err = run.communicate(timeout=120)
        assert tasks_run(broken) == 0
    assert run.returncode == 2, (out, err)
    (line,) = err.strip().splitlines()  # one line, no traceback
    assert line.startswith(f"botarena: error: no Dask worker at {address} can sandbox bots: "), line
    assert "cannot sandbox bots: bubblewrap (bwrap) not found" in line
    assert "--unsandboxed" not in line  # the worker's reason, not advice for this machine
    assert arena.runs.lock_holder(arena.competition.id) is None  # no coordinator ever claimed it
    assert arena.runs.matches(arena.competition.tournament_id) == []  # nothing scheduled, nothing run
    assert [arena.version(v).state for v in versions] == ["received", "received"]
