"""Shared fixtures for the whole suite.

Database fixtures: `db_url` is an empty database for each `backend`, SQLite (a file under tmp_path)
and PostgreSQL. PostgreSQL comes from `BOTARENA_TEST_POSTGRES_URL` (a role that may CREATEDB). Each
pytest session creates a database of its own with a random name and drops it at the end, and each
test gets a schema of its own in it (through the connection's search_path), so parallel and earlier
runs never meet. Without the variable, or with the server down, the PostgreSQL tests are skipped
with the reason; with `BOTARENA_REQUIRE_POSTGRES=1` (CI) they fail instead.
"""

from __future__ import annotations

import atexit
import os
import secrets
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import URL, make_url

from botarena.core.game import GameInfo
from botarena.core.registry import get_game

# A test suite started in the background without job control (`cmd &` in a script) inherits SIGINT
# ignored, and so would every `botarena` process a test starts: the Ctrl-C tests could not press
# Ctrl-C. A handler here (not SIG_IGN) makes each child start with the default disposition again.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


EXTRA_GAMES_ENV = "BOTARENA_EXTRA_GAMES"


def _install_extra_games() -> None:
    """`BOTARENA_EXTRA_GAMES=examples/nim_game[:other/project]`: game packages outside botarena, made
    visible by their entry points as pip would install them (botarena.testing.installed), before
    any test module is collected, so every registry-wide table (conformance, RL, CLI) includes them
    with no edit, in this process and in the processes it starts. Paths are relative to the
    repository."""
    projects = [part for part in os.environ.get(EXTRA_GAMES_ENV, "").split(os.pathsep) if part]
    if not projects:
        return
    from botarena.testing.installed import install_for_tests

    into = Path(tempfile.mkdtemp(prefix="botarena-extra-games-"))
    atexit.register(shutil.rmtree, into, ignore_errors=True)
    root = Path(__file__).resolve().parents[1]
    paths = [path for project in projects for path in install_for_tests(root / project, into).paths]
    # and for the `botarena` processes tests start: their importlib.metadata scans PYTHONPATH too
    inherited = [part for part in os.environ.get("PYTHONPATH", "").split(os.pathsep) if part]
    os.environ["PYTHONPATH"] = os.pathsep.join(dict.fromkeys([*inherited, *paths]))


_install_extra_games()


@pytest.fixture
def drones() -> GameInfo:
    return get_game("drones")


@pytest.fixture(scope="session")
def shared_cpp_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The compiled-player cache every xdist worker of this run shares (tests/cppbuilds.py): a C++
    player that tests play, not a compile under test, is compiled once per run."""
    from cppbuilds import run_folder

    return run_folder(tmp_path_factory) / "cpp-players"


POSTGRES_ENV = "BOTARENA_TEST_POSTGRES_URL"
REQUIRE_ENV = "BOTARENA_REQUIRE_POSTGRES"
BACKENDS = ["sqlite", "postgresql"]


def _workers_log_in_through_libpq() -> None:
    """Match tasks carry the store's URL without its password (issue 25): a worker brings its own.
    The suite's workers (local pools made without credentials, Dask LocalCluster processes, which
    inherit this environment) get it the way a deployment's may, through libpq's PGPASSWORD."""
    try:
        password = make_url(os.environ.get(POSTGRES_ENV) or "").password
    except Exception:  # no URL, or not one: the PostgreSQL tests say so themselves
        return
    if password:
        os.environ.setdefault("PGPASSWORD", str(password))


_workers_log_in_through_libpq()


def _unavailable(reason: str) -> None:
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{REQUIRE_ENV}=1 but {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def postgres_database() -> Iterator[URL | None]:
    """A fresh PostgreSQL database for this session (dropped afterwards); None when there is none."""
    raw = os.environ.get(POSTGRES_ENV)
    if not raw:
        yield None
        return
    admin_url = make_url(raw).set(drivername="postgresql+psycopg")
    name = f"botarena_t_{secrets.token_hex(6)}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT", connect_args={"connect_timeout": 5})
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    except Exception as error:
        admin.dispose()
        reason = str(getattr(error, "orig", error)).strip().splitlines()[0]
        yield admin_url.set(database=f"!unreachable: {reason}")
        return
    try:
        yield admin_url.set(database=name)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def _postgres_url(database: URL | None) -> str:
    """A URL whose connections work in a new schema of the session's database."""
    if database is None:
        _unavailable(f"{POSTGRES_ENV} is not set (a PostgreSQL URL for the store tests)")
    assert database is not None
    if database.database and database.database.startswith("!unreachable: "):
        _unavailable(f"PostgreSQL at {POSTGRES_ENV} is unusable: {database.database[14:]}")
    schema = f"t_{secrets.token_hex(6)}"
    engine = create_engine(database)
    with engine.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    engine.dispose()
    return database.update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(
        hide_password=False
    )


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def db_url(backend: str, tmp_path: Path, postgres_database: URL | None) -> str:
    """A database URL for the backend under test, empty (no tables)."""
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'db' / 'botarena.db'}"
    return _postgres_url(postgres_database)
