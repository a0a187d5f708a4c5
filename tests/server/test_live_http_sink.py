"""HttpLiveSink: a worker's live events posted to the server, and never at the match's expense.

The attacks and accidents it must survive: a server that is down, one that hangs (accepts, reads,
never answers), a wrong token, a redirect that would carry the token elsewhere, events larger than
the server accepts. In each the match is played to its end, the lost events are counted, and the
warning is logged once. Synchronised on events (a request received, a match's outcome), never on time.
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import orjson
import pytest

from botarena.runner.record import MatchRecord
from botarena.tournament.executor import MatchTask, play_task
from botarena.tournament.live_http import HttpLiveSink, live_sink, split_event

from .conftest import LIVE_TOKEN, Server, get_json

pytest.importorskip("aiohttp", reason="the http extra (aiohttp) is not installed")

TOKEN = LIVE_TOKEN
LOGGER = "botarena.tournament.live_http"


def task(key: str = "r01-m001", tournament_id: int = 5) -> MatchTask:
    return MatchTask(
        tournament_id=tournament_id,
        key=key,
        game="drones",
        preset="default",
        overrides={"rounds": 2},
        seed=4,
        seats=("zergy", "adaptive"),
        specs=("zergy", "adaptive"),
    )


def play(sink: Any, match: MatchTask | None = None) -> MatchRecord:
    """Play a match streaming to `sink`, in a worker thread (the bots' timers want one under
    pytest-timeout); the bound is a safety net, the test's claim is that it returns at all."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(play_task, match or task(), sink).result(timeout=120)


def counted(match: MatchTask | None = None) -> int:
    """How many live events a match makes (played once more with a list as its sink)."""
    events: list[Any] = []
    play(events.append, match)
    return len(events)


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER and r.levelno == logging.WARNING]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class HangingServer:
    """Accepts connections, reads what comes, never answers (until stopped)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.received = threading.Event()
        self.conns: list[socket.socket] = []
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)
            if conn.recv(65536):
                self.received.set()

    def stop(self) -> None:
        self.sock.close()
        for conn in self.conns:
            conn.close()


@pytest.fixture
def hanging() -> Iterator[HangingServer]:
    server = HangingServer()
    yield server
    server.stop()


# ------------------------------------------------------------------------------------- delivery


def test_a_match_reaches_the_server_whole(ingest: Server) -> None:
    sink = HttpLiveSink(ingest.url, TOKEN, end_wait_s=60)
    try:
        outcome = play(sink)
        # the end waited for the post: listed at once, finished, every step there
        status, listed = get_json(f"{ingest.url}/api/live")
        assert status == 200 and [m["key"] for m in listed] == ["t5/r01-m001"]
        assert listed[0]["finished"] is True and listed[0]["steps"] == outcome.steps
        stats = sink.stats()
        assert stats["dropped"] == 0 and stats["pending"] == 0 and stats["sent"] == counted()
    finally:
        sink.close()


def test_events_over_the_request_cap_are_split_or_dropped(
    ingest: Server, caplog: pytest.LogCaptureFixture
) -> None:
    """With a 2 KB cap the match's steps go in many small requests; a header over the cap is dropped."""
    sink = HttpLiveSink(ingest.url, TOKEN, end_wait_s=60, max_request_bytes=2048)
    try:
        sink({"type": "header", "key": "t5/big", "replay": {"game": "drones", "pad": "x" * 5000}})
        assert sink.flush(60)
        assert sink.stats()["dropped"] == 1
        outcome = play(sink)
        _, listed = get_json(f"{ingest.url}/api/live")
        assert [m["key"] for m in listed] == ["t5/r01-m001"] and listed[0]["steps"] == outcome.steps
        assert sink.stats()["requests"] > counted()  # more requests than events: the steps were cut
    finally:
        sink.close()
    assert warnings_of(caplog) == [
        f"live events for {ingest.url} dropped: an event over the 2048-byte request cap"
        " (matches go on; further drops are only counted)"
    ]


def test_split_event_keeps_every_step_in_order() -> None:
    event = {
        "type": "steps",
        "key": "t1/a",
        "first": 10,
        "steps": [{"i": i, "pad": "y" * 50} for i in range(40)],
    }
    parts = split_event(event, 600)
    assert len(parts) > 1 and all(len(p) <= 600 for p in parts)
    import orjson

    decoded = [orjson.loads(p) for p in parts]
    assert [s["i"] for d in decoded for s in d["steps"]] == list(range(40))
    assert [d["first"] for d in decoded] == [
        10 + sum(len(x["steps"]) for x in decoded[:i]) for i in range(len(decoded))
    ]
    assert split_event({"type": "end", "key": "t1/a", "fields": {"pad": "z" * 700}}, 600) == []


# ------------------------------------------------------------------------------------- failures


def test_a_server_that_is_down_never_stops_the_match(caplog: pytest.LogCaptureFixture) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    sink = HttpLiveSink(url, TOKEN, end_wait_s=600)  # only a failed post lets the first end go on
    try:
        first = play(sink)
        second = play(sink, task("r01-m002"))
        assert first.steps > 0 and second.steps > 0
        assert sink.flush(60)
        stats = sink.stats()
        assert stats["sent"] == 0 and stats["dropped"] == 2 * counted() and stats["failures"] >= 1
    finally:
        sink.close()
    (warning,) = warnings_of(caplog)  # once, however many were dropped
    assert warning.startswith(f"live events for {url} dropped: cannot post to {url}/api/live/ingest")


def test_a_server_that_hangs_costs_the_match_one_deadline(
    hanging: HangingServer, caplog: pytest.LogCaptureFixture
) -> None:
    sink = HttpLiveSink(hanging.url, TOKEN, request_timeout_s=0.5, end_wait_s=600)
    try:
        first = play(sink)  # its end waits until the post's deadline fails it, not end_wait_s
        assert hanging.received.is_set()
        second = play(sink, task("r01-m002"))  # the last post failed: this end does not wait
        assert first.steps == second.steps > 0
        stats = sink.stats()
        assert stats["sent"] == 0 and stats["failures"] >= 1 and stats["dropped"] >= counted()
    finally:
        sink.close(timeout_s=600)  # returns once the thread ends (its post is bounded too)
    assert not sink._thread.is_alive()
    (warning,) = warnings_of(caplog)
    assert warning.startswith(
        f"live events for {hanging.url} dropped: no answer from {hanging.url}/api/live/ingest"
    )


def test_a_full_queue_drops_and_counts_never_blocks(hanging: HangingServer) -> None:
    sink = HttpLiveSink(hanging.url, TOKEN, request_timeout_s=600, max_queue=5, end_wait_s=0)
    event = {"type": "steps", "key": "t5/x", "first": 0, "steps": [{}]}
    sink(event)
    assert hanging.received.wait(60)  # the thread is now stuck in that post, for up to 600 s
    for _ in range(50):
        sink(event)
    stats = sink.stats()
    assert stats["dropped"] == 45 and stats["pending"] == 6 and stats["sent"] == 0
    sink.close(timeout_s=0.1)  # the queue is full and the post hangs: close gives up, bounded
    sink(event)
    assert sink.stats()["dropped"] == 46  # a closed sink drops


def test_a_wrong_token_is_dropped_and_said_once(ingest: Server, caplog: pytest.LogCaptureFixture) -> None:
    sink = HttpLiveSink(ingest.url, "not-the-token-0123456789", end_wait_s=60)
    try:
        play(sink)
        play(sink, task("r01-m002"))
        assert sink.flush(60)
        assert sink.stats()["sent"] == 0 and sink.stats()["dropped"] == 2 * counted()
    finally:
        sink.close()
    assert len(ingest.hub) == 0
    (warning,) = warnings_of(caplog)
    assert f"HTTP 401 from {ingest.url}/api/live/ingest: wrong live token" in warning


def test_a_redirect_never_carries_the_token_elsewhere() -> None:
    """The live URL answers 307 to another server: the sink does not follow, the other hears nothing."""
    heard: list[str] = []

    class Elsewhere(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            heard.append(self.headers.get("Authorization", ""))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    elsewhere = ThreadingHTTPServer(("127.0.0.1", 0), Elsewhere)
    target = f"http://127.0.0.1:{elsewhere.server_address[1]}/api/live/ingest"

    class Redirect(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(307)
            self.send_header("Location", target)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    redirect = ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
    servers = [elsewhere, redirect]
    threads = [threading.Thread(target=s.serve_forever, daemon=True) for s in servers]
    for thread in threads:
        thread.start()
    sink = HttpLiveSink(f"http://127.0.0.1:{redirect.server_address[1]}", TOKEN, end_wait_s=60)
    try:
        sink({"type": "steps", "key": "t5/x", "first": 0, "steps": [{}]})
        assert sink.flush(60)
        assert sink.stats()["dropped"] == 1 and sink.stats()["failures"] == 1
        assert heard == []
    finally:
        sink.close()
        for server in servers:
            server.shutdown()
            server.server_close()


# ------------------------------------------------------------------------------------- one per process


def test_one_sink_per_url_and_token(caplog: pytest.LogCaptureFixture) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    first = live_sink(url, TOKEN)
    assert first is not None and live_sink(url, TOKEN) is first
    other = live_sink(url, TOKEN + "-other")
    assert other is not None and other is not first
    assert live_sink("ftp://example.org", TOKEN) is None  # a bad URL: no streaming, said once
    assert live_sink("file:///etc/passwd", TOKEN) is None
    messages = [m for m in warnings_of(caplog) if m.startswith("matches are not streamed")]
    assert messages == [
        "matches are not streamed to ftp://example.org: the live URL must be http(s)://host[:port], got 'ftp://example.org'"
    ]
    first.close()
    assert live_sink(url, TOKEN) is not first  # a closed sink is replaced


# ------------------------------------------------------------------------------------- stale keep-alive


class ClosesAfterOneAnswer:
    """Answers the first request of each connection (keep-alive), then reads the next one on it and
    closes without a word: what uvicorn does to a connection idle past its keep-alive timeout when
    the client's next request crosses the close."""

    ANSWER = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\n{}"

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.bodies: list[bytes] = []
        self.dropped_requests = 0
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _read_request(self, conn: socket.socket, buffer: bytes) -> tuple[bytes, bytes] | None:
        while b"\r\n\r\n" not in buffer:
            chunk = conn.recv(65536)
            if not chunk:
                return None
            buffer += chunk
        head, rest = buffer.split(b"\r\n\r\n", 1)
        length = next(
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length")
        )
        while len(rest) < length:
            rest += conn.recv(65536)
        return rest[:length], rest[length:]

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            first = self._read_request(conn, b"")
            if first is None:
                return
            self.bodies.append(first[0])
            conn.sendall(self.ANSWER)
            if self._read_request(conn, first[1]) is not None:
                self.dropped_requests += 1  # read, never answered: the connection just closes

    def _run(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def close(self) -> None:
        self.sock.close()


def test_a_connection_the_server_closed_is_retried_on_a_new_one() -> None:
    """Every second post on a connection meets a close: each is sent again on a new connection, once,
    and nothing is dropped (under load, a stale keep-alive connection cost a whole live match)."""
    server = ClosesAfterOneAnswer()
    sink = HttpLiveSink(server.url, TOKEN, end_wait_s=60, request_timeout_s=60)
    try:
        for index in range(4):
            sink({"type": "steps", "key": "t5/x", "first": index, "steps": [{"n": index}]})
            assert sink.flush(60)  # one post per event: each meets a connection the server will close
        stats = sink.stats()
        assert stats["dropped"] == 0 and stats["failures"] == 0 and stats["sent"] == 4, stats
        assert server.dropped_requests >= 3  # the close was met, and the post went out again
        assert [orjson.loads(body)[0]["first"] for body in server.bodies] == [0, 1, 2, 3]
    finally:
        sink.close()
        server.close()
