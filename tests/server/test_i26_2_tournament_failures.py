"""Issue 26, item 2: the tournament page says who failed. `GET /api/tournaments/{id}` carries the
leaderboard's `failures` (counts per entrant, the first reason, `dead` for one that never started),
and tournament.html has the failures column, the Failures card and the dead-entrant warning that
tournament.js fills from it."""

from __future__ import annotations

import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from botarena.bots.resolve import untrusted
from botarena.store import Store
from botarena.tournament.service import Entrant, TournamentPlan, create_tournament, run_tournament

from .conftest import Server, get, get_json


def _failing_tournament(store: Store, tmp_path: Path) -> int:
    (tmp_path / "crashy.py").write_text("def act(obs):\n    return 1 // 0\n")
    (tmp_path / "dead.py").write_text("raise SystemExit(3)\n")
    entrants = [
        Entrant("bad", str(tmp_path / "crashy.py")),
        Entrant("dead", f"cmd:{sys.executable} {tmp_path / 'dead.py'}"),
        Entrant("ok", "pacifist"),
    ]
    isolation = untrusted(sandbox=None)
    plan = TournamentPlan(
        name="cup", game="drones", format="round-robin", entrants=entrants, seed=5, overrides={"rounds": 2}
    )
    tournament = create_tournament(store, plan, isolation=isolation)
    with ThreadPoolExecutor(1) as pool:
        summary = pool.submit(run_tournament, store, tournament.id, None, isolation=isolation).result(300)
    assert summary.status == "finished"
    return tournament.id


def test_i26_2_the_tournament_api_and_page_name_the_failing_entrants(
    store: Store, tmp_path: Path, start_server: Callable[..., Server]
) -> None:
    tournament_id = _failing_tournament(store, tmp_path)
    server = start_server(store)
    status, detail = get_json(f"{server.url}/api/tournaments/{tournament_id}")
    assert status == 200
    failures = {entrant["name"]: entrant for entrant in detail["leaderboard"]["failures"]}
    assert sorted(failures) == ["bad", "dead"]  # "ok" never failed
    bad, dead = failures["bad"], failures["dead"]
    assert (bad["played"], bad["counts"]["crashed"], bad["dead"]) == (2, 2, False)
    assert bad["first"]["status"] == "CRASHED" and "ZeroDivisionError" in bad["first"]["detail"]
    assert bad["line"].startswith("crashed 2/2: CRASHED (bot_error) at step 1: ")
    assert (dead["counts"]["never_started"], dead["dead"]) == (2, True)
    assert dead["first"]["where"] == "start" and isinstance(dead["first"]["match_id"], int)

    status, _, page = get(f"{server.url}/tournament.html?id={tournament_id}")
    assert status == 200
    html = page.decode()
    for hook in (
        'data-testid="failures"',
        'id="failure-rows"',
        'data-testid="dead-warning"',
        ">failures</th>",
    ):
        assert hook in html
    status, _, script = get(f"{server.url}/tournament.js")
    assert status == 200 and b"renderFailures(detail.leaderboard)" in script
