"""A faction's replies to typed moves (spec 5.1 tolerant parsing, 5.2 statuses), and back to JSON.

The move enums are the types of the actions: a base reply parses into a `BaseMove` carrying its
`BaseMoveType`, a unit reply into a `UnitMove` carrying its `UnitMoveType`. `judge_*` return
`(move, status, reason)`; a move is None unless the status is OK.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from botarena.core.numbers import as_wire_int
from botarena.core.protocol import Reply
from botarena.core.status import Reason, Status

# the move enums are the vocabulary's, re-exported here as the types of the actions
from botarena.games.devops.vocabulary import MOVES_BY_UNIT_TYPE as MOVES_BY_UNIT_TYPE
from botarena.games.devops.vocabulary import BaseMoveType as BaseMoveType
from botarena.games.devops.vocabulary import BonusType as BonusType
from botarena.games.devops.vocabulary import UnitMoveType as UnitMoveType
from botarena.games.devops.vocabulary import UnitType as UnitType


class BaseMove(NamedTuple):
    """A parsed base move: `unit_type` for BUILD_UNIT, `target` (x, y) for MOVE_BASE."""

    type: BaseMoveType
    unit_type: UnitType | None = None
    target: tuple[int, int] | None = None


class UnitMove(NamedTuple):
    """A parsed unit move: `target` (x, y) for TRAVEL, `target_unit` for ATTACK, HEAL and CONVERT."""

    type: UnitMoveType
    target: tuple[int, int] | None = None
    target_unit: int | None = None


Move = BaseMove | UnitMove
Judged = tuple[Move | None, Status, str | None]

# the accepted spellings of a base move's type; START_BUILDING_UNIT is the original's alias (DV-25)
BASE_TYPES: dict[str, BaseMoveType] = {t.value: t for t in BaseMoveType}
BASE_TYPES["START_BUILDING_UNIT"] = BaseMoveType.BUILD_UNIT
UNIT_MOVE_BY_NAME: dict[str, UnitMoveType] = {t.value: t for t in UnitMoveType}
UNIT_TYPE_BY_NAME: dict[str, UnitType] = {t.value: t for t in UnitType}
TARGET_UNIT_MOVES = frozenset({UnitMoveType.ATTACK, UnitMoveType.HEAL, UnitMoveType.CONVERT})
# the moves without a parameter, made once: a turn parses a hundred moves and more
PLAIN_BASE_MOVES: dict[BaseMoveType, BaseMove] = {t: BaseMove(t) for t in BaseMoveType}
PLAIN_UNIT_MOVES: dict[UnitMoveType, UnitMove] = {t: UnitMove(t) for t in UnitMoveType}
IDLE_BASE = PLAIN_BASE_MOVES[BaseMoveType.IDLE]
IDLE_UNIT = PLAIN_UNIT_MOVES[UnitMoveType.IDLE]
# members compared on every call, as plain globals: an Enum class attribute costs ten times more
_BUILD_UNIT, _MOVE_BASE = BaseMoveType.BUILD_UNIT, BaseMoveType.MOVE_BASE
_MANUFACTURE_BOMB, _TRAVEL = BaseMoveType.MANUFACTURE_BOMB, UnitMoveType.TRAVEL

BAD_JSON = "bad_json"
BAD_TYPE = "bad_type"
TYPE_NOT_ALLOWED = "type_not_allowed"
BAD_PARAMETER = "bad_parameter"
UNAFFORDABLE = "unaffordable"
TURN_BUDGET = "turn_budget"
TRANSPORT = "transport"
EXCEPTION = "exception"
HTTP_STATUS = "http_status"


def transport_reason(reply: Reply) -> str:
    """Spec 5.2: the reason code of a failed call, from the transport's view of it."""
    status, reason = reply.status, reply.reason
    if status is Status.TIMEOUT:
        return TURN_BUDGET if reason == TURN_BUDGET else Reason.DEADLINE
    if status is Status.CRASHED:
        if reason in (Reason.BOT_ERROR, EXCEPTION):
            return EXCEPTION
        if reason == HTTP_STATUS:
            return HTTP_STATUS
        return TRANSPORT
    return BAD_JSON


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


BASE_MOVE_KEYS = frozenset({"type", "unitToBuild", "baseLocation"})
"""A BaseMove's keys (spec 7.1); any other is ignored with an UNKNOWN_KEY warning."""
UNIT_MOVE_KEYS = frozenset({"type", "targetLocation", "targetUnit"})
"""A UnitMove's keys (spec 7.1)."""


def judge_base(
    payload: Any, gold: int, unit_cost: dict[str, int], bomb_cost: int, width: int, height: int
) -> Judged:
    """Spec 5.2 for a base-move reply, against the input's gold and costs (DV-19)."""
    if not isinstance(payload, dict):
        return None, Status.INVALID, BAD_JSON
    name = payload.get("type")
    kind = BASE_TYPES.get(name) if type(name) is str else None
    if kind is None:
        return None, Status.INVALID, BAD_TYPE
    if kind is _BUILD_UNIT:
        unit = payload.get("unitToBuild")
        unit_type = UNIT_TYPE_BY_NAME.get(unit) if type(unit) is str else None
        if unit_type is None:
            return None, Status.INVALID, BAD_PARAMETER
        if unit_cost[unit_type] > gold:
            return None, Status.INVALID, UNAFFORDABLE
        return BaseMove(kind, unit_type=unit_type), Status.OK, None
    if kind is _MOVE_BASE:
        target = _location(payload.get("baseLocation"), width, height)
        if target is None:
            return None, Status.INVALID, BAD_PARAMETER
        return BaseMove(kind, target=target), Status.OK, None
    if kind is _MANUFACTURE_BOMB and bomb_cost > gold:
        return None, Status.INVALID, UNAFFORDABLE
    return PLAIN_BASE_MOVES[kind], Status.OK, None


def judge_unit(
    payload: Any, unit_type: UnitType, gold: int, move_cost: dict[str, int], width: int, height: int
) -> Judged:
    """Spec 5.2 for a unit-move reply of a unit of `unit_type`, against the input's gold (DV-19)."""
    if not isinstance(payload, dict):
        return None, Status.INVALID, BAD_JSON
    name = payload.get("type")
    kind = UNIT_MOVE_BY_NAME.get(name) if type(name) is str else None
    if kind is None:
        return None, Status.INVALID, BAD_TYPE
    if kind not in MOVES_BY_UNIT_TYPE[unit_type]:
        return None, Status.INVALID, TYPE_NOT_ALLOWED
    if kind is _TRAVEL:
        target = _location(payload.get("targetLocation"), width, height)
        if target is None:
            return None, Status.INVALID, BAD_PARAMETER
        move = UnitMove(kind, target)
    elif kind in TARGET_UNIT_MOVES:
        unit_id = _unit_id(payload.get("targetUnit"))
        if unit_id is None:
            return None, Status.INVALID, BAD_PARAMETER
        move = UnitMove(kind, None, unit_id)
    else:
        move = PLAIN_UNIT_MOVES[kind]
    if move_cost.get(kind, 0) > gold:
        return None, Status.INVALID, UNAFFORDABLE
    return move, Status.OK, None


def move_json(move: Move | None) -> dict[str, Any] | None:
    """The replay form of a parsed move."""
    if move is None:
        return None
    kind = move.type.value
    if isinstance(move, BaseMove):
        if move.unit_type is not None:
            return {"type": kind, "unitToBuild": move.unit_type.value}
        if move.target is not None:
            return {"type": kind, "baseLocation": {"x": move.target[0], "y": move.target[1]}}
        return {"type": kind}
    if move.target is not None:
        return {"type": kind, "targetLocation": {"x": move.target[0], "y": move.target[1]}}
    if move.target_unit is not None:
        return {"type": kind, "targetUnit": {"id": move.target_unit}}
    return {"type": kind}
