"""What each seat sees, built fresh for every message from the state.

The players' payloads (spec section 4): `start_payload` (`setup`), unit objects with their views,
`turn_start_json` and `result_json` (the turn observations), `end_payload` (`game_over`). The
replay's views (spec 7.4), which show a spectator everything: `state_json` (a step record's state),
`team_parts` and `keyframe_json` (the keyframe). Every JSON view of the state is built here; the
engine decides when. `hidden_info_check` (with `audit_payload`) is the game's own check of 4.6.

Spec 4.6 is kept by construction: a payload names only the player's own units' inventories, its own
credit, blueprints and towers, the cells within its units' sight (a camp's stock only within
`camp_radius`), and buried contents or vectors only in the result of its own `dig` or `scan`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from botarena.core.game import GameInfo
from botarena.core.protocol import Reply, Request
from botarena.core.status import Status
from botarena.games.craftingquest.actions import sorted_items
from botarena.games.craftingquest.config import CraftingQuestConfig
from botarena.games.craftingquest.constants import (
    OBJECT_TYPES,
    RESOURCE_TYPES,
    SCAN_ATTRIBUTE_COUNT,
    SCAN_ATTRIBUTE_MAX_VALUES,
)
from botarena.games.craftingquest.geometry import (
    PLAYERS,
    TERRAINS_BY_CODE,
    UNIT_KINDS,
    Cell,
    Terrain,
    cheb,
    player_unit_ids,
)
from botarena.games.craftingquest.rules import Outcome, scan_cells
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


def start_payload(
    state: GameState, config: CraftingQuestConfig, player: int, bot_seed: int
) -> dict[str, Any]:
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


def end_payload(state: GameState) -> dict[str, Any]:
    """Spec 4.5: both credits and the winner (None on a draw)."""
    credits = {str(p): state.teams[p].credit for p in (1, 2)}
    return {"type": "game_over", "credits": credits, "winner": winner(state)}


def winner(state: GameState) -> int | None:
    """Spec 6: the player with more credit; None for equal credit."""
    one, two = state.teams[1].credit, state.teams[2].credit
    if one == two:
        return None
    return 1 if one > two else 2


# --- the replay's views (spec 7.4): everything, for spectators ------------------------------------


def units_json(state: GameState) -> list[dict[str, Any]]:
    """The replay's view of all six units, in id order."""
    return [
        {
            "id": u.id,
            "player": u.player,
            "kind": u.kind.value,
            "x": u.x,
            "y": u.y,
            "energy": u.energy,
            "resources": sorted_items(u.resources),
            "objects": sorted_items(u.objects),
        }
        for u in (state.units[uid] for uid in sorted(state.units))
    ]


def all_towers_json(state: GameState) -> list[dict[str, Any]]:
    return [
        {"id": t.id, "owner": t.owner, "x": t.x, "y": t.y, "strength": t.strength, "alive": t.alive}
        for t in state.towers
    ]


def cell_json(state: GameState, cell: Cell) -> dict[str, Any]:
    """A cell's piles and buried quantities (the replay's `cells` entries)."""
    return {
        "x": cell[0],
        "y": cell[1],
        "resources": sorted_items(state.resource_piles.get(cell, {})),
        "objects": sorted_items(state.object_piles.get(cell, {})),
        "buried": sorted_items(state.buried.get(cell, {})),
    }


def state_json(state: GameState, cells: set[Cell]) -> dict[str, Any]:
    """A step record's `state`: all units, credits, towers, and the given cells in row-major order."""
    return {
        "units": units_json(state),
        "credits": {str(p): state.teams[p].credit for p in PLAYERS},
        "towers": all_towers_json(state),
        "cells": [cell_json(state, c) for c in sorted(cells, key=lambda c: (c[1], c[0]))],
    }


def team_parts(state: GameState, round_no: int, player: int) -> dict[str, Any]:
    """The keyframe parts a turn start may change (the engine keeps them as of the last step)."""
    return {
        "round": round_no,
        "player": player,
        "units": units_json(state),
        "credits": {str(p): state.teams[p].credit for p in PLAYERS},
        "towers": all_towers_json(state),
        "blueprints_owned": {str(p): ids_in_order(state.teams[p].blueprints) for p in PLAYERS},
    }


def keyframe_json(state: GameState, parts: dict[str, Any]) -> dict[str, Any]:
    """The keyframe: map, camps, `parts` (`team_parts`) and every cell with piles or buried items."""
    cells = set(state.buried) | set(state.resource_piles) | set(state.object_piles)
    return {
        "round": parts["round"],
        "player": parts["player"],
        "width": state.width,
        "height": state.height,
        "terrain": list(state.terrain),
        "camps": [
            {"x": c.x, "y": c.y, "stock": list(c.stock)}
            for c in sorted(state.camps.values(), key=lambda c: (c.y, c.x))
        ],
        "units": parts["units"],
        "credits": parts["credits"],
        "towers": parts["towers"],
        "blueprints_owned": parts["blueprints_owned"],
        "cells": [cell_json(state, c) for c in sorted(cells, key=lambda c: (c[1], c[0]))],
    }


# --- spec 4.6 as a check: every payload audited against the state it was built from -------------------
#
# `audit_payload` knows every payload type of spec 4 and allows exactly its keys. It checks that unit
# objects are the player's own, with their true inventories; that views hold only cells within the
# unit's sight, with the true contents, and a camp's stock only within `camp_radius`; that credit,
# blueprints and towers are the player's own; and that buried quantities and vectors appear only in
# the result of the player's own `dig` or `scan`, for that unit's cell or scan window. Nothing else of
# the scenario (terrain beyond views, deposits, the attribute structure, the seed) can then get out.


SETUP_KEYS = frozenset(
    {"type", "player", "opponent", "width", "height", "rounds", "turn_budget_ms", "turn_grace_ms"}
    | {"credit", "bot_seed", "rules", "resource_types", "object_types", "blueprints", "units"}
)
TURN_START_KEYS = frozenset(
    {"type", "round", "rounds_left", "credit", "blueprints_owned", "towers", "units", "late", "actions_left"}
)
RESULT_KEYS = frozenset(
    {"type", "round", "ok", "error", "action", "energy_spent", "drained", "unit", "credit"}
    | {"blueprints_owned", "towers", "actions_left"}
)
UNIT_KEYS = frozenset({"id", "kind", "x", "y", "energy", "resources", "objects", "view"})
VIEW_CELL_KEYS = frozenset({"x", "y", "camp", "tower", "units", "resources", "objects"})
SEEN_UNIT_KEYS = frozenset({"id", "player", "kind", "energy"})


class Leak(AssertionError):
    """A payload carries something spec 4.6 keeps from its player."""


def _expect(condition: bool, what: str) -> None:
    if not condition:
        raise Leak(what)


def audit_payload(state: GameState, config: CraftingQuestConfig, player: int, payload: Any) -> None:
    """Raise Leak unless `payload` (to `player`) shows only what spec 4 lets it see now."""
    _expect(isinstance(payload, dict), "a payload is a JSON object")
    kind = payload.get("type")
    if kind == "setup":
        _audit_setup(state, config, player, payload)
    elif kind == "turn_start":
        _expect(set(payload) == TURN_START_KEYS, f"turn_start keys {sorted(payload)}")
        _audit_team(state, player, payload)
        _audit_units(state, config, player, payload["units"], all_three=True)
        if payload["late"] is not None:
            _audit_result(state, config, player, payload["late"])
    elif kind == "result":
        _audit_result(state, config, player, payload)
    elif kind == "game_over":
        _expect(set(payload) == {"type", "credits", "winner"}, "game_over keys")
    else:
        raise Leak(f"unknown payload type {kind!r}")


def _audit_setup(state: GameState, config: CraftingQuestConfig, player: int, payload: dict[str, Any]) -> None:
    _expect(set(payload) == SETUP_KEYS, f"setup keys {sorted(payload)}")
    _expect(payload["player"] == player and payload["opponent"] == 3 - player, "setup names the player")
    _expect(payload["credit"] == state.teams[player].credit, "setup credit is the player's own")
    _expect(payload["rules"] == rules_json(config), "setup rules are the configured rules only")
    _audit_units(state, config, player, payload["units"], all_three=True)


def _audit_team(state: GameState, player: int, payload: dict[str, Any]) -> None:
    team = state.teams[player]
    _expect(payload["credit"] == team.credit, "credit is the player's own")
    _expect(payload["blueprints_owned"] == ids_in_order(team.blueprints), "blueprints are the player's own")
    _expect(payload["towers"] == towers_json(state, player), "towers are the player's own")


def _audit_result(
    state: GameState, config: CraftingQuestConfig, player: int, payload: dict[str, Any]
) -> None:
    """A `result`: buried contents only for the player's own dig or scan, of the unit it names."""
    extra = set(payload) - RESULT_KEYS
    _expect(extra <= {"dig", "scan"} and set(payload) >= RESULT_KEYS, f"result keys {sorted(payload)}")
    _audit_team(state, player, payload)
    if payload["unit"] is not None:
        _audit_units(state, config, player, [payload["unit"]], all_three=False)
    acting = _acting_unit(state, player, payload["action"])
    if "dig" in payload or "scan" in payload:
        _expect(acting is not None, "dig and scan results go to their digger")
        assert acting is not None
        _expect(payload["unit"] is not None and payload["unit"]["id"] == acting.id, "the acting unit")
    if "dig" in payload:
        truth = sorted_items(state.buried.get(acting.cell, {})) if acting else None
        _expect(payload["dig"] == truth, "a dig shows its own cell's buried contents only")
    if "scan" in payload:
        truth_scan = scan_cells(state, acting.cell, config.scan_radius) if acting else None
        _expect(payload["scan"] == truth_scan, "a scan shows its own window's vectors only")


def _audit_units(
    state: GameState, config: CraftingQuestConfig, player: int, units: Iterable[Any], all_three: bool
) -> None:
    ids = []
    for entry in units:
        _expect(isinstance(entry, dict) and set(entry) == UNIT_KEYS, "unit object keys")
        unit = state.units.get(entry["id"])
        _expect(unit is not None and unit.player == player, f"unit {entry['id']} is not the player's own")
        assert unit is not None
        ids.append(unit.id)
        truth = (unit.x, unit.y, unit.energy, sorted_items(unit.resources), sorted_items(unit.objects))
        shown = (entry["x"], entry["y"], entry["energy"], entry["resources"], entry["objects"])
        _expect(shown == truth, f"unit {unit.id} as it is")
        _audit_view(state, config, unit, entry["view"])
    if all_three:
        _expect(ids == list(player_unit_ids(player)), "the player's three units in id order")


def _audit_view(state: GameState, config: CraftingQuestConfig, unit: Unit, view: dict[str, Any]) -> None:
    radius = config.sight_radius
    _expect(set(view) == {"x0", "y0", "terrain", "cells"}, "view keys")
    _expect((view["x0"], view["y0"]) == (unit.x - radius, unit.y - radius), "the view is centred on its unit")
    _expect(len(view["terrain"]) == 2 * radius + 1, "the view's terrain window")
    for entry in view["cells"]:
        _expect(set(entry) <= VIEW_CELL_KEYS, f"view cell keys {sorted(entry)}")
        cell = (entry["x"], entry["y"])
        _expect(cheb(cell, unit.cell) <= radius, f"{cell} lies beyond unit {unit.id}'s sight")
        if "camp" in entry:
            near = cheb(cell, unit.cell) <= config.camp_radius
            _expect(
                (entry["camp"]["stock"] is not None) == near, "a camp's stock shows within camp_radius only"
            )
        for seen in entry.get("units", []):
            _expect(set(seen) == SEEN_UNIT_KEYS, "a seen unit shows no inventory")
            _expect(state.units[seen["id"]].cell == cell, "a seen unit where it is")
        _expect(
            entry.get("resources", {}) == sorted_items(state.resource_piles.get(cell, {})),
            "piles as they are",
        )
        _expect(
            entry.get("objects", {}) == sorted_items(state.object_piles.get(cell, {})), "piles as they are"
        )


def play_audited(engine: Any, bots: list[Any], max_steps: int = 100_000) -> int:
    """Play `engine` to the end with in-process `bots` (objects with setup/act/end), answering at
    once, auditing every payload as it is built; returns the number of questions asked."""
    state, config = engine.state, engine.config
    starts = engine.start_requests()
    for request in starts:
        audit_payload(state, config, request.seat + 1, request.payload)
    engine.apply_start([Reply(r.seat, Status.OK, bots[r.seat].setup(r.payload)) for r in starts])
    asked = 0
    while asked < max_steps:
        requests: list[Request] = engine.next_requests()
        if not requests:
            break
        (request,) = requests
        player = request.seat + 1
        _expect(player == engine.player, "a question goes to the player whose turn it is")
        audit_payload(state, config, player, request.payload)
        answer = bots[request.seat].act(request.payload)
        engine.apply([Reply(request.seat, Status.OK, answer)])
        asked += 1
    for request in engine.end_requests():
        audit_payload(state, config, request.seat + 1, request.payload)
    return asked


def _acting_unit(state: GameState, player: int, request: Any) -> Unit | None:
    """The player's own unit that a dig or scan request (as echoed in its result) names."""
    if isinstance(request, dict) and request.get("action") in ("dig", "scan"):
        unit = state.units.get(request.get("unit"))  # type: ignore[arg-type]
        if unit is not None and unit.player == player:
            return unit
    return None


def hidden_info_check(game: GameInfo[CraftingQuestConfig]) -> None:
    """The conformance hook: short games on generated 50x50 maps between the Prospector and the
    random bot, both seats, every payload audited (spec 4.6); drives the game's engine directly."""
    config = game.config(overrides={"width": 50, "height": 50, "rounds": 12, "turn_budget_ms": 0})
    prospector, random_bot = game.starter_bots["prospector"], game.random_bot
    for seed, lineup in ((3, (prospector, random_bot)), (4, (random_bot, prospector))):
        engine = game.new_engine(config, seed, 2)
        asked = play_audited(engine, [lineup[0](), lineup[1]()])
        _expect(asked > 0, "the game asked something")
