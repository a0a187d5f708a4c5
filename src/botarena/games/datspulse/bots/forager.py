"""`forager` (spec §10.2): a decent economy bot.

- Workers: empty ones take the cheapest path (MP costs, stone impassable, acid +10) to the nearest
  remembered food pile that no other worker has claimed this turn; loaded ones, and empty ones when no
  food is known, go home (loaded to a non-spot anthill hex to deliver, idle ones next to the anthill).
- The spot is kept clear: no ant ends its path there, so a spawn is never blocked by one of ours (DP-79).
- Soldiers guard the ring at distance 2-3 of the spot, where the home bonus applies (DP-74), and close in
  on visible enemies within 3 hexes.
- Scouts explore along a hexagonal spiral around the spot and come home when they carry food.

Ants are planned in spawn order, which is the order the engine moves them in (DP-75), so an ant avoids
the final hexes of the older ants of its type and the current hexes of the younger ones: it never
blocks itself on its own team (DP-75 rule 4).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from botarena.games.datspulse.bots.common import (
    SCOUT,
    SOLDIER,
    WORKER,
    SeededBot,
    carried,
    descend,
    distance_field,
    hex_of,
    living_ants,
    search,
    search_toward,
    trim,
    wire,
)
from botarena.games.datspulse.hexgrid import Hex, distance, from_axial, neighbours, to_axial

#: Axial unit vectors to the six corners of a hexagonal ring, in turn order.
_CORNERS: tuple[Hex, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
GUARD_RING = (2, 3)
SOLDIER_REACH = 3
SCOUT_FIRST_RING = 6
SCOUT_RING_STEP = 4
SCOUT_PATIENCE = 3
HOME_FIELD_TURNS = 10
MAX_MAP_RADIUS = 500  # §2 `map_radius` range


@dataclass
class ScoutRoute:
    """One scout's place on its spiral: the ring radius, the corner it heads to, and progress."""

    radius: int
    corner: int
    first_corner: int
    best_distance: int = 1 << 30
    idle_turns: int = 0


class TurnPlan:
    """The hexes already spoken for in this turn's plan (see the module docstring)."""

    def __init__(self, ants: list[dict[str, Any]], enemies: set[Hex]) -> None:
        self.waiting: dict[int, set[Hex]] = {SOLDIER: set(), WORKER: set(), SCOUT: set()}
        for ant in ants:
            self.waiting[int(ant["type"])].add(hex_of(ant))
        self.final: dict[int, set[Hex]] = {SOLDIER: set(), WORKER: set(), SCOUT: set()}
        self.enemies = enemies
        self.claims: dict[Hex, int] = {}

    def blocked_for(self, kind: int, here: Hex) -> set[Hex]:
        self.waiting[kind].discard(here)
        return self.waiting[kind] | self.final[kind] | self.enemies

    def settle(self, kind: int, end: Hex) -> None:
        self.final[kind].add(end)


class Forager(SeededBot):
    """§10.2."""

    def __init__(self) -> None:
        super().__init__()
        self.routes: dict[str, ScoutRoute] = {}
        self.home_field: dict[Hex, int] | None = None
        self.home_key: tuple[Any, ...] = ()
        self.home_turn = -HOME_FIELD_TURNS
        self.turn_no = 0
        self.food_field: tuple[dict[Hex, int], dict[Hex, Hex]] | None = None

    def plan(self, arena: Mapping[str, Any]) -> list[dict[str, Any]]:
        self.food_field = None
        self.turn_no = int(arena.get("turnNo", 0))
        ants = living_ants(arena)
        turn = TurnPlan(ants, set(self.memory.enemies))
        moves: list[dict[str, Any]] = []
        for ant in ants:
            kind, here = int(ant["type"]), hex_of(ant)
            blocked = turn.blocked_for(kind, here)
            path = trim(self.memory, self.route(ant, kind, here, blocked, turn), self.params[kind].speed)
            path = self.off_the_spot(here, path, blocked)
            turn.settle(kind, path[-1] if path else here)
            if path:
                moves.append({"ant": ant["id"], "path": wire(path)})
        return moves

    # -- choosing a route per ant ---------------------------------------------------------------
    def route(
        self, ant: Mapping[str, Any], kind: int, here: Hex, blocked: set[Hex], turn: TurnPlan
    ) -> list[Hex]:
        """The path `ant` (of type `kind`, standing on `here`) is given this turn, before `trim`."""
        if kind == WORKER:
            return self.worker_route(ant, here, blocked, turn)
        if kind == SOLDIER:
            return self.soldier_route(here, blocked)
        return self.scout_route(ant, here, blocked)

    def worker_route(self, ant: Mapping[str, Any], here: Hex, blocked: set[Hex], turn: TurnPlan) -> list[Hex]:
        if carried(ant) > 0:
            return self.home_route(here, blocked)
        food = self.food_route(here, blocked, turn)
        if food is not None:
            return food
        return self.idle_route(here, blocked)

    def food_route(self, here: Hex, blocked: set[Hex], turn: TurnPlan) -> list[Hex] | None:
        """To the nearest remembered pile not claimed by other workers this turn (claims reset each turn;
        a pile takes as many workers as it fills).

        One field from every pile serves most workers: a worker whose nearest pile is still free walks down
        it; only when that pile is taken does it search nearby for a free one itself."""
        piles, claims = self.memory.piles, turn.claims
        if not piles:
            return None
        if self.food_field is None:
            self.food_field = distance_field(self.memory, sorted(piles, key=lambda h: (h[1], h[0])))
        field, nearest = self.food_field
        capacity = max(1, self.params[WORKER].capacity)

        def free(h: Hex) -> bool:
            pile = piles.get(h)
            return pile is not None and claims.get(h, 0) * capacity < pile[1]

        goal = nearest.get(here)
        path: list[Hex] | None = None
        if goal is not None and free(goal):
            path = descend(field, here, blocked, self.params[WORKER].speed)
            if not path and here != goal:
                path = None
        if path is None:
            path = search(self.memory, here, free, blocked, max_nodes=150)
            goal = (path[-1] if path else here) if path is not None else None
        if goal is not None:
            claims[goal] = claims.get(goal, 0) + 1
        return path

    def home_route(self, here: Hex, blocked: set[Hex]) -> list[Hex]:
        """Down a distance field to the non-spot anthill hexes (the spot stays free for spawns); when both
        are taken it waits next to them. Terrain never changes, so the field is kept until a carrier
        stands where it does not reach, or for `HOME_FIELD_TURNS` turns (new tiles may open shortcuts)."""
        memory = self.memory
        stale = self.turn_no - self.home_turn >= HOME_FIELD_TURNS or self.home_key != tuple(memory.home)
        if (
            self.home_field is None
            or stale
            or (here not in self.home_field and self.home_turn != self.turn_no)
        ):
            self.home_field = distance_field(memory, memory.home[1:])[0]
            self.home_turn, self.home_key = self.turn_no, tuple(memory.home)
        longest = max(params.speed for params in self.params.values())  # trim() cuts it to the ant's speed
        return descend(self.home_field, here, blocked, longest)

    def idle_route(self, here: Hex, blocked: set[Hex]) -> list[Hex]:
        """No food known: wait next to the anthill, off its hexes."""
        spot, home = self.memory.spot, set(self.memory.home)
        path = search(
            self.memory, here, lambda h: distance(h, spot) <= 2 and h not in home, blocked, max_nodes=300
        )
        return path or []

    def soldier_route(self, here: Hex, blocked: set[Hex]) -> list[Hex]:
        """§10.2 soldiers: fight visible enemies within 3 hexes, otherwise hold the guard ring."""
        enemies = [e for e in self.memory.enemies if distance(e, here) <= SOLDIER_REACH]
        if enemies:
            if any(distance(e, here) == 1 for e in enemies):
                return []  # adjacent: it attacks in step 3 (DP-73)
            targets = {n for e in enemies for n in neighbours(*e)}
            path = search(self.memory, here, lambda h: h in targets, blocked, max_nodes=200)
            if path is not None:
                return path
        return self.guard_route(here, blocked)

    def guard_route(self, here: Hex, blocked: set[Hex]) -> list[Hex]:
        spot, home = self.memory.spot, set(self.memory.home)
        low, high = GUARD_RING
        path = search(
            self.memory,
            here,
            lambda h: low <= distance(h, spot) <= high and h not in home,
            blocked,
            max_nodes=400,
        )
        return path or []

    def scout_route(self, ant: Mapping[str, Any], here: Hex, blocked: set[Hex]) -> list[Hex]:
        if carried(ant) > 0:
            return self.home_route(here, blocked)
        return self.explore_route(str(ant["id"]), here, blocked)

    def explore_route(self, ant_id: str, here: Hex, blocked: set[Hex]) -> list[Hex]:
        """§10.2 scouts: a hexagonal spiral of growing rings around the spot, corner after corner."""
        route = self.routes.get(ant_id)
        if route is None:
            corner = self.rng.randrange(6)
            route = self.routes[ant_id] = ScoutRoute(SCOUT_FIRST_RING, corner, corner)
        target = self.waypoint(route)
        for _ in range(12):  # skip waypoints that are reached, off the map, or unreachable for long
            gap = distance(here, target)
            if gap < route.best_distance:
                route.best_distance, route.idle_turns = gap, 0
            if (
                gap > 2
                and self.on_map(target)
                and not self.known_off_map(here, target)
                and (route.idle_turns < SCOUT_PATIENCE)
            ):
                break
            self.next_waypoint(route)
            target = self.waypoint(route)
        route.idle_turns += 1
        return search_toward(self.memory, here, target, blocked, max_nodes=120)

    def waypoint(self, route: ScoutRoute) -> Hex:
        x, z = to_axial(*self.memory.spot)
        dx, dz = _CORNERS[route.corner]
        return from_axial(x + dx * route.radius, z + dz * route.radius)

    def next_waypoint(self, route: ScoutRoute) -> None:
        route.corner = (route.corner + 1) % 6
        route.best_distance, route.idle_turns = 1 << 30, 0
        if route.corner == route.first_corner:
            route.radius += SCOUT_RING_STEP
            # past the map (twice R: the spot may be anywhere; over HTTP R is unknown, and the spiral's
            # corners then end at the rim, where they are skipped as unreachable): start again
            if route.radius > 2 * (self.radius if self.radius is not None else MAX_MAP_RADIUS):
                route.radius = SCOUT_FIRST_RING

    def known_off_map(self, here: Hex, target: Hex) -> bool:
        """The target is within a scout's view but was never listed in `map`: it does not exist (DP-4)."""
        return distance(here, target) <= self.params[SCOUT].view and target not in self.memory.tiles

    # -- the spot rule --------------------------------------------------------------------------
    def off_the_spot(self, here: Hex, path: list[Hex], blocked: set[Hex]) -> list[Hex]:
        """§10.2 "Spot": no ant ends its path on the spot. One passing through stops short of it; one
        standing on it steps to a free neighbour."""
        spot = self.memory.spot
        if path and path[-1] == spot:
            return path[:-1]
        if path or here != spot:
            return path
        for step in neighbours(*spot):
            if step not in blocked and self.memory.passable(step):
                return [step]
        return path


__all__ = ["Forager", "ScoutRoute", "TurnPlan"]
