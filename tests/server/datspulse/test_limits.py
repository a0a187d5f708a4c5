"""What one DatsPulse request may cost (issue 12, item 6; spec §5 as amended): the body's size, the
commands of a move request and each path's length are bounded, and a request beyond them gets 400
code 4 in the API's own error format before the game lock is taken; a declared oversized body is
refused before a byte of it is sent. A client that drops mid-body is neither a 500 nor an error in
the log. Real server (uvicorn on 127.0.0.1), real engine, raw sockets where the attack needs them."""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from botarena.server.datspulse.wire import MAX_BODY_BYTES, MoveLimits
from waiting import wait_until

from .conftest import DpServer, make_settings
from .test_api import arena, call, move


@pytest.fixture(scope="module")
def server() -> Iterator[DpServer]:
    """A round of alpha and beta that runs for the whole module (no store)."""
    settings = make_settings(lobby_seconds=0.5, turns=1000, turn_seconds=0.5, rate_limit_per_second=1000)
    started = DpServer(settings, None).start(register=("alpha", "beta"))
    try:
        started.wait_phase("running")
        yield started
    finally:
        started.stop()


def limits(server: DpServer) -> MoveLimits:
    return server.dp.api.limits


def raw_request(server: DpServer, head: bytes, body: bytes = b"") -> bytes:
    """Send a raw request (head + body, the socket's write side left open) and read the whole reply."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        sock.sendall(head + body)
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)


def move_head(length: int, extra: str = "") -> bytes:
    return (
        f"POST /api/move HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Auth-Token: tok-alpha\r\n"
        f"Content-Type: application/json\r\nContent-Length: {length}\r\n{extra}Connection: close\r\n\r\n"
    ).encode()


def reply_body(raw: bytes) -> tuple[int, Any]:
    head, _, body = raw.partition(b"\r\n\r\n")
    return int(head.split()[1]), orjson.loads(body)


def test_limits_follow_the_config(server: DpServer) -> None:
    config = server.series.config
    assert limits(server) == MoveLimits(
        body_bytes=MAX_BODY_BYTES,
        commands=config.unit_limit,
        path=max(config.worker_speed, config.soldier_speed, config.scout_speed) + 3,
    )


def test_declared_huge_body_is_refused_before_it_is_sent(server: DpServer) -> None:
    # the body is never sent: the reply can only come from the Content-Length alone
    status, body = reply_body(raw_request(server, move_head(10 << 20)))
    assert status == 400 and body == {
        "code": 4,
        "message": "invalid request body: the body is larger than 64 KiB",
    }


def test_streamed_body_is_refused_as_soon_as_it_passes_the_limit() -> None:
    """No Content-Length (chunked): read_body stops at the chunk that passes the bound and never
    asks for the next one (the rest of the body is never read)."""
    import asyncio

    from botarena.server.datspulse.api import read_body
    from botarena.server.datspulse.wire import PublicError

    asked: list[int] = []

    class Chunked:
        def __init__(self) -> None:
            self.headers: dict[str, str] = {}

        async def stream(self) -> Any:
            for index in range(1000):  # a 64 MiB body, if it were all read
                asked.append(index)
                yield b"x" * 65536

    with pytest.raises(PublicError) as refused:
        asyncio.run(read_body(Chunked(), MAX_BODY_BYTES))  # type: ignore[arg-type]
    assert refused.value.status == 400 and refused.value.code == 4
    assert refused.value.message == "invalid request body: the body is larger than 64 KiB"
    assert len(asked) == MAX_BODY_BYTES // 65536 + 1


def test_too_many_commands_is_400_code_4_and_the_limit_itself_is_fine(server: DpServer) -> None:
    cap = limits(server).commands
    view = arena(server)
    ant = next(a for a in view["ants"] if a["health"] > 0)
    stay = {"ant": ant["id"], "path": []}
    status, body = move(server, {"moves": [stay] * (cap + 1)})
    assert status == 400 and body == {
        "code": 4,
        "message": f"invalid request body: {cap + 1} move commands; at most {cap} per request",
    }
    status, body = move(server, {"moves": [stay] * cap})  # §5: repeated ants, the last one wins
    assert status == 200 and body["errors"] == []


def test_too_long_path_is_400_code_4_and_up_to_the_limit_is_a_per_ant_error(server: DpServer) -> None:
    cap = limits(server).path
    view = arena(server)
    ant = next(a for a in view["ants"] if a["health"] > 0)
    path = [{"q": ant["q"], "r": ant["r"]}] * (cap + 1)
    status, body = move(server, {"moves": [{"ant": ant["id"], "path": []}, {"ant": ant["id"], "path": path}]})
    assert status == 400 and body == {
        "code": 4,
        "message": f"invalid request body: the path at index 1 has {cap + 1} hexes; "
        f"at most {cap} per command",
    }
    status, body = move(server, {"moves": [{"ant": ant["id"], "path": path[:cap]}]})
    assert status == 200  # §5 rule 2 still answers a path longer than the ant's speed, per ant
    assert body["errors"] and "cannot move more than" in body["errors"][0]


def test_client_dropping_mid_body_is_not_an_error(server: DpServer, caplog: pytest.LogCaptureFixture) -> None:
    counters = server.dp.api.counters
    before = dict(counters)
    caplog.set_level(logging.DEBUG, logger="botarena.server.datspulse")
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        sock.sendall(move_head(5000) + b'{"moves": [')  # 11 of the 5000 bytes announced, then gone
    wait_until(
        lambda: counters["disconnected"] > before["disconnected"],
        "the server noticing the dropped client",
        seen=lambda: dict(counters),
    )
    assert counters["disconnected"] == before["disconnected"] + 1
    assert counters["internal_errors"] == before["internal_errors"]
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.records
    status, _, body = call(server, "tok-alpha", "GET", "/datspulse/series")
    assert status == 200 and body["requests"]["internal_errors"] == before["internal_errors"]
