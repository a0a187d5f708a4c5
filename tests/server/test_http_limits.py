"""Servers that stay up (issue 25, item 5): the HTTP layer every botarena server runs
(`botarena.server.guard` through `httpconfig.server_config`), attacked with raw sockets.

The organizer's app runs in this process under the servers' own uvicorn setup, with short limits so
that each attack plays out in about a second; every wait is a bounded poll on the socket (the server
closing it is the event waited for), never a sleep. The attacks, and what must hold:

- a request head of exactly 32 KiB passes and one byte more gets 431, in one write or in many; an
  unfinished head over the bound gets 431 before it ends;
- a connection that sends nothing, or its head too slowly (a byte at a time, for ever), is closed
  after the header timeout (408 when part of a head came); an idle keep-alive connection after the
  idle timeout; a request body that trickles gets 408 after the body timeout, and nothing of it
  reaches the app;
- a client that subscribes to a live match and never reads is dropped once its send queue stays
  full (its subscription ends: the hub counts no watcher), while a reading client gets the whole
  match and /api/health answers;
- over the connection bound the longest-waiting connections are closed for newcomers (health still
  answers), and when every connection is busy a newcomer is told 503.

The same attacks against real server commands, under a real open-file limit and with their memory
measured, are in test_slowloris.py and test_slow_consumers.py.
"""

from __future__ import annotations

import dataclasses
import http.client
import json
import logging
import select
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from waiting import wait_until

pytest.importorskip("uvicorn", reason="the server extra (uvicorn) is not installed")

from botarena.server.app import create_app
from botarena.server.guard import ArenaServer, ConnectionBook, book_for
from botarena.server.httpconfig import MAX_HEADER_BYTES, ServerLimits, server_config
from botarena.server.live import LiveHub
from botarena.server.viewer import bind_socket
from botarena.store import Store

TOKEN = "live-token-for-the-limit-tests"
SHORT = ServerLimits(
    header_timeout_s=0.5,
    idle_timeout_s=0.5,
    body_timeout_s=0.5,
    send_timeout_s=0.5,
    send_queue_bytes=16 * 1024,
    socket_buffer_bytes=16 * 1024,
)
DEADLINE_S = 20.0  # the bound on every wait for the server to act (it acts within ~1 s)


@dataclass
class Guarded:
    """The organizer's app under the servers' uvicorn setup, in a daemon thread."""

    server: ArenaServer
    thread: threading.Thread
    sock: socket.socket
    hub: LiveHub
    limits: ServerLimits

    @property
    def port(self) -> int:
        return int(self.sock.getsockname()[1])

    @property
    def book(self) -> ConnectionBook:
        return book_for(self.server.server_state, self.limits)

    def connect(self, *, rcvbuf: int | None = None) -> socket.socket:
        conn = socket.socket()
        if rcvbuf is not None:  # (set before connecting: it bounds the window the client offers)
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        conn.connect(("127.0.0.1", self.port))
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return conn

    def get(self, path: str) -> tuple[int, bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=DEADLINE_S)
        try:
            connection.request("GET", path)
            reply = connection.getresponse()
            return reply.status, reply.read()
        finally:
            connection.close()


@pytest.fixture
def start_guarded(tmp_path: Path) -> Iterator[Callable[..., Guarded]]:
    """start_guarded(limits=SHORT) -> the organizer's app (live ingest on) under those limits."""
    store = Store.open(f"sqlite:///{tmp_path / 'arena.db'}", replay_dir=tmp_path / "replays")
    started: list[Guarded] = []

    def start(limits: ServerLimits = SHORT) -> Guarded:
        hub = LiveHub()
        app = create_app(store, hub, live_token=TOKEN)
        sock = bind_socket("127.0.0.1", 0)
        server = ArenaServer(
            server_config(app, limits=limits, log_level="critical", timeout_graceful_shutdown=2)
        )
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        wait_until(lambda: server.started or not thread.is_alive(), "the server listening")
        assert server.started, "the server did not start"
        guarded = Guarded(server, thread, sock, hub, limits)
        started.append(guarded)
        return guarded

    yield start
    for guarded in started:
        guarded.hub.close()
        guarded.server.should_exit = True
        guarded.thread.join(10)
        guarded.sock.close()
    store.close()


def until_closed(conn: socket.socket) -> bytes:
    """Wait (bounded) for the server to close `conn`; return what it sent."""
    received = bytearray()
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        ready, _, _ = select.select([conn], [], [], 0.05)
        if not ready:
            continue
        try:
            data = conn.recv(1 << 16)
        except ConnectionResetError:
            return bytes(received)
        if not data:
            return bytes(received)
        received += data
    raise AssertionError(f"the server did not close the connection within {DEADLINE_S:g} s")


def trickle_until_closed(conn: socket.socket, data: bytes) -> bytes:
    """The slow client: a byte of `data`, then another whenever the server has said nothing for a
    while, until the server answers or closes; return the answer."""
    for byte in data:
        ready, _, _ = select.select([conn], [], [], 0.05)
        if ready:
            break
        try:
            conn.sendall(bytes([byte]))
        except (BrokenPipeError, ConnectionResetError):
            break
    else:
        raise AssertionError("the server took all of a trickled request without cutting it off")
    return until_closed(conn)


def head_of(size: int, path: str = "/api/health") -> bytes:
    """A GET request head (request line, headers, blank line) of exactly `size` bytes."""
    start = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-Padding: ".encode()
    end = b"\r\n\r\n"
    return start + b"a" * (size - len(start) - len(end)) + end


def exchange(guarded: Guarded, request: bytes, *, piece: int | None = None) -> bytes:
    """Send `request` (whole, or in pieces of `piece` bytes) and return all the server answers."""
    with guarded.connect() as conn:
        step = piece or len(request)
        try:
            for start in range(0, len(request), step):
                conn.sendall(request[start : start + step])
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused before the end: the answer says why
        return until_closed(conn)


def status_of(answer: bytes) -> int:
    assert answer.startswith(b"HTTP/1.1 "), answer[:80]
    return int(answer[9:12])


# ------------------------------------------------------------------------------------- the head


@pytest.mark.parametrize("piece", [None, 512], ids=["one-write", "many-writes"])
def test_the_head_bound_holds_at_its_exact_boundary(
    start_guarded: Callable[..., Guarded], piece: int | None
) -> None:
    guarded = start_guarded()
    assert status_of(exchange(guarded, head_of(MAX_HEADER_BYTES), piece=piece)) == 200  # exactly 32 KiB
    over = exchange(guarded, head_of(MAX_HEADER_BYTES + 1), piece=piece)
    assert status_of(over) == 431  # (a 64 KiB head sent at once was answered 200)
    assert over.endswith(f"the request line and headers are over {MAX_HEADER_BYTES} bytes".encode())
    assert status_of(exchange(guarded, head_of(2 * MAX_HEADER_BYTES), piece=piece)) == 431
    assert guarded.book.counters["heads_too_large"] == 2


def test_an_unfinished_head_over_the_bound_is_refused_before_it_ends(
    start_guarded: Callable[..., Guarded],
) -> None:
    guarded = start_guarded()
    with guarded.connect() as conn:
        conn.sendall(b"GET /api/health HTTP/1.1\r\nX-Padding: " + b"a" * (MAX_HEADER_BYTES + 100))
        assert status_of(until_closed(conn)) == 431  # the rest of the head never came


# ------------------------------------------------------------------------------------- slow clients


def test_a_head_never_sent_or_sent_slowly_is_cut_off(start_guarded: Callable[..., Guarded]) -> None:
    guarded = start_guarded()
    silent = guarded.connect()
    half = guarded.connect()
    half.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and then nothing
    slow = guarded.connect()
    try:
        # the slowest client: a byte whenever the server is quiet, for ever; the timer is not reset
        answer = trickle_until_closed(slow, head_of(400))  # (20 s of bytes: the timeout cuts it at ~10)
        assert status_of(answer) == 408 and answer.endswith(b"the request line and headers came too slowly")
        assert status_of(until_closed(half)) == 408
        assert until_closed(silent) == b""  # nothing came, nothing to answer: just closed
        assert guarded.get("/api/health")[0] == 200  # and the server serves
        assert guarded.book.counters["header_timeouts"] == 3
    finally:
        for conn in (silent, half, slow):
            conn.close()


def test_an_idle_keep_alive_connection_is_closed(start_guarded: Callable[..., Guarded]) -> None:
    guarded = start_guarded()
    with guarded.connect() as conn:
        conn.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")  # keep-alive (HTTP/1.1)
        answer = until_closed(conn)  # the answer, then the close when the idle timeout passed
        assert status_of(answer) == 200 and b'"status":"ok"' in answer


def test_a_trickling_body_is_cut_off_with_408_and_reaches_nothing(
    start_guarded: Callable[..., Guarded], caplog: pytest.LogCaptureFixture
) -> None:
    guarded = start_guarded()
    body = json.dumps([{"type": "header", "key": "t1/slow", "replay": {"game": "drones"}}]).encode()
    head = (
        "POST /api/live/ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Authorization: Bearer {TOKEN}\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    with guarded.connect() as conn:
        conn.sendall(head)
        answer = trickle_until_closed(conn, body)
    assert status_of(answer) == 408 and answer.endswith(b"the request body came too slowly")
    assert guarded.book.counters["body_timeouts"] == 1
    assert "t1/slow" not in guarded.hub and guarded.get("/api/health")[0] == 200
    # to the app the client went away mid-body: not an internal error
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]


# ------------------------------------------------------------------------------------- slow readers


def live_match(hub: LiveHub, key: str, steps: int, step_bytes: int) -> None:
    hub.publish(
        {"type": "header", "key": key, "match": key, "replay": {"game": "drones", "players": ["a", "b"]}}
    )
    pad = "x" * step_bytes
    for first in range(0, steps, 10):
        hub.publish(
            {
                "type": "steps",
                "key": key,
                "first": first,
                "steps": [{"i": first + i, "pad": pad} for i in range(10)],
            }
        )


def subscribe(guarded: Guarded, key: str, *, rcvbuf: int | None = None) -> socket.socket:
    conn = guarded.connect(rcvbuf=rcvbuf)
    conn.sendall(f"GET /api/live/{key}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    return conn


TCP_CLOSE = 7  # tcpi_state (linux/tcp.h)


def reset(conn: socket.socket) -> bool:
    """True when the server reset `conn` (seen without reading from it)."""
    return conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0] == TCP_CLOSE


def watchers_become(guarded: Guarded, key: str, count: int) -> None:
    """Wait until `count` subscriptions follow `key` (the server's threads open and close them)."""
    wait_until(
        lambda: guarded.hub.watchers(key) == count,
        f"{count} watchers of {key}",
        seen=lambda: f"{guarded.hub.watchers(key)} watchers",
    )


def test_a_client_that_does_not_read_is_dropped_and_the_others_go_on(
    start_guarded: Callable[..., Guarded],
) -> None:
    guarded = start_guarded(dataclasses.replace(SHORT, send_timeout_s=2.0))  # (room for a loaded machine)
    key = "t1/streamed"
    live_match(guarded.hub, key, steps=200, step_bytes=10_000)  # ~2 MB to catch up on
    hostile = [subscribe(guarded, key, rcvbuf=4096) for _ in range(3)]
    try:
        watchers_become(guarded, key, 3)
        for connection in guarded.book.open:  # the kernel's queue is bounded too (Linux doubles the value)
            raw = connection.transport.get_extra_info("socket")
            assert raw.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF) == 2 * SHORT.socket_buffer_bytes
        reader = subscribe(guarded, key)
        received = bytearray()

        def read_all() -> None:
            received.extend(until_closed(reader))

        thread = threading.Thread(target=read_all, daemon=True)
        thread.start()
        wait_until(  # the three that never read
            lambda: guarded.book.counters["send_timeouts"] == 3,
            "3 send timeouts",
            seen=lambda: dict(guarded.book.counters),
        )
        assert guarded.get("/api/health")[0] == 200
        guarded.hub.publish({"type": "end", "key": key, "match_id": 5, "fields": {}})
        thread.join(DEADLINE_S)
        assert not thread.is_alive()
        assert received.count(b"event: header") == 1 and b"event: end" in received
        assert b'"i":199' in received  # the reader got the whole match
        watchers_become(guarded, key, 0)  # every subscription has ended
        assert all(reset(conn) for conn in hostile)  # reset: what was queued for them is freed
    finally:
        for conn in hostile:
            conn.close()


# ------------------------------------------------------------------------------------- too many


def test_over_the_connection_bound_the_longest_waiting_go_first(
    start_guarded: Callable[..., Guarded],
) -> None:
    limits = ServerLimits(header_timeout_s=60, max_connections=16)  # only the bound closes anything
    guarded = start_guarded(limits)
    assert guarded.book.limit == 16
    waiting = []
    for i in range(24):
        conn = guarded.connect()
        if i % 2 == 0:
            conn.sendall(b"GET /api/health HTTP/1.1\r\n")  # half of them mid-head
        waiting.append(conn)
    try:
        assert guarded.get("/api/health")[0] == 200  # a newcomer gets its answer
        for conn in waiting[:9]:  # 24 + the newcomer over 16: the nine that waited longest went
            assert until_closed(conn) == b""
        assert guarded.book.counters["evicted"] == 9
        for conn in waiting[9:]:
            ready, _, _ = select.select([conn], [], [], 0)
            assert not ready, "a connection that waited less was closed"
    finally:
        for conn in waiting:
            conn.close()


def test_when_every_connection_is_busy_a_newcomer_is_told_503(start_guarded: Callable[..., Guarded]) -> None:
    guarded = start_guarded(ServerLimits(max_connections=16))
    key = "t1/watched"
    live_match(guarded.hub, key, steps=10, step_bytes=10)
    streams = [subscribe(guarded, key) for _ in range(16)]  # busy: each follows the live match
    try:
        watchers_become(guarded, key, 16)
        with guarded.connect() as newcomer:
            answer = until_closed(newcomer)
        assert status_of(answer) == 503 and answer.endswith(b"too many open connections; try again")
        assert guarded.book.counters["refused"] == 1
    finally:
        for conn in streams:
            conn.close()
    watchers_become(guarded, key, 0)
    assert guarded.get("/api/health")[0] == 200  # once they have gone, newcomers are served again


def test_bad_limits_are_one_line_errors() -> None:
    from botarena.server.httpconfig import LimitsError

    with pytest.raises(LimitsError, match="BOTARENA_HTTP_HEADER_TIMEOUT_S='soon' is not a number"):
        ServerLimits.from_environ({"BOTARENA_HTTP_HEADER_TIMEOUT_S": "soon"})
    with pytest.raises(LimitsError, match="max_connections must be a positive number"):
        ServerLimits.from_environ({"BOTARENA_HTTP_MAX_CONNECTIONS": "0"})
    assert ServerLimits.from_environ({"BOTARENA_HTTP_SEND_TIMEOUT_S": "2.5"}).send_timeout_s == 2.5
    assert ServerLimits(max_connections=5000).connection_limit(open_files=1024) == 1024 - 128 - 128
