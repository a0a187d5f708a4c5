"""An engine is plain data (docs/architecture.md): `copy.deepcopy` and `pickle` at any point of a round
give an engine that plays on exactly as the original does, through the same §3.8 transitions and DP-95
streams (the copy carries each stream's position, not a fresh one)."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import orjson
import pytest

from botarena.core.protocol import Reply
from botarena.core.replay import verdict_json
from botarena.core.status import Status
from botarena.games.datspulse import GAME
from botarena.games.datspulse.bots import Forager, Raider, RandomWalker
from botarena.games.datspulse.engine import DatsPulseEngine, Round

SEED = 20250711
#: Food spawns (DP-80), fights and raids need turns and neighbours: three teams on a small map.
OVERRIDES = {"turns": 14, "map_radius": 14}

Copier = Callable[[Any], Any]
COPIERS: dict[str, Copier] = {
    "deepcopy": copy.deepcopy,
    "pickle": lambda value: pickle.loads(pickle.dumps(value)),
}


def new_game() -> tuple[DatsPulseEngine, list[Any]]:
    """An engine after its start exchange, and the bots of its three seats, set up."""
    engine = GAME.new_engine(GAME.config(overrides=OVERRIDES), SEED, 3)
    assert isinstance(engine, DatsPulseEngine)
    engine.set_player_names(["forager", "raider", "walker"])
    starts = engine.start_requests()
    engine.apply_start([Reply(request.seat, Status.OK, {}) for request in starts])
    bots: list[Any] = [Forager(), Raider(), RandomWalker()]
    for bot, request in zip(bots, starts, strict=True):
        bot.setup(request.payload)
    return engine, bots


def play(engine: DatsPulseEngine, bots: list[Any], steps: int | None = None) -> list[bytes]:
    """Play `steps` turns (all that are left when None); each step as the bytes of its record, verdicts
    and the teams' next §7.7 logs, so two runs compare exactly."""
    records: list[bytes] = []
    while (steps is None or len(records) < steps) and (requests := engine.next_requests()):
        replies = [Reply(r.seat, Status.OK, bots[r.seat].act(r.payload)) for r in requests]
        step = engine.apply(replies)
        record = {
            "record": step.record,
            "verdicts": [verdict_json(verdict) for verdict in step.verdicts],
            "logs": {str(team): lines for team, lines in engine.last_logs.items()},
        }
        records.append(orjson.dumps(record))
    return records


def outcome(engine: DatsPulseEngine) -> bytes:
    """The result (§6.1, §6.2) and the final keyframe, as bytes."""
    result = engine.result()
    return orjson.dumps([result.ranks, result.scores, result.details, engine.keyframe()])


@pytest.mark.parametrize("copier", COPIERS.values(), ids=list(COPIERS))
@pytest.mark.parametrize("played", [0, 1, 6])
def test_an_engine_copied_mid_round_plays_on_identically(copier: Copier, played: int) -> None:
    engine, bots = new_game()
    play(engine, bots, played)
    twin, twin_bots = copier((engine, bots))
    assert twin.round.turn_no == engine.round.turn_no == played
    original_rest, twin_rest = play(engine, bots), play(twin, twin_bots)
    assert len(original_rest) == OVERRIDES["turns"] - played
    assert twin_rest == original_rest
    assert outcome(twin) == outcome(engine)


@pytest.mark.parametrize("copier", COPIERS.values(), ids=list(COPIERS))
def test_an_engine_copied_before_its_round_exists_plays_identically(copier: Copier) -> None:
    """The round (and its map) is made on first use: a copy made before that makes the same one."""
    engine = GAME.new_engine(GAME.config(overrides=OVERRIDES), SEED, 3)
    twin = copier(engine)
    assert orjson.dumps(twin.keyframe()) == orjson.dumps(engine.keyframe())


@pytest.mark.parametrize("copier", COPIERS.values(), ids=list(COPIERS))
def test_a_round_copied_with_orders_pending_runs_the_same_transition(copier: Copier) -> None:
    """The real-time driver's state between two transitions: accepted orders wait in the slots (§7.2)."""
    round_ = Round.create(GAME.config(overrides=OVERRIDES), SEED, ["a", "b", "c"])
    bots: list[Any] = [Forager(), Raider(), RandomWalker()]
    for team, bot in enumerate(bots):
        bot.setup({"bot_seed": team})
        assert round_.submit(team, bot.act(round_.arena(team, 2.0))) == []
    assert any(round_.orders(team) for team in range(3))
    twin = copier(round_)
    assert twin.transition() == round_.transition()
    assert orjson.dumps(twin.spectator_frame()) == orjson.dumps(round_.spectator_frame())
    assert [twin.arena(team, 1.0) for team in range(3)] == [round_.arena(team, 1.0) for team in range(3)]
