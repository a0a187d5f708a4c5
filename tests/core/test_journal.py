"""Issue 16: the replay journal (`botarena.core.journal`). Whatever a kill leaves on disk - the file
cut at any byte - reads as a partial replay whose steps are a prefix of the game's, and re-runs
identically; complete replays are unchanged by the new optional fields."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from botarena.bots.inprocess import PythonBot
from botarena.core.journal import ReplayJournal, read_journal
from botarena.core.registry import get_game
from botarena.core.replay import Replay, ReplayError, read_replay, write_replay
from botarena.runner import run_match
from botarena.runner.verify import verify_replay
from waiting import wait_until


class Stop(Exception):
    """Ends a match from its observer, as a kill would (the journal is not closed)."""


def journaled(game_id: str, path: Path, stop_at: int | None = None, **kwargs: Any) -> Replay:
    """Play a starter match with a journal at `path` (flushing every step); stop after `stop_at`."""
    game = get_game(game_id)
    bots = [PythonBot(factory, name) for name, factory in list(game.starter_bots.items())[:2]]
    journal = ReplayJournal(path, flush_every_s=0.0, **kwargs)
    begin, step = journal.observers()

    def on_step(index: int, record: Any, engine: Any) -> None:
        step(index, record, engine)
        if index == stop_at:
            raise Stop

    try:
        return run_match(game, bots, seed=11, on_begin=begin, on_step=on_step).replay
    except Stop:
        return read_replay(path)


def test_a_journal_cut_at_any_byte_reads_as_a_prefix_of_the_game(tmp_path: Path) -> None:
    path = tmp_path / "game.json.gz"
    full = journaled("rps", path)
    raw = path.read_bytes()  # the journal as the last step left it (play replaces it at the end)
    seen_steps: set[int] = set()
    header_len = None
    for cut in range(len(raw) + 1):
        (tmp_path / "cut.json.gz").write_bytes(raw[:cut])
        try:
            partial = read_replay(tmp_path / "cut.json.gz")
        except ReplayError as exc:
            assert header_len is None, f"cut at {cut} unreadable after a readable one: {exc}"
            continue
        header_len = header_len or cut
        assert partial.partial and partial.steps == full.steps[: len(partial.steps)]
        assert all(frame["step"] <= len(partial.steps) for frame in partial.keyframes)
        seen_steps.add(len(partial.steps))
    assert seen_steps == set(range(len(full.steps) + 1))  # every step became readable in turn
    last = read_replay(path)
    assert verify_replay(last).identical and str(verify_replay(last)).startswith("partial replay")


def test_a_stopped_match_leaves_a_partial_replay_that_reruns(tmp_path: Path) -> None:
    path = tmp_path / "game.json.gz"
    partial = journaled("drones", path, stop_at=7, resume={"format": 1, "bots": [], "files": []})
    assert partial.partial and len(partial.steps) == 7
    assert partial.keyframes[0]["step"] == 0 and partial.result == {} and partial.end == {}
    report = verify_replay(partial)
    assert report.identical and report.partial and report.steps_checked == 7
    assert read_journal(path).resume == {"format": 1, "bots": [], "files": []}


def test_external_events_are_on_disk_at_once_and_carried_over(tmp_path: Path) -> None:
    path = tmp_path / "game.json.gz"
    journal = ReplayJournal(path, external=[{"game": "x", "n": 1}], flush_every_s=3600.0)
    replay = Replay(game="rps", rules="r", preset="default", config={}, seed=1, players=[])
    journal.begin(replay)
    journal.external({"game": "x", "n": 2})  # no sync after it: it must be flushed by itself
    assert read_journal(path).external == [{"game": "x", "n": 1}, {"game": "x", "n": 2}]
    journal.begin(replay)  # a resumed game starts the file again: the events come along
    assert read_journal(path).external == [{"game": "x", "n": 1}, {"game": "x", "n": 2}]
    journal.close()
    assert read_journal(path).external == [{"game": "x", "n": 1}, {"game": "x", "n": 2}]


def test_a_journal_that_cannot_be_written_does_not_stop_the_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    replay = journaled("rps", blocker / "game.json.gz")
    assert replay.result["ranks"] and not replay.partial
    assert "cannot write the replay journal" in capsys.readouterr().err


def test_complete_replays_do_not_change_and_journals_are_told_apart(tmp_path: Path) -> None:
    path = tmp_path / "game.json.gz"
    full = journaled("rps", path)
    data = orjson.loads(full.dumps())
    assert "partial" not in data and "resumes" not in data  # written only when set
    write_replay(full, path)
    assert not read_replay(path).partial
    with pytest.raises(ReplayError, match="not a replay journal"):
        read_journal(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"journal": 1, "header": {"game"', "header is missing or cut short"),
        (b'{"journal": 9, "header": {}}\n', "unsupported journal version 9"),
        (b'{"journal": 1, "header": []}\n', "header is not an object"),
    ],
)
def test_a_damaged_journal_header_is_one_clear_error(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(ReplayError, match=message):
        read_replay(path)


def test_a_step_out_of_order_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "game.json.gz"
    journaled("rps", path, stop_at=3)
    partial = read_journal(path).replay
    fields = ("game", "rules", "preset", "config", "seed", "players", "match_id", "created_by")
    header = {"journal": 1, "header": {name: getattr(partial, name) for name in fields}}
    skipped = [header, {"start": partial.start}, {"step": partial.steps[1], "n": 2}]  # step 1 missing
    bad = tmp_path / "skipped.json"
    bad.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in skipped))
    with pytest.raises(ReplayError, match="unreadable journal line"):
        read_replay(bad)


def test_a_written_step_reaches_the_disk_while_the_next_step_is_slow(tmp_path: Path) -> None:
    """No sync comes while a step waits for slow bots: the journal's own thread flushes the last one."""
    path = tmp_path / "game.json.gz"
    journal = ReplayJournal(path, flush_every_s=0.2)
    replay = Replay(game="rps", rules="r", preset="default", config={}, seed=1, players=[])
    journal.begin(replay)
    replay.steps.append({"replies": [], "verdicts": [], "record": {"n": 1}})
    journal.sync()  # written, not due for a flush yet, and no keyframe
    wait_until(lambda: len(read_journal(path).replay.steps) >= 1, "the step reaching the disk", pause=0.05)
    journal.close()
    assert not (tmp_path / "game.json.gz.tmp").exists()  # begin's fresh file replaced the journal
