"""Live matches from anywhere to the server: a live sink that posts events over HTTP.

A match played on a Dask worker, or by a `botarena tournament` process of its own, has no queue to
the server's `LiveHub`: its `MatchTask` carries `live_url` instead, and the worker hands its
`LiveStreamer` events to `HttpLiveSink`, which posts them in batches to the server's
`POST {url}/api/live/ingest` (a JSON list of live events, `Authorization: Bearer <token>`), with the
token the worker holds or finds in its environment (`botarena.core.credentials.live_token`): a task
never carries one.

A viewer's trouble must never slow or break a match (DESIGN principle 3), so:

- `sink(event)` only puts the event on a bounded queue; a background thread posts. A full queue,
  a server that is down, refuses the token or answers an error drops the events; they are counted
  (`dropped`), and the first drop is logged once as a warning.
- Every request runs inside a total deadline (`request_timeout_s`: connect, send and read); after a
  failure the sink drops without trying for `retry_after_s`, so a server that hangs costs one
  deadline now and then, never one per event.
- Redirects are never followed (the token goes to `url` and nowhere else).
- A match's "end" waits (at most `end_wait_s`, and not at all while the last post failed) until
  the events before it have been posted: a worker that exits right after its match still
  delivers them. `close()` does the same within its own bound.

`live_sink(url, token)` is the one sink per process and (url, token) that `play_task` uses.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import logging
import os
import queue
import threading
import time
from typing import Any
from urllib.parse import urlsplit

import orjson

KEEPALIVE_S = 2.0
"""How long an idle connection to the server is kept: less than the server's own keep-alive
(`botarena.server.httpconfig`, 5 s), so the client is the one that closes it, mostly."""

log = logging.getLogger(__name__)

INGEST_PATH = "/api/live/ingest"
MAX_INGEST_BYTES = 8 << 20  # the server's cap on one request body (413 beyond)
MAX_INGEST_EVENTS = 1000  # the server's cap on the events of one request
MAX_KEY_CHARS = 200  # the server's cap on a key's (and a match name's) length

_STOP = None  # the queue's end marker


class LiveUrlError(ValueError):
    """A live URL that is not an http(s) URL of a server."""


def check_live_url(url: str) -> str:
    """`url` without a trailing slash, or LiveUrlError (one line) when it is no http(s) server URL."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise LiveUrlError(f"the live URL must be http(s)://host[:port], got {url[:100]!r}")
    if parts.username or parts.password or parts.query or parts.fragment:
        raise LiveUrlError(f"the live URL takes no credentials, query or fragment: {url[:100]!r}")
    return url.rstrip("/")


def encode_event(event: dict[str, Any]) -> bytes:
    """An event as JSON bytes; integers beyond 64 bits (orjson refuses them) go through the stdlib."""
    try:
        return orjson.dumps(event)
    except TypeError:
        return json.dumps(event, separators=(",", ":"), allow_nan=False, default=str).encode()


def split_event(event: dict[str, Any], limit: int) -> list[bytes]:
    """`event` encoded as one or more events of at most `limit` bytes each: a "steps" event too large
    is cut into runs of steps; anything else too large (or a single step) gives nothing."""
    data = encode_event(event)
    if len(data) <= limit:
        return [data]
    steps = event.get("steps")
    first = event.get("first")
    if event.get("type") != "steps" or not isinstance(steps, list) or not isinstance(first, int):
        return []
    if len(steps) < 2:
        return []
    half = len(steps) // 2
    head = {**event, "steps": steps[:half]}
    tail = {**event, "first": first + half, "steps": steps[half:]}
    return split_event(head, limit) + split_event(tail, limit)


class HttpLiveSink:
    """A live sink (`LiveStreamer`'s `sink`) that posts events to a server: see the module docstring.

    Call it with each event; `stats()` says what was sent and dropped; `close()` flushes (bounded).
    """

    def __init__(
        self,
        url: str,
        token: str,
        *,
        max_queue: int = 2000,
        request_timeout_s: float = 5.0,
        retry_after_s: float = 2.0,
        end_wait_s: float = 5.0,
        max_request_bytes: int = MAX_INGEST_BYTES,
        max_request_events: int = MAX_INGEST_EVENTS,
    ) -> None:
        import aiohttp  # the `http` extra: fail here, at once, rather than in the thread

        self._aiohttp = aiohttp
        self.url = check_live_url(url)
        self.endpoint = self.url + INGEST_PATH
        self._headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        self.request_timeout_s = request_timeout_s
        self.retry_after_s = retry_after_s
        self.end_wait_s = end_wait_s
        self.max_request_bytes = max_request_bytes
        self.max_request_events = max_request_events
        self._queue: queue.Queue[dict[str, Any] | None] = queue.Queue(max_queue)
        self._cond = threading.Condition()
        self._pending = 0  # events queued and not yet posted or dropped
        self._failing_until = 0.0  # monotonic: drop without trying until then
        self._last_failed = False  # the last post failed (until one succeeds again)
        self._warned = False
        self._closed = False
        self.sent = 0
        self.dropped = 0
        self.requests = 0
        self.failures = 0
        self._thread = threading.Thread(target=self._run, name="botarena-live-http", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------------------ the match's side

    def __call__(self, event: dict[str, Any]) -> None:
        """Queue `event` (never blocks, never raises); an "end" waits, bounded, for the post."""
        with self._cond:
            if self._closed:
                self._count_drop(1, "the sink is closed")
                return
            self._pending += 1
        try:
            self._queue.put_nowait(event)
        except queue.Full:
            with self._cond:
                self._pending -= 1
                self._count_drop(1, "its queue is full (the server is slower than the matches)")
                self._cond.notify_all()
            return
        if isinstance(event, dict) and event.get("type") == "end" and not self.failing:
            self.flush(self.end_wait_s)

    @property
    def failing(self) -> bool:
        """The last post failed: ends do not wait, and until `retry_after_s` has passed events are
        dropped without trying (a server that hangs costs a match no more than one wait)."""
        return self._last_failed or time.monotonic() < self._failing_until

    def flush(self, timeout_s: float) -> bool:
        """Wait at most `timeout_s` until every queued event was posted (or dropped); True if so."""
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while self._pending:
                left = deadline - time.monotonic()
                if left <= 0 or not self._thread.is_alive():
                    return False
                self._cond.wait(left)
            return True

    @property
    def closed(self) -> bool:
        """Whether the sink has been closed (it then posts nothing more)."""
        return self._closed

    def close(self, timeout_s: float = 5.0) -> None:
        """Post what is queued (waiting at most `timeout_s`, less if the server is failing), then stop."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
        deadline = time.monotonic() + timeout_s
        try:
            self._queue.put(_STOP, timeout=timeout_s)
        except queue.Full:
            return  # the thread is stuck on a post: it is a daemon, and its deadline ends the post
        self._thread.join(max(0.0, deadline - time.monotonic()))

    def stats(self) -> dict[str, int]:
        with self._cond:
            return {
                "sent": self.sent,
                "dropped": self.dropped,
                "requests": self.requests,
                "failures": self.failures,
                "pending": self._pending,
            }

    def _count_drop(self, count: int, why: str) -> None:
        """Count `count` dropped events; warn the first time. Lock held."""
        self.dropped += count
        if not self._warned:
            self._warned = True
            log.warning(
                "live events for %s dropped: %s (matches go on; further drops are only counted)",
                self.url,
                why,
            )

    # ------------------------------------------------------------------------------ the thread

    def _run(self) -> None:
        from botarena.bots.subprocess import block_thread_signals

        block_thread_signals()  # signals (a bot's timer, SIGTERM) belong to the worker's main thread
        loop = asyncio.new_event_loop()
        session: Any = None
        try:
            while True:
                batch: list[dict[str, Any] | None] = [self._queue.get()]
                while len(batch) < self.max_request_events and batch[-1] is not _STOP:
                    try:
                        batch.append(self._queue.get_nowait())
                    except queue.Empty:
                        break
                stop = batch[-1] is _STOP
                events = [e for e in batch if e is not None]
                if events:
                    if session is None:
                        session = loop.run_until_complete(self._new_session())
                    self._send(loop, session, events)
                if stop:
                    return
        except Exception:  # a bug here must not reach the match: stop streaming, say so once
            log.exception("the live stream to %s stopped", self.url)
        finally:
            with self._cond:
                self._closed = True
                if self._pending:
                    self._count_drop(self._pending, "the sink stopped")
                self._pending = 0
                self._cond.notify_all()
            if session is not None:
                loop.run_until_complete(session.close())
            loop.close()

    async def _new_session(self) -> Any:
        aiohttp = self._aiohttp
        return aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=1, keepalive_timeout=KEEPALIVE_S), headers=self._headers
        )

    def _send(self, loop: asyncio.AbstractEventLoop, session: Any, events: list[dict[str, Any]]) -> None:
        """Post `events` (in as many requests as the server's caps need); count what was lost."""
        parts = [data for event in events for data in split_event(event, self.max_request_bytes - 2)]
        unusable = len(events) - len(parts) if len(parts) < len(events) else 0
        with self._cond:
            if unusable:
                self._count_drop(unusable, f"an event over the {self.max_request_bytes}-byte request cap")
        for body, count in self._bodies(parts):
            if time.monotonic() < self._failing_until:  # a server down or hanging: one try per while
                with self._cond:
                    self._count_drop(count, "the server failed recently")
                continue
            ok, why = loop.run_until_complete(self._post(session, body))
            with self._cond:
                self.requests += 1
                self._last_failed = not ok
                if ok:
                    self.sent += count
                else:
                    self.failures += 1
                    self._failing_until = time.monotonic() + self.retry_after_s
                    self._count_drop(count, why)
        with self._cond:
            self._pending -= len(events)
            self._cond.notify_all()

    def _bodies(self, parts: list[bytes]) -> list[tuple[bytes, int]]:
        """The encoded events as JSON-list bodies within the request caps: (body, events in it)."""
        bodies: list[tuple[bytes, int]] = []
        run: list[bytes] = []
        size = 2
        for part in parts:
            if run and (size + len(part) + 1 > self.max_request_bytes or len(run) >= self.max_request_events):
                bodies.append((b"[" + b",".join(run) + b"]", len(run)))
                run, size = [], 2
            run.append(part)
            size += len(part) + 1
        if run:
            bodies.append((b"[" + b",".join(run) + b"]", len(run)))
        return bodies

    async def _post(self, session: Any, body: bytes) -> tuple[bool, str]:
        aiohttp = self._aiohttp
        try:
            async with asyncio.timeout(self.request_timeout_s):  # the total deadline, whatever happens
                try:
                    return await self._post_once(session, body)
                except (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError) as error:
                    # A kept-alive connection the server closed while idle (uvicorn's keep-alive
                    # timeout) fails the next post on it: try once more, on a new connection. The
                    # hub takes a resent batch as it came (steps by index, a header restarts it).
                    # A connection never made (a server down) is no stale one: no second try.
                    if isinstance(error, aiohttp.ClientConnectorError):
                        raise
                    return await self._post_once(session, body)
        except TimeoutError:
            return False, f"no answer from {self.endpoint} within {self.request_timeout_s:g} s"
        except (aiohttp.ClientError, OSError, ValueError) as exc:
            return False, f"cannot post to {self.endpoint}: {type(exc).__name__}: {exc}"

    async def _post_once(self, session: Any, body: bytes) -> tuple[bool, str]:
        async with session.post(
            self.endpoint,
            data=body,
            allow_redirects=False,
            timeout=self._aiohttp.ClientTimeout(total=self.request_timeout_s),
        ) as response:
            detail = (await response.content.read(300)).decode("utf-8", "replace")
            if 200 <= response.status < 300:
                return True, ""
            return False, f"HTTP {response.status} from {self.endpoint}: {_detail(detail)}"


def _detail(body: str) -> str:
    """The server's one-line `detail`, or the start of whatever it sent."""
    try:
        found = json.loads(body).get("detail")
    except (ValueError, AttributeError):
        found = None
    return " ".join(str(found if found is not None else body).split())[:200]


# -- one sink per worker process ------------------------------------------------------------------

_sinks: dict[tuple[int, str, str], HttpLiveSink] = {}
_sinks_lock = threading.Lock()
_unavailable_warned = False


def live_sink(url: str, token: str) -> HttpLiveSink | None:
    """This process's sink for (`url`, `token`), made on first use; None (logged once) if it cannot
    be made (a bad URL, no aiohttp): the match is then played without being streamed."""
    global _unavailable_warned
    key = (os.getpid(), url, token)  # a forked child makes its own: threads do not survive a fork
    with _sinks_lock:
        sink = _sinks.get(key)
        if sink is not None and not sink.closed:
            return sink
        try:
            sink = HttpLiveSink(url, token)
        except (ImportError, LiveUrlError) as exc:
            if not _unavailable_warned:
                _unavailable_warned = True
                log.warning("matches are not streamed to %s: %s", url[:100], exc)
            return None
        if not _sinks:
            atexit.register(close_live_sinks)
        _sinks[key] = sink
        return sink


def close_live_sinks(timeout_s: float = 5.0) -> None:
    """Close every sink of this process (each flushes what it holds, within the shared bound)."""
    with _sinks_lock:
        sinks = [s for (pid, _, _), s in _sinks.items() if pid == os.getpid()]
        _sinks.clear()
    deadline = time.monotonic() + timeout_s
    for sink in sinks:
        sink.close(max(0.0, deadline - time.monotonic()))
