"""The real-time round lifecycle (spec §7.3) over real HTTP: lobby, running, break and the next lobby;
the register codes 1/2/3/8; a cancelled round; a final series that ends IDLE with its standings in the
store and survives a restart; the rate limit (§7.1). Timing is measured, never asserted tightly."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from botarena.core.replay import read_replay
from botarena.runner.verify import verify_replay
from botarena.server.datspulse.server import DatsPulseServer
from botarena.server.datspulse.wire import LOBBY_ARENA
from botarena.store import Store

from .conftest import Client, DpServer, ManualClock, make_settings, run

Start = Callable[..., DpServer]


def test_dp73_lobby_running_break_next_lobby_and_register_codes(start_dp: Start) -> None:
    """Each phase is held on a test clock while its calls are made over HTTP, then the clock is
    moved to the phase's end: the calls land in the phase they check however loaded the machine,
    and no phase's length is waited out (dp63 below plays a series on the real clock)."""
    settings = make_settings(
        lobby_seconds=2.0,
        turns=5,
        turn_seconds=1.0,
        break_seconds=8.0,
        max_teams=2,
        rate_limit_per_second=1000,
    )
    clock = ManualClock()
    server = start_dp(settings, clock=clock)

    async def lobby(session: Any) -> None:
        alpha, beta, gamma = (Client(session, server.api, f"tok-{n}") for n in ("alpha", "beta", "gamma"))
        status, _, reg = await alpha.call("POST", "/register")
        assert status == 200 and reg["realm"] == "antprotocol-test-1" and reg["name"] == "alpha"
        assert reg["lobbyEndsIn"] in (1, 2) and 0 < reg["nextTurn"] <= 2.0
        assert (await alpha.call("POST", "/register"))[0] == 200  # repeating it is harmless
        assert (await beta.call("PUT", "/register"))[0] == 200
        status, _, full = await gamma.call("POST", "/register")
        assert (status, full) == (400, {"code": 8, "message": "registration is full"})
        status, _, view = await alpha.call("GET", "/arena")
        assert status == 200 and view == LOBBY_ARENA and list(view) == list(LOBBY_ARENA)
        status, _, reply = await alpha.call("POST", "/move", json_body={"moves": [{"ant": "a1", "path": []}]})
        assert status == 200 and reply["errors"] == ["ant a1 is dead"] and reply["ants"] == []
        assert await alpha.call("GET", "/logs") == (200, await _headers(alpha, "/logs"), [])
        for path in ("/arena", "/logs"):
            status, _, body = await gamma.call("GET", path)
            assert (status, body["code"]) == (400, 3)

    run(lobby)
    with server.series.lock:
        assert server.series.current is not None
        _move_to(server, clock, server.series.current.start_at)
    assert server.series.phase.value == "running"

    async def running(session: Any) -> None:
        alpha, gamma = Client(session, server.api, "tok-alpha"), Client(session, server.api, "tok-gamma")
        status, _, body = await gamma.call("POST", "/register")
        assert (status, body["code"]) == (400, 2)
        assert body["message"].startswith("you are too late, lobby ended; next rounds: [antprotocol-test-2 ")
        status, _, body = await gamma.call("POST", "/move", json_body={})
        assert (status, body["code"]) == (400, 3)
        status, _, view = await alpha.call("GET", "/arena")
        assert status == 200 and len(view["home"]) == 3 and view["nextTurnIn"] > 0

    run(running)
    for turn in range(1, 6):  # turn by turn, each at its own instant, as the conductor would
        with server.series.lock:
            live = server.series.current
            assert live is not None and live.round.turn_no == turn - 1
            _move_to(server, clock, live.due(turn))
    server.series.record_steps()
    assert server.series.phase.value == "break"

    async def after(session: Any) -> None:
        alpha, gamma = Client(session, server.api, "tok-alpha"), Client(session, server.api, "tok-gamma")
        status, _, view = await alpha.call("GET", "/arena")
        assert status == 200 and view["turnNo"] == 5 and view["nextTurnIn"] == 0  # the final state
        status, _, reply = await alpha.call("POST", "/move", json_body={})
        assert status == 200 and reply["errors"] == ["round is over"] and reply["nextTurnIn"] == 0
        status, _, logs = await alpha.call("GET", "/logs")
        assert status == 200 and logs and logs[-1]["message"].startswith("turn 5: ")
        for client, method, path in (
            (gamma, "GET", "/arena"),
            (gamma, "POST", "/register"),
            (alpha, "POST", "/register"),
        ):
            status, _, body = await client.call(method, path)
            assert (status, body["code"]) == (400, 1)
            assert body["message"].startswith("no active game: you are too late to register; next rounds: [")
        status, _, rounds = await alpha.call("GET", "/rounds")
        by_name = {r["name"]: r["status"] for r in rounds["rounds"]}
        assert by_name == {
            "antprotocol-test-1": "finished",
            "antprotocol-test-2": "pending",
            "antprotocol-test-3": "pending",
        }

    run(after)
    with server.series.lock:
        _move_to(server, clock, clock.now + 7.9)  # the break is not over before its 8 s
        assert server.series.phase.value == "break"
        _move_to(server, clock, server.series.break_end)
        assert server.series.phase.value == "lobby"  # a test series loops
        assert server.series.current is not None and server.series.current.name == "antprotocol-test-2"
        first = server.series.rounds[0]
    assert len(first.lags_s) == 5 and min(first.lags_s) >= 0  # every transition ran, none early


def _move_to(server: DpServer, clock: ManualClock, instant: float) -> None:
    """Set the test clock to `instant` and make every change due by then (caller holds the lock)."""
    clock.now = instant
    server.series.advance(clock())


async def _headers(client: Client, path: str) -> dict[str, str]:
    return (await client.call("GET", path))[1]


def test_dp73_round_with_too_few_teams_is_cancelled(start_dp: Start, store: Store) -> None:
    settings = make_settings(lobby_seconds=0.5, break_seconds=30.0, min_teams=2, rate_limit_per_second=1000)
    server = start_dp(settings, store, register=("alpha",))
    server.wait_phase("break")
    with server.series.lock:
        live = server.series.rounds[0]
        assert live.status.value == "cancelled" and "min_teams is 2" in (live.cancel_reason or "")
    status, _, body = run(lambda session: Client(session, server.api, "tok-alpha").call("GET", "/arena"))
    assert (status, body["code"]) == (400, 1)  # nobody played the cancelled round
    status, _, rounds = run(lambda session: Client(session, server.api, "tok-alpha").call("GET", "/rounds"))
    assert rounds["rounds"][-1] == {
        **rounds["rounds"][-1],
        "name": "antprotocol-test-1",
        "status": "finished",
    }
    assert server.dp.recorder.flush()
    tournament = store.find_tournament("antprotocol-test")
    assert tournament is not None
    (match,) = store.list_matches(tournament.id)
    assert match.status == "failed" and (match.error or "").startswith("cancelled: 1 teams registered")


def test_dp63_final_series_ends_idle_with_standings_persisted_and_survives_restart(
    start_dp: Start, db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On SQLite and (with BOTARENA_TEST_POSTGRES_URL) PostgreSQL, through the same code."""
    store = Store.open(db_url, replay_dir=tmp_path / "replays")
    try:
        _final_series(start_dp, store, monkeypatch)
    finally:
        store.close()


def _final_series(start_dp: Start, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = make_settings(
        series="final",
        final_rounds=2,
        map_generator="cycle",
        lobby_seconds=1.5,
        turns=4,
        turn_seconds=0.1,
        break_seconds=0.3,
        rate_limit_per_second=1000,
    )
    server = start_dp(settings, store)

    async def keep_registering(session: Any) -> None:
        clients = [Client(session, server.api, t) for t in ("tok-alpha", "tok-beta")]
        for _ in range(400):  # a counted loop: register in every lobby until the series is over
            with server.series.lock:
                if server.series.phase.value == "idle":
                    return
            for client in clients:
                await client.call("POST", "/register")
            await asyncio.sleep(0.02)

    run(keep_registering)
    assert server.wait_phase("idle") == "idle"
    assert server.dp.recorder.flush()
    tournament = store.find_tournament("antprotocol-final")
    assert (
        tournament is not None and tournament.status == "finished" and tournament.format == "datspulse-final"
    )
    matches = store.list_matches(tournament.id)
    assert [(m.key, m.status, sorted(m.seats)) for m in matches] == [  # seats: registration order
        ("antprotocol-final-1", "finished", ["alpha", "beta"]),
        ("antprotocol-final-2", "finished", ["alpha", "beta"]),
    ]
    assert all(m.replay_hash and m.ranks and m.steps == 4 for m in matches)
    # map_generator = cycle: round 2 played `mirror`, and its replay says so, so it re-runs exactly
    for match, generator in zip(matches, ("scatter", "mirror"), strict=True):
        replay = read_replay(store.replay_path(match.replay_hash or ""))
        assert replay.config["map_generator"] == generator
        report = verify_replay(replay)
        assert report.identical, str(report)
    standings = server.dp.recorder.standings
    assert standings is not None and sorted(row["name"] for row in standings) == ["alpha", "beta"]
    assert all({"place", "points", "calories", "unitsLost", "active"} <= set(row) for row in standings)
    status, _, organiser = run(
        lambda session: Client(session, server.api, None).call("GET", "/datspulse/series")
    )
    assert status == 200 and organiser["phase"] == "idle" and organiser["standings"] == standings

    # a restart with the same series name carries on from the store: the series is over, its rounds listed
    again = DatsPulseServer(settings, store=store)
    try:
        again.start()
        with again.series.lock:
            again.series.advance(again.series.clock())
            assert again.series.phase.value == "idle"
            listing = again.series.rounds_listing(again.series.clock())
        assert [r["name"] for r in listing["rounds"]] == ["antprotocol-final-2", "antprotocol-final-1"]
        assert again.recorder.flush() and again.recorder.standings == standings
    finally:
        again.stop()


def test_dp71_rate_limit_burst_and_refused_move_sets_no_orders(start_dp: Start) -> None:
    settings = make_settings(lobby_seconds=0.5, turn_seconds=20.0, turns=3)  # 3 requests per second
    server = start_dp(settings, register=("alpha",))  # (in process: the window starts empty)
    server.wait_phase("running")

    async def burst(session: Any) -> None:
        alpha = Client(session, server.api, "tok-alpha")
        for _ in range(5):  # 401s count for nothing
            assert (await Client(session, server.api, "tok-bad").call("GET", "/arena"))[0] == 401
        views = [await alpha.call("GET", "/arena") for _ in range(6)]
        assert [status for status, _, _ in views] == [200] * 6
        worker = next(a for a in views[0][2]["ants"] if a["type"] == 0)
        step = {"q": worker["q"] + 1, "r": worker["r"]}
        status, headers, body = await alpha.call(
            "POST", "/move", json_body={"moves": [{"ant": worker["id"], "path": [step]}]}
        )
        assert status == 429 and headers["Retry-After"] == "1"
        assert body == {"code": 6, "message": "too many requests: limit is 3 per second"}
        assert (await alpha.call("GET", "/logs"))[0] == 429  # still full: refused ones are not counted
        assert (await Client(session, server.api, "tok-beta").call("GET", "/rounds"))[0] == 200  # per token
        await asyncio.sleep(2.05)
        status, _, view = await alpha.call("GET", "/arena")
        assert status == 200 and view["turnNo"] == 0  # the same turn: the refused move set no order
        assert all("move" not in ant for ant in view["ants"])

    run(burst)
