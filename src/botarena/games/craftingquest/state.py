"""The mutable state of one Crafting Quest 2 game (spec CQ-4), plain data; rules.py builds it (CQ-27).

Cells are `(x, y)` tuples. Sparse layers are dicts keyed by cell: buried resources and their vectors
(from the scenario's deposits), visible resource piles, dropped object piles, camps and standing
towers. A map of id -> quantity never keeps a zero (CQ-4: a type whose quantity reaches 0 disappears).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from botarena.games.craftingquest.geometry import Cell, Terrain, UnitKind, player_unit_ids
from botarena.games.craftingquest.scenario import Blueprint, Camp

Items = dict[str, int]
Vector = tuple[int, ...]


def add_items(target: Items, items: Items) -> None:
    """Add `items` to `target` in place."""
    for key, amount in items.items():
        target[key] = target.get(key, 0) + amount


def take_items(target: Items, items: Items) -> None:
    """Remove `items` from `target` in place (the caller checked they are there); zeros disappear."""
    for key, amount in items.items():
        left = target[key] - amount
        if left:
            target[key] = left
        else:
            del target[key]


def has_items(carried: Items, items: Items) -> bool:
    return all(carried.get(key, 0) >= amount for key, amount in items.items())


@dataclass(slots=True)
class Unit:
    """A Devil, Fox or Crocodile (CQ-2) with its carried resources and objects (CQ-48)."""

    id: int
    player: int
    kind: UnitKind
    x: int
    y: int
    energy: int
    resources: Items = field(default_factory=dict)
    objects: Items = field(default_factory=dict)

    @property
    def cell(self) -> Cell:
        return (self.x, self.y)

    def carried(self) -> int:
        """The total quantity of resources and objects carried (CQ-37's move surcharge)."""
        return sum(self.resources.values()) + sum(self.objects.values())


@dataclass(slots=True)
class Tower:
    """CQ-46: a tower; `alive` turns False when its strength falls below 0 (CQ-38)."""

    id: int
    owner: int
    x: int
    y: int
    strength: int
    alive: bool = True

    @property
    def cell(self) -> Cell:
        return (self.x, self.y)


@dataclass(slots=True)
class Team:
    """What belongs to a player rather than a unit (CQ-48): credit, blueprints, towers built."""

    player: int
    credit: int
    blueprints: set[str] = field(default_factory=set)
    towers: list[int] = field(default_factory=list)


@dataclass(slots=True)
class GameState:
    """Everything that changes during play, plus the scenario's fixed layers for quick lookups."""

    width: int
    height: int
    rounds: int
    terrain: tuple[str, ...]
    camps: dict[Cell, Camp]
    catalogue: dict[str, Blueprint]
    units: dict[int, Unit]
    teams: dict[int, Team]
    buried: dict[Cell, Items]
    vectors: dict[Cell, dict[str, Vector]]
    resource_piles: dict[Cell, Items] = field(default_factory=dict)
    object_piles: dict[Cell, Items] = field(default_factory=dict)
    towers: list[Tower] = field(default_factory=list)
    tower_at: dict[Cell, Tower] = field(default_factory=dict)

    def inside(self, cell: Cell) -> bool:
        return 0 <= cell[0] < self.width and 0 <= cell[1] < self.height

    def terrain_at(self, cell: Cell) -> Terrain:
        return Terrain.from_char(self.terrain[cell[1]][cell[0]])

    def team_units(self, player: int) -> list[Unit]:
        """A player's three units in ascending id."""
        return [self.units[uid] for uid in player_unit_ids(player)]

    def has_structure(self, cell: Cell) -> bool:
        """A camp or a standing tower (CQ-4)."""
        return cell in self.camps or cell in self.tower_at
