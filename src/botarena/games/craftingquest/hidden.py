"""Spec 4.6 as a check: every payload sent to a bot is audited against the engine's state at the
moment it is built, so a leak of anything the player may not know fails loudly.

`audit_payload` knows every payload type of spec 4 and allows exactly its keys. It checks that unit
objects are the player's own, with their true inventories; that views hold only cells within the
unit's sight, with the true contents, and a camp's stock only within `camp_radius`; that credit,
blueprints and towers are the player's own; and that buried quantities and vectors appear only in
the result of the player's own `dig` or `scan`, for that unit's cell or scan window. Nothing else of
the scenario (terrain beyond views, deposits, the attribute structure, the seed) can then get out.

`hidden_info_check(game)` is the conformance suite's hook (`GameInfo.extras`): whole short games on
a generated map with every payload audited.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from botarena.core.protocol import Reply, Request
from botarena.core.status import Status
from botarena.games.craftingquest.actions import sorted_items
from botarena.games.craftingquest.config import CraftingQuestConfig
from botarena.games.craftingquest.geometry import cheb, player_unit_ids
from botarena.games.craftingquest.observe import ids_in_order, rules_json, towers_json
from botarena.games.craftingquest.rules import scan_cells
from botarena.games.craftingquest.state import GameState, Unit

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


BotFactory = Callable[[], Any]


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


def hidden_info_check(game: Any) -> None:
    """The conformance hook: short games on generated 50x50 maps, every payload audited (spec 4.6)."""
    from botarena.games.craftingquest.bots import Prospector, RandomBot
    from botarena.games.craftingquest.engine import CraftingQuestEngine

    config = game.config(overrides={"width": 50, "height": 50, "rounds": 12, "turn_budget_ms": 0})
    for seed, lineup in ((3, (Prospector, RandomBot)), (4, (RandomBot, Prospector))):
        engine = CraftingQuestEngine(config, seed, 2)
        asked = play_audited(engine, [lineup[0](), lineup[1]()])
        _expect(asked > 0, "the game asked something")
