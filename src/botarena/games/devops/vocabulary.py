"""The Devops Game's words, once: unit types, moves, bonuses, outcomes and the reasons a move is
ignored (spec 3, 5 and DV-5). State, config, rules and actions all speak these enums.

Every member is a `str` whose value is its wire spelling, so it compares and hashes as that string
(a config table keyed by plain strings answers for a member, a parsed reply's string finds its member)
and `str(member)` is the plain string the replay and the payloads carry.
"""

from __future__ import annotations

from enum import StrEnum


class _Word(StrEnum):
    """A member hashes as its value: the engine looks members up in dicts and sets on every call,
    Enum's own hash is Python code, str's is C, and a plain str key then finds the member."""

    __hash__ = str.__hash__


class UnitType(_Word):
    PIONEER = "PIONEER"
    WORKER = "WORKER"
    FIGHTER = "FIGHTER"
    CLERIC = "CLERIC"
    SAPPER = "SAPPER"


BASIC_TYPES = frozenset({UnitType.PIONEER, UnitType.WORKER, UnitType.FIGHTER})
"""The unit types scored as basic (spec 3.3); the others are special."""


class UnitMoveType(_Word):
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


class BaseMoveType(_Word):
    RECEIVE_INCOME = "RECEIVE_INCOME"
    BUILD_UNIT = "BUILD_UNIT"
    CONTINUE_BUILDING_UNIT = "CONTINUE_BUILDING_UNIT"
    MANUFACTURE_BOMB = "MANUFACTURE_BOMB"
    MOVE_BASE = "MOVE_BASE"
    IDLE = "IDLE"


class BonusType(_Word):
    EXTRA_GOLD = "EXTRA_GOLD"
    INCOME_MULTIPLIER = "INCOME_MULTIPLIER"
    CHEAPER_UNITS = "CHEAPER_UNITS"
    RUSH_ATTACK = "RUSH_ATTACK"


class OutcomeKind(_Word):
    """Spec 5.2: what became of an OK call's move (the record's `outcome`)."""

    APPLIED = "applied"
    IGNORED = "ignored"  # the rules refused it; the faction lost that move (its `outcomeReason` says why)
    SKIPPED = "skipped"  # DV-21: the unit was gone or no longer the faction's when its turn came


class IgnoreReason(_Word):
    """Spec 5.2: why the rules refused a move (the record's `outcomeReason`)."""

    SLOT_BUSY = "slot_busy"
    SLOT_EMPTY = "slot_empty"
    POPULATION_CAP = "population_cap"
    INSUFFICIENT_GOLD = "insufficient_gold"
    NOT_A_BASE = "not_a_base"
    NOT_OWN_TILE = "not_own_tile"
    SAME_BASE = "same_base"
    NOT_ADJACENT = "not_adjacent"
    TARGET_OCCUPIED = "target_occupied"
    NOT_NEUTRAL = "not_neutral"
    NOT_ENEMY_TILE = "not_enemy_tile"
    ALREADY_FORTIFIED = "already_fortified"
    FULL_HEALTH = "full_health"
    NOT_ENLIGHTENED = "not_enlightened"
    ALREADY_RIGGED = "already_rigged"
    NO_BOMBS = "no_bombs"
    NOT_RIGGED = "not_rigged"
    NO_TARGET = "no_target"
    TARGET_NOT_FRIENDLY = "target_not_friendly"
    TARGET_NOT_ENEMY = "target_not_enemy"
    UNIT_GONE = "unit_gone"


_ANY_UNIT = (UnitMoveType.TRAVEL, UnitMoveType.RETIRE, UnitMoveType.IDLE)
MOVES_BY_UNIT_TYPE: dict[UnitType, frozenset[UnitMoveType]] = {
    UnitType.PIONEER: frozenset(
        {
            *_ANY_UNIT,
            UnitMoveType.CONQUER_NEUTRAL_TILE,
            UnitMoveType.NEUTRALIZE_ENEMY_TILE,
            UnitMoveType.GENERATE_GOLD,
            UnitMoveType.ATTACK,
        }
    ),
    UnitType.WORKER: frozenset(
        {*_ANY_UNIT, UnitMoveType.CONQUER_NEUTRAL_TILE, UnitMoveType.GENERATE_GOLD, UnitMoveType.FORTIFY}
    ),
    UnitType.FIGHTER: frozenset(
        {
            *_ANY_UNIT,
            UnitMoveType.CONQUER_NEUTRAL_TILE,
            UnitMoveType.NEUTRALIZE_ENEMY_TILE,
            UnitMoveType.ATTACK,
            UnitMoveType.PREPARE_DEFENSE,
        }
    ),
    UnitType.CLERIC: frozenset(
        {*_ANY_UNIT, UnitMoveType.ATTACK, UnitMoveType.PRAY, UnitMoveType.HEAL, UnitMoveType.CONVERT}
    ),
    UnitType.SAPPER: frozenset(
        {
            *_ANY_UNIT,
            UnitMoveType.ATTACK,
            UnitMoveType.PREPARE_DEFENSE,
            UnitMoveType.DEPLOY_BOMB,
            UnitMoveType.CLEAR_BOMB,
        }
    ),
}
"""DV-5: the moves each unit type may make."""
