"""A browser watches a match that runs on a Dask worker (issue 18, item 3).

The tournament runs in this process on a Dask LocalCluster (one worker process); the worker posts
the match's live events to the server's `POST /api/live/ingest` (HttpLiveSink) and the page, opened
on the arena, lists the match, follows it live and sees it end.

Never a race with the machine's speed: one entrant is a gate bot that, at its fourth turn, waits
for a file the test creates only once the page shows the match live with steps in it (the match's
`pace_ms` of 100 makes the worker post every step as it comes, so the steps before the gate are
there to see); then the match plays to its end and the page must show the new steps and the end.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

TOKEN = "s3cret-live-token-0123456789"

GATE_BOT = textwrap.dedent(
    """
    import os
    import time

    GATE = {gate!r}  # by its absolute path: the bot runs from its artifact's unpacked copy
    calls = 0


    def act(payload):
        # a drones bot that never attacks; at its fourth turn it waits (bounded) for the test's gate
        global calls
        calls += 1
        if calls == 4:
            deadline = time.monotonic() + 50
            while not os.path.exists(GATE) and time.monotonic() < deadline:
                time.sleep(0.01)
        return {"newProducers": 1, "newSoldiers": 0, "launchAttack": False}
    """
)


@pytest.fixture(scope="module")
def dask_cluster() -> Iterator[Any]:
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed")
    pytest.importorskip("aiohttp", reason="the http extra (aiohttp) is not installed")
    with distributed.LocalCluster(
        n_workers=1, processes=True, threads_per_worker=1, dashboard_address=None, host="127.0.0.1",
        env={"BOTARENA_LIVE_TOKEN": TOKEN},  # a Dask worker's token is its own: tasks carry none
    ) as cluster:  # fmt: skip
        yield cluster


def test_a_browser_watches_a_match_on_a_dask_worker(
    page: Any, serve: Any, dask_cluster: Any, tmp_path: Path
) -> None:
    from botarena.bots.resolve import TRUSTED
    from botarena.server.app import create_app
    from botarena.server.live import LiveHub
    from botarena.server.spectators import SpectatorGate, SpectatorPolicy
    from botarena.store import Store
    from botarena.tournament.executor import close_executor, make_executor
    from botarena.tournament.service import Entrant, TournamentPlan, create_tournament, run_tournament

    bot = tmp_path / "gate_bot.py"
    gate = tmp_path / "gate"
    bot.write_text(GATE_BOT.replace("{gate!r}", repr(str(gate))))
    store = Store.open(f"sqlite:///{tmp_path / 'live.db'}", replay_dir=tmp_path / "replays")
    hub = LiveHub()
    plan = TournamentPlan(
        name="dask live",
        game="drones",
        format="round-robin",
        entrants=[Entrant("gated", str(bot)), Entrant("pacifist", "pacifist")],
        seed=3,
        # neither attacks: each round lasts its ten turns; the gate's wait is within the turn timeout
        overrides={"rounds": 3, "turn_timeout_ms": 60_000},
        options={"pace_ms": 100},
    )
    tournament = create_tournament(store, plan)
    executor = make_executor(0, dask_cluster.scheduler_address)
    pool = ThreadPoolExecutor(1)
    try:
        # open: this page follows the match as it is played (drones hides the state: by default
        # the public would see it only once it ends, tests/server/test_live_policy.py)
        open_gate = SpectatorGate(hub, SpectatorPolicy.open())
        url = serve(create_app(store, hub, live_token=TOKEN, spectators=open_gate)).url
        done = pool.submit(
            run_tournament,
            store,
            tournament.id,
            executor,
            isolation=TRUSTED,  # the test's own gate bot runs in the worker's process
            live_url=url,
            live_token=TOKEN,
        )
        key = f"t{tournament.id}/r01-m001"
        row = f'[data-testid="live-row"][data-key="{key}"]'
        page.goto(f"{url}/arena.html")
        page.wait_for_selector(f'{row} [data-testid="watch-live"]', timeout=60_000)  # a worker starting up
        assert page.locator(row).get_by_test_id("live-state").inner_text() == "live"
        page.locator(row).get_by_test_id("watch-live").click()
        page.wait_for_function(
            "window.__botarena && window.__botarena.live === 'live' && window.__botarena.stepCount > 0",
            timeout=60_000,
        )
        assert page.get_by_test_id("live").inner_text() == "LIVE"
        before = page.evaluate("window.__botarena.stepCount")
        assert before <= 3  # the gate holds the match at its fourth step
        gate.touch()  # let the match on: the page must now follow it
        page.wait_for_function(f"window.__botarena.stepCount > {before}", timeout=60_000)
        page.wait_for_function("window.__botarena.live === 'ended'", timeout=60_000)
        summary = done.result(timeout=120)
        assert summary.status == "finished" and summary.played == 1
        (match,) = store.list_matches(tournament.id)
        assert match.status == "finished" and match.steps == 30
        assert page.evaluate("window.__botarena.stepCount") == match.steps
        assert page.get_by_test_id("live").inner_text() == "ENDED"
        assert page.get_by_test_id("stored-replay").get_attribute("href") == (
            f"index.html?replay=%2Fapi%2Fmatches%2F{match.id}%2Freplay"
        )
    finally:
        gate.touch()  # never leave the worker's match waiting
        pool.shutdown(wait=True)
        close_executor(executor)
        hub.close()
        store.close()
