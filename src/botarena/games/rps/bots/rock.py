"""Rock, always: the simplest starter."""

from __future__ import annotations

from typing import Any


class Rock:
    """Plays rock every round."""

    def act(self, obs: dict[str, Any]) -> dict[str, Any]:
        return {"move": "rock"}
