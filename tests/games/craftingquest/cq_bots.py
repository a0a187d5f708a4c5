"""Test-only Crafting Quest 2 bots (kept out of the product package)."""

from __future__ import annotations

from typing import Any

Payload = dict[str, Any]


class IdleBot:
    """Answers `setup` with `{}` and every question with `end_turn` (CQ-47)."""

    def setup(self, payload: Payload) -> Payload:
        return {}

    def act(self, payload: Payload) -> Payload:
        return {"action": "end_turn"}

    def end(self, payload: Payload) -> Payload:
        return {}
