"""What each player is sent (spec section 4): `setup`, unit objects with their views, `turn_start`,
`result` and `game_over`, built fresh for every message from the state.

Spec 4.6 is kept by construction: a payload names only the player's own units' inventories, its own
credit, blueprints and towers, the cells within its units' sight (a camp's stock only within
`camp_radius`), and buried contents or vectors only in the result of its own `dig` or `scan`.
"""

from __future__ import annotations

from typing import Any

from botarena.games.craftingquest.actions import sorted_items
from botarena.games.craftingquest.config import CraftingQuestConfig
from botarena.games.craftingquest.constants import (
    OBJECT_TYPES,
    RESOURCE_TYPES,
    SCAN_ATTRIBUTE_COUNT,
    SCAN_ATTRIBUTE_MAX_VALUES,
)
from botarena.games.craftingquest.geometry import TERRAINS_BY_CODE, UNIT_KINDS, Cell, Terrain, cheb
from botarena.games.craftingquest.rules import Outcome
from botarena.games.craftingquest.scenario import blueprint_json
from botarena.games.craftingquest.state import GameState, Unit

_COST_KEYS = (
    "dig_cost",
    "scan_cost",
    "pickup_cost",
    "drop_cost",
    "craft_cost",
    "sell_cost",
    "buy_cost",
    "tower_energy_cost",
    "tower_price",
    "tower_strength",
    "tower_radius",
    "tower_drain_base",
    "sight_radius",
    "scan_radius",
    "camp_radius",
)


def ids_in_order(ids: set[str] | list[str] | tuple[str, ...]) -> list[str]:
    """Spec 4: lists of ids in numeric order ("O2" before "O10")."""
    return sorted(ids, key=lambda item: int(item[1:]))


def rules_json(config: CraftingQuestConfig) -> dict[str, Any]:
    """Spec 4.1 `rules`: costs, radii and every terrain's penalty and who may enter it."""
    terrain: dict[str, Any] = {}
    for kind in TERRAINS_BY_CODE:
        penalty = None if kind is Terrain.ROCK else config.penalty_pct(kind.value)
        enter = [k.value for k in UNIT_KINDS if kind.can_enter(k)]
        terrain[kind.value] = {"penalty_pct": penalty, "enter": enter}
    rules: dict[str, Any] = {
        "unit_energy": config.unit_energy,
        "move_base_cost": config.move_base_cost,
        "carry_divisor": config.carry_divisor,
        "terrain": terrain,
    }
    for key in _COST_KEYS:
        rules[key] = getattr(config, key)
    rules["scan_attribute_count"] = SCAN_ATTRIBUTE_COUNT
    rules["scan_attribute_max_value"] = SCAN_ATTRIBUTE_MAX_VALUES
    rules["max_actions_per_turn"] = config.max_actions_per_turn
    rules["max_quantity"] = config.max_quantity
    return rules


def _occupied(state: GameState, x0: int, y0: int, size: int) -> list[Cell]:
    """The cells of the window that hold a camp, a tower, a unit or a pile, in row-major order.

    Gathered from the sparse layers rather than by visiting all (2r+1)^2 cells: a view is built for
    every unit of every question, and only a handful of cells hold anything."""
    found: set[Cell] = set()
    for layer in (state.camps, state.tower_at, state.resource_piles, state.object_piles):
        for cell in layer:
            if x0 <= cell[0] < x0 + size and y0 <= cell[1] < y0 + size:
                found.add(cell)
    for unit in state.units.values():
        if x0 <= unit.x < x0 + size and y0 <= unit.y < y0 + size:
            found.add(unit.cell)
    return sorted(found, key=lambda c: (c[1], c[0]))


def _view_cell(
    state: GameState, config: CraftingQuestConfig, viewer: Unit, cell: Cell
) -> dict[str, Any] | None:
    """One cell of a view (spec 4.2), or None if it holds nothing; keys only when non-empty."""
    entry: dict[str, Any] = {"x": cell[0], "y": cell[1]}
    camp = state.camps.get(cell)
    if camp is not None:
        near = cheb(viewer.cell, cell) <= config.camp_radius
        entry["camp"] = {"stock": ids_in_order(list(camp.stock)) if near else None}
    tower = state.tower_at.get(cell)
    if tower is not None:
        entry["tower"] = {"id": tower.id, "owner": tower.owner, "strength": tower.strength}
    here = [u for u in state.units.values() if u.cell == cell]
    if here:
        entry["units"] = [
            {"id": u.id, "player": u.player, "kind": u.kind.value, "energy": u.energy}
            for u in sorted(here, key=lambda u: u.id)
        ]
    pile = state.resource_piles.get(cell)
    if pile:
        entry["resources"] = sorted_items(pile)
    dropped = state.object_piles.get(cell)
    if dropped:
        entry["objects"] = sorted_items(dropped)
    return entry if len(entry) > 2 else None


def view_json(state: GameState, config: CraftingQuestConfig, unit: Unit) -> dict[str, Any]:
    """Spec 4.2 `view`: the window of `sight_radius` around the unit (`-` outside the map)."""
    radius = config.sight_radius
    x0, y0 = unit.x - radius, unit.y - radius
    size = 2 * radius + 1
    rows: list[str] = []
    for y in range(y0, y0 + size):
        if not 0 <= y < state.height:
            rows.append("-" * size)
            continue
        line = state.terrain[y]
        left, right = max(0, x0), min(state.width, x0 + size)
        rows.append("-" * (left - x0) + line[left:right] + "-" * (x0 + size - right))
    cells = []
    for cell in _occupied(state, x0, y0, size):
        entry = _view_cell(state, config, unit, cell)
        if entry is not None:
            cells.append(entry)
    return {"x0": x0, "y0": y0, "terrain": rows, "cells": cells}


def unit_json(state: GameState, config: CraftingQuestConfig, unit: Unit) -> dict[str, Any]:
    """Spec 4.2: one of the player's own units, with what it carries and sees."""
    return {
        "id": unit.id,
        "kind": unit.kind.value,
        "x": unit.x,
        "y": unit.y,
        "energy": unit.energy,
        "resources": sorted_items(unit.resources),
        "objects": sorted_items(unit.objects),
        "view": view_json(state, config, unit),
    }


def towers_json(state: GameState, player: int) -> list[dict[str, Any]]:
    """Spec 4.3 `towers`: every tower the team built, destroyed ones included, in id order."""
    towers = [state.towers[tower_id - 1] for tower_id in state.teams[player].towers]
    return [{"id": t.id, "x": t.x, "y": t.y, "strength": t.strength, "alive": t.alive} for t in towers]


def setup_json(state: GameState, config: CraftingQuestConfig, player: int, bot_seed: int) -> dict[str, Any]:
    """Spec 4.1: the `start` payload; nothing of the map beyond the units' own views."""
    return {
        "type": "setup",
        "player": player,
        "opponent": 3 - player,
        "width": state.width,
        "height": state.height,
        "rounds": state.rounds,
        "turn_budget_ms": config.turn_budget_ms,
        "turn_grace_ms": config.turn_grace_ms,
        "credit": state.teams[player].credit,
        "bot_seed": bot_seed,
        "rules": rules_json(config),
        "resource_types": list(RESOURCE_TYPES),
        "object_types": list(OBJECT_TYPES),
        "blueprints": [blueprint_json(state.catalogue[b]) for b in ids_in_order(list(state.catalogue))],
        "units": [unit_json(state, config, u) for u in state.team_units(player)],
    }


def turn_start_json(
    state: GameState,
    config: CraftingQuestConfig,
    player: int,
    round_no: int,
    late: dict[str, Any] | None,
    actions_left: int,
) -> dict[str, Any]:
    """Spec 4.3."""
    team = state.teams[player]
    return {
        "type": "turn_start",
        "round": round_no,
        "rounds_left": state.rounds - round_no,
        "credit": team.credit,
        "blueprints_owned": ids_in_order(team.blueprints),
        "towers": towers_json(state, player),
        "units": [unit_json(state, config, u) for u in state.team_units(player)],
        "late": late,
        "actions_left": actions_left,
    }


def result_json(
    state: GameState,
    config: CraftingQuestConfig,
    player: int,
    round_no: int,
    request: Any,
    unit_id: int | None,
    outcome: Outcome,
    actions_left: int,
) -> dict[str, Any]:
    """Spec 4.4: the reply to an action. `request` is echoed as received (None unless an object)."""
    team = state.teams[player]
    result: dict[str, Any] = {
        "type": "result",
        "round": round_no,
        "ok": outcome.ok,
        "error": error_json(outcome),
        "action": echo(request),
        "energy_spent": outcome.energy_spent,
        "drained": [dict(d) for d in outcome.drained],
        **findings_json(outcome),
    }
    result["unit"] = None if unit_id is None else unit_json(state, config, state.units[unit_id])
    result["credit"] = team.credit
    result["blueprints_owned"] = ids_in_order(team.blueprints)
    result["towers"] = towers_json(state, player)
    result["actions_left"] = actions_left
    return result


def error_json(outcome: Outcome) -> dict[str, Any] | None:
    """An action's `error` as sent and logged: {code, reason}, or None when it succeeded."""
    return None if outcome.error is None else {"code": outcome.error[0], "reason": outcome.error[1]}


def findings_json(outcome: Outcome) -> dict[str, Any]:
    """An action's `dig` and `scan` results, each only when present (spec 4.4, 7.4)."""
    found: dict[str, Any] = {}
    if outcome.dig is not None:
        found["dig"] = dict(outcome.dig)
    if outcome.scan is not None:
        found["scan"] = [{**c, "vectors": [list(v) for v in c["vectors"]]} for c in outcome.scan]
    return found


def echo(request: Any) -> Any:
    """The request as received, as fresh JSON data (a bot must not share objects with the replay);
    None unless it is an object."""
    if not isinstance(request, dict):
        return None
    return json_copy(request)


def json_copy(value: Any) -> Any:
    """A deep copy of JSON data (dicts and lists rebuilt, scalars shared)."""
    if isinstance(value, dict):
        return {key: json_copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [json_copy(item) for item in value]
    return value


def game_over_json(state: GameState) -> dict[str, Any]:
    """Spec 4.5: both credits and the winner (None on a draw)."""
    credits = {str(p): state.teams[p].credit for p in (1, 2)}
    return {"type": "game_over", "credits": credits, "winner": winner(state)}


def winner(state: GameState) -> int | None:
    """Spec 6: the player with more credit; None for equal credit."""
    one, two = state.teams[1].credit, state.teams[2].credit
    if one == two:
        return None
    return 1 if one > two else 2
