"""What the DatsPulse starter bots share (spec §10): unit parameters, map memory, path search.

The bots read only what a team's client reads: the `start` payload's config when there is one (lockstep,
§7.6) and the arena of each turn (§4). Over HTTP there is no start payload, so every parameter falls back
to the spec's default (§2) and the seed to the client's option.
"""

from __future__ import annotations

import heapq
import math
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from botarena.games.datspulse.hexgrid import Hex, distance, neighbours


@lru_cache(maxsize=1 << 17)
def around(where: Hex) -> tuple[Hex, ...]:
    """The six neighbours of a hex in canonical order (DP-2), cached: path searches ask for them a lot."""
    return tuple(neighbours(*where))


WORKER, SOLDIER, SCOUT = 0, 1, 2
UNIT_TYPES = (WORKER, SOLDIER, SCOUT)
_TYPE_NAMES = {WORKER: "worker", SOLDIER: "soldier", SCOUT: "scout"}
ANTHILL, EMPTY, DIRT, ACID, STONE = 1, 2, 3, 4, 5
APPLE, BREAD, NECTAR = 1, 2, 3

#: The forager's A* penalty for entering acid (§10: "acid costed at +10").
ACID_PENALTY = 10


@dataclass(frozen=True)
class UnitParams:
    """Speed (MP and path length), capacity and view radius of one unit type (DP-20)."""

    speed: int
    capacity: int
    view: int


_DEFAULTS = {
    WORKER: UnitParams(5, 8, 1),
    SOLDIER: UnitParams(4, 2, 1),
    SCOUT: UnitParams(7, 2, 4),
}


def _int_key(config: Mapping[str, Any], key: str, default: int) -> int:
    value = config.get(key, default)
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else default


def unit_params(config: Mapping[str, Any]) -> dict[int, UnitParams]:
    """Per unit type, from a `start` payload's config (spec defaults for missing keys, e.g. over HTTP)."""
    params = {}
    for kind, default in _DEFAULTS.items():
        name = _TYPE_NAMES[kind]
        params[kind] = UnitParams(
            speed=max(1, _int_key(config, f"{name}_speed", default.speed)),
            capacity=_int_key(config, f"{name}_capacity", default.capacity),
            view=_int_key(config, f"{name}_view", default.view),
        )
    return params


def map_radius_hint(config: Mapping[str, Any], teams: int) -> int | None:
    """The map radius R by DP-4, when the config and the team count are known (None over HTTP)."""
    if not config or teams < 1:
        return None
    fixed = _int_key(config, "map_radius", 0)
    if fixed > 0:
        return fixed
    per_team = _int_key(config, "map_hexes_per_team", 2400)
    return max(_int_key(config, "map_min_radius", 12), math.ceil(math.sqrt(per_team * teams / 3)))


def hex_of(item: Mapping[str, Any]) -> Hex:
    return int(item["q"]), int(item["r"])


def carried(ant: Mapping[str, Any]) -> int:
    """How much food an ant of the arena carries (0 when none, §4 `food`)."""
    food = ant.get("food")
    return int(food.get("amount", 0)) if isinstance(food, Mapping) else 0


def carried_type(ant: Mapping[str, Any]) -> int:
    """The type of the food an ant of the arena carries (0 when none)."""
    food = ant.get("food")
    return int(food.get("type", 0)) if isinstance(food, Mapping) else 0


def wire(path: Iterable[Hex]) -> list[dict[str, int]]:
    """A path as the §5 body wants it."""
    return [{"q": q, "r": r} for q, r in path]


@dataclass
class Memory:
    """Everything a team has seen so far (§10 forager "Memory"): the server remembers nothing (DP-90).

    `tiles` maps a seen hex to (type, cost); `piles` are food piles on the ground (apple, bread, dropped
    nectar), forgotten once their hex is visible again without them; `stores` are the nectar counts last
    seen on enemy anthill hexes; `enemy_anthills` are the type-1 tiles that are not our `home`.
    """

    tiles: dict[Hex, tuple[int, int]] = field(default_factory=dict)
    piles: dict[Hex, tuple[int, int]] = field(default_factory=dict)
    stores: dict[Hex, int] = field(default_factory=dict)
    enemy_anthills: set[Hex] = field(default_factory=set)
    home: list[Hex] = field(default_factory=list)
    spot: Hex = (0, 0)
    visible: set[Hex] = field(default_factory=set)
    enemies: dict[Hex, dict[str, Any]] = field(default_factory=dict)

    def update(self, arena: Mapping[str, Any]) -> None:
        """Take in one turn's arena (§4)."""
        self.home = [hex_of(h) for h in arena.get("home") or []]
        spot = arena.get("spot")
        if isinstance(spot, Mapping):
            self.spot = hex_of(spot)
        home = set(self.home)
        visible: set[Hex] = set()
        for tile in arena.get("map") or []:
            where = hex_of(tile)
            kind = int(tile["type"])
            visible.add(where)
            self.tiles[where] = (kind, int(tile["cost"]))
            if kind == ANTHILL and where not in home:
                self.enemy_anthills.add(where)
        self.visible = visible
        for where in visible:  # seen again: what is not listed this turn is gone
            self.piles.pop(where, None)
            if where in self.enemy_anthills:
                self.stores[where] = 0
        for pile in arena.get("food") or []:
            where = hex_of(pile)
            if where in home:
                continue
            if where in self.enemy_anthills:
                self.stores[where] = int(pile["amount"])
            else:
                self.piles[where] = (int(pile["type"]), int(pile["amount"]))
        self.enemies = {hex_of(e): e for e in arena.get("enemies") or []}

    def passable(self, where: Hex) -> bool:
        """Known, not stone and not an enemy anthill (DP-75 rules 1 and 2)."""
        tile = self.tiles.get(where)
        return tile is not None and tile[0] != STONE and where not in self.enemy_anthills

    def cost(self, where: Hex) -> int:
        """The MP cost of entering a known hex (the `cost` field)."""
        return self.tiles[where][1]


Goal = Callable[[Hex], bool]


def _settle(
    memory: Memory, start: Hex, blocked: set[Hex], max_nodes: int, acid_penalty: int
) -> Iterator[tuple[Hex, dict[Hex, Hex]]]:
    """Dijkstra over known tiles from `start`: yields each settled hex (cheapest first, `start` first)
    with the parent links so far. MP costs, acid costed +penalty; `blocked` hexes are never entered."""
    best: dict[Hex, int] = {start: 0}
    parent: dict[Hex, Hex] = {}
    heap: list[tuple[int, int, Hex]] = [(0, 0, start)]
    tick = 0
    settled = 0
    tiles = memory.tiles
    enemy_anthills = memory.enemy_anthills
    while heap and settled < max_nodes:
        cost, _, here = heapq.heappop(heap)
        if cost > best[here]:
            continue
        settled += 1
        yield here, parent
        for nxt in around(here):
            tile = tiles.get(nxt)
            if tile is None or tile[0] == STONE or nxt in blocked or nxt in enemy_anthills:
                continue
            total = cost + tile[1] + (acid_penalty if tile[0] == ACID else 0)
            if total < best.get(nxt, total + 1):
                best[nxt] = total
                parent[nxt] = here
                tick += 1
                heapq.heappush(heap, (total, tick, nxt))


def search(
    memory: Memory,
    start: Hex,
    is_goal: Goal,
    blocked: set[Hex],
    *,
    max_nodes: int = 600,
    acid_penalty: int = ACID_PENALTY,
) -> list[Hex] | None:
    """The cheapest path over known tiles from `start` to a hex that satisfies `is_goal` (§10 forager:
    MP costs, stone impassable, acid +10); the path excludes `start` and is [] when `start` is a goal.
    None when no goal is found within `max_nodes` settled hexes."""
    for here, parent in _settle(memory, start, blocked, max_nodes, acid_penalty):
        if is_goal(here):
            return _walk_back(parent, start, here)
    return None


def search_toward(
    memory: Memory, start: Hex, target: Hex, blocked: set[Hex], *, max_nodes: int = 250
) -> list[Hex]:
    """A path to the reachable known hex nearest to `target` (ties: the cheaper one), for exploring and
    approaching. A* with the hex distance as heuristic (every step costs at least 1 MP, so it never
    overestimates): in open terrain it settles little more than the hexes along the way."""
    tiles, enemy_anthills = memory.tiles, memory.enemy_anthills
    best_cost: dict[Hex, int] = {start: 0}
    parent: dict[Hex, Hex] = {}
    closest, closest_key = start, (distance(start, target), 0)
    heap: list[tuple[int, int, Hex]] = [(closest_key[0], 0, start)]
    tick = 0
    closed: set[Hex] = set()
    while heap and len(closed) < max_nodes:
        _, _, here = heapq.heappop(heap)
        if here in closed:
            continue
        closed.add(here)
        cost = best_cost[here]
        gap = distance(here, target)
        if (gap, cost) < closest_key:
            closest, closest_key = here, (gap, cost)
            if gap == 0:
                break
        for nxt in around(here):
            tile = tiles.get(nxt)
            if tile is None or tile[0] == STONE or nxt in blocked or nxt in enemy_anthills:
                continue
            total = cost + tile[1] + (ACID_PENALTY if tile[0] == ACID else 0)
            if total < best_cost.get(nxt, total + 1):
                best_cost[nxt] = total
                parent[nxt] = here
                tick += 1
                heapq.heappush(heap, (total + distance(nxt, target), tick, nxt))
    return _walk_back(parent, start, closest)


def distance_field(
    memory: Memory, targets: Iterable[Hex], *, max_nodes: int = 2000
) -> tuple[dict[Hex, int], dict[Hex, Hex]]:
    """For each known hex, the cost of the cheapest walk to the nearest of `targets`, and which target
    that is (a reverse multi-source Dijkstra: stepping onto a hex costs its MP, acid +penalty), for the
    `max_nodes` cheapest hexes."""
    tiles, enemy_anthills = memory.tiles, memory.enemy_anthills
    field: dict[Hex, int] = {}
    nearest: dict[Hex, Hex] = {}
    best: dict[Hex, int] = {}
    heap: list[tuple[int, int, Hex, Hex]] = []
    for tick, target in enumerate(targets):
        best[target] = 0
        heap.append((0, tick, target, target))
    heapq.heapify(heap)
    tick = len(heap)
    pop, push = heapq.heappop, heapq.heappush
    while heap and len(field) < max_nodes:
        cost, _, here, source = pop(heap)
        if here in field:
            continue
        field[here] = cost
        nearest[here] = source
        tile = tiles.get(here)
        if tile is None:
            continue
        total = cost + tile[1] + (ACID_PENALTY if tile[0] == ACID else 0)
        for before in around(here):
            if before in field or total >= best.get(before, total + 1):
                continue
            other = tiles.get(before)
            if other is None or other[0] == STONE or before in enemy_anthills:
                continue
            best[before] = total
            tick += 1
            push(heap, (total, tick, before, source))
    return field, nearest


def descend(field: Mapping[Hex, int], here: Hex, blocked: set[Hex], steps: int) -> list[Hex]:
    """Up to `steps` hexes down `field` from `here`, each to the unblocked neighbour with the lowest
    value (ties in direction order), stopping where no neighbour is lower."""
    path: list[Hex] = []
    current = field.get(here)
    for _ in range(steps):
        options = [(field[n], n) for n in around(here) if n in field and n not in blocked]
        if not options:
            break
        value, best = min(options, key=lambda item: item[0])
        if current is not None and value >= current:
            break
        path.append(best)
        here, current = best, value
    return path


def _walk_back(parent: Mapping[Hex, Hex], start: Hex, end: Hex) -> list[Hex]:
    if end == start:
        return []
    path = [end]
    while path[-1] in parent and parent[path[-1]] != start:
        path.append(parent[path[-1]])
    path.reverse()
    return path


def trim(memory: Memory, path: list[Hex], speed: int) -> list[Hex]:
    """The part of `path` the ant can walk this turn: at most `speed` hexes and `speed` MP (DP-75)."""
    mp = speed
    out: list[Hex] = []
    for where in path[:speed]:
        step = memory.cost(where)
        if step > mp:
            break
        mp -= step
        out.append(where)
    return out


class SeededBot(ABC):
    """The shape of an in-process bot: `setup`, `act`, `end` (§7.5), its randomness from `bot_seed`.

    Subclasses implement `plan(arena) -> list of {ant, path}`. `act` takes an arena (with or without
    `errors`) and answers the §5 moves body.
    """

    def __init__(self) -> None:
        self.rng = random.Random(0)
        self.params = unit_params({})
        self.radius: int | None = None
        self.memory = Memory()

    def setup(self, payload: Any) -> dict[str, Any]:
        start = payload if isinstance(payload, Mapping) else {}
        seed = start.get("bot_seed", 0)
        self.rng = random.Random(seed if isinstance(seed, int) else 0)
        config = start.get("config")
        config = config if isinstance(config, Mapping) else {}
        self.params = unit_params(config)
        teams = start.get("teams")
        self.radius = map_radius_hint(config, teams if isinstance(teams, int) else 0)
        return {}

    def act(self, arena: Any) -> dict[str, Any]:
        if not isinstance(arena, Mapping) or not arena.get("home"):
            return {"moves": []}  # the lobby arena, or an error body: nothing to order
        self.memory.update(arena)
        return {"moves": self.plan(arena)}

    def end(self, payload: Any) -> dict[str, Any]:
        return {}

    @abstractmethod
    def plan(self, arena: Mapping[str, Any]) -> list[dict[str, Any]]:
        """This turn's move commands (§5 entries) for the arena just remembered."""

    def on_map(self, where: Hex) -> bool:
        """False only when `where` is known not to exist (beyond DP-4's radius from the config)."""
        return self.radius is None or distance(where, (0, 0)) <= self.radius


def living_ants(arena: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The team's living ants in spawn order (corpses have health 0 and take no orders, DP-24)."""
    return [ant for ant in arena.get("ants") or [] if int(ant.get("health", 0)) > 0]
