"""Fixtures for the arena's tests: a store on a temporary SQLite file, the app over it with a fake
clock for its rate limits, and an in-process client (tests/arena/asgi.py)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from botarena.arena.competitions import add_team, check_setup, create_competition
from botarena.arena.tokens import IssuedToken
from botarena.server.app import create_app
from botarena.store import Store
from botarena.store.arena import ArenaStore, CompetitionRow, TeamRow

from .asgi import Answer, AsgiClient
from .forms import multipart
from .live import live_arena  # noqa: F401 (a fixture for the tests that need a real server)


class FakeClock:
    """A monotonic clock that moves only when a test says so."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class ArenaApp:
    store: Store
    arena: ArenaStore
    app: Any
    client: AsgiClient
    clock: FakeClock

    def competition(self, name: str, **policy: Any) -> tuple[CompetitionRow, IssuedToken]:
        return create_competition(self.arena, name, check_setup("drones"), policy=policy, actor="test")

    def team(self, competition_id: int, name: str) -> tuple[TeamRow, IssuedToken]:
        return add_team(self.arena, competition_id, name, actor="test")

    @property
    def wall(self) -> FakeWallClock:
        wall: FakeWallClock = self.app.state.arena_now
        return wall

    def open_competition(self, name: str, **policy: Any) -> tuple[CompetitionRow, IssuedToken]:
        """A competition in phase `open` (it takes uploads)."""
        competition, organizer = self.competition(name, **policy)
        answer = self.call("PATCH", f"/api/competitions/{competition.id}", organizer, json={"phase": "open"})
        assert answer.status == 200, answer.text
        return competition, organizer

    def upload(
        self,
        competition_id: int,
        team_id: int,
        token: IssuedToken,
        data: bytes,
        filename: str = "bot.py",
        key: str | None = None,
        **fields: str,
    ) -> Answer:
        body, headers = multipart(data, filename, **fields)
        if key is not None:
            headers["idempotency-key"] = key
        url = f"/api/competitions/{competition_id}/teams/{team_id}/versions"
        return self.call("POST", url, token, body=body, headers=headers)

    def call(self, method: str, url: str, token: IssuedToken | str | None = None, **kwargs: Any) -> Answer:
        headers = dict(kwargs.pop("headers", {}) or {})
        if token is not None:
            headers["authorization"] = f"Bearer {token.text if isinstance(token, IssuedToken) else token}"
        return self.client.request(method, url, headers=headers, **kwargs)


class FakeWallClock:
    """The wall clock of the arena's quotas and timestamps (`app.state.arena_now`), moved by the test."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def open_arena_app(root: Path, url: str | None = None) -> ArenaApp:
    store = Store.open(url or f"sqlite:///{root / 'arena.db'}", replay_dir=root / "replays")
    clock = FakeClock()
    app = create_app(store, arena_clock=clock)
    app.state.arena_now = FakeWallClock()
    return ArenaApp(store, app.state.arena, app, AsgiClient(app), clock)


@pytest.fixture
def arena_db_app(tmp_path: Path, db_url: str) -> Iterator[ArenaApp]:
    """The app over SQLite and over PostgreSQL (the `db_url` backends)."""
    built = open_arena_app(tmp_path, db_url)
    try:
        yield built
    finally:
        built.client.close()
        built.store.close()


@pytest.fixture
def arena_app(tmp_path: Path) -> Iterator[ArenaApp]:
    built = open_arena_app(tmp_path)
    try:
        yield built
    finally:
        built.client.close()
        built.store.close()
