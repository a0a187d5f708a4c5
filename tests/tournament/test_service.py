"""Tournaments end to end through the store: inline and in a process pool, live events, failures."""

from __future__ import annotations

import gzip
import threading
from concurrent.futures import Executor
from functools import partial
from pathlib import Path
from typing import Any

import orjson
import pytest
from sqlalchemy import delete

from botarena.bots.resolve import untrusted
from botarena.core.replay import Replay, read_replay
from botarena.runner.verify import verify_replay
from botarena.store import Store
from botarena.store.models import Artifact
from botarena.tournament.executor import close_executor, make_executor
from botarena.tournament.formats import FormatError, match_seed
from botarena.tournament.service import (
    Entrant,
    TournamentPlan,
    create_tournament,
    demo_plans,
    run_tournament,
    tournament_leaderboard,
)

STARTERS = ("adaptive", "randomonium", "tactician")


@pytest.fixture
def store(db_url: str, tmp_path: Path) -> Any:
    """The same tournaments on SQLite and on PostgreSQL (`db_url` in tests/conftest.py)."""
    store = Store.open(db_url, replay_dir=tmp_path / "replays")
    yield store
    store.close()


def drones_plan(name: str = "t", *, starters: tuple[str, ...] = STARTERS, **fields: Any) -> TournamentPlan:
    fields.setdefault("seed", 11)
    return TournamentPlan(
        name=name, game="drones", format="round-robin", entrants=[Entrant(s, s) for s in starters], **fields
    )


def results(store: Store, tournament_id: int) -> dict[str, tuple[Any, ...]]:
    return {
        row.key: (row.status, tuple(row.seats), row.seed, row.ranks, row.scores)
        for row in store.list_matches(tournament_id)
    }


def test_round_robin_inline_records_every_match_with_its_replay(store: Store) -> None:
    tournament = create_tournament(store, drones_plan())
    summary = run_tournament(store, tournament.id)
    assert summary.status == "finished" and summary.played == 3 and summary.failed == 0
    rows = store.list_matches(tournament.id)
    assert sorted(tuple(sorted(r.seats)) for r in rows) == [
        ("adaptive", "randomonium"),
        ("adaptive", "tactician"),
        ("randomonium", "tactician"),
    ]
    for row in rows:
        assert row.status == "finished" and row.attempts == 1
        assert row.seed == match_seed(11, row.key)  # every match seed derives from the tournament seed
        replay = read_replay(store.replay_path(row.replay_hash))
        assert [p["name"] for p in replay.players] == row.seats
        assert replay.seed == row.seed and replay.result["ranks"] == row.ranks
        assert verify_replay(replay).identical
    assert store.get_tournament(tournament.id).status == "finished"
    board = tournament_leaderboard(store, tournament.id)
    names = [r["name"] for r in board["leaderboard"]["rows"]]
    assert sorted(names) == sorted(STARTERS)
    assert [r.name for r in store.ratings(tournament.id)] == names  # saved ratings = leaderboard order
    assert board["tournament"]["matches"] == {
        "scheduled": 0,
        "running": 0,
        "finished": 3,
        "failed": 0,
        "empty": 0,
    }


def test_a_process_pool_gives_the_same_results_as_inline(store: Store) -> None:
    inline = create_tournament(store, drones_plan("inline"))
    run_tournament(store, inline.id)
    pooled = create_tournament(store, drones_plan("pooled"))
    executor = make_executor(2)
    try:
        summary = run_tournament(store, pooled.id, executor)
    finally:
        close_executor(executor)
    assert summary.status == "finished"
    assert results(store, pooled.id) == results(store, inline.id)


def test_live_events_carry_the_whole_replay(store: Store) -> None:
    events: list[dict[str, Any]] = []
    lock = threading.Lock()

    def sink(event: dict[str, Any]) -> None:
        with lock:
            events.append(event)

    tournament = create_tournament(store, drones_plan(starters=("adaptive", "tactician")))
    run_tournament(store, tournament.id, live=sink)
    kinds = [e["type"] for e in events]
    assert kinds[0] == "header" and kinds[-1] == "end" and set(kinds[1:-1]) <= {"steps"}
    (row,) = store.list_matches(tournament.id)
    assert {e["key"] for e in events} == {f"t{tournament.id}/{row.key}"}
    assert events[-1]["match_id"] == row.id
    stored = read_replay(store.replay_path(row.replay_hash)).to_json()
    rebuilt = dict(events[0]["replay"])
    for event in events[1:-1]:
        assert event["first"] == len(rebuilt["steps"])
        rebuilt["steps"] = rebuilt["steps"] + event["steps"]
    rebuilt.update(events[-1]["fields"])
    assert orjson.loads(orjson.dumps(rebuilt)) == stored


def test_stop_then_resume_finishes_exactly_once(store: Store) -> None:
    plan = drones_plan(starters=("adaptive", "randomonium", "tactician", "zergy"), options={"cycles": 2})
    tournament = create_tournament(store, plan)
    stop = threading.Event()

    class StopAfterThree:
        def update(self, *, total: int, done: int, running: int, failed: int) -> None:
            if done >= 3:
                stop.set()

    first = run_tournament(store, tournament.id, progress=StopAfterThree(), stop=stop)
    assert first.status == "stopped" and first.played == 3
    before = {r.key: r for r in store.list_matches(tournament.id, status="finished")}
    second = run_tournament(store, tournament.id)
    assert second.status == "finished" and second.played == 12 - 3
    after = store.list_matches(tournament.id)
    assert len(after) == 12 and all(r.status == "finished" for r in after)
    for row in after:
        if row.key in before:
            assert row == before[row.key]  # untouched: same replay, same times
    reference = create_tournament(store, TournamentPlan(**{**plan.__dict__, "name": "reference"}))
    run_tournament(store, reference.id)
    assert results(store, tournament.id) == results(store, reference.id)


def test_bad_plans_fail_before_anything_is_written(store: Store, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown bot"):
        create_tournament(store, drones_plan(starters=("adaptive", "no-such-bot")))
    with pytest.raises(FormatError):
        create_tournament(store, drones_plan(starters=("adaptive",)))
    with pytest.raises(ValueError, match="rounds"):
        create_tournament(store, drones_plan(overrides={"rounds": -5}))
    assert store.list_tournaments() == []
    create_tournament(store, drones_plan("same"))
    with pytest.raises(FormatError, match="exists already"):
        create_tournament(store, drones_plan("same"))


def test_a_bot_that_cannot_be_played_is_a_failed_match_not_a_failed_tournament(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOTARENA_CACHE_DIR", str(tmp_path / "cache"))  # no copy unpacked already
    bot = tmp_path / "vanishing.py"
    bot.write_text("def act(observation):\n    return {'newSoldiers': 0}\n")
    plan = TournamentPlan(
        name="t",
        game="drones",
        format="round-robin",
        entrants=[Entrant("vanishing", str(bot)), Entrant("adaptive", "adaptive"), Entrant("zergy", "zergy")],
    )
    tournament = create_tournament(store, plan)
    bot.unlink()  # workers run the stored artifact (tests/tournament/test_artifacts_dask.py) ...
    with store._write_connection("lose the bot's files") as conn:
        conn.execute(delete(Artifact))  # ... which the store has lost: its matches cannot be played
    summary = run_tournament(store, tournament.id)
    assert summary.status == "finished" and summary.failed == 2 and summary.played == 1
    failed = store.list_matches(tournament.id, status="failed")
    assert len(failed) == 2 and all("vanishing" in r.seats and r.error for r in failed)
    assert all("is not in the store" in str(r.error) for r in failed)
    rows = tournament_leaderboard(store, tournament.id)["leaderboard"]["rows"]
    assert {r["name"]: r["played"] for r in rows} == {"vanishing": 0, "adaptive": 1, "zergy": 1}


KILLER_BOT = """
import os, signal

def act(observation):
    os.kill(os.getppid(), signal.SIGKILL)  # unsandboxed, its parent is its pool worker
"""


def test_a_killed_worker_is_replaced_and_its_match_retried_then_failed(store: Store, tmp_path: Path) -> None:
    bot = tmp_path / "killer.py"
    bot.write_text(KILLER_BOT)
    plan = TournamentPlan(
        name="t",
        game="drones",
        format="round-robin",
        entrants=[Entrant("adaptive", "adaptive"), Entrant("zergy", "zergy"), Entrant("killer", str(bot))],
    )
    unsandboxed = untrusted(sandbox=None)
    tournament = create_tournament(store, plan, isolation=unsandboxed)
    factory = partial(make_executor, 2)
    executor: Executor = factory()
    try:
        summary = run_tournament(
            store, tournament.id, executor, executor_factory=factory, isolation=unsandboxed
        )
    finally:
        close_executor(executor)
    assert summary.status == "finished"
    rows = {tuple(sorted(r.seats)): r for r in store.list_matches(tournament.id)}
    assert rows[("adaptive", "zergy")].status == "finished"
    for pair in (("adaptive", "killer"), ("killer", "zergy")):
        assert rows[pair].status == "failed" and rows[pair].attempts == 3
        assert "BrokenProcessPool" in rows[pair].error


def test_drones_2018_event_preset_uses_the_event_config(store: Store) -> None:
    plan = TournamentPlan(
        name="event",
        game="drones",
        format="drones_2018_event",
        entrants=[Entrant(s, s) for s in ("adaptive", "zergy", "pacifist")],
        overrides={"rounds": 3},  # the plan's own overrides win over the preset's (1000 rounds)
    )
    tournament = create_tournament(store, plan)
    assert tournament.format == "drones-2018" and tournament.preset == "bravolt2018"
    assert tournament.config == {"rounds": 3, "turn_limit": 10, "defender_bonus": 1}
    run_tournament(store, tournament.id)
    row = store.list_matches(tournament.id)[0]
    replay = Replay.from_json(orjson.loads(gzip.decompress(store.replay_path(row.replay_hash).read_bytes())))
    assert replay.config["rules"] == "bravolt2018" and replay.config["rounds"] == 3
    assert replay.config["turn_limit"] == 10 and replay.config["defender_bonus"] == 1
    board = tournament_leaderboard(store, tournament.id)["leaderboard"]
    assert [s["entrant"] for s in board["standings"]]  # the spec 6.3 table is there


def test_demo_plans_cover_every_registered_game() -> None:
    from botarena.core.registry import game_ids

    plans = demo_plans(seed=3, pace_ms=5)
    assert sorted(p.game for p in plans) == game_ids()
    for plan in plans:
        # marked as the demo's, with its cycle: the demo's retention deletes nothing without the mark
        assert plan.format == "round-robin" and plan.seed == 3
        assert plan.options == {"pace_ms": 5, "demo_cycle": 3}
    by_game = {plan.game: plan for plan in plans}
    # a round robin needs 2 seats at least: DatsPulse (1-100 teams) declares its demo's shape
    assert by_game["datspulse"].players == 3 and by_game["datspulse"].overrides == {"turns": 100}
    assert all(plan.players is not None and plan.players >= 2 for plan in plans)


def test_demo_plans_lay_given_overrides_over_the_games_own() -> None:
    """`serve --demo-set`: a game's own demo overrides stay unless a key is given; other games untouched."""
    given = {"craftingquest": {"rounds": 10}, "drones": {"rounds": 2}}
    by_game = {plan.game: plan for plan in demo_plans(seed=1, overrides=given)}
    assert by_game["craftingquest"].overrides == {"width": 50, "height": 50, "rounds": 10}
    assert by_game["drones"].overrides == {"rounds": 2}
    assert by_game["datspulse"].overrides == {"turns": 100}  # the game's own, as nothing was given


def test_a_dask_cluster_gives_the_same_results_as_inline(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    from botarena.tournament.executor import dask_executor

    store = Store.open(f"sqlite:///{tmp_path / 'arena.db'}", replay_dir=tmp_path / "replays")

    inline = create_tournament(store, drones_plan("inline"))
    run_tournament(store, inline.id)
    on_dask = create_tournament(store, drones_plan("dask"))
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, host="127.0.0.1"
    )
    try:
        executor = dask_executor(cluster.scheduler_address)  # what `--dask ADDRESS` does
        try:
            summary = run_tournament(store, on_dask.id, executor)
        finally:
            close_executor(executor)
    finally:
        cluster.close()
    assert summary.status == "finished" and summary.played == 3
    assert results(store, on_dask.id) == results(store, inline.id)
    store.close()


def test_an_unreachable_dask_scheduler_is_one_line() -> None:
    pytest.importorskip("distributed")
    from botarena.tournament.executor import dask_executor

    with pytest.raises(ValueError, match=r"cannot reach the Dask scheduler at tcp://127\.0\.0\.1:9"):
        dask_executor("tcp://127.0.0.1:9", timeout_s=1)
