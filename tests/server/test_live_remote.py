"""Live matches from elsewhere (issue 18, item 3): a separate `botarena tournament` process with
pool workers, and a Dask worker, stream their matches to a server running here.

The server and the tournament share one store (as an organizer's machines share PostgreSQL): the
server's live list then links each streamed match to its stored replay. A worker's match returns
only once its end was posted (HttpLiveSink), so when the tournament is over the hub holds it all.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from botarena.cli import main
from botarena.store import Store
from botarena.tournament.service import Entrant, TournamentPlan, create_tournament, run_tournament

from .conftest import Server, get_json

pytest.importorskip("aiohttp", reason="the http extra (aiohttp) is not installed")

TOKEN = "s3cret-live-token-0123456789"


@pytest.fixture
def shared(tmp_path: Path) -> Iterator[tuple[str, Store]]:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    store = Store.open(url, replay_dir=tmp_path / "replays")
    yield url, store
    store.close()


def assert_streamed_whole(server: Server, store: Store, tournament_id: int) -> None:
    """Every match of the tournament is listed live, finished, with all its steps and its stored id."""
    status, listed = get_json(f"{server.url}/api/live")
    assert status == 200
    shown = {m["key"]: m for m in listed}
    matches = store.list_matches(tournament_id)
    assert matches and all(m.status == "finished" for m in matches)
    assert sorted(shown) == sorted(f"t{tournament_id}/{m.key}" for m in matches)
    for match in matches:
        live = shown[f"t{tournament_id}/{match.key}"]
        assert live["finished"] is True
        assert live["steps"] == match.steps > 0
        assert live["match_id"] == match.id
        assert live["replay_url"] == f"/api/matches/{match.id}/replay"
    assert server.hub.dropped_events == 0


def test_a_tournament_process_streams_to_the_server(
    start_server: Callable[..., Server], shared: tuple[str, Store], tmp_path: Path
) -> None:
    db, store = shared
    server = start_server(store, live_token=TOKEN)
    env = {k: v for k, v in os.environ.items() if k != "BOTARENA_LIVE_TOKEN"}
    env["BOTARENA_LIVE_TOKEN"] = TOKEN  # the token from the environment, as the docs advise
    done = subprocess.run(
        [sys.executable, "-m", "botarena", "tournament", "drones", "--bots", "zergy,adaptive,pacifist",
         "--workers", "2", "--db", db, "--name", "remote", "--live-url", server.url, "--no-progress",
         "--set", "rounds=3"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "finished: 3 matches played now, 0 failed" in done.stdout
    assert "dropped" not in done.stderr, done.stderr
    (tournament,) = store.list_tournaments()
    assert_streamed_whole(server, store, tournament.id)


def test_a_live_url_without_a_token_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], shared: tuple[str, Store]
) -> None:
    monkeypatch.delenv("BOTARENA_LIVE_TOKEN", raising=False)
    db, store = shared
    args = ["tournament", "drones", "--bots", "zergy,adaptive", "--workers", "0", "--db", db, "--no-progress"]
    for extra, token, message in (
        (["--live-url", "http://127.0.0.1:9"], None, "--live-url needs the server's live token"),
        (["--live-url", "ftp://x"], TOKEN, "the live URL must be http(s)://host[:port]"),
        (["--live-url", "http://127.0.0.1:9"], "short", "a live token must be 16 to 512"),
    ):
        if token is not None:  # the token from the environment: never on a command line (issue 25)
            monkeypatch.setenv("BOTARENA_LIVE_TOKEN", token)
        assert main([*args, *extra]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err
    assert store.list_tournaments() == []  # refused before anything was written
    # the server refuses a token too weak to guard ingest, before it binds its port
    monkeypatch.setenv("BOTARENA_LIVE_TOKEN", "short")
    assert main(["serve", "--db", db, "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "a live token must be 16 to 512" in err and len(err.strip().splitlines()) == 1, err


# ------------------------------------------------------------------------------------- Dask


@pytest.fixture(scope="module")
def dask_cluster() -> Iterator[Any]:
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed")
    with distributed.LocalCluster(
        n_workers=1, processes=True, threads_per_worker=1, dashboard_address=None, host="127.0.0.1",
        env={"BOTARENA_LIVE_TOKEN": TOKEN},  # a Dask worker's token is its own: tasks carry none
    ) as cluster:  # fmt: skip
        yield cluster


def test_a_dask_worker_streams_to_the_server(
    start_server: Callable[..., Server], shared: tuple[str, Store], dask_cluster: Any
) -> None:
    from botarena.tournament.executor import close_executor, make_executor

    _, store = shared
    server = start_server(store, live_token=TOKEN)
    plan = TournamentPlan(
        name="on dask",
        game="drones",
        format="round-robin",
        entrants=[Entrant("zergy", "zergy"), Entrant("adaptive", "adaptive")],
        seed=2,
        overrides={"rounds": 3},
    )
    tournament = create_tournament(store, plan)
    executor = make_executor(0, dask_cluster.scheduler_address)
    try:
        with ThreadPoolExecutor(1) as pool:
            summary = pool.submit(
                run_tournament, store, tournament.id, executor, live_url=server.url, live_token=TOKEN
            ).result(timeout=240)
    finally:
        close_executor(executor)
    assert summary.status == "finished" and summary.played == 1
    assert_streamed_whole(server, store, tournament.id)
