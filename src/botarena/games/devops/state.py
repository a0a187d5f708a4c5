"""Devops Game state (spec 3.1): the wrapping board, units and factions, with the DV-3 derived values
kept current as units and tiles change hands."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from botarena.games.devops.vocabulary import UnitType

# DV-2: the neighbour order, dx outer, dy inner.
NEIGHBOUR_OFFSETS: tuple[tuple[int, int], ...] = (
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
)


@dataclass(slots=True)
class Unit:
    id: int
    owner: int
    type: UnitType
    health: int
    x: int
    y: int
    defense: bool = False
    enlightened: bool = False


@dataclass(slots=True)
class Faction:
    id: int
    name: str
    base: tuple[int, int]
    gold: int
    bombs: int
    score: int = 0
    kills: int = 0
    slot: list[Any] | None = None  # [UnitType, turnsLeft]
    defeated: bool = False
    defeat_turn: int | None = None
    bonuses: dict[str, int] = field(default_factory=dict)  # a BonusType value -> its last active turn
    queued: list[dict[str, Any]] = field(default_factory=list)  # accepted redemptions (DV-20)
    extra_gold_pending: bool = False
    territory: int = 0
    population: int = 0
    upkeep: int = 0
    timeouts: int = 0
    errors: int = 0
    ignored: int = 0


class Board:
    """A W x H torus. Tiles are indexed `y * W + x`; owner 0 is neutral."""

    __slots__ = ("base", "bomb", "fortified", "height", "owner", "resource", "unit_at", "width")

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        size = width * height
        self.owner = [0] * size
        self.base = bytearray(size)
        self.resource = bytearray(size)
        self.fortified = bytearray(size)
        self.bomb: dict[int, int] = {}  # tile -> faction that deployed it
        self.unit_at: dict[int, int] = {}  # tile -> unit id

    def index(self, x: int, y: int) -> int:
        return (y % self.height) * self.width + (x % self.width)

    def distance(self, ax: int, ay: int, bx: int, by: int) -> int:
        """DV-2: Chebyshev distance on the torus."""
        dx = abs(ax - bx) % self.width
        dy = abs(ay - by) % self.height
        return max(min(dx, self.width - dx), min(dy, self.height - dy))

    def neighbours(self, x: int, y: int) -> list[tuple[int, int]]:
        """DV-2: the 8 neighbours of (x, y), in the fixed order."""
        w, h = self.width, self.height
        return [((x + dx) % w, (y + dy) % h) for dx, dy in NEIGHBOUR_OFFSETS]


@dataclass(slots=True)
class GameState:
    board: Board
    factions: list[Faction]  # index = id - 1
    units: dict[int, Unit] = field(default_factory=dict)
    next_unit_id: int = 1
    turn: int = 0  # the last turn that started
    finished: bool = False
    aborted: bool = False
    dirty: set[int] = field(default_factory=set)  # tiles changed this turn (for the viewer's records)

    def faction(self, faction_id: int) -> Faction:
        return self.factions[faction_id - 1]

    # -- tiles ---------------------------------------------------------------------------------
    def set_owner(self, tile: int, owner: int) -> None:
        """Change a tile's owner, keeping territory sizes current; DV-47 unfortifies neutral tiles."""
        board = self.board
        old = board.owner[tile]
        if old == owner:
            return
        self.dirty.add(tile)
        if old:
            self.factions[old - 1].territory -= 1
        if owner:
            self.factions[owner - 1].territory += 1
        else:
            board.fortified[tile] = 0
        board.owner[tile] = owner

    # -- units ---------------------------------------------------------------------------------
    def add_unit(self, owner: int, unit_type: UnitType, x: int, y: int, health: int, upkeep: int) -> Unit:
        unit = Unit(self.next_unit_id, owner, unit_type, health, x, y)
        self.next_unit_id += 1
        self.units[unit.id] = unit
        self.board.unit_at[self.board.index(x, y)] = unit.id
        faction = self.factions[owner - 1]
        faction.population += 1
        faction.upkeep += upkeep
        return unit

    def remove_unit(self, unit: Unit, upkeep: int) -> None:
        del self.units[unit.id]
        tile = self.board.index(unit.x, unit.y)
        if self.board.unit_at.get(tile) == unit.id:
            del self.board.unit_at[tile]
        faction = self.factions[unit.owner - 1]
        faction.population -= 1
        faction.upkeep -= upkeep

    def move_unit(self, unit: Unit, x: int, y: int) -> None:
        board = self.board
        del board.unit_at[board.index(unit.x, unit.y)]
        unit.x, unit.y = x, y
        board.unit_at[board.index(x, y)] = unit.id

    def change_owner(self, unit: Unit, owner: int, upkeep: int) -> None:
        old = self.factions[unit.owner - 1]
        new = self.factions[owner - 1]
        old.population -= 1
        old.upkeep -= upkeep
        new.population += 1
        new.upkeep += upkeep
        unit.owner = owner
