"""A team's new version (specs/arena.md: Uploads, URL entries, Version states): what the server does
with an upload's bytes or a URL once the route has read them.

    packed = convert(data, "bot.zip", policy)                  # UploadRejected(code, detail)
    version, created = register_upload(versions, competition, team, packed, note=..., key=..., at=now)
    version, created = register_url(versions, competition, team, url, secure_key, ...)  # UrlRejected

`convert` checks the bytes (`archive.check_upload`), unpacks them into a private temporary folder
(mode 0700, under $BOTARENA_UPLOAD_SCRATCH when the server sets it, else under /dev/shm when the
machine has one: unpacking a 2,000-file upload there is about 100 times cheaper than on a disk,
benchmarks/README.md arena_upload; else tempfile's default), packs the canonical artifact and
removes the folder, whatever happened. A folder left by a server SIGKILLed mid-unpack is removed
by the next server's first conversion (`sweep_scratch`). It is CPU work: the route runs it in a
thread, at most `policy.max_conversions` at a time (`Conversions`).

Where things are kept:
- an upload's canonical archive is a content-addressed artifact (`Store.put_artifact`), registered
  as a version of the team's `bots` row with that artifact and the run spec `{artifact}`; the
  artifact's digest is the version's `source_digest` (its identity: the same files are the same
  version, whatever archive they came in);
- a URL entry is a version of the team's bot whose spec is the URL; the schema has no column for
  its `secure_key`, so it is kept in the artifact the bot version names: the JSON object
  `{"kind": "arena-url", "url": ..., "secure_key": ...}` (`url_config`, read back by the
  coordinator with `read_url_config`). No route returns an artifact of a URL entry, and the
  version's digest (over the URL and the key's own sha256) is shown to its team only.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import orjson

from botarena.arena.archive import check_upload, pack_upload, stale_scratch
from botarena.arena.competitions import ArenaError, policy_of
from botarena.arena.policy import MIB, ArenaPolicy
from botarena.arena.vocabulary import Phase, VersionKind
from botarena.bots.artifacts import PackedBot
from botarena.bots.urls import URL_CONFIG_KIND, CheckedUrl, Resolver, check_url
from botarena.store.arena import CompetitionRow, TeamRow
from botarena.store.arena_versions import ArenaVersions, NewVersion, Quotas, VersionBot, VersionRow

log = logging.getLogger(__name__)

TMPFS = Path("/dev/shm")
SCRATCH_ENV = "BOTARENA_UPLOAD_SCRATCH"


class UploadClosed(ArenaError):
    """An upload the competition or team does not take now (409): not open, or the team disabled."""


def quotas_of(policy: ArenaPolicy) -> Quotas:
    return Quotas(
        per_hour=policy.uploads_per_hour,
        per_day=policy.uploads_per_day,
        kept=policy.kept_versions,
        team_bytes=int(policy.team_bytes_mb * MIB),
    )


def check_open(competition: CompetitionRow, team: TeamRow) -> ArenaPolicy:
    """The competition's policy, if it takes an upload from `team` now; else UploadClosed."""
    if competition.phase != Phase.OPEN:
        raise UploadClosed(f"competition {competition.id} takes no uploads while it is {competition.phase}")
    if team.disabled:
        raise UploadClosed(f"team {team.name!r} is disabled: it cannot upload")
    return policy_of(competition)


class ScratchUnavailable(RuntimeError):
    """The folder uploads are unpacked in cannot be used now (503: the server's trouble, not the
    team's): the configured root is not a writable folder, or it is full."""


def scratch_root() -> Path | None:
    """Where uploads are unpacked: $BOTARENA_UPLOAD_SCRATCH when set (a server setting, read at each
    upload: an existing folder this process may write; ScratchUnavailable if it is not), else
    /dev/shm when it is a writable folder, else None (tempfile's default: $TMPDIR, /tmp, ...)."""
    configured = os.environ.get(SCRATCH_ENV, "").strip()
    if configured:
        root = Path(configured).absolute()
        if not root.is_dir() or not os.access(root, os.W_OK | os.X_OK):
            raise ScratchUnavailable(f"{SCRATCH_ENV}={configured}: not a folder this server may write")
        return root
    return TMPFS if TMPFS.is_dir() and os.access(TMPFS, os.W_OK | os.X_OK) else None


_swept: set[Path] = set()
_sweep_lock = threading.Lock()


def sweep_scratch(root: Path | None) -> list[Path]:
    """Remove, once per process and root, the scratch folders a SIGKILLed process left under `root`
    (`archive.stale_scratch`: nothing else would, and on /dev/shm they hold memory until a reboot);
    the folders removed."""
    where = root if root is not None else Path(tempfile.gettempdir())
    with _sweep_lock:
        if where in _swept:
            return []
        _swept.add(where)
    stale = stale_scratch(where)
    for folder in stale:
        log.warning("removing the upload scratch folder %s (its process is gone)", folder)
        shutil.rmtree(folder, ignore_errors=True)
    return stale


def convert(data: bytes, filename: str, policy: ArenaPolicy) -> PackedBot:
    """The canonical artifact of an upload (UploadRejected with its code for anything refused;
    ScratchUnavailable when the scratch folder cannot take it: not there, not writable, full)."""
    checked = check_upload(data, filename, policy)
    root = scratch_root()
    sweep_scratch(root)
    try:
        return pack_upload(checked, policy, scratch_root=root)
    except OSError as exc:  # (an UploadRejected is a ValueError: it passes through)
        log.warning("cannot unpack an upload under %s: %s", root or tempfile.gettempdir(), exc)
        why = exc.strerror or type(exc).__name__
        raise ScratchUnavailable(f"the server cannot unpack uploads now ({why}); try again later") from None


class Conversions:
    """How many conversions run now, server-wide: `enter(limit)` is False when `limit` already run."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.running = 0

    def enter(self, limit: int) -> bool:
        with self._lock:
            if self.running >= limit:
                return False
            self.running += 1
            return True

    def leave(self) -> None:
        with self._lock:
            self.running -= 1


@dataclass(frozen=True)
class Sent:
    """What the team sent with a version."""

    note: str | None = None
    key: str | None = None


def register_upload(
    versions: ArenaVersions,
    team: TeamRow,
    packed: PackedBot,
    policy: ArenaPolicy,
    sent: Sent,
    *,
    at: datetime,
) -> tuple[VersionRow, bool]:
    """Add the upload as the team's version, its artifact and bot version stored in the same
    transaction (the existing one, False, for the same digest or idempotency key). QuotaExceeded,
    IdempotencyKeyReused from the store."""
    bot = VersionBot(packed.run_spec, packed.data, packed.run_spec)
    new = NewVersion(
        team.id, VersionKind.UPLOAD.value, packed.digest, bot, len(packed.data), sent.note, sent.key
    )
    return versions.add_version(new, quotas_of(policy), at=at)


def url_config(checked: CheckedUrl, secure_key: str | None) -> bytes:
    """The JSON the coordinator reads a URL entry from (its secure key in it)."""
    document = {"kind": URL_CONFIG_KIND, "url": checked.url, "secure_key": secure_key}
    return orjson.dumps(document, option=orjson.OPT_SORT_KEYS)


def url_digest(url: str, secure_key: str | None) -> str:
    """A URL entry's identity: the URL and the sha256 of its key (the same service, the same key)."""
    key_hash = hashlib.sha256((secure_key or "").encode()).hexdigest()
    return hashlib.sha256(f"url\n{url}\n{key_hash}".encode()).hexdigest()


def register_url(
    versions: ArenaVersions,
    team: TeamRow,
    url: str,
    secure_key: str | None,
    policy: ArenaPolicy,
    sent: Sent,
    *,
    at: datetime,
    resolve: Resolver | None = None,
) -> tuple[VersionRow, bool]:
    """Check the URL (UrlRejected with its code) and add it as the team's version; its secure key
    goes into the bot version's config artifact, write-only (module docstring)."""
    checked = check_url(url, policy, resolve=resolve)
    bot = VersionBot(checked.url, url_config(checked, secure_key))
    digest = url_digest(checked.url, secure_key)
    new = NewVersion(team.id, VersionKind.URL.value, digest, bot, 0, sent.note, sent.key)
    return versions.add_version(new, quotas_of(policy), at=at)


__all__ = [
    "SCRATCH_ENV",
    "Conversions",
    "ScratchUnavailable",
    "Sent",
    "UploadClosed",
    "check_open",
    "convert",
    "quotas_of",
    "register_upload",
    "register_url",
    "scratch_root",
    "sweep_scratch",
    "url_config",
    "url_digest",
]
