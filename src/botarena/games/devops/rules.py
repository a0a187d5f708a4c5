"""The Devops Game's rules (spec section 3) as named phases over a `GameState`, in the spec's order:
`setup` (DV-6 .. DV-12), then per turn `start_turn` (DV-13, DV-14), `activate_bonuses` (DV-20),
`penalise` (DV-18), `resolve` (DV-21 .. DV-48, one function per base and unit move) and `end_turn`
(DV-49 .. DV-51), and `ranking` (section 6). Pure and deterministic: randomness comes only from the
named streams of DV-4 handed in; requests, replies and payloads belong to `engine.py`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from botarena.core.config import ConfigError
from botarena.core.status import Status
from botarena.games.devops.actions import BaseMove, UnitMove
from botarena.games.devops.config import DevopsConfig
from botarena.games.devops.observe import effective_unit_cost, population_cap
from botarena.games.devops.state import Board, Faction, GameState, Unit
from botarena.games.devops.vocabulary import (
    BASIC_TYPES,
    BaseMoveType,
    BonusType,
    IgnoreReason,
    OutcomeKind,
    UnitMoveType,
    UnitType,
)

Events = list[dict[str, Any]]
Outcome = tuple[OutcomeKind, IgnoreReason | None]
APPLIED: Outcome = (OutcomeKind.APPLIED, None)
IGNORED = OutcomeKind.IGNORED
START_OFFSETS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1))  # DV-11


# -- DV-4: the random streams' draws ---------------------------------------------------------------
def draw_int(g: np.random.Generator, a: int, b: int) -> int:
    """DV-4 "integer in [a, b]"."""
    return a if a == b else int(g.integers(a, b + 1))


def shuffled(g: np.random.Generator, items: list[Any]) -> list[Any]:
    """DV-4 "shuffle L"."""
    if len(items) <= 1:
        return list(items)
    return [items[i] for i in g.permutation(len(items))]


# -- setup (DV-6 .. DV-12) -------------------------------------------------------------------------
def base_positions(n: int, width: int, height: int, ox: int, oy: int) -> list[tuple[int, int]]:
    """DV-7: P_0 .. P_{N-1}."""
    rows = max(1, min(n, math.floor(math.sqrt(n * height / width) + 0.5)))
    positions = []
    for r in range(rows):
        n_r = n // rows + (1 if r < n % rows else 0)
        y = (oy + ((2 * r + 1) * height) // (2 * rows)) % height
        for i in range(n_r):
            x = (ox + ((2 * i + 1 + (r % 2)) * width) // (2 * n_r)) % width
            positions.append((x, y))
    return positions


def setup(c: DevopsConfig, n: int, g: np.random.Generator) -> GameState:
    """DV-6 .. DV-12: the first state of a game of `n` factions, drawn from the setup stream `g`."""
    if c.map_width_min * c.map_height_min < c.min_tiles_per_faction * n:
        raise ConfigError(
            f"map too small for {n} factions: map_width_min*map_height_min must be at least "
            f"min_tiles_per_faction*{n} = {c.min_tiles_per_faction * n}"
        )
    width = draw_int(g, c.map_width_min, c.map_width_max)
    height = draw_int(g, c.map_height_min, c.map_height_max)
    ox = draw_int(g, 0, width - 1)
    oy = draw_int(g, 0, height - 1)
    positions = base_positions(n, width, height, ox, oy)
    order = shuffled(g, list(range(1, n + 1)))  # DV-8
    factions = [
        Faction(i, f"faction-{i}", (0, 0), c.starting_gold, c.starting_bombs) for i in range(1, n + 1)
    ]
    state = GameState(Board(width, height), factions)
    for k, faction_id in enumerate(order):
        factions[faction_id - 1].base = positions[k]
    start_tiles = _starting_territory(state, c.start_territory_radius)
    _place_resources(state, c, start_tiles, g)
    _starting_units(state, c)
    return state


def _starting_territory(state: GameState, radius: int) -> set[int]:
    """DV-9: each base and the square of `radius` around it belong to its faction."""
    board, n = state.board, len(state.factions)
    start_tiles: set[int] = set()
    for faction in state.factions:
        bx, by = faction.base
        board.base[board.index(bx, by)] = 1
        mine = {
            board.index(bx + dx, by + dy)
            for dx in range(-radius, radius + 1)
            for dy in range(-radius, radius + 1)
        }
        if mine & start_tiles:
            raise ConfigError(f"map too small for {n} factions")
        start_tiles |= mine
        for tile in mine:
            state.set_owner(tile, faction.id)
    return start_tiles


def _place_resources(
    state: GameState, c: DevopsConfig, start_tiles: set[int], g: np.random.Generator
) -> None:
    """DV-10: resources on tiles outside the starting territories, candidates row by row."""
    board = state.board
    size = board.width * board.height
    candidates = [t for t in range(size) if t not in start_tiles]
    k = min(len(candidates), math.floor(c.resource_density * size + 0.5))
    if k == len(candidates):
        chosen = candidates
    elif k > 0:
        chosen = [candidates[int(i)] for i in g.choice(len(candidates), size=k, replace=False)]
    else:
        chosen = []
    for tile in chosen:
        board.resource[tile] = 1


def _starting_units(state: GameState, c: DevopsConfig) -> None:
    """DV-11: each faction's `starting_units` around its base, in the offsets' order."""
    board, n = state.board, len(state.factions)
    for faction in state.factions:
        bx, by = faction.base
        for j, unit_type in enumerate(c.starting_units):
            dx, dy = START_OFFSETS[j]
            x, y = (bx + dx) % board.width, (by + dy) % board.height
            if board.index(x, y) in board.unit_at:
                raise ConfigError(f"map too small for {n} factions: starting units collide")
            state.add_unit(
                faction.id, UnitType(unit_type), x, y, c.unit_base_health[unit_type], c.unit_upkeep[unit_type]
            )


# -- turn start (DV-13, DV-14) ---------------------------------------------------------------------
def start_turn(state: GameState, c: DevopsConfig) -> None:
    """DV-13 bonus expiry, then DV-14 upkeep, for the undefeated factions of the turn just begun."""
    t = state.turn
    alive = [f for f in state.factions if not f.defeated]
    for f in alive:  # DV-13
        for bonus in [b for b, last in f.bonuses.items() if last < t]:
            del f.bonuses[bonus]
    for f in alive:  # DV-14
        if f.upkeep > 0:
            if f.gold >= f.upkeep:
                f.gold -= f.upkeep
            else:
                f.gold = 0
                f.score -= c.penalty_upkeep


# -- gather phase (DV-18, DV-20) -------------------------------------------------------------------
def penalise(f: Faction, c: DevopsConfig, status: Status, invalid_move: bool) -> None:
    """DV-18: a failed call costs its faction `penalty_timeout`, `penalty_invalid` or `penalty_error`."""
    if status is Status.TIMEOUT:
        f.timeouts += 1
        f.score -= c.penalty_timeout
    else:
        f.errors += 1
        f.score -= c.penalty_invalid if invalid_move else c.penalty_error


def activate_bonuses(f: Faction, c: DevopsConfig, t: int, events: Events) -> None:
    """DV-20: the faction's accepted redemptions take effect (after its base call, before its units')."""
    if not c.bonus_codes_enabled or not f.queued:
        f.queued = []
        return
    for code in f.queued:
        kind = code["type"]
        if t > code["validUntilTurn"]:
            events.append({"event": "bonus_expired", "faction": f.id, "type": kind})
            continue
        duration = 1 if kind == BonusType.EXTRA_GOLD else c.bonus_duration_turns
        f.bonuses[kind] = max(f.bonuses.get(kind, 0), t + duration - 1)
        if kind == BonusType.EXTRA_GOLD:
            f.extra_gold_pending = True
        events.append({"event": "bonus_activated", "faction": f.id, "type": kind})
    f.queued = []


# -- resolution (DV-22, DV-23) ---------------------------------------------------------------------
def resolve(
    state: GameState,
    c: DevopsConfig,
    order: list[int],
    base_moves: dict[int, tuple[int, BaseMove]],
    unit_moves: dict[int, list[tuple[int, UnitMove, int]]],
    order_rng: np.random.Generator,
    events: Events,
) -> dict[int, Outcome]:
    """DV-23, faction by faction in the DV-22 `order`: (a) EXTRA_GOLD, (b) the base move `(call index,
    move)`, (c) the unit moves `(unit id, move, call index)` shuffled, (d) applied. Returns each call
    index's outcome."""
    outcomes: dict[int, Outcome] = {}
    for faction_id in order:
        f = state.faction(faction_id)
        if f.extra_gold_pending:  # (a)
            f.extra_gold_pending = False
            f.gold += c.bonus_extra_gold
            events.append({"event": "extra_gold", "faction": faction_id, "gold": c.bonus_extra_gold})
        base_index, base = base_moves[faction_id]
        outcomes[base_index] = apply_base_move(state, c, f, base, events)  # (b)
        for unit_id, move, index in shuffled(order_rng, unit_moves.get(faction_id, [])):  # (c), (d)
            outcomes[index] = apply_unit_move(state, c, f, unit_id, move, events)
    return outcomes


# -- base moves (DV-24 .. DV-30) -------------------------------------------------------------------
BaseRule = Callable[[GameState, DevopsConfig, Faction, BaseMove, Events], Outcome]


def income_factor(c: DevopsConfig, f: Faction) -> int:
    """DV-24's m: `bonus_income_multiplier` while INCOME_MULTIPLIER is active, else 1."""
    return c.bonus_income_multiplier if BonusType.INCOME_MULTIPLIER in f.bonuses else 1


def receive_income(state: GameState, c: DevopsConfig, f: Faction, move: BaseMove, events: Events) -> Outcome:
    """DV-24."""
    f.gold += c.receive_income_gold * income_factor(c, f)
    return APPLIED


def build_unit(state: GameState, c: DevopsConfig, f: Faction, move: BaseMove, events: Events) -> Outcome:
    """DV-25."""
    assert move.unit_type is not None
    unit_type = move.unit_type
    cost = effective_unit_cost(c, f, unit_type)
    if f.slot is not None:
        return IGNORED, IgnoreReason.SLOT_BUSY
    if f.population >= population_cap(c, f):
        return IGNORED, IgnoreReason.POPULATION_CAP
    if f.gold < cost:
        return IGNORED, IgnoreReason.INSUFFICIENT_GOLD
    f.gold -= cost
    f.slot = [unit_type, c.unit_build_turns[unit_type] - 1]
    if f.slot[1] == 0:
        spawn(state, c, f, events)
    return APPLIED


def continue_building(
    state: GameState, c: DevopsConfig, f: Faction, move: BaseMove, events: Events
) -> Outcome:
    """DV-26."""
    if f.slot is None:
        return IGNORED, IgnoreReason.SLOT_EMPTY
    if f.slot[1] > 0:
        f.slot[1] -= 1
    if f.slot[1] == 0:
        spawn(state, c, f, events)
    return APPLIED


def spawn(state: GameState, c: DevopsConfig, f: Faction, events: Events) -> None:
    """DV-27: the finished unit appears on a free base tile, or waits in the slot."""
    assert f.slot is not None
    bx, by = f.base
    if state.board.index(bx, by) in state.board.unit_at:
        return
    unit_type = f.slot[0]
    unit = state.add_unit(f.id, unit_type, bx, by, c.unit_base_health[unit_type], c.unit_upkeep[unit_type])
    f.slot = None
    f.score += c.score_create_basic if unit_type in BASIC_TYPES else c.score_create_special
    events.append(
        {"event": "spawn", "faction": f.id, "unit": unit.id, "type": unit_type.value, "x": bx, "y": by}
    )


def manufacture_bomb(
    state: GameState, c: DevopsConfig, f: Faction, move: BaseMove, events: Events
) -> Outcome:
    """DV-28."""
    if f.gold < c.bomb_cost:
        return IGNORED, IgnoreReason.INSUFFICIENT_GOLD
    f.gold -= c.bomb_cost
    f.bombs += 1
    return APPLIED


def move_base(state: GameState, c: DevopsConfig, f: Faction, move: BaseMove, events: Events) -> Outcome:
    """DV-29."""
    assert move.target is not None
    x, y = move.target
    tile = state.board.index(x, y)
    if not state.board.base[tile]:
        return IGNORED, IgnoreReason.NOT_A_BASE
    if state.board.owner[tile] != f.id:
        return IGNORED, IgnoreReason.NOT_OWN_TILE
    if (x, y) == f.base:
        return IGNORED, IgnoreReason.SAME_BASE
    f.base = (x, y)
    f.slot = None
    events.append({"event": "base_moved", "faction": f.id, "x": x, "y": y})
    return APPLIED


def base_idle(state: GameState, c: DevopsConfig, f: Faction, move: BaseMove, events: Events) -> Outcome:
    """DV-30."""
    return APPLIED


BASE_RULES: dict[BaseMoveType, BaseRule] = {
    BaseMoveType.RECEIVE_INCOME: receive_income,
    BaseMoveType.BUILD_UNIT: build_unit,
    BaseMoveType.CONTINUE_BUILDING_UNIT: continue_building,
    BaseMoveType.MANUFACTURE_BOMB: manufacture_bomb,
    BaseMoveType.MOVE_BASE: move_base,
    BaseMoveType.IDLE: base_idle,
}


def apply_base_move(state: GameState, c: DevopsConfig, f: Faction, move: BaseMove, events: Events) -> Outcome:
    """DV-23 (b): the base move's rule."""
    return BASE_RULES[move.type](state, c, f, move, events)


# -- unit moves (DV-31 .. DV-48) -------------------------------------------------------------------
# Each rule takes (state, config, acting faction, acting unit, move, events); "tile" is the tile the
# unit stands on when the move is applied.
UnitRule = Callable[[GameState, DevopsConfig, Faction, Unit, UnitMove, Events], Outcome]
INSUFFICIENT_GOLD: Outcome = (OutcomeKind.IGNORED, IgnoreReason.INSUFFICIENT_GOLD)


def paid(c: DevopsConfig, f: Faction, kind: UnitMoveType) -> bool:
    """DV-48, after the move's own conditions: the move's gold, if the faction has it."""
    cost = c.move_cost(kind)
    if cost > 0:
        if f.gold < cost:
            return False
        f.gold -= cost
    return True


def find_target(
    state: GameState, unit: Unit, target_id: int | None, friendly: bool
) -> tuple[Unit | None, IgnoreReason | None]:
    """DV-36, DV-40, DV-41: a live target unit of the right side, adjacent to the actor."""
    target = state.units.get(target_id) if target_id is not None else None
    if target is None:
        return None, IgnoreReason.NO_TARGET
    if friendly and target.owner != unit.owner:
        return None, IgnoreReason.TARGET_NOT_FRIENDLY
    if not friendly and target.owner == unit.owner:
        return None, IgnoreReason.TARGET_NOT_ENEMY
    if state.board.distance(unit.x, unit.y, target.x, target.y) != 1:
        return None, IgnoreReason.NOT_ADJACENT
    return target, None


def travel(
    state: GameState, c: DevopsConfig, f: Faction, unit: Unit, move: UnitMove, events: Events
) -> Outcome:
    """DV-31, then DV-32."""
    assert move.target is not None
    x, y = move.target
    board = state.board
    if board.distance(unit.x, unit.y, x, y) != 1:
        return IGNORED, IgnoreReason.NOT_ADJACENT
    if board.index(x, y) in board.unit_at:
        return IGNORED, IgnoreReason.TARGET_OCCUPIED
    if not paid(c, f, move.type):
        return INSUFFICIENT_GOLD
    state.move_unit(unit, x, y)
    detonate(state, c, unit, events)
    return APPLIED


def detonate(state: GameState, c: DevopsConfig, unit: Unit, events: Events) -> None:
    """DV-32: a non-SAPPER stepping on another faction's bomb outside its own territory."""
    board = state.board
    tile = board.index(unit.x, unit.y)
    bomb_owner = board.bomb.get(tile)
    if bomb_owner is None or unit.type is UnitType.SAPPER or bomb_owner == unit.owner:
        return
    if board.owner[tile] == unit.owner:
        return
    state.remove_unit(unit, c.unit_upkeep[unit.type])
    del board.bomb[tile]
    state.dirty.add(tile)
    g = state.faction(bomb_owner)
    g.kills += 1
    g.score += c.score_kill
    events.append({"event": "detonation", "faction": bomb_owner, "unit": unit.id, "x": unit.x, "y": unit.y})


def conquer(
    state: GameState, c: DevopsConfig, f: Faction, unit: Unit, move: UnitMove, events: Events
) -> Outcome:
    """DV-33."""
    board = state.board
    tile = board.index(unit.x, unit.y)
    if board.owner[tile] != 0:
        return IGNORED, IgnoreReason.NOT_NEUTRAL
    if not paid(c, f, move.type):
        return INSUFFICIENT_GOLD
    state.set_owner(tile, f.id)
    f.score += c.score_conquer + (c.score_conquer_resource if board.resource[tile] else 0)
    return APPLIED


def neutralize(
    state: GameState, c: DevopsConfig, f: Faction, unit: Unit, move: UnitMove, events: Events
) -> Outcome:
    """DV-34 (and DV-20's RUSH_ATTACK)."""
    board = state.board
    tile = board.index(unit.x, unit.y)
    owner = board.owner[tile]
    if owner == 0 or owner == f.id:
        return IGNORED, IgnoreReason.NOT_ENEMY_TILE
    if not paid(c, f, move.type):
        return INSUFFICIENT_GOLD
    if board.fortified[tile]:
        board.fortified[tile] = 0
        state.dirty.add(tile)
    elif BonusType.RUSH_ATTACK in f.bonuses:
        state.set_owner(tile, f.id)
        f.score += c.score_neutralize + c.score_conquer
        f.score += c.score_conquer_resource if board.resource[tile] else 0
    else:
        state.set_owner(tile, 0)
        f.score += c.score_neutralize
    return APPLIED


def generate_gold(
    state: GameState, c: DevopsConfig, f: Faction, unit: Unit, move: UnitMove, events: Events
) -> Outcome:
    """DV-35."""
    board = state.board
    tile = board.index(unit.x, unit.y)
    if board.owner[tile] != f.id:
        return IGNORED, IgnoreReason.NOT_OWN_TILE
    if not paid(c, f, move.type):
        return INSUFFICIENT_GOLD
    gain = c.generated(unit.type)
    if unit.type is UnitType.WORKER and board.resource[tile]:
        gain *= c.worker_resource_multiplier
    f.gold += gain * income_factor(c, f)
    return APPLIED


def attack(
    state: GameState, c: DevopsConfig, f: Faction, unit: Unit, move: UnitMove, events: Events
) -> Outcome:
    """DV-36."""
    target, why = find_target(state, unit, move.target_unit, friendly=False)
    if target is None:
        return IGNORED, why
    if not paid(c, f, move.type):
        return INSUFFICIENT_GOLD
    if target.enlightened:
        target.enlightened = False
    else:
        damage = c.unit_damage[unit.type]
        if target.defense:
            damage //= c.defense_divisor
            target.defense = False
        target.health -= damage
    if target.health <= 0:
        state.remove_unit(target, c.unit_upkeep[target.type])
        f.kills += 1
        f.score += c.score_kill
        events.append({"event": "kill", "faction": f.id, "unit": target.id, "by": unit.id})
    return APPLIED


def prepare_defense(
    state: GameState, c: DevopsConfig, f: Faction, unit: Unit, move: UnitMove, events: Events
) -> Outcome:
    """DV-37."""
    if not paid(c, f, move.type):
        return INSUFFICIENT_GOLD
    unit.defense = True
    return APPLIED


def fortify(
    state: GameState, c: DevopsConfig, f: Faction, unit: Unit, move: UnitMove, events: Events
) -> Outcome:
    """DV-38."""
    board = state.board
    tile = board.index(unit.x, unit.y)
    if board.owner[tile] != f.id:
        return IGNORED, IgnoreReason.NOT_OWN_TILE
    if board.fortified[tile]:
        return IGNORED, IgnoreReason.ALREADY_FORTIFIED
    if not paid(c, f, move.type):
        return INSUFFICIENT_GOLD
    board.fortified[tile] = 1
    state.dirty.add(tile)
    f.score += c.score_fortify
    return APPLIED


def pray(
    state: GameState, c: DevopsConfig, f: Faction, unit: Unit, move: UnitMove, events: Events
) -> Outcome:
    """DV-39."""
    if not paid(c, f, move.type):
        return INSUFFICIENT_GOLD
    unit.enlightened = True
    return APPLIED


def heal(
    state: GameState, c: DevopsConfig, f: Faction, unit: Unit, move: UnitMove, events: Events
) -> Outcome:
    """DV-40."""
    target, why = find_target(state, unit, move.target_unit, friendly=True)
    if target is None:
        return IGNORED, why
    full = c.unit_base_health[target.type]
    if target.health >= full:
        return IGNORED, IgnoreReason.FULL_HEALTH
    if not paid(c, f, move.type):
        return INSUFFICIENT_GOLD
    target.health = min(full, target.health + c.heal_amount)
    f.score += c.score_heal
    return APPLIED


def convert(
    state: GameState, c: DevopsConfig, f: Faction, unit: Unit, move: UnitMove, events: Events
) -> Outcome:
    """DV-41."""
    if not unit.enlightened:
        return IGNORED, IgnoreReason.NOT_ENLIGHTENED
    target, why = find_target(state, unit, move.target_unit, friendly=False)
    if target is None:
        return IGNORED, why
    if f.population >= population_cap(c, f):
        return IGNORED, IgnoreReason.POPULATION_CAP
    if not paid(c, f, move.type):
        return INSUFFICIENT_GOLD
    old_owner = target.owner
    state.change_owner(target, f.id, c.unit_upkeep[target.type])
    target.defense = False
    target.enlightened = False
    unit.enlightened = False
    f.score += c.score_convert
    events.append({"event": "convert", "faction": f.id, "unit": target.id, "from": old_owner})
    return APPLIED


def deploy_bomb(
    state: GameState, c: DevopsConfig, f: Faction, unit: Unit, move: UnitMove, events: Events
) -> Outcome:
    """DV-42 (DV-46: the bomb stays when the tile changes hands)."""
    board = state.board
    tile = board.index(unit.x, unit.y)
    if board.owner[tile] != f.id:
        return IGNORED, IgnoreReason.NOT_OWN_TILE
    if tile in board.bomb:
        return IGNORED, IgnoreReason.ALREADY_RIGGED
    if f.bombs < 1:
        return IGNORED, IgnoreReason.NO_BOMBS
    if not paid(c, f, move.type):
        return INSUFFICIENT_GOLD
    f.bombs -= 1
    board.bomb[tile] = f.id
    state.dirty.add(tile)
    return APPLIED


def clear_bomb(
    state: GameState, c: DevopsConfig, f: Faction, unit: Unit, move: UnitMove, events: Events
) -> Outcome:
    """DV-43."""
    board = state.board
    tile = board.index(unit.x, unit.y)
    if tile not in board.bomb:
        return IGNORED, IgnoreReason.NOT_RIGGED
    if not paid(c, f, move.type):
        return INSUFFICIENT_GOLD
    bomb_owner = board.bomb.pop(tile)
    state.dirty.add(tile)
    if bomb_owner != f.id:
        f.score += c.score_defuse
    return APPLIED


def retire(
    state: GameState, c: DevopsConfig, f: Faction, unit: Unit, move: UnitMove, events: Events
) -> Outcome:
    """DV-44."""
    if not paid(c, f, move.type):
        return INSUFFICIENT_GOLD
    state.remove_unit(unit, c.unit_upkeep[unit.type])
    f.score -= c.score_create_basic if unit.type in BASIC_TYPES else c.score_create_special
    events.append({"event": "retire", "faction": f.id, "unit": unit.id})
    return APPLIED


def unit_idle(
    state: GameState, c: DevopsConfig, f: Faction, unit: Unit, move: UnitMove, events: Events
) -> Outcome:
    """DV-45 (a configured `unit_move_cost` for IDLE is still paid, DV-48)."""
    if not paid(c, f, move.type):
        return INSUFFICIENT_GOLD
    return APPLIED


UNIT_RULES: dict[UnitMoveType, UnitRule] = {
    UnitMoveType.TRAVEL: travel,
    UnitMoveType.CONQUER_NEUTRAL_TILE: conquer,
    UnitMoveType.NEUTRALIZE_ENEMY_TILE: neutralize,
    UnitMoveType.GENERATE_GOLD: generate_gold,
    UnitMoveType.ATTACK: attack,
    UnitMoveType.PREPARE_DEFENSE: prepare_defense,
    UnitMoveType.FORTIFY: fortify,
    UnitMoveType.PRAY: pray,
    UnitMoveType.HEAL: heal,
    UnitMoveType.CONVERT: convert,
    UnitMoveType.DEPLOY_BOMB: deploy_bomb,
    UnitMoveType.CLEAR_BOMB: clear_bomb,
    UnitMoveType.RETIRE: retire,
    UnitMoveType.IDLE: unit_idle,
}


def apply_unit_move(
    state: GameState, c: DevopsConfig, f: Faction, unit_id: int, move: UnitMove, events: Events
) -> Outcome:
    """DV-21 (only a live unit still the faction's acts), then the move's rule."""
    unit = state.units.get(unit_id)
    if unit is None or unit.owner != f.id:
        return OutcomeKind.SKIPPED, IgnoreReason.UNIT_GONE
    return UNIT_RULES[move.type](state, c, f, unit, move, events)


# -- end of turn (DV-49 .. DV-51) ------------------------------------------------------------------
def end_turn(state: GameState, c: DevopsConfig, events: Events, failed: bool) -> None:
    """DV-49 defeat, DV-50 largest territory, DV-51 end check (`failed`: a call of the turn failed)."""
    t = state.turn
    board = state.board
    beaten = [f for f in state.factions if not f.defeated and board.owner[board.index(*f.base)] != f.id]
    if beaten:
        defeat(state, c, beaten, events)
    alive = [f for f in state.factions if not f.defeated]
    if alive:  # DV-50
        largest = max(f.territory for f in alive)
        leaders = [f for f in alive if f.territory == largest]
        if largest > 0 and len(leaders) == 1:
            leaders[0].score += c.score_largest_territory
    if len(alive) <= 1 or t >= c.turn_limit:  # DV-51
        state.finished = True
    elif c.abort_on_logic_error and failed:
        state.finished = True
        state.aborted = True


def defeat(state: GameState, c: DevopsConfig, beaten: list[Faction], events: Events) -> None:
    """DV-49: factions whose base tile is no longer theirs lose their units, tiles and bombs."""
    board, t = state.board, state.turn
    for f in beaten:
        f.defeated = True
        f.defeat_turn = t
    ids = {f.id for f in beaten}
    for unit in [u for u in state.units.values() if u.owner in ids]:
        state.remove_unit(unit, c.unit_upkeep[unit.type])
    for tile, owner in enumerate(board.owner):
        if owner in ids:
            state.set_owner(tile, 0)
    for tile in [tile for tile, owner in board.bomb.items() if owner in ids]:
        del board.bomb[tile]
        state.dirty.add(tile)
    for f in beaten:
        f.slot = None
        f.bombs = 0
        f.bonuses = {}
        f.queued = []
        f.extra_gold_pending = False
        events.append({"event": "defeat", "faction": f.id, "turn": t})


# -- ranking (section 6) ---------------------------------------------------------------------------
def _rank_key(f: Faction) -> tuple[int, ...]:
    if not f.defeated:
        return (0, -f.score, -f.territory, -f.kills)
    return (1, -(f.defeat_turn or 0), -f.score, -f.kills)


def ranking(state: GameState) -> list[dict[str, Any]]:
    """Spec 6: the result rows in rank order (ties share the rank)."""
    ordered = sorted(state.factions, key=lambda f: (_rank_key(f), f.id))
    rows: list[dict[str, Any]] = []
    previous: tuple[int, ...] | None = None
    rank = 0
    for position, f in enumerate(ordered, start=1):
        if _rank_key(f) != previous:
            rank = position
            previous = _rank_key(f)
        rows.append(
            {
                "factionId": f.id,
                "name": f.name,
                "rank": rank,
                "score": f.score,
                "status": "defeated" if f.defeated else "alive",
                "defeatTurn": f.defeat_turn,
                "kills": f.kills,
                "territorySize": f.territory,
                "gold": f.gold,
                "timeouts": f.timeouts,
                "errors": f.errors,
                "ignored": f.ignored,
            }
        )
    return rows
