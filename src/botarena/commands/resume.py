"""`botarena play --replay FILE` writes its game as it goes; `botarena play --resume FILE` goes on
with a game whose host was killed.

While the game runs, FILE is a journal (`botarena.core.journal`) whose header keeps what `play` needs
to start the same game again: the bot specs as given, the content digests of the files they name,
and whether the bots were sandboxed (the game, config and seed are the replay's own). `resume_plan`
reads it back and refuses, in one line, a game that would not be the same one: a finished replay, a
journal written by something other than `play`, another botarena version, or a bot file that changed
or is gone. `runner.match.resume_match` then re-runs the recorded steps and plays on.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from botarena import __version__
from botarena.core.game import GameInfo
from botarena.core.journal import read_journal
from botarena.core.registry import get_game
from botarena.core.replay import Replay, ReplayError, read_replay

RESUME_FORMAT = 1


class ResumeRefused(ValueError):
    """A file that cannot be resumed; the message says why, in one line."""


@dataclass
class ResumePlan:
    """A killed game, ready to go on: its partial replay, game, bot specs and isolation."""

    partial: Replay
    game: GameInfo[Any]
    specs: list[str]
    sandbox: bool
    resume: dict[str, Any]
    external: list[dict[str, Any]]


def resume_header(specs: list[str], game: GameInfo[Any], *, sandbox: bool) -> dict[str, Any]:
    """What a journal's header keeps so that `play --resume` can start the same bots again."""
    return {
        "format": RESUME_FORMAT,
        "bots": list(specs),
        "files": [spec_digests(spec, game) for spec in specs],
        "sandbox": sandbox,
    }


def spec_digests(spec: str, game: GameInfo[Any]) -> dict[str, str]:
    """sha256 of every file a bot spec names (a file, or a command line's program and path
    arguments; a folder counts as all its files), by absolute path. Starters and URLs name none."""
    from botarena.bots.resolve import command_files, is_file, split_command

    if spec in game.starter_bots or spec.startswith(("http://", "https://")):
        return {}
    path = Path(spec)
    if is_file(spec):  # never raises, even for a spec too long to be a file name
        paths = [path.absolute()]
    else:
        try:
            paths = command_files(split_command(spec.removeprefix("cmd:")))
        except ValueError:
            return {}
    return {str(p): _digest(p) for p in paths}


def _digest(path: Path) -> str:
    digest = hashlib.sha256()
    if path.is_dir():
        for file in sorted(p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            digest.update(str(file.relative_to(path)).encode() + b"\0")
            digest.update(hashlib.sha256(file.read_bytes()).digest())
    else:
        digest.update(path.read_bytes())
    return digest.hexdigest()


def resume_plan(file: Path) -> ResumePlan:
    """Read FILE and check that its game can go on here (raises ResumeRefused or ReplayError)."""
    try:
        journal = read_journal(file)
    except ReplayError:
        try:
            finished = not read_replay(file).partial
        except ReplayError:
            finished = False
        if finished:
            raise ResumeRefused(f"{file} is a finished game's replay: there is nothing to resume") from None
        raise
    replay, resume = journal.replay, journal.resume
    if not isinstance(resume, dict) or resume.get("format") != RESUME_FORMAT:
        raise ResumeRefused(
            f"{file} was not written by `botarena play --replay`: it names no bots to resume with"
        )
    if replay.created_by != f"botarena {__version__}":
        raise ResumeRefused(
            f"{file} was recorded by {replay.created_by or 'an unknown program'}, this is"
            f" botarena {__version__}: another version may play the game differently"
        )
    game = get_game(replay.game)
    if replay.rules != game.rules_version:
        raise ResumeRefused(
            f"{file} was played under rules {replay.rules!r}, this botarena has {game.rules_version!r}"
        )
    specs, files = resume.get("bots"), resume.get("files")
    if not isinstance(specs, list) or not isinstance(files, list) or len(specs) != len(replay.players):
        raise ResumeRefused(f"{file}: its resume header is damaged (bots and seats do not match)")
    for seat, (spec, recorded) in enumerate(zip(specs, files, strict=True)):
        _check_unchanged(seat, str(spec), recorded)
    return ResumePlan(
        replay, game, [str(s) for s in specs], bool(resume.get("sandbox")), resume, journal.external
    )


def _check_unchanged(seat: int, spec: str, recorded: Any) -> None:
    """Refuse a bot whose files are not the ones the game started with."""
    if not isinstance(recorded, dict):
        raise ResumeRefused(f"seat {seat}: its file digests in the resume header are damaged")
    for path, digest in recorded.items():
        target = Path(path)
        if not os.path.exists(target):  # (a name too long to be a file's is none: no OSError)
            raise ResumeRefused(f"seat {seat}'s bot file {path} is gone since the game started ({spec})")
        try:
            now = _digest(target)
        except OSError as exc:
            raise ResumeRefused(
                f"seat {seat}'s bot file {path} cannot be read: {exc.strerror or exc}"
            ) from None
        if now != digest:
            raise ResumeRefused(
                f"seat {seat}'s bot file {path} changed since the game started"
                f" (sha256 {str(digest)[:12]}… then, {now[:12]}… now): resuming would not be the same game"
            )
