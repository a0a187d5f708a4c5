"""`starter` (spec 10.4): the course's basic logic, with the FORTIFY gold fix; a weak baseline on purpose."""

from __future__ import annotations

from typing import Any

from botarena.games.devops import protocol as m
from botarena.games.devops.bots.logic import SeededLogic


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
