"""The shipped migrations build exactly the schema the models describe, on SQLite and PostgreSQL."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect

from botarena.store import Store
from botarena.store.engine import MIGRATIONS, _alembic_config
from botarena.store.models import Base

from .helpers import StoreFactory


def _differences(url: str) -> list[object]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            return list(compare_metadata(context, Base.metadata))
    finally:
        engine.dispose()


def test_migrations_match_the_models(open_store: StoreFactory) -> None:
    store = open_store()
    assert _differences(store.connect_url) == []


def test_downgrade_to_base_and_upgrade_again(open_store: StoreFactory) -> None:
    store = open_store()
    url = store.connect_url
    store.close()
    engine = create_engine(url)
    with engine.begin() as conn:
        command.downgrade(_alembic_config(conn), "base")
    with engine.connect() as conn:
        assert set(inspect(conn).get_table_names()) <= {"alembic_version"}
    engine.dispose()
    again = open_store()
    assert again.list_tournaments() == []
    assert _differences(url) == []


def test_two_processes_migrating_at_once_both_succeed(db_url: str, tmp_path: Path) -> None:
    code = "import sys; from botarena.store import Store; Store.open(*sys.argv[1:2], replay_dir=sys.argv[2])"
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", code, db_url, str(tmp_path / "replays")],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    for process in processes:
        _, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
    with Store.open(db_url, replay_dir=tmp_path / "replays", migrate=False) as store:
        assert store.list_tournaments() == []


def test_migration_files_ship_inside_the_package() -> None:
    import botarena.store

    package = Path(botarena.store.__file__).parent
    assert package / "migrations" == MIGRATIONS
    assert (MIGRATIONS / "env.py").is_file() and (MIGRATIONS / "script.py.mako").is_file()
    assert sorted(p.name for p in (MIGRATIONS / "versions").glob("*.py"))[0] == "0001_initial.py"
