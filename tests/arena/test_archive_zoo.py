"""The archive zoo (specs/arena.md: Security, proven; goal G9): hostile uploads, each refused with its
exact code and nothing written anywhere, and good uploads accepted, unpacked and packed to the same
digest whatever archive they came in."""

from __future__ import annotations

import gzip
import io
import os
import stat
import tarfile
import unicodedata
import zipfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.zipforge import Forged, forge_zip, local_header, zeros_deflated
from botarena.arena.archive import (
    CheckedUpload,
    UploadKind,
    UploadRejected,
    check_upload,
    pack_upload,
    unpack_checked,
)
from botarena.arena.policy import ArenaPolicy
from botarena.arena.vocabulary import ArchiveRejection as Code

POLICY = ArenaPolicy()
NO_NATIVE = ArenaPolicy(allow_native=False)
BOT = b"def act(observation):\n    return {}\n"
ELF = b"\x7fELF\x02\x01\x01\x00" + bytes(120)
GIB = 1024


def make_zip(files: dict[str, bytes], modes: dict[str, int] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = (modes or {}).get(name, 0o100644) << 16
            archive.writestr(info, data)
    return buffer.getvalue()


def make_tar(
    members: list[tarfile.TarInfo], data: dict[str, bytes] | None = None, mode: str = "w:gz"
) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode, format=tarfile.PAX_FORMAT) as archive:  # type: ignore[call-overload]
        for member in members:
            body = (data or {}).get(member.name)
            archive.addfile(member, io.BytesIO(body) if body is not None else None)
    return buffer.getvalue()


def tar_file(name: str, body: bytes, mode: int = 0o644) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size, info.mode = len(body), mode
    return info


def tar_special(name: str, kind: bytes, linkname: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, linkname
    return info


def tar_of(files: dict[str, bytes], mode: str = "w:gz") -> bytes:
    return make_tar([tar_file(name, body) for name, body in files.items()], files, mode)


def symlink_zip() -> bytes:
    return make_zip({"bot.py": BOT, "bot/data": b"/etc/passwd"}, {"bot/data": stat.S_IFLNK | 0o777})


def overlapping_zip() -> bytes:
    """`lib/b.py`'s local header and body lie inside `bot.py`'s stored bytes: one body, two files."""
    inner = local_header(b"lib/b.py", 0, 0, 0, 4, 4) + b"x=1\n"
    outer = b"# " + inner
    first = 30 + len(b"bot.py")
    return forge_zip(
        [
            Forged(b"bot.py", outer, method=0),
            Forged(b"lib/b.py", b"x=1\n", method=0, local_at=first + 2),
        ]
    )


def bomb_zip(*, declared: int) -> bytes:
    """1 GiB of zeros in ~1 MiB, declaring `declared` bytes."""
    return forge_zip(
        [
            Forged(b"bot.py", BOT),
            Forged(b"data.bin", b"", compressed=zeros_deflated(GIB), size=declared, crc=0),
        ]
    )


def small_bomb_zip(*, declared: int | None) -> bytes:
    """10 MiB of zeros in ~10 KiB: under every size cap, over the ratio."""
    return forge_zip(
        [
            Forged(b"bot.py", BOT),
            Forged(b"data.bin", b"", compressed=zeros_deflated(10), size=declared or 10 << 20, crc=0),
        ]
    )


def bomb_tar_gz() -> bytes:
    """A tar.gz whose second member declares 1 GiB: the stream holds its header and its first MiB."""
    bot = tar_file("bot.py", BOT).tobuf(tarfile.PAX_FORMAT) + BOT + bytes(512 - len(BOT))
    header = tar_file("data.bin", b"")
    header.size = 1 << 30
    return gzip.compress(bot + header.tobuf(tarfile.PAX_FORMAT) + bytes(1 << 20))


def many_entries_zip(count: int) -> bytes:
    return make_zip({"bot.py": BOT, **{f"f/{i}.txt": b"" for i in range(count - 1)}})


HOSTILE: dict[str, tuple[Callable[[], bytes], Code, ArenaPolicy]] = {
    "zip_slip": (lambda: make_zip({"bot.py": BOT, "../evil.py": b"x"}), Code.DOTDOT, POLICY),
    "zip_slip_inside": (lambda: make_zip({"bot.py": BOT, "lib/../../evil.py": b"x"}), Code.DOTDOT, POLICY),
    "tar_slip": (lambda: tar_of({"bot.py": BOT, "../../etc/cron.d/x": b"x"}), Code.DOTDOT, POLICY),
    "absolute_zip": (lambda: make_zip({"bot.py": BOT, "/etc/cron.d/evil": b"x"}), Code.ABSOLUTE_PATH, POLICY),
    "absolute_tar": (lambda: tar_of({"bot.py": BOT, "/tmp/evil": b"x"}), Code.ABSOLUTE_PATH, POLICY),
    "absolute_drive": (lambda: make_zip({"bot.py": BOT, "C:/evil.py": b"x"}), Code.ABSOLUTE_PATH, POLICY),
    "symlink_zip": (symlink_zip, Code.SYMLINK, POLICY),
    "symlink_tar": (
        lambda: make_tar(
            [tar_file("bot.py", BOT), tar_special("data", tarfile.SYMTYPE, "/etc/passwd")], {"bot.py": BOT}
        ),
        Code.SYMLINK,
        POLICY,
    ),
    "hardlink_tar": (
        lambda: make_tar(
            [tar_file("bot.py", BOT), tar_special("passwd", tarfile.LNKTYPE, "/etc/passwd")], {"bot.py": BOT}
        ),
        Code.HARDLINK,
        POLICY,
    ),
    "device_tar": (
        lambda: make_tar([tar_file("bot.py", BOT), tar_special("sda", tarfile.BLKTYPE)], {"bot.py": BOT}),
        Code.DEVICE_OR_FIFO,
        POLICY,
    ),
    "chardev_tar": (
        lambda: make_tar([tar_file("bot.py", BOT), tar_special("mem", tarfile.CHRTYPE)], {"bot.py": BOT}),
        Code.DEVICE_OR_FIFO,
        POLICY,
    ),
    "fifo_tar": (
        lambda: make_tar([tar_file("bot.py", BOT), tar_special("pipe", tarfile.FIFOTYPE)], {"bot.py": BOT}),
        Code.DEVICE_OR_FIFO,
        POLICY,
    ),
    "fifo_zip": (
        lambda: make_zip({"bot.py": BOT, "pipe": b""}, {"pipe": stat.S_IFIFO | 0o644}),
        Code.DEVICE_OR_FIFO,
        POLICY,
    ),
    "bomb_1gib_declared_small": (lambda: bomb_zip(declared=100), Code.TOO_BIG, POLICY),
    "bomb_1gib_declared_large": (lambda: bomb_zip(declared=1 << 30), Code.TOO_BIG, POLICY),
    "bomb_tar_gz_1gib": (bomb_tar_gz, Code.TOO_BIG, POLICY),
    "ratio_declared": (lambda: small_bomb_zip(declared=None), Code.RATIO, POLICY),
    "ratio_measured": (lambda: small_bomb_zip(declared=100), Code.RATIO, POLICY),
    "overlapping_entries": (overlapping_zip, Code.NAME_MISMATCH, POLICY),
    "local_central_mismatch": (
        lambda: forge_zip([Forged(b"bot.py", BOT), Forged(b"notes.txt", b"hi", local_name=b"../../x.sh")]),
        Code.NAME_MISMATCH,
        POLICY,
    ),
    "duplicate_nfc": (
        lambda: make_zip(
            {
                "bot.py": BOT,
                unicodedata.normalize("NFC", "café.py"): b"1",
                unicodedata.normalize("NFD", "café.py"): b"2",
            }
        ),
        Code.DUPLICATE_NAME,
        POLICY,
    ),
    "file_and_folder": (
        lambda: make_zip({"bot.py": BOT, "lib": b"x", "lib/a.py": b"y"}),
        Code.DUPLICATE_NAME,
        POLICY,
    ),
    "ten_thousand_entries": (lambda: many_entries_zip(10_000), Code.TOO_MANY_ENTRIES, POLICY),
    "ten_thousand_tar": (
        lambda: tar_of({"bot.py": BOT, **{f"f/{i}": b"" for i in range(2_100)}}),
        Code.TOO_MANY_ENTRIES,
        POLICY,
    ),
    "encrypted": (lambda: forge_zip([Forged(b"bot.py", BOT, flags=1)]), Code.ENCRYPTED, POLICY),
    "nested_deep": (
        lambda: make_zip({"bot.py": BOT, "/".join("d" * 25) + "/x.py": b"1"}),
        Code.NESTED_TOO_DEEP,
        POLICY,
    ),
    "entry_two_folders_down": (lambda: make_zip({"outer/inner/bot.py": BOT}), Code.NESTED_TOO_DEEP, POLICY),
    "path_too_long": (
        lambda: make_zip({"bot.py": BOT, "a/" * 100 + "b" * 100: b"1"}),
        Code.NESTED_TOO_DEEP,
        POLICY,
    ),
    "backslash": (lambda: make_zip({"bot.py": BOT, "..\\..\\evil.py": b"x"}), Code.BACKSLASH, POLICY),
    "bad_utf8": (
        lambda: forge_zip([Forged(b"bot.py", BOT), Forged(b"\xff\xfe.py", b"1")]),
        Code.NUL_OR_BAD_UTF8,
        POLICY,
    ),
    "nul_in_name": (lambda: forge_zip([Forged(b"bot.py\x00.txt", BOT)]), Code.NUL_OR_BAD_UTF8, POLICY),
    "bad_utf8_tar": (lambda: tar_of({"bot.py": BOT, "caf\udce9.py": b"1"}), Code.NUL_OR_BAD_UTF8, POLICY),
    "native_in_zip": (lambda: make_zip({"bot.py": BOT, "helper": ELF}), Code.NATIVE_NOT_ALLOWED, NO_NATIVE),
    "native_alone": (lambda: ELF, Code.NATIVE_NOT_ALLOWED, NO_NATIVE),
    "pe_in_tar": (
        lambda: tar_of({"bot.py": BOT, "x.exe": b"MZ\x90\x00" + bytes(60)}),
        Code.NATIVE_NOT_ALLOWED,
        NO_NATIVE,
    ),
    "no_entry": (lambda: make_zip({"README.md": b"# hi", "src/x.py": b"1"}), Code.NO_ENTRY, POLICY),
    "run_not_executable": (lambda: make_zip({"run": b"#!/bin/sh\n"}), Code.NO_ENTRY, POLICY),
    "random_bytes": (lambda: bytes(range(256)) * 4, Code.NOT_ARCHIVE, POLICY),
    "gzip_not_tar": (lambda: gzip.compress(b"just text, not a tar\n" * 10), Code.NOT_ARCHIVE, POLICY),
    "crc_lie": (lambda: forge_zip([Forged(b"bot.py", BOT, crc=1234)]), Code.NOT_ARCHIVE, POLICY),
    "size_lie": (lambda: forge_zip([Forged(b"bot.py", BOT, size=len(BOT) - 1)]), Code.NOT_ARCHIVE, POLICY),
    "truncated_zip": (lambda: make_zip({"bot.py": BOT})[:-30], Code.NOT_ARCHIVE, POLICY),
    "upload_over_cap": (
        lambda: make_zip({"bot.py": BOT, "blob": os.urandom(2 << 20)}),
        Code.TOO_BIG,
        ArenaPolicy(max_upload_mb=1),
    ),
    "unpacked_over_cap": (
        lambda: make_zip({"bot.py": BOT, "big.txt": b"ab" * (1 << 20)}),
        Code.TOO_BIG,
        ArenaPolicy(max_unpacked_mb=1),
    ),
}


def snapshot(folder: Path) -> list[tuple[str, int]]:
    """Every path under `folder` with its size: what a test compares before and after."""
    found = []
    for here, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = Path(here, name)
            found.append((str(path.relative_to(folder)), os.lstat(path).st_size if name in files else -1))
    return sorted(found)


def upload_into(data: bytes, filename: str, policy: ArenaPolicy, scratch: Path) -> CheckedUpload:
    """What the server does: check, then unpack into its private folder."""
    checked = check_upload(data, filename, policy)
    unpack_checked(checked, scratch, policy)
    return checked


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_g9_hostile_archive_is_refused_with_its_code_and_writes_nothing(case: str, tmp_path: Path) -> None:
    build, code, policy = HOSTILE[case]
    (tmp_path / "scratch").mkdir()
    (tmp_path / "host.txt").write_text("the host's own file\n")
    before = snapshot(tmp_path)
    with pytest.raises(UploadRejected) as caught:
        upload_into(build(), "upload.bin", policy, tmp_path / "scratch")
    assert caught.value.code == code, caught.value.detail
    detail = caught.value.detail
    assert detail and "\n" not in detail and len(detail) < 400
    assert snapshot(tmp_path) == before


def test_g9_the_zoo_holds_at_least_twelve_hostile_archives_covering_every_code() -> None:
    assert len(HOSTILE) >= 12
    assert {code for _, code, _ in HOSTILE.values()} == set(Code)


def test_g9_symlink_detail_names_the_entry() -> None:
    with pytest.raises(UploadRejected) as caught:
        check_upload(symlink_zip(), "bot.zip", POLICY)
    assert caught.value.detail == "'bot/data' is a symlink (links are refused)"


def test_g9_no_entry_lists_what_was_found() -> None:
    with pytest.raises(UploadRejected) as caught:
        check_upload(make_zip({"README.md": b"#", "solver.py": b"1"}), "bot.zip", POLICY)
    assert "found: README.md, solver.py" in caught.value.detail


def test_g9_a_1_gib_bomb_is_stopped_while_inflating_within_the_cap() -> None:
    """The measured check stops at the unpacked cap: it never inflates the whole gigabyte."""
    data = bomb_zip(declared=100)
    assert len(data) < 1.2 * (1 << 20)
    with pytest.raises(UploadRejected) as caught:
        check_upload(data, "bomb.zip", POLICY)
    assert caught.value.code == Code.TOO_BIG
    assert "100 MiB" in caught.value.detail


# -- good uploads ----------------------------------------------------------------------------------


def test_g9_a_single_bot_py_is_taken_as_it_is(tmp_path: Path) -> None:
    checked = upload_into(BOT, "bot.py", POLICY, tmp_path)
    assert (checked.kind, checked.entry_point) == (UploadKind.FILE, "bot.py")
    assert (tmp_path / "bot.py").read_bytes() == BOT
    assert stat.S_IMODE(os.stat(tmp_path / "bot.py").st_mode) == 0o644


@pytest.mark.parametrize(
    ("filename", "data", "placed", "mode"),
    [
        ("my_bot.py", BOT, "bot.py", 0o644),
        ("strategy.js", b"process.stdin.on('data', () => {});\n", "bot.js", 0o644),
        ("whatever", b"#!/usr/bin/env node\nconsole.log(1)\n", "bot.js", 0o644),
        ("solver", b"#!/usr/bin/env python3\nprint(1)\n", "bot.py", 0o644),
        ("play.sh", b"#!/bin/sh\nexec ./x\n", "run", 0o755),
        ("a.out", ELF, "run", 0o755),
        ("mz.py", b"MZ = 3\n", "bot.py", 0o644),  # starts like a PE header, but is a text
    ],
)
def test_uploads_a_single_file_is_placed_by_its_kind(
    filename: str, data: bytes, placed: str, mode: int, tmp_path: Path
) -> None:
    checked = upload_into(data, filename, POLICY, tmp_path)
    assert checked.entry_point == placed
    assert os.listdir(tmp_path) == [placed]
    assert stat.S_IMODE(os.stat(tmp_path / placed).st_mode) == mode


def test_uploads_a_text_of_no_known_kind_says_how_to_name_it() -> None:
    with pytest.raises(UploadRejected) as caught:
        check_upload(b"hello\n", "notes.txt", POLICY)
    assert caught.value.code == Code.NOT_ARCHIVE
    assert "#!" in caught.value.detail


def test_g9_a_zip_with_one_top_folder_is_flattened(tmp_path: Path) -> None:
    data = make_zip(
        {"mybot/": b"", "mybot/bot.py": BOT, "mybot/lib/util.py": b"X = 1\n"}, {"mybot/": 0o40755}
    )
    checked = upload_into(data, "mybot.zip", POLICY, tmp_path)
    assert checked.entry_point == "bot.py"
    assert snapshot(tmp_path) == [("bot.py", len(BOT)), ("lib", -1), ("lib/util.py", 6)]


def test_g9_a_tar_gz_and_a_plain_tar_with_dot_slash_names_are_taken(tmp_path: Path) -> None:
    (tmp_path / "gz").mkdir()
    (tmp_path / "plain").mkdir()
    gz = upload_into(tar_of({"./bot.py": BOT, "./lib/a.py": b"1"}), "b.tgz", POLICY, tmp_path / "gz")
    plain = upload_into(tar_of({"./bot.py": BOT}, mode="w"), "b.tar", POLICY, tmp_path / "plain")
    assert (gz.kind, plain.kind) == (UploadKind.TAR_GZ, UploadKind.TAR)
    assert (tmp_path / "gz" / "lib" / "a.py").read_bytes() == b"1"
    assert (tmp_path / "plain" / "bot.py").read_bytes() == BOT


def test_g9_a_zip_with_a_bot_js_and_an_executable_keeps_the_exec_bit(tmp_path: Path) -> None:
    data = make_zip({"bot.js": b"console.log(1)\n", "tools/fmt": b"#!/bin/sh\n"}, {"tools/fmt": 0o100755})
    checked = upload_into(data, "js.zip", POLICY, tmp_path)
    assert checked.entry_point == "bot.js"
    assert stat.S_IMODE(os.stat(tmp_path / "tools" / "fmt").st_mode) == 0o755
    assert stat.S_IMODE(os.stat(tmp_path / "bot.js").st_mode) == 0o644


def test_uploads_macos_resource_forks_are_dropped(tmp_path: Path) -> None:
    data = make_zip({"mybot/bot.py": BOT, "__MACOSX/mybot/._bot.py": b"\x00\x05\x16\x07"})
    upload_into(data, "mybot.zip", POLICY, tmp_path)
    assert os.listdir(tmp_path) == ["bot.py"]


def test_g9_the_same_files_give_the_same_digest_in_a_zip_and_a_tar_gz() -> None:
    files = {"bot.py": BOT, "lib/a.py": b"A = 1\n", "lib/data/b.json": b"{}"}
    from_zip = pack_upload(
        check_upload(make_zip({f"top/{k}": v for k, v in files.items()}), "b.zip", POLICY), POLICY
    )
    from_tar = pack_upload(check_upload(tar_of(files), "b.tar.gz", POLICY), POLICY)
    edited = pack_upload(check_upload(tar_of({**files, "lib/a.py": b"A = 2\n"}), "b.tar.gz", POLICY), POLICY)
    assert from_zip.digest == from_tar.digest
    assert from_zip.data == from_tar.data  # the canonical source archive itself
    assert edited.digest != from_zip.digest


def test_uploads_a_zip64_archive_and_a_streamed_zip_with_data_descriptors_are_taken(tmp_path: Path) -> None:
    wide = forge_zip([Forged(b"bot.py", BOT), Forged(b"lib/a.py", b"A = 1\n")], zip64=True)
    assert check_upload(wide, "wide.zip", POLICY).entry_point == "bot.py"

    class Unseekable(io.RawIOBase):  # zipfile writes data descriptors when it cannot seek back
        def __init__(self) -> None:
            self.chunks: list[bytes] = []

        def writable(self) -> bool:
            return True

        def write(self, chunk: bytes) -> int:  # type: ignore[override]
            self.chunks.append(bytes(chunk))
            return len(chunk)

    sink = Unseekable()
    with zipfile.ZipFile(sink, "w", zipfile.ZIP_DEFLATED) as archive, archive.open("bot.py", "w") as entry:
        entry.write(BOT)
    streamed = b"".join(sink.chunks)
    assert streamed[6] & 0x08  # the general-purpose flag says: sizes follow the data
    upload_into(streamed, "s.zip", POLICY, tmp_path)
    assert (tmp_path / "bot.py").read_bytes() == BOT


def test_uploads_a_gzip_of_several_members_is_read_whole(tmp_path: Path) -> None:
    tar = make_tar(
        [tar_file("bot.py", BOT), tar_file("lib/a.py", b"A = 1\n")],
        {"bot.py": BOT, "lib/a.py": b"A = 1\n"},
        "w",
    )
    middle = len(tar) // 2
    upload_into(gzip.compress(tar[:middle]) + gzip.compress(tar[middle:]), "two.tgz", POLICY, tmp_path)
    assert (tmp_path / "lib" / "a.py").read_bytes() == b"A = 1\n"


def test_uploads_a_truncated_tar_gz_is_not_an_archive() -> None:
    data = tar_of({"bot.py": BOT, "big.txt": os.urandom(4096)})
    with pytest.raises(UploadRejected) as caught:
        check_upload(data[: len(data) // 2], "cut.tgz", POLICY)
    assert caught.value.code == Code.NOT_ARCHIVE


def test_uploads_an_empty_zip_has_no_entry() -> None:
    with pytest.raises(UploadRejected) as caught:
        check_upload(forge_zip([]), "empty.zip", POLICY)
    assert caught.value.code == Code.NO_ENTRY


# -- the writer's own guards -------------------------------------------------------------------------


def test_g9_unpacking_enforces_the_checked_sizes_again(tmp_path: Path) -> None:
    checked = check_upload(make_zip({"bot.py": BOT, "a.txt": b"x" * 1000}), "b.zip", POLICY)
    lying = replace(
        checked, entries=tuple(replace(e, size=10) if e.name == "a.txt" else e for e in checked.entries)
    )
    with pytest.raises(UploadRejected) as caught:
        unpack_checked(lying, tmp_path, POLICY)
    assert caught.value.code == Code.TOO_BIG
    (tmp_path / "again").mkdir()
    with pytest.raises(UploadRejected) as caught:
        unpack_checked(checked, tmp_path / "again", ArenaPolicy(max_unpacked_mb=0.0005))
    assert caught.value.code == Code.TOO_BIG


def test_g9_unpacking_refuses_a_forged_name_and_a_linked_target(tmp_path: Path) -> None:
    checked = check_upload(BOT, "bot.py", POLICY)
    forged = replace(checked, entries=(replace(checked.entries[0], name="../escaped.py"),))
    (tmp_path / "scratch").mkdir()
    with pytest.raises(ValueError, match="unsafe entry name"):
        unpack_checked(forged, tmp_path / "scratch", POLICY)
    assert not (tmp_path / "escaped.py").exists()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OSError):
        unpack_checked(checked, tmp_path / "link", POLICY)
    assert os.listdir(tmp_path / "elsewhere") == []


# -- property: any names, never outside ----------------------------------------------------------------

NAME_PARTS = st.sampled_from(
    ["a", "b", "..", ".", "", "bot.py", "\\", "é", "e\u0301", "C:", "\x00", "~", " "]
)
NAMES = st.lists(NAME_PARTS, min_size=1, max_size=5).map("/".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    names=st.lists(NAMES | st.binary(min_size=1, max_size=12).map(lambda b: b.decode("latin-1")), max_size=6)
)
def test_g9_any_member_names_unpack_inside_the_folder_or_are_refused_with_a_code(
    names: list[str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    parent = tmp_path_factory.mktemp("prop")
    scratch = parent / "scratch"
    scratch.mkdir()
    entries = [Forged(b"bot.py", BOT)] + [
        Forged(name.encode("utf-8", "surrogateescape"), b"1") for name in names
    ]
    before = snapshot(parent)
    try:
        upload_into(forge_zip(entries), "p.zip", POLICY, scratch)
    except UploadRejected as exc:
        assert exc.code in set(Code)
        assert snapshot(parent) == before
        return
    outside = [path for path, _ in snapshot(parent) if not path.startswith("scratch")]
    assert outside == [path for path, _ in before if not path.startswith("scratch")]
    for here, _, files in os.walk(scratch):
        for name in files:
            real = Path(here, name).resolve()
            assert real.is_relative_to(scratch.resolve())
            assert not Path(here, name).is_symlink()


TAR_NAMES = st.lists(NAME_PARTS.filter(lambda part: part != "\x00"), min_size=1, max_size=5).map("/".join)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=st.lists(TAR_NAMES, max_size=6))
def test_g9_any_tar_member_names_unpack_inside_the_folder_or_are_refused_with_a_code(
    names: list[str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    parent = tmp_path_factory.mktemp("prop")
    scratch = parent / "scratch"
    scratch.mkdir()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as archive:
        for name, body in [("bot.py", BOT)] + [(name, b"1") for name in names]:
            archive.addfile(tar_file(name, body), io.BytesIO(body))
    data = buffer.getvalue()
    before = snapshot(parent)
    try:
        upload_into(data, "p.tgz", POLICY, scratch)
    except UploadRejected as exc:
        assert exc.code in set(Code)
        assert snapshot(parent) == before
        return
    assert [p for p, _ in snapshot(parent) if not p.startswith("scratch")] == [
        p for p, _ in before if not p.startswith("scratch")
    ]
    for here, _, files in os.walk(scratch):
        for name in files:
            assert Path(here, name).resolve().is_relative_to(scratch.resolve())
