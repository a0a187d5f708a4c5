"""The move factory (spec 7.3): snake_case equivalents of the course's Java `MoveFactory`, the enums,
the DV-5 move table and the DV-2 neighbour order, so bots can check a move before sending it."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from botarena.games.devops.state import NEIGHBOUR_OFFSETS


class UnitType(StrEnum):
    PIONEER = "PIONEER"
    WORKER = "WORKER"
    FIGHTER = "FIGHTER"
    CLERIC = "CLERIC"
    SAPPER = "SAPPER"


class UnitMoveType(StrEnum):
    TRAVEL = "TRAVEL"
    CONQUER_NEUTRAL_TILE = "CONQUER_NEUTRAL_TILE"
    NEUTRALIZE_ENEMY_TILE = "NEUTRALIZE_ENEMY_TILE"
    GENERATE_GOLD = "GENERATE_GOLD"
    ATTACK = "ATTACK"
    PREPARE_DEFENSE = "PREPARE_DEFENSE"
    FORTIFY = "FORTIFY"
    PRAY = "PRAY"
    HEAL = "HEAL"
    CONVERT = "CONVERT"
    DEPLOY_BOMB = "DEPLOY_BOMB"
    CLEAR_BOMB = "CLEAR_BOMB"
    RETIRE = "RETIRE"
    IDLE = "IDLE"


class BaseMoveType(StrEnum):
    RECEIVE_INCOME = "RECEIVE_INCOME"
    BUILD_UNIT = "BUILD_UNIT"
    CONTINUE_BUILDING_UNIT = "CONTINUE_BUILDING_UNIT"
    MANUFACTURE_BOMB = "MANUFACTURE_BOMB"
    MOVE_BASE = "MOVE_BASE"
    IDLE = "IDLE"


class BonusType(StrEnum):
    EXTRA_GOLD = "EXTRA_GOLD"
    INCOME_MULTIPLIER = "INCOME_MULTIPLIER"
    CHEAPER_UNITS = "CHEAPER_UNITS"
    RUSH_ATTACK = "RUSH_ATTACK"


_ALL = ("TRAVEL", "RETIRE", "IDLE")
MOVES_BY_UNIT_TYPE: dict[str, frozenset[str]] = {
    "PIONEER": frozenset({*_ALL, "CONQUER_NEUTRAL_TILE", "NEUTRALIZE_ENEMY_TILE", "GENERATE_GOLD", "ATTACK"}),
    "WORKER": frozenset({*_ALL, "CONQUER_NEUTRAL_TILE", "GENERATE_GOLD", "FORTIFY"}),
    "FIGHTER": frozenset(
        {*_ALL, "CONQUER_NEUTRAL_TILE", "NEUTRALIZE_ENEMY_TILE", "ATTACK", "PREPARE_DEFENSE"}
    ),
    "CLERIC": frozenset({*_ALL, "ATTACK", "PRAY", "HEAL", "CONVERT"}),
    "SAPPER": frozenset({*_ALL, "ATTACK", "PREPARE_DEFENSE", "DEPLOY_BOMB", "CLEAR_BOMB"}),
}
"""DV-5: the moves each unit type may make."""

NEIGHBOUR_ORDER = NEIGHBOUR_OFFSETS
# The seed's MANUFACTURE_BOMB price, for bots whose input has no `context.bombCost` (the course's
# 2024-25 GameContext, spec 4 and deviation 19, has none)
SEED_BOMB_COST = 500
"""DV-2: (dx, dy) of the 8 neighbours, in the order `neighbouringLocations` lists them."""


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
