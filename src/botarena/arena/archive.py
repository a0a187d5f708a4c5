"""The checks an uploaded bot passes on its bytes, and its unpacking (`specs/arena.md`: Uploads and the
archive checks; goal G9).

The server runs this on the request's bytes, before anything is written under the upload's name; no
user code ever runs here. What the bytes are is decided by their content (magic bytes), never by the
file name:

- a **zip** (`PK\\x03\\x04`, or `PK\\x05\\x06` for an empty one): read by this module's own parser of the
  central directory and of every local header, so each forgery (a local name that is not the central
  one, entries sharing bytes, a size or CRC that lies) is seen as such and refused with its own code;
- a **tar.gz** (`\\x1f\\x8b`) or a plain **tar** (`ustar` at offset 257);
- a **native executable** (ELF, Mach-O, PE) sent alone: it is placed as the entry `run` (executable),
  or refused `native_not_allowed` when the policy forbids prebuilt binaries;
- anything else is a **single script** when it is UTF-8 text without NUL: it keeps its name when that
  name is one of `FOLDER_ENTRIES`, else it is placed by its `#!` line (`python` -> `bot.py`, `node` ->
  `bot.js`, any other interpreter -> `run`, executable) or else by its suffix (`.py` -> `bot.py`, `.js` ->
  `bot.js`); a text that none of these places is `not_archive` (the detail says how to name it).

Every code of `ArchiveRejection` has its check here; `UploadRejected.detail` is one line naming the
entry as the archive spells it. Sizes are never taken from a header alone: every zip entry is inflated
once (chunk by chunk, bounded by the policy's caps and its ratio, its CRC checked) and every tar member
read, so a forged size or a bomb is seen while it inflates. The ratio (inflated over compressed
size) is judged per zip entry, on what it declares and on what it inflates to, and over the whole
stream of a tar.gz (whose members share one compression); an entry of at most `RATIO_FLOOR` bytes is
never refused for it. Zip entries may be stored or deflated (zip64 records are read); other methods
are `not_archive`. A single top folder is flattened (once);
an entry point deeper than that is `nested_too_deep`, and archives inside the archive are plain files.
Names are compared after Unicode NFC normalisation and written in that form. Entries under a top
`__MACOSX/` folder (the resource forks macOS's Compress adds) are dropped.

    checked = check_upload(data, "bot.zip", policy)      # UploadRejected(code, detail) if refused
    packed = pack_upload(checked, policy)                # the canonical artifact: its digest is the version

`unpack_checked` writes the entries into an empty private folder with the same caps enforced again
while writing: regular files and folders only, modes 0o644/0o755 (the exec bit kept), every name
created relative to its parent's descriptor with O_NOFOLLOW and O_EXCL, so nothing is written through
a link or outside the folder. `pack_upload` then packs the folder with `bots.artifacts.pack_folder`,
whose canonical tar.gz (sorted entries, zeroed times and owners) is also the team's source archive for
`GET .../versions/{vid}/source`: the same files give the same bytes and digest whether they came as a
zip, a tar.gz or a folder.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import socket
import stat
import struct
import tarfile
import tempfile
import unicodedata
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import IO

from botarena.arena.policy import ArenaPolicy, size_text
from botarena.arena.vocabulary import ArchiveRejection
from botarena.bots.artifacts import PackedBot, pack_folder
from botarena.bots.resolve import FOLDER_ENTRIES

RATIO_FLOOR = 64 * 1024
"""An entry that inflates to at most this many bytes is never refused for its ratio: a small text
compresses as well as it likes (64 KiB of spaces is 300:1). A bomb must be bigger than this."""
HEAD_BYTES = 64
"""The first bytes of every file kept to recognise a native executable."""
NAME_MAX = 255
"""The longest name of one path component the file systems take, in bytes."""
MACOS_JUNK = "__MACOSX"
_CHUNK = 256 * 1024
_EXECUTABLE_ENTRIES = frozenset({"run", "bot"})
_SCRIPT_SUFFIXES = {".py": "bot.py", ".js": "bot.js"}
_SHEBANGS = (("python", "bot.py"), ("node", "bot.js"))
_DRIVE = re.compile(r"^[A-Za-z]:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class UploadKind(StrEnum):
    FILE = "file"
    ZIP = "zip"
    TAR_GZ = "tar.gz"
    TAR = "tar"


class UploadRejected(ValueError):
    """An upload refused on its bytes: `code` is the spec's 422 code, `detail` one line naming the entry."""

    def __init__(self, code: ArchiveRejection, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


def _reject(code: ArchiveRejection, detail: str) -> UploadRejected:
    return UploadRejected(code, detail)


def _shown(name: str) -> str:
    """A name as a refusal quotes it: at most 200 characters, control characters and undecodable
    bytes escaped (`repr`), so the detail stays one printable line."""
    return repr(name[:200])


@dataclass(frozen=True)
class ZipBody:
    """Where a zip entry's compressed bytes are in the upload, and what they must inflate to."""

    offset: int  # of the compressed data (after the local header)
    compressed: int
    method: int  # 0 stored, 8 deflate
    crc: int


@dataclass(frozen=True)
class Entry:
    """One file or folder of a checked upload, under the name it is written as."""

    name: str  # posix, relative, NFC, the top folder flattened
    shown: str  # as the archive spells it (for messages)
    folder: bool
    executable: bool
    size: int  # measured: what inflating or reading gave
    body: ZipBody | int | None = None  # zip: where its bytes are; tar: the member's index; file: None


@dataclass(frozen=True)
class CheckedUpload:
    """An upload that passed every check: its bytes, what they are, and the entries they unpack to."""

    kind: UploadKind
    filename: str
    data: bytes = field(repr=False)
    entries: tuple[Entry, ...]
    entry_point: str  # the FOLDER_ENTRIES name the bot starts from
    total_bytes: int  # the unpacked size

    @property
    def files(self) -> int:
        return sum(1 for entry in self.entries if not entry.folder)


@dataclass
class _Raw:
    """A member as read from the archive, before the top folder is flattened."""

    shown: str
    parts: tuple[str, ...]
    folder: bool
    executable: bool
    size: int
    body: ZipBody | int | None
    head: bytes = b""


# -- the entry point ------------------------------------------------------------------------------


def check_upload(data: bytes, filename: str, policy: ArenaPolicy) -> CheckedUpload:
    """The upload `data` (sent as `filename`) checked against `policy`; raises UploadRejected with the
    spec's code and a one-line detail for anything refused."""
    if len(data) > policy.max_upload_bytes:
        raise _reject(
            ArchiveRejection.TOO_BIG,
            f"the upload is {size_text(len(data))}, more than the {size_text(policy.max_upload_bytes)} limit",
        )
    kind = sniff(data)
    if kind is UploadKind.ZIP:
        raws = _zip_members(data, policy)
    elif kind is UploadKind.FILE:
        raws = [_single_file(data, filename, policy)]
    else:
        raws = _tar_members(data, kind, policy)
    entries = _arrange(raws, policy)
    entry_point = _entry_point(entries)
    total = sum(entry.size for entry in entries)
    return CheckedUpload(kind, filename, data, entries, entry_point, total)


def sniff(data: bytes) -> UploadKind:
    """What `data` is by its first bytes: a zip, a tar.gz, a tar, or else a single file."""
    if data[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return UploadKind.ZIP
    if data[:2] == b"\x1f\x8b":
        return UploadKind.TAR_GZ
    if data[257:262] == b"ustar":
        return UploadKind.TAR
    return UploadKind.FILE


def native_kind(head: bytes) -> str | None:
    """The kind of native executable `head` (a file's first bytes) starts, or None."""
    if head[:4] == b"\x7fELF":
        return "an ELF executable"
    if head[:4] in (b"\xfe\xed\xfa\xce", b"\xfe\xed\xfa\xcf", b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe"):
        return "a Mach-O executable"
    # a fat Mach-O shares its magic with a Java class file, whose next word (its version) is >= 45
    if head[:4] == b"\xca\xfe\xba\xbe" and len(head) >= 8 and struct.unpack(">I", head[4:8])[0] < 45:
        return "a Mach-O executable"
    # "MZ" also starts texts ("MZ = 3"); a DOS header has NUL bytes in its first 64, a text never
    if head[:2] == b"MZ" and b"\0" in head[:64]:
        return "a Windows (PE) executable"
    return None


# -- names ----------------------------------------------------------------------------------------


def _name_parts(raw: bytes | str) -> tuple[str, tuple[str, ...]]:
    """An archive name checked and split: (as shown, NFC parts); () for the archive's root (`./`)."""
    if isinstance(raw, bytes):
        if b"\0" in raw:
            shown = raw.decode("utf-8", "replace")
            raise _reject(ArchiveRejection.NUL_OR_BAD_UTF8, f"{_shown(shown)} holds a NUL byte in its name")
        try:
            name = raw.decode("utf-8")
        except UnicodeDecodeError:
            shown = raw.decode("utf-8", "replace")
            raise _reject(ArchiveRejection.NUL_OR_BAD_UTF8, f"{_shown(shown)} is not a UTF-8 name") from None
    else:
        name = raw
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:  # tarfile's surrogateescape: the bytes were not UTF-8
            raise _reject(ArchiveRejection.NUL_OR_BAD_UTF8, f"{_shown(name)} is not a UTF-8 name") from None
    return name, _split_name(name)


def _split_name(name: str) -> tuple[str, ...]:
    if _CONTROL.search(name):
        raise _reject(ArchiveRejection.NUL_OR_BAD_UTF8, f"{_shown(name)} holds a control character")
    if "\\" in name:
        raise _reject(
            ArchiveRejection.BACKSLASH, f"{_shown(name)} holds a backslash (names use '/' between folders)"
        )
    if name.startswith("/") or _DRIVE.match(name):
        raise _reject(ArchiveRejection.ABSOLUTE_PATH, f"{_shown(name)} is an absolute path")
    parts = tuple(unicodedata.normalize("NFC", part) for part in name.split("/") if part not in ("", "."))
    if ".." in parts:
        raise _reject(ArchiveRejection.DOTDOT, f"{_shown(name)} climbs out of the archive with '..'")
    return parts


# -- single files ---------------------------------------------------------------------------------


def _single_file(data: bytes, filename: str, policy: ArenaPolicy) -> _Raw:
    """A file sent alone, placed under the entry name its kind allows (module docstring)."""
    base = filename.replace("\\", "/").rsplit("/", 1)[-1] or "upload"
    native = native_kind(data[:HEAD_BYTES])
    if native is not None:
        if not policy.allow_native:
            raise _reject(ArchiveRejection.NATIVE_NOT_ALLOWED, f"{_shown(base)} is {native}; {_NATIVE_RULE}")
        return _Raw(base, ("run",), False, True, len(data), None, data[:HEAD_BYTES])
    if b"\0" in data:
        raise _reject(ArchiveRejection.NOT_ARCHIVE, f"{_shown(base)} is {_NOT_KNOWN}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise _reject(ArchiveRejection.NOT_ARCHIVE, f"{_shown(base)} is {_NOT_KNOWN}") from None
    placed = _placed_name(base, text)
    return _Raw(base, (placed,), False, placed in _EXECUTABLE_ENTRIES, len(data), None, data[:HEAD_BYTES])


_NATIVE_RULE = "this competition takes no prebuilt binaries (upload the source)"
_NOT_KNOWN = "neither a zip, a tar.gz, a tar nor a script (UTF-8 text)"


def _placed_name(base: str, text: str) -> str:
    if base in FOLDER_ENTRIES:
        return base
    first = text.split("\n", 1)[0]
    if first.startswith("#!"):
        return next((name for word, name in _SHEBANGS if word in first), "run")
    suffix = os.path.splitext(base)[1].lower()
    if suffix in _SCRIPT_SUFFIXES:
        return _SCRIPT_SUFFIXES[suffix]
    raise _reject(
        ArchiveRejection.NOT_ARCHIVE,
        f"{_shown(base)} is a text of no known kind: name it {', '.join(FOLDER_ENTRIES[:4])}, "
        "or start it with a #! line",
    )


# -- zip ------------------------------------------------------------------------------------------

_EOCD = b"PK\x05\x06"
_CENTRAL = b"PK\x01\x02"
_LOCAL = b"PK\x03\x04"
_EOCD_SIZE = 22
_CENTRAL_FORMAT = struct.Struct("<4s6H3I5H2I")  # 46 bytes
_LOCAL_FORMAT = struct.Struct("<4s5H3I2H")  # 30 bytes
_UNIX = 3
_STORED, _DEFLATED, _AES = 0, 8, 99


@dataclass(frozen=True)
class _ZipRecord:
    """One central directory record, as its bytes say."""

    name: bytes
    flags: int
    method: int
    crc: int
    compressed: int
    size: int
    local: int  # offset of its local header
    system: int  # the "version made by" high byte: 3 is Unix
    attributes: int  # external attributes


def _not_zip(detail: str) -> UploadRejected:
    return _reject(ArchiveRejection.NOT_ARCHIVE, f"not a readable zip: {detail}")


def _zip_members(data: bytes, policy: ArenaPolicy) -> list[_Raw]:
    count, directory = _end_of_central(data)
    if count > policy.max_entries:
        raise _too_many(count, policy)
    records = _central_records(data, count, directory)
    members = [_zip_member(data, record) for record in records]
    _check_overlaps(records, members, directory[0])
    _check_declared(members, records, policy)
    room = policy.max_unpacked_bytes
    for member, record in zip(members, records, strict=True):
        if not member.folder:
            _measure_zip(data, member, record, room, policy)
            room -= member.size
    return members


def _too_many(count: int, policy: ArenaPolicy) -> UploadRejected:
    return _reject(
        ArchiveRejection.TOO_MANY_ENTRIES,
        f"the archive holds {count} entries or more, more than the limit of {policy.max_entries}",
    )


def _end_of_central(data: bytes) -> tuple[int, tuple[int, int]]:
    """(entry count, (central directory offset, its size)) from the end-of-central-directory record:
    the last one whose comment ends exactly at the end of the upload (its zip64 form where it says so)."""
    at = len(data)
    while (at := data.rfind(_EOCD, max(0, len(data) - _EOCD_SIZE - 0xFFFF), at)) >= 0:
        fields = struct.unpack_from("<4s4H2IH", data, at) if at + _EOCD_SIZE <= len(data) else None
        if fields is None or at + _EOCD_SIZE + fields[7] != len(data):
            continue
        _, disk, cd_disk, here, total, size, offset, _comment = fields
        limit = at
        if 0xFFFF in (here, total) or 0xFFFFFFFF in (size, offset):
            disk, cd_disk, here, total, size, offset, limit = _zip64_end(data, at)
        if disk or cd_disk or here != total:
            raise _not_zip("a multi-part archive")
        if offset + size > limit:
            raise _not_zip("its central directory lies outside the file")
        return total, (offset, size)
    raise _not_zip("no end of central directory record")


_ZIP64_LOCATOR = struct.Struct("<4sIQI")  # 20 bytes, just before the end record
_ZIP64_END = struct.Struct("<4sQ2H2I4Q")  # 56 bytes


def _zip64_end(data: bytes, eocd_at: int) -> tuple[int, int, int, int, int, int, int]:
    """The zip64 end record's (disk, central disk, entries here, entries, size, offset, its own offset)."""
    locator_at = eocd_at - _ZIP64_LOCATOR.size
    if locator_at < 0 or data[locator_at : locator_at + 4] != b"PK\x06\x07":
        raise _not_zip("a zip64 end record without its locator")
    _, _, end_at, _ = _ZIP64_LOCATOR.unpack_from(data, locator_at)
    if end_at + _ZIP64_END.size > locator_at or data[end_at : end_at + 4] != b"PK\x06\x06":
        raise _not_zip("a zip64 locator pointing nowhere")
    fields = _ZIP64_END.unpack_from(data, end_at)
    return (*fields[4:10], end_at)


def _central_records(data: bytes, count: int, directory: tuple[int, int]) -> list[_ZipRecord]:
    offset, size = directory
    end = offset + size
    records: list[_ZipRecord] = []
    at = offset
    for _ in range(count):
        record, at = _central_record(data, at, end)
        records.append(record)
    if at != end:
        raise _not_zip("its central directory holds more than its entries")
    return records


def _central_record(data: bytes, at: int, end: int) -> tuple[_ZipRecord, int]:
    """The record at `at` and where the next one starts."""
    if at + _CENTRAL_FORMAT.size > end:
        raise _not_zip("its central directory ends early")
    (sig, made, _, flags, method, _, _, crc, compressed, usize, name_len, extra_len, comment_len, *rest) = (
        _CENTRAL_FORMAT.unpack_from(data, at)
    )
    attributes, local = rest[2], rest[3]  # after the disk number and the internal attributes
    if sig != _CENTRAL:
        raise _not_zip("a damaged central directory")
    name_at = at + _CENTRAL_FORMAT.size
    following = name_at + name_len + extra_len + comment_len
    if following > end:
        raise _not_zip("its central directory ends early")
    name = data[name_at : name_at + name_len]
    if 0xFFFFFFFF in (compressed, usize, local):
        extra = data[name_at + name_len : name_at + name_len + extra_len]
        usize, compressed, local = _zip64_sizes(extra, (usize, compressed, local), name)
    record = _ZipRecord(name, flags, method, crc, compressed, usize, local, made >> 8, attributes)
    return record, following


def _zip64_sizes(extra: bytes, values: tuple[int, int, int], name: bytes) -> tuple[int, int, int]:
    """(size, compressed, local offset) with each one the record marks 0xFFFFFFFF taken from its zip64
    extra field (id 1), in that order."""
    at = 0
    while at + 4 <= len(extra):
        kind, length = struct.unpack_from("<2H", extra, at)
        if kind == 1:
            wide = extra[at + 4 : at + 4 + length]
            out, used = [], 0
            for value in values:
                if value == 0xFFFFFFFF:
                    if used + 8 > len(wide):
                        break
                    value = struct.unpack_from("<Q", wide, used)[0]
                    used += 8
                out.append(value)
            else:
                return out[0], out[1], out[2]
        at += 4 + length
    raise _not_zip(f"{_shown(name.decode('utf-8', 'replace'))} lacks the zip64 sizes its record promises")


def _zip_member(data: bytes, record: _ZipRecord) -> _Raw:
    """The member `record` describes, checked for everything its headers say (its bytes come later)."""
    name, parts = _name_parts(record.name)
    mode = record.attributes >> 16 if record.system == _UNIX else 0
    folder = (
        name.endswith("/") or stat.S_ISDIR(mode) or (record.system == 0 and bool(record.attributes & 0x10))
    )
    _refuse_special(name, mode)
    if record.flags & 0x41 or record.method == _AES:
        raise _reject(ArchiveRejection.ENCRYPTED, f"{_shown(name)} is encrypted (send it unencrypted)")
    if record.method not in (_STORED, _DEFLATED):
        raise _not_zip(f"{_shown(name)} uses compression method {record.method} (only stored and deflate)")
    offset = _local_data_offset(data, record, name)
    if folder and record.size:
        raise _not_zip(f"{_shown(name)} is a folder with contents")
    body = ZipBody(offset, record.compressed, record.method, record.crc)
    executable = not folder and bool(mode & 0o111)
    return _Raw(name, parts, folder, executable, record.size, body)


def _refuse_special(name: str, mode: int) -> None:
    """Refuse a Unix mode that is not a regular file or folder (0: no Unix mode, a plain file)."""
    kind = stat.S_IFMT(mode)
    if kind == stat.S_IFLNK:
        raise _reject(
            ArchiveRejection.SYMLINK, f"{_shown(name.rstrip('/'))} is a symlink (links are refused)"
        )
    if kind in (stat.S_IFCHR, stat.S_IFBLK, stat.S_IFIFO, stat.S_IFSOCK):
        raise _reject(
            ArchiveRejection.DEVICE_OR_FIFO,
            f"{_shown(name)} is a device, FIFO or socket (only files and folders are taken)",
        )


def _local_data_offset(data: bytes, record: _ZipRecord, name: str) -> int:
    """Where `record`'s data starts, after its local header, whose name must be the central one's."""
    at = record.local
    if at + _LOCAL_FORMAT.size > len(data):
        raise _not_zip(f"the local header of {_shown(name)} lies outside the file")
    fields = _LOCAL_FORMAT.unpack_from(data, at)
    if fields[0] != _LOCAL:
        raise _not_zip(f"no local header where the central directory puts {_shown(name)}")
    name_len, extra_len = fields[9], fields[10]
    start = at + _LOCAL_FORMAT.size
    local_name = data[start : start + name_len]
    if local_name != record.name:
        shown = local_name.decode("utf-8", "replace")
        raise _reject(
            ArchiveRejection.NAME_MISMATCH,
            f"{_shown(name)} is named {_shown(shown)} in its local header (the two names must agree)",
        )
    offset = int(start + name_len + extra_len)
    if offset + record.compressed > len(data):
        raise _not_zip(f"the data of {_shown(name)} runs past the end of the file")
    return offset


def _check_overlaps(records: list[_ZipRecord], members: list[_Raw], cd_offset: int) -> None:
    """No two entries may share bytes, nor any reach into the central directory (one compressed body
    read as many files is how a small zip becomes a huge one)."""
    spans = sorted(
        (record.local, _body(member).offset + record.compressed, member.shown)
        for record, member in zip(records, members, strict=True)
    )
    reach, reacher = 0, ""  # the furthest any earlier entry's bytes go, and which entry that is
    for start, end, shown in spans:
        if start < reach:
            raise _reject(
                ArchiveRejection.NAME_MISMATCH,
                f"{_shown(shown)} overlaps {_shown(reacher)} (entries sharing bytes are refused)",
            )
        reach, reacher = end, shown
    if reach > cd_offset:
        raise _reject(ArchiveRejection.NAME_MISMATCH, f"{_shown(reacher)} overlaps the central directory")


def _body(member: _Raw) -> ZipBody:
    assert isinstance(member.body, ZipBody)
    return member.body


def _check_declared(members: list[_Raw], records: list[_ZipRecord], policy: ArenaPolicy) -> None:
    """What the headers declare, before anything is inflated: the total size, each entry's ratio."""
    declared = sum(record.size for record in records)
    if declared > policy.max_unpacked_bytes:
        raise _reject(
            ArchiveRejection.TOO_BIG,
            f"the archive declares {size_text(declared)} unpacked, more than the "
            f"{size_text(policy.max_unpacked_bytes)} limit",
        )
    for member, record in zip(members, records, strict=True):
        if record.size > max(RATIO_FLOOR, policy.max_ratio * record.compressed):
            raise _ratio(member.shown, record.size, record.compressed, policy, "declares")


def _ratio(shown: str, size: int, compressed: int, policy: ArenaPolicy, how: str) -> UploadRejected:
    return _reject(
        ArchiveRejection.RATIO,
        f"{_shown(shown)} {how} {size} bytes from {compressed} compressed, more than "
        f"{policy.max_ratio:g} times (a compression bomb?)",
    )


def _measure_zip(data: bytes, member: _Raw, record: _ZipRecord, room: int, policy: ArenaPolicy) -> None:
    """Inflate `member` once, bounded by its ratio and the room left, and check it is what its
    headers say (size and CRC); its first bytes are kept."""
    ratio_cap = max(RATIO_FLOOR, policy.max_ratio * record.compressed)
    size, crc, head = 0, 0, b""
    for chunk in zip_chunks(data, _body(member)):
        size += len(chunk)
        if len(head) < HEAD_BYTES:
            head += chunk[: HEAD_BYTES - len(head)]
        if size > ratio_cap:
            raise _ratio(member.shown, size, record.compressed, policy, "inflates to more than")
        if size > room:
            raise _unpacked_too_big(policy)
        crc = zlib.crc32(chunk, crc)
    if size != record.size:
        raise _not_zip(f"{_shown(member.shown)} inflates to {size} bytes, its headers say {record.size}")
    if crc != record.crc:
        raise _not_zip(f"{_shown(member.shown)} fails its CRC check")
    member.head = head


def _unpacked_too_big(policy: ArenaPolicy) -> UploadRejected:
    return _reject(
        ArchiveRejection.TOO_BIG,
        f"the archive unpacks to more than the {size_text(policy.max_unpacked_bytes)} limit",
    )


def zip_chunks(data: bytes, body: ZipBody) -> Iterator[bytes]:
    """The inflated bytes of a zip entry, at most 256 KiB at a time (memory stays bounded whatever the
    stream claims: the caller stops reading when its own caps are reached)."""
    view = memoryview(data)[body.offset : body.offset + body.compressed]
    if body.method == _STORED:
        for at in range(0, len(view), _CHUNK):
            yield bytes(view[at : at + _CHUNK])
        return
    inflater = zlib.decompressobj(-15)
    at = 0
    while not inflater.eof:
        source: bytes | memoryview = inflater.unconsumed_tail
        if not source and at < len(view):
            source, at = view[at : at + _CHUNK], at + _CHUNK
        try:
            out = inflater.decompress(source, _CHUNK)
        except zlib.error as exc:
            raise _not_zip(f"a damaged deflate stream ({exc})") from None
        if out:
            yield out
        elif not source:
            raise _not_zip("a deflate stream that ends early")


# -- tar ------------------------------------------------------------------------------------------

_TAR_OVERHEAD = 4096
"""Bytes of tar headers and padding allowed per entry beyond the files' own bytes."""


class _Overflow(Exception):
    """The inflated stream passed its bound."""


class _BoundedGunzip(io.RawIOBase):
    """The gzip stream `data` inflated as it is read, never more than `limit` bytes in all."""

    def __init__(self, data: bytes, limit: int) -> None:
        self._data = memoryview(data)
        self._at = 0
        self._limit = limit
        self.produced = 0
        self._inflater = zlib.decompressobj(31)
        self._pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        while not self._pending and not self._finished():
            self._pending = self._inflate_some()
        count = min(len(buffer), len(self._pending))
        buffer[:count] = self._pending[:count]
        self._pending = self._pending[count:]
        return count

    def _rest(self) -> bytes:
        """What follows the gzip member just ended: its unused input and the input not yet fed."""
        return self._inflater.unused_data + bytes(self._data[self._at :])

    def _finished(self) -> bool:
        # trailing bytes that are not another gzip member are ignored, as gzip(1) does
        return self._inflater.eof and not self._rest().startswith(b"\x1f\x8b")

    def _inflate_some(self) -> bytes:
        if self._inflater.eof:  # another gzip member follows (a concatenated .gz)
            self._data, self._at = memoryview(self._rest()), 0
            self._inflater = zlib.decompressobj(31)
        source: bytes | memoryview = self._inflater.unconsumed_tail
        if not source and self._at < len(self._data):
            source, self._at = self._data[self._at : self._at + _CHUNK], self._at + _CHUNK
        out = self._inflater.decompress(source, _CHUNK)
        if not out and not source:
            raise EOFError("the gzip stream ends early")
        self.produced += len(out)
        if self.produced > self._limit:
            raise _Overflow
        return out


def _tar_stream(data: bytes, kind: UploadKind, policy: ArenaPolicy) -> io.BufferedIOBase | _BoundedGunzip:
    if kind is UploadKind.TAR:
        return io.BytesIO(data)
    ratio_bound = max(16 * RATIO_FLOOR, policy.max_ratio * len(data))
    size_bound = policy.max_unpacked_bytes + _TAR_OVERHEAD * (policy.max_entries + 4)
    return _BoundedGunzip(data, int(min(ratio_bound, size_bound)))


def _tar_overflow(stream: object, data: bytes, policy: ArenaPolicy) -> UploadRejected:
    produced = stream.produced if isinstance(stream, _BoundedGunzip) else 0
    if produced > policy.max_ratio * len(data):
        return _ratio("the tar.gz", produced, len(data), policy, "inflates to more than")
    return _unpacked_too_big(policy)


def _tar_members(data: bytes, kind: UploadKind, policy: ArenaPolicy) -> list[_Raw]:
    stream = _tar_stream(data, kind, policy)
    members: list[_Raw] = []
    try:
        with tarfile.open(fileobj=stream, mode="r|", encoding="utf-8", errors="surrogateescape") as tar:
            total = 0
            for index, member in enumerate(tar):
                if index >= policy.max_entries:
                    raise _too_many(index + 1, policy)
                raw = _tar_member(member, index)
                if not raw.folder:
                    total += member.size
                    if total > policy.max_unpacked_bytes:
                        raise _unpacked_too_big(policy)
                    raw.head = _read_tar_file(tar, member)
                members.append(raw)
    except _Overflow:
        raise _tar_overflow(stream, data, policy) from None
    except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
        raise _reject(ArchiveRejection.NOT_ARCHIVE, f"not a readable {kind}: {_one_line(exc)}") from None
    return members


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:200] or type(exc).__name__


def _tar_member(member: tarfile.TarInfo, index: int) -> _Raw:
    name, parts = _name_parts(member.name)
    if member.issym():
        raise _reject(
            ArchiveRejection.SYMLINK,
            f"{_shown(name)} is a symlink to {_shown(member.linkname)} (links are refused)",
        )
    if member.islnk():
        raise _reject(
            ArchiveRejection.HARDLINK,
            f"{_shown(name)} is a hard link to {_shown(member.linkname)} (links are refused)",
        )
    if member.ischr() or member.isblk() or member.isfifo():
        raise _reject(
            ArchiveRejection.DEVICE_OR_FIFO,
            f"{_shown(name)} is a device or FIFO (only files and folders are taken)",
        )
    if not (member.isreg() or member.isdir()):
        raise _reject(
            ArchiveRejection.DEVICE_OR_FIFO,
            f"{_shown(name)} is a tar entry of type {member.type!r} (only files and folders are taken)",
        )
    executable = member.isreg() and bool(member.mode & 0o111)
    return _Raw(name, parts, member.isdir(), executable, member.size if member.isreg() else 0, index)


def _read_tar_file(tar: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    """Read a member's bytes through (they are bounded by the stream) and keep its first ones."""
    source = tar.extractfile(member)
    if source is None:
        raise tarfile.ReadError(f"cannot read {member.name!r}")
    head = source.read(HEAD_BYTES)
    while source.read(_CHUNK):
        pass
    return head


# -- the entries as they are written --------------------------------------------------------------


def _arrange(raws: list[_Raw], policy: ArenaPolicy) -> tuple[Entry, ...]:
    """The members under the names they are written as: junk dropped, one top folder flattened, the
    depth and length caps, duplicates and native binaries checked."""
    kept = [raw for raw in raws if raw.parts and raw.parts[0] != MACOS_JUNK]
    strip = _single_top_folder(kept)
    entries: list[Entry] = []
    for raw in kept:
        parts = raw.parts[1:] if strip else raw.parts
        if not parts:
            continue  # the flattened top folder itself
        _check_path(raw.shown, parts, policy)
        if not raw.folder and not policy.allow_native and (native := native_kind(raw.head)) is not None:
            raise _reject(
                ArchiveRejection.NATIVE_NOT_ALLOWED, f"{_shown(raw.shown)} is {native}; {_NATIVE_RULE}"
            )
        entries.append(Entry("/".join(parts), raw.shown, raw.folder, raw.executable, raw.size, raw.body))
    _check_duplicates(entries)
    return tuple(entries)


def _single_top_folder(raws: list[_Raw]) -> bool:
    """Whether every member lies in one top folder (which is then flattened)."""
    tops = {raw.parts[0] for raw in raws}
    return len(tops) == 1 and all(len(raw.parts) > 1 or raw.folder for raw in raws)


def _check_path(shown: str, parts: tuple[str, ...], policy: ArenaPolicy) -> None:
    name = "/".join(parts).encode("utf-8")
    if len(parts) > policy.max_path_depth:
        raise _reject(
            ArchiveRejection.NESTED_TOO_DEEP,
            f"{_shown(shown)} is {len(parts)} levels deep, more than {policy.max_path_depth}",
        )
    if len(name) > policy.max_path_bytes or any(len(part.encode("utf-8")) > NAME_MAX for part in parts):
        raise _reject(
            ArchiveRejection.NESTED_TOO_DEEP,
            f"{_shown(shown)} is a path of {len(name)} bytes, more than {policy.max_path_bytes} "
            f"(or a name over {NAME_MAX})",
        )


def _check_duplicates(entries: list[Entry]) -> None:
    """No two entries under one name (after NFC), and no name both a file and a folder."""
    seen: dict[str, Entry] = {}
    folders: set[str] = set()
    for entry in entries:
        earlier = seen.get(entry.name)
        if earlier is not None and not (earlier.folder and entry.folder):
            raise _reject(
                ArchiveRejection.DUPLICATE_NAME,
                f"{_shown(entry.shown)} and {_shown(earlier.shown)} are one name (compared after NFC)",
            )
        seen[entry.name] = entry
        parts = entry.name.split("/")
        folders.update("/".join(parts[:depth]) for depth in range(1, len(parts) + (entry.folder)))
    for name in folders:
        clash = seen.get(name)
        if clash is not None and not clash.folder:
            raise _reject(
                ArchiveRejection.DUPLICATE_NAME, f"{_shown(clash.shown)} is both a file and a folder"
            )


def _entry_point(entries: tuple[Entry, ...]) -> str:
    """The first of FOLDER_ENTRIES at the top (`run` and `bot` executable), else why there is none."""
    top = {entry.name: entry for entry in entries if "/" not in entry.name}
    for name in FOLDER_ENTRIES:
        entry = top.get(name)
        if entry is not None and not entry.folder and (entry.executable or name not in _EXECUTABLE_ENTRIES):
            return name
    deeper = sorted(
        entry.name
        for entry in entries
        if "/" in entry.name and not entry.folder and entry.name.rsplit("/", 1)[1] in FOLDER_ENTRIES
    )
    if deeper:
        raise _reject(
            ArchiveRejection.NESTED_TOO_DEEP,
            f"the bot's entry is {_shown(deeper[0])}: put it at the top of the archive or in one top folder",
        )
    found = ", ".join(sorted(top)[:10]) or "nothing"
    idle = [name for name in sorted(_EXECUTABLE_ENTRIES) if name in top and not top[name].folder]
    note = f" ({', '.join(idle)} not executable)" if idle else ""
    raise _reject(
        ArchiveRejection.NO_ENTRY,
        f"no {', '.join(FOLDER_ENTRIES[:4])} or executable run or bot at the top; found: {found}{note}",
    )


# -- unpacking ------------------------------------------------------------------------------------

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def unpack_checked(checked: CheckedUpload, into: Path, policy: ArenaPolicy) -> None:
    """Write `checked`'s entries into the empty folder `into` (the caller's private temporary folder,
    not a link). The caps are enforced again while writing (count, each entry's measured size, the
    total); every name is created from its parent's descriptor with O_NOFOLLOW and O_EXCL, so nothing
    is written through a link, over a file or outside `into`. Raises UploadRejected if the bytes do
    not unpack as they were checked."""
    root = os.open(into, _DIR_FLAGS)
    try:
        if os.listdir(root):
            raise ValueError(f"{into} is not empty")
        written = 0
        for count, (entry, chunks) in enumerate(_bodies(checked, policy), start=1):
            if count > policy.max_entries:
                raise _too_many(count, policy)
            written += _write_entry(root, entry, chunks, policy.max_unpacked_bytes - written)
            if written > policy.max_unpacked_bytes:
                raise _unpacked_too_big(policy)
    finally:
        os.close(root)


def _bodies(checked: CheckedUpload, policy: ArenaPolicy) -> Iterator[tuple[Entry, Iterable[bytes]]]:
    """Each entry with its bytes, read again from the upload (a folder's are empty)."""
    if checked.kind is UploadKind.FILE:
        yield checked.entries[0], (checked.data,)
    elif checked.kind is UploadKind.ZIP:
        for entry in checked.entries:
            body = entry.body
            yield (
                entry,
                (() if entry.folder or not isinstance(body, ZipBody) else zip_chunks(checked.data, body)),
            )
    else:
        yield from _tar_bodies(checked, policy)


def _tar_bodies(checked: CheckedUpload, policy: ArenaPolicy) -> Iterator[tuple[Entry, Iterable[bytes]]]:
    wanted = {entry.body: entry for entry in checked.entries}
    stream = _tar_stream(checked.data, checked.kind, policy)
    try:
        with tarfile.open(fileobj=stream, mode="r|", encoding="utf-8", errors="surrogateescape") as tar:
            for index, member in enumerate(tar):
                entry = wanted.get(index)
                if entry is None:
                    continue
                source = None if entry.folder else tar.extractfile(member)
                yield entry, (() if source is None else _read_chunks(source))
    except _Overflow:
        raise _tar_overflow(stream, checked.data, policy) from None
    except (tarfile.TarError, EOFError, zlib.error) as exc:
        raise _reject(
            ArchiveRejection.NOT_ARCHIVE, f"not a readable {checked.kind}: {_one_line(exc)}"
        ) from None


def _read_chunks(source: IO[bytes]) -> Iterator[bytes]:
    while chunk := source.read(_CHUNK):
        yield chunk


def _write_entry(root: int, entry: Entry, chunks: Iterable[bytes], room: int) -> int:
    """Create `entry` under the folder open at `root`; the bytes written (at most its checked size)."""
    parts = entry.name.split("/")
    if any(part in ("", ".", "..") or "\0" in part for part in parts):
        raise ValueError(f"unsafe entry name {entry.name!r}")  # check_upload never makes one
    parent = _open_folders(root, parts[:-1])
    try:
        if entry.folder:
            _make_folder(parent, parts[-1])
            return 0
        fd = os.open(parts[-1], _NEW_FILE, 0o600, dir_fd=parent)
        try:
            written = _write_bounded(fd, entry, chunks, min(room, entry.size))
            os.fchmod(fd, 0o755 if entry.executable else 0o644)
        finally:
            os.close(fd)
        return written
    except FileExistsError:
        raise _reject(ArchiveRejection.DUPLICATE_NAME, f"{_shown(entry.shown)} is written twice") from None
    finally:
        if parent != root:
            os.close(parent)


def _write_bounded(fd: int, entry: Entry, chunks: Iterable[bytes], limit: int) -> int:
    written = 0
    for chunk in chunks:
        written += len(chunk)
        if written > limit:
            raise _reject(
                ArchiveRejection.TOO_BIG, f"{_shown(entry.shown)} unpacks to more than it was checked at"
            )
        view = memoryview(chunk)
        while view:
            view = view[os.write(fd, view) :]
    if written != entry.size:
        raise _reject(
            ArchiveRejection.NOT_ARCHIVE,
            f"{_shown(entry.shown)} unpacks to other bytes than it was checked at",
        )
    return written


def _open_folders(root: int, parts: list[str]) -> int:
    """The folder `parts` below `root`, created as needed, opened without following a link (the
    caller closes it unless it is `root`)."""
    current = root
    for part in parts:
        _make_folder(current, part)
        inner = os.open(part, _DIR_FLAGS, dir_fd=current)
        if current != root:
            os.close(current)
        current = inner
    return current


def _make_folder(parent: int, name: str) -> None:
    try:
        os.mkdir(name, 0o755, dir_fd=parent)
    except FileExistsError:
        if not stat.S_ISDIR(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode):
            raise _reject(
                ArchiveRejection.DUPLICATE_NAME, f"{_shown(name)} is both a file and a folder"
            ) from None


SCRATCH_PREFIX = "botarena-upload-"
"""The start of every scratch folder's name; the rest says whose it is (`scratch_prefix`)."""
_HOST_CHARS = re.compile(r"[^A-Za-z0-9.]")


def scratch_prefix() -> str:
    """The name prefix of this process's scratch folders: `botarena-upload-<pid>@<host>-`. A process
    SIGKILLed mid-unpack cannot remove its folder; the name lets the next one tell it is stale
    (`stale_scratch`), whatever else shares the root (another server, the same host's /dev/shm)."""
    host = _HOST_CHARS.sub("_", socket.gethostname())[:64]
    return f"{SCRATCH_PREFIX}{os.getpid()}@{host}-"


def _scratch_owner(name: str) -> tuple[int, str] | None:
    """(pid, host) of a scratch folder named by `scratch_prefix`, None for any other name."""
    if not name.startswith(SCRATCH_PREFIX):
        return None
    pid, at, rest = name[len(SCRATCH_PREFIX) :].partition("@")
    host, dash, _ = rest.rpartition("-")  # mkdtemp's random suffix has no '-'
    if not (at and dash and pid.isdigit()):
        return None
    return int(pid), host


def _pid_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        return False
    return False


def stale_scratch(root: Path) -> list[Path]:
    """The scratch folders under `root` left by processes of this host and user that are gone
    (SIGKILLed mid-unpack): a folder of a live process, another host's or another user's is kept."""
    host = _HOST_CHARS.sub("_", socket.gethostname())[:64]
    found: list[Path] = []
    try:
        entries = list(os.scandir(root))
    except OSError:  # the root itself is unusable: the next mkdtemp says so
        return found
    for entry in entries:
        owner = _scratch_owner(entry.name)
        if owner is None or owner[1] != host or not _pid_gone(owner[0]):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid():
            found.append(Path(entry.path))
    return found


def pack_upload(
    checked: CheckedUpload, policy: ArenaPolicy, *, scratch_root: Path | None = None
) -> PackedBot:
    """The canonical artifact of a checked upload: unpacked into a private temporary folder (mode
    0700, named by `scratch_prefix`, made under `scratch_root`, default the system's temporary
    folder; a tmpfs makes a 2,000-file upload about 100 times cheaper to unpack than a disk,
    benchmarks/arena_upload.py), packed by `bots.artifacts.pack_folder`, the folder removed whether
    that succeeded, was refused or raised. Its digest is the version's identity and its bytes the
    team's source archive."""
    scratch = Path(tempfile.mkdtemp(prefix=scratch_prefix(), dir=scratch_root))
    try:
        unpack_checked(checked, scratch, policy)
        return pack_folder(scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def canonical_digest(folder: Path) -> str:
    """The digest of `folder`'s canonical archive: the same files always give the same digest."""
    return pack_folder(folder).digest


__all__ = [
    "SCRATCH_PREFIX",
    "CheckedUpload",
    "Entry",
    "UploadKind",
    "UploadRejected",
    "ZipBody",
    "canonical_digest",
    "check_upload",
    "native_kind",
    "pack_upload",
    "scratch_prefix",
    "sniff",
    "stale_scratch",
    "unpack_checked",
    "zip_chunks",
]
