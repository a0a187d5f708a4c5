"""A bot's reply to a move (RPS-3, RPS-4): `{"move": "rock" | "paper" | "scissors"}`."""

from __future__ import annotations

from typing import Any

from botarena.core.protocol import Reply, Verdict
from botarena.core.status import Reason, Status
from botarena.games.rps.state import Move

MOVES: tuple[Move, ...] = ("rock", "paper", "scissors")


def parse_move(reply: Reply) -> tuple[Move | None, Verdict]:
    """RPS-4: the reply's move and its verdict; a reply that is no move forfeits (None)."""
    if reply.status is not Status.OK:
        return None, Verdict(reply.seat, reply.status, reply.reason, list(reply.warnings))
    payload: Any = reply.payload
    if not isinstance(payload, dict):
        return None, Verdict(
            reply.seat, Status.INVALID, Reason.NOT_OBJECT, detail="a reply must be an object"
        )
    move = payload.get("move")
    if move not in MOVES:
        detail = f"move must be one of {', '.join(MOVES)}, got {str(move)[:40]!r}"
        return None, Verdict(reply.seat, Status.INVALID, Reason.BAD_FIELD, detail=detail)
    return move, Verdict(reply.seat, Status.OK)
