"""Forging zip archives byte by byte for the archive zoo: every header field is the test's to set, so
an archive can lie in ways `zipfile` would never write (a local name other than the central one, an
entry inside another's bytes, a size that is not the truth, a NUL or bad UTF-8 in a name)."""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

UNIX = 3 << 8  # "version made by": Unix, so the external attributes carry a mode
FILE_MODE = 0o100644


@dataclass
class Forged:
    """One entry as the forger writes it; None fields take the honest value."""

    name: bytes
    data: bytes = b""
    method: int = 8  # 0 stored, 8 deflate
    flags: int = 0
    mode: int = FILE_MODE
    compressed: bytes | None = None  # the body as written (default: `data` stored or deflated)
    size: int | None = None  # the declared size (default: len(data))
    crc: int | None = None
    local_name: bytes | None = None  # the local header's name (default: `name`)
    local_at: int | None = None  # where the central record says the local header is (default: its own)


def deflate(data: bytes) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    return packer.compress(data) + packer.flush()


def zeros_deflated(mib: int) -> bytes:
    """A raw deflate stream of `mib` MiB of zero bytes, made in milliseconds: each MiB is compressed
    with a full flush, which resets the window, so every MiB after the first compresses to the same
    bytes and is repeated rather than compressed again (about 1 KiB per MiB: 1 GiB in ~1 MiB)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = bytes(1 << 20)
    first = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    repeated = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    return first + repeated * (mib - 1) + packer.flush()


def local_header(name: bytes, method: int, flags: int, crc: int, compressed: int, size: int) -> bytes:
    return (
        struct.pack(
            "<4s5H3I2H", b"PK\x03\x04", 20, flags, method, 0, 0x21, crc, compressed, size, len(name), 0
        )
        + name
    )


def central_record(entry: Forged, body: bytes, local_at: int, zip64: bool = False) -> bytes:
    """A central record; with `zip64` its sizes and offset are 0xFFFFFFFF and the zip64 extra holds them."""
    size = len(entry.data) if entry.size is None else entry.size
    crc = zlib.crc32(entry.data) if entry.crc is None else entry.crc
    wide = struct.pack("<2H3Q", 1, 24, size, len(body), local_at) if zip64 else b""
    sizes = (0xFFFFFFFF, 0xFFFFFFFF) if zip64 else (len(body), size)
    fields = (b"PK\x01\x02", UNIX | 45, 45, entry.flags, entry.method, 0, 0x21, crc, *sizes)
    tail = (len(entry.name), len(wide), 0, 0, 0, entry.mode << 16, 0xFFFFFFFF if zip64 else local_at)
    return struct.pack("<4s6H3I5H2I", *fields, *tail) + entry.name + wide


def forge_zip(entries: list[Forged], prefix: bytes = b"", zip64: bool = False) -> bytes:
    """The zip of `entries` in order, after `prefix` bytes (with each local header where the
    central record says, unless `local_at` points elsewhere: then no local header of its own)."""
    out = bytearray(prefix)
    central = bytearray()
    for entry in entries:
        body = entry.compressed
        if body is None:
            body = deflate(entry.data) if entry.method == 8 else entry.data
        size = len(entry.data) if entry.size is None else entry.size
        crc = zlib.crc32(entry.data) if entry.crc is None else entry.crc
        at = entry.local_at
        if at is None:
            at = len(out)
            name = entry.name if entry.local_name is None else entry.local_name
            out += local_header(name, entry.method, entry.flags, crc, len(body), size) + body
        central += central_record(entry, body, at, zip64)
    directory = len(out)
    out += central
    if zip64:  # the zip64 end record and its locator, then an end record that defers to them
        end_at = len(out)
        out += struct.pack(
            "<4sQ2H2I4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, len(entries), len(entries), len(central), directory
        )
        out += struct.pack("<4sIQI", b"PK\x06\x07", 0, end_at, 1)
        out += struct.pack("<4s4H2IH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
        return bytes(out)
    out += struct.pack(
        "<4s4H2IH", b"PK\x05\x06", 0, 0, len(entries), len(entries), len(central), directory, 0
    )
    return bytes(out)
