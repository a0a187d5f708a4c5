"""Time limits as DESIGN's platform vocabulary names them, read from a game's config."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class TimeLimits:
    """Integers in ms. `overage_bank_ms` 0 means no bank; `turn_budget_ms` 0 means no chain budget."""

    setup_timeout_ms: int
    turn_timeout_ms: int
    overage_bank_ms: int = 0
    turn_budget_ms: int = 0
    turn_grace_ms: int = 0

    @classmethod
    def from_config(cls, config: Any) -> TimeLimits:
        return cls(
            setup_timeout_ms=int(config.setup_timeout_ms),
            turn_timeout_ms=int(config.turn_timeout_ms),
            overage_bank_ms=int(getattr(config, "overage_bank_ms", 0)),
            turn_budget_ms=int(getattr(config, "turn_budget_ms", 0)),
            turn_grace_ms=int(getattr(config, "turn_grace_ms", 0)),
        )


class OverageBank:
    """A bot's overage bank: time past a request's own limit is drawn from it until it is empty."""

    __slots__ = ("remaining_ms",)

    def __init__(self, bank_ms: int) -> None:
        self.remaining_ms = float(bank_ms)

    def allowance_ms(self, limit_ms: float) -> float:
        """The hard limit for the next request: its own limit plus what is left in the bank."""
        return limit_ms + self.remaining_ms

    def charge(self, limit_ms: float, used_ms: float) -> None:
        """Take the time over `limit_ms` out of the bank."""
        if used_ms > limit_ms:
            self.remaining_ms = max(0.0, self.remaining_ms - (used_ms - limit_ms))
