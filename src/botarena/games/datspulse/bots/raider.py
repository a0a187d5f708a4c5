"""`raider` (spec §10.3): the forager's economy with half the workers, and raids on enemy anthills.

- Every other worker (the 2nd, 4th, ... in spawn order), all soldiers and all scouts form the raid squad
  once an enemy anthill is known: a type-1 tile that is not in `home` (DP-11). Until then the squad's
  workers forage, its soldiers guard and its scouts explore, as the forager's do.
- The target is the known enemy anthill hex with the most nectar last seen (the nearest on a tie).
- Squad members gather 3-4 hexes from it, out of the anthill's reach (DP-71), and go in only when a
  partner is there too, so the support bonus applies (DP-74).
- In, they park next to the target hex and stay while they have free capacity (DP-77), then carry the
  loot home. They go home when health is 40 or less: the anthill's 20 per turn kills a scout in 4 turns.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from botarena.games.datspulse.bots.common import (
    NECTAR,
    SCOUT,
    SOLDIER,
    WORKER,
    carried,
    carried_type,
    hex_of,
    living_ants,
    search,
    search_toward,
)
from botarena.games.datspulse.bots.forager import Forager, TurnPlan
from botarena.games.datspulse.hexgrid import Hex, distance, neighbours

RETREAT_HEALTH = 40
STAGING = (3, 4)


class Raider(Forager):
    """§10.3."""

    def __init__(self) -> None:
        super().__init__()
        # Set afresh by `plan` each turn.
        self.worker_rank: dict[str, int] = {}
        self.target: Hex | None = None
        self.squad_near = 0

    def plan(self, arena: Mapping[str, Any]) -> list[dict[str, Any]]:
        self.worker_rank = {}
        workers = [a for a in arena.get("ants") or [] if int(a.get("type", -1)) == WORKER]
        for rank, ant in enumerate(workers):
            self.worker_rank[str(ant["id"])] = rank
        self.target = self.choose_target()
        self.squad_near = self.count_near_target(arena)
        return super().plan(arena)

    def choose_target(self) -> Hex | None:
        anthills = self.memory.enemy_anthills
        if not anthills:
            return None
        spot, stores = self.memory.spot, self.memory.stores
        return min(anthills, key=lambda h: (-stores.get(h, 0), distance(h, spot), h[1], h[0]))

    def count_near_target(self, arena: Mapping[str, Any]) -> int:
        if self.target is None:
            return 0
        high = STAGING[1]
        return sum(
            1
            for ant in living_ants(arena)
            if self.in_squad(ant) and distance(hex_of(ant), self.target) <= high
        )

    def in_squad(self, ant: Mapping[str, Any]) -> bool:
        kind = int(ant["type"])
        if kind == WORKER:
            return self.worker_rank.get(str(ant["id"]), 0) % 2 == 1
        return kind in (SOLDIER, SCOUT)

    def route(
        self, ant: Mapping[str, Any], kind: int, here: Hex, blocked: set[Hex], turn: TurnPlan
    ) -> list[Hex]:
        if self.target is None or not self.in_squad(ant):
            return super().route(ant, kind, here, blocked, turn)
        return self.raid_route(ant, kind, here, blocked, turn)

    def raid_route(
        self, ant: Mapping[str, Any], kind: int, here: Hex, blocked: set[Hex], turn: TurnPlan
    ) -> list[Hex]:
        assert self.target is not None
        target = self.target
        capacity = self.params[kind].capacity
        amount, food_type = carried(ant), carried_type(ant)
        full = amount > 0 and (food_type != NECTAR or amount >= capacity)
        if full or int(ant["health"]) <= RETREAT_HEALTH or capacity == 0:
            return self.home_route(here, blocked)
        if amount > 0 and self.memory.stores.get(target, 0) == 0 and distance(here, target) > 1:
            return self.home_route(here, blocked)  # some loot and nothing left to take: bank it
        if self.adjacent_to_enemy_anthill(here) and self.memory.stores.get(target, 1) > 0:
            return []  # parked: it raids in step 4c (DP-77)
        gap = distance(here, target)
        low, high = STAGING
        if gap > high:
            return search_toward(self.memory, here, target, blocked, max_nodes=150)
        if self.squad_near < 2 or self.memory.stores.get(target, 1) == 0:
            if gap < low:  # too close alone, or nothing to take: back off out of reach
                path = search(self.memory, here, lambda h: low <= distance(h, target) <= high, blocked)
                return path or []
            return []  # wait for a partner
        parking = {n for n in neighbours(*target) if n not in self.memory.enemy_anthills}
        path = search(self.memory, here, lambda h: h in parking, blocked, max_nodes=200)
        return path if path is not None else search_toward(self.memory, here, target, blocked, max_nodes=150)

    def adjacent_to_enemy_anthill(self, here: Hex) -> bool:
        return any(n in self.memory.enemy_anthills for n in neighbours(*here))
