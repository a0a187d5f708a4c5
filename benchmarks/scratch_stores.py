"""Fresh stores for the benchmarks: a SQLite file in a temporary folder, or a scratch PostgreSQL
database created for the run and dropped after it (the role of the URL may CREATEDB)."""

from __future__ import annotations

import contextlib
import secrets
import tempfile
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from botarena.store import Store


@contextlib.contextmanager
def sqlite_store(replays: str | None = None) -> Iterator[Store]:
    """A fresh SQLite store: replays in files beside it (the default), or where `replays` says."""
    with tempfile.TemporaryDirectory() as scratch:
        store = Store.open(f"sqlite:///{Path(scratch) / 'bench.db'}", replays=replays)
        try:
            yield store
        finally:
            store.close()


@contextlib.contextmanager
def postgres_store(url: str, *, replay_files: bool = False) -> Iterator[Store]:
    """A store in a scratch database of its own on the server of `url`, dropped afterwards; its
    replays in the database (PostgreSQL's default), or with `replay_files` in a temporary folder."""
    admin_url = make_url(url).set(drivername="postgresql+psycopg")
    name = f"botarena_bench_{secrets.token_hex(4)}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT", connect_args={"connect_timeout": 5})
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        with tempfile.TemporaryDirectory() as scratch:
            store = Store.open(
                admin_url.set(database=name).render_as_string(hide_password=False),
                replays=str(Path(scratch) / "replays") if replay_files else None,
            )
            try:
                yield store
            finally:
                store.close()
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
