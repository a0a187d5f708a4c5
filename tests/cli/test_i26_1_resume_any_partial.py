"""Issue 26, item 1: `botarena play --resume FILE` goes on with ANY partial replay a killed `play`
can leave (a journal cut after its header, after its start exchange, after its first keyframe, in
the middle of its steps, with a torn last line, or with its gzip stream cut mid-block) and finishes it
as one whole game that keeps every recorded step (the very game an uninterrupted `play` plays, when
no step was recorded yet); a file that is not a resumable journal gets a
one-line error that says what is wrong (exit 2, the file untouched), never an internal error."""

from __future__ import annotations

import gzip
import socket
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from botarena.bots.resolve import resolve_bot
from botarena.cli import main
from botarena.commands.resume import resume_header
from botarena.core.journal import ReplayJournal
from botarena.core.registry import game_ids, get_game
from botarena.core.replay import Replay, read_replay, write_replay
from botarena.runner import run_match
from botarena.runner.verify import verify_replay

SEED = 3
GAMES: dict[str, tuple[str, dict[str, Any], list[str]]] = {
    "devops": ("smoke", {"turn_limit": 8}, ["starter", "banker"]),
    "drones": ("default", {"rounds": 2, "turn_limit": 4}, ["zergy", "adaptive"]),
    "domains": ("default", {"number_of_rounds": 6}, ["surveyor", "demo"]),
    "datspulse": ("default", {"turns": 6}, ["forager", "raider"]),
    "craftingquest": ("default", {"rounds": 2}, ["prospector", "wanderer"]),
    "rps": ("default", {}, ["cycler", "copycat"]),
}
"""The built-in games' short matches (preset, overrides, bots); every registered game is tested, one
without a line here on its default preset and `test_overrides` between its first two starters."""


def plan_of(game_id: str) -> tuple[str, dict[str, Any], list[str]]:
    if game_id in GAMES:
        return GAMES[game_id]
    game = get_game(game_id)
    starters = list(game.starter_bots)
    return "default", dict(game.test_overrides), [starters[0], starters[1 % len(starters)]]


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def full_journal(tmp_path: Path, game_id: str, specs: list[str]) -> tuple[list[bytes], Replay]:
    """The lines of the journal `play --replay` writes for a whole game (it is closed, not replaced
    by the finished replay), and that finished game's replay."""
    preset, overrides, _ = plan_of(game_id)
    game = get_game(game_id)
    path = tmp_path / "whole.journal"
    journal = ReplayJournal(path, resume=resume_header(specs, game, sandbox=False), flush_every_s=0.0)
    begin, step = journal.observers()
    bots = [resolve_bot(spec, game) for spec in specs]
    config = game.config(preset, overrides)
    run = run_match(game, bots, config=config, seed=SEED, preset=preset, on_begin=begin, on_step=step)
    journal.close()
    text = zlib.decompressobj(31).decompress(path.read_bytes())
    lines = text.split(b"\n")
    assert lines.pop() == b""
    return lines, run.replay


def kinds(lines: list[bytes]) -> list[str]:
    return [next(iter(orjson.loads(line))) for line in lines]


def upto(lines: list[bytes], kind: str, count: int = 1) -> bytes:
    """The journal's lines up to and including its `count`-th line of `kind`."""
    seen = 0
    for index, name in enumerate(kinds(lines)):
        seen += name == kind
        if seen == count:
            return b"\n".join(lines[: index + 1]) + b"\n"
    raise AssertionError(f"no {count} {kind} lines")


def mid(lines: list[bytes]) -> bytes:
    return upto(lines, "step", 3)


def torn(lines: list[bytes]) -> bytes:
    cut = upto(lines, "step", 4)
    return cut[: len(cut) - 1 - len(lines[len(cut.split(b"\n")) - 2]) // 2]  # step 4 half written


CUTS: dict[str, Callable[[list[bytes]], bytes]] = {
    "after_header": lambda lines: upto(lines, "journal"),
    "after_start": lambda lines: upto(lines, "start"),
    "after_first_keyframe": lambda lines: upto(lines, "keyframe"),
    "mid_steps": mid,
    "torn_last_line": torn,
}
STEPS_KEPT = {
    "after_header": 0,
    "after_start": 0,
    "after_first_keyframe": 0,
    "mid_steps": 3,
    "torn_last_line": 3,
}


def resumed(file: Path, capsys: Any) -> tuple[int, str, Replay]:
    code = main(["play", "--resume", str(file)])
    err = capsys.readouterr().err
    return code, err, read_replay(file)


def decisions(replay: Replay) -> list[Any]:
    """Every step's record and verdicts (what was played; reply times differ from run to run)."""
    return [(step["record"], step["verdicts"]) for step in replay.steps]


def assert_went_on(final: Replay, partial: Replay, whole: Replay, err: str) -> None:
    """`final` is one whole game that re-runs, keeps every step `partial` recorded as it was, and,
    if nothing was recorded yet, is the very game an uninterrupted `play` played (restarted bots
    lose their memory, so after a recorded step the rest of the game may differ, in length too: a
    Crafting Quest turn is as many steps as its bot takes actions)."""
    assert not final.partial, err
    assert verify_replay(final).identical
    assert final.steps[: len(partial.steps)] == partial.steps
    assert final.result["ranks"]
    if final.game == "craftingquest":
        assert len(final.steps) >= len(partial.steps)
    else:
        assert len(final.steps) == len(whole.steps)
    if not partial.steps:
        assert decisions(final) == decisions(whole)
        assert final.result == whole.result
    assert "internal error" not in err, err


@pytest.mark.parametrize("cut", sorted(CUTS))
@pytest.mark.parametrize("game_id", game_ids())
def test_i26_1_play_resume_finishes_any_cut_journal(
    tmp_path: Path, capsys: Any, game_id: str, cut: str
) -> None:
    lines, whole = full_journal(tmp_path, game_id, plan_of(game_id)[2])
    file = tmp_path / "killed.json.gz"
    file.write_bytes(gzip.compress(CUTS[cut](lines)))
    partial = read_replay(file)
    assert partial.partial and len(partial.steps) == STEPS_KEPT[cut]
    code, err, final = resumed(file, capsys)
    assert code == 0, err
    assert_went_on(final, partial, whole, err)


@pytest.mark.parametrize("game_id", game_ids())
def test_i26_1_play_resume_finishes_a_journal_whose_gzip_stream_was_cut(
    tmp_path: Path, capsys: Any, game_id: str
) -> None:
    """A kill in the middle of writing a compressed block: the file ends inside the deflate stream."""
    lines, whole = full_journal(tmp_path, game_id, plan_of(game_id)[2])
    stream = zlib.compressobj(1, zlib.DEFLATED, 31)
    data = stream.compress(upto(lines, "step", 2)) + stream.flush(zlib.Z_SYNC_FLUSH)
    data += stream.compress(b"\n".join(lines[len(upto(lines, "step", 2).split(b"\n")) - 1 :]))
    data += stream.flush(zlib.Z_FINISH)
    file = tmp_path / "killed.json.gz"
    file.write_bytes(data[: len(data) - 40])
    partial = read_replay(file)
    assert partial.partial and len(partial.steps) >= 2
    code, err, final = resumed(file, capsys)
    assert code == 0, err
    assert_went_on(final, partial, whole, err)


@pytest.mark.parametrize("cut", ["after_header", "after_start", "mid_steps", "torn_last_line"])
def test_i26_1_play_resume_finishes_a_refused_devops_service_journal(
    tmp_path: Path, capsys: Any, cut: str
) -> None:
    """The issue's own file: a Devops game whose seat 0 service refuses every connection."""
    lines, whole = full_journal(tmp_path, "devops", [f"http://127.0.0.1:{closed_port()}", "starter"])
    file = tmp_path / "killed.json.gz"
    file.write_bytes(gzip.compress(CUTS[cut](lines)))
    partial = read_replay(file)
    code, err, final = resumed(file, capsys)
    assert not final.partial, err
    assert verify_replay(final).identical
    assert final.steps[: len(partial.steps)] == partial.steps
    assert len(final.steps) == len(whole.steps)
    assert set(final.statuses[0]) == {"OK", "CRASHED"} and set(final.statuses[1]) == {"OK"}
    assert "internal error" not in err, err
    assert code == 1, err  # seat 0 never played


def header_with(lines: list[bytes], **changes: Any) -> bytes:
    first = orjson.loads(lines[0])
    first["header"].update(changes)
    return gzip.compress(b"\n".join([orjson.dumps(first), *lines[1:5]]) + b"\n")


def with_line(lines: list[bytes], index: int, line: bytes) -> bytes:
    return gzip.compress(b"\n".join([*lines[:index], line, *lines[index + 1 : 5]]) + b"\n")


NOT_RESUMABLE: dict[str, tuple[Callable[[list[bytes]], bytes], str]] = {
    "empty": (lambda lines: b"", "not a replay journal"),
    "garbage": (lambda lines: b"\x00\x01 not a replay", "not a replay journal"),
    "other_json": (lambda lines: b'{"a": 1}', "not a replay journal"),
    "torn_header": (lambda lines: gzip.compress(lines[0][:40]), "header is missing or cut short"),
    "config_not_an_object": (lambda lines: header_with(lines, config=5), "header is damaged (config)"),
    "players_not_objects": (lambda lines: header_with(lines, players=[1, 2]), "header is damaged (players)"),
    "seed_not_a_number": (lambda lines: header_with(lines, seed="abc"), "header is damaged (seed)"),
    "game_not_a_name": (lambda lines: header_with(lines, game=7), "header is damaged (game)"),
    "start_not_an_object": (lambda lines: with_line(lines, 1, b'{"start": [1]}'), "unreadable journal line"),
    "keyframe_not_an_object": (
        lambda lines: with_line(lines, 2, b'{"keyframe": 3}'),
        "unreadable journal line",
    ),
    "step_not_an_object": (
        lambda lines: with_line(lines, 3, b'{"step": 5, "n": 1}'),
        "unreadable journal line",
    ),
}


@pytest.mark.parametrize("case", sorted(NOT_RESUMABLE))
def test_i26_1_play_resume_of_a_file_that_is_no_journal_says_why(
    tmp_path: Path, capsys: Any, case: str
) -> None:
    lines, _whole = full_journal(tmp_path, "devops", GAMES["devops"][2])
    make, said = NOT_RESUMABLE[case]
    file = tmp_path / "file.json.gz"
    file.write_bytes(make(lines))
    before = file.read_bytes()
    code = main(["play", "--resume", str(file)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("botarena: error: ") and err.count("\n") == 1, err
    assert said in err
    assert file.read_bytes() == before


def test_i26_1_play_resume_of_a_finished_replay_says_there_is_nothing_to_resume(
    tmp_path: Path, capsys: Any
) -> None:
    _lines, whole = full_journal(tmp_path, "devops", GAMES["devops"][2])
    file = write_replay(whole, tmp_path / "done.json.gz")
    assert main(["play", "--resume", str(file)]) == 2
    assert "finished game's replay: there is nothing to resume" in capsys.readouterr().err
