"""Fixtures for the store tests: every test runs against SQLite (a file under tmp_path) and PostgreSQL.

PostgreSQL comes from `BOTARENA_TEST_POSTGRES_URL` (a role that may CREATEDB). Each pytest session
creates a database of its own with a random name and drops it at the end, and each test gets a
schema of its own in it (through the connection's search_path), so parallel and earlier runs never
meet. Without the variable, or with the server down, the PostgreSQL tests are skipped with the
reason; with `BOTARENA_REQUIRE_POSTGRES=1` (CI) they fail instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from botarena.store import Store

from .helpers import StoreFactory

# `backend` (sqlite, postgresql) and `db_url` come from tests/conftest.py.


@pytest.fixture
def open_store(db_url: str, tmp_path: Path) -> Iterator[StoreFactory]:
    """open_store(**kwargs): Store.open(db_url, replay_dir=tmp_path/replays, ...), closed at the end."""
    opened: list[Store] = []

    def make(**kwargs: Any) -> Store:
        kwargs.setdefault("replay_dir", tmp_path / "replays")
        store = Store.open(db_url, **kwargs)
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()


@pytest.fixture
def store(open_store: StoreFactory) -> Store:
    return open_store()


@pytest.fixture
def tournament(store: Store) -> SimpleNamespace:
    """A two-entrant tournament in `store`: .id, .row, .store."""
    a = store.register_bot("drones", "a", "botarena.games.drones.bots:tactician")
    b = store.register_bot("drones", "b", "botarena.games.drones.bots:adaptive")
    row = store.create_tournament(
        name="cup",
        game="drones",
        format="round-robin",
        preset="default",
        config={"rounds": 10, "nested": {"list": [1, 2.5, "x"]}},
        seed=42,
        options={"cycles": 2},
        entrants=[("a", a.id), ("b", b.id)],
    )
    return SimpleNamespace(id=row.id, row=row, store=store)
