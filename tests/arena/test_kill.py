"""G11 (specs/arena.md, durability): `botarena arena run` SIGKILLed mid-event, then run again: no
result lost or doubled, the validation under way resumes, the ratings equal `rerate`; while the first
run lives, a second one is refused with exit code 2; Ctrl-C stops a run cleanly.

The coordinator runs as the real command in its own process group (its pool workers die with it).
The kill lands while rated matches are being played and a slow version's validation is under way
(each of its turns takes 0.2 s, so its validation lasts seconds): the test waits for both on the
store, never on time."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from botarena.arena.rerating import rebuild
from botarena.store import Store
from botarena.store.models import MatchPlayer, RatingHistory
from waiting import wait_until

from .arena_world import ATTACKER, PATIENT, STARTER, World, open_world

SLOW = STARTER.replace("def act(obs):", "import time\n\ndef act(obs):\n    time.sleep(0.2)")


def arena_run(db: str, competition: int, cwd: Path) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "botarena", "arena", "run", "--competition", str(competition)]
    return subprocess.Popen(
        [*command, "--db", db, "--workers", "2"],
        cwd=cwd, env={**os.environ, "PYTHONUNBUFFERED": "1"}, start_new_session=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def finished_rated(world: World) -> list[Any]:
    return world.runs.matches(world.competition.tournament_id, statuses=["finished"], kind="rated")


def results(world: World) -> dict[str, tuple[Any, ...]]:
    """Every finished match's result as recorded: key -> (ranks, statuses, replay, finished_at)."""
    found = world.runs.matches(world.competition.tournament_id, statuses=["finished"])
    return {m.key: (m.ranks, m.statuses, m.replay_hash, m.finished_at) for m in found}


def validating(world: World, version: int) -> bool:
    """`version` is validating, one of its validation games running."""
    running = world.runs.matches(world.competition.tournament_id, statuses=["running"], kind="validation")
    return world.version(version).state == "validating" and any(
        version in m.versions.values() for m in running
    )


def alive(process: subprocess.Popen[str]) -> bool:
    assert process.poll() is None, f"arena run ended early: {process.communicate()}"
    return True


@pytest.mark.timeout(900)
def test_g11_a_sigkilled_coordinator_resumes_with_nothing_lost_or_doubled(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    store = Store.open(db)
    try:
        world = open_world(store, 4, config=PATIENT)
        world.upload_all(STARTER, ATTACKER, STARTER)
        first = arena_run(db, world.competition.id, tmp_path)
        try:
            wait_until(lambda: alive(first) and len(finished_rated(world)) >= 4, "4 rated results")
            second = arena_run(db, world.competition.id, tmp_path)
            _, refused = second.communicate(timeout=120)
            assert second.returncode == 2
            assert f"competition {world.competition.id} already has a coordinator" in refused
            assert len(refused.strip().splitlines()) == 1  # one line, no traceback
            slow = world.upload(world.teams[3], SLOW)
            wait_until(lambda: alive(first) and validating(world, slow), "the validation under way")
        finally:
            os.killpg(first.pid, signal.SIGKILL)  # the coordinator and its workers, at once
            first.communicate(timeout=60)
        assert first.returncode == -signal.SIGKILL
        before = results(world)
        left = {m.key for m in world.runs.matches(world.competition.tournament_id, statuses=["running"])}
        assert any(key.startswith(f"val-{slow}-") for key in left)  # killed mid-validation

        again = arena_run(db, world.competition.id, tmp_path)
        try:
            wait_until(
                lambda: alive(again) and world.version(slow).state == "active"
                and len(finished_rated(world)) >= len([k for k in before if k.startswith("m")]) + 4,
                "the validation judged and 4 more rated results",
                seen=lambda: (world.version(slow).state, len(finished_rated(world))),
            )  # fmt: skip
            wait_until(
                lambda: alive(again) and left <= set(results(world)),
                "the matches the kill left, played again",
            )
        finally:
            again.send_signal(signal.SIGINT)  # Ctrl-C: stops cleanly
            out, err = again.communicate(timeout=120)
        assert again.returncode == 0, err
        assert "stopped (stopped)" in out

        after = results(world)
        for key, recorded in before.items():
            assert after[key] == recorded  # nothing recorded before the kill changed or went
        with world.store.read_session("test") as session:
            for match in world.runs.matches(world.competition.tournament_id, statuses=["finished"]):
                players = session.scalar(
                    select(func.count()).select_from(MatchPlayer).where(MatchPlayer.match_id == match.id)
                )
                rated = session.scalar(
                    select(func.count()).select_from(RatingHistory).where(RatingHistory.match_id == match.id)
                )
                assert players == len(match.seats)  # one result per seat: nothing doubled
                assert rated == (len(match.seats) if match.kind == "rated" else 0)  # rated once
        assert rebuild(world.store, world.competition.id).equal
        assert world.runs.lock_holder(world.competition.id) is None  # the clean stop released it
    finally:
        store.close()
