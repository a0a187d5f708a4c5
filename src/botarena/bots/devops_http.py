"""The Devops Game's native HTTP host (devops spec 7.1): a faction whose logic is a remote service.

The host POSTs each call's input to `{logic_url}/moves/base` or `/moves/unit` and reads the move from
the response body. A whole turn of one faction arrives as one batch (`send_batch` / `receive_batch`,
the runner's batch extension): the base call first, then every unit call concurrently, at most
`max_parallel` at a time, issued in ascending unit id (DV-16). Each call runs inside a hard total
deadline (`timeout_ms` from the moment it is actually sent: connect, send, slow drip and read
included), and the whole turn inside the faction's `turn_budget_ms` (DV-17).

All bots share the one background asyncio loop of `botarena.bots.http`, and a turn crosses into it
once (one handoff per faction batch, not per call). For `http://` services each bot keeps a pool of
kept-alive connections with TCP_NODELAY and speaks HTTP/1.1 itself (prebuilt request bytes, the
httptools C parser, callbacks instead of a task per call): the host's cost per call is what limits a
turn of 1,020 calls (`benchmarks/devops_http_host.py`). Other schemes (`https://`) go through
aiohttp, the certificate checked for the URL's host with `bots.http.tls_context()`. A call cut off
by its deadline drops its connection, so a late response is never read as another call's; a request
that meets a kept-alive connection the service had just closed (nothing received) is sent once more
on a new connection, within its deadline.

Statuses (spec 5.2): no complete reply in time is TIMEOUT `deadline` (or `turn_budget`); a refused,
reset or failed connection is CRASHED `transport`; a status outside 200-299 is CRASHED `http_status`,
a redirect (3xx) included: it is never followed (the host only ever calls the address it was given)
and its warning HTTP_REDIRECT names the Location; a reply that arrives after its deadline is
TIMEOUT however busy the loop was (its time is recorded as it was); a body over 64 KiB or not JSON
is INVALID `bad_json`. The engine judges the move itself. Native HTTP bots have no start or end
exchange (spec 7.1): those requests are answered locally with `{}`.

A hosted arena's URL entry is sealed before it plays (`seal`, as `botarena.bots.http.Sealable`):
both clients, aiohttp's connector and the lean pool, then connect only to the addresses the pinned
resolver gives (those the arena checked), never looking the host up themselves, while the request
still names the host; the entry's secure key is its `X-SECURE-KEY` header."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import errno
import socket
import ssl
from typing import Any, cast
from urllib.parse import urlsplit

import aiohttp
import orjson
from aiohttp.abc import AbstractResolver

try:  # the C HTTP parser of uvicorn[standard]; without it every scheme goes through aiohttp
    import httptools

    HAVE_HTTPTOOLS = True
except ImportError:  # pragma: no cover - depends on the installation
    HAVE_HTTPTOOLS = False

from botarena.bots.base import Bot, BotLog
from botarena.bots.http import SECURE_KEY_HEADER, shared_loop, tls_context
from botarena.core.protocol import MessageType, Reply, Request
from botarena.core.status import Status, Warning

MAX_BODY_BYTES = 64 * 1024
LOG_CAP_BYTES = 256 * 1024  # the fetched logs kept per faction and match (DV-52); the rest is counted
TURN_BUDGET = "turn_budget"
DEADLINE = "deadline"
TRANSPORT = "transport"
HTTP_STATUS = "http_status"
BAD_JSON = "bad_json"

_Result = tuple[Status, Any, str | None, list[Warning], float]


def parse_url_spec(spec: str) -> tuple[str, str | None]:
    """`http://host:port[/path][#key=SECRET]` -> (logic_url without a trailing '/', secure key)."""
    url, _, fragment = spec.partition("#")
    key = None
    if fragment.startswith("key="):
        key = fragment[4:] or None
    return url.rstrip("/"), key


class DevopsHttpBot(Bot):
    """A Devops faction whose decision logic is an HTTP service (the course's contract)."""

    kind = "devops-http"
    takes_batches = True

    def __init__(
        self,
        logic_url: str,
        *,
        name: str | None = None,
        secure_key: str | None = None,
        max_parallel: int = 16,
        max_body_bytes: int = MAX_BODY_BYTES,
        resolver: AbstractResolver | None = None,
    ) -> None:
        url, key = parse_url_spec(logic_url)
        self.logic_url = url
        self.name = name or url
        self.max_parallel = max_parallel
        self.max_body_bytes = max_body_bytes
        self.resolver = resolver  # None: the system's; pinned (a URL entry): nothing else is asked
        self.headers = {"Content-Type": "application/json", "Accept": "application/json"}
        self._set_key(secure_key if secure_key is not None else key)
        self._session: aiohttp.ClientSession | None = None
        self._pool: _Pool | None = None
        self._run: _TurnRun | None = None
        self._batch: concurrent.futures.Future[list[Reply]] | None = None
        self._batch_requests: list[Request] = []
        self._single: Request | None = None
        self._notes: list[str] = []
        # DV-52 (spec 7.4): `GET {logic_url}/logs` after each turn, when the config's fetch_logs is set
        self.fetch_logs = False
        self.log_lines_max = 500
        self.log_timeout_s = 1.0
        self._logs: concurrent.futures.Future[str] | None = None
        self._log_bytes = 0
        self._log_dropped = 0

    def _set_key(self, key: str | None) -> None:
        self.secure_key = key
        self.headers.pop(SECURE_KEY_HEADER, None)
        if key:
            self.headers[SECURE_KEY_HEADER] = key

    def seal(self, resolver: AbstractResolver, secure_key: str | None) -> None:
        """Pin both clients to `resolver`'s addresses and send `secure_key` (`Sealable`); before `open`."""
        assert self._session is None and self._pool is None, "seal() after open()"
        self.resolver = resolver
        if secure_key is not None:  # else the key the URL's `#key=` gave, if any, stays
            self._set_key(secure_key)

    # -- lifecycle -----------------------------------------------------------------------------------
    def open(self, match_id: str, seat: int) -> None:
        super().open(match_id, seat)
        self._notes = []
        self._log_bytes = self._log_dropped = 0
        parts = urlsplit(self.logic_url)
        lean = HAVE_HTTPTOOLS and parts.scheme == "http" and parts.hostname and not parts.query
        if lean and self._pool is None and parts.hostname:
            self._pool = self._new_pool(parts.hostname, parts.port or 80, parts.netloc, parts.path)
        if self._session is None and (self._pool is None or self.fetch_logs):
            tls = tls_context()  # here, in the caller's thread: its first call reads files
            made = asyncio.run_coroutine_threadsafe(self._new_session(tls), shared_loop())
            self._session = made.result(10.0)

    def _new_pool(self, host: str, port: int, netloc: str, path: str) -> _Pool:
        lines = [f"Host: {netloc.rpartition('@')[2]}", "User-Agent: botarena"]
        lines += [f"{name}: {value}" for name, value in self.headers.items()]
        tail = " HTTP/1.1\r\n" + "\r\n".join(lines) + "\r\nContent-Length: "
        path_bytes = (path + "/moves/").encode()
        return _Pool(host, port, path_bytes, tail.encode("latin-1"), self.max_body_bytes, self.resolver)

    async def _new_session(self, tls: ssl.SSLContext) -> aiohttp.ClientSession:
        connector = aiohttp.TCPConnector(
            limit=self.max_parallel + 1, keepalive_timeout=60.0, ttl_dns_cache=300, resolver=self.resolver,
            ssl=tls,
        )  # fmt: skip
        return aiohttp.ClientSession(connector=connector, headers=self.headers, auto_decompress=True)

    def close(self) -> BotLog:
        self._collect_logs()
        if self._batch is not None:
            self._batch.cancel()
            self._batch = None
        run, self._run = self._run, None
        pool, self._pool = self._pool, None
        if run is not None or pool is not None:
            loop = shared_loop()
            if run is not None:
                loop.call_soon_threadsafe(run.cancel)
            if pool is not None:
                loop.call_soon_threadsafe(pool.close)
        session, self._session = self._session, None
        if session is not None:
            try:
                asyncio.run_coroutine_threadsafe(session.close(), shared_loop()).result(5.0)
            except Exception as exc:
                self._notes.append(f"[botarena] closing the HTTP session: {exc}\n")
        text = "".join(self._notes)
        self._notes = []
        return BotLog(text, self._log_dropped)

    def describe(self) -> dict[str, str]:
        return {"name": self.name, "kind": self.kind, "url": self.logic_url}

    def use_config(self, config: Any) -> None:
        """Take `http_max_parallel_per_faction` and the DV-52 log settings from the game's config (the
        runner calls this before `open`)."""
        self.fetch_logs = getattr(config, "fetch_logs", False) is True
        self.log_lines_max = int(getattr(config, "log_lines_max", self.log_lines_max))
        self.log_timeout_s = int(getattr(config, "turn_timeout_ms", 1000)) / 1000.0
        value = getattr(config, "http_max_parallel_per_faction", None)
        if isinstance(value, int) and value >= 1 and value != self.max_parallel:
            self.max_parallel = value
            if self._session is not None:  # the pool follows at the next open()
                self.close()
            # the lean client's pool has no fixed size: at most max_parallel calls are ever in flight

    # -- one request at a time (start and end; a turn call outside a batch) --------------------------
    def send(self, request: Request, request_id: int, timeout_s: float) -> None:
        self._single = request
        if request.type is MessageType.TURN:
            self.send_batch([request])

    def receive(self) -> Reply:
        request, self._single = self._single, None
        assert request is not None, "receive() without send()"
        if request.type is not MessageType.TURN:
            return Reply(request.seat, Status.OK, {}, None, 0.0)  # spec 7.1: no start or end call
        return self.receive_batch()[0]

    # -- the batch extension ---------------------------------------------------------------------------
    def send_batch(self, requests: list[Request]) -> None:
        """Start every call of `requests` (one faction's turn, in the engine's order); returns at once."""
        self._collect_logs()
        self._batch_requests = requests
        pool = self._pool
        if pool is not None:
            loop = shared_loop()
            future: concurrent.futures.Future[list[Reply]] = concurrent.futures.Future()
            self._run = _TurnRun(loop, pool, requests, self.max_parallel, future)
            self._batch = future
            loop.call_soon_threadsafe(self._run.begin)
            return
        session = self._session
        assert session is not None, "send_batch() before open()"
        self._batch = asyncio.run_coroutine_threadsafe(self._turn(session, requests), shared_loop())

    def receive_batch(self) -> list[Reply]:
        """The replies of the last batch, in request order. Never raises for what the service does."""
        requests, future = self._batch_requests, self._batch
        assert future is not None, "receive_batch() without send_batch()"
        run, self._run = self._run, None
        self._batch, self._batch_requests = None, []
        limit = max((r.chain_budget_ms or 0) for r in requests) or sum(r.timeout_ms for r in requests)
        try:
            # the coroutine enforces every deadline itself; the margin only guards against a stalled loop
            replies = future.result(limit / 1000.0 + 5.0)
            turn_calls = any(r.type is MessageType.TURN for r in requests)
            if self.fetch_logs and turn_calls and self._session is not None:
                # DV-52: fetched while the engine applies the turn; read before the next turn's calls
                turn = requests[0].turn
                self._logs = asyncio.run_coroutine_threadsafe(
                    self._fetch_logs(self._session, turn), shared_loop()
                )
            return replies
        except Exception as exc:
            future.cancel()
            if run is not None:
                shared_loop().call_soon_threadsafe(run.cancel)
            self._notes.append(f"[botarena] devops HTTP transport error: {type(exc).__name__}: {exc}\n")
            return [Reply(r.seat, Status.CRASHED, None, TRANSPORT, 0.0) for r in requests]

    # -- DV-52: the service's logs ------------------------------------------------------------------------
    async def _fetch_logs(self, session: aiohttp.ClientSession, turn: int) -> str:
        """One `GET /logs`: the turn's lines as text (`[turn N] line`), or a one-line failure note."""
        headers = {SECURE_KEY_HEADER: self.secure_key} if self.secure_key else None
        try:
            async with asyncio.timeout(self.log_timeout_s):
                async with session.get(
                    self.logic_url + "/logs", headers=headers, allow_redirects=False
                ) as response:
                    if not 200 <= response.status < 300:
                        return f"[botarena] turn {turn}: logs not fetched: HTTP {response.status}\n"
                    data = await response.content.read(self.max_body_bytes + 1)
        except TimeoutError:
            return f"[botarena] turn {turn}: logs not fetched: TIMEOUT\n"
        except (aiohttp.ClientError, OSError, ValueError) as exc:
            return f"[botarena] turn {turn}: logs not fetched: {type(exc).__name__}\n"
        if len(data) > self.max_body_bytes:
            return f"[botarena] turn {turn}: logs not fetched: over {self.max_body_bytes} bytes\n"
        try:
            lines = orjson.loads(data)
        except orjson.JSONDecodeError:
            return f"[botarena] turn {turn}: logs not fetched: not JSON\n"
        if not isinstance(lines, list):
            return f"[botarena] turn {turn}: logs not fetched: not a JSON array\n"
        out = []
        for line in lines[: self.log_lines_max]:
            text = line if isinstance(line, str) else orjson.dumps(line).decode()
            out.append(f"[turn {turn}] {text[:1000]}\n")
        return "".join(out)

    def _collect_logs(self) -> None:
        """Append the last fetched logs (if any) to the bot's log, capped at `LOG_CAP_BYTES`."""
        future, self._logs = self._logs, None
        if future is None:
            return
        try:
            text = future.result(self.log_timeout_s + 5.0)
        except Exception as exc:  # a stalled loop: a note, never a penalty (spec 7.4)
            future.cancel()
            text = f"[botarena] logs not fetched: {type(exc).__name__}\n"
        size = len(text.encode())
        if self._log_bytes + size > LOG_CAP_BYTES:
            self._log_dropped += size
            return
        self._log_bytes += size
        self._notes.append(text)

    async def _turn(self, session: aiohttp.ClientSession, requests: list[Request]) -> list[Reply]:
        loop = asyncio.get_running_loop()
        started = loop.time()
        budget_ms = max((r.chain_budget_ms or 0) for r in requests) if requests else 0
        budget_end = started + budget_ms / 1000.0 if budget_ms > 0 else None
        replies: list[Reply | None] = [None] * len(requests)
        start = 0
        if requests and requests[0].type is MessageType.TURN and _call(requests[0]) == "base":
            replies[0] = await self._call(session, requests[0], budget_end)
            start = 1
        gate = asyncio.Semaphore(self.max_parallel)

        async def unit(index: int) -> None:
            async with gate:  # waiters are woken in FIFO order: calls go out in ascending unit id
                replies[index] = await self._call(session, requests[index], budget_end)

        if start < len(requests):
            await asyncio.gather(*(unit(i) for i in range(start, len(requests))))
        return [r if r is not None else Reply(0, Status.CRASHED, None, TRANSPORT) for r in replies]

    async def _call(
        self, session: aiohttp.ClientSession, request: Request, budget_end: float | None
    ) -> Reply:
        loop = asyncio.get_running_loop()
        sent = loop.time()
        seat = request.seat
        if request.type is not MessageType.TURN:
            return Reply(seat, Status.OK, {}, None, 0.0)
        limit = request.timeout_ms / 1000.0
        reason_on_timeout = DEADLINE
        if budget_end is not None and budget_end - sent < limit:
            limit = budget_end - sent
            reason_on_timeout = TURN_BUDGET
            if limit <= 0:  # DV-17: not sent at all
                return Reply(seat, Status.TIMEOUT, None, TURN_BUDGET, 0.0)
        payload = request.payload
        path = "/moves/base" if _call(request) == "base" else "/moves/unit"
        body = orjson.dumps(payload.get("input") if isinstance(payload, dict) else payload)
        status, data, reason, warnings = await self._post(
            session, self.logic_url + path, body, limit, reason_on_timeout
        )
        elapsed = loop.time() - sent
        if elapsed > limit and status is not Status.TIMEOUT:  # late is late, whatever the load
            status, data, reason, warnings = Status.TIMEOUT, None, reason_on_timeout, []
        return Reply(seat, status, data, reason, elapsed * 1000.0, warnings)

    async def _post(
        self, session: aiohttp.ClientSession, url: str, body: bytes, limit: float, reason_on_timeout: str
    ) -> tuple[Status, Any, str | None, list[Warning]]:
        cap = self.max_body_bytes
        try:
            async with asyncio.timeout(limit):
                async with session.post(url, data=body, allow_redirects=False) as response:
                    if 300 <= response.status < 400:
                        return _redirect(response.status, response.headers.get("Location", ""))
                    if not 200 <= response.status < 300:
                        detail = f"HTTP {response.status} {response.reason or ''}".strip()
                        return Status.CRASHED, None, HTTP_STATUS, [{"code": "HTTP_STATUS", "detail": detail}]
                    data = bytearray()
                    async for chunk in response.content.iter_any():
                        data += chunk
                        if len(data) > cap:
                            return (
                                Status.INVALID,
                                None,
                                BAD_JSON,
                                [{"code": "TOO_LARGE", "detail": f"> {cap} bytes"}],
                            )
        except TimeoutError:
            return Status.TIMEOUT, None, reason_on_timeout, []
        except (aiohttp.ClientError, OSError, ValueError) as exc:
            detail = _transport_detail(exc, urlsplit(self.logic_url).netloc)
            return Status.CRASHED, None, TRANSPORT, [{"code": "TRANSPORT", "detail": detail}]
        try:
            value = orjson.loads(bytes(data))
        except orjson.JSONDecodeError as exc:
            return Status.INVALID, None, BAD_JSON, [{"code": "NOT_JSON", "detail": str(exc)[:200]}]
        if not isinstance(value, dict):
            return Status.INVALID, None, BAD_JSON, [{"code": "NOT_OBJECT", "detail": type(value).__name__}]
        return Status.OK, value, None, []


def _redirect(code: int, location: str) -> tuple[Status, Any, str | None, list[Warning]]:
    """A 3xx reply: CRASHED `http_status` (spec 5.2: redirects are not followed), the warning
    (code HTTP_REDIRECT) naming where it pointed."""
    detail = f"HTTP {code} to {location or '(no Location)'}"[:500]
    return Status.CRASHED, None, HTTP_STATUS, [{"code": "HTTP_REDIRECT", "detail": detail}]


def _transport_detail(exc: BaseException, where: str) -> str:
    """A failed connection's warning detail, in words first where they are known: a refused
    connection (nothing listens at the address: the service is not running) says so (issue 26)."""
    raw = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, ConnectionRefusedError) or getattr(exc, "errno", None) == errno.ECONNREFUSED:
        raw = f"connection refused by {where}: is the service running? ({raw})"
    return raw[:500]


def _call(request: Request) -> str:
    payload = request.payload
    return str(payload.get("call")) if isinstance(payload, dict) else "unit"


# -- the lean HTTP/1.1 client (plain http://) --------------------------------------------------------
# aiohttp costs ~250 us of the loop thread per call (request objects, payload registry, a task per
# request); a turn of 20 factions x 51 calls is CPU-bound on that. This client writes one prebuilt
# request per call on a pooled keep-alive connection, parses the reply with httptools (llhttp, in C),
# and drives a faction's whole turn from callbacks: no task and no coroutine per call.


class _Conn(asyncio.Protocol):
    """One kept-alive connection to a faction's service; carries at most one call at a time."""

    __slots__ = ("call", "cap", "closed", "parser", "pool", "served", "transport")

    def __init__(self, pool: _Pool) -> None:
        self.pool = pool
        self.transport: asyncio.Transport | None = None
        self.call: _Call | None = None
        self.closed = False
        self.served = 0
        self.cap = pool.max_body
        self.parser: Any = httptools.HttpResponseParser(self)

    # asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's transports are not subclasses
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def data_received(self, data: bytes) -> None:
        call = self.call
        if call is None:  # unsolicited bytes: this connection cannot be trusted any more
            self.abort()
            return
        call.got_bytes = True
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._fail(Status.CRASHED, TRANSPORT, "TRANSPORT", "unexpected protocol upgrade")
        except httptools.HttpParserError as exc:
            self._fail(Status.CRASHED, TRANSPORT, "TRANSPORT", f"malformed HTTP response: {exc}")

    def eof_received(self) -> bool | None:
        call = self.call
        if call is not None and call.headers_done and not call.framed:
            self.on_message_complete()  # a body delimited by the end of the connection
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.pool.discard(self)
        call = self.call
        if call is not None:
            self.call = None
            if not call.got_bytes and self.served > 0 and call.retry():
                return  # a kept-alive connection the service had closed: once more on a new one
            detail = f"{type(exc).__name__}: {exc}" if exc else "connection closed before the reply"
            call.finish(Status.CRASHED, None, TRANSPORT, [{"code": "TRANSPORT", "detail": detail[:500]}])

    # httptools callbacks
    def on_header(self, name: bytes, value: bytes) -> None:
        lower = name.lower()
        if (lower == b"content-length" or lower == b"transfer-encoding") and self.call is not None:
            self.call.framed = True
        elif lower == b"location" and self.call is not None:
            self.call.location = value.decode("latin-1")

    def on_headers_complete(self) -> None:
        call = self.call
        if call is None:
            return
        call.headers_done = True
        code = self.parser.get_status_code()
        if 300 <= code < 400:
            status, _, reason, warnings = _redirect(code, call.location)
            self._fail(status, reason or HTTP_STATUS, "HTTP_REDIRECT", warnings[0]["detail"])
        elif not 200 <= code < 300:
            detail = f"HTTP {code}"
            self._fail(Status.CRASHED, HTTP_STATUS, "HTTP_STATUS", detail)

    def on_body(self, chunk: bytes) -> None:
        call = self.call
        if call is None:
            return
        call.body += chunk
        if len(call.body) > self.cap:
            self._fail(Status.INVALID, BAD_JSON, "TOO_LARGE", f"> {self.cap} bytes")

    def on_message_complete(self) -> None:
        call = self.call
        if call is None:
            return
        self.call = None
        self.served += 1
        keep = self.parser.should_keep_alive()
        if keep and not self.closed:
            self.pool.release(self)
        else:
            self.abort()
        call.finish_body()

    # helpers
    def _fail(self, status: Status, reason: str, code: str, detail: str) -> None:
        call, self.call = self.call, None
        self.abort()
        if call is not None:
            call.finish(status, None, reason, [{"code": code, "detail": detail}])

    def abort(self) -> None:
        self.closed = True
        self.pool.discard(self)
        if self.transport is not None:
            self.transport.abort()


class _Pool:
    """The kept-alive connections of one faction's service (used on the loop thread only)."""

    def __init__(
        self,
        host: str,
        port: int,
        path: bytes,
        headers_tail: bytes,
        max_body: int,
        resolver: AbstractResolver | None = None,
    ) -> None:
        self.host, self.port = host, port
        self.resolver = resolver  # pinned: the only source of addresses to connect to
        self.path = path  # the logic URL's path, then "/moves/"
        self.headers_tail = headers_tail  # the headers after the request line, up to "Content-Length: "
        self.max_body = max_body
        self.idle: list[_Conn] = []
        self.all: set[_Conn] = set()

    async def connect(self, loop: asyncio.AbstractEventLoop) -> _Conn:
        """A new connection to the service: to the host as the system resolves it, or, pinned, to
        the resolver's addresses in their order (the first that accepts), never looked up again."""
        if self.resolver is None:
            _, conn = await loop.create_connection(lambda: _Conn(self), self.host, self.port)
            return conn
        found = await self.resolver.resolve(self.host, self.port, family=socket.AF_UNSPEC)
        failure: OSError = OSError(f"{self.host} has no pinned address")
        for entry in found:
            try:
                _, conn = await loop.create_connection(lambda: _Conn(self), entry["host"], entry["port"])
            except OSError as exc:
                failure = exc
                continue
            return conn
        raise failure

    def take(self) -> _Conn | None:
        idle = self.idle
        while idle:
            conn = idle.pop()
            if not conn.closed and conn.transport is not None and not conn.transport.is_closing():
                return conn
        return None

    def release(self, conn: _Conn) -> None:
        self.idle.append(conn)

    def discard(self, conn: _Conn) -> None:
        self.all.discard(conn)
        if conn in self.idle:
            self.idle.remove(conn)

    def close(self) -> None:
        for conn in list(self.all):
            conn.call = None
            conn.abort()
        self.idle.clear()


class _Call:
    """One POST of a faction's turn: its deadline timer, its connection, and where its reply goes."""

    __slots__ = (
        "body",
        "conn",
        "connecting",
        "done",
        "framed",
        "got_bytes",
        "headers_done",
        "index",
        "limit",
        "location",
        "reason_on_timeout",
        "request",
        "retried",
        "run",
        "sent",
        "timer",
        "wire",
    )

    def __init__(self, run: _TurnRun, index: int, wire: bytes) -> None:
        self.run = run
        self.index = index
        self.wire = wire
        self.body = b""
        self.conn: _Conn | None = None
        self.connecting: asyncio.Task[None] | None = None
        self.done = False
        self.framed = False
        self.got_bytes = False
        self.headers_done = False
        self.retried = False
        self.reason_on_timeout = DEADLINE
        self.limit = 0.0
        self.location = ""
        self.sent = 0.0
        self.timer: asyncio.TimerHandle | None = None

    def start(self, limit: float, reason_on_timeout: str) -> None:
        run = self.run
        loop = run.loop
        self.sent = loop.time()
        self.limit = limit
        self.reason_on_timeout = reason_on_timeout
        self.timer = loop.call_at(self.sent + limit, self.expire)
        conn = run.pool.take()
        if conn is None:
            self.connecting = loop.create_task(self._connect())
        else:
            self._write(conn)

    def _write(self, conn: _Conn) -> None:
        self.conn = conn
        conn.call = self
        assert conn.transport is not None
        conn.transport.write(self.wire)

    async def _connect(self) -> None:
        pool = self.run.pool
        loop = self.run.loop
        try:
            conn = await pool.connect(loop)
        except asyncio.CancelledError:
            raise
        except (OSError, ValueError) as exc:
            detail = _transport_detail(exc, f"{pool.host}:{pool.port}")
            self.finish(Status.CRASHED, None, TRANSPORT, [{"code": "TRANSPORT", "detail": detail}])
            return
        finally:
            self.connecting = None
        pool.all.add(conn)
        if self.done:
            pool.release(conn)
            return
        self._write(conn)

    def retry(self) -> bool:
        if self.retried or self.done:
            return False
        self.retried = True
        self.conn = None
        self.headers_done = self.framed = self.got_bytes = False
        self.location = ""
        self.body = b""
        self.connecting = self.run.loop.create_task(self._connect())
        return True

    def expire(self) -> None:
        self.timer = None
        if not self.done:
            self.finish(Status.TIMEOUT, None, self.reason_on_timeout, [])

    def finish_body(self) -> None:
        try:
            value = orjson.loads(self.body)
        except orjson.JSONDecodeError as exc:
            self.finish(Status.INVALID, None, BAD_JSON, [{"code": "NOT_JSON", "detail": str(exc)[:200]}])
            return
        if not isinstance(value, dict):
            detail = type(value).__name__
            self.finish(Status.INVALID, None, BAD_JSON, [{"code": "NOT_OBJECT", "detail": detail}])
            return
        self.finish(Status.OK, value, None, [])

    def finish(self, status: Status, data: Any, reason: str | None, warnings: list[Warning]) -> None:
        if self.done:
            return
        self.done = True
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.connecting is not None:
            self.connecting.cancel()
            self.connecting = None
        conn = self.conn
        if conn is not None and conn.call is self:  # cut off mid-call: the late reply must not be read
            conn.call = None
            conn.abort()
        run = self.run
        elapsed = run.loop.time() - self.sent
        if elapsed > self.limit and status is not Status.TIMEOUT:
            # Arrived after its deadline (a busy loop ran the timer late): late is late, whatever the load.
            status, data, reason, warnings = Status.TIMEOUT, None, self.reason_on_timeout, []
        elapsed *= 1000.0
        run.done(self.index, Reply(run.requests[self.index].seat, status, data, reason, elapsed, warnings))


class _TurnRun:
    """One faction's turn: the base call first, then the unit calls, `max_parallel` at a time (DV-16)."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        pool: _Pool,
        requests: list[Request],
        max_parallel: int,
        future: concurrent.futures.Future[list[Reply]],
    ) -> None:
        self.loop = loop
        self.pool = pool
        self.requests = requests
        self.max_parallel = max_parallel
        self.future = future
        self.replies: list[Reply | None] = [None] * len(requests)
        self.left = len(requests)
        self.next = 0
        self.in_flight = 0
        self.calls: list[_Call] = []
        self.budget_end: float | None = None
        self.width = max_parallel  # 1 while the base call is in flight: it is answered first
        self.filling = False

    def begin(self) -> None:
        if self.future.cancelled():
            return
        requests = self.requests
        budget_ms = max((r.chain_budget_ms or 0) for r in requests) if requests else 0
        if budget_ms > 0:
            self.budget_end = self.loop.time() + budget_ms / 1000.0
        if not requests:
            self.future.set_result([])
            return
        if requests[0].type is MessageType.TURN and _call(requests[0]) == "base":
            self.width = 1
        self._fill()

    def _fill(self) -> None:
        if self.filling:  # a call answered at once, inside the loop below: the loop goes on
            return
        self.filling = True
        try:
            count = len(self.requests)
            while self.next < count and self.in_flight < self.width:
                self._issue()
        finally:
            self.filling = False

    def _issue(self) -> None:
        index = self.next
        self.next += 1
        request = self.requests[index]
        seat = request.seat
        if request.type is not MessageType.TURN:
            self.in_flight += 1
            self.done(index, Reply(seat, Status.OK, {}, None, 0.0))
            return
        limit = request.timeout_ms / 1000.0
        reason = DEADLINE
        if self.budget_end is not None:
            left = self.budget_end - self.loop.time()
            if left < limit:
                limit, reason = left, TURN_BUDGET
                if limit <= 0:  # DV-17: not sent at all
                    self.in_flight += 1
                    self.done(index, Reply(seat, Status.TIMEOUT, None, TURN_BUDGET, 0.0))
                    return
        payload = request.payload
        path = b"base" if _call(request) == "base" else b"unit"
        body = orjson.dumps(payload.get("input") if isinstance(payload, dict) else payload)
        pool = self.pool
        length = str(len(body)).encode()
        wire = b"".join((b"POST ", pool.path, path, pool.headers_tail, length, b"\r\n\r\n", body))
        call = _Call(self, index, wire)
        self.calls.append(call)
        self.in_flight += 1
        call.start(limit, reason)

    def done(self, index: int, reply: Reply) -> None:
        self.replies[index] = reply
        self.in_flight -= 1
        self.left -= 1
        if self.left == 0:
            with contextlib.suppress(concurrent.futures.InvalidStateError):
                self.future.set_result([r for r in self.replies if r is not None])
            return
        self.width = self.max_parallel
        self._fill()

    def cancel(self) -> None:
        for call in self.calls:
            if not call.done:
                call.finish(Status.CRASHED, None, TRANSPORT, [])
