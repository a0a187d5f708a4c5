"""Rock-paper-scissors for learners (the registry's sixth, smallest game; rules RPS-n).

| | |
|---|---|
| agents | `player_0`, `player_1` |
| dynamics | simultaneous: one step is one round (RPS-3) |
| observation | `Box(0, 1, (7,), float32)`: round progress round / rounds (1 / rounds in the first round), then both previous moves one-hot (rock, paper, scissors; all zero before round 1 or for a forfeit), own first; once the match is over, the last round's observation again |
| action | `Discrete(3)`: 0 rock, 1 paper, 2 scissors (RPS-4) |
| action mask | `info["action_mask"]`, all three always legal |
| step reward | +1 for a won round, -1 for a lost one (RPS-5) |
| terminal reward | +1 for the match win, -1 for the loss, 0 for a draw (RPS-6) |
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from botarena.core.game import Step
from botarena.core.protocol import Request
from botarena.games.rps.actions import MOVES
from botarena.rl.encoding import Encoding


class RpsEncoding(Encoding):
    """See the module docstring."""

    def __init__(self, config: Any, seats: int) -> None:
        super().__init__(config, seats)
        self.observation_space = spaces.Box(0.0, 1.0, (7,), np.float32)
        self.action_space = spaces.Discrete(len(MOVES))
        self._last: dict[int, np.ndarray[Any, Any]] = {}

    def reset(self) -> None:
        self._last.clear()

    def observe(self, seat: int, requests: Sequence[Request]) -> np.ndarray[Any, Any]:
        if not requests:
            return self._last.get(seat, np.zeros(7, dtype=np.float32)).copy()
        vector = np.zeros(7, dtype=np.float32)
        payload = requests[0].payload
        vector[0] = payload["round"] / self.config.rounds
        last = payload["last_moves"]
        if last is not None:
            for slot, move in enumerate((last[seat], last[1 - seat])):
                if move in MOVES:
                    vector[1 + 3 * slot + MOVES.index(move)] = 1.0
        self._last[seat] = vector
        return vector.copy()

    def act(self, seat: int, requests: Sequence[Request], action: Any) -> list[Any]:
        return [{"move": MOVES[int(action)]}]

    def action_mask(self, seat: int, requests: Sequence[Request]) -> np.ndarray[Any, Any]:
        return np.ones(len(MOVES), dtype=np.int8)

    def step_rewards(self, step: Step) -> list[float]:
        winner = step.record.get("winner")
        if winner is None:
            return [0.0, 0.0]
        return [1.0 if seat == winner else -1.0 for seat in range(2)]
