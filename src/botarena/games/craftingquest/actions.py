"""Parse a bot's answer into a typed action: the shape checks of spec 5.2, in their order.

`parse_action(payload, player, max_quantity)` returns either one of the action dataclasses below or
an `ActionError` with the 5.3 code (`OperandError` or `UnknownError`). The game checks of CQ-36 to
CQ-46 run later, in `rules.py`, on the typed action only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from botarena.core.numbers import as_wire_int
from botarena.core.status import Warning, unknown_key_warnings
from botarena.games.craftingquest.constants import ITEM_RANK, OBJECT_TYPES, RESOURCE_TYPES
from botarena.games.craftingquest.geometry import player_unit_ids

ItemMap = dict[str, int]

_RESOURCES = frozenset(RESOURCE_TYPES)
_OBJECTS = frozenset(OBJECT_TYPES)
_ITEMS = _RESOURCES | _OBJECTS

ACTION_NAMES = (
    "move",
    "dig",
    "scan",
    "pickup",
    "drop",
    "craft",
    "sell",
    "buy",
    "build_tower",
    "end_turn",
)
_KNOWN = frozenset(ACTION_NAMES)


def item_order(item_id: str) -> int:
    """Numeric order of ids (spec 4): "R2" before "R10", resources before objects."""
    return ITEM_RANK[item_id]


def sorted_items(items: dict[str, int]) -> dict[str, int]:
    """A copy of an id -> quantity map with only positive quantities, keys in numeric order (spec 4).

    Every payload and replay record calls this for each inventory and pile, most of them empty or
    of one item, hence the short cuts."""
    if len(items) <= 1:
        return {key: amount for key, amount in items.items() if amount > 0}
    return {key: items[key] for key in sorted(items, key=ITEM_RANK.__getitem__) if items[key] > 0}


@dataclass(frozen=True, slots=True)
class ActionError:
    """A shape failure (spec 5.2): `code` is `OperandError` or `UnknownError`.

    `unit` is the acting unit's id when the request named a valid unit of the player (the result then
    shows that unit, spec 4.4), else None.
    """

    code: str
    reason: str
    unit: int | None = None


@dataclass(frozen=True, slots=True)
class Move:
    unit: int
    x: int
    y: int


@dataclass(frozen=True, slots=True)
class Dig:
    unit: int


@dataclass(frozen=True, slots=True)
class Scan:
    unit: int


@dataclass(frozen=True, slots=True)
class Pickup:
    unit: int
    items: ItemMap


@dataclass(frozen=True, slots=True)
class Drop:
    unit: int
    items: ItemMap


@dataclass(frozen=True, slots=True)
class Craft:
    """Exactly one of `ingredients` and `alternative` is set (spec 5.2 item 4)."""

    unit: int
    object: str
    ingredients: ItemMap | None
    alternative: int | None


@dataclass(frozen=True, slots=True)
class Sell:
    unit: int
    object: str
    quantity: int


@dataclass(frozen=True, slots=True)
class Buy:
    unit: int
    blueprint: str


@dataclass(frozen=True, slots=True)
class BuildTower:
    unit: int


@dataclass(frozen=True, slots=True)
class EndTurn:
    pass


Action = Move | Dig | Scan | Pickup | Drop | Craft | Sell | Buy | BuildTower | EndTurn


class _Bad(Exception):
    """A field failed its shape check (internal: becomes an OperandError)."""


def _integer(payload: dict[str, Any], key: str) -> int:
    if key not in payload:
        raise _Bad(f"missing {key!r}")
    value = as_wire_int(payload[key])
    if value is None:
        raise _Bad(f"{key!r} is not an integer")
    return value


def _quantity(value: Any, where: str, max_quantity: int) -> int:
    quantity = as_wire_int(value)
    if quantity is None:
        raise _Bad(f"{where} is not an integer")
    if not 1 <= quantity <= max_quantity:
        raise _Bad(f"{where} is {quantity}, outside 1..{max_quantity}")
    return quantity


def _item_map(payload: dict[str, Any], key: str, max_quantity: int) -> ItemMap:
    value = payload.get(key)
    if not isinstance(value, dict) or not value:
        raise _Bad(f"{key!r} must be a non-empty object")
    items: ItemMap = {}
    for item, amount in value.items():
        if item not in _ITEMS:
            raise _Bad(f"{key!r} has the unknown id {str(item)[:20]!r}")
        items[item] = _quantity(amount, f"{key}[{item}]", max_quantity)
    return items


def _object_id(payload: dict[str, Any], key: str) -> str:
    value = payload.get(key)
    if type(value) is not str or value not in _OBJECTS:
        raise _Bad(f"{key!r} must be one of O1..O12")
    return value


def _craft(payload: dict[str, Any], unit: int, max_quantity: int) -> Craft:
    obj = _object_id(payload, "object")
    has_ingredients, has_alternative = "ingredients" in payload, "alternative" in payload
    if has_ingredients == has_alternative:
        raise _Bad("craft needs exactly one of 'ingredients' and 'alternative'")
    if has_ingredients:
        return Craft(unit, obj, _item_map(payload, "ingredients", max_quantity), None)
    alternative = _integer(payload, "alternative")
    if alternative < 0:
        raise _Bad("'alternative' must be >= 0")
    return Craft(unit, obj, None, alternative)


def _fields(name: str, payload: dict[str, Any], unit: int, max_quantity: int) -> Action:
    """Spec 5.2 item 4 for the action `name` of `unit`."""
    if name == "move":
        return Move(unit, _integer(payload, "x"), _integer(payload, "y"))
    if name == "dig":
        return Dig(unit)
    if name == "scan":
        return Scan(unit)
    if name == "pickup":
        return Pickup(unit, _item_map(payload, "items", max_quantity))
    if name == "drop":
        return Drop(unit, _item_map(payload, "items", max_quantity))
    if name == "craft":
        return _craft(payload, unit, max_quantity)
    if name == "sell":
        return Sell(
            unit,
            _object_id(payload, "object"),
            _quantity(payload.get("quantity"), "'quantity'", max_quantity),
        )
    if name == "buy":
        return Buy(unit, _object_id(payload, "blueprint"))
    return BuildTower(unit)


_COMMON_KEYS = frozenset({"action", "unit", "error"})
ACTION_KEYS: dict[str, frozenset[str]] = {
    name: _COMMON_KEYS | frozenset(extra)
    for name, extra in {
        "move": ("x", "y"),
        "dig": (),
        "scan": (),
        "pickup": ("items",),
        "drop": ("items",),
        "craft": ("object", "ingredients", "alternative"),
        "sell": ("object", "quantity"),
        "buy": ("blueprint",),
        "build_tower": (),
        "end_turn": (),
    }.items()
}
"""The keys each action reads (spec 5.2); any other is ignored with an UNKNOWN_KEY warning."""


def unknown_action_keys(payload: Any) -> list[Warning]:
    """UNKNOWN_KEY warnings for the keys of an action that its kind does not read."""
    if not isinstance(payload, dict):
        return []
    known = ACTION_KEYS.get(payload.get("action"))  # type: ignore[arg-type]
    return [] if known is None else unknown_key_warnings(payload, known)


def parse_action(payload: Any, player: int, max_quantity: int) -> Action | ActionError:
    """Spec 5.2: the typed action of `player`'s answer, or the first shape failure."""
    if not isinstance(payload, dict):
        return ActionError("OperandError", "the request is not a JSON object")
    name = payload.get("action")
    if type(name) is not str:
        return ActionError("OperandError", "'action' is missing or not a string")
    if name not in _KNOWN:
        return ActionError("UnknownError", f"unknown action {name[:40]!r}", own_unit(payload, player))
    if name == "end_turn":
        return EndTurn()
    unit = own_unit(payload, player)
    if unit is None:
        return ActionError("OperandError", f"'unit' is not the id of one of player {player}'s units")
    try:
        return _fields(name, payload, unit, max_quantity)
    except _Bad as bad:
        return ActionError("OperandError", str(bad), unit)


def own_unit(payload: Any, player: int) -> int | None:
    """The request's `unit` if it is an integer id of one of `player`'s units (spec 5.2 item 3)."""
    if not isinstance(payload, dict):
        return None
    unit = as_wire_int(payload.get("unit"))
    return unit if unit is not None and unit in player_unit_ids(player) else None
