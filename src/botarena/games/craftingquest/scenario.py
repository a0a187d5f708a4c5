"""The Crafting Quest 2 scenario record (spec CQ-26) and how a game gets one (CQ-5).

A `Scenario` is everything a game starts from: size, rounds, terrain, camps with their stock, start
cells, the hidden attribute structure, the deposits with their vectors and the blueprint catalogue.
`Scenario.from_json` validates the CQ-26 shape (an invalid record raises `ConfigError` with a one-line
message), and `Scenario.to_json` writes it back in canonical order, so the same scenario always gives
the same orjson bytes. How a game gets its scenario (CQ-5) is generate.py's `scenario_of`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import orjson

from botarena.core.config import ConfigError
from botarena.core.numbers import as_wire_int
from botarena.games.craftingquest.constants import (
    ITEM_RANK,
    OBJECT_TYPES,
    RESOURCE_TYPES,
    SCAN_ATTRIBUTE_COUNT,
    SCAN_ATTRIBUTE_MAX_VALUES,
    SCAN_ATTRIBUTE_MIN_VALUES,
)
from botarena.games.craftingquest.geometry import (
    PLAYERS,
    TERRAIN_CHARS,
    UNIT_KINDS,
    Cell,
    Grid,
    Terrain,
)

BlueprintKind = Literal["simple", "complex"]
Vector = tuple[int, ...]

MIN_SIZE, MAX_SIZE = 50, 100
MAX_ROUNDS = 1000
MAX_AMOUNT = 10**9
_REQUIRED_KEYS = (
    "width",
    "height",
    "rounds",
    "terrain",
    "camps",
    "starts",
    "attribute_values",
    "type_tests",
    "deposits",
    "blueprints",
)
_ALL_KEYS = frozenset((*_REQUIRED_KEYS, "origin"))
_RESOURCE_SET = frozenset(RESOURCE_TYPES)
_OBJECT_SET = frozenset(OBJECT_TYPES)


def id_number(item_id: str) -> int:
    """`"R7"` -> 7, `"O10"` -> 10: ids sort numerically, so `"O2"` comes before `"O10"`."""
    return int(item_id[1:])


def _sorted_ids(ids: Mapping[str, Any] | Sequence[str]) -> list[str]:
    try:
        return sorted(ids, key=ITEM_RANK.__getitem__)  # the common case: known ids, no parsing
    except KeyError:
        return sorted(ids, key=id_number)


@dataclass(frozen=True, slots=True)
class Camp:
    """A merchant camp and the blueprints it sells (ids in numeric order)."""

    x: int
    y: int
    stock: tuple[str, ...]

    @property
    def cell(self) -> Cell:
        return (self.x, self.y)


@dataclass(frozen=True, slots=True)
class Deposit:
    """A cell's buried resources (type -> quantity, numeric order) and each type's CQ-21 vector.

    The maps are read-only: the generator shares them between a deposit and its mirror twin.
    """

    x: int
    y: int
    buried: Mapping[str, int]
    vectors: Mapping[str, Vector]

    @property
    def cell(self) -> Cell:
        return (self.x, self.y)


@dataclass(frozen=True, slots=True)
class Blueprint:
    """A catalogue entry (CQ-22 to CQ-24); alternatives are id -> quantity maps in numeric order."""

    id: str
    kind: BlueprintKind
    price: int
    value: int
    alternatives: tuple[Mapping[str, int], ...]


@dataclass(frozen=True, slots=True)
class Scenario:
    """The CQ-26 record. Build it with `from_json` (validating) or from the generator."""

    width: int
    height: int
    rounds: int
    terrain: tuple[str, ...]
    camps: tuple[Camp, ...]
    starts: Mapping[int, tuple[Cell, Cell, Cell]]
    attribute_values: tuple[int, ...]
    type_tests: Mapping[str, Mapping[int, int]]
    deposits: tuple[Deposit, ...]
    blueprints: tuple[Blueprint, ...]
    origin: Mapping[str, Any] | None = None

    @property
    def grid(self) -> Grid:
        return Grid(self.width, self.height)

    def terrain_at(self, cell: Cell) -> Terrain:
        return Terrain.from_char(self.terrain[cell[1]][cell[0]])

    def camp_cells(self) -> frozenset[Cell]:
        return frozenset(camp.cell for camp in self.camps)

    def blueprint(self, object_id: str) -> Blueprint | None:
        for blueprint in self.blueprints:
            if blueprint.id == object_id:
                return blueprint
        return None

    @classmethod
    def from_json(cls, obj: Any) -> Scenario:
        """Validate a CQ-26 record (raise ConfigError in one line naming the problem)."""
        return _parse_scenario(obj)

    def to_json(self) -> dict[str, Any]:
        """The CQ-26 record as plain JSON data, in canonical order (byte-stable through orjson)."""
        out: dict[str, Any] = {
            "width": self.width,
            "height": self.height,
            "rounds": self.rounds,
            "terrain": list(self.terrain),
            "camps": [
                {"x": c.x, "y": c.y, "stock": _sorted_ids(c.stock)}
                for c in sorted(self.camps, key=_row_major)
            ],
            "starts": {str(p): [list(cell) for cell in self.starts[p]] for p in sorted(self.starts)},
            "attribute_values": list(self.attribute_values),
            "type_tests": {
                t: {str(a): v for a, v in sorted(tests.items())}
                for t, tests in sorted(self.type_tests.items(), key=lambda kv: id_number(kv[0]))
            },
            "deposits": [_deposit_json(d) for d in sorted(self.deposits, key=_row_major)],
            "blueprints": [blueprint_json(b) for b in sorted(self.blueprints, key=lambda b: id_number(b.id))],
        }
        if self.origin is not None:
            out["origin"] = {k: self.origin[k] for k in sorted(self.origin)}
        return out

    def to_bytes(self) -> bytes:
        """The orjson bytes of `to_json()`: identical for identical scenarios."""
        return orjson.dumps(self.to_json())


def _row_major(item: Camp | Deposit) -> tuple[int, int]:
    return (item.y, item.x)


def _deposit_json(deposit: Deposit) -> dict[str, Any]:
    return {
        "x": deposit.x,
        "y": deposit.y,
        "buried": {t: deposit.buried[t] for t in _sorted_ids(deposit.buried)},
        "vectors": {t: list(deposit.vectors[t]) for t in _sorted_ids(deposit.vectors)},
    }


def blueprint_json(blueprint: Blueprint) -> dict[str, Any]:
    """A catalogue entry, alternatives keyed in numeric order: the CQ-26 record's and also the one
    a player is sent (spec 4.1)."""
    return {
        "id": blueprint.id,
        "kind": blueprint.kind,
        "price": blueprint.price,
        "value": blueprint.value,
        "alternatives": [{i: alt[i] for i in _sorted_ids(alt)} for alt in blueprint.alternatives],
    }


# --- validation (CQ-26) ----------------------------------------------------------------------------


def _fail(message: str) -> ConfigError:
    return ConfigError(f"scenario: {message}")


def _int(value: Any, where: str, lo: int, hi: int) -> int:
    number = as_wire_int(value)
    if number is None:
        raise _fail(f"{where} must be an integer, got {value!r}")
    if not lo <= number <= hi:
        raise _fail(f"{where} must be in {lo}..{hi}, got {number}")
    return number


def _dict(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _fail(f"{where} must be a JSON object")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list | tuple):
        raise _fail(f"{where} must be a list")
    return list(value)


def _cell(obj: Any, where: str, grid: Grid) -> Cell:
    """An `[x, y]` pair inside the map."""
    pair = _list(obj, where)
    if len(pair) != 2:
        raise _fail(f"{where} must be an [x, y] pair")
    return _xy(pair[0], pair[1], where, grid)


def _xy(x: Any, y: Any, where: str, grid: Grid) -> Cell:
    if type(x) is int and type(y) is int and 0 <= x < grid.width and 0 <= y < grid.height:
        return (x, y)  # the fast path; the checks below name the problem
    cx = _int(x, f"{where} x", 0, grid.width - 1)
    cy = _int(y, f"{where} y", 0, grid.height - 1)
    return (cx, cy)


def _quantities(obj: Any, where: str, allowed: frozenset[str], kind: str) -> dict[str, int]:
    """A non-empty id -> positive quantity map, returned in numeric id order."""
    table = _dict(obj, where)
    if not table:
        raise _fail(f"{where} must not be empty")
    for key in table:
        if key not in allowed:
            raise _fail(f"{where} has {key!r}, which is not {kind} id")
    out: dict[str, int] = {}
    for key in _sorted_ids(table):
        value = table[key]
        ok = type(value) is int and 1 <= value <= MAX_AMOUNT
        out[key] = value if ok else _int(value, f"{where}[{key!r}]", 1, MAX_AMOUNT)
    return out


def _parse_scenario(obj: Any) -> Scenario:
    data = _dict(obj, "the scenario")
    unknown = sorted(k for k in data if k not in _ALL_KEYS)
    if unknown:
        raise _fail(f"unknown key {unknown[0]!r}")
    for key in _REQUIRED_KEYS:
        if key not in data:
            raise _fail(f"missing key {key!r}")
    width = _int(data["width"], "width", MIN_SIZE, MAX_SIZE)
    height = _int(data["height"], "height", MIN_SIZE, MAX_SIZE)
    grid = Grid(width, height)
    rounds = _int(data["rounds"], "rounds", 1, MAX_ROUNDS)
    terrain = _parse_terrain(data["terrain"], grid)
    blueprints = _parse_blueprints(data["blueprints"])
    camps = _parse_camps(data["camps"], grid, terrain)
    camp_cells = frozenset(c.cell for c in camps)
    starts = _parse_starts(data["starts"], grid, terrain, camp_cells)
    attribute_values = _parse_attribute_values(data["attribute_values"])
    type_tests = _parse_type_tests(data["type_tests"], attribute_values)
    deposits = _parse_deposits(data["deposits"], grid, terrain, camp_cells, attribute_values, type_tests)
    origin = data.get("origin")
    if origin is not None:
        origin = dict(_dict(origin, "origin"))
    return Scenario(
        width=width,
        height=height,
        rounds=rounds,
        terrain=terrain,
        camps=camps,
        starts=starts,
        attribute_values=attribute_values,
        type_tests=type_tests,
        deposits=deposits,
        blueprints=blueprints,
        origin=origin,
    )


def _parse_terrain(obj: Any, grid: Grid) -> tuple[str, ...]:
    rows = _list(obj, "terrain")
    if len(rows) != grid.height:
        raise _fail(f"terrain has {len(rows)} rows, expected height {grid.height}")
    allowed = frozenset(TERRAIN_CHARS)
    for y, row in enumerate(rows):
        if not isinstance(row, str) or len(row) != grid.width:
            raise _fail(f"terrain row {y} must be a string of width {grid.width} characters")
        bad = next((ch for ch in row if ch not in allowed), None)
        if bad is not None:
            raise _fail(f"terrain row {y} has the unknown character {bad!r} (known: {TERRAIN_CHARS})")
    return tuple(rows)


def _terrain(terrain: tuple[str, ...], cell: Cell) -> Terrain:
    return Terrain.from_char(terrain[cell[1]][cell[0]])


def _parse_camps(obj: Any, grid: Grid, terrain: tuple[str, ...]) -> tuple[Camp, ...]:
    camps: dict[Cell, Camp] = {}
    for i, item in enumerate(_list(obj, "camps")):
        where = f"camps[{i}]"
        camp = _dict(item, where)
        cell = _xy(camp.get("x"), camp.get("y"), where, grid)
        if cell in camps:
            raise _fail(f"{where}: a second camp at {cell}")
        if _terrain(terrain, cell) is Terrain.ROCK:
            raise _fail(f"{where}: camp at {cell} lies on rock")
        stock = _list(camp.get("stock"), f"{where} stock")
        for blueprint_id in stock:
            # Ex 9's scenario E stocks O1 without listing its blueprint, so only the id is checked.
            if blueprint_id not in _OBJECT_SET:
                raise _fail(f"{where} stocks {blueprint_id!r}, which is not an object id")
        if len(set(stock)) != len(stock):
            raise _fail(f"{where} stock lists a blueprint twice")
        camps[cell] = Camp(cell[0], cell[1], tuple(_sorted_ids(stock)))
    return tuple(camps[c] for c in sorted(camps, key=grid.idx))


def _parse_starts(
    obj: Any, grid: Grid, terrain: tuple[str, ...], camp_cells: frozenset[Cell]
) -> dict[int, tuple[Cell, Cell, Cell]]:
    table = _dict(obj, "starts")
    if sorted(table) != ["1", "2"]:
        raise _fail('starts must have exactly the keys "1" and "2"')
    starts: dict[int, tuple[Cell, Cell, Cell]] = {}
    for player in PLAYERS:
        where = f"starts[{player}]"
        cells = _list(table[str(player)], where)
        if len(cells) != len(UNIT_KINDS):
            raise _fail(f"{where} must list the Devil's, the Fox's and the Crocodile's cells")
        parsed = [_cell(c, f"{where}[{i}]", grid) for i, c in enumerate(cells)]
        for kind, cell in zip(UNIT_KINDS, parsed, strict=True):
            ground = _terrain(terrain, cell)
            if not ground.can_enter(kind):
                raise _fail(f"{where}: the {kind.value} cannot stand on {ground.value} at {cell}")
            if cell in camp_cells:
                raise _fail(f"{where}: the {kind.value} starts on the camp at {cell}")
        starts[player] = (parsed[0], parsed[1], parsed[2])
    return starts


def _parse_attribute_values(obj: Any) -> tuple[int, ...]:
    values = _list(obj, "attribute_values")
    if len(values) != SCAN_ATTRIBUTE_COUNT:
        raise _fail(f"attribute_values must list {SCAN_ATTRIBUTE_COUNT} value counts")
    return tuple(
        _int(v, f"attribute_values[{i}]", SCAN_ATTRIBUTE_MIN_VALUES, SCAN_ATTRIBUTE_MAX_VALUES)
        for i, v in enumerate(values)
    )


def _parse_type_tests(obj: Any, attribute_values: tuple[int, ...]) -> dict[str, dict[int, int]]:
    table = _dict(obj, "type_tests")
    stray = [k for k in table if k not in _RESOURCE_SET]
    if stray:
        raise _fail(f"type_tests has {stray[0]!r}, which is not a resource type id")
    out: dict[str, dict[int, int]] = {}
    for type_id in _sorted_ids(list(table)):
        where = f"type_tests[{type_id!r}]"
        tests = _dict(table[type_id], where)
        if not tests:
            raise _fail(f"{where} must test at least one attribute")
        parsed: dict[int, int] = {}
        for key, value in tests.items():
            if key not in {str(i) for i in range(SCAN_ATTRIBUTE_COUNT)}:
                raise _fail(f"{where} has the attribute {key!r}; attributes are '0'..'4'")
            attribute = int(key)
            parsed[attribute] = _int(value, f"{where}[{key!r}]", 1, attribute_values[attribute])
        out[type_id] = dict(sorted(parsed.items()))
    return out


def _parse_deposits(
    obj: Any,
    grid: Grid,
    terrain: tuple[str, ...],
    camp_cells: frozenset[Cell],
    attribute_values: tuple[int, ...],
    type_tests: Mapping[str, Mapping[int, int]],
) -> tuple[Deposit, ...]:
    deposits: dict[Cell, Deposit] = {}
    for i, item in enumerate(_list(obj, "deposits")):
        where = f"deposits[{i}]"
        deposit = _dict(item, where)
        cell = _xy(deposit.get("x"), deposit.get("y"), where, grid)
        if cell in deposits:
            raise _fail(f"{where}: a second deposit at {cell}")
        if _terrain(terrain, cell) is Terrain.ROCK:
            raise _fail(f"{where}: deposit at {cell} lies on rock")
        if cell in camp_cells:
            raise _fail(f"{where}: deposit at {cell} lies on a camp")
        buried = _quantities(deposit.get("buried"), f"{where} buried", _RESOURCE_SET, "a resource")
        vectors_obj = _dict(deposit.get("vectors"), f"{where} vectors")
        if sorted(vectors_obj) != sorted(buried):
            raise _fail(f"{where} must give exactly one vector per buried type")
        vectors: dict[str, Vector] = {}
        for type_id in buried:
            vectors[type_id] = _vector(
                vectors_obj[type_id],
                f"{where} vector of {type_id}",
                attribute_values,
                type_tests.get(type_id),
            )
        deposits[cell] = Deposit(cell[0], cell[1], buried, vectors)
    return tuple(deposits[c] for c in sorted(deposits, key=grid.idx))


def _vector(
    obj: Any, where: str, attribute_values: tuple[int, ...], tests: Mapping[int, int] | None
) -> Vector:
    """A vector of 5 attribute values in range that satisfies its type's defining tests (CQ-20)."""
    if tests is None:
        raise _fail(f"{where}: the type has no entry in type_tests")
    items = _list(obj, where)
    if len(items) != SCAN_ATTRIBUTE_COUNT:
        raise _fail(f"{where} must have {SCAN_ATTRIBUTE_COUNT} attributes")
    in_range = all(type(v) is int and 1 <= v <= k for v, k in zip(items, attribute_values, strict=True))
    vector = (
        tuple(items)
        if in_range
        else tuple(_int(v, f"{where}[{i}]", 1, attribute_values[i]) for i, v in enumerate(items))
    )
    for attribute, value in tests.items():
        if vector[attribute] != value:
            raise _fail(f"{where} has attribute {attribute} = {vector[attribute]}, its type tests {value}")
    return vector


def _parse_blueprints(obj: Any) -> tuple[Blueprint, ...]:
    blueprints: dict[str, Blueprint] = {}
    for i, item in enumerate(_list(obj, "blueprints")):
        where = f"blueprints[{i}]"
        entry = _dict(item, where)
        blueprint_id = entry.get("id")
        if blueprint_id not in _OBJECT_SET:
            raise _fail(f"{where} id must be one of O1..O12, got {blueprint_id!r}")
        assert isinstance(blueprint_id, str)
        if blueprint_id in blueprints:
            raise _fail(f"{where}: a second blueprint {blueprint_id}")
        kind = entry.get("kind")
        if kind not in ("simple", "complex"):
            raise _fail(f"{where} kind must be 'simple' or 'complex', got {kind!r}")
        price = _int(entry.get("price"), f"{where} price", 0, MAX_AMOUNT)
        value = _int(entry.get("value"), f"{where} value", 0, MAX_AMOUNT)
        alternatives = _list(entry.get("alternatives"), f"{where} alternatives")
        if not alternatives:
            raise _fail(f"{where} must have at least one alternative")
        allowed, item_kind = (_RESOURCE_SET, "a resource") if kind == "simple" else (_OBJECT_SET, "an object")
        parsed = tuple(
            _quantities(alt, f"{where} alternative {j}", allowed, item_kind)
            for j, alt in enumerate(alternatives)
        )
        if any(blueprint_id in alt for alt in parsed):
            raise _fail(f"{where}: {blueprint_id} is an ingredient of itself")
        blueprints[blueprint_id] = Blueprint(blueprint_id, kind, price, value, parsed)
    return tuple(blueprints[b] for b in _sorted_ids(blueprints))
