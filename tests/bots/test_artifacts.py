"""Bots as content-addressed artifacts (issue 18, item 1): canonical packing, folder bots, the
worker's cache, and the attacks a worker's unpacking stops (a hostile archive, a tampered store)."""

from __future__ import annotations

import errno
import gzip
import hashlib
import io
import multiprocessing
import os
import re
import shlex
import stat
import sys
import tarfile
import threading
import time
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import insert

from botarena.bots import artifacts, nofollow
from botarena.bots.artifacts import (
    PLACEHOLDER,
    ArtifactCache,
    ArtifactCacheError,
    ArtifactError,
    ArtifactUnavailable,
    extract,
    materialize,
    materialize_specs,
    pack_spec,
)
from botarena.bots.nofollow import Folder, Listed, UnsafeFileError
from botarena.bots.resolve import TRUSTED, BotSpecError, check_spec, resolve_bot, untrusted
from botarena.bots.sandbox import SandboxUnavailable, check_sandbox
from botarena.bots.subprocess import SubprocessBot
from botarena.core.registry import get_game
from botarena.runner import run_match
from botarena.store import Store, StoreError
from botarena.store import artifacts as store_artifacts
from botarena.store.artifacts import artifact_source, store_fetcher
from botarena.store.models import Artifact
from botarena.tournament.executor import MatchFailure, MatchTask, MatchTaskError, play_batch, play_task

DRONES = get_game("drones")
HELPER = """def move(obs):
    return {"newProducers": obs["producers"], "newSoldiers": 1, "launchAttack": obs["turn"] % 4 == 0}
"""
FOLDER_BOT = "from helper import move\n\n\ndef act(obs):\n    return move(obs)\n"


def folder_bot(folder: Path) -> Path:
    """A folder bot whose entry imports a sibling module."""
    folder.mkdir(parents=True)
    (folder / "helper.py").write_text(HELPER)
    (folder / "bot.py").write_text(FOLDER_BOT)
    (folder / "data").mkdir()
    (folder / "data" / "table.txt").write_text("1 2 3\n")
    return folder


def members(data: bytes) -> dict[str, tarfile.TarInfo]:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        return {m.name: m for m in tar.getmembers()}


def sandbox_or_none() -> Any:
    try:
        check_sandbox()
    except SandboxUnavailable as exc:
        if os.environ.get("BOTARENA_REQUIRE_SANDBOX") == "1":
            pytest.fail(f"the sandbox is unavailable: {exc}", pytrace=False)
        return None
    return untrusted().sandbox


# -- packing ---------------------------------------------------------------------------------------


def test_packing_is_canonical_same_files_elsewhere_same_digest_an_edit_another(tmp_path: Path) -> None:
    one = folder_bot(tmp_path / "one" / "bot")
    two = folder_bot(tmp_path / "elsewhere" / "deeper" / "renamed")
    for path in two.rglob("*"):  # other times, other permission bits than the exec bit
        os.utime(path, (1_000_000, 1_000_000))
    os.chmod(two / "helper.py", 0o600)
    first, second = pack_spec(str(one), DRONES), pack_spec(str(two), DRONES)
    assert first is not None and second is not None
    assert first.data == second.data and first.digest == second.digest
    assert first.digest == hashlib.sha256(first.data).hexdigest()
    assert first.run_spec == PLACEHOLDER and first.files == 3
    found = members(first.data)
    assert sorted(found) == ["bot.py", "data", "data/table.txt", "helper.py"]
    for info in found.values():
        assert info.mtime == 0 and info.uid == info.gid == 0 and info.uname == info.gname == ""
        assert info.mode in (0o644, 0o755)
    (two / "helper.py").write_text(HELPER + "# edited\n")
    edited = pack_spec(str(two), DRONES)
    assert edited is not None and edited.digest != first.digest


def test_the_exec_bit_is_kept_and_caches_and_version_control_are_left_out(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "run").write_text("#!/bin/sh\nexec cat\n")
    os.chmod(folder / "run", 0o700)
    for skipped in ("__pycache__", ".git"):
        (folder / skipped).mkdir()
        (folder / skipped / "junk").write_text("x")
    packed = pack_spec(str(folder), DRONES)
    assert packed is not None
    assert {name: info.mode for name, info in members(packed.data).items()} == {"run": 0o755}


def test_a_file_spec_packs_the_file_alone(tmp_path: Path) -> None:
    bot = tmp_path / "bots" / "mine.py"
    bot.parent.mkdir()
    bot.write_text("def act(obs):\n    return {}\n")
    (tmp_path / "bots" / "rival.py").write_text("SECRET = 1\n")  # another bot beside it: not shipped
    packed = pack_spec(str(bot), DRONES)
    assert packed is not None and packed.run_spec == f"{PLACEHOLDER}/mine.py"
    assert list(members(packed.data)) == ["mine.py"]


def test_a_cpp_file_spec_packs_its_source_and_the_headers_beside_it(tmp_path: Path) -> None:
    domains = get_game("domains")
    source = tmp_path / "AIMine.cc"
    source.write_text('#include "Mine.hh"\n')
    (tmp_path / "Mine.hh").write_text("// header\n")
    (tmp_path / "notes.txt").write_text("not part of the build\n")
    packed = pack_spec(str(source), domains)
    assert packed is not None and packed.run_spec == f"{PLACEHOLDER}/AIMine.cc"
    assert sorted(members(packed.data)) == ["AIMine.cc", "Mine.hh"]


def test_a_command_spec_packs_the_files_it_names_under_their_common_parent(tmp_path: Path) -> None:
    code = tmp_path / "bots" / "code" / "x.py"
    data = tmp_path / "bots" / "data" / "weights.txt"
    for path in (code, data):
        path.parent.mkdir(parents=True)
        path.write_text("w\n")
    (tmp_path / "bots" / "data" / "other.txt").write_text("not named\n")
    command = f"cmd:{shlex.quote(sys.executable)} {code} --weights={data}"
    packed = pack_spec(command, DRONES)
    assert packed is not None
    assert sorted(members(packed.data)) == ["code/x.py", "data/weights.txt"]  # the interpreter stays out
    argv = shlex.split(packed.run_spec.removeprefix("cmd:"))
    assert argv == [sys.executable, f"{PLACEHOLDER}/code/x.py", f"--weights={PLACEHOLDER}/data/weights.txt"]
    odd = Path("/cache/it's here")
    assert shlex.split(materialize(packed.run_spec, odd).removeprefix("cmd:"))[1] == f"{odd}/code/x.py"


def test_specs_naming_no_files_are_not_packed(tmp_path: Path) -> None:
    assert pack_spec("tactician", DRONES) is None
    assert pack_spec("http://127.0.0.1:9/bot", DRONES) is None
    assert pack_spec("cmd:python3 -c pass", DRONES) is None
    assert pack_spec(f"{sys.executable} -m botarena.kit", DRONES) is None


def test_oversized_and_too_deeply_nested_bots_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = folder_bot(tmp_path / "bot")
    monkeypatch.setattr(artifacts, "MAX_UNPACKED_BYTES", 100)
    with pytest.raises(BotSpecError, match=r"the bot's files are more than 0\.0 MiB"):
        pack_spec(str(folder), DRONES)
    monkeypatch.setattr(artifacts, "MAX_UNPACKED_BYTES", 1 << 20)
    monkeypatch.setattr(artifacts, "MAX_FILES", 3)
    with pytest.raises(BotSpecError, match=r"more than 3 files and folders"):
        pack_spec(str(folder), DRONES)
    monkeypatch.setattr(artifacts, "MAX_FILES", 100)
    deep = folder / "d"
    for _ in range(4):
        deep = deep / "d"
    deep.mkdir(parents=True)
    monkeypatch.setattr(artifacts, "MAX_DEPTH", 3)
    with pytest.raises(BotSpecError, match=r"nested more than 3 deep"):
        pack_spec(str(folder), DRONES)


# -- packing never follows a link (issue 25, item 3) -------------------------------------------------

SECRET = "S3CRET-p4ck-7e57-host-key"
"""The content of a root-only (0600) host file; whatever a pack holds, it must never hold this."""


def host_secret(tmp_path: Path) -> Path:
    """A root-only file outside every bot's folder, recognisable by its content (the tests run as
    root, who could read it anyway: what counts is that it is never packed)."""
    secret = tmp_path / "host" / "botarena.key"
    secret.parent.mkdir()
    secret.write_text(f"{SECRET}\n")
    os.chmod(secret, 0o600)
    return secret


def file_bot(tmp_path: Path, name: str = "mine.py") -> Path:
    bot = tmp_path / "bots" / name
    bot.parent.mkdir(parents=True, exist_ok=True)
    bot.write_text(FOLDER_BOT.replace("from helper import move", HELPER))
    return bot


def _file_link(tmp_path: Path, secret: Path) -> tuple[str, str]:
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "leak.py").symlink_to(secret)
    return str(tmp_path / "bots" / "leak.py"), r"leak\.py is a symlink; packing follows no link"


def _file_hardlink(tmp_path: Path, secret: Path) -> tuple[str, str]:
    (tmp_path / "bots").mkdir()
    os.link(secret, tmp_path / "bots" / "leak.py")
    return str(tmp_path / "bots" / "leak.py"), r"leak\.py is a hard link \(the file has 2 names\)"


def _in_folder(make: Any, message: str) -> Any:
    """A case: a folder bot with `make(folder, secret)` done inside it."""

    def case(tmp_path: Path, secret: Path) -> tuple[str, str]:
        folder = folder_bot(tmp_path / "bot")
        make(folder, secret)
        return str(folder), message

    return case


def _folder_is_link(tmp_path: Path, secret: Path) -> tuple[str, str]:
    real = folder_bot(tmp_path / "real")
    (tmp_path / "alice").symlink_to(real)  # an uploaded tree's top folder could be the entrant's link
    return str(tmp_path / "alice"), r"alice is a symlink; packing follows no link \(name the folder"


def _file_in_linked_folder(tmp_path: Path, secret: Path) -> tuple[str, str]:
    bot = file_bot(tmp_path / "real")
    (tmp_path / "alice").symlink_to(bot.parent)
    return str(tmp_path / "alice" / bot.name), r"alice is a symlink; packing follows no link"


def _command_argument_link(tmp_path: Path, secret: Path) -> tuple[str, str]:
    bot = file_bot(tmp_path)
    (bot.parent / "weights.txt").symlink_to(secret)
    spec = f"cmd:{shlex.quote(sys.executable)} {bot} --weights={bot.parent / 'weights.txt'}"
    return spec, r"weights\.txt is a symlink; packing follows no link"


def _command_program_link(tmp_path: Path, secret: Path) -> tuple[str, str]:
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "run").symlink_to(secret)
    return f"{tmp_path / 'bots' / 'run'} --fast", r"run is a symlink; packing follows no link"


def _command_argument_hardlink(tmp_path: Path, secret: Path) -> tuple[str, str]:
    bot = file_bot(tmp_path)
    os.link(secret, bot.parent / "weights.txt")
    return f"cmd:{bot} {bot.parent / 'weights.txt'}", r"weights\.txt is a hard link"


def _command_folder_with_link(tmp_path: Path, secret: Path) -> tuple[str, str]:
    bot = file_bot(tmp_path)
    (bot.parent / "data").mkdir()
    (bot.parent / "data" / "w.txt").symlink_to(secret)
    return f"cmd:{bot} {bot.parent / 'data'}", r"data/w\.txt is a symlink"


def _cpp_header_link(tmp_path: Path, secret: Path) -> tuple[str, str]:
    source = tmp_path / "bots" / "AIMine.cc"
    source.parent.mkdir()
    source.write_text('#include "Notes.hh"\n')
    (source.parent / "Notes.hh").symlink_to(secret)
    return str(source), r"Notes\.hh is a symlink; packing follows no link"


def _device(folder: Path, secret: Path) -> None:
    try:
        os.mknod(folder / "null", 0o600 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device needs CAP_MKNOD")


HOSTILE_TREES = {
    "file entrant is a symlink": _file_link,
    "file entrant is a hard link": _file_hardlink,
    "folder entrant is a symlink": _folder_is_link,
    "file entrant in a linked folder": _file_in_linked_folder,
    "absolute symlink out": _in_folder(
        lambda folder, secret: (folder / "notes.txt").symlink_to(secret), r"notes\.txt is a symlink"
    ),
    "relative symlink out": _in_folder(
        lambda folder, secret: (folder / "notes.txt").symlink_to(Path("..") / "host" / secret.name),
        r"notes\.txt is a symlink",
    ),
    "absolute symlink inside": _in_folder(
        lambda folder, secret: (folder / "alias.py").symlink_to(folder / "helper.py"),
        r"bot/alias\.py is a symlink",
    ),
    "relative symlink inside": _in_folder(
        lambda folder, secret: (folder / "data" / "alias.txt").symlink_to("table.txt"),
        r"bot/data/alias\.txt is a symlink",
    ),
    "symlink to a folder out": _in_folder(
        lambda folder, secret: (folder / "host").symlink_to(secret.parent), r"bot/host is a symlink"
    ),
    "symlink to a folder inside": _in_folder(
        lambda folder, secret: (folder / "more").symlink_to("data"), r"bot/more is a symlink"
    ),
    "hard link to the secret inside": _in_folder(
        lambda folder, secret: os.link(secret, folder / "data" / "notes.txt"),
        r"data/notes\.txt is a hard link \(the file has 2 names\)",
    ),
    "FIFO": _in_folder(
        lambda folder, secret: os.mkfifo(folder / "pipe"), r"bot/pipe is a FIFO, not a regular file"
    ),
    "socket": _in_folder(
        lambda folder, secret: os.mknod(folder / "sock", 0o600 | stat.S_IFSOCK),
        r"bot/sock is a socket, not a regular file",
    ),
    "device": _in_folder(_device, r"bot/null is a character device, not a regular file"),
    "command argument is a symlink": _command_argument_link,
    "command program is a symlink": _command_program_link,
    "command argument is a hard link": _command_argument_hardlink,
    "command folder holds a symlink": _command_folder_with_link,
    "C++ header beside the player is a symlink": _cpp_header_link,
}


def refused_in_one_line(call: Any, message: str) -> str:
    """What `call()` raised: a BotSpecError in one line, matching `message`, without the secret."""
    with pytest.raises(BotSpecError, match=message) as raised:
        call()
    text = str(raised.value)
    assert "\n" not in text and SECRET not in text, text
    return text


def without_hanging(call: Any, under: Path) -> Any:
    """`call()` in a thread, failing (not hanging) if it blocks: a FIFO opened for reading waits for
    a writer, so the thread is released by opening every FIFO named `pipe` under `under` for writing."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["returned"] = call()
        except BaseException as exc:  # handed to the test's thread
            outcome["raised"] = exc

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(timeout=30)
    if worker.is_alive():
        for fifo in under.rglob("pipe"):
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail(f"packing under {under} hangs")
    if "raised" in outcome:
        raise outcome["raised"]
    return outcome["returned"]


@pytest.mark.parametrize("case", list(HOSTILE_TREES))
def test_a_hostile_tree_is_refused_in_one_line_naming_the_path(tmp_path: Path, case: str) -> None:
    """Every link an entrant controls (inside or out, absolute or relative, to a file or a folder, a
    hard link), and every special file, is refused by name; packing never hangs on a FIFO."""
    spec, message = HOSTILE_TREES[case](tmp_path, host_secret(tmp_path))
    game = get_game("domains") if spec.endswith(".cc") else DRONES
    refused_in_one_line(lambda: without_hanging(lambda: pack_spec(spec, game), tmp_path), message)


def test_a_tournament_with_a_linking_entrant_is_refused_up_front_and_stores_nothing(tmp_path: Path) -> None:
    """`create_tournament` refuses every hostile tree in one line, with the entrant first or last
    among opponents of every kind (in-process starter, subprocess folder bot, HTTP), before a byte
    is written: no artifact (the secret nowhere in the store), no bot, no tournament."""
    from sqlalchemy import func, select

    from botarena.store.models import Bot
    from botarena.tournament.service import Entrant, TournamentPlan, create_tournament

    good = folder_bot(tmp_path / "good")
    opponents = [
        Entrant("starter", "tactician"),
        Entrant("folder", str(good)),
        Entrant("web", "http://127.0.0.1:9/"),
    ]
    store = Store.open(f"sqlite:///{tmp_path / 'arena.db'}")
    try:
        for i, (case, make) in enumerate(HOSTILE_TREES.items()):
            if case == "device" or case.startswith("C++"):
                continue  # a device needs CAP_MKNOD, a C++ player a game with a C++ kit (domains)
            where = tmp_path / f"case{i}"
            where.mkdir()
            spec, message = make(where, host_secret(where))
            for first in (True, False):
                bad = Entrant("bad", spec)
                entrants = [bad, *opponents] if first else [*opponents, bad]
                plan = TournamentPlan(name=f"t{i}", game="drones", format="round-robin", entrants=entrants)
                create = partial(create_tournament, store, plan, isolation=untrusted(sandbox=None))
                refused_in_one_line(partial(without_hanging, create, where), message)
        with store._write_connection("inspect") as conn:
            assert conn.scalar(select(func.count()).select_from(Artifact)) == 0
            assert conn.scalar(select(func.count()).select_from(Bot)) == 0
        assert store.list_tournaments() == []
    finally:
        store.close()


def test_the_cli_refuses_a_linking_entrant_in_one_line_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from botarena.cli import main

    secret = host_secret(tmp_path)
    spec, message = _file_link(tmp_path, secret)
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    args = ["tournament", "drones", "--bots", f"x={spec}", "--bots", "tactician", "--db", db]
    assert (
        main([*args, "--workers", "0", "--no-progress", "--unsandboxed"]) == 2
    )  # no sandbox needed to refuse
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and re.search(message, captured.err), captured.err
    assert SECRET not in captured.out + captured.err
    with Store.open(db) as store:
        assert store.list_tournaments() == []


def test_a_file_replaced_after_the_listing_is_refused_never_read(tmp_path: Path) -> None:
    """The race, one step at a time: the listing sees a regular file, which is then replaced (by a
    symlink to the secret, a hard link to it, another file holding it, a FIFO, a folder) before it
    is opened; the open or the check on the descriptor refuses it, and a FIFO does not block."""
    secret = host_secret(tmp_path)

    def as_link(path: Path) -> None:
        path.symlink_to(secret)

    def as_hardlink(path: Path) -> None:
        os.link(secret, path)

    def as_copy(path: Path) -> None:
        path.write_text(secret.read_text())

    def as_fifo(path: Path) -> None:
        os.mkfifo(path)

    swaps = {
        "symlink": (as_link, r"helper\.py is a symlink"),
        "hard link": (as_hardlink, r"helper\.py was replaced while it was being packed"),
        "another file": (as_copy, r"helper\.py was replaced while it was being packed"),
        "FIFO": (as_fifo, r"helper\.py was replaced while it was being packed"),
        "folder": (Path.mkdir, r"helper\.py was replaced while it was being packed"),
    }
    for kind, (swap, message) in swaps.items():
        folder = folder_bot(tmp_path / kind.replace(" ", "-"))
        with Folder.open_root(folder) as root:
            listed = {entry.name: entry for entry in root.list()}["helper.py"]
            swap(tmp_path / "swapped")  # made beside it, then renamed into its place, as an attacker would
            os.rename(folder / "helper.py", tmp_path / f"kept-{kind}")  # kept: its inode is not reused
            os.rename(tmp_path / "swapped", folder / "helper.py")
            found: dict[str, Any] = {}
            reader = threading.Thread(target=_read_into, args=(found, root, listed), daemon=True)
            reader.start()
            reader.join(timeout=30)
            if reader.is_alive():
                os.close(os.open(folder / "helper.py", os.O_WRONLY | os.O_NONBLOCK))
                pytest.fail(f"reading a {kind} swapped in blocks")
            assert isinstance(found["error"], UnsafeFileError), (kind, found)
            assert re.search(message, str(found["error"])), (kind, found)
    folder = folder_bot(tmp_path / "folder-for-a-link")
    with Folder.open_root(folder) as root:  # a folder swapped for a link after the listing
        listed = {entry.name: entry for entry in root.list()}["data"]
        os.rename(folder / "data", tmp_path / "kept-data")
        (folder / "data").symlink_to(secret.parent)
        with pytest.raises(UnsafeFileError, match=r"folder-for-a-link/data is a symlink"):
            root.subfolder(listed)


def test_a_hard_link_renamed_away_between_the_open_and_its_check_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The interleaving the swap race found: the listing and the open both see helper.py as a hard
    link to the secret (two names), and the entrant renames its own file back over it before the
    descriptor is checked, so the open file has one name again (the secret's own, outside the
    folder). The name is looked at again after the open: no longer that file, so refused."""
    secret = host_secret(tmp_path)
    folder = folder_bot(tmp_path / "bot")
    own = tmp_path / "own.py"
    os.rename(folder / "helper.py", own)
    os.link(secret, folder / "helper.py")
    real_fstat = nofollow.os.fstat

    def rename_back_then_fstat(fd: int) -> os.stat_result:
        if os.path.samestat(real_fstat(fd), os.stat(secret)) and own.exists():
            os.rename(own, folder / "helper.py")  # the link's other name is gone: nlink 1 again
        return real_fstat(fd)

    with Folder.open_root(folder) as root:
        listed = {entry.name: entry for entry in root.list()}["helper.py"]
        monkeypatch.setattr(nofollow.os, "fstat", rename_back_then_fstat)
        with pytest.raises(UnsafeFileError, match=r"bot/helper\.py was replaced while it was being packed"):
            root.read(listed, 1 << 20)
    assert not own.exists(), "the interleaving did not happen"


def _read_into(found: dict[str, Any], root: Folder, listed: Listed) -> None:
    """`found["error"]`: what reading `listed` raised (or the bytes it returned)."""
    try:
        found["error"] = root.read(listed, 1 << 20)[0]
    except BaseException as exc:  # what the test inspects
        found["error"] = exc


def _swap_helper(folder: str, secret: str, staging: str, started: Any, stop: Any) -> None:
    """Swap `folder`/helper.py between itself, a symlink to the secret and a hard link to it (each
    renamed into place from `staging`, so the name never goes missing) until told to stop, or for
    60 s at most."""
    target, real = os.path.join(folder, "helper.py"), os.path.join(staging, "real")
    link, hard = os.path.join(staging, "link"), os.path.join(staging, "hard")
    deadline = time.monotonic() + 60
    while not stop.is_set() and time.monotonic() < deadline:
        for make, name in ((lambda p: os.symlink(secret, p), link), (lambda p: os.link(secret, p), hard)):
            make(name)
            os.replace(name, target)
            with open(real, "w") as out:
                out.write(HELPER)
            os.replace(real, target)
            started.set()


def test_swapping_a_file_for_a_link_while_packing_never_ships_the_secret(tmp_path: Path) -> None:
    """Another process swaps a bot's file for a symlink (and a hard link) to a root-only secret and
    back, in a tight loop, while the folder is packed again and again (200 packs or 5 s, whichever
    comes first): every pack either holds exactly the bot's own files or is refused in one line."""
    secret = host_secret(tmp_path)
    folder = folder_bot(tmp_path / "bot")
    staging = tmp_path / "staging"  # on the same filesystem, outside the folder being packed
    staging.mkdir()
    context = multiprocessing.get_context("fork")
    started, stop = context.Event(), context.Event()
    swapper = context.Process(
        target=_swap_helper, args=(str(folder), str(secret), str(staging), started, stop)
    )
    swapper.start()
    outcomes: dict[str, int] = {"packed": 0, "refused": 0}
    try:
        assert started.wait(timeout=30), "the swapper did not start"
        deadline = time.monotonic() + 5
        for _ in range(200):
            if time.monotonic() > deadline:
                break
            try:
                packed = pack_spec(str(folder), DRONES)
            except BotSpecError as exc:
                message = str(exc)
                assert "\n" not in message and SECRET not in message, message
                assert re.search(
                    r"bot/helper\.py (is a symlink|is a hard link|was replaced while it was being packed)",
                    message,
                ), message
                outcomes["refused"] += 1
                continue
            assert packed is not None
            assert SECRET.encode() not in gzip.decompress(packed.data), "the secret was packed"
            assert contents(packed.data) == {
                "bot.py": FOLDER_BOT.encode(), "helper.py": HELPER.encode(), "data/table.txt": b"1 2 3\n"
            }  # fmt: skip
            outcomes["packed"] += 1
    finally:
        stop.set()
        swapper.join(timeout=60)
    assert swapper.exitcode == 0
    assert sum(outcomes.values()) > 0, outcomes


def contents(data: bytes) -> dict[str, bytes]:
    """The regular files of an archive, by name."""
    found: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():
            source = tar.extractfile(member) if member.isreg() else None
            if source is not None:
                found[member.name] = source.read()
    return found


# -- folder bots -----------------------------------------------------------------------------------


def test_a_folder_without_an_entry_says_what_was_looked_for(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "run").write_text("not executable\n")
    for call in (check_spec, resolve_bot):
        with pytest.raises(
            BotSpecError, match=r"no bot in it: looked for bot\.py, main\.py, bot\.js, main\.js"
        ):
            call(str(tmp_path / "empty"), DRONES)


@pytest.mark.parametrize("trusted", [True, False], ids=["trusted", "untrusted"])
def test_a_folder_bot_imports_its_sibling_module_in_both_seats(tmp_path: Path, trusted: bool) -> None:
    """The whole folder is the bot's: its entry imports its sibling module, trusted (`play`) and
    untrusted (sandboxed where available), in both seats, against another folder bot whose sibling
    module has the same name (each runs in its own interpreter: no shared sys.modules)."""
    folder = folder_bot(tmp_path / "bot")
    rival = tmp_path / "rival"
    rival.mkdir()
    (rival / "helper.py").write_text(
        "def move(obs):\n    return {'newProducers': 0, 'newSoldiers': 0, 'launchAttack': False}\n"
    )
    (rival / "main.py").write_text("import helper\n\n\ndef act(obs):\n    return helper.move(obs)\n")
    isolation = TRUSTED if trusted else untrusted(sandbox_or_none())
    for seat in (0, 1):
        bot = resolve_bot(str(folder), DRONES, isolation=isolation)
        opponent = resolve_bot(str(rival), DRONES, isolation=isolation)
        assert isinstance(bot, SubprocessBot) and bot.bot_files == [str(folder)] and bot.cwd == str(folder)
        bots = [bot, opponent] if seat == 0 else [opponent, bot]
        run = run_match(DRONES, bots, config=DRONES.config("default", {}), seed=5)
        assert all(set(statuses) == {"OK"} for statuses in run.replay.statuses), (seat, run.replay.logs)
        replies = {reply["seat"]: reply["payload"] for reply in run.replay.steps[0]["replies"]}
        assert (
            replies[seat]["newSoldiers"] == 1 and replies[1 - seat]["newSoldiers"] == 0
        )  # each its own helper


def test_a_javascript_folder_bot_imports_its_sibling_module(tmp_path: Path) -> None:
    """A 2018 drones module (kits/drones-js) split in two files, through the Node adapter, sandboxed
    where available, in both seats against a Python folder bot."""
    from botarena.bots.node import NodeUnavailableError, check_node

    try:
        check_node()
    except NodeUnavailableError as exc:
        pytest.skip(str(exc))
    folder = tmp_path / "jsbot"
    folder.mkdir()
    (folder / "helper.js").write_text(
        "export function move(state) {\n"
        "  return { newProducers: state.producers, newSoldiers: 0, launchAttack: false };\n}\n"
    )
    (folder / "bot.js").write_text(
        'import { move } from "./helper.js";\n'
        'export default function create() { return { meta: { name: "js" }, playTurn: move }; }\n'
    )
    isolation = untrusted(sandbox_or_none())
    other = folder_bot(tmp_path / "py")
    for seat in (0, 1):
        bots = [
            resolve_bot(str(folder), DRONES, isolation=isolation),
            resolve_bot(str(other), DRONES, isolation=isolation),
        ]
        if seat == 1:
            bots.reverse()
        run = run_match(DRONES, bots, config=DRONES.config("default", {}), seed=5)
        assert all(set(statuses) == {"OK"} for statuses in run.replay.statuses), (seat, run.replay.logs)


# -- unpacking -------------------------------------------------------------------------------------


def archive(*entries: tarfile.TarInfo | tuple[str, bytes]) -> bytes:
    """A tar.gz of hand-made members (what an attacker who controls the store could write)."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz") as tar:
        for entry in entries:
            if isinstance(entry, tarfile.TarInfo):
                tar.addfile(entry)
            else:
                info = tarfile.TarInfo(entry[0])
                info.size = len(entry[1])
                tar.addfile(info, io.BytesIO(entry[1]))
    return raw.getvalue()


def link(name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    return info


def device(name: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = tarfile.CHRTYPE
    info.devmajor, info.devminor = 1, 3
    return info


HOSTILE = {
    "absolute name": (archive(("/tmp/botarena-pwned", b"x")), r"unsafe name '/tmp/botarena-pwned'"),
    "dot-dot": (archive(("a/../../escaped", b"x")), r"unsafe name 'a/\.\./\.\./escaped'"),
    "symlink out": (archive(link("evil", "/etc")), r"'evil', which is not a plain file or folder"),
    "symlink then write through": (
        archive(link("d", ".."), ("d/escaped", b"x")),
        r"'d', which is not a plain file or folder",
    ),
    "hard link": (archive(("a", b"x"), link("b", "/etc/passwd", tarfile.LNKTYPE)), r"'b', which is not"),
    "device": (archive(device("null")), r"'null', which is not a plain file or folder"),
    "file where a folder is": (archive(("a", b"x"), ("a/b", b"y")), r"puts a folder where a file is"),
    "twice": (archive(("a", b"x"), ("a", b"y")), r"holds 'a' twice"),
    "not an archive": (b"\x1f\x8b garbage", r"is not a readable archive"),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_archive_is_refused_and_nothing_leaves_the_cache(tmp_path: Path, case: str) -> None:
    data, message = HOSTILE[case]
    digest = hashlib.sha256(data).hexdigest()
    cache = ArtifactCache(tmp_path / "cache")
    with pytest.raises(ArtifactError, match=message) as caught:
        cache.unpacked(digest, lambda _: data)
    assert digest in str(caught.value)
    assert not (tmp_path / "escaped").exists() and not Path("/tmp/botarena-pwned").exists()
    assert not cache.path(digest).exists()
    assert list((tmp_path / "cache").iterdir()) == []  # the scratch folder is gone too


CACHE_DISK_ERRORS = {
    "ENOSPC": "full: No space left on device",
    "EDQUOT": "over its quota: Disk quota exceeded",
    "EROFS": "read-only: Read-only file system",
    "EACCES": "not writable: Permission denied",
}


@pytest.mark.parametrize("code", list(CACHE_DISK_ERRORS))
def test_a_cache_disk_that_cannot_take_an_artifact_says_so_and_the_match_is_the_platforms_fault(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: str
) -> None:
    """The disk's error at the write (simulated: a real full tmpfs is in
    tests/tournament/test_platform_faults.py) is the cache's, never 'not a readable archive', and a
    match that meets it is a platform failure: played again, never failed."""
    packed = pack_spec(str(folder_bot(tmp_path / "bot")), DRONES)
    assert packed is not None
    number = getattr(errno, code)
    real_open = os.open

    def disk_says_no(path: Any, flags: int, mode: int = 0o777, **kw: Any) -> int:
        if flags & os.O_CREAT and str(path).startswith(str(tmp_path / "cache")):
            raise OSError(number, os.strerror(number), str(path))
        return real_open(path, flags, mode, **kw)

    monkeypatch.setattr(artifacts.os, "open", disk_says_no)
    cache = ArtifactCache(tmp_path / "cache")
    expected = f"the artifact cache at {tmp_path / 'cache'} is {CACHE_DISK_ERRORS[code]}"
    with pytest.raises(ArtifactCacheError, match=re.escape(expected)):
        cache.unpacked(packed.digest, lambda _: packed.data)
    assert not cache.path(packed.digest).exists() and list((tmp_path / "cache").iterdir()) == []

    monkeypatch.setattr(artifacts, "default_cache_root", lambda: tmp_path / "cache")  # a worker's cache
    task = MatchTask(
        tournament_id=1, key="m", game="drones", preset="default", overrides={"rounds": 2}, seed=1,
        seats=("bot", "zergy"), specs=(packed.run_spec, "zergy"), artifacts=(packed.digest, None),
        artifact_source=artifact_source(f"sqlite:///{tmp_path / 'none.db'}"),
        isolation=untrusted(sandbox=None),
    )  # fmt: skip
    monkeypatch.setattr(store_artifacts, "store_fetcher", lambda url: lambda digest: packed.data)
    (failure,) = play_batch([task])
    assert isinstance(failure, MatchFailure) and failure.platform and failure.retry, failure
    assert failure.error == f"ArtifactCacheError: {expected}"


def test_a_store_the_worker_cannot_reach_is_the_platforms_fault_never_the_bots(tmp_path: Path) -> None:
    packed = pack_spec(str(folder_bot(tmp_path / "bot")), DRONES)
    assert packed is not None
    task = MatchTask(
        tournament_id=1, key="m", game="drones", preset="default", overrides={"rounds": 2}, seed=1,
        seats=("bot", "zergy"), specs=(packed.run_spec, "zergy"), artifacts=(packed.digest, None),
        artifact_source=f"sqlite:///{tmp_path / 'not-mounted-here' / 'arena.db'}",
        isolation=untrusted(sandbox=None),
    )  # fmt: skip
    (failure,) = play_batch([task])
    assert isinstance(failure, MatchFailure) and failure.platform and failure.retry, failure
    assert failure.error.startswith("ArtifactUnavailable: the store sqlite:///")
    assert failure.unfit_worker is None  # the store's fault, not this worker's machine


def test_an_archive_over_the_caps_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(artifacts, "MAX_UNPACKED_BYTES", 1000)
    (tmp_path / "one").mkdir()
    with pytest.raises(ArtifactError, match=r"unpacks to more than"):
        extract(archive(("big", b"x" * 2000)), tmp_path / "one", "d" * 64)
    monkeypatch.setattr(artifacts, "MAX_FILES", 2)
    with pytest.raises(ArtifactError, match=r"unpacks to more than 2 files"):
        extract(archive(("a", b""), ("b", b""), ("c", b"")), tmp_path, "d" * 64)


def test_bytes_that_do_not_match_their_digest_never_unpack(tmp_path: Path) -> None:
    good = pack_spec(str(folder_bot(tmp_path / "bot")), DRONES)
    assert good is not None
    other = archive(("bot.py", b"import os; os.system('rm -rf ~')\n"))
    cache = ArtifactCache(tmp_path / "cache")
    with pytest.raises(ArtifactError, match=rf"artifact {good.digest} does not match its digest"):
        cache.unpacked(good.digest, lambda _: other)
    assert not cache.path(good.digest).exists()
    for bad in ("../../etc", "A" * 64, "short"):
        with pytest.raises(ArtifactError, match=r"not an artifact digest"):
            cache.unpacked(bad, lambda _: other)


def test_an_unpacked_artifact_is_read_only_and_fetched_once(tmp_path: Path) -> None:
    packed = pack_spec(str(folder_bot(tmp_path / "bot")), DRONES)
    assert packed is not None
    fetched: list[str] = []

    def fetch(digest: str) -> bytes:
        fetched.append(digest)
        return packed.data

    cache = ArtifactCache(tmp_path / "cache")
    folder = cache.unpacked(packed.digest, fetch)
    assert folder == tmp_path / "cache" / packed.digest and cache.unpacked(packed.digest, fetch) == folder
    assert fetched == [packed.digest]
    assert (folder / "helper.py").read_text() == HELPER
    for path in [folder, *folder.rglob("*")]:
        assert path.stat().st_mode & 0o222 == 0, path


def _race(root: str, data: bytes, barrier: Any, out: Any) -> None:
    def fetch(digest: str) -> bytes:
        barrier.wait(timeout=60)  # both processes have missed the cache before either unpacks
        return data

    out.put(str(ArtifactCache(root).unpacked(hashlib.sha256(data).hexdigest(), fetch)))


def test_two_processes_unpacking_one_digest_both_get_the_one_folder(tmp_path: Path) -> None:
    packed = pack_spec(str(folder_bot(tmp_path / "bot")), DRONES)
    assert packed is not None
    context = multiprocessing.get_context("fork")
    barrier, out = context.Barrier(2), context.Queue()
    root = str(tmp_path / "cache")
    processes = [context.Process(target=_race, args=(root, packed.data, barrier, out)) for _ in range(2)]
    for process in processes:
        process.start()
    found = [out.get(timeout=60) for _ in processes]
    for process in processes:
        process.join(timeout=60)
        assert process.exitcode == 0
    assert found == [str(tmp_path / "cache" / packed.digest)] * 2
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [packed.digest]  # no scratch left
    assert (Path(found[0]) / "helper.py").read_text() == HELPER


# -- the store and the worker's fetch ------------------------------------------------------------


@pytest.fixture
def store(db_url: str, tmp_path: Path) -> Any:
    store = Store.open(db_url, replay_dir=tmp_path / "replays")
    yield store
    store.close()


def test_the_store_keeps_artifacts_once_by_checked_digest(store: Store, tmp_path: Path) -> None:
    packed = pack_spec(str(folder_bot(tmp_path / "bot")), DRONES)
    assert packed is not None
    store.put_artifact(packed.digest, packed.data)
    store.put_artifact(packed.digest, packed.data)  # idempotent
    assert store.get_artifact(packed.digest) == packed.data
    with pytest.raises(StoreError, match=r"is not the sha256 of its data"):
        store.put_artifact(packed.digest, b"other bytes")
    with pytest.raises(StoreError, match=r"no artifact 0{64}"):
        store.get_artifact("0" * 64)
    version = store.register_bot(
        "drones", "b", "/x", packed.digest, artifact=packed.digest, run_spec="{artifact}"
    )
    assert (version.artifact, version.run_spec) == (packed.digest, "{artifact}")
    tournament = store.create_tournament(
        name="t", game="drones", format="round-robin", preset=None, config={}, seed=1, options={},
        entrants=[("b", version.id)],
    )  # fmt: skip
    assert (tournament.entrants[0].artifact, tournament.entrants[0].run_spec) == (packed.digest, "{artifact}")
    fetch = store_fetcher(store.connect_url)
    assert fetch(packed.digest) == packed.data
    with pytest.raises(ArtifactError, match=r"artifact 1{64} is not in the store"):
        fetch("1" * 64)


def _task(store_url: str | None, digest: str) -> MatchTask:
    return MatchTask(
        tournament_id=1, key="r01-m001", game="drones", preset="default", overrides={}, seed=1,
        seats=("a", "b"), specs=("{artifact}", "tactician"), artifacts=(digest, None),
        artifact_source=store_url,
    )  # fmt: skip


def test_a_tampered_store_fails_the_match_naming_the_digest(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An attacker who writes the artifacts table cannot make a worker run other code: the bytes
    under a digest must hash to it, and the match fails with a MatchTaskError (not retried)."""
    monkeypatch.setenv("BOTARENA_CACHE_DIR", str(tmp_path / "cache"))
    packed = pack_spec(str(folder_bot(tmp_path / "bot")), DRONES)
    assert packed is not None
    evil = archive(("bot.py", b"raise SystemExit('other code')\n"))
    with store._write_connection("tamper") as conn:
        conn.execute(insert(Artifact).values(digest=packed.digest, size=len(evil), data=evil))
    with pytest.raises(
        MatchTaskError, match=rf"r01-m001: artifact {packed.digest} does not match its digest"
    ):
        play_task(_task(store.connect_url, packed.digest))
    with pytest.raises(MatchTaskError, match=r"artifact 2{64} is not in the store"):
        play_task(_task(store.connect_url, "2" * 64))
    with pytest.raises(MatchTaskError, match=r"the task names no store"):
        play_task(_task(None, "2" * 64))
    assert not (tmp_path / "cache" / "artifacts" / packed.digest).exists()


def test_an_unreachable_store_is_worth_retrying_and_creates_no_database(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'nowhere' / 'arena.db'}"
    with pytest.raises(ArtifactUnavailable, match=r"not a database file this worker can read"):
        materialize_specs(
            ["{artifact}"], ["3" * 64], store_fetcher(url), cache=ArtifactCache(tmp_path / "cache")
        )
    assert not (tmp_path / "nowhere").exists()


def test_workers_get_a_sqlite_store_by_its_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert artifact_source("sqlite:///./var/arena.db") == f"sqlite:///{tmp_path}/var/arena.db"
    postgres = "postgresql+psycopg://u:pw@db.example:5432/arena?password=pw2&sslmode=require"
    # never the password (issue 25): a task is seen by whatever carries it; workers have their own
    assert artifact_source(postgres) == "postgresql+psycopg://u@db.example:5432/arena?sslmode=require"


def test_seats_without_artifacts_keep_their_specs(tmp_path: Path) -> None:
    assert materialize_specs(["tactician", "x.py"], [], None) == ("tactician", "x.py")
    assert materialize_specs(["tactician"], [None], None) == ("tactician",)
