"""`random` (spec 10.3): a uniform pick among the moves valid in its input, never penalised."""

from __future__ import annotations

from typing import Any

from botarena.games.devops import protocol as m
from botarena.games.devops.actions import MOVES_BY_UNIT_TYPE
from botarena.games.devops.bots.logic import FactionBot, SeededLogic


class RandomLogic(SeededLogic):
    """Spec 10.3: a uniform pick among the moves valid in its input (never penalised)."""

    def next_base_move(self, input: dict[str, Any]) -> dict[str, Any]:
        self.observe(input)
        context, faction = input["context"], input["faction"]
        gold = faction["gold"]
        options = [m.base_receive_income(), m.base_idle(), m.base_continue_building()]
        options += [m.base_build_unit(t) for t, cost in context["unitCost"].items() if cost <= gold]
        # `bombCost` is not in the course's 2024-25 GameContext (wire_model `course-2024`): assume the seed's
        if context.get("bombCost", m.SEED_BOMB_COST) <= gold:
            options.append(m.base_manufacture_bomb())
        options.append(m.base_relocate(faction["base"]))
        return self.rng.choice(options)

    def next_unit_move(self, input: dict[str, Any]) -> dict[str, Any]:
        self.observe(input)
        unit, gold = input["unit"], input["faction"]["gold"]
        costs = input["context"]["unitMoveCost"]
        allowed = MOVES_BY_UNIT_TYPE[unit["type"]]
        options: list[dict[str, Any]] = []
        for kind in sorted(allowed):
            if costs.get(kind, 0) > gold:
                continue
            if kind == "TRAVEL":
                options += [
                    m.unit_travel_to(n) for n in input["neighbouringLocations"] if n["occupyingUnit"] is None
                ]
            elif kind in ("ATTACK", "CONVERT", "HEAL"):
                for n in input["neighbouringLocations"]:
                    other = n["occupyingUnit"]
                    if other is None:
                        continue
                    if (other["owner"] == unit["owner"]) == (kind == "HEAL"):
                        options.append({"type": kind, "targetUnit": {"id": other["id"]}})
            elif kind != "RETIRE" or self.rng.random() < 0.05:  # retiring everything ends the fuzzing
                options.append({"type": kind})
        return self.rng.choice(options) if options else m.unit_idle()


class RandomBot(FactionBot):
    """The random legal bot (`GameInfo.random_bot`): `RandomLogic` in-process, for the conformance
    suite and fuzzing."""

    def __init__(self) -> None:
        super().__init__(RandomLogic())
