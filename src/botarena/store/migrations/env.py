"""Alembic environment for the store. `Store.open(migrate=True)` runs it with its own connection
(config.attributes["connection"]); no alembic.ini is needed.

For developers writing a migration: `scripts/new_migration.py "what changed"` autogenerates one
from the models against a scratch SQLite database migrated to the current head.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine

from botarena.store.models import Base


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        # SQLite alters tables by copying them; batch mode does that for later migrations.
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def main() -> None:
    connection = context.config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = context.get_x_argument(as_dictionary=True).get("url") or context.config.get_main_option(
        "sqlalchemy.url"
    )
    if not url:
        raise SystemExit("give the database with -x url=...")
    engine = create_engine(url)
    with engine.begin() as conn:
        _run(conn)
    engine.dispose()


main()
