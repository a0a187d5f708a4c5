"""`RandomLegal`, the random legal player: the registry's `random_bot`, which the conformance suite and
fuzzing play in every seat."""

from __future__ import annotations

from typing import Any

import numpy as np

Payload = dict[str, Any]


class RandomLegal:
    """Valid orders for its own units from its own bot_seed: mostly moves, some attacks and abilities."""

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)
        self.me = 0

    def setup(self, start: Payload) -> Payload:
        self.rng = np.random.default_rng(int(start["bot_seed"]))
        self.me = int(start["me"])
        return {}

    def act(self, obs: Payload) -> Payload:
        orders = []
        for unit in obs["units"]:
            if unit["player"] != obs["me"]:
                continue
            roll = float(self.rng.random())
            if unit["upgraded"] and roll < 0.1:
                orders.append({"unit": unit["id"], "type": "ability"})
            elif roll < 0.2:
                orders.append({"unit": unit["id"], "type": "attack", "dir": int(self.rng.integers(0, 9))})
            else:
                orders.append({"unit": unit["id"], "type": "move", "dir": int(self.rng.integers(0, 9))})
        return {"orders": orders}
