"""The simple starter bots of spec 10: `idle`, `banker`, `random` and `starter` (the course's basic
logic, with the FORTIFY gold fix)."""

from __future__ import annotations

from typing import Any

from botarena.games.devops import moves as m
from botarena.games.devops.bots.logic import SeededLogic


class Idle(SeededLogic):
    """Spec 10.1: IDLE everywhere."""

    def next_base_move(self, input: dict[str, Any]) -> dict[str, Any]:
        return m.base_idle()

    def next_unit_move(self, input: dict[str, Any]) -> dict[str, Any]:
        return m.unit_idle()


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
        allowed = m.MOVES_BY_UNIT_TYPE[unit["type"]]
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


def _random_travel(rng: Any, input: dict[str, Any], fallback: dict[str, Any]) -> dict[str, Any]:
    """Spec 10.4 "random travel": an empty neighbour that is not the faction's own base."""
    base = input["faction"]["base"]
    free = [
        n
        for n in input["neighbouringLocations"]
        if n["occupyingUnit"] is None and not (n["x"] == base["x"] and n["y"] == base["y"])
    ]
    return m.unit_travel_to(rng.choice(free)) if free else fallback


def _first_enemy(input: dict[str, Any]) -> dict[str, Any] | None:
    me = input["unit"]["owner"]
    for n in input["neighbouringLocations"]:
        other = n["occupyingUnit"]
        if other is not None and other["owner"] != me:
            return other  # type: ignore[no-any-return]
    return None


class Starter(SeededLogic):
    """Spec 10.4: the course's basic logic re-expressed, a weak baseline on purpose."""

    def next_base_move(self, input: dict[str, Any]) -> dict[str, Any]:
        self.observe(input)
        faction, slot = input["faction"], input["buildSlotState"]
        if faction["population"] < faction["populationCap"]:
            kind = self.rng.choice(["PIONEER", "WORKER", "FIGHTER"])
            if faction["gold"] >= input["context"]["unitCost"][kind] and slot is None:
                return m.base_build_unit(kind)
        if slot is not None:
            return m.base_continue_building()
        return m.base_receive_income()

    def next_unit_move(self, input: dict[str, Any]) -> dict[str, Any]:
        self.observe(input)
        kind = input["unit"]["type"]
        if kind == "PIONEER":
            return self._pioneer(input)
        if kind == "FIGHTER":
            return self._fighter(input)
        if kind == "WORKER":
            return self._worker(input)
        return m.unit_idle()

    def _pioneer(self, input: dict[str, Any]) -> dict[str, Any]:
        me, owner = input["unit"]["owner"], input["unitLocation"]["owner"]
        if owner is None:
            return m.unit_conquer_location()
        if owner != me:
            return m.unit_neutralize_location()
        enemy = _first_enemy(input)
        if enemy is not None:
            return m.unit_attack(enemy)
        if self.rng.random() < 0.15:
            return m.unit_generate_gold()
        return _random_travel(self.rng, input, m.unit_generate_gold())

    def _fighter(self, input: dict[str, Any]) -> dict[str, Any]:
        unit, owner = input["unit"], input["unitLocation"]["owner"]
        enemy = _first_enemy(input)
        if enemy is not None:
            return m.unit_attack(enemy)
        if not unit["defenseBonus"]:
            return m.unit_prepare_defense()
        if owner is None:
            return m.unit_conquer_location()
        if owner != unit["owner"]:
            return m.unit_neutralize_location()
        return _random_travel(self.rng, input, m.unit_prepare_defense())

    def _fortify_or_gold(self, input: dict[str, Any]) -> dict[str, Any]:
        """The spec 10.4 fix: FORTIFY only when the input's gold covers it."""
        if input["faction"]["gold"] >= input["context"]["unitMoveCost"]["FORTIFY"]:
            return m.unit_fortify_location()
        return m.unit_generate_gold()

    def _worker(self, input: dict[str, Any]) -> dict[str, Any]:
        me, here = input["unit"]["owner"], input["unitLocation"]
        owner = here["owner"]
        enemy_tile = owner is not None and owner != me
        if here["base"] or enemy_tile:
            return _random_travel(self.rng, input, m.unit_idle())
        if not here["resource"]:
            for n in input["neighbouringLocations"]:
                if n["resource"] and (n["owner"] is None or n["owner"] == me):
                    if n["occupyingUnit"] is None:
                        return m.unit_travel_to(n)
                    break
        else:
            if owner is None:
                return m.unit_conquer_location()
            if not here["fortified"]:
                return self._fortify_or_gold(input)
            return m.unit_generate_gold()
        pick = self.rng.choice(["TRAVEL", "FORTIFY", "CONQUER", "GENERATE_GOLD"])
        if pick == "FORTIFY" and owner == me:
            return self._fortify_or_gold(input)
        if pick == "GENERATE_GOLD" and owner == me:
            return m.unit_generate_gold()
        if pick == "CONQUER" and owner is None:
            return m.unit_conquer_location()
        return _random_travel(self.rng, input, m.unit_idle())
