"""A Nim keyframe in ASCII, for `botarena replay FILE --text` and debugging."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def keyframe_text(keyframe: Mapping[str, Any]) -> str:
    """One line per heap (`0: ||||  (4)`), then who moves or who won."""
    heaps = keyframe.get("heaps") or []
    lines = [f"{index}: {'|' * size}  ({size})" for index, size in enumerate(heaps)]
    winner = keyframe.get("winner")
    moves = keyframe.get("moves", 0)
    status = f"seat {winner} won" if winner is not None else f"seat {keyframe.get('to_move', 0)} to move"
    return "\n".join([*lines, f"after {moves} moves: {status}"])
