"""What each seat sees (RPS-2, RPS-3, RPS-7): everything, as the game has full information."""

from __future__ import annotations

from typing import Any

from botarena.games.rps.state import RpsState


def start_payload(state: RpsState, seat: int, bot_seed: int) -> dict[str, Any]:
    """RPS-2: the seat, the number of rounds and the seat's own bot seed."""
    return {"seat": seat, "rounds": state.rounds, "bot_seed": bot_seed}


def turn_payload(state: RpsState, seat: int) -> dict[str, Any]:
    """RPS-3: the round to play, both scores and both moves of the previous round (None before the
    first round; a forfeited move is null)."""
    last = None if state.last_moves is None else list(state.last_moves)
    return {"seat": seat, "round": state.played + 1, "scores": list(state.scores), "last_moves": last}


def end_payload(state: RpsState, seat: int, ranks: list[int]) -> dict[str, Any]:
    """RPS-7: the final scores and ranks."""
    return {"seat": seat, "scores": list(state.scores), "ranks": list(ranks)}
