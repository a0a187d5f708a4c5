"""Crafting Quest 2 geometry, terrain and identifiers (spec CQ-1 to CQ-3).

Cells are `(x, y)` tuples: column x from the left, row y from the top. `Grid` holds a map's size and
answers the CQ-1 questions (index, mirror, canonical/upper, neighbours); `cheb` is the one distance of
the game. `Terrain` carries each terrain's JSON name, fixture code, character and who may enter it;
`UnitKind` and the id helpers implement CQ-2.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum

Cell = tuple[int, int]

# CQ-1: the 8 neighbours, and the orthogonal order CQ-7's grow() pushes them in.
NEIGHBOUR_OFFSETS: tuple[Cell, ...] = (
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
)


def cheb(a: Cell, b: Cell) -> int:
    """The Chebyshev distance max(|ax - bx|, |ay - by|), the game's only distance."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


@dataclass(frozen=True, slots=True)
class Grid:
    """A W x H map's coordinates (CQ-1)."""

    width: int
    height: int

    @property
    def area(self) -> int:
        return self.width * self.height

    def inside(self, cell: Cell) -> bool:
        x, y = cell
        return 0 <= x < self.width and 0 <= y < self.height

    def idx(self, cell: Cell) -> int:
        """`idx(x, y) = y*W + x`."""
        return cell[1] * self.width + cell[0]

    def cell(self, index: int) -> Cell:
        """The inverse of `idx`."""
        return (index % self.width, index // self.width)

    def mirror(self, cell: Cell) -> Cell:
        """`m(x, y) = (W-1-x, H-1-y)`, the rotation by 180 degrees."""
        return (self.width - 1 - cell[0], self.height - 1 - cell[1])

    def mirror_idx(self, index: int) -> int:
        """`idx(m(c))` from `idx(c)`: the rotation reverses the row-major order."""
        return self.area - 1 - index

    def is_canonical(self, cell: Cell) -> bool:
        """`idx(c) <= idx(m(c))`."""
        index = self.idx(cell)
        return index <= self.mirror_idx(index)

    def is_upper(self, cell: Cell) -> bool:
        """`idx(c) < idx(m(c))`: canonical and not its own mirror."""
        index = self.idx(cell)
        return index < self.mirror_idx(index)

    def neighbours(self, cell: Cell) -> list[Cell]:
        """The cells at distance 1 inside the map, in row-major order."""
        x, y = cell
        out = []
        for dx, dy in NEIGHBOUR_OFFSETS:
            nx, ny = x + dx, y + dy
            if 0 <= nx < self.width and 0 <= ny < self.height:
                out.append((nx, ny))
        return out

    def cells(self) -> Iterator[Cell]:
        """Every cell in row-major order."""
        for y in range(self.height):
            for x in range(self.width):
                yield (x, y)


class UnitKind(Enum):
    """CQ-2: the three kinds of unit; the value is the JSON name."""

    DEVIL = "devil"
    FOX = "fox"
    CROCODILE = "crocodile"

    @property
    def index(self) -> int:
        """i in the unit id `3*player + i`."""
        return _KIND_INDEX[self]


_KIND_INDEX = {UnitKind.DEVIL: 0, UnitKind.FOX: 1, UnitKind.CROCODILE: 2}
UNIT_KINDS: tuple[UnitKind, ...] = (UnitKind.DEVIL, UnitKind.FOX, UnitKind.CROCODILE)
_EVERYONE = frozenset(UNIT_KINDS)


class Terrain(Enum):
    """CQ-3: the value is the JSON name; see the properties for code, char, penalty and entry."""

    GRASS = "grass"
    DIRT = "dirt"
    SAND = "sand"
    SNOW = "snow"
    ROCK = "rock"
    SWAMP = "swamp"
    WATER = "water"
    DEEP_WATER = "deep_water"

    @property
    def code(self) -> int:
        """The fixture code (the `.cqm` byte)."""
        return _TERRAIN_CODE[self]

    @property
    def char(self) -> str:
        """The character in fixtures, scenario terrain strings and views."""
        return _TERRAIN_CHAR[self]

    @property
    def default_penalty_pct(self) -> int | None:
        """The §2.1 default move penalty; None for rock, which nobody may enter."""
        return _TERRAIN_PENALTY[self]

    @property
    def enterable_by(self) -> frozenset[UnitKind]:
        """The unit kinds that may enter this terrain."""
        return _TERRAIN_ENTRY[self]

    def can_enter(self, kind: UnitKind) -> bool:
        return kind in _TERRAIN_ENTRY[self]

    @classmethod
    def from_code(cls, code: int) -> Terrain:
        """Raise ValueError for an unknown code."""
        try:
            return TERRAINS_BY_CODE[code]
        except (IndexError, TypeError):
            raise ValueError(f"unknown terrain code {code!r}") from None

    @classmethod
    def from_char(cls, char: str) -> Terrain:
        """Raise ValueError for an unknown character."""
        try:
            return _TERRAIN_BY_CHAR[char]
        except KeyError:
            raise ValueError(f"unknown terrain character {char!r}") from None


# CQ-3's order: the fixture maps' terrain codes and the order `rules.terrain` lists them in
TERRAINS_BY_CODE: tuple[Terrain, ...] = (
    Terrain.GRASS,
    Terrain.DIRT,
    Terrain.SAND,
    Terrain.SNOW,
    Terrain.ROCK,
    Terrain.SWAMP,
    Terrain.WATER,
    Terrain.DEEP_WATER,
)
_TERRAIN_CODE = {t: i for i, t in enumerate(TERRAINS_BY_CODE)}
_TERRAIN_CHAR = {
    Terrain.GRASS: ".",
    Terrain.DIRT: ":",
    Terrain.SAND: "s",
    Terrain.SNOW: "*",
    Terrain.ROCK: "#",
    Terrain.SWAMP: "~",
    Terrain.WATER: "w",
    Terrain.DEEP_WATER: "W",
}
_TERRAIN_BY_CHAR = {c: t for t, c in _TERRAIN_CHAR.items()}
TERRAIN_CHARS = "".join(_TERRAIN_CHAR[t] for t in TERRAINS_BY_CODE)
"""The 8 terrain characters in code order: `.:s*#~wW`."""
_TERRAIN_PENALTY: dict[Terrain, int | None] = {
    Terrain.GRASS: 0,
    Terrain.DIRT: 20,
    Terrain.SAND: 10,
    Terrain.SNOW: 25,
    Terrain.ROCK: None,
    Terrain.SWAMP: 25,
    Terrain.WATER: 0,
    Terrain.DEEP_WATER: 10,
}
_TERRAIN_ENTRY: dict[Terrain, frozenset[UnitKind]] = {
    Terrain.GRASS: _EVERYONE,
    Terrain.DIRT: frozenset({UnitKind.DEVIL}),
    Terrain.SAND: _EVERYONE,
    Terrain.SNOW: frozenset({UnitKind.FOX}),
    Terrain.ROCK: frozenset(),
    Terrain.SWAMP: _EVERYONE,
    Terrain.WATER: frozenset({UnitKind.CROCODILE}),
    Terrain.DEEP_WATER: frozenset({UnitKind.CROCODILE}),
}
OPEN_TERRAINS: frozenset[Terrain] = frozenset(t for t in Terrain if t.enterable_by == _EVERYONE)
"""Grass, Sand and Swamp: the terrains every kind may enter (CQ-12's C_all, CQ-15's camps)."""

# --- CQ-2 identifiers -----------------------------------------------------------------------------

PLAYERS: tuple[int, int] = (1, 2)


def unit_id(player: int, kind: UnitKind) -> int:
    """CQ-2: `3*player + i`; player 1 has units 3, 4, 5 and player 2 has 6, 7, 8."""
    return 3 * player + kind.index


def unit_player(uid: int) -> int:
    """The player owning unit `uid` (raise ValueError for an id that is no unit's)."""
    if uid not in ALL_UNIT_IDS:
        raise ValueError(f"no unit has id {uid!r}")
    return uid // 3


def unit_kind(uid: int) -> UnitKind:
    """The kind of unit `uid` (raise ValueError for an id that is no unit's)."""
    if uid not in ALL_UNIT_IDS:
        raise ValueError(f"no unit has id {uid!r}")
    return UNIT_KINDS[uid % 3]


def player_unit_ids(player: int) -> tuple[int, int, int]:
    """CQ-2: the Devil, Fox and Crocodile ids of a player (3p, 3p + 1, 3p + 2)."""
    return (3 * player, 3 * player + 1, 3 * player + 2)


ALL_UNIT_IDS: tuple[int, ...] = (3, 4, 5, 6, 7, 8)


def opponent(player: int) -> int:
    return 3 - player


def start_cells(grid: Grid) -> dict[int, tuple[Cell, Cell, Cell]]:
    """CQ-14: player 1 at (3,3), (4,3), (5,3); player 2 at the mirrors, in Devil, Fox, Crocodile order."""
    first: tuple[Cell, Cell, Cell] = ((3, 3), (4, 3), (5, 3))
    second = (grid.mirror(first[0]), grid.mirror(first[1]), grid.mirror(first[2]))
    return {1: first, 2: second}
