"""Live matches: the hub between the threads that play matches and the browsers that watch them.

A tournament's coordinator thread calls `LiveHub.publish(event)` with the live events of the issue-3
contract (all three carry `key`, e.g. "t3/r01-m002"):

    {"type": "header", "key", "tournament_id", "match", "replay": {<replay JSON, "steps": []>}}
    {"type": "steps",  "key", "first": 40, "steps": [<replay step objects 40..>]}
    {"type": "end",    "key", "match_id": 17 | None, "fields": {"result", "end", "keyframes", ...}}

The hub keeps, per match, everything a late subscriber needs to catch up (the header, the steps so
far, the end), already serialized to JSON bytes: one serialization per event however many browsers
watch, and a tenth of the memory of the parsed objects. `subscribe(key)` (an async iterator, for the
SSE endpoint) yields everything so far and then each new event as it comes, and stops after "end".

Bounds: a match keeps at most `max_steps` steps and `max_bytes` bytes of steps; a header over
`max_header_bytes` is refused; all matches together hold at most `max_total_bytes`, headers and ends
included (to stay within it the oldest finished matches go first, then the oldest chunks of the
largest running match: a late subscriber then sees a gap, which every "steps" event's `first` makes
visible; then the running match idle longest); a finished match is kept `keep_finished_s` seconds and
at most `max_finished` of them; a match with no event for `idle_timeout_s` (its tournament was killed)
is dropped; at most `max_matches` in all (the oldest finished match, else the one idle longest, makes
room for a new one).

`publish` never raises (bad input from a coordinator must not stop its tournament: DESIGN principle
3); what it cannot use it counts in `dropped_events` and logs. `offer` is `publish` that also says
why it refused an event (what live ingest answers its sender).

A hub serves the public (`public=True`, the default): a header is held, and so sent, without the
match's secrets (its seed and its game's secret config keys: `botarena.server.secrecy`), since a
header comes while the match is being played; the end event brings the seed (`LiveStreamer.end`).
Only the organizer's own hub (the DatsPulse server's, behind its key) keeps them. What the public
hub gets of a match of a hidden-information game at all is the spectator policy's to say: its
publishers go through a `botarena.server.spectators.SpectatorGate`, and a header it lets through
carries `"spectators": {"policy", "delay"}`, which the hub passes on.

Subscribers share the hub's bytes: an SSE stream (`sse_bytes`) sends views of them in pieces of at
most PIECE_BYTES, so a client that does not read holds one piece and the server's send queue for it
(bounded, and dropped when it stays full: `botarena.server.guard`), never a copy of the match.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections import deque
from collections.abc import AsyncGenerator, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from botarena.core.game import GameInfo
from botarena.core.registry import LayerHook
from botarena.server.secrecy import Shown, public_view

log = logging.getLogger(__name__)

HEADER = "header"
STEPS = "steps"
END = "end"
PING = "ping"

# One SSE "steps" event carries the chunks a subscriber has not seen yet, merged up to this size: a
# late subscriber catches up in a few large events rather than thousands of small ones.
MERGE_BYTES = 2 << 20
# An SSE stream is written in pieces of at most this size (views of the hub's bytes, never copies of
# a whole event): what one slow client pins beyond the server's send queue.
PIECE_BYTES = 64 << 10

Part = bytes | memoryview


def dumps(value: Any) -> bytes:
    """JSON bytes; integers beyond 64 bits (orjson refuses them) go through the standard library."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, separators=(",", ":"), allow_nan=False, default=str).encode()


def default_replay_url(match_id: int) -> str:
    return f"/api/matches/{match_id}/replay"


@dataclass(frozen=True)
class LiveEvent:
    """One server-sent event: `event` is header, steps, end or ping (a heartbeat); `parts` its JSON
    payload in pieces (views of the hub's bytes, shared by every subscriber)."""

    event: str
    parts: tuple[Part, ...] = ()

    @property
    def data(self) -> bytes:
        """The JSON payload as one bytes object (a copy: for tests and small events)."""
        return b"".join(self.parts)


class _Refused(Exception):
    """An event the hub does not take, and why (one line)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class LiveMatch:
    """A live (or just finished) match as `LiveHub.live_matches()` lists it."""

    key: str
    tournament_id: int | None
    match: str
    game: str
    players: list[str]
    steps: int
    finished: bool
    match_id: int | None
    result: dict[str, Any] | None
    started_at: float  # wall-clock seconds (time.time)
    updated_at: float

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "tournament_id": self.tournament_id,
            "match": self.match,
            "game": self.game,
            "players": self.players,
            "steps": self.steps,
            "finished": self.finished,
            "match_id": self.match_id,
            "result": self.result,
            "started_at": self.started_at,
            "updated_at": self.updated_at,
        }


@dataclass
class _Chunk:
    seq: int  # position in the match's chunk sequence (never reused)
    first: int  # index of its first step in the match
    count: int
    steps_json: bytes  # the JSON array of its steps: b"[...]"


@dataclass
class _Match:
    key: str
    tournament_id: int | None
    match: str
    game: str
    players: list[str]
    header: bytes
    started_at: float
    touched: float  # monotonic time of the last event
    chunks: deque[_Chunk] = field(default_factory=deque)
    next_seq: int = 0
    next_step: int = 0  # steps published so far (the index the next step will have)
    buffered_steps: int = 0
    buffered_bytes: int = 0
    dropped_steps: int = 0  # the oldest steps let go to stay within the bounds
    end: bytes | None = None
    match_id: int | None = None
    result: dict[str, Any] | None = None
    finished_at: float | None = None  # monotonic
    fixed_bytes: int = 0  # its header and end, counted in the hub's total with its chunks
    closed: bool = False  # replaced by a new header for the same key, dropped, or the hub closed
    waiters: set[Waiter] = field(default_factory=set)
    updated_wall: float = 0.0

    def info(self) -> LiveMatch:
        return LiveMatch(
            key=self.key,
            tournament_id=self.tournament_id,
            match=self.match,
            game=self.game,
            players=list(self.players),
            steps=self.next_step,
            finished=self.end is not None,
            match_id=self.match_id,
            result=self.result,
            started_at=self.started_at,
            updated_at=self.updated_wall,
        )


class Waiter:
    """A subscriber's wake-up call: an asyncio.Event set, thread-safely, from the publishing thread."""

    __slots__ = ("event", "loop")

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.event = asyncio.Event()

    def wake(self) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody is waiting any more
            self.loop.call_soon_threadsafe(self.event.set)


def _as_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class LiveHub:
    """Thread-safe store-and-forward of live match events (see the module docstring)."""

    def __init__(
        self,
        *,
        max_steps: int = 100_000,
        max_bytes: int = 16 << 20,
        max_header_bytes: int = 4 << 20,
        max_total_bytes: int = 256 << 20,
        keep_finished_s: float = 120.0,
        max_finished: int = 64,
        idle_timeout_s: float = 600.0,
        max_matches: int = 128,
        replay_url: Callable[[int], str] = default_replay_url,
        clock: Callable[[], float] = time.monotonic,
        public: bool = True,
    ) -> None:
        if min(max_steps, max_bytes, max_header_bytes, max_total_bytes, max_matches) < 1 or max_finished < 0:
            raise ValueError("LiveHub bounds must be positive")
        self.public = public
        self.max_steps = max_steps
        self.max_bytes = max_bytes
        self.max_header_bytes = max_header_bytes
        self.max_total_bytes = max_total_bytes
        self.keep_finished_s = keep_finished_s
        self.max_finished = max_finished
        self.idle_timeout_s = idle_timeout_s
        self.max_matches = max_matches
        self.replay_url = replay_url
        self._clock = clock
        self._lock = threading.Lock()
        self._matches: dict[str, _Match] = {}
        self._closed = False
        self._total_bytes = 0
        self.dropped_events = 0  # events publish() could not use (malformed, unknown key, ...)

    @property
    def total_bytes(self) -> int:
        """The bytes the hub holds for all its matches: headers, steps and ends."""
        with self._lock:
            return self._total_bytes

    # ------------------------------------------------------------------------------ publishing

    def publish(self, event: dict[str, Any]) -> None:
        """Take one live event (header, steps or end). Thread-safe; never raises."""
        self.offer(event)

    def offer(self, event: dict[str, Any]) -> str | None:
        """`publish`, saying why an event was not taken: None when the hub took it, else the reason
        in one line (a header over the size cap, steps of a match the hub does not hold, ...)."""
        try:
            waiters = self._publish(event)
        except _Refused as refused:
            reason = refused.reason
        except Exception:  # a bug or a malformed event must not stop the tournament
            log.exception("live event dropped")
            reason = "the live hub failed on this event"
        else:
            for waiter in waiters:
                waiter.wake()
            return None
        with self._lock:
            self.dropped_events += 1
        return reason

    def _publish(self, event: dict[str, Any]) -> Iterable[Waiter]:
        if not isinstance(event, dict):
            raise _Refused("a live event must be an object")
        kind = event.get("type")
        key = event.get("key")
        if not isinstance(key, str) or not key:
            raise _Refused("a live event needs a key")
        if kind == HEADER:
            return self._header(key, event)
        if kind == STEPS:
            return self._steps(key, event)
        if kind == END:
            return self._end(key, event)
        raise _Refused("type must be header, steps or end")

    def _unknown(self, key: str) -> _Refused:
        return _Refused(
            f"no live match {key[:80]!r} (its header was refused, never came, or the match was dropped"
            " to stay within the hub's bounds)"
        )

    def _header(self, key: str, event: dict[str, Any]) -> Iterable[Waiter]:
        replay = event.get("replay")
        if not isinstance(replay, dict):
            raise _Refused("a header needs a replay object")
        tournament_id = _as_int(event.get("tournament_id"))
        name = event.get("match")
        name = name if isinstance(name, str) else key
        if self.public:  # a header comes while its match is played: none of its secrets (DESIGN 7)
            replay = public_view(str(replay.get("game", "")), replay, Shown.nothing_secret())
        data = {"key": key, "tournament_id": tournament_id, "match": name, "replay": {**replay, "steps": []}}
        if isinstance(event.get("spectators"), dict):  # how it is shown (botarena.server.spectators)
            data["spectators"] = event["spectators"]
        header = dumps(data)  # outside the lock: the slow part
        if len(header) > self.max_header_bytes:
            raise _Refused(
                f"the header of {key[:80]!r} is {len(header)} bytes, over the live hub's cap of"
                f" {self.max_header_bytes}"
            )
        players = [
            str(p.get("name") or f"seat {p.get('seat', i)}") if isinstance(p, dict) else str(p)
            for i, p in enumerate(replay.get("players") or [])
        ]
        now = self._clock()
        match = _Match(
            key=key,
            tournament_id=tournament_id,
            match=name,
            game=str(replay.get("game", "")),
            players=players,
            header=header,
            started_at=time.time(),
            touched=now,
            fixed_bytes=len(header),
            updated_wall=time.time(),
        )
        with self._lock:
            if self._closed:
                raise _Refused("the server is shutting down")
            # a retried match starts again from its header: the old one's subscribers reconnect
            woken = self._remove(key) if key in self._matches else []
            self._matches[key] = match
            self._total_bytes += match.fixed_bytes
            woken += self._prune(now)
            woken += self._bound_total(keep=match)
        return woken

    def _steps(self, key: str, event: dict[str, Any]) -> Iterable[Waiter]:
        steps = event.get("steps")
        first = _as_int(event.get("first"))
        if not isinstance(steps, list) or first is None or first < 0:
            raise _Refused("steps need a list of steps and a first index of 0 or more")
        with self._lock:  # (serializing under the lock keeps concurrent publishers of a key in order)
            match = self._matches.get(key)
            if match is None:
                raise self._unknown(key)
            if match.end is not None:
                raise _Refused(f"the match {key[:80]!r} has ended")
            if first < match.next_step:  # an overlap (a resent batch): keep only what is new
                steps = steps[match.next_step - first :]
                first = match.next_step
            if not steps:
                return ()
            chunk = _Chunk(match.next_seq, first, len(steps), dumps(steps))
            match.next_seq += 1
            match.chunks.append(chunk)
            match.next_step = first + len(steps)
            self._add(match, chunk.count, len(chunk.steps_json))
            while len(match.chunks) > 1 and (
                match.buffered_steps > self.max_steps or match.buffered_bytes > self.max_bytes
            ):
                self._trim(match)
            match.touched = self._clock()
            match.updated_wall = time.time()
            woken = list(match.waiters)
            woken += self._bound_total(keep=match)
            return woken

    def _end(self, key: str, event: dict[str, Any]) -> Iterable[Waiter]:
        fields = event.get("fields")
        fields = fields if isinstance(fields, dict) else {}
        match_id = _as_int(event.get("match_id"))
        data = {
            "key": key,
            "match_id": match_id,
            "replay_url": self.replay_url(match_id) if match_id is not None else None,
            "fields": fields,
        }
        end = dumps(data)
        result = fields.get("result")
        with self._lock:
            match = self._matches.get(key)
            if match is None:
                raise self._unknown(key)
            if match.end is not None:
                raise _Refused(f"the match {key[:80]!r} has ended already")
            match.end = end
            match.fixed_bytes += len(end)
            self._total_bytes += len(end)
            match.match_id = match_id
            match.result = result if isinstance(result, dict) else None
            match.finished_at = match.touched = self._clock()
            match.updated_wall = time.time()
            woken = list(match.waiters)
            woken += self._prune(match.finished_at)
            woken += self._bound_total(keep=match)
            return woken

    # ------------------------------------------------------------------------------ bounds

    def _add(self, match: _Match, steps: int, size: int) -> None:
        match.buffered_steps += steps
        match.buffered_bytes += size
        self._total_bytes += size

    def _trim(self, match: _Match) -> None:
        """Let the oldest chunk of `match` go. Lock held."""
        old = match.chunks.popleft()
        self._add(match, -old.count, -len(old.steps_json))
        match.dropped_steps += old.count

    def _remove(self, key: str) -> list[Waiter]:
        """Drop `key` from the hub and return its waiters to wake. Its subscribers drain what they
        hold (a finished match's end included) and stop; the chunks go with the last of them. Lock held."""
        match = self._matches.pop(key)
        match.closed = True
        self._total_bytes -= match.buffered_bytes + match.fixed_bytes
        return list(match.waiters)

    def _bound_total(self, keep: _Match) -> list[Waiter]:
        """Keep the bytes of all matches (headers, steps, ends) within max_total_bytes: drop the
        oldest finished matches, then the oldest chunks of the largest running one, then the running
        match idle longest (never `keep`, the one just published to). Lock held."""
        woken: list[Waiter] = []
        while self._total_bytes > self.max_total_bytes:
            finished = [m for m in self._matches.values() if m.finished_at is not None and m is not keep]
            if finished:
                woken += self._remove(min(finished, key=lambda m: m.finished_at or 0.0).key)
                continue
            largest = max(self._matches.values(), key=lambda m: m.buffered_bytes, default=None)
            if largest is not None and largest.chunks:
                self._trim(largest)
                continue
            others = [m for m in self._matches.values() if m is not keep]
            if not others:
                break
            woken += self._remove(min(others, key=lambda m: m.touched).key)
        return woken

    def _prune(self, now: float) -> list[Waiter]:
        """Drop expired finished matches, idle ones, and the oldest beyond the bounds. Lock held."""
        woken: list[Waiter] = []
        finished: list[_Match] = []
        for key, match in list(self._matches.items()):
            if match.finished_at is not None:
                if now - match.finished_at >= self.keep_finished_s:
                    woken += self._remove(key)
                else:
                    finished.append(match)
            elif now - match.touched >= self.idle_timeout_s:
                woken += self._remove(key)
        finished.sort(key=lambda m: m.finished_at or 0.0)
        while len(finished) > self.max_finished:
            gone = finished.pop(0)
            woken += self._remove(gone.key)
        while len(self._matches) > self.max_matches:
            # the oldest finished match first, then the one idle longest
            victim = min(self._matches.values(), key=lambda m: (m.end is None, m.touched))
            woken += self._remove(victim.key)
        return woken

    def close(self) -> None:
        """End every subscription and refuse new events (the server is shutting down)."""
        with self._lock:
            self._closed = True
            woken: list[Waiter] = []
            for key in list(self._matches):
                woken += self._remove(key)
        for waiter in woken:
            waiter.wake()

    # ------------------------------------------------------------------------------ reading

    def live_matches(self) -> list[LiveMatch]:
        """The matches the hub holds: running ones first (newest first), then finished ones."""
        with self._lock:
            woken = self._prune(self._clock())
            infos = [m.info() for m in self._matches.values()]
        for waiter in woken:
            waiter.wake()
        infos.sort(key=lambda m: (m.finished, -m.started_at, m.key))
        return infos

    def watchers(self, key: str) -> int:
        """How many subscriptions follow `key` now (0 for a match the hub does not hold)."""
        with self._lock:
            match = self._matches.get(key)
            return len(match.waiters) if match is not None else 0

    def get(self, key: str) -> LiveMatch | None:
        with self._lock:
            match = self._matches.get(key)
            return match.info() if match is not None else None

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._matches

    def __len__(self) -> int:
        with self._lock:
            return len(self._matches)

    def subscribe(
        self, key: str, *, heartbeat_s: float | None = 15.0
    ) -> AsyncGenerator[LiveEvent, None] | None:
        """An async iterator over the match's events, or None if the hub does not hold `key`.

        It yields the header, the steps so far (merged into few events), then each new batch, then
        "end", and stops. A "ping" event comes after `heartbeat_s` seconds without news, so the caller
        can send an SSE comment (and learn early that the client has gone). It also stops, without
        "end", when the match is replaced (a retry), dropped or the hub closed: an EventSource then
        reconnects and starts again from the new header.
        """
        with self._lock:
            match = self._matches.get(key)
            if match is None or self._closed:
                return None
        return self._follow(match, heartbeat_s)

    async def _follow(self, match: _Match, heartbeat_s: float | None) -> AsyncGenerator[LiveEvent, None]:
        waiter = Waiter()
        with self._lock:
            match.waiters.add(waiter)
            sent_header = False
            next_seq = 0  # the first chunk this subscriber has not had
        try:
            while True:
                with self._lock:
                    out: list[LiveEvent] = []
                    if not sent_header:
                        out.append(LiveEvent(HEADER, (match.header,)))
                        sent_header = True
                    pending = [c for c in match.chunks if c.seq >= next_seq]
                    if pending:
                        next_seq = pending[-1].seq + 1
                    end = match.end if not pending else None
                    idle = not out and not pending and end is None
                    if idle and match.closed:
                        return
                    if idle:
                        waiter.event.clear()  # under the lock: a publish after this sets it again
                for event in out:
                    yield event
                for parts in _merge(pending):
                    yield LiveEvent(STEPS, parts)
                if end is not None:
                    yield LiveEvent(END, (end,))
                    return
                if out or pending:
                    continue  # check again before sleeping: the end may have come meanwhile
                try:
                    await asyncio.wait_for(waiter.event.wait(), heartbeat_s)
                except TimeoutError:
                    yield LiveEvent(PING)
        finally:
            with self._lock:
                match.waiters.discard(waiter)


def _merge(chunks: list[_Chunk]) -> list[tuple[Part, ...]]:
    """The chunks as "steps" event payloads {"first", "steps"}, contiguous runs merged up to
    MERGE_BYTES (a gap, left by the memory bound, starts a new event). Each payload is a tuple of
    parts, the steps as views of the chunks' bytes: no subscriber copies them."""
    out: list[tuple[Part, ...]] = []
    run: list[_Chunk] = []
    size = 0

    def flush() -> None:
        if not run:
            return
        parts: list[Part] = [b'{"first":%d,"steps":[' % run[0].first]
        for i, chunk in enumerate(c for c in run if c.count):
            if i:
                parts.append(b",")
            parts.append(memoryview(chunk.steps_json)[1:-1])
        parts.append(b"]}")
        out.append(tuple(parts))
        run.clear()

    for chunk in chunks:
        contiguous = run and run[-1].first + run[-1].count == chunk.first
        if run and (not contiguous or size + len(chunk.steps_json) > MERGE_BYTES):
            flush()
            size = 0
        run.append(chunk)
        size += len(chunk.steps_json)
    flush()
    return out


def pieces(parts: Iterable[Part], size: int = PIECE_BYTES) -> Iterator[Part]:
    """`parts` written out in pieces of at most `size` bytes: small parts joined, large ones cut into
    views (no copy of a large part is made)."""
    pending = bytearray()
    for part in parts:
        view = memoryview(part)
        if len(pending) + len(view) <= size:
            pending += view
            continue
        if pending:
            yield bytes(pending)
            pending = bytearray()
        whole = len(view) - len(view) % size
        for start in range(0, whole, size):
            yield view[start : start + size]
        pending += view[whole:]
    if pending:
        yield bytes(pending)


async def sse_bytes(events: AsyncGenerator[LiveEvent, None]) -> AsyncGenerator[Part, None]:
    """A subscription (`LiveHub.subscribe`) as the bytes of a text/event-stream: the reconnect
    delay, then each event (a heartbeat as a comment), in pieces of at most PIECE_BYTES. The
    subscription closes with the stream."""
    yield b"retry: 2000\n\n"
    try:
        async for event in events:
            if event.event == PING:
                yield b": ping\n\n"
                continue
            for piece in pieces((b"event: %s\ndata: " % event.event.encode(), *event.parts, b"\n\n")):
                yield piece
    finally:
        await events.aclose()


def sse_response(events: AsyncGenerator[LiveEvent, None]) -> Any:
    """The HTTP response (a Starlette StreamingResponse) of an SSE endpoint streaming `events`."""
    from starlette.responses import StreamingResponse

    return StreamingResponse(
        sse_bytes(events),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


# -- a live match's own routes ---------------------------------------------------------------------


class LockedEngine:
    """The engine of a live match whose game serves routes of its own: every method call holds
    `lock`, the lock those routes take, so a route never sees (or changes) the engine in the middle
    of a phase. The engine itself stays single-threaded plain data; the lock is the server's."""

    def __init__(self, engine: Any, lock: threading.RLock) -> None:
        self._engine = engine
        self._lock = lock

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._engine, name)
        if not callable(value):
            return value
        lock = self._lock

        def locked(*args: Any, **kwargs: Any) -> Any:
            with lock:
                return value(*args, **kwargs)

        return locked


LiveRoutes = Callable[[Any], Any]
"""`(match) -> APIRouter | None`: the routes a live match of a game serves under `/api`, given the
match (`.engine` once made, `.config`, `.players`, `.organizer_key`, `.lock`). The caller wraps the
match's engine in a `LockedEngine` on `.lock`."""

LIVE_ROUTES: LayerHook[LiveRoutes] = LayerHook(lambda game: game.live_routes)
"""Each game's live routes: `LIVE_ROUTES.register(game_id, routes)` gives them to a game that does
not declare `GameInfo.live_routes`."""
register_live_routes = LIVE_ROUTES.register


def live_routes_of(game: GameInfo[Any]) -> LiveRoutes | None:
    """The live routes of `game`: registered here, else its own `GameInfo.live_routes`, else None."""
    return LIVE_ROUTES.of(game)
