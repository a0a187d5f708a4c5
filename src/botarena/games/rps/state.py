"""The state of a rock-paper-scissors match: plain data, changed only by `rules.py`."""

from __future__ import annotations

from dataclasses import dataclass, field

Move = str
"""One of `rules.MOVES`."""


@dataclass
class RpsState:
    """Rounds played so far, each seat's points (RPS-6) and the moves of the last round played
    (None for a seat that forfeited it, RPS-4)."""

    rounds: int
    played: int = 0
    scores: list[int] = field(default_factory=lambda: [0, 0])
    last_moves: list[Move | None] | None = None
