"""A GameOfDrones engine is plain data: `copy.deepcopy` and `pickle` at any point of a match give an
engine that plays on exactly as the original does (same records, result and 2018 result JSON),
random streams included (GD-3: `drones.turns` and `drones.tiebreak` carry on from where they were)."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import pytest
from drones_testkit import BOTH, config, reply

from botarena.core.protocol import Reply
from botarena.games.drones.engine import DronesEngine
from botarena.games.drones.protocol import original_result_json

Copier = Callable[[DronesEngine], DronesEngine]
COPIERS: dict[str, Copier] = {
    "deepcopy": copy.deepcopy,
    "pickle": lambda engine: pickle.loads(pickle.dumps(engine)),
}


def policy(seat: int, obs: dict[str, Any]) -> dict[str, Any]:
    """Deterministic play from the observation alone. Both seats play alike (equal counts, so ties
    reach GD-19's coin or GD-21's draw), except that PLAYER 2 attacks early every third round."""
    capacity = obs["producers"]
    soldiers = capacity // 2 if obs["turn"] % 2 else 0
    attack = seat == 1 and obs["round"] % 3 == 0 and obs["turn"] == 3
    return {"newProducers": capacity - soldiers, "newSoldiers": soldiers, "launchAttack": attack}


def new_match(rules: str) -> DronesEngine:
    cfg = config(rules, rounds=12, turn_limit_range=(2, 6))
    engine = DronesEngine(cfg, seed=2024)
    engine.start_requests()
    engine.apply_start([reply(0, {"meta": {"name": "one"}}), reply(1, {"meta": {"name": "two"}})])
    return engine


def play(engine: DronesEngine, steps: int | None = None) -> list[dict[str, Any]]:
    """Play `steps` turns (all that are left when None); return their records."""
    records: list[dict[str, Any]] = []
    while (steps is None or len(records) < steps) and (requests := engine.next_requests()):
        replies: list[Reply] = [reply(r.seat, policy(r.seat, r.payload)) for r in requests]
        records.append(engine.apply(replies).record)
    return records


def finish(engine: DronesEngine) -> tuple[Any, ...]:
    """Everything a finished match shows: its remaining records, keyframe, result and 2018 JSON."""
    records = play(engine)
    result = engine.result()
    native = original_result_json(engine)
    return records, engine.keyframe(), result.ranks, result.scores, result.details, native


@pytest.mark.parametrize("rules", BOTH)
@pytest.mark.parametrize("how", sorted(COPIERS))
@pytest.mark.parametrize("after", [0, 1, 4, 17, 1000])
def test_a_copy_mid_match_plays_on_identically(rules: str, how: str, after: int) -> None:
    engine = new_match(rules)
    played = play(engine, after)
    streams = set(engine.seed_streams)
    twin = COPIERS[how](engine)
    assert twin is not engine and twin.state is not engine.state
    assert set(twin.seed_streams) == streams
    assert twin.keyframe() == engine.keyframe()
    expected, copied = finish(engine), finish(twin)
    assert copied == expected
    records = played + expected[0]
    assert any("roundResult" in r for r in records)  # the rounds really were played out
    decided_by = {r["roundResult"]["decidedBy"] for r in records if "roundResult" in r}
    assert ("RANDOM" if rules == "seed" else "DRAW") in decided_by  # the tie rules were reached


def test_a_copy_is_independent_of_its_original() -> None:
    """Playing the copy to the end leaves the original where it was (no shared state or streams)."""
    engine = new_match("seed")
    play(engine, 5)
    before = (engine.keyframe(), [dict(r) for r in engine.state.round_results])
    twin = copy.deepcopy(engine)
    play(twin)
    assert twin.state.finished and not engine.state.finished
    assert (engine.keyframe(), engine.state.round_results) == before
