"""Issue 3, item 4: a tournament whose process is SIGKILLed resumes from the store without losing or
duplicating any finished result, and ends exactly as an uninterrupted run of the same plan.

The kill is certain to land mid-tournament whatever the machine's speed (issue 12): one entrant,
`entrants/gate.py`, holds one of its matches in its start exchange until the test has killed the
tournament, and the test kills once that match is held and the store has recorded 3 results."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tournament_entrants import gate_bot, recorded_before_the_kill

from botarena.cli import main
from botarena.store import Store, StoreError
from waiting import wait_until

STARTERS = "randomonium,tactician,zergy,pacifist"
CYCLES = 2
MATCHES = 20  # 5 entrants, every pair twice (17 or fewer are left for the resume after the kill)
# Short matches: what is claimed is about which results are recorded, not about how long a match is
# (the held match's start exchange keeps its two minutes: a timeout there would end it too early).
SHORT = ("--set", "rounds=3", "--set", "turn_limit=6")


def botarena(*args: str) -> list[str]:
    return [sys.executable, "-m", "botarena", *args]


def tournament_args(db: str, name: str, gate: Path) -> list[str]:
    # unsandboxed: the gate entrant counts its matches in its own folder; the start exchange gets two
    # minutes, so that the held match is still held when the test kills the tournament
    return [
        "tournament", "drones", "--bots", f"{STARTERS},gate={gate}", "--cycles", str(CYCLES),
        "--seed", "42", "--workers", "2", "--db", db, "--name", name, "--no-progress", "--unsandboxed",
        "--set", "setup_timeout_ms=120000", *SHORT,
    ]  # fmt: skip


def outcomes(store: Store, name: str) -> dict[str, tuple[Any, ...]]:
    tournament = store.find_tournament(name)
    assert tournament is not None
    return {
        r.key: (r.status, tuple(r.seats), r.seed, r.ranks, r.scores)
        for r in store.list_matches(tournament.id)
    }


def wait_for_finished(db: str, name: str, count: int, process: subprocess.Popen[bytes], held: Path) -> None:
    """Wait until `count` results are recorded and the gate holds a match (looking at the store)."""

    def finished() -> int:
        assert process.poll() is None, "the tournament ended before it could be killed"
        try:
            store = Store.open(db, migrate=False)
        except StoreError:  # the tournament process has not created its tables yet
            return 0
        try:
            tournament = store.find_tournament(name)
            return 0 if tournament is None else int(store.count_matches(tournament.id).get("finished", 0))
        finally:
            store.close()

    wait_until(
        lambda: held.exists() and finished() >= count,
        f"{count} finished matches and a held one",
        300,
        seen=lambda: f"{finished()} finished, a match held: {held.exists()}",
        pause=0.05,
    )


@pytest.mark.timeout(900)
def test_a_sigkilled_tournament_resumes_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # where the commands run above ran (their default folders)
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    gate = gate_bot(tmp_path / "armed", armed=True)
    args = tournament_args(db, "killed", gate)
    process = subprocess.Popen(botarena(*args), cwd=tmp_path, env=env, start_new_session=True)
    try:
        wait_for_finished(db, "killed", 3, process, gate.parent / "blocked")
    finally:
        os.killpg(process.pid, signal.SIGKILL)  # the coordinator and its pool workers, at once
        process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL

    before = recorded_before_the_kill(db, "killed", MATCHES)

    # the resume and the reference are not about their processes: they run in this one
    capsys.readouterr()
    resume = ["--resume", "killed", "--workers", "2", "--db", db, "--no-progress", "--unsandboxed"]
    code = main(["tournament", *resume])
    resumed = capsys.readouterr()
    assert code == 0, resumed.err
    assert "resuming tournament" in resumed.out
    assert f"{MATCHES - len(before)} matches played now" in resumed.out

    code = main(tournament_args(db, "reference", gate_bot(tmp_path / "plain", armed=False)))
    assert code == 0, capsys.readouterr().err

    store = Store.open(db)
    try:
        tournament = store.find_tournament("killed")
        assert tournament is not None and tournament.status == "finished"
        after = store.list_matches(tournament.id)
        assert len(after) == MATCHES and len({r.key for r in after}) == MATCHES
        assert all(r.status == "finished" for r in after)
        for row in after:
            if row.key in before:
                assert row == before[row.key]  # a result finished before the kill is kept as it was
        # every finished match has its replay file, and nothing was recorded twice
        assert all(store.replays.exists(r.replay_hash) for r in after)
        assert outcomes(store, "killed") == outcomes(store, "reference")
    finally:
        store.close()
