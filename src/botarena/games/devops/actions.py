"""Parse and validate replies into typed moves (spec 5.1 tolerant parsing, 5.2 statuses).

A parsed move is a tuple: `(type,)`, `(type, unitType)`, `(type, x, y)` or `(type, unitId)`.
`judge_*` return `(move, status, reason)`; a move is None unless the status is OK.
"""

from __future__ import annotations

from typing import Any

from botarena.core.numbers import as_wire_int
from botarena.core.status import Status
from botarena.games.devops.config import UNIT_TYPES
from botarena.games.devops.moves import MOVES_BY_UNIT_TYPE, UnitMoveType

Move = tuple[Any, ...]
Judged = tuple[Move | None, Status, str | None]

BASE_TYPES = frozenset(
    {"RECEIVE_INCOME", "BUILD_UNIT", "START_BUILDING_UNIT", "CONTINUE_BUILDING_UNIT", "MANUFACTURE_BOMB"}
    | {"MOVE_BASE", "IDLE"}
)
UNIT_MOVE_NAMES = frozenset(m.value for m in UnitMoveType)
TARGET_UNIT_MOVES = frozenset({"ATTACK", "HEAL", "CONVERT"})

BAD_JSON = "bad_json"
BAD_TYPE = "bad_type"
TYPE_NOT_ALLOWED = "type_not_allowed"
BAD_PARAMETER = "bad_parameter"
UNAFFORDABLE = "unaffordable"
IDLE_BASE: Move = ("IDLE",)


def _location(value: Any, width: int, height: int) -> tuple[int, int] | None:
    """A target given as {x, y} (a full Location is read by x/y only), inside the map."""
    if not isinstance(value, dict):
        return None
    x, y = as_wire_int(value.get("x")), as_wire_int(value.get("y"))
    if x is None or y is None or not (0 <= x < width and 0 <= y < height):
        return None
    return x, y


def _unit_id(value: Any) -> int | None:
    if not isinstance(value, dict):
        return None
    return as_wire_int(value.get("id"))


def judge_base(
    payload: Any, gold: int, unit_cost: dict[str, int], bomb_cost: int, width: int, height: int
) -> Judged:
    """Spec 5.2 for a base-move reply, against the input's gold and costs (DV-19)."""
    if not isinstance(payload, dict):
        return None, Status.INVALID, BAD_JSON
    kind = payload.get("type")
    if type(kind) is not str or kind not in BASE_TYPES:
        return None, Status.INVALID, BAD_TYPE
    if kind in ("BUILD_UNIT", "START_BUILDING_UNIT"):
        unit = payload.get("unitToBuild")
        if type(unit) is not str or unit not in UNIT_TYPES:
            return None, Status.INVALID, BAD_PARAMETER
        if unit_cost[unit] > gold:
            return None, Status.INVALID, UNAFFORDABLE
        return ("BUILD_UNIT", unit), Status.OK, None
    if kind == "MOVE_BASE":
        target = _location(payload.get("baseLocation"), width, height)
        if target is None:
            return None, Status.INVALID, BAD_PARAMETER
        return ("MOVE_BASE", *target), Status.OK, None
    if kind == "MANUFACTURE_BOMB" and bomb_cost > gold:
        return None, Status.INVALID, UNAFFORDABLE
    return (kind,), Status.OK, None


def judge_unit(
    payload: Any, unit_type: str, gold: int, move_cost: dict[str, int], width: int, height: int
) -> Judged:
    """Spec 5.2 for a unit-move reply of a unit of `unit_type`, against the input's gold (DV-19)."""
    if not isinstance(payload, dict):
        return None, Status.INVALID, BAD_JSON
    kind = payload.get("type")
    if type(kind) is not str or kind not in UNIT_MOVE_NAMES:
        return None, Status.INVALID, BAD_TYPE
    if kind not in MOVES_BY_UNIT_TYPE[unit_type]:
        return None, Status.INVALID, TYPE_NOT_ALLOWED
    move: Move
    if kind == "TRAVEL":
        target = _location(payload.get("targetLocation"), width, height)
        if target is None:
            return None, Status.INVALID, BAD_PARAMETER
        move = ("TRAVEL", *target)
    elif kind in TARGET_UNIT_MOVES:
        unit_id = _unit_id(payload.get("targetUnit"))
        if unit_id is None:
            return None, Status.INVALID, BAD_PARAMETER
        move = (kind, unit_id)
    else:
        move = (kind,)
    if move_cost.get(kind, 0) > gold:
        return None, Status.INVALID, UNAFFORDABLE
    return move, Status.OK, None


def move_json(move: Move | None) -> dict[str, Any] | None:
    """The replay form of a parsed move."""
    if move is None:
        return None
    kind = move[0]
    if len(move) == 1:
        return {"type": kind}
    if kind == "BUILD_UNIT":
        return {"type": kind, "unitToBuild": move[1]}
    if kind == "MOVE_BASE":
        return {"type": kind, "baseLocation": {"x": move[1], "y": move[2]}}
    if kind == "TRAVEL":
        return {"type": kind, "targetLocation": {"x": move[1], "y": move[2]}}
    return {"type": kind, "targetUnit": {"id": move[1]}}
