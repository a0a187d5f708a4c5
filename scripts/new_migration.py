"""Autogenerate a store migration from the models: `python scripts/new_migration.py "what changed"`.

It migrates a scratch SQLite database to the current head, then lets alembic compare it with the
models and write `src/botarena/store/migrations/versions/NNNN_<slug>.py`. Review the result (and run
tests/store/test_migrations.py, which checks it on SQLite and PostgreSQL).
"""

from __future__ import annotations

import re
import sys
import tempfile

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine

from botarena.store.engine import MIGRATIONS


def main(message: str) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        engine = create_engine(f"sqlite:///{scratch}/scratch.db")
        with engine.begin() as conn:
            config = Config()
            config.set_main_option("script_location", str(MIGRATIONS))
            config.attributes["connection"] = conn
            command.upgrade(config, "head")
            heads = ScriptDirectory.from_config(config).get_heads()
            number = len(list(ScriptDirectory.from_config(config).walk_revisions())) + 1
            slug = re.sub(r"[^a-z0-9]+", "_", message.lower()).strip("_")[:40]
            command.revision(
                config,
                message=message,
                autogenerate=True,
                rev_id=f"{number:04d}",
                head=heads[0] if heads else "base",
            )
            print(f"wrote migration {number:04d} ({slug})")
        engine.dispose()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main(sys.argv[1])
