"""Issue 25, item 1: a sandboxed bot cannot act as root on the host, through every way a stranger's
bot is run: `botarena play --sandbox` (the CLI), a sandboxed tournament, and a Dask worker.

The breakout bot (bots/breakout.py, as a Python entrant folder) tries, at its start, everything the
issue's attackers did and more: the core_pattern pipe attack for real, an open for writing of every
sysctl and kernel knob in /proc, each call the system-call filter refuses, a read of the environment
of every process it can see (its parents', the coordinator's pid), a listing of those processes, and
a look at its own uid, capabilities, NoNewPrivs and Seccomp. `check_breakout` asserts, for each seat's
log, that every attempt was made and failed; `HostGuard` plants secrets in the coordinator's
environment (a store URL with a password, a live token), saves and restores the host's core_pattern,
and asserts that no secret is in any replay or log and that the host's core_pattern and the script's
marker are untouched.

It plays in both seats: in one `play` match against itself; in a round robin of two cycles, played
inline (every pair meets in both seat orders), against a sandboxed subprocess entrant, an HTTP bot and
an in-process starter; and in one cycle of the same round robin on a one-worker Dask cluster (seat 0
against the subprocess entrant and the starter, seat 1 against the HTTP bot).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import Executor
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from botarena.bots.sandbox import SandboxPolicy
from botarena.cli import main
from botarena.core.replay import read_replay
from botarena.store import Store
from botarena.tournament.executor import close_executor, dask_executor
from botarena.tournament.service import Entrant, TournamentPlan, create_tournament, run_tournament

from .breakout import HostGuard, check_breakout
from .conftest import require_sandbox
from .http_bots import HonestHttp

SHORT = {"setup_timeout_ms": 30_000, "turn_timeout_ms": 5_000, "rounds": 1, "turn_limit": 2}
"""One round of two turns: the attack runs at the start; a loaded CI box must not make it TIMEOUT."""
RIVALS = ("quiet", "http", "zergy")
QUIET = "def act(payload):\n    return {'newProducers': 1}\n"


def row(zoo_row: dict[str, Any], where: str, opponents: str) -> None:
    """This test's line in the zoo's table."""
    zoo_row.update(
        attack=f"act as root on the host (breakout) through {where}", seat="0, 1", opponent=opponents
    )
    zoo_row["context"] = f"seats 0, 1 vs {opponents}"


def test_breakout_through_play_sandbox_in_both_seats(
    host_guard: HostGuard,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    sandbox_policy: SandboxPolicy | str,
    zoo_row: dict[str, Any],
) -> None:
    row(zoo_row, "`botarena play --sandbox`", "itself")
    require_sandbox(sandbox_policy)
    monkeypatch.setenv("BOTARENA_CACHE_DIR", str(tmp_path / "cache"))
    bot = host_guard.entrant(tmp_path / "entrants" / "breakout")
    # Modes the sandbox's uid cannot read: play --sandbox runs the bot from its packed artifact.
    for path in (bot / "bot.py", bot / "params.json"):
        path.chmod(0o600)
    bot.chmod(0o700)
    replay = tmp_path / "play.json.gz"
    settings = [arg for key, value in SHORT.items() for arg in ("--set", f"{key}={value}")]
    argv = ["play", "drones", str(bot), str(bot), "--sandbox", "--seed", "4", "--replay", str(replay)]
    code = main([*argv, *settings])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    recorded = read_replay(replay)
    assert [player["name"] for player in recorded.players] == ["breakout", "breakout"]
    zoo_row["outcome"] = "OK on every exchange"
    for seat in (0, 1):
        assert set(recorded.statuses[seat]) == {"OK"}, recorded.logs[seat]
        evidence = check_breakout(str(recorded.logs[seat]["text"]), where=f"play --sandbox, seat {seat}")
    host_guard.assert_untouched(recorded.dumps(), printed.out, printed.err)
    zoo_row["evidence"] = evidence


@pytest.fixture
def league(host_guard: HostGuard, tmp_path: Path, sandbox_policy: SandboxPolicy | str) -> Iterator[Any]:
    """The breakout entrant, a quiet sandboxed Python entrant, an HTTP bot and the zergy starter."""
    require_sandbox(sandbox_policy)
    breakout = host_guard.entrant(tmp_path / "entrants" / "breakout")
    quiet = tmp_path / "entrants" / "quiet.py"
    quiet.write_text(QUIET)
    http = HonestHttp()
    plan = TournamentPlan(
        name="breakout", game="drones", format="round-robin", seed=5, overrides=SHORT,
        options={"cycles": 2},  # the second cycle swaps every pair's seats
        entrants=[
            Entrant("breakout", str(breakout)), Entrant("quiet", str(quiet)),  # sandboxed subprocesses
            Entrant("http", http.url("bot")), Entrant("zergy", "zergy"),  # HTTP, in-process starter
        ],
    )  # fmt: skip
    try:
        yield plan
    finally:
        http.stop()


def play_tournament(store: Store, plan: TournamentPlan, executor: Executor | None = None) -> None:
    tournament = create_tournament(store, plan)  # the default: untrusted and sandboxed
    summary = run_tournament(store, tournament.id, executor)
    assert summary.status == "finished" and summary.failed == 0, summary


def check_tournament(store: Store, guard: HostGuard, where: str, expected: set[tuple[str, int]]) -> str:
    """Every match finished; the breakout held in every match, meeting the (rival, seat) pairs
    `expected`; its rivals played unharmed; nothing of the host leaked or changed. The evidence."""
    tournament = store.find_tournament("breakout")
    assert tournament is not None
    met: set[tuple[str, int]] = set()
    dumps = []
    for row in store.list_matches(tournament.id):
        assert row.status == "finished", (row.key, row.error)
        replay = store.load_replay(row.replay_hash)
        dumps.append(replay.dumps())
        if "breakout" not in row.seats:
            continue
        seat = row.seats.index("breakout")
        met.add((row.seats[1 - seat], seat))
        assert set(replay.statuses[1 - seat]) == {"OK"}, (row.key, replay.logs[1 - seat])
        assert set(replay.statuses[seat]) == {"OK"}, (row.key, replay.logs[seat])
        evidence = check_breakout(str(replay.logs[seat]["text"]), where=f"{where}, {row.key}, seat {seat}")
    assert met == expected
    guard.assert_untouched(*dumps)
    return f"{len(met)} matches: {evidence}"


def test_breakout_through_a_sandboxed_tournament(
    league: TournamentPlan, host_guard: HostGuard, tmp_path: Path, zoo_row: dict[str, Any]
) -> None:
    row(zoo_row, "a sandboxed tournament (inline)", "subprocess, http, inprocess")
    store = Store.open(f"sqlite:///{tmp_path / 'arena.db'}", replay_dir=tmp_path / "replays")
    try:
        play_tournament(store, league)
        every_pair = {(rival, seat) for rival in RIVALS for seat in (0, 1)}
        zoo_row["outcome"] = "OK on every exchange"
        zoo_row["evidence"] = check_tournament(store, host_guard, "tournament", every_pair)
    finally:
        store.close()


def test_breakout_through_a_dask_worker(
    league: TournamentPlan,
    host_guard: HostGuard,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    zoo_row: dict[str, Any],
) -> None:
    """The worker is a process of its own whose environment holds the secrets too; the bot must reach
    neither it nor the coordinator."""
    row(zoo_row, "a Dask worker", "subprocess, http, inprocess")
    distributed = pytest.importorskip("distributed")
    monkeypatch.setenv("BOTARENA_CACHE_DIR", str(tmp_path / "worker-cache"))
    worker_env = {
        key: os.environ[key] for key in ("BOTARENA_DB", "BOTARENA_LIVE_TOKEN", "BOTARENA_CACHE_DIR")
    }
    store = Store.open(f"sqlite:///{tmp_path / 'arena.db'}", replay_dir=tmp_path / "replays")
    cluster = distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None,
        scheduler_kwargs={"dashboard": False}, host="127.0.0.1", env=worker_env,
    )  # fmt: skip
    try:
        executor = dask_executor(cluster.scheduler_address)
        try:
            play_tournament(store, replace(league, options={"cycles": 1}), executor)
        finally:
            close_executor(executor)
        met = {("zergy", 0), ("quiet", 0), ("http", 1)}
        zoo_row["outcome"] = "OK on every exchange"
        zoo_row["evidence"] = check_tournament(store, host_guard, "Dask worker", met)
    finally:
        cluster.close()
        store.close()
