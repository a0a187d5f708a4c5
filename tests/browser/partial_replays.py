"""Replays of games that did not finish, as a killed `botarena play --replay FILE` leaves them (issue 16):
the journal a real match wrote as it played, cut where a SIGKILL could cut it; and the finished replay
of such a game resumed with `resume_match` (it has `resumes`)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from short_replays import SHORT

from botarena.bots.inprocess import PythonBot
from botarena.core.journal import ReplayJournal
from botarena.core.registry import get_game
from botarena.core.replay import Replay, read_replay, write_replay
from botarena.runner import run_match
from botarena.runner.match import resume_match


class HostKilled(Exception):
    """Stands for the SIGKILL: raised from an observer, it stops the match where it is."""


def _bots(game_id: str) -> list[PythonBot]:
    game = get_game(game_id)
    return [PythonBot(game.starter_bots[name], name) for name in SHORT[game_id][0]]


def _config(game_id: str, overrides: dict[str, Any] | None) -> Any:
    _, preset, short = SHORT[game_id]
    return get_game(game_id).config(preset, {**short, **(overrides or {})})


def play_partial(
    game_id: str, folder: Path, stop_after: int, overrides: dict[str, Any] | None = None
) -> tuple[Path, int]:
    """Play `game_id`'s short match with its replay journalled at `folder`/<game>.partial.json.gz and
    leave that file as a kill during the step after `stop_after` would: everything flushed up to
    step `stop_after`, then half of the next step's flushed bytes (a write torn by the kill).
    Returns the file and `stop_after` (the steps a reader finds in it)."""
    path = folder / f"{game_id}.partial.json.gz"
    journal = ReplayJournal(path)
    snapshots: list[bytes] = []

    def on_step(index: int, record: Any, engine: Any) -> None:
        if index >= stop_after:
            journal.sync(force=True)  # what is on disk when the kill comes
            snapshots.append(path.read_bytes())
        if index > stop_after:
            raise HostKilled(f"killed during step {index + 1}")

    on_begin, on_step_journal = journal.observers(on_step=on_step)
    game = get_game(game_id)
    with ThreadPoolExecutor(1) as pool:  # SIGALRM preemption belongs to a worker thread under pytest
        future = pool.submit(
            run_match,
            game,
            _bots(game_id),
            config=_config(game_id, overrides),
            seed=5,
            on_begin=on_begin,
            on_step=on_step_journal,
        )
        try:
            future.result()
        except HostKilled:
            pass
        else:
            raise AssertionError(f"the {game_id} match ended before step {stop_after + 1}")
        finally:
            journal.close()  # (a killed host writes nothing more: the bytes on disk are put back)
    flushed, torn = snapshots[0], snapshots[1]
    path.write_bytes(torn[: len(flushed) + (len(torn) - len(flushed)) // 2])
    return path, stop_after


def play_resumed(
    game_id: str,
    folder: Path,
    stop_after: int,
    overrides: dict[str, Any] | None = None,
    *,
    killed_again_after: int | None = None,
) -> tuple[Replay, Path]:
    """A game killed after step `stop_after` and resumed with restarted bots: to its end, its finished
    replay (one `resumes` entry, after step `stop_after`) at `folder`/<game>.resumed.json.gz; or,
    with `killed_again_after`, the journal the resumed game left when killed again after that step
    (a partial replay with the same `resumes` entry)."""
    partial_path, _ = play_partial(game_id, folder, stop_after, overrides)
    partial = read_replay(partial_path)
    path = folder / f"{game_id}.resumed.json.gz"
    journal = ReplayJournal(path)

    on_disk: list[bytes] = []

    def on_step(index: int, record: Any, engine: Any) -> None:
        if killed_again_after is not None and index >= killed_again_after:
            journal.sync(force=True)
            on_disk.append(path.read_bytes())
            raise HostKilled(f"killed again after step {index}")

    on_begin, on_step_journal = journal.observers(on_step=on_step)
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(
            resume_match, partial, _bots(game_id), on_begin=on_begin, on_step=on_step_journal
        )
        try:
            replay = future.result().replay
        except HostKilled:
            journal.close()
            path.write_bytes(on_disk[0])
            return read_replay(path), path
    journal.close()
    return replay, write_replay(replay, path)
