"""Issue 16: `botarena play --resume FILE` refuses, in one line and without touching FILE, a game that
would not be the same one (another version, a bot file changed or gone, a finished replay, a journal
that `play` did not write), and `play --replay FILE` never starts over a game that can be resumed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from botarena.bots.inprocess import PythonBot
from botarena.cli import main
from botarena.commands.resume import resume_header
from botarena.core.journal import ReplayJournal
from botarena.core.registry import get_game
from botarena.core.replay import decompress_prefix, write_replay
from botarena.runner import run_match

BOT = """from botarena.games.drones.bots import STARTERS

create_bot = STARTERS["zergy"]
"""


class Stop(Exception):
    pass


def killed_game(tmp_path: Path, *, created_by: str | None = None, header: Any = "play") -> tuple[Path, Path]:
    """A drones journal as `play --replay` leaves it when killed after step 4: (file, bot file)."""
    bot = tmp_path / "mybot.py"
    bot.write_text(BOT)
    game = get_game("drones")
    specs = [str(bot), "zergy"]
    path = tmp_path / "game.json.gz"
    resume = resume_header(specs, game, sandbox=False) if header == "play" else header
    journal = ReplayJournal(path, resume=resume, flush_every_s=0.0)
    begin, step = journal.observers()

    def on_begin(replay: Any) -> None:
        if created_by is not None:
            replay.created_by = created_by
        begin(replay)

    def on_step(index: int, record: Any, engine: Any) -> None:
        step(index, record, engine)
        if index == 4:
            raise Stop

    bots = [PythonBot(game.starter_bots["zergy"], "mybot"), PythonBot(game.starter_bots["zergy"], "zergy")]
    with pytest.raises(Stop):
        run_match(game, bots, seed=9, on_begin=on_begin, on_step=on_step)
    return path, bot


def resume_fails(path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    before = path.read_bytes()
    assert main(["play", "--resume", str(path), *extra]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert path.read_bytes() == before  # nothing recorded is lost
    return lines[0]


def test_another_version_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, _ = killed_game(tmp_path, created_by="botarena 0.0.1")
    line = resume_fails(path, capsys)
    assert "recorded by botarena 0.0.1, this is botarena" in line and "another version" in line


def test_a_changed_or_missing_bot_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, bot = killed_game(tmp_path)
    bot.write_text(BOT + "\n# tuned\n")
    assert f"seat 0's bot file {bot} changed since the game started" in resume_fails(path, capsys)
    bot.unlink()
    assert f"seat 0's bot file {bot} is gone" in resume_fails(path, capsys)


def test_a_journal_not_written_by_play_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, _ = killed_game(tmp_path, header=None)
    assert "was not written by `botarena play --replay`" in resume_fails(path, capsys)


def test_a_finished_replay_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = get_game("drones")
    run = run_match(
        game, [PythonBot(game.starter_bots["zergy"], "z")] * 1 + [PythonBot(game.starter_bots["zergy"], "y")]
    )
    path = write_replay(run.replay, tmp_path / "done.json.gz")
    assert "is a finished game's replay: there is nothing to resume" in resume_fails(path, capsys)


def test_resume_takes_nothing_but_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, _ = killed_game(tmp_path)
    assert "takes the game, bots, seed, config and sandbox from FILE" in resume_fails(
        path, capsys, "--seed", "3"
    )
    assert main(["play"]) == 2
    assert "play needs a GAME and its BOTs (or --resume FILE)" in capsys.readouterr().err


def test_a_new_game_never_starts_over_one_that_can_be_resumed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = killed_game(tmp_path)
    before = path.read_bytes()
    assert main(["play", "drones", "zergy", "zergy", "--replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path} holds a game that did not finish" in err and f"play --resume {path}" in err
    assert path.read_bytes() == before


def test_the_resumed_game_finishes_and_the_file_becomes_its_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = killed_game(tmp_path)
    assert orjson.loads(decompress_prefix(path.read_bytes()).split(b"\n")[0])["resume"]["bots"][1] == "zergy"
    assert main(["play", "--resume", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"replay written to {path}" in out
    assert main(["replay", str(path), "--verify"]) == 0
    assert capsys.readouterr().out.startswith("identical: 20 steps")
