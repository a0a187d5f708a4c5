"""HTTP bots: the generic protocol's HTTP binding (docs/protocol.md, *HTTP binding*).

Every request envelope is POSTed as the JSON body to the bot's URL; the response body is the reply
object `{"id", "payload"}`. All HTTP bots share one asyncio loop on one background thread, and each
bot keeps its connection alive across requests. Every request runs inside a hard total deadline
(connect, send and read included); a request cut off by its deadline drops its connection, so a
late response can never be taken for the next request.

Statuses: no complete response in time is TIMEOUT `deadline` (a response is stamped on the loop when
it is complete, and one stamped after its deadline is TIMEOUT however busy the machine was); a
refused or broken connection, or an HTTP error status (4xx, 5xx), is CRASHED `http_error` (the bot
stays alive: the next request is tried again); a redirect (3xx) is never followed: it is CRASHED
`redirect`, its warning names the Location; a body that is not a JSON object is INVALID `bad_json`;
an object without an integer `id` equal to the request's, or without `payload`, is INVALID
`bad_envelope`; a body over the size cap is INVALID `line_too_long`.

With late replies kept (games whose engine sets `late_replies`, Crafting Quest spec 7.3) a request
past its deadline is not cut off: it goes on in the background and its response, when it comes, is
the owed answer collected by `poll_late`. A late exchange that fails (refused, reset, an HTTP error
status) is CRASHED `disconnected`, and the bot is then dead for the rest of the match.

A hosted arena's URL entry is *sealed* before it plays (`seal`, specs/arena.md: URL entries): its
connector gets a resolver that answers only the addresses the arena checked (`bots.urls.PinnedResolver`),
so the bot never looks its host up itself (no DNS rebinding between the check and the call), and its
secure key goes out as the `X-SECURE-KEY` header of every call and nowhere else (not in `describe`,
a warning or the log).

Every `https://` call of every HTTP bot verifies the service's certificate for the URL's host (never
the address connected to) with one context, `tls_context()`: the system's trust store, as
`SSL_CERT_FILE` / `SSL_CERT_DIR` name it when the first https bot opens. The arena's TLS check before
a URL entry's match (`bots.urls.check_tls`) uses the same context, so it accepts exactly what the
calls accept.

aiohttp is a dependency of every install (issue 26: `pip install .` plays HTTP bots).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import ssl
import threading
import time
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import aiohttp
from aiohttp.abc import AbstractResolver

from botarena.bots.base import Bot, BotLog
from botarena.bots.subprocess import block_thread_signals, encode_request, judge_reply_line
from botarena.core.protocol import DISCONNECTED, Reply, Request
from botarena.core.status import Reason, Status, Warning

HTTP_ERROR = "http_error"
"""Reason code: the HTTP exchange failed (connection refused or reset, or a 4xx/5xx status)."""
REDIRECT = "redirect"
"""Reason code: the bot answered with a redirect (3xx), which is never followed."""
SECURE_KEY_HEADER = "X-SECURE-KEY"
"""The header a URL entry's secure key is sent in (the Devops course's name for it, for every game)."""


@runtime_checkable
class Sealable(Protocol):
    """An HTTP bot that can be pinned to checked addresses and given its secure key before `open`."""

    def seal(self, resolver: AbstractResolver, secure_key: str | None) -> None:
        """Connect only through `resolver` (never a lookup of its own); send `secure_key`, if any, as
        the SECURE_KEY_HEADER of every call."""


_Outcome = tuple[Status, Any, str | None, list[Warning], float]
"""status, payload, reason, warnings, and when it was settled (perf_counter, on the loop)."""

_loop: asyncio.AbstractEventLoop | None = None
_loop_lock = threading.Lock()


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The context every https call of an HTTP bot verifies with (module docstring): certificate and
    host name checked against the system's trust store. Made once, on first use and off the event
    loop (it reads the trust store from disk)."""
    context = ssl.create_default_context()
    context.set_alpn_protocols(["http/1.1"])  # what aiohttp's own default offers: it speaks no h2
    return context


def _run_loop(loop: asyncio.AbstractEventLoop) -> None:
    block_thread_signals()
    loop.run_forever()


def shared_loop() -> asyncio.AbstractEventLoop:
    """The one background event loop every HTTP bot runs on (started on first use)."""
    global _loop
    with _loop_lock:
        if _loop is None:
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=_run_loop, args=(loop,), name="botarena-http", daemon=True)
            thread.start()
            _loop = loop
        return _loop


class HttpBot(Bot):
    """A bot behind an HTTP endpoint: each request envelope is POSTed to `url`."""

    kind = "http"

    def __init__(
        self,
        url: str,
        *,
        name: str | None = None,
        headers: Mapping[str, str] | None = None,
        max_body_bytes: int = 1 << 20,
        secure_key: str | None = None,
        resolver: AbstractResolver | None = None,
    ) -> None:
        self.url = url
        self.name = name or url
        self.headers = {"Content-Type": "application/json", **(headers or {})}
        self.max_body_bytes = max_body_bytes
        self._secure_key = secure_key  # private: sent as a header, never described or logged
        self._resolver = resolver
        self._session: aiohttp.ClientSession | None = None
        self._future: concurrent.futures.Future[_Outcome] | None = None
        self._pending: Request | None = None
        self._sent_at = 0.0
        self._timeout_s = 0.0
        self._notes: list[str] = []
        self._owed: tuple[concurrent.futures.Future[_Outcome], float] | None = None  # (future, sent at)
        self._disconnected = False

    @property
    def alive(self) -> bool:
        return not self._disconnected

    def open(self, match_id: str, seat: int) -> None:
        super().open(match_id, seat)
        self._notes = []
        self._drop_owed()
        self._disconnected = False
        loop = shared_loop()
        if self._session is None:
            tls = tls_context()  # here, in the caller's thread: its first call reads files
            self._session = asyncio.run_coroutine_threadsafe(self._new_session(tls), loop).result(10.0)

    def seal(self, resolver: AbstractResolver, secure_key: str | None) -> None:
        """Pin the bot to `resolver`'s addresses and send `secure_key` (see `Sealable`); before `open`."""
        assert self._session is None, "seal() after open()"
        self._resolver = resolver
        self._secure_key = secure_key

    async def _new_session(self, tls: ssl.SSLContext) -> aiohttp.ClientSession:
        # With a pinned resolver the connector asks it alone: no system lookup of the host, ever.
        # `tls` applies to https URLs only; the server name it checks is the URL's host.
        connector = aiohttp.TCPConnector(limit=4, keepalive_timeout=60.0, resolver=self._resolver, ssl=tls)
        headers = dict(self.headers)
        if self._secure_key:
            headers[SECURE_KEY_HEADER] = self._secure_key
        return aiohttp.ClientSession(connector=connector, headers=headers)

    def send(self, request: Request, request_id: int, timeout_s: float) -> None:
        body = encode_request(request, request_id, self.match_id, self.seat, timeout_s)
        self._pending = request
        self._timeout_s = timeout_s
        self._sent_at = time.perf_counter()
        session = self._session
        assert session is not None, "send() before open()"
        self._drop_owed()  # only `end` is sent while owing: the owed answer is dropped
        # With late replies kept, the exchange itself has no deadline: `receive` stops waiting.
        limit = None if self.late_replies_kept else timeout_s
        self._future = asyncio.run_coroutine_threadsafe(
            self._post(session, body, request_id, limit), shared_loop()
        )

    async def _post(
        self, session: aiohttp.ClientSession, body: bytes, request_id: int, timeout_s: float | None
    ) -> _Outcome:
        status, payload, reason, warnings = await self._exchange(session, body, request_id, timeout_s)
        return (status, payload, reason, warnings, time.perf_counter())

    async def _exchange(
        self, session: aiohttp.ClientSession, body: bytes, request_id: int, timeout_s: float | None
    ) -> tuple[Status, Any, str | None, list[Warning]]:
        cap = self.max_body_bytes
        try:
            async with asyncio.timeout(timeout_s):
                # Never follow a redirect: a bot is only ever called at the address it was given.
                async with session.post(self.url, data=body, allow_redirects=False) as response:
                    if 300 <= response.status < 400:
                        location = response.headers.get("Location", "")
                        detail = f"HTTP {response.status} to {location or '(no Location)'}"[:500]
                        return (Status.CRASHED, None, REDIRECT, [{"code": "HTTP_REDIRECT", "detail": detail}])
                    if response.status >= 400:
                        detail = f"HTTP {response.status} {response.reason or ''}".strip()
                        return (Status.CRASHED, None, HTTP_ERROR, [{"code": "HTTP_STATUS", "detail": detail}])
                    data = bytearray()
                    async for chunk in response.content.iter_any():
                        data += chunk
                        if len(data) > cap:
                            return (Status.INVALID, None, Reason.LINE_TOO_LONG, [])
        except TimeoutError:
            return (Status.TIMEOUT, None, Reason.DEADLINE, [])
        except (aiohttp.ClientError, OSError) as exc:
            detail = f"{type(exc).__name__}: {exc}"[:500]
            return (Status.CRASHED, None, HTTP_ERROR, [{"code": "HTTP_ERROR", "detail": detail}])
        status, reply_id, payload, reason = judge_reply_line(data)
        if status is Status.OK and reply_id != request_id:
            # One response answers one request: a wrong id is a broken envelope, not a late reply.
            return (Status.INVALID, None, Reason.BAD_ENVELOPE, [])
        return (status, payload, reason, [])

    def receive(self) -> Reply:
        request, future = self._pending, self._future
        assert request is not None and future is not None, "receive() without send()"
        self._pending = None
        self._future = None
        # The coroutine enforces the deadline itself; the margin only guards against a stalled loop.
        # With late replies kept, the deadline is this wait, and a request past it stays owed.
        remaining = self._sent_at + self._timeout_s - time.perf_counter()
        margin = 0.0 if self.late_replies_kept else 1.0
        try:
            status, payload, reason, warnings, settled_at = future.result(max(remaining, 0.0) + margin)
        except concurrent.futures.TimeoutError:
            if self.late_replies_kept:
                self._owed = (future, self._sent_at)
                elapsed_ms = (time.perf_counter() - self._sent_at) * 1000.0
                return Reply(request.seat, Status.TIMEOUT, None, Reason.DEADLINE, elapsed_ms)
            future.cancel()
            status, payload, reason, warnings = Status.TIMEOUT, None, Reason.DEADLINE, []
            settled_at = time.perf_counter()
        except Exception as exc:  # a bug in the transport must not take the match down
            future.cancel()
            self._notes.append(f"[botarena] HTTP transport error: {type(exc).__name__}: {exc}\n")
            status, payload, reason, warnings = Status.CRASHED, None, HTTP_ERROR, []
            settled_at = time.perf_counter()
        elapsed_ms = (settled_at - self._sent_at) * 1000.0
        if status is not Status.TIMEOUT and elapsed_ms > self._timeout_s * 1000.0:
            # Settled (on the loop, when it arrived) after the deadline: the loop was too busy to cut
            # it off in time. Late is late, whatever the load; with late replies kept it is owed.
            if self.late_replies_kept:
                self._owed = (future, self._sent_at)
            return Reply(request.seat, Status.TIMEOUT, None, Reason.DEADLINE, elapsed_ms, [])
        return Reply(request.seat, status, payload, reason, elapsed_ms, warnings)

    def owe(self) -> None:
        request, future = self._pending, self._future
        assert request is not None and future is not None, "owe() without send()"
        self._pending = None
        self._future = None
        self._owed = (future, self._sent_at)

    def poll_late(self) -> Reply | None:
        """The owed response once the background exchange has settled."""
        owed = self._owed
        if owed is None or not owed[0].done():
            return None
        future, sent_at = owed
        self._owed = None
        try:
            status, payload, reason, warnings, settled_at = future.result(0.0)
        except Exception as exc:  # a bug in the transport must not take the match down
            self._notes.append(f"[botarena] HTTP transport error: {type(exc).__name__}: {exc}\n")
            status, payload, reason, warnings = Status.CRASHED, None, HTTP_ERROR, []
            settled_at = time.perf_counter()
        if status is Status.CRASHED:
            reason = DISCONNECTED
            self._disconnected = True
        return Reply(self.seat, status, payload, reason, (settled_at - sent_at) * 1000.0, warnings)

    def _drop_owed(self) -> None:
        owed, self._owed = self._owed, None
        if owed is not None:
            owed[0].cancel()

    def close(self) -> BotLog:
        self._drop_owed()
        future, session = self._future, self._session
        if future is not None:
            future.cancel()
        self._future = None
        self._session = None
        if session is not None:
            done = asyncio.run_coroutine_threadsafe(session.close(), shared_loop())
            try:
                done.result(5.0)
            except Exception as exc:
                self._notes.append(f"[botarena] closing the HTTP session: {exc}\n")
        text = "".join(self._notes)
        self._notes = []
        return BotLog(text, 0)

    def describe(self) -> dict[str, str]:
        return {"name": self.name, "kind": self.kind, "url": self.url}
