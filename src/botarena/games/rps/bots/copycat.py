"""A starter that plays what the opponent played last round (rock at first)."""

from __future__ import annotations

from typing import Any


class Copycat:
    """The opponent's previous move; rock in round 1 or after the opponent forfeited."""

    def act(self, obs: dict[str, Any]) -> dict[str, Any]:
        last = obs.get("last_moves")
        theirs = last[1 - int(obs["seat"])] if last else None
        return {"move": theirs or "rock"}
