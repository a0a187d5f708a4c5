"""The arena's live list and its running counts say what is being played now.

One tournament of three matches, in the three states a match handed to the workers can be in: one
being played (its live header came), one queued (handed out, marked running in the store, not
started: no live event yet) and one finished (its end came; the hub keeps it a while for late
viewers). `/api/live?state=running`, which the arena page polls, lists only the first; the
tournament's counts say 1 running, 1 queued, 1 finished. A tournament whose matches this server
never sees played (run elsewhere, not streamed here) keeps the store's word: running."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest

from botarena.bots.resolve import untrusted
from botarena.server.app import live_key
from botarena.server.live import LiveHub
from botarena.store import Store
from botarena.tournament.service import Entrant, TournamentPlan, create_tournament, tournament_format

from .conftest import get_json

NO_SANDBOX = untrusted(sandbox=None)


def three_matches(store: Store, name: str) -> tuple[int, list[str]]:
    """A tournament of rps with three matches scheduled; (its id, their keys)."""
    plan = TournamentPlan(name, "rps", "round-robin", [Entrant(s, s) for s in ("rock", "cycler", "copycat")])
    tournament = create_tournament(store, plan, isolation=NO_SANDBOX)
    specs = tournament_format(tournament).schedule([], {})
    store.add_matches(tournament.id, specs)
    return tournament.id, sorted(spec.key for spec in specs)


def header(tournament_id: int, key: str) -> dict[str, Any]:
    replay = {"game": "rps", "players": [{"seat": 0, "name": "rock"}, {"seat": 1, "name": "cycler"}]}
    return {
        "type": "header",
        "key": live_key(tournament_id, key),
        "tournament_id": tournament_id,
        "match": key,
        "replay": replay,
    }


def finish(store: Store, tournament_id: int, key: str) -> int:
    store.record_result(
        tournament_id,
        key,
        ranks=[1, 2],
        scores=[1.0, 0.0],
        statuses=[{"OK": 1}, {"OK": 1}],
        time_used_ms=[0.0, 0.0],
        steps=1,
        duration_s=0.01,
        replay_gz=gzip.compress(f"a replay of {key}".encode()),
    )
    row = store.find_match(tournament_id, key)
    assert row is not None
    return row.id


@pytest.fixture
def store(tmp_path: Path) -> Any:
    store = Store.open(f"sqlite:///{tmp_path / 'arena.db'}", replay_dir=tmp_path / "replays")
    yield store
    store.close()


def test_only_the_match_being_played_is_live_and_counted_running(store: Store, start_server: Any) -> None:
    cup, (played, running, queued) = three_matches(store, "cup")
    elsewhere, (away, *_) = three_matches(store, "elsewhere")
    store.mark_running_many(cup, [played, running, queued])  # all three handed to the workers
    store.mark_running_many(elsewhere, [away])
    hub = LiveHub()
    server = start_server(store, hub)
    hub.publish(header(cup, played))
    match_id = finish(store, cup, played)
    hub.publish({"type": "end", "key": live_key(cup, played), "match_id": match_id, "fields": {}})
    hub.publish(header(cup, running))  # `queued` has not started: no live event

    status, listed = get_json(server.url + "/api/live?state=running")
    assert status == 200
    assert [(m["key"], m["state"], m["finished"]) for m in listed] == [
        (live_key(cup, running), "running", False)
    ]
    status, everything = get_json(server.url + "/api/live")  # (the just finished one too, for a while)
    assert {m["key"]: m["state"] for m in everything} == {
        live_key(cup, running): "running",
        live_key(cup, played): "finished",
    }
    status, finished = get_json(server.url + "/api/live?state=finished")
    assert [m["key"] for m in finished] == [live_key(cup, played)]

    status, tournaments = get_json(server.url + "/api/tournaments")
    counts = {t["name"]: t["matches"] for t in tournaments}
    assert counts["cup"] == {
        "scheduled": 0,
        "running": 1,
        "queued": 1,
        "finished": 1,
        "failed": 0,
        "empty": 0,
        "total": 3,
    }
    # never seen played here: the server cannot tell queued from running, and says what the store says
    assert counts["elsewhere"] == {
        "scheduled": 2,
        "running": 1,
        "queued": 0,
        "finished": 0,
        "failed": 0,
        "empty": 0,
        "total": 3,
    }
    status, detail = get_json(server.url + f"/api/tournaments/{cup}")
    assert detail["tournament"]["matches"] == counts["cup"]

    # the running one ends: nothing is live, and the queued one is still queued
    finish(store, cup, running)
    hub.publish({"type": "end", "key": live_key(cup, running), "match_id": None, "fields": {}})
    status, listed = get_json(server.url + "/api/live?state=running")
    assert listed == []
    status, detail = get_json(server.url + f"/api/tournaments/{cup}")
    matches = detail["tournament"]["matches"]
    assert (matches["running"], matches["queued"], matches["finished"]) == (0, 1, 2)


def test_an_unknown_live_state_is_one_clear_line(store: Store, start_server: Any) -> None:
    server = start_server(store, LiveHub())
    status, body = get_json(server.url + "/api/live?state=queued")
    assert status == 422 and body["detail"] == "unknown state 'queued' (expected running or finished)"
