"""`expander` (spec 10.5): the stronger starter. It remembers every tile it has seen and expands,
grows its economy and pushes fighters towards enemy territory. Not thread-safe, and needs not be: behind
HTTP, whose calls arrive concurrently, the starter service (`botarena.server.devops.starter_service`)
runs the logic on its event loop, one call at a time."""

from __future__ import annotations

from typing import Any

from botarena.games.devops import protocol as m
from botarena.games.devops.bots.logic import SeededLogic

Tile = tuple[int, int]


class Expander(SeededLogic):
    def __init__(self) -> None:
        super().__init__()
        self.reset()

    def reset(self) -> None:
        self.seen: dict[Tile, dict[str, Any]] = {}
        self.counts: dict[str, dict[int, int]] = {}  # unit type -> {unit id: last turn seen}
        self.reserved: dict[int, set[Tile]] = {}  # turn -> destinations taken
        self.worker_targets: dict[int, set[Tile]] = {}
        self.rigged: set[Tile] = set()

    # -- helpers -----------------------------------------------------------------------------------
    def _dist(self, ctx: dict[str, Any], a: Tile, b: Tile) -> int:
        w, h = int(ctx["mapWidth"]), int(ctx["mapHeight"])
        dx, dy = abs(a[0] - b[0]) % w, abs(a[1] - b[1]) % h
        return max(min(dx, w - dx), min(dy, h - dy))

    def _remember(self, input: dict[str, Any]) -> None:
        turn = input["context"]["turnNumber"]
        for loc in [input["unitLocation"], *input["neighbouringLocations"]]:
            self.seen[(loc["x"], loc["y"])] = {
                "owner": loc["owner"],
                "resource": loc["resource"],
                "base": loc["base"],
                "turn": turn,
            }

    def _count(self, unit_type: str, turn: int) -> int:
        return sum(1 for last in self.counts.get(unit_type, {}).values() if last >= turn - 2)

    def _step_towards(self, input: dict[str, Any], goal: Tile, away: bool = False) -> dict[str, Any] | None:
        ctx = input["context"]
        here = (input["unitLocation"]["x"], input["unitLocation"]["y"])
        turn = ctx["turnNumber"]
        taken = self.reserved.setdefault(turn, set())
        best, best_d = None, self._dist(ctx, here, goal)
        for n in input["neighbouringLocations"]:
            tile = (n["x"], n["y"])
            if n["occupyingUnit"] is not None or tile in taken:
                continue
            d = self._dist(ctx, tile, goal)
            if (d > best_d) if away else (d < best_d):
                best, best_d = tile, d
        if best is None:
            return None
        taken.add(best)
        return m.unit_travel_to(best)

    def _weakest_enemy(self, input: dict[str, Any]) -> dict[str, Any] | None:
        me = input["unit"]["owner"]
        enemies = [
            n["occupyingUnit"]
            for n in input["neighbouringLocations"]
            if n["occupyingUnit"] is not None and n["occupyingUnit"]["owner"] != me
        ]
        if not enemies:
            return None
        weakest: dict[str, Any] = min(
            enemies, key=lambda u: (u["enlightened"], u["defenseBonus"], u["health"], u["id"])
        )
        return weakest

    # -- base --------------------------------------------------------------------------------------
    def next_base_move(self, input: dict[str, Any]) -> dict[str, Any]:
        self.observe(input)
        return self._base(input)

    def _base(self, input: dict[str, Any]) -> dict[str, Any]:
        ctx, faction, slot = input["context"], input["faction"], input["buildSlotState"]
        turn = ctx["turnNumber"]
        self.reserved = {t: s for t, s in self.reserved.items() if t >= turn}
        self.worker_targets = {t: s for t, s in self.worker_targets.items() if t >= turn}
        base = faction["base"]
        occupant = base["occupyingUnit"]
        if occupant is not None and occupant["owner"] != faction["id"]:
            here = (base["x"], base["y"])
            for tile, info in sorted(self.seen.items()):
                if info["base"] and info["owner"] == faction["id"] and tile != here:
                    return m.base_relocate(tile)
        if slot is not None:
            return m.base_continue_building()
        gold = faction["gold"]
        if faction["population"] < faction["populationCap"]:
            choice = None
            if turn > 150 and self._count("CLERIC", turn) == 0:
                choice = "CLERIC"
            elif turn > 100 and self._count("SAPPER", turn) == 0:
                choice = "SAPPER"
            else:
                choice = min(
                    ("PIONEER", "WORKER", "FIGHTER"), key=lambda t: (self._count(t, turn), t != "PIONEER")
                )
            cost = ctx["unitCost"][choice]
            if gold - cost >= faction["currentUpkeep"]:
                return m.base_build_unit(choice)
        if (
            self._count("SAPPER", turn)
            and faction["bombs"] == 0
            and gold > 2000
            and gold >= ctx.get("bombCost", m.SEED_BOMB_COST)
        ):
            return m.base_manufacture_bomb()
        return m.base_receive_income()

    # -- units -------------------------------------------------------------------------------------
    def next_unit_move(self, input: dict[str, Any]) -> dict[str, Any]:
        self.observe(input)
        self._remember(input)
        unit = input["unit"]
        turn = input["context"]["turnNumber"]
        self.counts.setdefault(unit["type"], {})[unit["id"]] = turn
        move = self._unit(input)
        gold = input["faction"]["gold"]
        if input["context"]["unitMoveCost"].get(move["type"], 0) > gold:
            return m.unit_idle()
        return move

    def _unit(self, input: dict[str, Any]) -> dict[str, Any]:
        unit, here, faction = input["unit"], input["unitLocation"], input["faction"]
        base = (faction["base"]["x"], faction["base"]["y"])
        pos = (here["x"], here["y"])
        kind = unit["type"]
        if pos == base:
            if kind == "WORKER" and not here["fortified"] and faction["gold"] >= 250:
                return m.unit_fortify_location()
            step = self._step_towards(input, base, away=True)
            if step is not None:
                return step
        if kind == "PIONEER":
            return self._pioneer(input)
        if kind == "WORKER":
            return self._worker(input)
        if kind == "FIGHTER":
            return self._fighter(input)
        if kind == "SAPPER":
            return self._sapper(input, base, pos)
        return self._cleric(input, base, pos)

    def _take_tile(self, input: dict[str, Any]) -> dict[str, Any] | None:
        owner, me = input["unitLocation"]["owner"], input["unit"]["owner"]
        if owner is None:
            return m.unit_conquer_location()
        if owner != me:
            return m.unit_neutralize_location()
        return None

    def _pioneer(self, input: dict[str, Any]) -> dict[str, Any]:
        take = self._take_tile(input)
        if take is not None:
            return take
        enemy = self._weakest_enemy(input)
        if enemy is not None and not enemy["enlightened"]:
            return m.unit_attack(enemy)
        me, turn = input["unit"]["owner"], input["context"]["turnNumber"]
        taken = self.reserved.setdefault(turn, set())
        options = [
            n
            for n in input["neighbouringLocations"]
            if n["occupyingUnit"] is None and n["owner"] != me and (n["x"], n["y"]) not in taken
        ]
        if options:
            best = min(options, key=lambda n: (not n["resource"], n["owner"] is None))
            taken.add((best["x"], best["y"]))
            return m.unit_travel_to(best)
        goal = self._nearest(input, lambda info: info["owner"] != me)
        if goal is not None:
            step = self._step_towards(input, goal)
            if step is not None:
                return step
        return m.unit_generate_gold()

    def _nearest(self, input: dict[str, Any], wanted: Any) -> Tile | None:
        ctx = input["context"]
        pos = (input["unitLocation"]["x"], input["unitLocation"]["y"])
        best, best_d = None, None
        for tile, info in self.seen.items():
            if tile != pos and wanted(info):
                d = self._dist(ctx, pos, tile)
                if best_d is None or (d, tile) < (best_d, best):
                    best, best_d = tile, d
        return best

    def _worker(self, input: dict[str, Any]) -> dict[str, Any]:
        here, me, faction = input["unitLocation"], input["unit"]["owner"], input["faction"]
        pos = (here["x"], here["y"])
        if here["resource"] and here["owner"] in (None, me):
            if here["owner"] is None:
                return m.unit_conquer_location()
            if not here["fortified"] and faction["gold"] >= 750:
                return m.unit_fortify_location()
            return m.unit_generate_gold()
        turn = input["context"]["turnNumber"]
        targets = self.worker_targets.setdefault(turn, set())
        goal = self._nearest(input, lambda info: info["resource"] and info["owner"] in (None, me))
        if goal is not None and goal not in targets:
            targets.add(goal)
            step = self._step_towards(input, goal)
            if step is not None:
                return step
        if here["owner"] == me:
            return m.unit_generate_gold()
        if here["owner"] is None:
            return m.unit_conquer_location()
        step = self._step_towards(input, pos, away=True)
        return step or m.unit_idle()

    def _fighter(self, input: dict[str, Any]) -> dict[str, Any]:
        enemy = self._weakest_enemy(input)
        if enemy is not None:
            return m.unit_attack(enemy)
        take = self._take_tile(input)
        if take is not None:
            return take
        me = input["unit"]["owner"]
        goal = self._nearest(input, lambda info: info["owner"] not in (None, me) and info["base"])
        if goal is None:
            goal = self._nearest(input, lambda info: info["owner"] not in (None, me))
        faction = input["faction"]
        base = (faction["base"]["x"], faction["base"]["y"])
        step = self._step_towards(input, goal) if goal is not None else self._step_towards(input, base, True)
        return step or m.unit_prepare_defense()

    def _ring(self, input: dict[str, Any], base: Tile, pos: Tile, fallback: dict[str, Any]) -> dict[str, Any]:
        d = self._dist(input["context"], pos, base)
        if d < 2:
            return self._step_towards(input, base, away=True) or fallback
        if d > 2:
            return self._step_towards(input, base) or fallback
        return fallback

    def _sapper(self, input: dict[str, Any], base: Tile, pos: Tile) -> dict[str, Any]:
        enemy = self._weakest_enemy(input)
        if enemy is not None:
            return m.unit_attack(enemy)
        here = input["unitLocation"]
        if here["rigged"] and pos not in self.rigged:
            return m.unit_clear_bomb()
        me = input["unit"]["owner"]
        at_ring = self._dist(input["context"], pos, base) == 1 and here["owner"] == me
        if at_ring and not here["rigged"] and input["faction"]["bombs"] > 0:
            self.rigged.add(pos)
            return m.unit_deploy_bomb()
        if input["faction"]["bombs"] > 0:
            for n in input["neighbouringLocations"]:
                tile = (n["x"], n["y"])
                if (
                    n["owner"] == me
                    and not n["rigged"]
                    and n["occupyingUnit"] is None
                    and self._dist(input["context"], tile, base) == 1
                ):
                    return m.unit_travel_to(tile)
        fallback = m.unit_idle() if input["unit"]["defenseBonus"] else m.unit_prepare_defense()
        return self._ring(input, base, pos, fallback)

    def _cleric(self, input: dict[str, Any], base: Tile, pos: Tile) -> dict[str, Any]:
        unit, me = input["unit"], input["unit"]["owner"]
        health = input["context"]["unitBaseHealth"]
        for n in input["neighbouringLocations"]:
            other = n["occupyingUnit"]
            if other is not None and other["owner"] == me and other["health"] < health[other["type"]]:
                return m.unit_heal(other)
        faction = input["faction"]
        if unit["enlightened"] and faction["population"] < faction["populationCap"]:
            for n in input["neighbouringLocations"]:
                other = n["occupyingUnit"]
                if other is not None and other["owner"] != me and other["type"] in ("FIGHTER", "SAPPER"):
                    return m.unit_convert(other)
        if not unit["enlightened"]:
            return m.unit_pray()
        return self._ring(input, base, pos, m.unit_idle())
