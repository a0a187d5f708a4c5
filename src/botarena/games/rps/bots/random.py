"""The random legal bot: a uniformly random move each round, from its own bot seed."""

from __future__ import annotations

from typing import Any

import numpy as np

MOVES = ("rock", "paper", "scissors")


class RandomBot:
    """Random moves, reproducible from the start payload's `bot_seed`."""

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)

    def setup(self, start: dict[str, Any]) -> dict[str, Any]:
        self.rng = np.random.default_rng(int(start["bot_seed"]))
        return {}

    def act(self, obs: dict[str, Any]) -> dict[str, Any]:
        return {"move": MOVES[int(self.rng.integers(0, 3))]}
