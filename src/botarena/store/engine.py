"""Database URLs, engines and migrations: everything that differs between SQLite and PostgreSQL.

SQLite runs in WAL mode (readers never block the writer, and a `botarena serve` process can read
the file a `botarena tournament` process writes), with foreign keys on and a busy timeout. Its
transactions are begun by us, not by the sqlite3 module: reads with a plain BEGIN, writes with
BEGIN IMMEDIATE, which takes the write lock up front. (A deferred transaction that reads and then
writes fails at once with SQLITE_BUSY when another writer committed in between: the busy timeout
cannot help it.)
"""

from __future__ import annotations

import contextlib
import importlib.util
import re
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import Engine, create_engine, event, exc
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.pool import StaticPool

from botarena.store.rows import StoreError

DEFAULT_URL = "sqlite:///./var/botarena.db"
MIGRATIONS = Path(__file__).with_name("migrations")
BUSY_TIMEOUT_S = 30
WAL_SWITCH_TRIES = 200  # x 50 ms: ten seconds
CONNECT_TIMEOUT_S = 10
WRITE = "botarena_write"  # execution option: this connection's transactions write
# Any constant: serializes concurrent migrations of one PostgreSQL database (two processes
# starting at once would otherwise both try to create the tables).
_MIGRATION_LOCK = 0x626F7461  # "bota"
REGISTER_LOCK = 0x626F7462  # serializes bot registrations on PostgreSQL (store.register_bot)
_URL_HINT = "expected sqlite:///PATH or postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE"


def normalize_url(url: str) -> URL:
    """Parse `url`; `postgresql://` and `postgres://` get the psycopg driver. StoreError if it is not
    a SQLite or PostgreSQL URL."""
    try:
        parsed = make_url(url)
    except (exc.ArgumentError, ValueError):
        raise StoreError(f"not a database URL: {_masked(url)!r} ({_URL_HINT})") from None
    if parsed.drivername in ("postgresql", "postgres", "postgresql+psycopg"):
        return parsed.set(drivername="postgresql+psycopg")
    if parsed.drivername in ("sqlite", "sqlite+pysqlite"):
        return parsed
    shown = parsed.render_as_string(hide_password=True)
    raise StoreError(f"unsupported database {parsed.drivername!r} in {shown!r} ({_URL_HINT})")


def _masked(url: str) -> str:
    """`url` (not parsable as a URL) with whatever may be its password hidden, for an error message:
    the URL may come from BOTARENA_DB or a secret file, and error messages end up in logs."""
    url = re.sub(r"(://[^:/@]*):.*@", r"\1:***@", url)  # up to the last @: a password may hold one
    return re.sub(r"(password=)[^&]*", r"\1***", url, flags=re.IGNORECASE)[:200]


def sqlite_file(url: URL) -> Path | None:
    """The database file of a SQLite URL; None for an in-memory database."""
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    return Path(url.database)


def one_line(error: BaseException) -> str:
    """The first line of a driver's message (psycopg's run to several lines, with hints)."""
    origin = getattr(error, "orig", None) or error
    text = str(origin).strip() or type(origin).__name__
    line = text.splitlines()[0].strip()
    # psycopg: 'connection failed: connection to server at "h" (...), port 5432 failed: FATAL:  why'
    return re.sub(r"\s+", " ", line.removeprefix("connection failed: "))


@contextlib.contextmanager
def translated(what: str) -> Iterator[None]:
    """Turn database errors into a one-line StoreError saying what was being done."""
    try:
        yield
    except exc.StatementError as error:  # a driver's error, or a value it could not take (JSON, ...)
        raise StoreError(f"{what}: {one_line(error)}") from None


def json_dumps(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_SERIALIZE_NUMPY).decode()


def make_engine(url: URL) -> Engine:
    """An engine for `url` with the store's connection settings (see the module docstring)."""
    common: dict[str, Any] = {"json_serializer": json_dumps, "json_deserializer": orjson.loads}
    if url.get_backend_name() == "postgresql":
        if importlib.util.find_spec("psycopg") is None:
            raise StoreError("PostgreSQL needs psycopg: pip install 'botarena[postgres]'")
        return create_engine(
            url,
            pool_pre_ping=True,  # a restarted server must not fail the next request
            connect_args={"connect_timeout": CONNECT_TIMEOUT_S, "application_name": "botarena"},
            **common,
        )
    path = sqlite_file(url)
    if path is None:
        # One connection shared by every thread: each new connection would be a new, empty database.
        engine = create_engine(url, poolclass=StaticPool, connect_args={"check_same_thread": False}, **common)
    else:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreError(f"cannot create {path.parent}: {error.strerror or error}") from None
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": BUSY_TIMEOUT_S}, **common
        )
    _sqlite_events(engine, wal=path is not None)
    return engine


def _use_wal(cursor: Any) -> None:
    """Switch the file to WAL (it stays so). Changing the journal mode does not wait on the busy
    timeout: when another process holds a lock at that moment (two processes opening a new database
    at once), SQLite answers "database is locked" at once, so the switch is retried for a while."""
    for attempt in range(WAL_SWITCH_TRIES):
        try:
            mode = cursor.execute("PRAGMA journal_mode").fetchone()[0]
            if str(mode).lower() != "wal":
                cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == WAL_SWITCH_TRIES - 1:
                raise
            time.sleep(0.05)


def _sqlite_events(engine: Engine, *, wal: bool) -> None:
    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, record: Any) -> None:
        dbapi_connection.isolation_level = None  # we emit BEGIN ourselves (see "begin" below)
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_S * 1000}")
            cursor.execute("PRAGMA foreign_keys = ON")
            if wal:
                _use_wal(cursor)
                # Under WAL, NORMAL loses no committed transaction when a process is killed; only a
                # power cut can lose the last ones (the database stays consistent either way).
                cursor.execute("PRAGMA synchronous = NORMAL")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        immediate = connection.get_execution_options().get(WRITE, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def _alembic_config(connection: Connection) -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest migration (a no-op when it is there already)."""
    from alembic import command
    from alembic.util import CommandError

    with translated("cannot migrate the database"), engine.execution_options(**{WRITE: True}).begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_MIGRATION_LOCK})")
        try:
            command.upgrade(_alembic_config(conn), "head")
        except CommandError as error:
            raise StoreError(
                f"cannot migrate the database: {one_line(error)} (made by a newer botarena?)"
            ) from None


def check_schema(engine: Engine) -> None:
    """StoreError unless the database is at the newest migration (for `migrate=False`)."""
    from alembic.migration import MigrationContext
    from alembic.script import ScriptDirectory

    with translated("cannot read the database"), engine.connect() as conn:
        current = MigrationContext.configure(conn).get_current_revision()
        head = ScriptDirectory.from_config(_alembic_config(conn)).get_current_head()
    if current != head:
        found = "no botarena tables" if current is None else f"schema revision {current}"
        raise StoreError(f"the database has {found}, this botarena needs {head} (open it with migrate)")
