"""A Domains engine is plain data: `copy.deepcopy` and a pickle round trip mid-game give engines that
play on exactly as the original does (same step records, keyframes, export frames and result)."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest

from botarena.core.protocol import Reply
from botarena.core.registry import get_game
from botarena.core.status import Status
from botarena.games.domains.engine import DomainsEngine

ROUNDS = 80


def new_engine(rng: str) -> DomainsEngine:
    game = get_game("domains")
    config = game.config(
        overrides={"number_of_rounds": ROUNDS, "board_height": 16, "board_width": 16, "rng": rng}
    )
    built = game.new_engine(config, 5, 3)
    assert isinstance(built, DomainsEngine)
    return built


def play_to_end(engine: DomainsEngine, bots: list[Any]) -> list[Any]:
    """Every remaining round with these bots; returns the step records, keyframes, frames and result."""
    records = []
    while requests := engine.next_requests():
        step = engine.apply([Reply(r.seat, Status.OK, bots[r.seat].act(r.payload)) for r in requests])
        records.append(step.record)
        records.append(engine.keyframe())
    return [records, engine.game.frames, engine.result()]


@pytest.mark.parametrize("rng", ["pcg64", "reference"])
@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_copied_engine_plays_on_identically(rng: str, how: str) -> None:
    engine = new_engine(rng)
    bots = [get_game("domains").random_bot() for _ in range(3)]
    for request in engine.start_requests():
        bots[request.seat].setup(request.payload)
    for _ in range(ROUNDS // 2):  # mid-game: trails, fights and bubbles are under way
        requests = engine.next_requests()
        engine.apply([Reply(r.seat, Status.OK, bots[r.seat].act(r.payload)) for r in requests])
    copied = copy.deepcopy(engine) if how == "deepcopy" else pickle.loads(pickle.dumps(engine))
    copied_bots = copy.deepcopy(bots)  # the bots' random streams go on as the originals' do
    assert copied.keyframe() == engine.keyframe()
    original_end = play_to_end(engine, bots)
    copied_end = play_to_end(copied, copied_bots)
    assert copied_end == original_end
    assert len(original_end[0]) == ROUNDS  # 40 rounds played after the copy, record and keyframe each
