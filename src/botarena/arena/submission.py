"""The team's side of `botarena submit PATH` (`specs/arena.md`: Team CLI): what is sent for a path.

A folder is zipped in memory, as the `cambc` and `hlt` clients do: its files in sorted order under
their paths relative to the folder (no top folder), every time set to 1980-01-01 and only the exec bit
kept of the mode, so the same folder always gives the same bytes (the server's digest, and the
`Idempotency-Key` a retry repeats, stay the same). `__pycache__` and `.git` folders are skipped. It
is read by descriptor without following any link (bots/nofollow.py): a symlink, a hard link or a
special file in the folder is an error naming it, never sent. A single file is sent as it is.

The result is checked with the server's own `check_upload` before it is sent (`precheck`), so a bad
upload fails on the team's machine with the code the server would answer, and nothing is sent.

    submission = build_submission(Path("mybot/"))     # SubmissionError: one line
    post(files={"file": (submission.filename, submission.data)})
"""

from __future__ import annotations

import io
import os
import stat
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from botarena.arena.archive import UploadRejected, check_upload
from botarena.arena.policy import ArenaPolicy, size_text
from botarena.bots.artifacts import SKIPPED
from botarena.bots.nofollow import Folder, Listed, UnsafeFileError

FIXED_TIME = (1980, 1, 1, 0, 0, 0)
"""Every entry's time: the earliest a zip can say, so the bytes never depend on when they were made."""


class SubmissionError(ValueError):
    """A path that cannot be submitted, with one line naming it (and the server's code, if any)."""

    def __init__(self, detail: str, code: str | None = None) -> None:
        super().__init__(detail)
        self.code = code


@dataclass(frozen=True)
class Submission:
    """What `botarena submit` sends: the bytes and the file name of the multipart `file` field."""

    data: bytes = field(repr=False)
    filename: str
    files: int


def build_submission(path: Path, policy: ArenaPolicy | None = None, *, precheck: bool = True) -> Submission:
    """The upload for `path` (a folder, zipped; a file, as it is) within `policy`'s caps (the spec's
    defaults when None); with `precheck` also passed through the server's `check_upload`."""
    policy = policy or ArenaPolicy()
    try:
        info = os.lstat(path)
    except OSError as exc:
        raise SubmissionError(f"{path}: {exc.strerror or exc}") from None
    submission = _zip_folder(path, policy) if stat.S_ISDIR(info.st_mode) else _single_file(path, policy)
    if precheck:
        try:
            check_upload(submission.data, submission.filename, policy)
        except UploadRejected as exc:
            raise SubmissionError(f"{path}: {exc.detail} ({exc.code})", exc.code) from None
    return submission


def _single_file(path: Path, policy: ArenaPolicy) -> Submission:
    # The team names this file itself: a link to it is followed, as any command would.
    if not path.is_file():
        raise SubmissionError(f"{path} is not a file or folder")
    if path.stat().st_size > policy.max_upload_bytes:
        raise SubmissionError(
            f"{path} is {size_text(path.stat().st_size)}, more than {size_text(policy.max_upload_bytes)}"
        )
    return Submission(path.read_bytes(), path.name, 1)


class _Zipper:
    """A folder's files into an in-memory zip, within the caps."""

    def __init__(self, root: Path, policy: ArenaPolicy) -> None:
        self.root = root
        self.policy = policy
        self.buffer = io.BytesIO()
        self.zip = zipfile.ZipFile(self.buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=6)
        self.total = 0
        self.files = 0

    def add_tree(self, folder: Folder, prefix: str, depth: int) -> None:
        if depth > self.policy.max_path_depth:
            raise SubmissionError(
                f"{folder.shown} is nested more than {self.policy.max_path_depth} folders deep"
            )
        for listed in folder.list():
            if listed.name in SKIPPED and not stat.S_ISREG(listed.info.st_mode):
                continue  # never opened, so a link by that name is not followed either
            if listed.is_folder:
                with folder.subfolder(listed) as inner:
                    self.add_tree(inner, f"{prefix}{listed.name}/", depth + 1)
            else:
                self.add_file(folder, listed, prefix + listed.name)

    def add_file(self, folder: Folder, listed: Listed, name: str) -> None:
        room = self.policy.max_unpacked_bytes - self.total
        data, executable = folder.read(listed, room)
        if len(data) > room:
            raise SubmissionError(
                f"{self.root}: the files are more than {size_text(self.policy.max_unpacked_bytes)} unpacked"
            )
        self.files += 1
        if self.files > self.policy.max_entries:
            raise SubmissionError(f"{self.root} has more than {self.policy.max_entries} files")
        self.total += len(data)
        entry = zipfile.ZipInfo(name, FIXED_TIME)
        entry.create_system = 3  # Unix, so the mode below is read
        entry.external_attr = (stat.S_IFREG | (0o755 if executable else 0o644)) << 16
        entry.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(entry, data)


def _zip_folder(path: Path, policy: ArenaPolicy) -> Submission:
    zipper = _Zipper(path, policy)
    try:
        with Folder.open_root(path) as root:
            zipper.add_tree(root, "", depth=1)
    except UnsafeFileError as exc:
        raise SubmissionError(str(exc)) from None
    zipper.zip.close()
    data = zipper.buffer.getvalue()
    if zipper.files == 0:
        raise SubmissionError(f"{path} holds no files")
    if len(data) > policy.max_upload_bytes:
        raise SubmissionError(
            f"{path} zips to {size_text(len(data))},"
            f" more than the {size_text(policy.max_upload_bytes)} upload limit"
        )
    name = os.path.basename(os.path.abspath(path)) or "bot"
    return Submission(data, f"{name}.zip", zipper.files)


__all__ = ["FIXED_TIME", "Submission", "SubmissionError", "build_submission"]
