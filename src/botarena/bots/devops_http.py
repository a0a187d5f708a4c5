"""The Devops Game's native HTTP host (devops spec 7.1): a faction whose logic is a remote service.

The host POSTs each call's input to `{logic_url}/moves/base` or `/moves/unit` and reads the move from
the response body. A whole turn of one faction arrives as one batch (`send_batch` / `receive_batch`,
the runner's batch extension): the base call first, then every unit call concurrently, at most
`max_parallel` at a time, issued in ascending unit id (DV-16). Each call runs inside a hard total
deadline (`timeout_ms` from the moment it is actually sent: connect, send, slow drip and read
included), and the whole turn inside the faction's `turn_budget_ms` (DV-17).

All bots share the one background asyncio loop of `botarena.bots.http`; each keeps a pool of
kept-alive connections (aiohttp's client protocol sets TCP_NODELAY on every connection). A call cut
off by its deadline drops its connection, so a late response is never read as another call's.

Statuses (spec 5.2): no complete reply in time is TIMEOUT `deadline` (or `turn_budget`); a refused,
reset or failed connection is CRASHED `transport`; a status outside 200-299 (redirects are not
followed) is CRASHED `http_status`; a body over 64 KiB or not JSON is INVALID `bad_json`. The engine
judges the move itself. Native HTTP bots have no start or end exchange (spec 7.1): those requests
are answered locally with `{}`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from typing import Any

import orjson

try:
    import aiohttp
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError("HTTP bots need aiohttp: pip install 'botarena[http]'") from exc

from botarena.bots.base import Bot, BotLog
from botarena.bots.http import shared_loop
from botarena.core.protocol import MessageType, Reply, Request
from botarena.core.status import Status, Warning

MAX_BODY_BYTES = 64 * 1024
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

    def __init__(
        self,
        logic_url: str,
        *,
        name: str | None = None,
        secure_key: str | None = None,
        max_parallel: int = 16,
        max_body_bytes: int = MAX_BODY_BYTES,
    ) -> None:
        url, key = parse_url_spec(logic_url)
        self.logic_url = url
        self.secure_key = secure_key if secure_key is not None else key
        self.name = name or url
        self.max_parallel = max_parallel
        self.max_body_bytes = max_body_bytes
        self.headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.secure_key:
            self.headers["X-SECURE-KEY"] = self.secure_key
        self._session: aiohttp.ClientSession | None = None
        self._batch: concurrent.futures.Future[list[Reply]] | None = None
        self._batch_requests: list[Request] = []
        self._single: Request | None = None
        self._notes: list[str] = []

    # -- lifecycle -----------------------------------------------------------------------------------
    def open(self, match_id: str, seat: int) -> None:
        super().open(match_id, seat)
        self._notes = []
        if self._session is None:
            self._session = asyncio.run_coroutine_threadsafe(self._new_session(), shared_loop()).result(10.0)

    async def _new_session(self) -> aiohttp.ClientSession:
        connector = aiohttp.TCPConnector(
            limit=self.max_parallel + 1, keepalive_timeout=60.0, ttl_dns_cache=300
        )
        return aiohttp.ClientSession(connector=connector, headers=self.headers, auto_decompress=True)

    def close(self) -> BotLog:
        if self._batch is not None:
            self._batch.cancel()
            self._batch = None
        session, self._session = self._session, None
        if session is not None:
            try:
                asyncio.run_coroutine_threadsafe(session.close(), shared_loop()).result(5.0)
            except Exception as exc:
                self._notes.append(f"[botarena] closing the HTTP session: {exc}\n")
        text = "".join(self._notes)
        self._notes = []
        return BotLog(text, 0)

    def describe(self) -> dict[str, str]:
        return {"name": self.name, "kind": self.kind, "url": self.logic_url}

    def use_config(self, config: Any) -> None:
        """Take `http_max_parallel_per_faction` from the game's config (the runner calls this)."""
        value = getattr(config, "http_max_parallel_per_faction", None)
        if isinstance(value, int) and value >= 1 and value != self.max_parallel:
            self.max_parallel = value
            if self._session is not None:  # the pool follows at the next open()
                self.close()

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
        session = self._session
        assert session is not None, "send_batch() before open()"
        self._batch_requests = requests
        self._batch = asyncio.run_coroutine_threadsafe(self._turn(session, requests), shared_loop())

    def receive_batch(self) -> list[Reply]:
        """The replies of the last batch, in request order. Never raises for what the service does."""
        requests, future = self._batch_requests, self._batch
        assert future is not None, "receive_batch() without send_batch()"
        self._batch, self._batch_requests = None, []
        limit = max((r.chain_budget_ms or 0) for r in requests) or sum(r.timeout_ms for r in requests)
        try:
            # the coroutine enforces every deadline itself; the margin only guards against a stalled loop
            return future.result(limit / 1000.0 + 5.0)
        except Exception as exc:
            future.cancel()
            self._notes.append(f"[botarena] devops HTTP transport error: {type(exc).__name__}: {exc}\n")
            return [Reply(r.seat, Status.CRASHED, None, TRANSPORT, 0.0) for r in requests]

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
        return Reply(seat, status, data, reason, (loop.time() - sent) * 1000.0, warnings)

    async def _post(
        self, session: aiohttp.ClientSession, url: str, body: bytes, limit: float, reason_on_timeout: str
    ) -> tuple[Status, Any, str | None, list[Warning]]:
        cap = self.max_body_bytes
        try:
            async with asyncio.timeout(limit):
                async with session.post(url, data=body, allow_redirects=False) as response:
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
            detail = f"{type(exc).__name__}: {exc}"[:500]
            return Status.CRASHED, None, TRANSPORT, [{"code": "TRANSPORT", "detail": detail}]
        try:
            value = orjson.loads(bytes(data))
        except orjson.JSONDecodeError as exc:
            return Status.INVALID, None, BAD_JSON, [{"code": "NOT_JSON", "detail": str(exc)[:200]}]
        if not isinstance(value, dict):
            return Status.INVALID, None, BAD_JSON, [{"code": "NOT_OBJECT", "detail": type(value).__name__}]
        return Status.OK, value, None, []


def _call(request: Request) -> str:
    payload = request.payload
    return str(payload.get("call")) if isinstance(payload, dict) else "unit"
