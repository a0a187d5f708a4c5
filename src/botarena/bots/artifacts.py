"""Bots as content-addressed artifacts: the files a bot spec names, packed into one canonical archive
that the store keeps by the sha256 of its bytes, and that workers on any machine fetch, check and
unpack into a local cache instead of reading the entrant's original paths.

    packed = pack_spec("bots/mybot/", game)   # PackedBot(data, digest, run_spec="{artifact}")
    store.put_artifact(packed.digest, packed.data)
    ...                                       # on a worker, in another directory or machine:
    specs = materialize_specs(task.specs, task.artifacts, store_fetcher(task.artifact_source))

The archive is canonical (entries sorted, times, owners and names zeroed, modes 0o644/0o755 keeping
only the exec bit, gzip without a time or name), so the same files always give the same digest and
an edited file gives another: the digest is the bot's version. Packing reads what the entrant
controls by descriptor and never follows a link (bots/nofollow.py): a symlink, a hard link, a special
file, or a file swapped while the folder is read is refused in one line, never packed.

A worker trusts nothing in what it fetches: the bytes must hash to the digest the task names (a
tampered store must never run other code), and however the archive was made, unpacking creates only
plain files and folders inside the cache entry (no absolute names, no `..`, no links, no devices,
bounded size and count). Entries are unpacked into a temporary folder and renamed into place, so
worker processes racing on one machine see a whole entry or none; unpacked files are read-only.
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import io
import os
import re
import shlex
import shutil
import stat
import sys
import tarfile
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from botarena.bots.nofollow import Folder, Listed
from botarena.bots.resolve import CPP_SUFFIXES, BotSpecError, command_files, split_command

if TYPE_CHECKING:
    from botarena.core.game import GameInfo

PLACEHOLDER = "{artifact}"
"""Stands in a run spec for the folder the worker unpacked the artifact to."""
MAX_PACKED_BYTES = 64 << 20
"""Largest archive (compressed) a bot may be."""
MAX_UNPACKED_BYTES = 256 << 20
"""Largest total size of a bot's files, checked when packing and again when unpacking."""
MAX_FILES = 10_000
"""Most files (and folders) a bot may have."""
MAX_DEPTH = 100
"""Deepest nesting of folders a bot may have (each level holds a descriptor while it is packed)."""
SKIPPED = frozenset({"__pycache__", ".git"})
"""Folders never packed (nor opened): caches and version control, not the bot."""
CACHE_ENV = "BOTARENA_CACHE_DIR"
_DIGEST = re.compile(r"[0-9a-f]{64}")
Fetch = Callable[[str], bytes]


class ArtifactError(BotSpecError):
    """An artifact that cannot be used: missing from the store, not matching its digest, or an archive
    that would unpack outside its folder (the message names the digest). Not worth retrying."""


class ArtifactUnavailable(RuntimeError):
    """The store holding an artifact could not be reached (worth retrying: the match is played again)."""


class ArtifactCacheError(RuntimeError):
    """The worker's artifact cache cannot take an artifact: its disk is full, over its quota, read-only
    or not writable. A fault of the worker's machine, never of the bot (whose size the caps bound):
    the match is played elsewhere or later, never recorded as failed."""


CACHE_ERRNOS: dict[int, str] = {
    errno.ENOSPC: "full",
    errno.EDQUOT: "over its quota",
    errno.EROFS: "read-only",
    errno.EACCES: "not writable",
    errno.EPERM: "not writable",
}
"""What an OSError's errno says about the artifact cache's disk (`ArtifactCacheError`)."""


@dataclass(frozen=True)
class PackedBot:
    """A bot's files as a canonical archive, and the spec that runs them once unpacked."""

    data: bytes = field(repr=False)
    digest: str  # sha256 of `data`, hex
    run_spec: str  # the spec with PLACEHOLDER for the unpacked folder
    root: Path  # the folder the archive's names are relative to
    files: int  # regular files in the archive


# -- packing (the coordinator) ---------------------------------------------------------------------


def pack_spec(spec: str, game: GameInfo[Any]) -> PackedBot | None:
    """The files `spec` names, packed; None for a spec that names no files (a starter bot, a URL, a
    command of system programs). Raises BotSpecError (one line naming the path and what it is) for
    what cannot be shipped: any symlink or hard link (packing never follows one: nofollow.py), a
    special file, a file replaced while it was read, more than the caps."""
    if spec in game.starter_bots or spec.startswith(("http://", "https://")):
        return None
    if spec.startswith("cmd:"):
        return _pack_command(spec[4:])
    path = Path(spec)
    # isdir/isfile follow a link, but only to choose the kind of spec: what is packed is opened
    # again from the root's descriptor, without following anything. (os.path's answer False where
    # Path's would raise, e.g. for a name longer than the system allows.)
    if os.path.isdir(path):
        return _pack(Path(os.path.abspath(path)), [()], PLACEHOLDER)
    if os.path.isfile(path):
        source = Path(os.path.abspath(path))
        cpp = path.suffix.lower() in CPP_SUFFIXES  # its headers beside it are part of its build
        return _pack(source.parent, [(source.name,)], f"{PLACEHOLDER}/{source.name}", headers=cpp)
    if any(ch.isspace() for ch in spec):
        return _pack_command(spec)
    return None


def pack_folder(folder: Path) -> PackedBot:
    """The whole of `folder` (but SKIPPED caches), packed as a folder spec is: an arena upload once it
    is unpacked (`botarena.arena.archive.pack_upload`). The same files always give the same bytes."""
    return _pack(Path(os.path.abspath(folder)), [()], PLACEHOLDER)


def _pack_command(command: str) -> PackedBot | None:
    """A command line's own files (program and path arguments) under their common parent folder; the
    run spec is the command with those arguments pointing into the artifact."""
    argv = split_command(command)
    files = [path for path in command_files(argv) if not _runtime_file(path)]
    if not files:
        return None
    # `..` is taken as written: the packed file is the one under the root by name, never a link's
    normal = {path: Path(os.path.normpath(path)) for path in files}
    root = Path(os.path.commonpath([_folder_or_parent(path) for path in normal.values()]))
    mapping = {path: _under(root, real) for path, real in normal.items()}
    rewritten = [_rewrite_arg(arg, mapping) for arg in argv]
    named = [real.relative_to(root).parts for real in normal.values()]
    return _pack(root, named, "cmd:" + shlex.join(rewritten))


def _folder_or_parent(path: Path) -> Path:
    """`path` if it is a folder (not a link to one), else the folder holding it."""
    try:
        return path if stat.S_ISDIR(os.lstat(path).st_mode) else path.parent
    except OSError:
        return path.parent


def _runtime_file(path: Path) -> bool:
    """An interpreter or runtime rather than the bot's own file: the Python installation running
    botarena (a venv's `python`), or a program found on PATH by its name. Workers have their own.
    (Links are followed to decide this: such a file is never packed, and the sandbox shows the
    Python installation to every bot anyway.)"""
    prefixes = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    real = path.resolve()
    if any(real.is_relative_to(prefix) for prefix in prefixes):
        return True
    found = shutil.which(path.name)
    return found is not None and Path(found).resolve() == real and path.is_file()


def _under(root: Path, path: Path) -> str:
    relative = path.relative_to(root).as_posix()
    return PLACEHOLDER if relative == "." else f"{PLACEHOLDER}/{relative}"


def _rewrite_arg(arg: str, mapping: dict[Path, str]) -> str:
    """`arg` with the paths `command_files` found in it replaced (the whole argument, the value of
    `--opt=path`, or parts of `a:b`)."""

    def swap(candidate: str) -> str:
        if not candidate or candidate.startswith("-"):
            return candidate
        return mapping.get(Path(candidate).absolute(), candidate)

    whole = swap(arg)
    if whole != arg:
        return whole
    if "=" in arg:
        key, value = arg.split("=", 1)
        if swap(value) != value:
            return f"{key}={swap(value)}"
    if ":" in arg:
        return ":".join(swap(part) for part in arg.split(":"))
    return arg


@dataclass
class _Entry:
    name: str  # posix, relative to the root
    data: bytes | None = field(repr=False)  # None for a folder
    mode: int


def _pack(root: Path, named: Iterable[tuple[str, ...]], run_spec: str, *, headers: bool = False) -> PackedBot:
    """Pack what `named` names under `root` (each a path's parts below it; () is the whole root), and
    with `headers` the C++ headers beside the named file. Every path is read by descriptor from the
    root, which is opened once and must not itself be a link (nofollow.py)."""
    packer = _Packer(root)
    with Folder.open_root(root) as top:
        for parts in named:
            packer.add_named(top, parts)
        if headers:
            packer.add_headers(top)
    data = _archive(sorted(packer.entries.values(), key=lambda entry: entry.name))
    if len(data) > MAX_PACKED_BYTES:
        raise BotSpecError(f"{root}: the bot packs to {_mib(len(data))}, more than {_mib(MAX_PACKED_BYTES)}")
    files = sum(1 for entry in packer.entries.values() if entry.data is not None)
    return PackedBot(data, hashlib.sha256(data).hexdigest(), run_spec, root, files)


def _mib(size: int) -> str:
    return f"{size / (1 << 20):.1f} MiB"


class _Packer:
    """The archive's entries as they are read from an entrant's root, within the size and count caps.

    Folders on the way to a named path are opened but not entries themselves (unpacking creates
    them); a named folder and every folder below it are."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.entries: dict[str, _Entry] = {}
        self.total = 0  # bytes read so far

    def add_named(self, top: Folder, parts: tuple[str, ...]) -> None:
        """The file or folder at `parts` below the root (the root's whole tree for ())."""
        if not parts:
            self._add_tree(top, "", depth=0)
            return
        opened: list[Folder] = []
        try:
            folder = top
            for part in parts[:-1]:
                folder = folder.subfolder(folder.lstat(part))
                opened.append(folder)
            self._add_listed(folder, folder.lstat(parts[-1]), "/".join(parts), depth=len(parts))
        finally:
            for folder in opened:
                folder.close()

    def add_headers(self, top: Folder) -> None:
        """The C++ headers in the root folder (beside the player's source); a link is refused."""
        from botarena.bots.cppkit import HEADER_SUFFIXES

        for listed in top.list():
            if PurePosixPath(listed.name).suffix in HEADER_SUFFIXES and not listed.is_folder:
                self._add_file(top, listed, listed.name)

    def _add_tree(self, folder: Folder, prefix: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise BotSpecError(f"{folder.shown}: the bot's folders are nested more than {MAX_DEPTH} deep")
        for listed in folder.list():
            if listed.name in SKIPPED and not stat.S_ISREG(listed.info.st_mode):
                continue  # never opened, so a link by that name is not followed either
            self._add_listed(folder, listed, prefix + listed.name, depth)

    def _add_listed(self, folder: Folder, listed: Listed, name: str, depth: int) -> None:
        if not listed.is_folder:
            self._add_file(folder, listed, name)
            return
        self._add(_Entry(name, None, 0o755))
        with folder.subfolder(listed) as inner:
            self._add_tree(inner, name + "/", depth + 1)

    def _add_file(self, folder: Folder, listed: Listed, name: str) -> None:
        room = MAX_UNPACKED_BYTES - self.total
        data, executable = folder.read(listed, room)
        if len(data) > room:
            raise BotSpecError(f"{self.root}: the bot's files are more than {_mib(MAX_UNPACKED_BYTES)}")
        self.total += len(data)
        self._add(_Entry(name, data, 0o755 if executable else 0o644))

    def _add(self, entry: _Entry) -> None:
        self.entries[entry.name] = entry
        if len(self.entries) > MAX_FILES:
            raise BotSpecError(f"the bot has more than {MAX_FILES} files and folders")


def _archive(entries: Sequence[_Entry]) -> bytes:
    """The canonical tar.gz of `entries` (sorted by name)."""
    packed = io.BytesIO()
    with (
        gzip.GzipFile(filename="", mode="wb", fileobj=packed, mtime=0, compresslevel=9) as gz,
        tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for entry in entries:
            info = tarfile.TarInfo(entry.name)
            info.mtime = 0
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mode = entry.mode
            if entry.data is None:
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
                continue
            info.size = len(entry.data)
            tar.addfile(info, io.BytesIO(entry.data))
    return packed.getvalue()


# -- unpacking (the workers) -----------------------------------------------------------------------


def default_cache_root() -> Path:
    """$BOTARENA_CACHE_DIR/artifacts, else $XDG_CACHE_HOME/botarena/artifacts, else
    ~/.cache/botarena/artifacts (the C++ kit's builds sit beside it)."""
    own = os.environ.get(CACHE_ENV)
    if own:
        return Path(own) / "artifacts"
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "botarena" / "artifacts"


def check_digest(digest: str) -> str:
    """`digest` if it is a sha256 in lowercase hex (it becomes a folder name: nothing else may)."""
    if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
        raise ArtifactError(f"not an artifact digest: {str(digest)[:80]!r}")
    return digest


def fetched(digest: str, fetch: Fetch) -> bytes:
    """Artifact `digest`'s bytes from `fetch`, checked against the digest (ArtifactError if they do
    not hash to it: a tampered store must never run, nor call, anything else). Not cached: for small
    artifacts read as they are (a URL entry's config), not unpacked."""
    data = fetch(check_digest(digest))
    actual = hashlib.sha256(data).hexdigest()
    if actual != digest:
        raise ArtifactError(f"artifact {digest} does not match its digest (the bytes hash to {actual})")
    return data


class ArtifactCache:
    """Unpacked artifacts on this machine, one read-only folder per digest: `<root>/<digest>/`."""

    def __init__(self, root: str | Path | None = None) -> None:
        self.root = Path(root) if root is not None else default_cache_root()

    def path(self, digest: str) -> Path:
        return self.root / check_digest(digest)

    def unpacked(self, digest: str, fetch: Fetch) -> Path:
        """The folder holding artifact `digest`, fetched (`fetch(digest)` -> bytes), checked and
        unpacked on a miss. Raises ArtifactError for bytes that do not hash to `digest` or an unsafe
        archive, ArtifactCacheError when the cache's disk cannot take it (full, read-only, ...), and
        whatever `fetch` raises."""
        target = self.path(digest)
        if os.path.isdir(target):
            return target
        data = fetched(digest, fetch)
        try:
            self._unpack(data, digest, target)
        except OSError as exc:
            raise self._cache_error(exc) from None
        return target

    def _unpack(self, data: bytes, digest: str, target: Path) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=f".{digest[:12]}-", dir=self.root))
        try:
            extract(data, scratch, digest)
            _read_only(scratch)
            try:
                os.rename(scratch, target)  # atomic; fails if another process got there first
            except OSError:
                if not target.is_dir():
                    raise
        finally:
            if scratch.exists():
                _remove(scratch)

    def _cache_error(self, exc: OSError) -> Exception:
        """The one-line reason the cache's disk gave, as ArtifactCacheError when it is the disk's
        (full, read-only, ...); any other OSError as it was."""
        state = CACHE_ERRNOS.get(exc.errno or 0)
        if state is None:
            return exc
        return ArtifactCacheError(
            f"the artifact cache at {self.root} is {state}: {os.strerror(exc.errno or 0)}"
        )


def extract(data: bytes, into: Path, digest: str = "") -> None:
    """Unpack the tar.gz `data` into the empty folder `into`, creating nothing but plain files and
    folders inside it (ArtifactError naming `digest` for anything else, or for more than the caps)."""
    what = f"artifact {digest}" if digest else "artifact"
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            total = 0
            for count, member in enumerate(tar, start=1):
                total += max(member.size, 0)
                if count > MAX_FILES or total > MAX_UNPACKED_BYTES:
                    raise ArtifactError(
                        f"{what} unpacks to more than {MAX_FILES} files or {_mib(MAX_UNPACKED_BYTES)}"
                    )
                _extract_member(tar, member, into, what)
    except (tarfile.TarError, EOFError, OSError, gzip.BadGzipFile, ValueError) as exc:
        if isinstance(exc, ArtifactError):
            raise
        if isinstance(exc, OSError) and exc.errno in CACHE_ERRNOS:
            raise  # the disk's fault, not the archive's: the cache says so (ArtifactCache.unpacked)
        raise ArtifactError(f"{what} is not a readable archive: {type(exc).__name__}: {exc}") from None


def _safe_name(name: str, what: str) -> PurePosixPath:
    path = PurePosixPath(name)
    if not name or path.is_absolute() or ".." in path.parts or "\0" in name or path == PurePosixPath("."):
        raise ArtifactError(f"{what} holds an unsafe name {name[:200]!r}")
    return path


def _extract_member(tar: tarfile.TarFile, member: tarfile.TarInfo, into: Path, what: str) -> None:
    name = _safe_name(member.name, what)
    if not (member.isreg() or member.isdir()):
        raise ArtifactError(f"{what} holds {member.name[:200]!r}, which is not a plain file or folder")
    if hasattr(tarfile, "data_filter"):  # the standard library's own checks as well (Python >= 3.11.4)
        try:
            tarfile.data_filter(member, str(into))
        except tarfile.FilterError as exc:
            raise ArtifactError(f"{what}: {exc}") from None
    target = into.joinpath(*name.parts)
    parent = target.parent
    _make_dirs(into, parent, what)
    if member.isdir():
        _make_dirs(into, target, what)
        return
    source = tar.extractfile(member)
    assert source is not None
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(target, flags, 0o755 if member.mode & 0o111 else 0o644)
    except FileExistsError:
        raise ArtifactError(f"{what} holds {member.name[:200]!r} twice") from None
    with os.fdopen(fd, "wb") as out:
        remaining = member.size
        while remaining > 0:
            chunk = source.read(min(remaining, 1 << 20))
            if not chunk:
                raise ArtifactError(f"{what} ends inside {member.name[:200]!r}")
            out.write(chunk)
            remaining -= len(chunk)


def _make_dirs(into: Path, folder: Path, what: str) -> None:
    """Create `folder` (inside `into`) and its parents, none of which may be anything but a folder."""
    current = into
    for part in folder.relative_to(into).parts:
        current = current / part
        try:
            os.mkdir(current, 0o755)
        except FileExistsError:
            if not stat.S_ISDIR(os.lstat(current).st_mode):
                raise ArtifactError(f"{what} puts a folder where a file is: {part!r}") from None


def _read_only(folder: Path) -> None:
    for here, dirs, files in os.walk(folder):
        for name in files:
            path = os.path.join(here, name)
            os.chmod(path, 0o555 if os.stat(path).st_mode & 0o111 else 0o444)
        for name in dirs:
            os.chmod(os.path.join(here, name), 0o555)
    os.chmod(folder, 0o555)


def _remove(folder: Path) -> None:
    """Remove a (read-only) scratch folder."""
    for here, dirs, _ in os.walk(folder):
        os.chmod(here, 0o755)
        for name in dirs:
            os.chmod(os.path.join(here, name), 0o755)
    shutil.rmtree(folder, ignore_errors=True)


# -- the specs a worker runs (the store layer fetches: botarena.store.artifacts.store_fetcher) -------


def materialize(run_spec: str, folder: Path) -> str:
    """`run_spec` with PLACEHOLDER replaced by `folder` (a command's arguments re-quoted)."""
    if run_spec.startswith("cmd:"):
        argv = split_command(run_spec[4:])
        return "cmd:" + shlex.join(arg.replace(PLACEHOLDER, str(folder)) for arg in argv)
    return run_spec.replace(PLACEHOLDER, str(folder))


_default_cache: ArtifactCache | None = None


def materialize_specs(
    specs: Sequence[str],
    artifacts: Sequence[str | None],
    fetch: Fetch | None,
    *,
    cache: ArtifactCache | None = None,
) -> tuple[str, ...]:
    """The specs a worker resolves: each seat with an artifact has it unpacked in `cache` (default:
    `default_cache_root()`), fetched with `fetch` on a miss (a worker's is
    `botarena.store.artifacts.store_fetcher(task.artifact_source)`), and PLACEHOLDER replaced.
    Seats without one (or tasks made before artifacts) keep their spec as it is."""
    global _default_cache
    if cache is None:
        if _default_cache is None or _default_cache.root != default_cache_root():
            _default_cache = ArtifactCache()
        cache = _default_cache
    out: list[str] = []
    for i, spec in enumerate(specs):
        digest = artifacts[i] if i < len(artifacts) else None
        if digest is None:
            out.append(spec)
            continue
        if fetch is None:
            raise ArtifactError(f"artifact {digest}: the task names no store to fetch it from")
        out.append(materialize(spec, cache.unpacked(digest, fetch)))
    return tuple(out)


__all__ = [
    "PLACEHOLDER",
    "ArtifactCache",
    "ArtifactCacheError",
    "ArtifactError",
    "ArtifactUnavailable",
    "PackedBot",
    "check_digest",
    "default_cache_root",
    "extract",
    "fetched",
    "materialize",
    "materialize_specs",
    "pack_folder",
    "pack_spec",
]
