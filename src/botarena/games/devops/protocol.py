"""The Devops course's native JSON calls: the move factory of spec 7.3, snake_case equivalents of the
course's Java `MoveFactory`. Each builds the JSON body of a move exactly as the course's services send
it (`POST /moves/base`, `POST /moves/unit`), which is what a `FactionLogic` returns; the typed moves
the engine plays are `actions.BaseMove` and `actions.UnitMove`."""

from __future__ import annotations

from typing import Any

# Spec 7.3: the module also exports the enums, the DV-5 move table and the DV-2 neighbour order, so
# bots can check a move before sending it
from botarena.games.devops.actions import (
    MOVES_BY_UNIT_TYPE,
    BaseMoveType,
    BonusType,
    UnitMoveType,
    UnitType,
)
from botarena.games.devops.state import NEIGHBOUR_OFFSETS as NEIGHBOUR_ORDER

# The seed's MANUFACTURE_BOMB price, for bots whose input has no `context.bombCost` (the course's
# 2024-25 GameContext, spec 4 and deviation 19, has none)
SEED_BOMB_COST = 500


def _xy(location: Any) -> dict[str, int]:
    if isinstance(location, dict):
        return {"x": location["x"], "y": location["y"]}
    x, y = location
    return {"x": x, "y": y}


def _id(unit: Any) -> dict[str, int]:
    return {"id": unit["id"] if isinstance(unit, dict) else int(unit)}


def base_receive_income() -> dict[str, Any]:
    return {"type": "RECEIVE_INCOME"}


def base_build_unit(unit_type: str) -> dict[str, Any]:
    return {"type": "BUILD_UNIT", "unitToBuild": str(unit_type)}


def base_continue_building() -> dict[str, Any]:
    return {"type": "CONTINUE_BUILDING_UNIT"}


def base_manufacture_bomb() -> dict[str, Any]:
    return {"type": "MANUFACTURE_BOMB"}


def base_relocate(location: Any) -> dict[str, Any]:
    return {"type": "MOVE_BASE", "baseLocation": _xy(location)}


def base_idle() -> dict[str, Any]:
    return {"type": "IDLE"}


def unit_travel_to(location: Any) -> dict[str, Any]:
    return {"type": "TRAVEL", "targetLocation": _xy(location)}


def unit_conquer_location() -> dict[str, Any]:
    return {"type": "CONQUER_NEUTRAL_TILE"}


def unit_neutralize_location() -> dict[str, Any]:
    return {"type": "NEUTRALIZE_ENEMY_TILE"}


def unit_generate_gold() -> dict[str, Any]:
    return {"type": "GENERATE_GOLD"}


def unit_fortify_location() -> dict[str, Any]:
    return {"type": "FORTIFY"}


def unit_prepare_defense() -> dict[str, Any]:
    return {"type": "PREPARE_DEFENSE"}


def unit_attack(unit: Any) -> dict[str, Any]:
    return {"type": "ATTACK", "targetUnit": _id(unit)}


def unit_heal(unit: Any) -> dict[str, Any]:
    return {"type": "HEAL", "targetUnit": _id(unit)}


def unit_convert(unit: Any) -> dict[str, Any]:
    return {"type": "CONVERT", "targetUnit": _id(unit)}


def unit_pray() -> dict[str, Any]:
    return {"type": "PRAY"}


def unit_deploy_bomb() -> dict[str, Any]:
    return {"type": "DEPLOY_BOMB"}


def unit_clear_bomb() -> dict[str, Any]:
    return {"type": "CLEAR_BOMB"}


def unit_retire() -> dict[str, Any]:
    return {"type": "RETIRE"}


def unit_idle() -> dict[str, Any]:
    return {"type": "IDLE"}


__all__ = [
    "MOVES_BY_UNIT_TYPE",
    "NEIGHBOUR_ORDER",
    "SEED_BOMB_COST",
    "BaseMoveType",
    "BonusType",
    "UnitMoveType",
    "UnitType",
    "base_build_unit",
    "base_continue_building",
    "base_idle",
    "base_manufacture_bomb",
    "base_receive_income",
    "base_relocate",
    "unit_attack",
    "unit_clear_bomb",
    "unit_convert",
    "unit_deploy_bomb",
    "unit_fortify_location",
    "unit_generate_gold",
    "unit_heal",
    "unit_idle",
    "unit_neutralize_location",
    "unit_pray",
    "unit_prepare_defense",
    "unit_retire",
    "unit_travel_to",
]
