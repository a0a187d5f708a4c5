"""Requests and replies between the runner and bots: the generic JSON-lines protocol's envelope.

An engine asks for decisions with `Request`s; the runner turns each into an envelope
`{"type", "id", "match", "seat", "turn", "deadline_ms", "payload"}`, a bot answers with
`{"id", "payload"}`, and the runner hands the engine a `Reply`. See docs/protocol.md.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from botarena.core.status import Status, Warning

NOT_AWAITED = "not_awaited"
"""Reason of the TIMEOUT reply to a request sent with `await_reply=False`: its answer is owed."""
DISCONNECTED = "disconnected"
"""Reason of a CRASHED late reply from a bot that can no longer answer (an HTTP bot's failed request)."""
ANSWER_OWED = "answer_owed"
"""Reason of the TIMEOUT `end` reply of an in-process bot whose owed call is still running."""


class MessageType(StrEnum):
    """The three message types of the generic protocol."""

    START = "start"
    TURN = "turn"
    END = "end"


@dataclass(slots=True)
class Request:
    """One decision the engine wants from one seat.

    `timeout_ms` limits this request alone. Requests of a turn made of a chain of requests (Crafting
    Quest's actions, a Devops faction's calls) name the same `chain` and share `chain_budget_ms`.
    `turn` is the game's own turn label, echoed in the envelope for the bot's convenience.

    `await_reply=False` (engines with `late_replies` only) sends the request without waiting: the
    runner at once hands the engine `Reply(seat, TIMEOUT, reason=NOT_AWAITED)`, and the seat owes the
    answer, which comes back through `Engine.late_reply` (Crafting Quest's `result` with
    `actions_left: 0`, CQ-31, whose answer is late by definition).
    """

    seat: int
    payload: Any
    timeout_ms: int
    type: MessageType = MessageType.TURN
    turn: int = 0
    chain: Hashable | None = None  # any key, e.g. (round, seat): equal keys are one chain
    chain_budget_ms: int = 0
    await_reply: bool = True


@dataclass(slots=True)
class Reply:
    """What came back for one request, as the transport saw it.

    `status` is the transport's verdict (OK, TIMEOUT, CRASHED, or INVALID for an unreadable line);
    the engine makes the final, game-level verdict from it and `payload`.
    """

    seat: int
    status: Status
    payload: Any = None
    reason: str | None = None
    time_ms: float = 0.0
    warnings: list[Warning] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The replay form: `{seat, status, payload, reason?, warnings?, ms}`, ms to the microsecond."""
        # The runner calls this twice per turn, so it avoids the enum's `.value` descriptor and
        # round(): the time is never negative, and half-up rounding is as good for a timing.
        if self.reason is None and not self.warnings:
            return {
                "seat": self.seat,
                "status": self.status._value_,
                "payload": self.payload,
                "ms": int(self.time_ms * 1000.0 + 0.5) / 1000.0,
            }
        data: dict[str, Any] = {"seat": self.seat, "status": self.status._value_, "payload": self.payload}
        if self.reason is not None:
            data["reason"] = self.reason
        if self.warnings:
            data["warnings"] = self.warnings
        data["ms"] = int(self.time_ms * 1000.0 + 0.5) / 1000.0
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Reply:
        return cls(
            seat=int(data["seat"]),
            status=Status(data["status"]),
            payload=data.get("payload"),
            reason=data.get("reason"),
            time_ms=float(data.get("ms", 0.0)),
            warnings=list(data.get("warnings", [])),
        )


@dataclass(slots=True)
class Verdict:
    """The engine's final judgement of one reply: status, reason code and warnings."""

    seat: int
    status: Status
    reason: str | None = None
    warnings: list[Warning] = field(default_factory=list)
    detail: str | None = None
