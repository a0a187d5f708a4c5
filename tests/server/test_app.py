"""The organizer's JSON API and pages over a real uvicorn, a real SQLite store and real tournaments."""

from __future__ import annotations

import gzip
import json
import logging
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from botarena.bots.inprocess import PythonBot
from botarena.core.registry import get_game
from botarena.runner import run_match
from botarena.server.app import create_app, serve
from botarena.server.live import LiveHub
from botarena.store import Store, StoreError
from waiting import wait_until

from .conftest import ENTRANTS, Arena, Server, SseStream, get, get_json


def one_line_error(status: int, body: Any) -> str:
    assert isinstance(body, dict) and set(body) == {"detail"}, body
    detail = body["detail"]
    assert isinstance(detail, str) and "\n" not in detail and "Traceback" not in detail, detail
    return detail


# ------------------------------------------------------------------------------------- a hand-made tournament


@dataclass(frozen=True)
class Spec:
    key: str
    round: int
    seats: tuple[str, ...]
    seed: int


def drones_replay(seed: int = 7) -> Any:
    starters = get_game("drones").starter_bots
    bots = [PythonBot(starters["zergy"], "zergy"), PythonBot(starters["adaptive"], "adaptive")]
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(run_match, get_game("drones"), bots, seed=seed).result(timeout=60).replay


@pytest.fixture(scope="module")
def replay() -> Any:
    return drones_replay()


@pytest.fixture
def mixed(tmp_path: Path, replay: Any) -> Iterator[tuple[Store, int, dict[str, int]]]:
    """A tournament with one match of each status, made through the store alone."""
    store = Store.open(f"sqlite:///{tmp_path / 'mixed.db'}", replay_dir=tmp_path / "replays")
    versions = [store.register_bot("drones", name, name) for name in ("zergy", "adaptive")]
    t = store.create_tournament(
        name="mixed",
        game="drones",
        format="round-robin",
        preset="default",
        config={},
        seed=1,
        options={},
        entrants=[(v.name, v.id) for v in versions],
    )
    store.add_matches(t.id, [Spec(f"r01-m00{i}", 1, ("zergy", "adaptive"), i) for i in range(1, 5)])
    store.mark_running(t.id, "r01-m001")
    store.record_result(
        t.id,
        "r01-m001",
        ranks=replay.result["ranks"],
        scores=replay.result["scores"],
        statuses=replay.statuses,
        time_used_ms=replay.time_used_ms,
        steps=len(replay.steps),
        duration_s=0.1,
        replay_gz=gzip.compress(replay.dumps()),
    )
    store.mark_running(t.id, "r01-m002")
    store.record_failure(t.id, "r01-m002", "the bot process could not start:\nno such file")
    store.mark_running(t.id, "r01-m003")
    ids = {m.key: m.id for m in store.list_matches(t.id)}
    try:
        yield store, t.id, ids
    finally:
        store.close()


# ------------------------------------------------------------------------------------- basics


def test_health_and_games(arena: Arena, start_server: Any) -> None:
    server = start_server(arena.store)
    status, health = get_json(server.url + "/api/health")
    assert status == 200
    assert health["status"] == "ok" and health["store"] == "sqlite" and health["live"] == 0
    status, games = get_json(server.url + "/api/games")
    drones = next(g for g in games if g["id"] == "drones")
    assert drones["min_players"] == drones["max_players"] == 2
    assert "default" in drones["presets"] and set(ENTRANTS) <= set(drones["starter_bots"])


def test_root_redirects_to_the_arena_and_pages_are_served(arena: Arena, start_server: Any) -> None:
    server = start_server(arena.store)
    status, headers, _ = get(server.url + "/")
    assert status == 307 and headers["location"] == "/arena.html"
    for page in ("/arena.html", "/tournament.html", "/index.html"):
        status, headers, _ = get(server.url + page)
        assert status == 200 and headers["content-type"].startswith("text/html"), page
    for script in ("/arena.js", "/arena-lib.js", "/tournament.js", "/player.js"):
        status, headers, _ = get(server.url + script)
        assert status == 200 and "javascript" in headers["content-type"], script


def test_openapi_schema_lists_the_api(arena: Arena, start_server: Any) -> None:
    server = start_server(arena.store)
    status, schema = get_json(server.url + "/openapi.json")
    assert status == 200
    for path in (
        "/api/health",
        "/api/games",
        "/api/tournaments",
        "/api/tournaments/{tournament_id}",
        "/api/tournaments/{tournament_id}/matches",
        "/api/matches/{match_id}",
        "/api/matches/{match_id}/replay",
        "/api/live",
        "/api/live/{key}/events",
    ):
        assert path in schema["paths"], path
    assert "TournamentOut" in schema["components"]["schemas"]


# ------------------------------------------------------------------------------------- tournaments


def test_tournaments_list_newest_first_with_counts(arena: Arena, start_server: Any) -> None:
    server = start_server(arena.store)
    status, listed = get_json(server.url + "/api/tournaments")
    assert status == 200
    assert [t["id"] for t in listed] == [arena.round_robin, arena.finished]
    cup = listed[1]
    assert cup["name"] == "cup" and cup["format"] == "drones-2018" and cup["status"] == "finished"
    assert [e["name"] for e in cup["entrants"]] == list(ENTRANTS)
    assert cup["matches"] == {
        "scheduled": 0,
        "running": 0,
        "queued": 0,
        "finished": 3,
        "failed": 0,
        "empty": 0,
        "total": 3,
    }
    assert cup["finished_at"] is not None
    assert get_json(server.url + "/api/tournaments?game=drones")[1] == listed
    assert get_json(server.url + "/api/tournaments?game=nosuchgame") == (200, [])


def test_tournament_leaderboard(arena: Arena, start_server: Any) -> None:
    server = start_server(arena.store)
    status, detail = get_json(server.url + f"/api/tournaments/{arena.finished}")
    assert status == 200
    assert detail["tournament"]["name"] == "cup"
    assert detail["tournament"]["matches"]["finished"] == 3
    board = detail["leaderboard"]
    rows = board["rows"]
    assert sorted(r["name"] for r in rows) == sorted(ENTRANTS)
    assert [r["rank"] for r in rows] == sorted(r["rank"] for r in rows)
    for row in rows:
        assert row["played"] == 2 and row["wins"] + row["draws"] + row["losses"] == 2
        assert row["ordinal"] == pytest.approx(row["mu"] - 3 * row["sigma"], abs=1e-6)
    assert board["pairs"]["names"] == list(ENTRANTS)
    cells = board["pairs"]["cells"]
    assert all(cells[i][i] is None for i in range(3))
    assert cells[0][1]["played"] == 1 and len(cells[0][1]["ci"]) == 2
    assert [s["entrant"] for s in board["standings"]] and len(board["standings"]) == 3
    _, duel = get_json(server.url + f"/api/tournaments/{arena.round_robin}")
    assert "standings" not in duel["leaderboard"]  # only the drones-2018 format has them


@pytest.mark.parametrize(
    ("path", "status", "words"),
    [
        ("/api/tournaments/999", 404, "no tournament 999"),
        ("/api/tournaments/abc", 422, "tournament_id"),
        ("/api/tournaments/0", 422, "greater than or equal to 1"),
        ("/api/tournaments/99999999999999999999999", 422, "tournament_id"),
        ("/api/tournaments/999/matches", 404, "no tournament 999"),
        ("/api/tournaments/{t}/matches?status=done", 422, "unknown status 'done'"),
        ("/api/tournaments/{t}/matches?limit=0", 422, "limit"),
        ("/api/tournaments/{t}/matches?limit=100000", 422, "limit"),
        ("/api/tournaments/{t}/matches?offset=-1", 422, "offset"),
        ("/api/tournaments/{t}/matches?limit=ten", 422, "limit"),
        ("/api/matches/999999", 404, "no match 999999"),
        ("/api/matches/-3", 422, "match_id"),
        ("/api/matches/999999/replay", 404, "no match 999999"),
        ("/api/live/t1/nope/events", 404, "no live match 't1/nope'"),
        ("/api/nothing-here", 404, "Not Found"),
    ],
)
def test_bad_requests_are_one_line_4xx(
    arena: Arena, start_server: Any, path: str, status: int, words: str
) -> None:
    server = start_server(arena.store)
    got, body = get_json(server.url + path.replace("{t}", str(arena.finished)))
    assert got == status, body
    assert words in one_line_error(got, body)


# ------------------------------------------------------------------------------------- matches


def test_match_list_pages_and_filters(arena: Arena, start_server: Any) -> None:
    server = start_server(arena.store)
    base = server.url + f"/api/tournaments/{arena.finished}/matches"
    status, page = get_json(base)
    assert status == 200 and page["total"] == 3 and page["offset"] == 0 and page["limit"] == 200
    keys = [m["key"] for m in page["matches"]]
    assert keys == sorted(keys, key=lambda k: (int(k[1:3]), k))
    first = page["matches"][0]
    assert first["status"] == "finished" and first["replay_url"] == f"/api/matches/{first['id']}/replay"
    assert first["live_url"] is None and len(first["seats"]) == 2 and first["steps"] > 0
    _, two = get_json(base + "?limit=2&offset=1")
    assert [m["key"] for m in two["matches"]] == keys[1:3] and two["total"] == 3
    _, failed = get_json(base + "?status=failed")
    assert failed == {"total": 0, "offset": 0, "limit": 200, "matches": []}


def test_match_detail_and_its_replay(arena: Arena, start_server: Any) -> None:
    server = start_server(arena.store)
    match = arena.store.list_matches(arena.finished)[0]
    status, detail = get_json(server.url + f"/api/matches/{match.id}")
    assert status == 200
    assert (detail["key"], detail["tournament_name"], detail["game"]) == (match.key, "cup", "drones")
    assert detail["ranks"] == match.ranks and detail["seats"] == match.seats
    status, headers, body = get(server.url + detail["replay_url"], headers={"Accept-Encoding": "gzip"})
    assert status == 200
    assert headers["content-type"] == "application/json" and headers["content-encoding"] == "gzip"
    replay = json.loads(gzip.decompress(body))
    assert replay["format"] == "botarena.replay" and len(replay["steps"]) == match.steps
    assert [p["name"] for p in replay["players"]] == match.seats


def test_matches_of_every_status(mixed: tuple[Store, int, dict[str, int]], start_server: Any) -> None:
    store, tid, ids = mixed
    hub = LiveHub()
    server = start_server(store, hub)
    hub.publish(
        {"type": "header", "key": f"t{tid}/r01-m003", "tournament_id": tid, "replay": {"players": []}}
    )
    _, page = get_json(server.url + f"/api/tournaments/{tid}/matches")
    by_key = {m["key"]: m for m in page["matches"]}
    assert [by_key[k]["status"] for k in sorted(by_key)] == ["finished", "failed", "running", "scheduled"]
    assert by_key["r01-m002"]["error"].startswith("the bot process could not start")
    assert by_key["r01-m003"]["live_key"] == f"t{tid}/r01-m003"
    assert by_key["r01-m003"]["live_url"] == f"/api/live/t{tid}/r01-m003/events"
    assert by_key["r01-m004"]["live_url"] is None and by_key["r01-m004"]["replay_url"] is None
    _, running = get_json(server.url + f"/api/tournaments/{tid}/matches?status=running")
    assert running["total"] == 1 and [m["key"] for m in running["matches"]] == ["r01-m003"]
    _, listed = get_json(server.url + "/api/tournaments")
    assert listed[0]["matches"] == {
        "scheduled": 1,
        "running": 1,
        "queued": 0,
        "finished": 1,
        "failed": 1,
        "empty": 0,
        "total": 4,
    }
    for key in ("r01-m002", "r01-m003", "r01-m004"):  # no replay (yet)
        status, body = get_json(server.url + f"/api/matches/{ids[key]}/replay")
        assert status == 404 and "has no replay yet" in one_line_error(status, body)
    # the leaderboard of a half-played tournament
    _, detail = get_json(server.url + f"/api/tournaments/{tid}")
    assert sum(r["played"] for r in detail["leaderboard"]["rows"]) == 2


def test_the_leaderboard_is_recomputed_only_when_results_change(
    mixed: tuple[Store, int, dict[str, int]], start_server: Any, replay: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import botarena.server.routes.tournaments as routes_module

    store, tid, _ = mixed
    calls: list[int] = []
    real = routes_module.tournament_board
    monkeypatch.setattr(routes_module, "tournament_board", lambda s, t: calls.append(t.id) or real(s, t))
    server = start_server(store)
    first = get_json(server.url + f"/api/tournaments/{tid}")[1]
    assert get_json(server.url + f"/api/tournaments/{tid}")[1] == first
    assert calls == [tid]  # the second answer came from the cache
    store.record_result(
        tid,
        "r01-m003",
        ranks=replay.result["ranks"],
        scores=replay.result["scores"],
        statuses=replay.statuses,
        time_used_ms=replay.time_used_ms,
        steps=len(replay.steps),
        duration_s=0.1,
        replay_gz=gzip.compress(replay.dumps()),
    )
    second = get_json(server.url + f"/api/tournaments/{tid}")[1]
    assert calls == [tid, tid]
    assert second["tournament"]["matches"]["finished"] == 2
    assert sum(r["played"] for r in second["leaderboard"]["rows"]) == 4


def test_a_deleted_replay_file_is_404(mixed: tuple[Store, int, dict[str, int]], start_server: Any) -> None:
    store, _, ids = mixed
    server = start_server(store)
    row = store.get_match(ids["r01-m001"])
    assert row is not None and row.replay_hash
    store.replay_path(row.replay_hash).unlink()
    status, body = get_json(server.url + f"/api/matches/{row.id}/replay")
    assert status == 404 and "replay not found" in one_line_error(status, body)


class Broken:
    """A store whose reads fail: the store's own one-line error, or a bug."""

    dialect = "sqlite"

    def __init__(self, error: Exception) -> None:
        self.error = error

    def list_tournaments(self, game: str | None = None) -> Any:
        raise self.error

    get_tournament = get_match = list_tournaments


def test_store_errors_are_503_and_bugs_500_without_traceback(start_server: Any) -> None:
    server = start_server(Broken(StoreError("cannot read tournaments: database is locked")))
    status, body = get_json(server.url + "/api/tournaments")
    assert status == 503
    assert one_line_error(status, body) == "store unavailable: cannot read tournaments: database is locked"
    server = start_server(Broken(RuntimeError("boom\nsecond line")))
    status, body = get_json(server.url + "/api/matches/1")
    assert status == 500
    assert one_line_error(status, body) == "internal error: RuntimeError: boom second line"


# ------------------------------------------------------------------------------------- live


def feed(
    hub: LiveHub, key: str, replay: Any, *, batch: int = 5, pause: float = 0.0, match_id: int = 1
) -> None:
    data = json.loads(replay.dumps())
    steps = data["steps"]
    head = {**data, "steps": [], "keyframes": data["keyframes"][:1]}
    tid = int(key.split("/")[0][1:])
    hub.publish(
        {"type": "header", "key": key, "tournament_id": tid, "match": key.split("/")[1], "replay": head}
    )
    for first in range(0, len(steps), batch):
        hub.publish({"type": "steps", "key": key, "first": first, "steps": steps[first : first + batch]})
        if pause:
            time.sleep(pause)
    fields = {k: data[k] for k in ("result", "end", "keyframes", "logs", "time_used_ms", "statuses")}
    hub.publish({"type": "end", "key": key, "match_id": match_id, "fields": fields})


def decode(stream: SseStream) -> tuple[list[str], list[Any]]:
    names, datas = [], []
    for event in stream.events():
        names.append(event.event)
        datas.append(json.loads(event.data) if event.event != "comment" else event.data)
    return names, datas


def test_live_listing_and_a_late_subscriber(arena: Arena, start_server: Any, sse: Any, replay: Any) -> None:
    hub = LiveHub()
    server = start_server(arena.store, hub)
    feed(hub, "t7/r01-m001", replay, match_id=42)
    status, listed = get_json(server.url + "/api/live")
    assert status == 200 and len(listed) == 1
    live = listed[0]
    assert (live["key"], live["tournament_id"], live["match"], live["game"]) == (
        "t7/r01-m001",
        7,
        "r01-m001",
        "drones",
    )
    assert live["players"] == ["zergy", "adaptive"] and live["steps"] == len(replay.steps)
    assert live["finished"] and live["match_id"] == 42 and live["replay_url"] == "/api/matches/42/replay"
    assert live["events_url"] == "/api/live/t7/r01-m001/events"

    stream = sse(server.url, live["events_url"])
    assert stream.status == 200
    assert stream.headers["content-type"].startswith("text/event-stream")
    assert stream.headers["cache-control"] == "no-store"
    names, datas = decode(stream)  # returns: the server ends the stream after "end"
    assert names == ["header", "steps", "end"]
    assert datas[0]["replay"]["players"][0]["name"] == "zergy" and datas[0]["replay"]["steps"] == []
    assert datas[1]["first"] == 0 and datas[1]["steps"] == json.loads(replay.dumps())["steps"]
    assert datas[2]["replay_url"] == "/api/matches/42/replay"
    assert datas[2]["fields"]["result"] == replay.result


def test_live_stream_follows_a_match_as_it_is_played(
    arena: Arena, start_server: Any, sse: Any, replay: Any
) -> None:
    hub = LiveHub()
    server = start_server(arena.store, hub, heartbeat_s=0.05)
    key = "t3/r02-m001"
    data = json.loads(replay.dumps())
    hub.publish({"type": "header", "key": key, "tournament_id": 3, "replay": {**data, "steps": []}})
    stream = sse(server.url, f"/api/live/{key}/events")
    assert stream.status == 200

    def later() -> None:
        time.sleep(0.2)  # long enough for a few heartbeats
        for first in range(0, len(data["steps"]), 10):
            hub.publish(
                {"type": "steps", "key": key, "first": first, "steps": data["steps"][first : first + 10]}
            )
            time.sleep(0.005)
        hub.publish({"type": "end", "key": key, "match_id": None, "fields": {"result": data["result"]}})

    thread = threading.Thread(target=later)
    thread.start()
    names, datas = decode(stream)
    thread.join(10)
    assert names[0] == "header" and names[-1] == "end"
    assert "comment" in names  # `: ping` while nothing happened
    steps = [s for d, n in zip(datas, names, strict=True) if n == "steps" for s in d["steps"]]
    assert steps == data["steps"]
    assert datas[-1]["replay_url"] is None


def test_a_client_that_goes_away_leaves_nothing_behind(arena: Arena, start_server: Any, replay: Any) -> None:
    hub = LiveHub()
    server = start_server(arena.store, hub, heartbeat_s=0.1)
    key = "t1/r01-m001"
    hub.publish({"type": "header", "key": key, "tournament_id": 1, "replay": {"players": []}})
    stream = SseStream(server.url, f"/api/live/{key}/events")
    first = next(stream.events())
    assert first.event == "header"
    assert len(hub._matches[key].waiters) == 1
    stream.close()
    wait_until(lambda: not hub._matches[key].waiters, "the closed stream's waiter leaving the hub")
    hub.publish({"type": "steps", "key": key, "first": 0, "steps": [{}]})  # nobody to wake: fine
    assert get_json(server.url + "/api/health")[0] == 200


# ------------------------------------------------------------------------------------- lifecycle


def test_lifespan_hooks_and_the_hub_closing(arena: Arena, start_server: Any) -> None:
    calls: list[str] = []
    hub = LiveHub()
    server: Server = start_server(
        arena.store, hub, on_startup=lambda: calls.append("up"), on_shutdown=lambda: calls.append("down")
    )
    assert calls == ["up"]
    server.server.should_exit = True
    server.thread.join(10)
    assert calls == ["up", "down"]
    hub.publish({"type": "header", "key": "t1/x", "replay": {}})
    assert len(hub) == 0  # closed with the app


def test_create_app_without_a_hub_has_an_empty_one(arena: Arena) -> None:
    app = create_app(arena.store)
    assert isinstance(app.state.hub, LiveHub) and len(app.state.hub) == 0


def test_serve_runs_until_stopped_and_calls_on_ready(arena: Arena) -> None:
    hub = LiveHub()
    stop = threading.Event()
    seen: dict[str, Any] = {}

    def on_ready(url: str) -> None:
        seen["url"] = url
        seen["health"] = get_json(url.replace("/arena.html", "/api/health"))
        stop.wait(10)  # e.g. a tournament running until the server stops
        seen["stopped"] = stop.is_set()

    thread = threading.Thread(
        target=serve, args=(arena.store,), kwargs={"port": 0, "hub": hub, "on_ready": on_ready, "stop": stop}
    )
    thread.start()
    wait_until(lambda: "health" in seen, "serve's on_ready reading its health", seen=lambda: seen)
    assert seen["url"].startswith("http://127.0.0.1:") and seen["url"].endswith("/arena.html")
    assert seen["health"][0] == 200
    stop.set()
    thread.join(15)
    assert not thread.is_alive()
    assert seen["stopped"] is True


def test_serve_ends_open_event_streams_when_it_stops(arena: Arena) -> None:
    """An open SSE stream must not hold the shutdown up: the hub is closed first, so uvicorn never
    has to cancel the stream at its graceful-shutdown timeout (which it would log as an error)."""
    hub = LiveHub()
    stop = threading.Event()
    seen: dict[str, str] = {}
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep(logging.WARNING)

    def on_ready(url: str) -> None:
        logging.getLogger("uvicorn.error").addHandler(handler)  # (uvicorn configured its loggers by now)
        seen["url"] = url

    hub.publish({"type": "header", "key": "t1/r01-m001", "tournament_id": 1, "replay": {"players": []}})
    thread = threading.Thread(
        target=serve, args=(arena.store,), kwargs={"port": 0, "hub": hub, "on_ready": on_ready, "stop": stop}
    )
    thread.start()
    wait_until(lambda: "url" in seen, "serve calling on_ready")
    stream = SseStream(seen["url"].removesuffix("/arena.html"), "/api/live/t1/r01-m001/events")
    try:
        events = stream.events()
        assert next(events).event == "header"
        stop.set()
        assert list(events) == []  # the stream ends with the server
    finally:
        stream.close()
        thread.join(15)
        logging.getLogger("uvicorn.error").removeHandler(handler)
    assert not thread.is_alive()
    assert [r.getMessage() for r in records] == []


def test_serve_reports_a_busy_port_in_one_line(arena: Arena) -> None:
    from botarena.server.viewer import bind_socket

    sock = bind_socket("127.0.0.1", 0)
    sock.listen()
    port = sock.getsockname()[1]
    try:
        with pytest.raises(OSError, match=f"cannot listen on 127.0.0.1:{port}"):
            serve(arena.store, port=port)
    finally:
        sock.close()


def test_dp_6_3_the_tournament_api_returns_a_games_own_standings(
    arena: Arena, start_server: Any, tmp_path: Path
) -> None:
    from botarena.tournament.service import Entrant, TournamentPlan, create_tournament, run_tournament

    store = Store.open(f"sqlite:///{tmp_path / 'pulse.db'}", replay_dir=tmp_path / "replays")
    try:
        plan = TournamentPlan(
            name="pulse",
            game="datspulse",
            format="round-robin",
            entrants=[Entrant(n, n) for n in ("forager", "raider", "random_walker")],
            seed=2,
            overrides={"turns": 5, "map_hexes_per_team": 300},
            players=3,
        )
        tournament = create_tournament(store, plan)
        with ThreadPoolExecutor(1) as pool:
            summary = pool.submit(run_tournament, store, tournament.id, None).result(timeout=120)
        assert summary.status == "finished"
        server = start_server(store)
        status, detail = get_json(server.url + f"/api/tournaments/{tournament.id}")
        assert status == 200
        table = detail["leaderboard"]["game_standings"]
        assert table["title"] == "DatsPulse final standings (spec 6.3)"
        assert [c["key"] for c in table["columns"]][:3] == ["place", "name", "points"]
        assert sorted(r["name"] for r in table["rows"]) == ["forager", "raider", "random_walker"]
        assert all(r["rounds"] == 3 for r in table["rows"])
        assert "standings" not in detail["leaderboard"]  # drones-2018's table is not a DatsPulse one
        # the drones tournaments keep their format's table and have no game table
        drones = start_server(arena.store)
        _, cup = get_json(drones.url + f"/api/tournaments/{arena.finished}")
        assert "game_standings" not in cup["leaderboard"] and len(cup["leaderboard"]["standings"]) == 3
    finally:
        store.close()
