"""`botarena submit PATH`'s client side (specs/arena.md: Team CLI): a folder zipped in memory, sorted,
fixed times, no link followed, caches skipped, the caps and the server's own checks applied first."""

from __future__ import annotations

import io
import os
import stat
import zipfile
from pathlib import Path

import pytest

from botarena.arena.archive import canonical_digest, check_upload, pack_upload
from botarena.arena.policy import ArenaPolicy
from botarena.arena.submission import FIXED_TIME, SubmissionError, build_submission

BOT = b"def act(observation):\n    return {}\n"


@pytest.fixture
def bot_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "mybot"
    (folder / "lib").mkdir(parents=True)
    (folder / "bot.py").write_bytes(BOT)
    (folder / "lib" / "util.py").write_text("X = 1\n")
    (folder / "tools").mkdir()
    (folder / "tools" / "fmt").write_text("#!/bin/sh\n")
    (folder / "tools" / "fmt").chmod(0o755)
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\x00cache")
    (folder / ".git").mkdir()
    (folder / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return folder


def test_submit_a_folder_is_zipped_sorted_with_fixed_times_and_no_caches(bot_folder: Path) -> None:
    submission = build_submission(bot_folder)
    assert submission.filename == "mybot.zip"
    with zipfile.ZipFile(io.BytesIO(submission.data)) as archive:
        infos = archive.infolist()
        assert [info.filename for info in infos] == ["bot.py", "lib/util.py", "tools/fmt"]
        assert {info.date_time for info in infos} == {FIXED_TIME}
        modes = {info.filename: stat.S_IMODE(info.external_attr >> 16) for info in infos}
        assert archive.read("bot.py") == BOT
    assert modes == {"bot.py": 0o644, "lib/util.py": 0o644, "tools/fmt": 0o755}
    assert submission.files == 3


def test_submit_the_same_folder_gives_the_same_bytes_whenever_it_is_zipped(bot_folder: Path) -> None:
    first = build_submission(bot_folder)
    os.utime(bot_folder / "bot.py", (1_000_000_000, 1_000_000_000))
    assert build_submission(bot_folder).data == first.data
    (bot_folder / "bot.py").write_bytes(BOT + b"# edited\n")
    assert build_submission(bot_folder).data != first.data


def test_submit_the_server_packs_a_submission_to_the_folders_own_digest(bot_folder: Path) -> None:
    policy = ArenaPolicy()
    submission = build_submission(bot_folder)
    packed = pack_upload(check_upload(submission.data, submission.filename, policy), policy)
    assert packed.digest == canonical_digest(bot_folder)  # both skip __pycache__ and .git


def test_submit_a_link_in_the_folder_is_an_error_naming_it(bot_folder: Path, tmp_path: Path) -> None:
    (tmp_path / "secret").write_text("host secret\n")
    (bot_folder / "lib" / "data").symlink_to(tmp_path / "secret")
    with pytest.raises(SubmissionError, match=r"lib/data is a symlink"):
        build_submission(bot_folder)


def test_submit_a_hard_link_in_the_folder_is_an_error_naming_it(bot_folder: Path, tmp_path: Path) -> None:
    (tmp_path / "secret").write_text("host secret\n")
    os.link(tmp_path / "secret", bot_folder / "copy.txt")
    with pytest.raises(SubmissionError, match=r"copy.txt is a hard link"):
        build_submission(bot_folder)


def test_submit_files_over_the_cap_are_refused_before_sending(bot_folder: Path) -> None:
    (bot_folder / "weights.bin").write_bytes(os.urandom(300_000))
    with pytest.raises(SubmissionError, match=r"256 KiB unpacked"):
        build_submission(bot_folder, ArenaPolicy(max_unpacked_mb=0.25))
    with pytest.raises(SubmissionError, match="upload limit"):
        build_submission(bot_folder, ArenaPolicy(max_upload_mb=0.1))


def test_submit_a_single_file_is_sent_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "strategy.py"
    path.write_bytes(BOT)
    submission = build_submission(path)
    assert (submission.data, submission.filename, submission.files) == (BOT, "strategy.py", 1)


def test_submit_the_servers_refusal_comes_before_sending_with_its_code(tmp_path: Path) -> None:
    folder = tmp_path / "nobot"
    folder.mkdir()
    (folder / "README.md").write_text("# hello\n")
    with pytest.raises(SubmissionError) as caught:
        build_submission(folder)
    assert caught.value.code == "no_entry"
    assert "README.md" in str(caught.value)
    assert build_submission(folder, precheck=False).files == 1


@pytest.mark.parametrize("name", ["missing", "empty"])
def test_submit_a_missing_or_empty_path_is_one_line(tmp_path: Path, name: str) -> None:
    if name == "empty":
        (tmp_path / name).mkdir()
    with pytest.raises(SubmissionError) as caught:
        build_submission(tmp_path / name)
    assert "\n" not in str(caught.value)
