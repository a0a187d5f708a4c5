"""A bot's reply to a move (NIM-4): `{"heap": H, "take": N}`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from botarena.core.protocol import Reply, Verdict
from botarena.core.status import Reason, Status


@dataclass(frozen=True)
class Take:
    """Take `count` objects from heap `heap` (0-based)."""

    heap: int
    count: int


def _index(value: Any) -> int | None:
    """An integer field's value (JSON's true and false are no numbers), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def parse_take(reply: Reply, heaps: list[int], max_take: int) -> tuple[Take | None, Verdict]:
    """NIM-4: the reply's move and its verdict; a reply that is no legal move gives None."""
    if reply.status is not Status.OK:
        return None, Verdict(reply.seat, reply.status, reply.reason, list(reply.warnings))
    payload: Any = reply.payload
    if not isinstance(payload, dict):
        return None, Verdict(
            reply.seat, Status.INVALID, Reason.NOT_OBJECT, detail="a reply must be an object"
        )
    heap, count = _index(payload.get("heap")), _index(payload.get("take"))
    if heap is None or not 0 <= heap < len(heaps) or heaps[heap] == 0:
        detail = f"heap must index a non-empty heap, got {str(payload.get('heap'))[:40]!r}"
        return None, Verdict(reply.seat, Status.INVALID, Reason.BAD_FIELD, detail=detail)
    limit = heaps[heap] if max_take == 0 else min(heaps[heap], max_take)
    if count is None or not 1 <= count <= limit:
        detail = f"take must be 1..{limit} for heap {heap}, got {str(payload.get('take'))[:40]!r}"
        return None, Verdict(reply.seat, Status.INVALID, Reason.BAD_FIELD, detail=detail)
    return Take(heap, count), Verdict(reply.seat, Status.OK)
