"""The state of a DatsPulse round (spec §3.2 to §3.4, §3.6): terrain, piles, teams, units.

Hexes are numbered in canonical order by `HexMap` (DP-5), so "ascending hex number" is the canonical
hex order everywhere below.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from botarena.games.datspulse.config import DatsPulseConfig
from botarena.games.datspulse.hexgrid import Hex, HexMap


class UnitType(IntEnum):
    """DP-20 unit types (`type` on the wire)."""

    WORKER = 0
    SOLDIER = 1
    SCOUT = 2


class FoodType(IntEnum):
    """DP-30 food types; 0 is the empty cargo."""

    NONE = 0
    APPLE = 1
    BREAD = 2
    NECTAR = 3


class Terrain(IntEnum):
    """DP-10 hex types."""

    ANTHILL = 1
    EMPTY = 2
    DIRT = 3
    ACID = 4
    STONE = 5


UNIT_NAMES = ("Worker", "Soldier", "Scout")
FOOD_NAMES = ("", "Apple", "Bread", "Nectar")
UNIT_KEYS = ("worker", "soldier", "scout")


@dataclass(frozen=True, slots=True)
class UnitStats:
    """DP-20 per-type numbers, read from the config once."""

    health: int
    attack: int
    capacity: int
    view: int
    speed: int
    spawn_weight: int


def unit_stats(config: DatsPulseConfig) -> tuple[UnitStats, ...]:
    """The stats of worker, soldier and scout, in type order."""
    return tuple(
        UnitStats(
            health=getattr(config, f"{k}_health"),
            attack=getattr(config, f"{k}_attack"),
            capacity=getattr(config, f"{k}_capacity"),
            view=getattr(config, f"{k}_view"),
            speed=getattr(config, f"{k}_speed"),
            spawn_weight=getattr(config, f"{k}_spawn_weight"),
        )
        for k in UNIT_KEYS
    )


def terrain_costs(config: DatsPulseConfig) -> tuple[int, ...]:
    """MP cost per hex type (index = type; stone reports `stone_reported_cost`, DP-10)."""
    return (
        0,
        config.cost_anthill,
        config.cost_empty,
        config.cost_dirt,
        config.cost_acid,
        config.stone_reported_cost,
    )


def food_calories(config: DatsPulseConfig) -> tuple[int, ...]:
    """Calories per unit of each food type (DP-30), index = type."""
    return (0, config.apple_calories, config.bread_calories, config.nectar_calories)


@dataclass(slots=True, eq=False)
class Unit:
    """DP-21: one ant. `pos` is a hex number; `health` 0 marks a corpse (DP-24)."""

    id: str
    team: int
    type: int
    seq: int
    pos: int
    health: int
    cargo_type: int = 0
    cargo_amount: int = 0
    last_move: tuple[int, ...] = ()  # a tuple: the garbage collector soon stops tracking it
    last_attack: int = -1
    last_enemy: str | None = None

    @property
    def alive(self) -> bool:
        return self.health > 0

    def clear_cargo(self) -> None:
        self.cargo_type = 0
        self.cargo_amount = 0


@dataclass(slots=True, eq=False)
class Team:
    """One team: its anthill (DP-11), score S (DP-33), units in spawn order and this turn's orders."""

    index: int
    name: str
    home: tuple[int, int, int]  # spot, NE, NW (hex numbers)
    score: int = 0
    nectar: list[int] = field(default_factory=lambda: [0, 0, 0])
    units: list[Unit] = field(default_factory=list)
    units_lost: int = 0
    next_seq: int = 0
    orders: dict[str, list[Hex]] = field(default_factory=dict)

    @property
    def spot(self) -> int:
        return self.home[0]

    def living_count(self) -> int:
        return sum(1 for u in self.units if u.health > 0)


class State:
    """Everything a round holds, plus lookup tables derived from the anthills (DP-71, DP-74, DP-77)."""

    def __init__(
        self,
        config: DatsPulseConfig,
        grid: HexMap,
        terrain: bytearray,
        homes: list[tuple[int, int, int]],
        team_names: list[str],
        piles: dict[int, list[int]] | None = None,
    ) -> None:
        self.config = config
        self.grid = grid
        self.terrain = terrain
        self.piles: dict[int, list[int]] = dict(piles or {})  # hex -> [type, amount] (DP-31)
        self.teams = [
            Team(i, name, home) for i, (name, home) in enumerate(zip(team_names, homes, strict=True))
        ]
        self.turn = 0
        self.stats = unit_stats(config)
        self.costs = terrain_costs(config)
        self.calories = food_calories(config)
        self.occupancy: dict[int, list[Unit]] = {}  # hex -> living units on it
        self.by_id: dict[str, Unit] = {}
        self.anthill_owner: dict[int, tuple[int, int]] = {}  # hex -> (team, home slot)
        for team in self.teams:
            for slot, h in enumerate(team.home):
                self.anthill_owner[h] = (team.index, slot)
        self.threat = self._anthill_reach(config.spot_attack_radius)  # DP-71
        self.bonus = self._anthill_reach(config.spot_bonus_radius)  # DP-74
        self.raid_reach = self._anthill_reach(1, exclude_self=True)  # DP-77
        self.tile_json: tuple[dict[str, int], ...] | None = None  # §4 `map` entries, built on first use

    def _anthill_reach(self, radius: int, exclude_self: bool = False) -> dict[int, tuple[int, ...]]:
        """hex -> the teams (ascending) with an anthill hex within `radius` of it."""
        reach: dict[int, set[int]] = {}
        for h, (team, _) in self.anthill_owner.items():
            for cell in self.grid.disc(h, radius):
                if exclude_self and cell == h:
                    continue
                reach.setdefault(cell, set()).add(team)
        return {cell: tuple(sorted(teams)) for cell, teams in reach.items()}

    # -- units -----------------------------------------------------------------------------------

    def add_unit(self, team: Team, unit_type: int, unit_id: str) -> Unit:
        """A new unit on the team's spot with full HP and empty cargo (DP-50, DP-79)."""
        unit = Unit(
            id=unit_id,
            team=team.index,
            type=int(unit_type),
            seq=team.next_seq,
            pos=team.spot,
            health=self.stats[unit_type].health,
        )
        team.next_seq += 1
        team.units.append(unit)
        self.by_id[unit_id] = unit
        self.occupancy.setdefault(unit.pos, []).append(unit)
        return unit

    def place_unit(self, team: Team, unit: Unit) -> None:
        """Put an explicitly built unit in (tests and §9 boards)."""
        team.next_seq = max(team.next_seq, unit.seq + 1)
        team.units.append(unit)
        team.units.sort(key=lambda u: u.seq)
        self.by_id[unit.id] = unit
        if unit.alive:
            self.occupancy.setdefault(unit.pos, []).append(unit)

    def move_unit(self, unit: Unit, to: int) -> None:
        here = self.occupancy[unit.pos]
        here.remove(unit)
        if not here:
            del self.occupancy[unit.pos]
        unit.pos = to
        self.occupancy.setdefault(to, []).append(unit)

    def vacate(self, unit: Unit) -> None:
        """Take a dead unit out of the occupancy table; it stays listed as a corpse (DP-24)."""
        here = self.occupancy.get(unit.pos)
        if here is not None and unit in here:
            here.remove(unit)
            if not here:
                del self.occupancy[unit.pos]

    def remove_corpse(self, unit: Unit) -> None:
        self.teams[unit.team].units.remove(unit)
        del self.by_id[unit.id]

    def all_units(self) -> list[Unit]:
        """Every listed unit in canonical order: team index, then spawn sequence (DP-5)."""
        return [u for team in self.teams for u in team.units]

    # -- hexes -----------------------------------------------------------------------------------

    def is_food_eligible(self, h: int) -> bool:
        """DP-10: type 2, 3 or 4, no pile, no living unit."""
        return 2 <= self.terrain[h] <= 4 and h not in self.piles and h not in self.occupancy

    def apple_bread_piles(self) -> int:
        return sum(1 for p in self.piles.values() if p[0] != FoodType.NECTAR)

    def hex_of(self, h: int) -> Hex:
        return self.grid.hexes[h]
