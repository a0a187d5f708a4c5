"""A rock-paper-scissors keyframe in ASCII, for `botarena replay FILE --text` and debugging."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def keyframe_text(keyframe: Mapping[str, Any]) -> str:
    """`Round 3/9  score 2-1  last: rock vs scissors` (a forfeited move shows as `-`)."""
    scores = keyframe.get("scores") or [0, 0]
    last = keyframe.get("last_moves")
    moves = "none yet" if last is None else " vs ".join(move or "-" for move in last)
    played, rounds = keyframe.get("played", 0), keyframe.get("rounds", "?")
    return f"Round {played}/{rounds}  score {scores[0]}-{scores[1]}  last: {moves}"
