"""Who a sealed bot is: a uid of its own, that owns nothing on the host (when botarena runs as root).

Run as root, botarena gives every sandbox (each seat of each match, each sealed compile) a uid and gid
of its own from a reserved range, `BOTARENA_SANDBOX_UIDS` (default 2000000000:65536, i.e.
2000000000-2000065535, a block no distribution, no `useradd`, no subordinate-uid range and no systemd
allocation uses). The bot's processes run as that uid with no capability in any set, so the kernel's
own checks by uid (sysctl files, other users' processes and files, per-user limits such as inotify
instances and queued signals) treat it as a stranger to everything, and two sandboxes never share
one. A uid with an account in the passwd database is skipped.

Leases are held with `flock` on one file per uid in a root-only folder (`BOTARENA_SANDBOX_LOCKS`,
default /run/botarena/sandbox-uids), so every runner on the machine (pool workers, Dask workers,
servers) takes uids from one pool; the kernel drops a dead runner's leases with its file descriptors.
A forked child closes its copies at once, so a pool worker never keeps its parent's leases alive.

Not run as root, bubblewrap makes a user namespace and the bot is the runner's own uid: there is no
uid to give. See docs/security.md.
"""

from __future__ import annotations

import fcntl
import os
import pwd
import stat
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

UIDS_ENV = "BOTARENA_SANDBOX_UIDS"
"""FIRST:COUNT, the uids (and gids) sandboxes may run as."""
DEFAULT_UIDS = (2_000_000_000, 65536)
LOCKS_ENV = "BOTARENA_SANDBOX_LOCKS"
"""The folder holding one lock file per uid in use (root-only; shared by every runner on the machine)."""
DEFAULT_LOCKS = "/run/botarena/sandbox-uids"


class UidUnavailable(RuntimeError):
    """No sandbox uid can be leased here; str(exc) is one line saying why."""


def dedicated_uids() -> bool:
    """Whether sandboxes get uids of their own: only a runner that is root can switch to them."""
    return os.geteuid() == 0


def uid_range() -> range:
    """The uids sandboxes may run as ($BOTARENA_SANDBOX_UIDS, FIRST:COUNT)."""
    raw = os.environ.get(UIDS_ENV)
    if not raw:
        first, count = DEFAULT_UIDS
        return range(first, first + count)
    try:
        first_text, count_text = raw.split(":")
        first, count = int(first_text), int(count_text)
    except ValueError:
        raise UidUnavailable(f"{UIDS_ENV}={raw!r} is not FIRST:COUNT (e.g. 2000000000:65536)") from None
    if first < 1000 or count < 1 or first + count > 2**31 - 1:
        raise UidUnavailable(f"{UIDS_ENV}={raw!r}: the uids must lie between 1000 and 2147483646")
    return range(first, first + count)


def _mapped(path: str, wanted: range) -> bool:
    """Whether every id of `wanted` is mapped in this process's user namespace (/proc/self/uid_map)."""
    try:
        with open(path, encoding="ascii") as lines:
            maps = [tuple(int(x) for x in line.split()) for line in lines if line.strip()]
    except (OSError, ValueError):
        return False
    return any(inside <= wanted.start and wanted.stop <= inside + count for inside, _outside, count in maps)


@lru_cache(maxsize=4)
def _lock_folder(folder: str) -> Path:
    """The lock folder, made if missing; UidUnavailable unless only this uid can write into it."""
    path = Path(folder)
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(path)
    except OSError as exc:
        raise UidUnavailable(f"cannot make the sandbox uid lock folder {path}: {exc.strerror}") from None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
        raise UidUnavailable(
            f"the sandbox uid lock folder {path} must be a folder owned by uid {os.geteuid()} and "
            f"writable by it alone (mode {stat.S_IMODE(info.st_mode):04o}, owner {info.st_uid})"
        )
    return path


def check_uids() -> None:
    """Raise UidUnavailable (one line) unless sandbox uids can be leased here (root only)."""
    ids = uid_range()
    for kind, path in (("uids", "/proc/self/uid_map"), ("gids", "/proc/self/gid_map")):
        if not _mapped(path, ids):
            raise UidUnavailable(
                f"the sandbox {kind} {ids.start}-{ids.stop - 1} are not mapped in this user namespace "
                f"({path}): set {UIDS_ENV}=FIRST:COUNT to a mapped range"
            )
    _lock_folder(os.environ.get(LOCKS_ENV) or DEFAULT_LOCKS)


@lru_cache(maxsize=4096)
def _has_account(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


@dataclass
class UidLease:
    """A uid (and the gid of the same number) held for one sandbox until `release()`."""

    uid: int
    _fd: int = field(repr=False)

    def release(self) -> None:
        """Give the uid back (once every process of the sandbox is gone)."""
        with _lock:
            fd, self._fd = self._fd, -1
            _held.pop(self.uid, None)
        if fd >= 0:
            os.close(fd)


_lock = threading.Lock()
_held: dict[int, UidLease] = {}


def lease_uid() -> UidLease:
    """The lowest free sandbox uid, held until released; UidUnavailable when none is free."""
    check_uids()
    ids = uid_range()
    folder = _lock_folder(os.environ.get(LOCKS_ENV) or DEFAULT_LOCKS)
    with _lock:
        for uid in ids:
            if uid in _held or _has_account(uid):
                continue
            fd = os.open(folder / str(uid), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)  # another runner's sandbox has it
                continue
            lease = UidLease(uid, fd)
            _held[uid] = lease
            return lease
    raise UidUnavailable(f"all {len(ids)} sandbox uids ({ids.start}-{ids.stop - 1}) are in use")


def _forget_in_child() -> None:
    """In a forked child: close the inherited lease files, which would keep the parent's leases held
    (and start with a fresh lock: another thread of the parent may have held it at the fork)."""
    global _lock
    _lock = threading.Lock()
    for lease in list(_held.values()):
        if lease._fd >= 0:
            os.close(lease._fd)
            lease._fd = -1
    _held.clear()


os.register_at_fork(after_in_child=_forget_in_child)

__all__ = [
    "DEFAULT_LOCKS",
    "DEFAULT_UIDS",
    "LOCKS_ENV",
    "UIDS_ENV",
    "UidLease",
    "UidUnavailable",
    "check_uids",
    "dedicated_uids",
    "lease_uid",
    "uid_range",
]
