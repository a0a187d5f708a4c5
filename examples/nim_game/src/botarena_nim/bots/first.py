"""One object from the first non-empty heap, always: the simplest starter."""

from __future__ import annotations

from typing import Any


class First:
    """Takes one object from the first heap that has any."""

    def act(self, obs: dict[str, Any]) -> dict[str, Any]:
        heap = next(index for index, size in enumerate(obs["heaps"]) if size > 0)
        return {"heap": heap, "take": 1}
