"""GameOfDrones state: two sides' unit counts within a round, and the match's tallies."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from botarena.games.drones.actions import Count

PLAYER_NAMES = ("PLAYER 1", "PLAYER 2")
DRAW = "DRAW"


@dataclass(slots=True)
class Side:
    """One player's units in the current round, plus the match tallies from its point of view."""

    producers: Count = 1
    soldiers: Count = 0
    attacked: bool = False
    wins: int = 0
    losses: int = 0
    draws: int = 0
    meta: Any = field(default_factory=lambda: {"name": "Anonymous Player"})
    meta_json: str | None = None
    """JSON.stringify's text of the meta when it held a lone surrogate (the adapter's `metaJson`)."""
    previous_round: dict[str, Any] | None = None

    def reset_round(self) -> None:
        """GD-8: every round starts at one producer and no soldiers."""
        self.producers = 1
        self.soldiers = 0
        self.attacked = False

    def final(self) -> dict[str, Any]:
        """The side's final record in a round result."""
        return {"producers": self.producers, "soldiers": self.soldiers, "launchedAttack": self.attacked}


@dataclass(slots=True)
class MatchState:
    """Where the match stands: round r of `rounds`, turn t of this round's limit L."""

    sides: tuple[Side, Side]
    round: int = 0
    turn: int = 1
    turn_limit: int = 0
    finished: bool = False
    round_results: list[dict[str, Any]] = field(default_factory=list)
