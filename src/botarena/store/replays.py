"""Where a store keeps its replays: gzip bytes addressed by content, hash = sha256 of the bytes.

Two kinds, one interface (`ReplayStorage`: write, read, exists):

- `ReplayFiles`, a directory: `<root>/<hash[:2]>/<hash>.json.gz`. A plain directory is the
  coordinator's own (SQLite's default, `replays/` next to the file). Given as a `file:///shared/dir`
  URL it is a *shared location*, one every machine mounts (NFS, ...): workers then write the replays
  of the matches they play there themselves and send the coordinator only the hash (`ship_replay`).
- `ReplayBlobs`, the database's `replay_blobs` table (PostgreSQL's default): every machine that
  reaches the database, a server on another host included, reads every replay.

Content addressing makes every write idempotent (the same bytes always land under the same hash)
and a finished match's replay impossible to replace silently; every read checks the hash of what it
got, so a damaged copy is an error (`ReplayDamaged`), never a replay shown as if it were true.

`Store.open(url, replays=...)` picks the kind (`replay_storage`): None (the default for the URL),
"db", a directory path or a `file://` URL.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Protocol
from urllib.parse import unquote, urlsplit

from sqlalchemy import Engine, delete, select
from sqlalchemy.dialects import postgresql, sqlite

from botarena.store import engine as eng
from botarena.store.models import ReplayBlob, utcnow
from botarena.store.rows import StoreError

_HASH = re.compile(r"[0-9a-f]{64}")
DATABASE = "db"  # the `replays` value that keeps replays in the store's database
REPLAYS_HELP = "db, a directory, or file:///shared/dir (a location every worker mounts)"


class ReplayMissing(StoreError):
    """A replay is not where the store keeps its replays (deleted, or never written there)."""


class ReplayDamaged(StoreError):
    """A replay's stored bytes do not hash to its name (a damaged disk or a tampered row)."""


def replay_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_hash(digest: str) -> str:
    """`digest` if it is a replay hash (64 lowercase hex digits), else StoreError."""
    if not isinstance(digest, str) or not _HASH.fullmatch(digest):
        raise StoreError(f"not a replay hash: {str(digest)[:80]!r}")
    return digest


def _verified(digest: str, data: bytes, where: str) -> bytes:
    if replay_hash(data) != digest:
        raise ReplayDamaged(f"replay {digest} in {where} is damaged (its content does not match its hash)")
    return data


_CHUNK = 100  # replays per INSERT statement


class ReplayStorage(Protocol):
    """Replays by content hash. Every method raises StoreError (one line) when it cannot do its job."""

    @property
    def location(self) -> str:
        """Where the replays are, for people (messages, `botarena serve`'s banner)."""
        ...

    @property
    def target(self) -> str | None:
        """A URL workers write replays to themselves (`ship_replay`); None: the coordinator writes."""
        ...

    def write(self, data: bytes) -> str:
        """Keep `data` (gzip bytes) under its hash; returns the hash. Writing it again changes nothing."""
        ...

    def write_many(self, blobs: Sequence[bytes]) -> list[str]:
        """`write` for several replays at once (a coordinator's batch); their hashes, in order."""
        ...

    def read(self, digest: str) -> bytes:
        """The bytes of replay `digest`, checked against it: ReplayMissing, ReplayDamaged."""
        ...

    def exists(self, digest: str) -> bool: ...

    def digests(self) -> Iterator[str]:
        """The hash of every replay kept here (for the sweep of unrecorded replays)."""
        ...

    def remove(self, digest: str) -> None:
        """Delete replay `digest` (gone already: nothing to do). Only the store calls this, for a
        replay no match references (`remove_unrecorded_replays`, `delete_tournaments`)."""
        ...


class ReplayFiles:
    """A replay directory: the coordinator's own, or (`shared`) a location every worker mounts."""

    def __init__(self, root: Path, *, shared: bool = False) -> None:
        self.root = root
        self.shared = shared

    @property
    def location(self) -> str:
        return self.target or str(self.root)

    @property
    def target(self) -> str | None:
        return self.root.absolute().as_uri() if self.shared else None

    def path(self, digest: str) -> Path:
        """Where the replay with this hash lives (whether or not it exists)."""
        check_hash(digest)
        return self.root / digest[:2] / f"{digest}.json.gz"

    def write(self, data: bytes) -> str:
        """Store `data` (gzip bytes) under its hash, atomically; returns the hash."""
        digest = replay_hash(data)
        target = self.path(digest)
        if target.exists():  # content-addressed: an existing file already holds exactly these bytes
            return digest
        # A name of its own per writer (host, process and thread: a shared location has writers on
        # several machines), so concurrent writers of the same replay never share a temporary file;
        # the rename makes the file appear whole or not at all.
        tmp = target.with_name(f".{digest}.{os.uname().nodename}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_bytes(data)
            tmp.replace(target)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise StoreError(f"cannot write replay {target}: {exc.strerror or exc}") from None
        return digest

    def write_many(self, blobs: Sequence[bytes]) -> list[str]:
        return [self.write(data) for data in blobs]

    def read(self, digest: str) -> bytes:
        path = self.path(digest)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise ReplayMissing(f"replay not found: {digest} is not in {self.location}") from None
        except OSError as exc:
            raise StoreError(f"cannot read replay {path}: {exc.strerror or exc}") from None
        return _verified(digest, data, self.location)

    def exists(self, digest: str) -> bool:
        return self.path(digest).is_file()

    def digests(self) -> Iterator[str]:
        suffix = ".json.gz"
        try:
            folders = sorted(os.scandir(self.root), key=lambda entry: entry.name)
        except OSError as exc:
            raise StoreError(f"cannot list the replays in {self.location}: {exc.strerror or exc}") from None
        for folder in folders:
            if len(folder.name) != 2 or not folder.is_dir(follow_symlinks=False):
                continue
            try:
                names = sorted(os.listdir(folder.path))
            except OSError:
                continue
            for name in names:  # temporary files (".<hash>.<host>...tmp") are no replay yet
                digest = name[: -len(suffix)]
                if name.endswith(suffix) and _HASH.fullmatch(digest) and digest.startswith(folder.name):
                    yield digest

    def remove(self, digest: str) -> None:
        path = self.path(digest)
        try:
            path.unlink(missing_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot remove replay {path}: {exc.strerror or exc}") from None


class ReplayBlobs:
    """Replays in the store's database (`replay_blobs`), seen by every machine that reaches it."""

    def __init__(self, engine: Engine, writer: Engine, url: str) -> None:
        self._engine = engine
        self._writer = writer  # BEGIN IMMEDIATE on SQLite (engine.WRITE)
        self._url = url

    @property
    def location(self) -> str:
        return f"the database {self._url}"

    @property
    def target(self) -> str | None:
        return None

    def write(self, data: bytes) -> str:
        return self.write_many([data])[0]

    def write_many(self, blobs: Sequence[bytes]) -> list[str]:
        """One transaction, one statement per `_CHUNK` replays: a transaction per replay would cost a
        batch of short matches more than playing them (a commit each, on PostgreSQL a WAL flush)."""
        digests = [replay_hash(data) for data in blobs]
        rows = {
            digest: {"digest": digest, "size": len(data), "data": data, "created_at": utcnow()}
            for digest, data in zip(digests, blobs, strict=True)
        }
        if not rows:
            return digests
        dialect = postgresql if self._engine.dialect.name == "postgresql" else sqlite
        # Idempotent by content: a second writer of the same bytes (a match played twice, another
        # coordinator) inserts nothing, and what is there is the same bytes by construction.
        statement = dialect.insert(ReplayBlob).on_conflict_do_nothing(index_elements=["digest"])
        values = list(rows.values())
        with eng.translated(f"cannot write replay {digests[0]}"), self._writer.begin() as conn:
            for start in range(0, len(values), _CHUNK):
                conn.execute(statement, values[start : start + _CHUNK])
        return digests

    def read(self, digest: str) -> bytes:
        check_hash(digest)
        query = select(ReplayBlob.data).where(ReplayBlob.digest == digest)
        with eng.translated(f"cannot read replay {digest}"), self._engine.begin() as conn:
            data = conn.scalar(query)
        if data is None:
            raise ReplayMissing(f"replay not found: {digest} is not in {self.location}")
        return _verified(digest, bytes(data), self.location)

    def exists(self, digest: str) -> bool:
        check_hash(digest)
        query = select(ReplayBlob.digest).where(ReplayBlob.digest == digest)
        with eng.translated(f"cannot read replay {digest}"), self._engine.begin() as conn:
            return conn.scalar(query) is not None

    def digests(self) -> Iterator[str]:
        query = select(ReplayBlob.digest).order_by(ReplayBlob.digest)
        with eng.translated("cannot list the replays"), self._engine.begin() as conn:
            found = list(conn.scalars(query))
        yield from found

    def remove(self, digest: str) -> None:
        check_hash(digest)
        with eng.translated(f"cannot remove replay {digest}"), self._writer.begin() as conn:
            conn.execute(delete(ReplayBlob).where(ReplayBlob.digest == digest))


# ------------------------------------------------------------------------------ choosing one


def shared_root(url: str) -> Path:
    """The directory of a `file:///abs/dir` URL (StoreError, one line, for anything else)."""
    parts = urlsplit(url)
    if parts.scheme != "file":
        raise StoreError(f"not a file:// URL: {url!r} (expected {REPLAYS_HELP})")
    if parts.netloc not in ("", "localhost") or parts.query or parts.fragment:
        raise StoreError(f"bad replay location {url!r}: write file:///ABSOLUTE/DIR (no host or query)")
    path = unquote(parts.path)
    if not path.startswith("/") or "\x00" in path:
        raise StoreError(f"bad replay location {url!r}: write file:///ABSOLUTE/DIR")
    return Path(path)


def replay_storage(
    replays: str | Path | None, *, default_dir: Path | None, engine: Engine, writer: Engine, url: str
) -> ReplayStorage:
    """The storage `replays` names: None (`default_dir`, or the database when that is None), "db",
    a `file://` URL (a shared location) or a directory path. Directories are created."""
    if replays is None:
        if default_dir is None:
            return ReplayBlobs(engine, writer, url)
        return _directory(default_dir, shared=False)
    if isinstance(replays, Path):
        return _directory(replays, shared=False)
    text = replays.strip()
    if text == DATABASE:
        return ReplayBlobs(engine, writer, url)
    if not text:
        raise StoreError(f"empty replay location (expected {REPLAYS_HELP})")
    if text.startswith("file:"):
        return _directory(shared_root(text), shared=True)
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", text):
        raise StoreError(f"unsupported replay location {text!r} (expected {REPLAYS_HELP})")
    return _directory(Path(text), shared=False)


def _directory(root: Path, *, shared: bool) -> ReplayFiles:
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StoreError(f"cannot create the replay directory {root}: {error.strerror or error}") from None
    return ReplayFiles(root, shared=shared)


# ------------------------------------------------------------------------------ workers and recording


def ship_replay(target: str | None, replay_gz: bytes) -> tuple[bytes, str | None]:
    """On a worker: (bytes to send back, hash). With a shared `target` (`MatchTask.replay_target`)
    the worker writes the replay there and sends back no bytes, only the hash; else it sends them."""
    if not target:
        return replay_gz, None
    root = shared_root(target)
    # A missing root means the location is not mounted here: writing would create a private copy
    # no one else sees (the coordinator would then not find it and play the match again).
    if not root.is_dir():
        raise StoreError(f"the shared replay location {target} is not on this machine (is it mounted?)")
    return b"", ReplayFiles(root, shared=True).write(replay_gz)


def keep_replay(storage: ReplayStorage, replay_gz: bytes, digest: str | None, what: str) -> str:
    """For `Store.record_result`: write `replay_gz`, or, when a worker wrote the replay itself
    (`digest`), check that it is there (ReplayMissing if not: the match is played again)."""
    if digest is None:
        return storage.write(replay_gz)
    if not storage.exists(check_hash(digest)):
        raise ReplayMissing(f"{what}: its replay {digest} is not in {storage.location}")
    return digest
