"""The state of a Nim match: plain data, changed only by `rules.py`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class NimState:
    """The heaps, the number of moves made, the seat to move and the winner once the heaps are empty."""

    heaps: list[int]
    moves: int = 0
    to_move: int = 0
    winner: int | None = None
