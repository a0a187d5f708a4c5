"""`GuardedH11Protocol`: uvicorn's h11 protocol held to the limits of `botarena.server.httpconfig`.

uvicorn's h11 protocol closes a keep-alive connection idle for `timeout_keep_alive`, and nothing
else: a connection that never finishes its request head, a body that trickles, or a client that
never reads what it is sent holds its socket (and whatever was queued for it) for ever, and 1,100
such connections took a server's last file descriptor. This subclass adds, per connection:

- the **head bound**: `BoundedHeadConnection` counts the bytes every request head takes, also when
  the head arrives whole in one read (h11 checks its limit only on incomplete heads); over
  MAX_HEADER_BYTES the client gets 431 and the connection is closed;
- a **header timer**, armed when the connection opens and at the first byte of each later request,
  stopped when the head is complete;
- a **body clock** that runs while a request body is being received and the server is reading (it
  stops while the app has not asked for more: uvicorn then pauses reading), and cuts the request
  off when it reaches `body_timeout_s`;
- a **send timer**, armed when the connection's write buffer (its send queue, bounded at
  `send_queue_bytes`, behind a kernel send buffer of `socket_buffer_bytes`) is full and stopped
  when it drains: a client that keeps it full for `send_timeout_s` is dropped at once, its queue
  freed;
- a place in the server's `ConnectionBook`, which bounds the open connections: a newcomer over the
  bound closes the connection waiting longest for a request, or is refused with 503 when none is.

`ArenaServer` is uvicorn's server with a long listen queue: asyncio accepts as many connections at
once as uvicorn's `backlog`, which therefore stays small (the open-file budget must hold a burst),
while the kernel queues `listen_queue` of them meanwhile.

Everything here runs on the event loop (timers are loop callbacks): no thread, no polling.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import struct
import weakref
from collections import OrderedDict
from typing import Any, ClassVar, cast

import h11
import uvicorn
from uvicorn.protocols.http.flow_control import FlowControl
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from botarena.server.httpconfig import MAX_HEADER_BYTES, ServerLimits

log = logging.getLogger(__name__)

#: After one of the answers below (408, 431, 503) the connection is closed; a client that does not
#: read the answer loses its socket this many seconds later all the same.
CLOSE_LINGER_S = 2.0

#: Events counted per server (`ConnectionBook.counters`).
COUNTERS = (
    "header_timeouts",
    "body_timeouts",
    "send_timeouts",
    "heads_too_large",
    "evicted",
    "refused",
)


def plain_response(status: int, reason: str, text: str) -> bytes:
    """A whole HTTP/1.1 response that closes the connection, for a connection h11 cannot answer on
    (no request head was received, so h11 has no request to respond to)."""
    body = text.encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: text/plain; charset=utf-8\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


HEAD_TIMEOUT = plain_response(408, "Request Timeout", "the request line and headers came too slowly")
TOO_MANY = plain_response(503, "Service Unavailable", "the server has too many open connections; try again")


class BoundedHeadConnection(h11.Connection):
    """An h11 server connection that holds every request head (request line, headers and the blank
    line after them) to `max_head_bytes`, whether it arrived in pieces or in one read.

    h11 compares its receive buffer with `max_incomplete_event_size` only while an event is still
    incomplete; uvicorn hands it whole socket reads (up to 256 KiB), so a 64 KiB head that arrived
    at once was parsed without a look at its size. Here the bytes a Request event takes from the
    buffer are counted as well: a head of `max_head_bytes` passes, one byte more is refused (431),
    in one read or in many."""

    def __init__(self, max_head_bytes: int) -> None:
        super().__init__(h11.SERVER, max_incomplete_event_size=max_head_bytes)
        self.max_head_bytes = max_head_bytes
        self.head_too_large = False  # the last error was an oversized head (answered 431)

    def next_event(self) -> Any:
        if self.their_state is not h11.IDLE:  # a body, or the client waits: nothing to count
            return super().next_event()
        # (the buffer's length: h11 has no public way to ask without copying the buffer)
        buffered = len(self._receive_buffer)
        try:
            event = super().next_event()
        except h11.RemoteProtocolError as exc:
            self.head_too_large = exc.error_status_hint == 431  # h11's own check: an incomplete head
            raise
        if isinstance(event, h11.Request) and buffered - len(self._receive_buffer) > self.max_head_bytes:
            self.head_too_large = True
            raise h11.RemoteProtocolError("request head too large", error_status_hint=431)
        return event


class ConnectionBook:
    """The open connections of one server, and which of them wait for a request (the ones a newcomer
    over `limit` may close: idle keep-alive connections, heads still arriving, connections already
    closing), longest-waiting first."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.open: set[GuardedH11Protocol] = set()
        self.waiting: OrderedDict[GuardedH11Protocol, None] = OrderedDict()
        self.counters = dict.fromkeys(COUNTERS, 0)

    def admit(self, newcomer: GuardedH11Protocol) -> bool:
        """Count `newcomer` in, closing the longest-waiting connections to stay within the limit;
        False (and `newcomer` not counted) when every other connection is busy with a request."""
        self.open.add(newcomer)
        self.waiting[newcomer] = None
        while len(self.open) > self.limit:
            victim = next((c for c in self.waiting if c is not newcomer), None)
            if victim is None:
                self.forget(newcomer)
                self.counters["refused"] += 1
                return False
            self.forget(victim)
            self.counters["evicted"] += 1
            victim.evict()
        return True

    def wait(self, connection: GuardedH11Protocol) -> None:
        """`connection` waits for a request (if it did not already)."""
        if connection in self.open and connection not in self.waiting:
            self.waiting[connection] = None

    def busy(self, connection: GuardedH11Protocol) -> None:
        """`connection` is handling a request: it is not closed for a newcomer."""
        self.waiting.pop(connection, None)

    def forget(self, connection: GuardedH11Protocol) -> None:
        self.open.discard(connection)
        self.waiting.pop(connection, None)


_books: weakref.WeakKeyDictionary[ServerState, ConnectionBook] = weakref.WeakKeyDictionary()


def book_for(server_state: ServerState, limits: ServerLimits) -> ConnectionBook:
    """The `ConnectionBook` of the server whose state is `server_state` (made on first use, with
    `limits.connection_limit()` for this process's open-file limit)."""
    book = _books.get(server_state)
    if book is None:
        book = _books[server_state] = ConnectionBook(limits.connection_limit())
    return book


class _PausableTimer:
    """A one-shot timer on the event loop that can be paused and resumed: it fires once it has run
    for `seconds` in all."""

    def __init__(self, loop: asyncio.AbstractEventLoop, seconds: float, callback: Any) -> None:
        self._loop = loop
        self._left = seconds
        self._callback = callback
        self._handle: asyncio.TimerHandle | None = None
        self._since = 0.0

    def run(self) -> None:
        if self._handle is None:
            self._since = self._loop.time()
            self._handle = self._loop.call_later(max(0.0, self._left), self._callback)

    def pause(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
            self._left -= self._loop.time() - self._since


class _WatchedFlow(FlowControl):
    """uvicorn's flow control, telling the protocol when reading pauses or resumes (the body clock
    only runs while the server reads)."""

    def __init__(self, transport: asyncio.Transport, changed: Any) -> None:
        super().__init__(transport)
        self._changed = changed

    def pause_reading(self) -> None:
        super().pause_reading()
        self._changed()

    def resume_reading(self) -> None:
        super().resume_reading()
        self._changed()


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with the head bound, the header, body and send timers, and a place in
    the server's `ConnectionBook` (see the module docstring). `guarded_protocol(limits)` makes the
    subclass a server runs, with its limits."""

    limits: ClassVar[ServerLimits] = ServerLimits()

    def __init__(
        self,
        config: Any,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        head_bytes = config.h11_max_incomplete_event_size or MAX_HEADER_BYTES
        self.bounded = BoundedHeadConnection(int(head_bytes))
        self.conn = self.bounded
        self.book = book_for(server_state, self.limits)
        self._lost = False
        self._head_timer: asyncio.TimerHandle | None = None
        self._head_bytes = 0  # bytes received of the head under way (0: none yet)
        self._body_clock: _PausableTimer | None = None
        self._send_timer: asyncio.TimerHandle | None = None

    # ------------------------------------------------------------------------------ the connection

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        transport.set_write_buffer_limits(high=self.limits.send_queue_bytes)
        raw = transport.get_extra_info("socket")
        if raw is not None:  # (fixed: Linux would grow it to tcp_wmem's 4 MiB for a client that never reads)
            with contextlib.suppress(OSError):
                raw.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.limits.socket_buffer_bytes)
        self.flow = _WatchedFlow(transport, self._sync_body_clock)
        if not self.book.admit(self):
            log.debug("refused a connection: %d are open and all are busy", len(self.book.open))
            self.transport.write(TOO_MANY)
            self._close_soon()
            return
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._lost = True
        self.book.forget(self)
        for timer in (self._head_timer, self._send_timer):
            if timer is not None:
                timer.cancel()
        self._head_timer = self._send_timer = None
        if self._body_clock is not None:
            self._body_clock.pause()
            self._body_clock = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.conn.their_state is h11.IDLE:  # part of a request head
            self._head_bytes += len(data)
            if self._head_timer is None:
                self._arm_head_timer()  # the first byte of a later request starts its header clock
        super().data_received(data)
        self._after_events()

    def on_response_complete(self) -> None:
        super().on_response_complete()  # (arms the keep-alive timer, parses a pipelined request)
        self._after_events()

    def send_400_response(self, msg: str) -> None:
        if self.bounded.head_too_large:
            self.book.counters["heads_too_large"] += 1
            self._send_plain(
                431,
                b"Request Header Fields Too Large",
                f"the request line and headers are over {self.bounded.max_head_bytes} bytes",
            )
        else:
            super().send_400_response(msg)
        self._close_soon()

    def evict(self) -> None:
        """Close this waiting connection at once: a newcomer needs its place (`ConnectionBook`)."""
        log.debug("closed a connection waiting for a request: the connection limit was reached")
        self.reset()

    def reset(self) -> None:
        """Drop the connection now: a reset, and what was queued for it (in the server and in the
        kernel) freed. (A plain close would leave the kernel sending the queue, then its FIN, to a
        client that does not read: the socket would outlive the connection.)"""
        raw = self.transport.get_extra_info("socket")
        if raw is not None:
            with contextlib.suppress(OSError):
                raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.transport.abort()

    # ------------------------------------------------------------------------------ the send queue

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._send_timer is None and not self._lost:
            self._send_timer = self.loop.call_later(self.limits.send_timeout_s, self._send_timeout)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._send_timer is not None:
            self._send_timer.cancel()
            self._send_timer = None

    def _send_timeout(self) -> None:
        """The client kept its send queue full for send_timeout_s: drop it, and what it was sent."""
        self._send_timer = None
        if self._lost:
            return
        self.book.counters["send_timeouts"] += 1
        log.debug("dropped a client that read nothing for %g s", self.limits.send_timeout_s)
        self.reset()

    # ------------------------------------------------------------------------------ heads and bodies

    def _after_events(self) -> None:
        """Bring the timers and the book up to date after h11 parsed what came (or a response ended)."""
        if self._lost:
            return
        if self.transport.is_closing():
            self.book.wait(self)  # (a closing connection is the first a newcomer may take the place of)
            return
        if self.conn.their_state is h11.IDLE:  # waiting for a request
            self.book.wait(self)
            if self._head_timer is None and self.timeout_keep_alive_task is None:
                self._arm_head_timer()  # never wait without a timer
            return
        # a head is complete: the request is under way
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None
        self._head_bytes = 0
        self.book.busy(self)
        self._sync_body_clock()

    def _arm_head_timer(self) -> None:
        self._head_timer = self.loop.call_later(self.limits.header_timeout_s, self._head_timeout)

    def _head_timeout(self) -> None:
        self._head_timer = None
        if self._lost or self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        self.book.counters["header_timeouts"] += 1
        if self._head_bytes:  # a head was under way: say why it is cut off
            self.transport.write(HEAD_TIMEOUT)
        self._close_soon()

    def _sync_body_clock(self) -> None:
        """Run the body clock while a body is being received and the server reads; pause it while
        the app has not asked for more (uvicorn paused reading); drop it when the body is done."""
        receiving = not self._lost and self.conn.their_state is h11.SEND_BODY
        if not receiving or self.transport.is_closing():
            if self._body_clock is not None:
                self._body_clock.pause()
                self._body_clock = None
            return
        if self._body_clock is None:
            self._body_clock = _PausableTimer(self.loop, self.limits.body_timeout_s, self._body_timeout)
        if self.flow.read_paused:
            self._body_clock.pause()
        else:
            self._body_clock.run()

    def _body_timeout(self) -> None:
        self._body_clock = None
        if self._lost or self.transport.is_closing():
            return
        self.book.counters["body_timeouts"] += 1
        cycle = self.cycle
        if cycle is None or cycle.response_started:  # answered already: just stop listening
            self.reset()
            return
        # The app is still waiting for the body: to it the client has gone (its receive() says
        # http.disconnect, whatever it sends is dropped); the client is told why.
        cycle.disconnected = True
        cycle.message_event.set()
        self._send_plain(408, b"Request Timeout", "the request body came too slowly")
        self._close_soon()

    # ------------------------------------------------------------------------------ closing

    def _send_plain(self, status: int, reason: bytes, text: str) -> None:
        """A short text response through h11 (after a request head, or after h11 failed on one)."""
        body = text.encode()
        headers = [
            (b"content-type", b"text/plain; charset=utf-8"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        try:
            for event in (
                h11.Response(status_code=status, headers=headers, reason=reason),
                h11.Data(data=body),
                h11.EndOfMessage(),
            ):
                output = self.conn.send(event)
                if output:
                    self.transport.write(output)
        except h11.LocalProtocolError:  # h11 cannot answer in this state: the close says enough
            pass

    def _close_soon(self) -> None:
        """Close after what was written, and at once if the client has not read it in CLOSE_LINGER_S."""
        self.transport.close()
        self.loop.call_later(CLOSE_LINGER_S, self._abort_if_open)

    def _abort_if_open(self) -> None:
        if not self._lost:
            self.reset()


def guarded_protocol(limits: ServerLimits) -> type[GuardedH11Protocol]:
    """The protocol class a server with `limits` runs (uvicorn.Config's `http=`)."""
    made = type("GuardedH11Protocol", (GuardedH11Protocol,), {"limits": limits})
    return cast(type[GuardedH11Protocol], made)


class ArenaServer(uvicorn.Server):
    """uvicorn's server for a `server_config` config: once listening, each listening socket's
    queue is set to the limits' `listen_queue` (asyncio set it to uvicorn's `backlog`, the accept
    burst, which has to stay small)."""

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        limits = getattr(self.config.http, "limits", None)
        if not isinstance(limits, ServerLimits) or self.should_exit:
            return
        for server in self.servers:
            for listening in server.sockets:
                with listening.dup() as raw:  # (asyncio's socket wrapper has no listen())
                    raw.listen(limits.listen_queue)
