"""The DatsPulse REST API over real HTTP (uvicorn on 127.0.0.1, aiohttp clients), on a running round
of the real engine: every endpoint's happy path and the spec's exact answers to malformed requests
(§5, §7.1, §7.2)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from botarena.games.datspulse.hexgrid import distance, neighbours
from botarena.store import Store
from waiting import wait_until

from .conftest import Client, DpServer, make_settings, run

TIME_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$")
ARENA_KEYS = ["ants", "enemies", "map", "food", "turnNo", "nextTurnIn", "home", "score", "spot"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DpServer]:
    """A round of alpha and beta that runs for the whole module (gamma does not register)."""
    root = tmp_path_factory.mktemp("dp-api")
    store = Store.open(f"sqlite:///{root / 'dp.db'}", replay_dir=root / "replays")
    settings = make_settings(lobby_seconds=0.5, turns=1000, turn_seconds=0.5, rate_limit_per_second=1000)
    started = DpServer(settings, store).start(register=("alpha", "beta"))
    try:
        started.wait_phase("running")
        yield started
    finally:
        started.stop()
        store.close()


def call(
    server: DpServer, token: str | None, method: str, path: str, **kwargs: Any
) -> tuple[int, dict[str, str], Any]:
    async def go(session: Any) -> tuple[int, dict[str, str], Any]:
        return await Client(session, server.api, token).call(method, path, **kwargs)

    return run(go)  # type: ignore[no-any-return]


def arena(server: DpServer, token: str = "tok-alpha") -> dict[str, Any]:
    status, _, body = call(server, token, "GET", "/arena")
    assert status == 200, body
    return body  # type: ignore[no-any-return]


def move(server: DpServer, moves: Any, token: str = "tok-alpha") -> tuple[int, Any]:
    status, _, body = call(server, token, "POST", "/move", json_body=moves)
    return status, body


def ant_of(view: dict[str, Any], kind: int) -> dict[str, Any]:
    return next(a for a in view["ants"] if a["type"] == kind and a["health"] > 0)


def on_map(server: DpServer) -> Any:
    with server.series.lock:
        live = server.series.current
        assert live is not None
        return live.round.radius


# ------------------------------------------------------------------------------------ happy paths


def test_dp72_arena_shape_and_key_order(server: DpServer) -> None:
    view = arena(server)
    assert list(view) == ARENA_KEYS
    assert 0 < view["nextTurnIn"] <= 0.5 and view["turnNo"] >= 0
    assert len(view["home"]) == 3 and view["spot"] == view["home"][0]
    for ant in view["ants"]:
        keys = list(ant)
        assert keys[:5] == ["q", "r", "type", "health", "id"] and keys[-1] == "food"
        assert all(value is not None for value in ant.values())
    for tile in view["map"]:
        assert list(tile) == ["q", "r", "cost", "type"]


def test_dp72_register_while_running(server: DpServer) -> None:
    status, _, body = call(server, "tok-alpha", "PUT", "/register")  # PUT is an alias
    assert status == 200
    assert list(body) == ["lobbyEndsIn", "name", "nextTurn", "realm"]
    assert body["name"] == "alpha" and body["realm"] == "antprotocol-test-1"
    assert isinstance(body["lobbyEndsIn"], int) and body["lobbyEndsIn"] <= 0 and body["nextTurn"] > 0


def test_dp72_move_accepted_path_shows_as_move(server: DpServer) -> None:
    view = arena(server)
    worker = ant_of(view, 0)
    radius = on_map(server)
    step = next(h for h in neighbours(worker["q"], worker["r"]) if distance(h, (0, 0)) <= radius)
    status, body = move(server, {"moves": [{"ant": worker["id"], "path": [{"q": step[0], "r": step[1]}]}]})
    assert status == 200
    assert list(body) == [*ARENA_KEYS, "errors"] and body["errors"] == []
    moved = next(a for a in body["ants"] if a["id"] == worker["id"])
    if body["turnNo"] == view["turnNo"]:  # (a transition in between clears the order, §3.7)
        assert moved["move"] == [{"q": step[0], "r": step[1]}]


def test_dp72_logs_and_rounds(server: DpServer) -> None:
    def logs_written() -> tuple[int, Any] | None:
        status, _, logs = call(server, "tok-alpha", "GET", "/logs")
        return (status, logs) if logs else None

    status, logs = wait_until(logs_written, "the first transition's log lines in GET /logs")
    assert status == 200 and logs
    for entry in logs:
        assert list(entry) == ["message", "time"]
        assert re.match(r"^turn \d+: ", entry["message"]) and TIME_RE.match(entry["time"])
    status, _, rounds = call(server, "tok-beta", "GET", "/rounds")
    assert status == 200 and list(rounds) == ["gameName", "eventId", "now", "rounds"]
    assert rounds["gameName"] == "datspulse" and TIME_RE.match(rounds["now"])
    names = [r["name"] for r in rounds["rounds"]]
    assert names == ["antprotocol-test-3", "antprotocol-test-2", "antprotocol-test-1"]  # newest first
    assert [r["status"] for r in rounds["rounds"]] == ["pending", "pending", "active"]
    assert all(r["duration"] == 501 and r["repeat"] == 0 for r in rounds["rounds"])  # 500.5, half up


# ------------------------------------------------------------------------------------ malformed input


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"{bad", "not valid JSON"),
        (b"", "empty"),
        (b"[1, 2]", "not an object"),
        (b'"moves"', "not an object"),
        (b'{"moves": 5}', "moves"),
        (b'{"moves": {"ant": "x"}}', "moves"),
    ],
)
def test_dp5_body_rejected_whole_is_400_code_4(server: DpServer, data: bytes, reason: str) -> None:
    status, headers, body = call(server, "tok-alpha", "POST", "/move", data=data)
    assert status == 400 and list(body) == ["code", "message"]
    assert body["code"] == 4 and body["message"].startswith("invalid request body: ")
    assert reason in body["message"]
    assert headers["Content-Type"] == "application/json"


def test_dp5_body_over_128_kib_is_400_code_4(server: DpServer) -> None:
    data = b'{"moves": [], "pad": "' + b"x" * (64 * 1024) + b'"}'  # (§5 as amended: was 1 MiB)
    status, _, body = call(server, "tok-alpha", "POST", "/move", data=data)
    assert status == 400 and body == {
        "code": 4,
        "message": "invalid request body: the body is larger than 64 KiB",
    }


@pytest.mark.parametrize("body", [{}, {"moves": None}, {"moves": [], "extra": {"nested": 1}}])
def test_dp5_no_commands_and_unknown_keys_are_accepted(server: DpServer, body: Any) -> None:
    status, reply = move(server, body)
    assert status == 200 and reply["errors"] == []


def test_dp5_per_command_errors_exact_strings(server: DpServer) -> None:
    """WE-2: the §5 checks, each with exactly one error string, in the order of the commands."""
    view = arena(server)
    other = ant_of(arena(server, "tok-beta"), 0)
    worker, scout = ant_of(view, 0), ant_of(view, 2)
    radius = on_map(server)
    wq, wr = worker["q"], worker["r"]
    far = (wq + 3, wr)
    # the scout walks straight away from the centre until it leaves the map (its spot is 2..R-2 in)
    path, here = [], (scout["q"], scout["r"])
    while distance(here, (0, 0)) <= radius and len(path) < 7:
        here = max(neighbours(*here), key=lambda h: distance(h, (0, 0)))
        path.append(here)
    six = [(wq + i, wr) for i in range(1, 7)]
    moves = [
        {"ant": worker["id"], "path": [{"q": far[0], "r": far[1]}]},
        {"ant": worker["id"], "path": [{"q": wq, "r": wr}]},  # its own hex first: not adjacent
        {"ant": worker["id"], "path": [{"q": q, "r": r} for q, r in six]},  # worker speed 5
        {"ant": other["id"], "path": []},
        {"ant": "zzz", "path": []},
        {"ant": 5, "path": []},
        {"ant": worker["id"], "path": [{"q": 1.5, "r": 0}]},
        {"ant": scout["id"], "path": [{"q": q, "r": r} for q, r in path]},
    ]
    assert distance(here, (0, 0)) == radius + 1  # DP-41: a spot is at most 0.85 R out, a scout walks 7
    status, reply = move(server, {"moves": moves})
    assert status == 200
    wid = worker["id"]
    expected = [
        f"ant {wid} cannot move from {{{wq} {wr}}} to {{{far[0]} {far[1]}}}, not adjacent coordinates",
        f"ant {worker['id']} cannot move from {{{wq} {wr}}} to {{{wq} {wr}}}, not adjacent coordinates",
        f"ant {worker['id']} cannot move more than 5 tiles, but tried to move 6 tiles",
        f"ant {other['id']} is dead",  # another team's ant
        "ant zzz is dead",  # an unknown (or dead) ant
        "invalid move command at index 5",
        "invalid move command at index 6",
        f"ant {scout['id']} cannot move to {{{here[0]} {here[1]}}}, tile not found",
    ]
    assert reply["errors"] == expected


def test_dp5_overflowing_number_skips_only_its_entry(server: DpServer) -> None:
    """§5 "one entry skipped": `1e400` is a JSON number that is not finite as a double, so the entry
    holding it gets `invalid move command at index <i>` and the other commands still apply."""
    view = arena(server)
    worker = ant_of(view, 0)
    scout = ant_of(view, 2)
    radius = on_map(server)
    step = next(h for h in neighbours(worker["q"], worker["r"]) if distance(h, (0, 0)) <= radius)
    data = (
        b'{"moves": ['
        b'{"ant": "%s", "path": [{"q": 1e400, "r": 0}]},'
        b'{"ant": "%s", "path": [{"q": %d, "r": %d}]},'
        b'{"ant": "%s", "path": [{"q": 0, "r": -1e400}]},'
        b'{"ant": 1e400, "path": []}'
        b'], "extra": 1e999}'
    ) % (scout["id"].encode(), worker["id"].encode(), step[0], step[1], scout["id"].encode())
    status, _, reply = call(server, "tok-alpha", "POST", "/move", data=data)
    assert status == 200, reply
    assert reply["errors"] == [
        "invalid move command at index 0",
        "invalid move command at index 2",
        "invalid move command at index 3",
    ]
    moved = next(a for a in reply["ants"] if a["id"] == worker["id"])
    assert moved["move"] == [{"q": step[0], "r": step[1]}]


@pytest.mark.parametrize(
    "data",
    [
        b'{"moves": 1e400}',  # moves neither an array nor null: the whole body (§5)
        b'{"moves": [{"ant": "x", "path": [{"q": NaN, "r": 0}]}], "n": 1e400}',  # NaN is not JSON
        b'{"moves": [{"ant": "\\ud800", "path": []}], "n": 1e400}',  # a lone surrogate is not JSON
        b'{"moves": [{"ant": "x", "path": [{"q": 1e400, "r": 0}]}',  # truncated
    ],
)
def test_dp5_overflowing_number_does_not_open_other_malformed_bodies(server: DpServer, data: bytes) -> None:
    status, _, body = call(server, "tok-alpha", "POST", "/move", data=data)
    assert status == 400 and body["code"] == 4 and body["message"].startswith("invalid request body: ")


# ------------------------------------------------------------------------------------ auth and routing


@pytest.mark.parametrize("token", [None, "", "tok-nobody"])
def test_dp71_unknown_or_missing_token_is_401_code_5(server: DpServer, token: str | None) -> None:
    for method, path in (("GET", "/arena"), ("POST", "/register"), ("GET", "/rounds")):
        status, _, body = call(server, token, method, path)
        assert status == 401 and body == {"code": 5, "message": "invalid or missing X-Auth-Token"}


@pytest.mark.parametrize(
    ("method", "path", "status", "message", "allow"),
    [
        ("GET", "/move", 405, "method not allowed", "POST"),
        ("DELETE", "/arena", 405, "method not allowed", "GET"),
        ("POST", "/logs", 405, "method not allowed", "GET"),
        ("PUT", "/rounds", 405, "method not allowed", "GET"),
        ("GET", "/register", 405, "method not allowed", "POST, PUT"),
        ("POST", "/datspulse/series", 405, "method not allowed", "GET"),
        ("POST", "/datspulse/live/antprotocol-test-1/events", 405, "method not allowed", "GET"),
        ("GET", "/nope", 404, "not found", None),
        ("POST", "/arena/extra", 404, "not found", None),
    ],
)
def test_dp71_wrong_method_and_unknown_path_are_code_7(
    server: DpServer, method: str, path: str, status: int, message: str, allow: str | None
) -> None:
    """§7.1 code 7; a 405 carries `Allow` with every method the path serves (RFC 9110 §15.5.6)."""
    got, headers, body = call(server, "tok-alpha", method, path)
    assert got == status and body == {"code": 7, "message": message}
    assert headers.get("Allow") == allow


def test_dp71_405_on_an_organiser_route_lists_its_methods(server: DpServer) -> None:
    """The app's own routes under /api (here /api/health) answer a wrong method with their methods."""
    got, headers, body = call(server, None, "DELETE", "/health")
    assert got == 405 and body == {"code": 7, "message": "method not allowed"}
    allow = headers["Allow"].split(", ")
    assert "GET" in allow and "DELETE" not in allow


def test_dp71_organiser_routes_still_served(server: DpServer) -> None:
    status, _, body = call(server, None, "GET", "/health")
    assert status == 200 and body["status"] == "ok"
    assert server.dp.recorder.flush()  # (the round's start has reached the live hub)
    status, _, live = call(server, None, "GET", "/live")
    # §4 (amended in §7.4): the running round is on the public live list held, nothing of it shown
    # (test_spectators.py)
    (held,) = [m for m in live if m["key"] == "datspulse/antprotocol-test-1"]
    assert status == 200 and held["held"] and held["steps"] == 0


def test_dp71_handler_crash_is_500_code_0_and_the_round_goes_on(
    server: DpServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    before = arena(server)["turnNo"]

    def boom(name: str, now: float) -> Any:
        raise RuntimeError("injected")

    monkeypatch.setattr(server.series, "arena", boom)
    status, _, body = call(server, "tok-alpha", "GET", "/arena")
    assert status == 500 and body == {"code": 0, "message": "internal error"}
    assert any("injected" in (r.exc_text or "") or r.exc_info for r in caplog.records)
    monkeypatch.undo()

    def next_turn() -> int | None:  # the round goes on
        turn = int(arena(server)["turnNo"])
        return turn if turn > before else None

    after = wait_until(next_turn, f"a turn after turn {before}")
    assert after > before
