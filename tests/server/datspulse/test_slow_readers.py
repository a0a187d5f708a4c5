"""The DatsPulse server's live streams drop a client that never reads (issue 25, item 5: 500 such
clients grew a DatsPulse server from 402 to 2,002 MiB, and its health checks took up to 10 s).

Both streams of a running round are attacked at once: the organizer's full stream (behind the
organizer key) and the spectators' public one (`open` policy, so that it streams while the round
runs). Two clients on each subscribe with a tiny receive window and never read; the server runs
with small send queues and a short send timeout, so that the header (the `test` preset's map, ~60
KB) fills their queues at once, and the test waits (a bounded poll) for the server to drop them.
Meanwhile the server answers its status route, and a reading organizer client gets every turn of
the round, played on a fake clock, through to the end; afterwards no subscription is left on either
hub.
"""

from __future__ import annotations

import json
import socket
import threading
import urllib.request
from collections.abc import Callable
from typing import Any

from botarena.server.guard import book_for
from botarena.server.httpconfig import ServerLimits
from botarena.store import Store
from waiting import wait_until

from .conftest import DpServer, make_settings

ROUND = "antprotocol-test-1"
ORGANIZER_KEY = "organizer-key-for-the-slow-readers"
TURNS = 6
LIMITS = ServerLimits(send_timeout_s=0.5, send_queue_bytes=8 * 1024, socket_buffer_bytes=8 * 1024)
TCP_CLOSE, TCP_CLOSE_WAIT = 7, 8  # tcpi_state (linux/tcp.h): reset, or closed, by the server
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def play_turn(server: DpServer, clock: Clock) -> None:
    series = server.series
    with series.lock:
        live = series.current
        assert live is not None
        clock.now = live.due(live.round.turn_no + 1)
        series.advance(clock())
    series.record_steps()
    assert server.dp.recorder.flush()


def never_reading(server: DpServer, path: str) -> socket.socket:
    conn = socket.socket()
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    conn.connect(("127.0.0.1", server.port))
    conn.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    return conn


def dropped(conn: socket.socket) -> bool:
    return conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0] in (TCP_CLOSE, TCP_CLOSE_WAIT)


def test_both_live_streams_drop_clients_that_never_read(
    start_dp: Callable[..., DpServer], store: Store, sse: Any
) -> None:
    clock = Clock()
    settings = make_settings(
        preset="test",  # (its map: a header of ~60 KB, more than the small queues below hold)
        spectators={"organizer_key": ORGANIZER_KEY, "mode": "open"},
        lobby_seconds=10.0,
        turns=TURNS,
        turn_seconds=2.0,
        break_seconds=1000.0,
        rate_limit_per_second=100,
    )
    server = start_dp(settings, store, register=("alpha", "beta"), clock=clock, limits=LIMITS)
    with server.series.lock:
        live = server.series.current
        assert live is not None
        clock.now = live.start_at
        server.series.advance(clock())  # the round starts
    assert server.dp.recorder.flush()
    organizer = f"/api/datspulse/live/{ROUND}/events?key={ORGANIZER_KEY}"
    public = f"/api/live/datspulse/{ROUND}/events"
    hostile = [never_reading(server, path) for path in (organizer, organizer, public, public)]
    reader = sse(server.url, organizer)
    received: list[Any] = []
    reading = threading.Thread(target=lambda: received.extend(reader.read_all()), daemon=True)
    reading.start()  # the reading client reads all along
    try:
        # each is dropped half a second after its queue filled
        wait_until(
            lambda: all(dropped(conn) for conn in hostile),
            "every client that never read dropped",
            seen=lambda: [dropped(conn) for conn in hostile],
        )
        book = book_for(server.server.server_state, LIMITS)
        assert book.counters["send_timeouts"] == 4
        with _opener.open(f"{server.api}/datspulse/series", timeout=10) as reply:
            assert reply.status == 200
        for _ in range(TURNS):
            play_turn(server, clock)
        reading.join(20)
        assert not reading.is_alive()
        events = [e for e in received if e.event != "comment"]
        steps = [s for e in events if e.event == "steps" for s in json.loads(e.data)["steps"]]
        assert [s["record"]["turnNo"] for s in steps] == list(range(1, TURNS + 1))  # every turn
        assert events[0].event == "header" and events[-1].event == "end"
        key = f"datspulse/{ROUND}"
        assert server.dp.organizer_hub.watchers(key) == 0 and server.hub.watchers(key) == 0
    finally:
        for conn in hostile:
            conn.close()
