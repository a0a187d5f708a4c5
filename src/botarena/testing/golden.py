"""Golden replays: a short match recorded once and compared byte for byte on every test run.

A golden replay proves that a change kept a game's behaviour: the same seed, bots and config must give
the same bytes. Only what depends on the machine is removed before the comparison
(`MACHINE_FIELDS`): the match id (it has a random suffix), the botarena version that wrote the
replay, the seats' total time used and each reply's `ms`. Everything else (every payload the bots
answered, every verdict, step record, keyframe and the result) is kept. The file is written in one
canonical form: orjson with sorted keys and a final newline, plain JSON so a diff is readable.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from botarena.bots.inprocess import PythonBot
from botarena.core.game import GameInfo
from botarena.core.replay import Replay
from botarena.runner import run_match
from botarena.runner.verify import first_difference, verify_replay

MACHINE_FIELDS = ("match_id", "created_by", "time_used_ms")
"""Top-level replay fields that differ from run to run (with each reply's `ms`)."""

RELAXED_LIMITS = {"setup_timeout_ms": 60_000, "turn_timeout_ms": 60_000}
"""Time limits no in-process bot reaches on a loaded machine, so a golden match never times out."""


@dataclass(frozen=True)
class GoldenMatch:
    """A short deterministic match: `lineup` names bots of the game (`"random"` is its random bot,
    any other name one of its `starter_bots`), played with `seed` on the default preset plus
    `overrides` (and `RELAXED_LIMITS`)."""

    lineup: Sequence[str]
    seed: int
    overrides: Mapping[str, Any] = field(default_factory=dict)


def bot_factory(game: GameInfo[Any], name: str) -> Callable[[], Any]:
    """The factory of a bot of `game` by name: `"random"` or a starter bot."""
    if name == "random":
        return game.random_bot
    return game.starter_bots[name]


def play_golden(game: GameInfo[Any], match: GoldenMatch) -> Replay:
    """Play `match` with in-process bots and return its replay."""
    bots = [PythonBot(bot_factory(game, name), name) for name in match.lineup]
    config = game.config(overrides={**RELAXED_LIMITS, **match.overrides})
    return run_match(game, bots, config=config, seed=match.seed).replay


def canonical_replay(replay: Replay) -> bytes:
    """The replay without what depends on the machine, in the canonical golden form."""
    data = orjson.loads(replay.dumps())
    for name in MACHINE_FIELDS:
        data.pop(name, None)
    for section in [data["start"], *data["steps"], data["end"]]:
        for reply in section.get("replies", []):
            reply.pop("ms", None)
    for entry in data.get("late", []):
        entry["reply"].pop("ms", None)
    return orjson.dumps(data, option=orjson.OPT_SORT_KEYS) + b"\n"


def check_golden(game: GameInfo[Any], match: GoldenMatch, path: Path, regenerate: bool = False) -> None:
    """Play `match` and compare it byte for byte with the golden file at `path` (or write the file,
    with `regenerate`). Raises AssertionError naming the first difference."""
    played = canonical_replay(play_golden(game, match))
    if regenerate:
        path.write_bytes(played)
        return
    assert path.exists(), f"golden replay: {path} is missing (regenerate it)"
    stored = path.read_bytes()
    if played != stored:
        where = first_difference(orjson.loads(stored), orjson.loads(played)) or "formatting"
        raise AssertionError(f"golden replay: {game.id} no longer plays {path.name}: {where}")


def check_golden_verifies(path: Path) -> None:
    """The stored golden file re-runs identically through `verify_replay`."""
    replay = Replay.from_json(orjson.loads(path.read_bytes()))
    report = verify_replay(replay)
    assert report.identical, f"golden replay: {path.name} does not re-run: {report}"
    assert report.steps_checked == len(replay.steps), f"golden replay: {path.name}: {report}"
