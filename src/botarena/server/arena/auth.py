"""The arena's one auth dependency (specs/arena.md, Auth): every arena route takes `CallerDep` and
declares whom it admits with `require_*` below.

- A token comes in `Authorization: Bearer ba_<kid>_<secret>` or in the session cookie that
  `POST /api/session` sets (HttpOnly, SameSite=Strict). A malformed, unknown or revoked token is
  401 with one line that never repeats it.
- Failed authentications: `FAILED_AUTH_LIMIT` per minute per client address, then 429 with
  `Retry-After` (a wrong invite code counts as one); `REQUEST_LIMIT` requests per minute per token,
  then 429.
- An unsafe method (POST, PATCH, PUT, DELETE) authenticated by the cookie needs `X-CSRF: 1`, a
  header a cross-site form cannot send (403 without it).
- A path that names another competition or another team, or an organizer's route called with a
  team token, answers 404, never 403: a caller learns nothing of what is not theirs. (403 is left
  to a missing X-CSRF header and a wrong invite code.)

The clock is injected (`ArenaAuth(clock=...)`), so tests move time instead of sleeping.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated

from fastapi import Depends, HTTPException, Request

from botarena.arena.access import ANONYMOUS, Caller, authenticate
from botarena.arena.vocabulary import Role
from botarena.store.arena import ArenaStore
from botarena.store.rows import StoreError

SESSION_COOKIE = "botarena_session"
CSRF_HEADER = "x-csrf"
UNSAFE_METHODS = frozenset({"POST", "PATCH", "PUT", "DELETE"})
FAILED_AUTH_LIMIT = 10
REQUEST_LIMIT = 600
WINDOW_S = 60.0
TOUCH_EVERY_S = 60.0  # `last_used_at` is written at most once a minute per token (not on every request)
MAX_KEYS = 20_000  # addresses and tokens a limiter remembers (the oldest are forgotten first)
BAD_TOKEN = "invalid, unknown or revoked token"

Clock = Callable[[], float]


class RateLimiter:
    """At most `limit` events per `window_s` seconds per key (a sliding log of their times)."""

    def __init__(self, limit: int, window_s: float, clock: Clock, size: int = MAX_KEYS) -> None:
        self.limit = limit
        self.window_s = window_s
        self.clock = clock
        self.size = size
        self._lock = threading.Lock()
        self._events: OrderedDict[str, deque[float]] = OrderedDict()

    def _recent(self, key: str, now: float) -> deque[float]:
        events = self._events.get(key)
        if events is None:
            events = self._events[key] = deque()
            while len(self._events) > self.size:
                self._events.popitem(last=False)
        self._events.move_to_end(key)
        while events and events[0] <= now - self.window_s:
            events.popleft()
        return events

    def wait(self, key: str) -> float | None:
        """Seconds until `key` may act again, or None when it is under its limit now."""
        with self._lock:
            now = self.clock()
            events = self._recent(key, now)
            return events[0] + self.window_s - now if len(events) >= self.limit else None

    def hit(self, key: str) -> None:
        """Count one event of `key` now."""
        with self._lock:
            now = self.clock()
            self._recent(key, now).append(now)

    def take(self, key: str) -> float | None:
        """Count an event unless `key` is at its limit: None when counted, else the wait."""
        with self._lock:
            now = self.clock()
            events = self._recent(key, now)
            if len(events) >= self.limit:
                return events[0] + self.window_s - now
            events.append(now)
            return None


def too_many(wait: float, what: str) -> HTTPException:
    seconds = max(1, math.ceil(wait))
    return HTTPException(429, f"{what}; retry in {seconds} s", headers={"Retry-After": str(seconds)})


def unauthorized(detail: str = BAD_TOKEN) -> HTTPException:
    return HTTPException(401, detail, headers={"WWW-Authenticate": "Bearer"})


class TokenTouches:
    """Tokens' `last_used_at` stamps, written by a thread of its own: a request never waits on that
    write. With 1,000 teams each token's first request in a minute wrote in the request's own path,
    queued behind the coordinator's writes (SQLite has one writer at a time): the team page's p99
    (benchmarks/arena_api.py). The stamp is for people, so one lost to a crash costs nothing."""

    def __init__(self, arena: ArenaStore) -> None:
        self.arena = arena
        self._pending: dict[str, datetime] = {}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def add(self, kid: str) -> None:
        """Stamp token `kid` as used now, soon."""
        with self._lock:
            self._pending[kid] = datetime.now(UTC)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="arena-token-touches", daemon=True)
                self._thread.start()
        self._wake.set()

    def flush(self) -> None:
        """Write the stamps waiting now (a store error leaves them for the next look)."""
        with self._lock:
            pending, self._pending = self._pending, {}
        for kid, at in pending.items():
            try:
                self.arena.touch_token(kid, at)
            except StoreError:
                with self._lock:
                    self._pending.setdefault(kid, at)

    def _run(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            self.flush()


@dataclass
class ArenaAuth:
    """The state behind the dependency: the store, the limiters and their clock."""

    arena: ArenaStore
    clock: Clock = time.monotonic

    def __post_init__(self) -> None:
        self.failures = RateLimiter(FAILED_AUTH_LIMIT, WINDOW_S, self._now)
        self.requests = RateLimiter(REQUEST_LIMIT, WINDOW_S, self._now)
        self._touched = RateLimiter(1, TOUCH_EVERY_S, self._now)
        self.touches = TokenTouches(self.arena)

    def _now(self) -> float:
        return self.clock()  # (read at each call: a test may swap the clock)

    def check_address(self, address: str) -> None:
        """429 while this address is over its failed authentications."""
        wait = self.failures.wait(address)
        if wait is not None:
            raise too_many(
                wait,
                f"too many failed authentications from this address (limit {FAILED_AUTH_LIMIT} a minute)",
            )

    def caller_of(self, token: str, address: str) -> Caller:
        """The caller `token` stands for; a bad token counts against the address and is 401."""
        self.check_address(address)
        caller = authenticate(self.arena, token)
        if caller is None:
            self.failures.hit(address)
            raise unauthorized()
        assert caller.kid is not None
        wait = self.requests.take(caller.kid)
        if wait is not None:
            raise too_many(wait, f"too many requests with this token (limit {REQUEST_LIMIT} a minute)")
        if self._touched.take(caller.kid) is None:
            self.touches.add(caller.kid)
        return caller


def arena_auth(request: Request) -> ArenaAuth:
    auth: ArenaAuth = request.app.state.arena_auth
    return auth


def client_address(request: Request) -> str:
    return request.client.host if request.client is not None else "unknown"


def _bearer(header: str) -> str:
    scheme, _, value = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        raise unauthorized("expected Authorization: Bearer <token>")
    return value.strip()


def resolve_caller(request: Request) -> Caller:
    """The request's caller: by its bearer token, else its session cookie, else anonymous."""
    auth = arena_auth(request)
    header = request.headers.get("authorization")
    cookie = request.cookies.get(SESSION_COOKIE)
    if header is None and not cookie:
        return ANONYMOUS
    address = client_address(request)
    if header is not None:
        try:
            token = _bearer(header)
        except HTTPException:
            auth.check_address(address)
            auth.failures.hit(address)
            raise
        return auth.caller_of(token, address)
    caller = auth.caller_of(str(cookie), address)
    if request.method in UNSAFE_METHODS and request.headers.get(CSRF_HEADER) != "1":
        raise HTTPException(403, "a request signed in by the session cookie needs the header X-CSRF: 1")
    return caller


CallerDep = Annotated[Caller, Depends(resolve_caller)]
ArenaAuthDep = Annotated[ArenaAuth, Depends(arena_auth)]


def no_competition(competition_id: int) -> HTTPException:
    return HTTPException(404, f"no competition {competition_id}")


def no_team(competition_id: int, team_id: int) -> HTTPException:
    return HTTPException(404, f"no team {team_id} in competition {competition_id}")


def require_signed_in(caller: Caller) -> Caller:
    if caller.role == Role.ANONYMOUS:
        raise unauthorized("this needs a team or organizer token")
    return caller


def require_organizer(caller: Caller, competition_id: int) -> Caller:
    """The organizer of `competition_id`: 401 anonymous, 404 anyone else (another competition's
    caller, or a team of this one: what only the organizer reads is nothing a team may probe)."""
    require_signed_in(caller)
    if caller.competition_id != competition_id:
        raise no_competition(competition_id)
    if caller.role != Role.ORGANIZER:
        raise HTTPException(404, f"competition {competition_id} has nothing here for a team token")
    return caller


def require_team_or_organizer(caller: Caller, competition_id: int, team_id: int) -> Caller:
    """Team `team_id` itself or its competition's organizer: 401 anonymous, 404 anyone else."""
    require_signed_in(caller)
    if caller.competition_id != competition_id:
        raise no_competition(competition_id)
    if caller.role == Role.TEAM and caller.team_id != team_id:
        raise no_team(competition_id, team_id)
    return caller
