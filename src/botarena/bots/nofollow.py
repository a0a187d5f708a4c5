"""Reading files an entrant controls without ever following a link (issue 25).

Packing a bot (bots/artifacts.py) reads a folder whose contents a stranger made. Whatever is in it, a
path is looked up by the kernel once: the entrant's root folder is opened by descriptor with
O_NOFOLLOW, and every file and folder under it is opened relative to its parent's descriptor, again
with O_NOFOLLOW (and O_NONBLOCK, so that a FIFO swapped in cannot hang the packer), then checked on
the descriptor itself (`fstat`): a regular file with a single name, or a folder, and the very inode
the listing saw. Contents are read from that checked descriptor, never by path again, so a symlink,
a hard link to another file, or a file swapped in while the folder is being read is refused, never
read.

    with Folder.open_root(Path("bots/alice")) as root:
        for name, info in root.list():
            ...  # root.read(name, info, limit) / root.subfolder(name, info)

The path *above* the root is the organizer's (the folder they named, or the folder holding the file
they named): it is resolved as usual. The root itself must not be a symlink (it may be the entrant's
own: an uploaded tree's top folder), nor may anything under it.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from botarena.bots.resolve import BotSpecError

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_READ = os.O_RDONLY | _NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
_FOLDER = _READ | getattr(os, "O_DIRECTORY", 0)
_CHUNK = 1 << 20
_LOOP = {errno.ELOOP, errno.EMLINK}  # what O_NOFOLLOW on a symlink gives (Linux, the BSDs)


class UnsafeFileError(BotSpecError):
    """A path packing refuses to read: a symlink, a hard link, a FIFO, a socket, a device, or one that
    was replaced while it was read (the message names the path and what it is, in one line)."""


@dataclass(frozen=True)
class Listed:
    """One entry of a folder as its listing saw it (`lstat`: a link is seen as a link)."""

    name: str
    info: os.stat_result

    @property
    def is_folder(self) -> bool:
        return stat.S_ISDIR(self.info.st_mode)


def kind_of(mode: int) -> str:
    """What a file of `mode` is, in words, for a refusal."""
    kinds = (
        (stat.S_ISLNK, "a symlink"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISREG, "a regular file"),
    )
    return next((words for test, words in kinds if test(mode)), "an unknown kind of file")


def refuse_kind(shown: Path, mode: int) -> UnsafeFileError:
    """The one-line refusal of a path that is neither a regular file nor a folder."""
    if stat.S_ISLNK(mode):
        return UnsafeFileError(f"{shown} is a symlink; packing follows no link (put the file itself there)")
    return UnsafeFileError(f"{shown} is {kind_of(mode)}, not a regular file or folder; it cannot be packed")


def _changed(shown: Path) -> UnsafeFileError:
    return UnsafeFileError(f"{shown} was replaced while it was being packed; pack it again")


def _same_file(seen: os.stat_result, opened: os.stat_result) -> bool:
    return (seen.st_dev, seen.st_ino) == (opened.st_dev, opened.st_ino)


def _is_link(lstat: Callable[[], os.stat_result]) -> bool:
    """Whether the path `lstat` looks at is a symlink now (False if it cannot be looked at)."""
    try:
        return stat.S_ISLNK(lstat().st_mode)
    except OSError:
        return False


class Folder:
    """A folder held by its descriptor; everything under it is opened relative to that descriptor."""

    def __init__(self, fd: int, shown: Path) -> None:
        self.fd = fd
        self.shown = shown  # for messages only: never opened by this path

    @classmethod
    def open_root(cls, path: Path) -> Folder:
        """Open the entrant's root folder `path`: the components above it are followed (they are the
        organizer's), its last one is not (UnsafeFileError if it is a symlink or not a folder)."""
        try:
            fd = os.open(path, _FOLDER)
        except OSError as exc:
            # O_NOFOLLOW|O_DIRECTORY on a symlink is ENOTDIR on Linux, ELOOP elsewhere
            if exc.errno in _LOOP or _is_link(lambda: os.lstat(path)):
                raise UnsafeFileError(
                    f"{path} is a symlink; packing follows no link (name the folder it leads to instead)"
                ) from None
            if exc.errno == errno.ENOTDIR:
                raise UnsafeFileError(f"{path} is not a folder") from None
            if exc.errno == errno.ENOENT:
                raise UnsafeFileError(f"{path} does not exist") from None
            raise UnsafeFileError(f"cannot open {path}: {exc.strerror or exc}") from None
        folder = cls(fd, path)
        info = os.fstat(fd)
        if not stat.S_ISDIR(info.st_mode):  # a platform without O_DIRECTORY
            folder.close()
            raise refuse_kind(path, info.st_mode)
        return folder

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> Folder:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def list(self) -> list[Listed]:
        """The folder's entries sorted by name, each as `lstat` sees it (nothing followed)."""
        try:
            with os.scandir(self.fd) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError as exc:
            raise UnsafeFileError(f"cannot list {self.shown}: {exc.strerror or exc}") from None
        listed: list[Listed] = []
        for entry in entries:
            try:
                listed.append(Listed(entry.name, entry.stat(follow_symlinks=False)))
            except OSError:  # removed since the listing
                raise _changed(self.shown / entry.name) from None
        return listed

    def lstat(self, name: str) -> Listed:
        """The entry `name` as `lstat` sees it (for a path the organizer named rather than listed)."""
        try:
            return Listed(name, os.stat(name, dir_fd=self.fd, follow_symlinks=False))
        except FileNotFoundError:
            raise UnsafeFileError(f"{self.shown / name} does not exist") from None
        except OSError as exc:
            raise UnsafeFileError(f"cannot look at {self.shown / name}: {exc.strerror or exc}") from None

    def subfolder(self, listed: Listed) -> Folder:
        """The folder `listed` names, opened and checked to be the folder the listing saw."""
        shown = self.shown / listed.name
        if not listed.is_folder:
            raise refuse_kind(shown, listed.info.st_mode)
        fd = self._open(listed.name, _FOLDER)
        folder = Folder(fd, shown)
        opened = os.fstat(fd)
        if not stat.S_ISDIR(opened.st_mode) or not _same_file(listed.info, opened):
            folder.close()
            raise _changed(shown)
        return folder

    def read(self, listed: Listed, limit: int) -> tuple[bytes, bool]:
        """The contents of the regular file `listed` and whether it is executable, read from a
        descriptor checked to be that file with a single name. More than `limit` bytes means the
        file is larger than that: only `limit` + 1 are read."""
        shown = self.shown / listed.name
        if not stat.S_ISREG(listed.info.st_mode):  # never opened: a FIFO or a device may act on open
            raise refuse_kind(shown, listed.info.st_mode)
        fd = self._open(listed.name, _READ)
        try:
            opened = os.fstat(fd)
            if not stat.S_ISREG(opened.st_mode) or not _same_file(listed.info, opened):
                raise _changed(shown)
            if opened.st_nlink != 1:
                raise _hard_link(shown, opened.st_nlink)
            # The link count alone can lie: a hard link to a host file, opened while it was here,
            # has one name again once the entrant renames its own file back over it. So the name
            # must still be this file, and the file have one name, after the open: then its only
            # name is in the entrant's folder, and it is the entrant's own file.
            now = self._lstat(listed.name, shown)
            if not _same_file(now, opened):
                raise _changed(shown)
            if now.st_nlink != 1:
                raise _hard_link(shown, now.st_nlink)
            data = _read_at_most(fd, limit, shown)
        finally:
            os.close(fd)
        return data, bool(opened.st_mode & 0o111)

    def _lstat(self, name: str, shown: Path) -> os.stat_result:
        """The entry `name` as it is now (not following a link); gone means it was replaced."""
        try:
            return os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except OSError:
            raise _changed(shown) from None

    def _open(self, name: str, flags: int) -> int:
        """Open the listed entry `name`; what went wrong is said of it in one line."""
        try:
            return os.open(name, flags, dir_fd=self.fd)
        except OSError as exc:
            shown = self.shown / name
            if exc.errno in _LOOP or _is_link(lambda: os.stat(name, dir_fd=self.fd, follow_symlinks=False)):
                raise refuse_kind(shown, stat.S_IFLNK) from None
            if exc.errno == errno.ENXIO:  # a socket (O_NONBLOCK opens a FIFO without a writer)
                raise refuse_kind(shown, stat.S_IFSOCK) from None
            if exc.errno in (errno.ENOENT, errno.ENOTDIR):  # gone, or a file where a folder was
                raise _changed(shown) from None
            raise UnsafeFileError(f"cannot open {shown}: {exc.strerror or exc}") from None


def _hard_link(shown: Path, names: int) -> UnsafeFileError:
    return UnsafeFileError(
        f"{shown} is a hard link (the file has {names} names); packing takes only files with a "
        "single name (copy it instead)"
    )


def _read_at_most(fd: int, limit: int, shown: Path) -> bytes:
    """The file open at `fd`, to its end or to `limit` + 1 bytes, whichever comes first (bounded as
    it is read: the file may still be growing)."""
    chunks: list[bytes] = []
    total = 0
    try:
        while total <= limit and (chunk := os.read(fd, min(_CHUNK, limit + 1 - total))):
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise UnsafeFileError(f"cannot read {shown}: {exc.strerror or exc}") from None
    return b"".join(chunks)


__all__ = ["Folder", "Listed", "UnsafeFileError", "kind_of", "refuse_kind"]
