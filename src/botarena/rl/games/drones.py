"""GameOfDrones for learners (spec docs: shared specs drones.md; rules GD-n).

| | |
|---|---|
| agents | `player_0`, `player_1` (seats 0 and 1) |
| dynamics | simultaneous: both agents act every step; a step is one turn (GD-9) |
| observation | `Box(0, cap, (19,), float32)`, the turn request (spec 4.2) as numbers, below |
| action | `Discrete(10)`: `2 * k + attack`; k in 0..4 puts k/4 of this turn's capacity into soldiers (rounded down), the rest into producers; `attack` 1 launches the attack (GD-16) |
| action mask | `info["action_mask"]`, all 10 always legal |
| step reward | +1 when a round ends with the agent's win, -1 with its loss, 0 otherwise (GD-22) |
| terminal reward | +1 for the match win, -1 for the loss, 0 for a draw (GD-25), on the last step |
| episode | one match: `rounds` x up to `turn_limit` steps |

Observation fields, in order: round, rounds, turn, turnLimit, defenderBonus, producers, soldiers,
roundWins, roundLosses, roundDraws; then the previous round's result from this agent's view (4.3):
present (1, or 0 in round 1 and then the rest is 0), outcome (1 WIN, 0.5 DRAW, 0 LOSE), turnsPlayed,
your producers, soldiers, launchedAttack, their producers, soldiers, launchedAttack. Counts are the
raw unit counts (they grow fast: scale them, e.g. log1p, in the policy; they clip at
`encoding.VALUE_CAP`). Once the match is over, an agent observes its last turn request again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from botarena.core.game import Step
from botarena.core.protocol import Request
from botarena.rl.encoding import Encoding, capped_box

SPLITS = 4
"""Soldier shares of a turn's capacity: 0/4, 1/4, 2/4, 3/4, 4/4."""
ACTIONS = 2 * (SPLITS + 1)
OBSERVATION_SIZE = 19
_OUTCOME = {"WIN": 1.0, "DRAW": 0.5, "LOSE": 0.0}
_WINNER = {"PLAYER 1": 0, "PLAYER 2": 1}


def action_payload(action: int, capacity: int) -> dict[str, Any]:
    """The turn reply (spec 5.1) of a `Discrete(10)` action at this turn's `capacity` (producers)."""
    share, attack = divmod(int(action), 2)
    soldiers = capacity * share // SPLITS
    return {"newProducers": capacity - soldiers, "newSoldiers": soldiers, "launchAttack": bool(attack)}


def observation_vector(payload: dict[str, Any]) -> np.ndarray[Any, np.dtype[np.float32]]:
    """The turn request payload (spec 4.2) as the 19 numbers the module docstring lists."""
    vector = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    vector[:10] = [
        payload["round"],
        payload["rounds"],
        payload["turn"],
        payload["turnLimit"],
        payload["defenderBonus"],
        payload["producers"],
        payload["soldiers"],
        payload["roundWins"],
        payload["roundLosses"],
        payload["roundDraws"],
    ]
    previous = payload.get("previousRound")
    if previous is not None:
        you, them = previous["you"], previous["them"]
        vector[10:] = [
            1.0,
            _OUTCOME[previous["outcome"]],
            previous["turnsPlayed"],
            you["producers"],
            you["soldiers"],
            float(you["launchedAttack"]),
            them["producers"],
            them["soldiers"],
            float(them["launchedAttack"]),
        ]
    return vector


class DronesEncoding(Encoding):
    """See the module docstring."""

    def __init__(self, config: Any, seats: int) -> None:
        super().__init__(config, seats)
        self.observation_space = capped_box((OBSERVATION_SIZE,))
        self.action_space = spaces.Discrete(ACTIONS)
        self._all_legal = np.ones(ACTIONS, dtype=np.int8)
        self._last: dict[int, np.ndarray[Any, Any]] = {}

    def reset(self) -> None:
        self._last.clear()

    def observe(self, seat: int, requests: Sequence[Request]) -> np.ndarray[Any, Any]:
        if requests:
            self._last[seat] = observation_vector(requests[0].payload)
        elif seat not in self._last:
            return np.zeros(OBSERVATION_SIZE, dtype=np.float32)
        return self._last[seat].copy()

    def act(self, seat: int, requests: Sequence[Request], action: Any) -> list[Any]:
        capacity = requests[0].payload["producers"]
        return [action_payload(int(action), int(capacity))]

    def action_mask(self, seat: int, requests: Sequence[Request]) -> np.ndarray[Any, Any]:
        return self._all_legal.copy()

    def step_rewards(self, step: Step) -> list[float]:
        """+1/-1 to the winner/loser of a round that ended on this step (GD-22)."""
        rewards = [0.0] * self.seats
        result = step.record.get("roundResult")
        if result is not None and result["outcome"] in _WINNER:
            winner = _WINNER[result["outcome"]]
            rewards[winner], rewards[1 - winner] = 1.0, -1.0
        return rewards
