"""Rock, paper, scissors, rock, ...: a starter that follows the round number."""

from __future__ import annotations

from typing import Any

MOVES = ("rock", "paper", "scissors")


class Cycler:
    """Plays MOVES in turn: rock in round 1, paper in round 2, and so on."""

    def act(self, obs: dict[str, Any]) -> dict[str, Any]:
        return {"move": MOVES[(int(obs["round"]) - 1) % 3]}
