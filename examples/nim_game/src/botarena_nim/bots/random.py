"""The random legal bot: a random non-empty heap and a random legal count, from its own bot seed."""

from __future__ import annotations

from typing import Any

import numpy as np


class RandomBot:
    """Random legal moves, reproducible from the start payload's `bot_seed`."""

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)

    def setup(self, start: dict[str, Any]) -> dict[str, Any]:
        self.rng = np.random.default_rng(int(start["bot_seed"]))
        return {}

    def act(self, obs: dict[str, Any]) -> dict[str, Any]:
        heaps: list[int] = obs["heaps"]
        choices = [index for index, size in enumerate(heaps) if size > 0]
        heap = choices[int(self.rng.integers(0, len(choices)))]
        limit = heaps[heap] if obs["max_take"] == 0 else min(heaps[heap], obs["max_take"])
        return {"heap": heap, "take": int(self.rng.integers(1, limit + 1))}
