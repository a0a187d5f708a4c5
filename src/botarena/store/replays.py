"""Replay files addressed by content: `<root>/<hash[:2]>/<hash>.json.gz`, hash = sha256 of the gzip
bytes. The same bytes always land in the same file, so writing is idempotent and a finished match's
replay can never be silently replaced."""

from __future__ import annotations

import hashlib
import os
import re
import threading
from pathlib import Path

from botarena.store.rows import StoreError

_HASH = re.compile(r"[0-9a-f]{64}")


def replay_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class ReplayFiles:
    """The replay directory of one store."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, digest: str) -> Path:
        """Where the replay with this hash lives (whether or not it exists)."""
        if not _HASH.fullmatch(digest):
            raise StoreError(f"not a replay hash: {digest!r}")
        return self.root / digest[:2] / f"{digest}.json.gz"

    def write(self, data: bytes) -> str:
        """Store `data` (gzip bytes) under its hash, atomically; returns the hash."""
        digest = replay_hash(data)
        target = self.path(digest)
        if target.exists():  # content-addressed: an existing file already holds exactly these bytes
            return digest
        # A name of its own per writer (process and thread), so concurrent writers of the same
        # replay never share a temporary file; the rename makes the file appear whole or not at all.
        tmp = target.with_name(f".{digest}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_bytes(data)
            tmp.replace(target)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise StoreError(f"cannot write replay {target}: {exc.strerror or exc}") from None
        return digest
