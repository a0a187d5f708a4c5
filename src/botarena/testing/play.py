"""How the conformance checks play a game: in-process bots through the runner, on the game's
`test_overrides`, and what they look at in a replay."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import orjson

from botarena.bots.inprocess import PythonBot
from botarena.core.game import ConfigT, GameInfo
from botarena.core.replay import Replay
from botarena.runner import run_match
from botarena.runner.match import StepObserver

BIG_SEED = 0xA5C3_9E37_79B9_7F4B
"""The checks' match seed: 64 bits, so it cannot turn up in a payload by accident."""

BotFactory = Callable[[], Any]


def seat_counts(game: GameInfo[Any]) -> list[int]:
    """The smallest and the largest number of seats of the game."""
    return sorted({game.min_players, game.max_players})


def checks_config(game: GameInfo[ConfigT], **extra: Any) -> ConfigT:
    """The game's default config with its `test_overrides` (and `extra`)."""
    overrides = {**game.test_overrides, **extra}
    return game.config(overrides=overrides or None)


def play(
    game: GameInfo[Any],
    factories: Sequence[BotFactory],
    seed: int = BIG_SEED,
    config: Any = None,
    on_step: StepObserver | None = None,
) -> Replay:
    """Play one match of in-process bots (seat i is `factories[i]`) and return its replay."""
    bots = [PythonBot(factory, f"seat{seat}") for seat, factory in enumerate(factories)]
    run = run_match(game, bots, config=config or checks_config(game), seed=seed, on_step=on_step)
    return run.replay


def exchanges(replay: Replay) -> Iterator[dict[str, Any]]:
    """The start exchange, every step, and the end exchange."""
    yield replay.start
    yield from replay.steps
    yield replay.end


def statuses_seen(replay: Replay) -> set[str]:
    """Every verdict status of the match."""
    return {verdict[0] for exchange in exchanges(replay) for verdict in exchange["verdicts"]}


def blanked(replay: Replay) -> bytes:
    """The replay's JSON with what may differ between two runs blanked: the match id, timings, logs."""
    data = orjson.loads(replay.dumps())
    data["match_id"] = ""
    data["created_by"] = ""
    data["time_used_ms"] = []
    data["logs"] = []
    for section in exchanges_of(data):
        for reply in section["replies"]:
            reply["ms"] = 0
    return orjson.dumps(data)


def exchanges_of(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The exchanges of a replay's JSON (as `exchanges` does for a Replay)."""
    return [data["start"], *data["steps"], data["end"]]
