"""What each seat sees (NIM-2, NIM-3, NIM-6): everything, as the game has full information."""

from __future__ import annotations

from typing import Any

from botarena_nim.state import NimState


def start_payload(state: NimState, seat: int, bot_seed: int, max_take: int) -> dict[str, Any]:
    """NIM-2: the seat, the heaps, the largest take and the seat's own bot seed."""
    return {"seat": seat, "heaps": list(state.heaps), "max_take": max_take, "bot_seed": bot_seed}


def turn_payload(state: NimState, seat: int, max_take: int) -> dict[str, Any]:
    """NIM-3: the heaps to move on and the move number (1-based)."""
    return {"seat": seat, "move": state.moves + 1, "heaps": list(state.heaps), "max_take": max_take}


def end_payload(state: NimState, seat: int, ranks: list[int]) -> dict[str, Any]:
    """NIM-6: the winner and the ranks."""
    return {"seat": seat, "winner": state.winner, "ranks": list(ranks)}
