"""Nim for learners: the optional RL encoding `GameInfo.rl_encoding` names (rules NIM-n).

- agents: `player_0`, `player_1`; alternating, one step is one move (NIM-3).
- observation: `Box(0, 1, (heap_count + 2,), float32)`: each heap's size / heap_max, 1 when the seat
  is to move, and the moves made / (heap_count * heap_max); a waiting seat sees the position after
  the last move, with 0.
- action: `Discrete(heap_count * heap_max)`: `heap * heap_max + (take - 1)` (NIM-4); the action
  mask (`info["action_mask"]`) allows the legal takes; a waiting seat's only action is 0, ignored.
- rewards: at the end only, +1 for the win and -1 for the loss (NIM-5).

This module is imported only by `botarena.rl` (it needs Gymnasium); the game itself does not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from botarena.core.game import Step
from botarena.core.protocol import Request
from botarena.rl.encoding import Encoding


class NimEncoding(Encoding):
    """See the module docstring."""

    def __init__(self, config: Any, seats: int) -> None:
        super().__init__(config, seats)
        self.heaps, self.most = int(config.heap_count), int(config.heap_max)
        self.observation_space = spaces.Box(0.0, 1.0, (self.heaps + 2,), np.float32)
        self.action_space = spaces.Discrete(self.heaps * self.most)
        self._heaps: list[int] | None = None
        """The heaps of the last position seen (a start or turn request's, a step's), for a waiting seat."""
        self._moves = 0

    def reset(self) -> None:
        self._heaps, self._moves = None, 0

    def start_reply(self, request: Request) -> Any:
        self._heaps = list(request.payload["heaps"])
        return {}

    def observe(self, seat: int, requests: Sequence[Request]) -> np.ndarray[Any, Any]:
        if requests:
            self._heaps, self._moves = list(requests[0].payload["heaps"]), requests[0].payload["move"] - 1
        vector = np.zeros(self.heaps + 2, dtype=np.float32)
        if self._heaps is not None:
            vector[: self.heaps] = np.asarray(self._heaps, dtype=np.float32) / self.most
        vector[self.heaps] = 1.0 if requests else 0.0
        vector[self.heaps + 1] = self._moves / (self.heaps * self.most)
        return vector

    def step_rewards(self, step: Step) -> list[float]:
        """No reward before the end (NIM-5); every move, a bot's too, updates the position seen."""
        self._heaps, self._moves = list(step.record["heaps"]), int(step.record["move"])
        return [0.0] * self.seats

    def act(self, seat: int, requests: Sequence[Request], action: Any) -> list[Any]:
        heap, take = divmod(int(action), self.most)
        return [{"heap": heap, "take": take + 1} for _ in requests]

    def action_mask(self, seat: int, requests: Sequence[Request]) -> np.ndarray[Any, Any]:
        mask = np.zeros(self.heaps * self.most, dtype=np.int8)
        if not requests:
            mask[0] = 1
            return mask
        payload = requests[0].payload
        for heap, size in enumerate(payload["heaps"]):
            limit = size if payload["max_take"] == 0 else min(size, payload["max_take"])
            mask[heap * self.most : heap * self.most + limit] = 1
        return mask
