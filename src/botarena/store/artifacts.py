"""Bot artifacts in the store: the URL workers are given (`artifact_source`) and the fetcher that
reads an artifact's bytes from the store's `artifacts` table (`store_fetcher`), which
`botarena.bots.artifacts.materialize_specs` checks against its digest and unpacks. The bots layer
packs and unpacks; only this module talks to the database."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from sqlalchemy import Engine

from botarena.bots.artifacts import ArtifactError, ArtifactUnavailable, Fetch

_engines: dict[str, Engine] = {}
_engines_lock = threading.Lock()


def _engine(url: str) -> Engine:
    """One light engine per store URL (as connected to, password included) per process: no
    migration, no replay folder, no new database."""
    with _engines_lock:
        found = _engines.get(url)
        if found is not None:
            return found
        from botarena.store import engine as eng

        parsed = eng.normalize_url(url)
        database = eng.sqlite_file(parsed)
        if parsed.get_backend_name() == "sqlite" and (database is None or not os.path.isfile(database)):
            shown = parsed.render_as_string(hide_password=True)
            raise ArtifactUnavailable(f"the store {shown} is not a database file this worker can read")
        made = eng.make_engine(parsed)
        _engines[url] = made
        return made


def artifact_source(url: str) -> str:
    """The store URL as workers should get it: without its password (each worker has its own:
    `botarena.core.credentials.connect_url`), a SQLite file's path made absolute (a worker on this
    machine may run in another directory; one on another machine needs PostgreSQL anyway)."""
    from sqlalchemy.engine import make_url

    from botarena.core.credentials import without_secrets

    parsed = make_url(without_secrets(url))
    database = parsed.database
    if parsed.get_backend_name() != "sqlite" or not database or database == ":memory:":
        return parsed.render_as_string(hide_password=False)
    return parsed.set(database=os.path.abspath(database)).render_as_string(hide_password=False)


def _missing_password(url: str) -> str:
    """What a worker that could not log in to the store at `url` lacks, in words (or "")."""
    from sqlalchemy.engine import make_url

    from botarena.core.credentials import DB_ENV, has_credentials

    if make_url(url).get_backend_name() != "postgresql" or has_credentials(url):
        return ""
    if (
        os.environ.get("PGPASSWORD")
        or os.environ.get("PGPASSFILE")
        or Path("~/.pgpass").expanduser().exists()
    ):
        return ""  # libpq's own: the password there was wrong, or the server said something else
    return (
        f"; this worker has no password for the store: set {DB_ENV} (the store's URL) or"
        f" {DB_ENV}_FILE, or PGPASSWORD or ~/.pgpass, in its environment"
    )


def store_fetcher(url: str) -> Fetch:
    """`fetch(digest) -> bytes` reading the `artifacts` table of the store at `url`, logged in with
    the password this process has for it (`botarena.core.credentials.connect_url`) when `url` has none."""

    def fetch(digest: str) -> bytes:
        from sqlalchemy import select
        from sqlalchemy.exc import SQLAlchemyError

        from botarena.core.credentials import connect_url
        from botarena.store.engine import one_line
        from botarena.store.models import Artifact

        try:
            with _engine(connect_url(url)).connect() as conn:
                data = conn.scalar(select(Artifact.data).where(Artifact.digest == digest))
        except SQLAlchemyError as exc:
            raise ArtifactUnavailable(
                f"cannot fetch artifact {digest}: {one_line(exc)}{_missing_password(url)}"
            ) from None
        if data is None:
            raise ArtifactError(f"artifact {digest} is not in the store")
        return bytes(data)

    return fetch
