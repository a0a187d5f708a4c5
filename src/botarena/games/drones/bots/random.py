"""The random legal bot (the registry's `random_bot`): conformance checks and fuzzing play it."""

from __future__ import annotations

from typing import Any

import numpy as np

from botarena.games.drones.bots.examples import action

Payload = dict[str, Any]


class RandomLegal:
    """Random legal play from its own bot_seed: a random split of capacity, attacking now and then."""

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)

    def setup(self, start: Payload) -> Payload:
        self.rng = np.random.default_rng(int(start["bot_seed"]))
        return {"meta": {"name": "Random legal"}}

    def act(self, obs: Payload) -> Payload:
        capacity = obs["producers"]
        whole = int(capacity)
        soldiers = int(self.rng.integers(0, whole + 1))
        return action(whole - soldiers, soldiers, bool(self.rng.random() < 0.15))
