"""`idle` (spec 10.1): IDLE everywhere."""

from __future__ import annotations

from typing import Any

from botarena.games.devops import protocol as m
from botarena.games.devops.bots.logic import SeededLogic


class Idle(SeededLogic):
    """Spec 10.1: IDLE everywhere."""

    def next_base_move(self, input: dict[str, Any]) -> dict[str, Any]:
        return m.base_idle()

    def next_unit_move(self, input: dict[str, Any]) -> dict[str, Any]:
        return m.unit_idle()
