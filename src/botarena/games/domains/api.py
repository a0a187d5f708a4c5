"""The Domains player API for Python bots (spec 7.2): the original C++ API's names and semantics.

    from botarena.games.domains.api import Direction, Player

    class MyPlayer(Player):
        def play(self):
            for uid in self.units(self.me()):
                self.move(uid, Direction.up)

    create_bot = MyPlayer           # for `botarena play domains my_player.py ...`

A `Player` is itself an in-process bot (`setup`, `act`, `end`), so the class is the bot factory; the
same file runs as a subprocess bot with `python -m botarena.kit my_player.py`. Every method has its
original camelCase name and a snake_case alias. No call raises because of bad arguments: it returns
the null value of the table in 7.2 and writes a one-line warning to stderr (F4).
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, Generic, TypeVar

from botarena.games.domains.rng import BotRandom
from botarena.games.domains.state import DELTAS, Direction

T = TypeVar("T")


def _warn(text: str) -> None:
    print(f"domains api warning: {text}", file=sys.stderr)


_FROM_DELTA = {delta: Direction(d) for d, delta in enumerate(DELTAS)}


class UnitType(IntEnum):
    unit = 0
    bubble = 1
    bonus = 2


class OrderType(IntEnum):
    movement = 0
    attack = 1
    ability = 2


_WIRE_TYPE = {OrderType.movement: "move", OrderType.attack: "attack", OrderType.ability: "ability"}


def _as_direction(value: Any) -> Direction | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, Direction):
        return value
    if isinstance(value, int) and 0 <= value <= 8:
        return Direction(value)
    return None


class Position:
    """A board position: `x` is the row, `y` the column. Immutable and hashable."""

    __slots__ = ("x", "y")
    x: int
    y: int

    def __init__(self, x: int = 0, y: int = 0) -> None:
        object.__setattr__(self, "x", int(x))
        object.__setattr__(self, "y", int(y))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Position is immutable")

    def __add__(self, other: Any) -> Position:
        if isinstance(other, Position):
            return Position(self.x + other.x, self.y + other.y)
        d = _as_direction(other)
        if d is None:
            return NotImplemented
        dx, dy = DELTAS[d]
        return Position(self.x + dx, self.y + dy)

    def __sub__(self, other: Any) -> Position:
        if isinstance(other, Position):
            return Position(self.x - other.x, self.y - other.y)
        return NotImplemented

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Position):
            return self.x == other.x and self.y == other.y
        if isinstance(other, tuple) and len(other) == 2:
            return (self.x, self.y) == other
        return NotImplemented

    def __lt__(self, other: Position) -> bool:
        return (self.x, self.y) < (other.x, other.y)

    def __hash__(self) -> int:
        return hash((self.x, self.y))

    def __iter__(self) -> Iterator[int]:
        yield self.x
        yield self.y

    def __repr__(self) -> str:
        return f"({self.x}, {self.y})"

    def to(self, p: Any) -> Direction:
        """dir(self -> p) for any p; null for p == self (the documentation's "adjacent only" was wrong)."""
        other = _as_position(p)
        if other is None:
            _warn(f"Position.to: bad position {p!r}")
            return Direction.null
        dx = (other.x > self.x) - (other.x < self.x)
        dy = (other.y > self.y) - (other.y < self.y)
        return _FROM_DELTA[(dx, dy)]


def _as_position(value: Any) -> Position | None:
    if isinstance(value, Position):
        return value
    if isinstance(value, tuple | list) and len(value) == 2:
        x, y = value
        if isinstance(x, int) and isinstance(y, int) and not isinstance(x, bool) and not isinstance(y, bool):
            return Position(x, y)
    return None


NULL_POSITION = Position(-1, -1)


class _OnBoard:
    """What every board object answers: its id and position (the original's getter names)."""

    __slots__ = ("_id", "_pos")
    _id: int
    _pos: Position

    def id(self) -> int:
        return self._id

    def position(self) -> Position:
        return self._pos


class _Owned(_OnBoard):
    """A board object that belongs to a player (-1: nobody)."""

    __slots__ = ("_player",)
    _player: int

    def player(self) -> int:
        return self._player


class Unit(_Owned):
    """A unit (the null unit has id -1, player -1, position (-1, -1), energy 0)."""

    __slots__ = ("_energy", "_upgraded")

    def __init__(
        self,
        id: int = -1,
        player: int = -1,
        position: Position = NULL_POSITION,
        upgraded: bool = False,
        energy: int = 0,
    ) -> None:
        self._id, self._player, self._pos, self._upgraded, self._energy = (
            id,
            player,
            position,
            upgraded,
            energy,
        )

    def upgraded(self) -> bool:
        return self._upgraded

    def energy(self) -> int:
        return self._energy

    def type(self) -> UnitType:
        return UnitType.unit

    def __repr__(self) -> str:
        return (
            f"Unit(id={self._id}, player={self._player}, pos={self._pos}, "
            f"upgraded={self._upgraded}, energy={self._energy})"
        )


class Bubble(_Owned):
    """A bubble (the null bubble has id -1, player -1, position (-1, -1), rtp 0)."""

    __slots__ = ("_rtp",)

    def __init__(
        self, id: int = -1, player: int = -1, position: Position = NULL_POSITION, rounds_to_pop: int = 0
    ) -> None:
        self._id, self._player, self._pos, self._rtp = id, player, position, rounds_to_pop

    def roundsToPop(self) -> int:
        """0 when not ticking (the documentation said -1)."""
        return self._rtp

    rounds_to_pop = roundsToPop

    def type(self) -> UnitType:
        return UnitType.bubble


class Bonus(_OnBoard):
    """A bonus on the board ([proposed] id and position)."""

    __slots__ = ()

    def __init__(self, id: int = -1, position: Position = NULL_POSITION) -> None:
        self._id, self._pos = id, position

    def type(self) -> UnitType:
        return UnitType.bonus


NULL_UNIT = Unit()
NULL_BUBBLE = Bubble()
NULL_BONUS = Bonus()


class Square:
    """One square as a player sees it."""

    __slots__ = ("_ability", "_bonus", "_bubble", "_drawer", "_painter", "_pos", "_unit", "_unit_drawer")

    def __init__(
        self,
        pos: Position = NULL_POSITION,
        painter: int = -1,
        drawer: int = -1,
        unit_drawer: int = -1,
        ability: int = 0,
        unit: Unit | None = None,
        bubble: Bubble | None = None,
        bonus: Bonus | None = None,
    ) -> None:
        self._pos, self._painter, self._drawer, self._unit_drawer = pos, painter, drawer, unit_drawer
        self._ability, self._unit, self._bubble, self._bonus = ability, unit, bubble, bonus

    def pos(self) -> Position:
        return self._pos

    def painted(self) -> bool:
        return self._painter >= 0

    def painter(self) -> int:
        return self._painter

    def drawn(self) -> bool:
        return self._drawer >= 0

    def drawer(self) -> int:
        return self._drawer

    def unitDrawer(self) -> int:
        return self._unit_drawer

    def ability(self) -> bool:
        return self._ability > 0

    def roundsUntilAbilityEnd(self) -> int:
        return self._ability

    def empty(self) -> bool:
        return self._unit is None and self._bubble is None and self._bonus is None

    def hasUnit(self) -> bool:
        return self._unit is not None

    def unit(self) -> Unit:
        return self._unit if self._unit is not None else NULL_UNIT

    def hasBubble(self) -> bool:
        return self._bubble is not None

    def bubble(self) -> Bubble:
        return self._bubble if self._bubble is not None else NULL_BUBBLE

    def hasBonus(self) -> bool:
        return self._bonus is not None

    def bonus(self) -> Bonus:
        return self._bonus if self._bonus is not None else NULL_BONUS

    def _key(self) -> tuple[Any, ...]:
        """What the export compares (7.4): content identities, painter, trail player, flag."""
        return (
            self._unit.id() if self._unit else -1,
            self._bubble.id() if self._bubble else -1,
            self._bonus.id() if self._bonus else -1,
            self._painter,
            self._drawer,
            self._ability > 0,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Square):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    unit_drawer = unitDrawer
    rounds_until_ability_end = roundsUntilAbilityEnd
    has_unit = hasUnit
    has_bubble = hasBubble
    has_bonus = hasBonus


class Matrix(Generic[T]):
    """A rows x cols grid indexed by Position (or (x, y)), iterated in row-major order."""

    def __init__(self, rows: int = 0, cols: int = 0, fill: T | None = None) -> None:
        self._rows, self._cols = rows, cols
        self._data: list[T | None] = [fill] * (rows * cols)

    def rows(self) -> int:
        return self._rows

    def cols(self) -> int:
        return self._cols

    def _index(self, key: Any) -> int:
        p = _as_position(key)
        if p is None or not (0 <= p.x < self._rows and 0 <= p.y < self._cols):
            raise IndexError(f"Matrix position {key!r} outside {self._rows}x{self._cols}")
        return p.x * self._cols + p.y

    def __getitem__(self, key: Any) -> T:
        return self._data[self._index(key)]  # type: ignore[return-value]

    def __setitem__(self, key: Any, value: T) -> None:
        self._data[self._index(key)] = value

    def __iter__(self) -> Iterator[T]:
        return iter(self._data)  # type: ignore[arg-type]

    def __len__(self) -> int:
        return len(self._data)


class utils:
    """`utils::decompose`, `perpendiculars`, `invert`, `isDiagonal`."""

    @staticmethod
    def decompose(d: Any) -> tuple[Direction, Direction]:
        table = {
            Direction.UL: (Direction.left, Direction.up),
            Direction.UR: (Direction.right, Direction.up),
            Direction.DL: (Direction.left, Direction.down),
            Direction.DR: (Direction.right, Direction.down),
        }
        return table.get(_as_direction(d), (Direction.null, Direction.null))  # type: ignore[arg-type]

    @staticmethod
    def perpendiculars(d: Any) -> tuple[Direction, Direction]:
        d = _as_direction(d)
        if d in (Direction.up, Direction.down):
            return (Direction.right, Direction.left)
        if d in (Direction.left, Direction.right):
            return (Direction.up, Direction.down)
        return (Direction.null, Direction.null)

    @staticmethod
    def invert(d: Any) -> Direction:
        d = _as_direction(d)
        if d is None:
            return Direction.null
        dx, dy = DELTAS[d]
        return _FROM_DELTA[(-dx, -dy)]

    @staticmethod
    def isDiagonal(d: Any) -> bool:
        d = _as_direction(d)
        return d is not None and d >= Direction.UL

    is_diagonal = isDiagonal


@dataclass(frozen=True)
class Order:
    """`Order(unitId, dir, type)`."""

    unitId: int
    dir: Direction
    type: OrderType


SETTINGS_KEYS = (
    ("NUMBER_OF_PLAYERS\t", "num_players"),
    ("UNITS_AT_START\t\t", "units_at_start"),
    ("MAX_NUMBER_OF_UNITS\t", "max_number_of_units"),
    ("MIN_NUMBER_OF_UNITS\t", "min_number_of_units"),
    ("MAX_NUMBER_OF_BONUSES\t", "max_number_of_bonuses"),
    ("MAX_BONUSES_PER_PLAYER\t", "max_bonuses_per_player"),
    ("ROUNDS_PER_RESPAWN\t", "rounds_per_respawn"),
    ("ROUNDS_PER_BUBBLE\t", "rounds_per_bubble"),
    ("ROUNDS_PER_BUBBLE_MOVE", "rounds_per_bubble_move"),
    ("MAX_ROUNDS_PER_BONUS\t", "max_rounds_per_bonus"),
    ("POINTS_PER_UNIT\t\t", "points_per_unit"),
    ("POINTS_PER_BUBBLE\t", "points_per_bubble"),
    ("POINTS_PER_POP\t\t", "points_per_pop"),
    ("POINTS_PER_SQUARE\t", "points_per_square"),
    ("ENERGY_AT_START\t\t", "energy_at_start"),
    ("MAX_ENERGY\t\t", "max_energy"),
    ("MIN_ENERGY\t\t", "min_energy"),
    ("ABILITY SIZE\t\t", "ability_size"),
    ("ABILITY DURATION\t", "ability_duration"),
    ("BOARD_WIDTH\t\t", "board_width"),
    ("BOARD_HEIGHT\t\t", "board_height"),
    ("ROUNDS_TO_POP\t", "rounds_to_pop"),
)


class GameInfo:
    """Read-only access to the current round's state (the original's static GameInfo)."""

    def __init__(self) -> None:
        self._obs: dict[str, Any] = {}
        self._config: dict[str, Any] = {}
        self._random = BotRandom(0)
        self._units: dict[int, Unit] = {}
        self._unit_at: dict[tuple[int, int], Unit] = {}
        self._bubbles: dict[int, Bubble] = {}
        self._bubble_at: dict[tuple[int, int], Bubble] = {}
        self._bonus_at: dict[tuple[int, int], Bonus] = {}
        self._rows = 0
        self._cols = 0

    def _load(self, obs: dict[str, Any]) -> None:
        self._obs = obs
        self._rows, self._cols = int(obs.get("rows", 0)), int(obs.get("cols", 0))
        self._config = obs.get("config", self._config) or self._config
        self._units = {}
        self._unit_at = {}
        for u in obs.get("units", []):
            unit = Unit(u["id"], u["player"], Position(u["x"], u["y"]), bool(u["upgraded"]), u["energy"])
            self._units[u["id"]] = unit
            self._unit_at[(u["x"], u["y"])] = unit
        self._bubbles = {}
        self._bubble_at = {}
        for b in obs.get("bubbles", []):
            bubble = Bubble(b["id"], b["player"], Position(b["x"], b["y"]), b["rounds_to_pop"])
            self._bubbles[b["id"]] = bubble
            self._bubble_at[(b["x"], b["y"])] = bubble
        self._bonus_at = {
            (k["x"], k["y"]): Bonus(k["id"], Position(k["x"], k["y"])) for k in obs.get("bonuses", [])
        }

    # -- the original's functions --------------------------------------------------------------------
    def rows(self) -> int:
        return self._rows

    def cols(self) -> int:
        return self._cols

    def round(self) -> int:
        return int(self._obs.get("round", 0))

    def _n(self) -> int:
        return int(self._obs.get("num_players", 0))

    def points(self, pl: Any) -> int:
        if isinstance(pl, bool) or not isinstance(pl, int) or not 0 <= pl < self._n():
            _warn(f"points: bad player id {pl!r}")
            return -1
        return int(self._obs["points"][pl])

    def posOk(self, p: Any) -> bool:
        pos = _as_position(p)
        return pos is not None and 0 <= pos.x < self._rows and 0 <= pos.y < self._cols

    def square(self, p: Any) -> Square:
        pos = _as_position(p)
        if pos is None or not self.posOk(pos):
            _warn(f"square: position {p!r} is off the board")
            return Square(pos if pos is not None else NULL_POSITION)
        x, y = pos.x, pos.y
        obs = self._obs
        return Square(
            pos,
            obs["painter"][x][y],
            obs["drawer"][x][y],
            obs["drawer_unit"][x][y],
            obs["ability"][x][y],
            self._unit_at.get((x, y)),
            self._bubble_at.get((x, y)),
            self._bonus_at.get((x, y)),
        )

    def unit(self, uid_or_pos: Any) -> Unit:
        if isinstance(uid_or_pos, int) and not isinstance(uid_or_pos, bool):
            found = self._units.get(uid_or_pos)
            if found is None:
                _warn(f"unit: no living unit with id {uid_or_pos}")
                return NULL_UNIT
            return found
        pos = _as_position(uid_or_pos)
        if pos is None or not self.posOk(pos):
            _warn(f"unit: bad id or position {uid_or_pos!r}")
            return NULL_UNIT
        found = self._unit_at.get((pos.x, pos.y))
        if found is None:
            _warn(f"unit: no unit at {pos}")
            return NULL_UNIT
        return found

    def bubble(self, bid_or_pos: Any) -> Bubble:
        if isinstance(bid_or_pos, int) and not isinstance(bid_or_pos, bool):
            found = self._bubbles.get(bid_or_pos)
        else:
            pos = _as_position(bid_or_pos)
            found = self._bubble_at.get((pos.x, pos.y)) if pos is not None else None
        if found is None:
            _warn(f"bubble: no bubble for {bid_or_pos!r}")
            return NULL_BUBBLE
        return found

    def grid(self, name: str) -> list[list[int]]:
        """[proposed] A whole board layer as rows of ints, read-only by convention: `painter`, `drawer`,
        `drawer_unit` or `ability` (what `square(p)` reads, without building a Square per square)."""
        if name not in ("painter", "drawer", "drawer_unit", "ability"):
            _warn(f"grid: unknown layer {name!r}")
            return []
        return self._obs.get(name, [])  # type: ignore[no-any-return]

    def bubbles(self) -> list[Bubble]:
        """[proposed] The bubbles on the board, in slot order."""
        return [self._bubbles[b] for b in sorted(self._bubbles)]

    def numPlayers(self) -> int:
        """[proposed] n, the number of players."""
        return self._n()

    num_players = numPlayers

    def bonuses(self) -> list[Bonus]:
        """[proposed] The bonuses on the board, in slot order."""
        return sorted(self._bonus_at.values(), key=lambda b: b.id())

    def units(self, pl: Any) -> list[int]:
        if isinstance(pl, bool) or not isinstance(pl, int) or not 0 <= pl < self._n():
            _warn(f"units: bad player id {pl!r}")
            return []
        return [uid for uid, unit in self._units.items() if unit.player() == pl]

    def numberOfUnits(self) -> list[int]:
        counts = [0, 0, 0, 0]
        for unit in self._units.values():
            if 0 <= unit.player() < 4:
                counts[unit.player()] += 1
        return counts

    def maxNumberOfUnits(self) -> int:
        return int(self._obs.get("unit_table_size", 0))

    def randomNumber(self, l: Any, r: Any) -> int:  # noqa: E741 - the original C++ API's parameter names
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (l, r)):
            _warn(f"randomNumber: bad bounds {l!r}, {r!r}")
            return l if isinstance(l, int) else 0
        if l > r:
            _warn(f"randomNumber: l {l} > r {r}")
            return int(l)
        return self._random.random_number(l, r)

    def randomPermutation(self) -> list[int]:
        return self._random.random_permutation()

    def printSettings(self) -> None:
        c = self._config
        text = "".join(f"{label}{c.get(key, '')}\n" for label, key in SETTINGS_KEYS)
        sys.stderr.write(text)

    # snake_case aliases
    pos_ok = posOk
    number_of_units = numberOfUnits
    max_number_of_units = maxNumberOfUnits
    random_number = randomNumber
    random_permutation = randomPermutation
    print_settings = printSettings


class PlayerOrders:
    """Queue orders: at most one per unit; bad ids or directions are ignored with a warning."""

    def __init__(self) -> None:
        self._orders: list[Order] = []
        self._ordered: set[int] = set()

    def _queue(self, unit_id: Any, direction: Any, kind: OrderType) -> None:
        table = int(getattr(self, "_obs", {}).get("unit_table_size", 0))
        if isinstance(unit_id, bool) or not isinstance(unit_id, int) or not 0 <= unit_id < table:
            _warn(f"{_WIRE_TYPE[kind]}: unit id {unit_id!r} outside [0, {table})")
            return
        d = _as_direction(direction)
        if d is None:
            _warn(f"{_WIRE_TYPE[kind]}: bad direction {direction!r}")
            return
        if unit_id in self._ordered:
            _warn(f"{_WIRE_TYPE[kind]}: unit {unit_id} already has an order this round")
            return
        self._ordered.add(unit_id)
        self._orders.append(Order(unit_id, d, kind))

    def move(self, unitId: Any, dir: Any) -> None:
        self._queue(unitId, dir, OrderType.movement)

    def attack(self, unitId: Any, dir: Any) -> None:
        self._queue(unitId, dir, OrderType.attack)

    def ability(self, unitId: Any) -> None:
        self._queue(unitId, Direction.null, OrderType.ability)


class Player(PlayerOrders, GameInfo):
    """Subclass and implement `play()`. The class is an in-process bot factory (`setup`, `act`, `end`)."""

    def __init__(self) -> None:
        GameInfo.__init__(self)
        PlayerOrders.__init__(self)
        self._me = -1

    def me(self) -> int:
        return self._me

    def play(self) -> None:
        """Give this round's orders. Override it."""

    # -- the platform's in-process calls ---------------------------------------------------------------
    def setup(self, payload: dict[str, Any]) -> dict[str, Any]:
        self._me = int(payload.get("me", -1))
        self._config = dict(payload.get("config", {}))
        self._random = BotRandom(int(payload.get("bot_seed", 0)))
        return {}

    def act(self, payload: dict[str, Any]) -> dict[str, Any]:
        self._load(payload)
        if self._me < 0:
            self._me = int(payload.get("me", -1))
        self._orders = []
        self._ordered = set()
        try:
            self.play()
        except Exception as exc:
            traceback.print_exc(file=sys.stderr)
            return {"orders": [], "error": f"{type(exc).__name__}: {exc}"[:1000]}
        return {"orders": [self._order_json(order) for order in self._orders]}

    def end(self, payload: dict[str, Any]) -> dict[str, Any]:
        return {}

    @staticmethod
    def _order_json(order: Order) -> dict[str, Any]:
        data: dict[str, Any] = {"unit": order.unitId, "type": _WIRE_TYPE[order.type]}
        if order.type is not OrderType.ability:
            data["dir"] = int(order.dir)
        return data


__all__ = [
    "Bonus",
    "Bubble",
    "Direction",
    "GameInfo",
    "Matrix",
    "Order",
    "OrderType",
    "Player",
    "PlayerOrders",
    "Position",
    "Square",
    "Unit",
    "UnitType",
    "utils",
]
