"""Fixtures for the arena's tests: a store on a temporary SQLite file, the app over it with a fake
clock for its rate limits, and an in-process client (tests/arena/asgi.py)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from botarena.arena.competitions import add_team, check_setup, create_competition
from botarena.arena.tokens import IssuedToken
from botarena.server.app import create_app
from botarena.store import Store
from botarena.store.arena import ArenaStore, CompetitionRow, TeamRow

from .asgi import Answer, AsgiClient


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

    def call(self, method: str, url: str, token: IssuedToken | str | None = None, **kwargs: Any) -> Answer:
        headers = dict(kwargs.pop("headers", {}) or {})
        if token is not None:
            headers["authorization"] = f"Bearer {token.text if isinstance(token, IssuedToken) else token}"
        return self.client.request(method, url, headers=headers, **kwargs)


def open_arena_app(root: Path) -> ArenaApp:
    store = Store.open(f"sqlite:///{root / 'arena.db'}", replay_dir=root / "replays")
    clock = FakeClock()
    app = create_app(store, arena_clock=clock)
    return ArenaApp(store, app.state.arena, app, AsgiClient(app), clock)


@pytest.fixture
def arena_app(tmp_path: Path) -> Iterator[ArenaApp]:
    built = open_arena_app(tmp_path)
    try:
        yield built
    finally:
        built.client.close()
        built.store.close()
