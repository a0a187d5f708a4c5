"""Nim for learners: the optional RL encoding `GameInfo.rl_encoding` names (rules NIM-n).

| | |
|---|---|
| agents | `player_0`, `player_1` |
| dynamics | alternating: one step is one move (NIM-3) |
| observation | `Box(0, 1, (heap_count + 1,), float32)`: each heap's size / heap_max, then 1 when the seat is to move; a waiting seat sees the heaps of its own last turn with 0 |
| action | `Discrete(heap_count * heap_max)`: `heap * heap_max + (take - 1)` (NIM-4) |
| action mask | `info["action_mask"]`: the legal takes; a waiting seat's only action is 0, ignored |
| rewards | at the end only: +1 for the win, -1 for the loss (NIM-5) |

This module is imported only by `botarena.rl` (it needs Gymnasium); the game itself does not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from botarena.core.protocol import Request
from botarena.rl.encoding import Encoding


class NimEncoding(Encoding):
    """See the module docstring."""

    def __init__(self, config: Any, seats: int) -> None:
        super().__init__(config, seats)
        self.heaps, self.most = int(config.heap_count), int(config.heap_max)
        self.observation_space = spaces.Box(0.0, 1.0, (self.heaps + 1,), np.float32)
        self.action_space = spaces.Discrete(self.heaps * self.most)
        self._last: dict[int, np.ndarray[Any, Any]] = {}

    def reset(self) -> None:
        self._last.clear()

    def observe(self, seat: int, requests: Sequence[Request]) -> np.ndarray[Any, Any]:
        if not requests:
            waiting = self._last.get(seat, np.zeros(self.heaps + 1, dtype=np.float32)).copy()
            waiting[-1] = 0.0
            return waiting
        vector = np.zeros(self.heaps + 1, dtype=np.float32)
        vector[: self.heaps] = np.asarray(requests[0].payload["heaps"], dtype=np.float32) / self.most
        vector[-1] = 1.0
        self._last[seat] = vector
        return vector.copy()

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
