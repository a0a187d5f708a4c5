"""The `dummy` starter bot searches on bitboards; `dummy_model.ModelDummy` is the same strategy with
square-by-square breadth-first searches, written straight from spec section 10. Given the same
observations and bot seed, both must give the same orders, round after round."""

from __future__ import annotations

from typing import Any

import pytest
from dummy_model import Dummy as ModelDummy

from botarena.bots.inprocess import PythonBot
from botarena.core.registry import get_game
from botarena.games.domains.bots.dummy import Dummy
from botarena.games.domains.bots.random import RandomLegal
from botarena.runner import run_match


class Twin:
    """Plays `Dummy`, and checks every reply against the model's."""

    def __init__(self) -> None:
        self.fast = Dummy()
        self.model = ModelDummy()
        self.rounds = 0

    def setup(self, payload: dict[str, Any]) -> dict[str, Any]:
        self.model.setup(payload)
        return self.fast.setup(payload)

    def act(self, payload: dict[str, Any]) -> dict[str, Any]:
        reply = self.fast.act(payload)
        expected = self.model.act(payload)
        assert reply == expected, f"round {payload['round']}, player {payload['me']}"
        self.rounds += 1
        return reply


@pytest.mark.parametrize(
    ("players", "size", "seed"), [(2, 50, 1), (2, 12, 2), (3, 16, 3), (4, 20, 4), (4, 9, 5)]
)
def test_dummy_orders_match_the_plain_search(players: int, size: int, seed: int) -> None:
    game = get_game("domains")
    rounds = 120 if size == 50 else 300
    config = game.config(
        overrides={
            "number_of_rounds": rounds,
            "board_height": size,
            "board_width": size + seed % 2,
            "turn_timeout_ms": 60_000,  # the twin runs two searches a round: no TIMEOUT on a loaded box
        }
    )
    twins: list[Twin] = []

    def twin() -> Twin:
        twins.append(Twin())
        return twins[-1]

    factories: list[Any] = [twin] * (players - 1) + [RandomLegal]
    run = run_match(game, [PythonBot(f, "bot") for f in factories], config=config, seed=seed)
    assert all(status == {"OK": rounds + 1} for status in run.replay.statuses[:-1]), run.replay.statuses
    assert all(t.rounds == rounds for t in twins)
