"""The upload's scratch folder (specs/arena.md, Uploads: "unpacked into a private temporary folder
with the same caps"; G9, G11): where an upload is unpacked before it is packed as its artifact.

The archive zoo checks the names an archive may write; this checks the folder's own lifecycle: it is
made private (0700) under the configured root (`BOTARENA_UPLOAD_SCRATCH`), and removed after a
success, after a refusal while unpacking, and after an exception mid-pack; a root that cannot be
used is the server's 503, never a 500 nor a version; and a folder left by a process SIGKILLed
mid-unpack is swept by the next conversion, while a live process's folder is left alone."""

from __future__ import annotations

import dataclasses
import errno
import os
import signal
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from botarena.arena import archive, uploads
from botarena.arena.archive import UploadRejected, check_upload, pack_upload, scratch_prefix
from botarena.arena.policy import ArenaPolicy
from botarena.arena.uploads import SCRATCH_ENV
from botarena.arena.vocabulary import ArchiveRejection
from botarena.bots.artifacts import PackedBot
from botarena.server.arena.versions import SCRATCH_TROUBLE
from botarena.store.arena_versions import ArenaVersions

from .conftest import ArenaApp
from .forms import bot_source, bot_zip

REAL_PACK = archive.pack_folder


@dataclasses.dataclass
class Seen:
    """What a spy saw of the scratch folder while the upload was in it."""

    folder: Path
    mode: int
    uid: int
    files: list[str]


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The server's configured scratch root (an empty folder of its own)."""
    made = tmp_path / "scratch"
    made.mkdir()
    monkeypatch.setenv(SCRATCH_ENV, str(made))
    return made


def spy_on_pack(
    monkeypatch: pytest.MonkeyPatch, then: Callable[[Path], PackedBot] | None = None
) -> list[Seen]:
    """Record the folder `pack_folder` is given (the unpacked upload), then pack it (or do `then`)."""
    seen: list[Seen] = []

    def spy(folder: Path) -> PackedBot:
        info = os.stat(folder)
        files = sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))
        seen.append(Seen(Path(folder), stat.S_IMODE(info.st_mode), info.st_uid, files))
        return (then or REAL_PACK)(folder)

    monkeypatch.setattr(archive, "pack_folder", spy)
    return seen


def open_team(arena_app: ArenaApp) -> tuple[int, int, Any]:
    competition, _ = arena_app.open_competition("scratch")
    team, token = arena_app.team(competition.id, "alpha")
    return competition.id, team.id, token


def assert_private_under(seen: Seen, root: Path) -> None:
    assert seen.folder.parent == root  # under the configured root, nowhere else
    assert seen.folder.name.startswith(scratch_prefix())  # named by its process (pid@host)
    assert seen.mode == 0o700  # private: no other user may list, read or write it
    assert seen.uid == os.getuid()


def test_g9_scratch_folder_private_under_the_configured_root_and_removed_after_success(
    arena_app: ArenaApp, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = spy_on_pack(monkeypatch)
    cid, tid, token = open_team(arena_app)
    data = bot_zip({"bot/bot.py": bot_source("ok").decode(), "bot/lib/data.txt": "x" * 100})
    answer = arena_app.upload(cid, tid, token, data, "bot.zip")
    assert answer.status == 201, answer.text
    (only,) = seen
    assert_private_under(only, root)
    assert only.files == ["bot.py", "lib", "lib/data.txt"]  # the top folder flattened, inside it
    assert not only.folder.exists()
    assert list(root.iterdir()) == []  # nothing left under the root


def test_g9_scratch_folder_removed_after_a_refusal_while_unpacking(
    root: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A checked upload whose bytes unpack to more than they were checked at (what a time-of-check to
    time-of-use forgery would give) is refused while it is written: its folder goes with it."""
    policy = policy_of_default()
    checked = check_upload(bot_zip({"bot.py": "print(1)\n", "big.txt": "y" * 5000}), "bot.zip", policy)
    forged = dataclasses.replace(
        checked,
        entries=tuple(dataclasses.replace(e, size=10) if e.name == "big.txt" else e for e in checked.entries),
    )
    made: list[Path] = []
    real = archive.unpack_checked

    def spy(upload: Any, into: Path, policy: Any) -> None:
        made.append(into)
        real(upload, into, policy)

    monkeypatch.setattr(archive, "unpack_checked", spy)
    with pytest.raises(UploadRejected) as refused:
        pack_upload(forged, policy, scratch_root=root)
    assert refused.value.code is ArchiveRejection.TOO_BIG
    assert "'big.txt' unpacks to more than it was checked at" in refused.value.detail
    (folder,) = made
    assert folder.parent == root
    assert not folder.exists() and list(root.iterdir()) == []


def test_g9_a_refusal_on_the_bytes_makes_no_scratch_folder_at_all(
    arena_app: ArenaApp, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = spy_on_pack(monkeypatch)
    cid, tid, token = open_team(arena_app)
    data = bot_zip({"../escape.py": "print(1)\n", "bot.py": "print(2)\n"})  # zip slip
    answer = arena_app.upload(cid, tid, token, data, "bot.zip")
    assert answer.status == 422 and answer.json()["code"] == "dotdot", answer.text
    assert seen == [] and list(root.iterdir()) == []
    assert not (root.parent / "escape.py").exists()


def test_g11_scratch_folder_removed_after_an_exception_mid_pack(
    arena_app: ArenaApp, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk (or tmpfs) fills while the upload is packed: 503 with Retry-After and one line that
    names no folder of the server's, no version, the folder removed; a team's retry then succeeds."""

    def full(folder: Path) -> PackedBot:
        assert (folder / "bot.py").is_file()  # mid-pack: the upload is unpacked in the folder
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(folder / "bot.py"))

    seen = spy_on_pack(monkeypatch, full)
    cid, tid, token = open_team(arena_app)
    answer = arena_app.upload(cid, tid, token, bot_source("full"), "bot.py")
    assert answer.status == 503, answer.text
    assert answer.json() == {"detail": SCRATCH_TROUBLE}
    assert answer.headers.get("retry-after") == "30"
    assert str(root) not in answer.text
    (only,) = seen
    assert_private_under(only, root)
    assert not only.folder.exists() and list(root.iterdir()) == []
    assert ArenaVersions(arena_app.arena).versions(tid) == []  # nothing recorded

    monkeypatch.setattr(archive, "pack_folder", REAL_PACK)  # room again: the same upload is taken
    retried = arena_app.upload(cid, tid, token, bot_source("full"), "bot.py")
    assert retried.status == 201, retried.text
    assert list(root.iterdir()) == []


def test_g11_an_unexpected_exception_mid_pack_still_removes_the_folder(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(folder: Path) -> PackedBot:
        raise RuntimeError("a bug in the packer")

    seen = spy_on_pack(monkeypatch, broken)
    checked = check_upload(bot_source("bug"), "bot.py", policy_of_default())
    with pytest.raises(RuntimeError, match="a bug in the packer"):
        pack_upload(checked, policy_of_default(), scratch_root=root)
    (only,) = seen
    assert_private_under(only, root)
    assert not only.folder.exists() and list(root.iterdir()) == []


@pytest.mark.parametrize("problem", ["missing", "a file"])
def test_g11_an_unusable_scratch_root_is_503_never_500(
    arena_app: ArenaApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, problem: str
) -> None:
    where = tmp_path / "no-such-folder"
    if problem == "a file":
        where.write_text("not a folder")
    monkeypatch.setenv(SCRATCH_ENV, str(where))
    cid, tid, token = open_team(arena_app)
    answer = arena_app.upload(cid, tid, token, bot_source("nowhere"), "bot.py")
    assert answer.status == 503, answer.text
    assert answer.json() == {"detail": SCRATCH_TROUBLE}
    assert str(where) not in answer.text
    assert ArenaVersions(arena_app.arena).versions(tid) == []


CHILD = """
import os, sys
from pathlib import Path
from botarena.arena import archive
from botarena.arena.archive import check_upload, pack_upload
from botarena.arena.policy import ArenaPolicy

def stuck(folder):
    print(folder, flush=True)  # unpacked: the parent may kill us now
    sys.stdin.readline()  # never answered
    raise SystemExit(1)

archive.pack_folder = stuck
policy = ArenaPolicy()
checked = check_upload(b"print('killed mid-pack')\\n", "bot.py", policy)
pack_upload(checked, policy, scratch_root=Path(sys.argv[1]))
"""


def test_g11_a_folder_left_by_a_process_sigkilled_mid_pack_is_swept_by_the_next_upload(
    arena_app: ArenaApp, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(root)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert child.stdout is not None
        left = Path(child.stdout.readline().strip())  # the child is inside pack_folder now
        assert left.parent == root and (left / "bot.py").is_file(), child.stderr
    finally:
        child.kill()  # SIGKILL: no finally runs in the child
        child.communicate(timeout=60)
    assert child.returncode == -signal.SIGKILL
    assert left.is_dir()  # the stray folder the kill left
    assert left.name.startswith(f"botarena-upload-{child.pid}@")
    alive = root / f"{scratch_prefix()}inuse"  # a folder of a live process (this one): kept
    alive.mkdir(mode=0o700)
    elsewhere = root / f"botarena-upload-{child.pid}@another.host-abc"  # another host's: kept
    elsewhere.mkdir(mode=0o700)
    unnamed = root / "botarena-upload-k2j4h5"  # not named by a process: kept
    unnamed.mkdir(mode=0o700)

    monkeypatch.setattr(uploads, "_swept", set())  # as a newly started server
    cid, tid, token = open_team(arena_app)
    answer = arena_app.upload(cid, tid, token, bot_source("after the kill"), "bot.py")
    assert answer.status == 201, answer.text
    assert not left.exists()
    assert sorted(p.name for p in root.iterdir()) == sorted([alive.name, elsewhere.name, unnamed.name])


def policy_of_default() -> ArenaPolicy:
    return ArenaPolicy()
