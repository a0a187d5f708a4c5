"""`banker` (spec 10.2): income and gold, defence for fighters and sappers."""

from __future__ import annotations

from typing import Any

from botarena.games.devops import protocol as m
from botarena.games.devops.bots.logic import SeededLogic


class Banker(SeededLogic):
    """Spec 10.2: income and gold, defence for fighters and sappers."""

    def next_base_move(self, input: dict[str, Any]) -> dict[str, Any]:
        return m.base_receive_income()

    def next_unit_move(self, input: dict[str, Any]) -> dict[str, Any]:
        unit, here = input["unit"], input["unitLocation"]
        kind = unit["type"]
        if kind in ("PIONEER", "WORKER") and here["owner"] == unit["owner"]:
            return m.unit_generate_gold()
        if kind in ("FIGHTER", "SAPPER"):
            return m.unit_prepare_defense()
        return m.unit_idle()
