"""What each faction sees (spec section 4): BaseMoveInput and UnitMoveInput, built fresh for every
call from the turn's snapshot, with bombs shown only to a SAPPER's own view (hidden information)."""

from __future__ import annotations

from typing import Any

from botarena.games.devops.config import UNIT_MOVE_TYPES, UNIT_TYPES, DevopsConfig
from botarena.games.devops.state import Faction, GameState, Unit
from botarena.games.devops.vocabulary import BonusType, UnitType

BONUS_TYPES = tuple(b.value for b in BonusType)  # spec 4 `activeBonuses` lists them in this order


def population_cap(config: DevopsConfig, faction: Faction) -> int:
    """DV-3."""
    return min(
        config.population_cap_max,
        config.population_cap_base + faction.territory // config.population_cap_tiles_per_unit,
    )


def effective_unit_cost(config: DevopsConfig, faction: Faction, unit_type: str) -> int:
    """DV-20 CHEAPER_UNITS applied to `unit_cost`."""
    cost = config.unit_cost[unit_type]
    if "CHEAPER_UNITS" in faction.bonuses:
        return cost * (100 - config.bonus_cheaper_units_percent) // 100
    return cost


def unit_json(unit: Unit, damage: int) -> dict[str, Any]:
    return {
        "id": unit.id,
        "owner": unit.owner,
        "type": unit.type.value,
        "damage": damage,
        "health": unit.health,
        "defenseBonus": unit.defense,
        "enlightened": unit.enlightened,
    }


def location_json(
    state: GameState, config: DevopsConfig, x: int, y: int, show_bombs: bool = False
) -> dict[str, Any]:
    """Spec 4 Location; `mined` only outside `wire_model` `course-2024` (the model says `rigged`)."""
    board = state.board
    tile = y * board.width + x
    owner = board.owner[tile]
    mined = show_bombs and tile in board.bomb
    unit_id = board.unit_at.get(tile)
    occupying = None
    if unit_id is not None:
        unit = state.units[unit_id]
        occupying = unit_json(unit, config.unit_damage[unit.type])
    location: dict[str, Any] = {
        "x": x,
        "y": y,
        "base": bool(board.base[tile]),
        "resource": bool(board.resource[tile]),
        "fortified": bool(board.fortified[tile]),
        "rigged": mined,
        "owner": owner or None,
        "occupyingUnit": occupying,
    }
    if config.wire_model == "botarena":  # deviation 2: the seed's name, beside the model's `rigged`
        location["mined"] = mined
    return location


_TABLES: dict[int, tuple[DevopsConfig, dict[str, int], dict[str, int]]] = {}


def _tables(config: DevopsConfig) -> tuple[dict[str, int], dict[str, int]]:
    """The config's fixed context tables, built once per config (copied into every input)."""
    entry = _TABLES.get(id(config))
    if entry is None or entry[0] is not config:
        health = {t: config.unit_base_health[t] for t in UNIT_TYPES}
        costs = {m: config.move_cost(m) for m in UNIT_MOVE_TYPES}
        if len(_TABLES) > 64:
            _TABLES.clear()
        entry = _TABLES[id(config)] = (config, health, costs)
    return entry[1], entry[2]


def context_json(state: GameState, config: DevopsConfig, faction: Faction, game_id: str) -> dict[str, Any]:
    """Spec 4 GameContext; `wire_model` `course-2024` keeps exactly the 2024-25 model's fields."""
    health, costs = _tables(config)
    context: dict[str, Any] = {
        "turnNumber": state.turn,
        "gameId": game_id,
        "mapWidth": state.board.width,
        "mapHeight": state.board.height,
        "unitBaseHealth": dict(health),
        "unitCost": {t: effective_unit_cost(config, faction, t) for t in UNIT_TYPES},
        "unitMoveCost": dict(costs),
    }
    if config.wire_model == "botarena":  # deviations 3 and 19: beyond the 2024-25 GameContext
        context["bombCost"] = config.bomb_cost
        context["activeBonuses"] = [b for b in BONUS_TYPES if b in faction.bonuses]
    return context


def faction_json(state: GameState, config: DevopsConfig, faction: Faction) -> dict[str, Any]:
    x, y = faction.base
    return {
        "id": faction.id,
        "name": faction.name,
        "base": location_json(state, config, x, y),
        "gold": faction.gold,
        "bombs": faction.bombs,
        "territorySize": faction.territory,
        "population": faction.population,
        "populationCap": population_cap(config, faction),
        "kills": faction.kills,
        "score": faction.score,
        "defeated": faction.defeated,
        "currentUpkeep": faction.upkeep,
    }


def base_input(state: GameState, config: DevopsConfig, faction: Faction, game_id: str) -> dict[str, Any]:
    """Spec 4.1."""
    slot = faction.slot
    return {
        "context": context_json(state, config, faction, game_id),
        "faction": faction_json(state, config, faction),
        "buildSlotState": None if slot is None else {"turnsLeft": slot[1], "unitType": str(slot[0])},
    }


def unit_input(
    state: GameState, config: DevopsConfig, faction: Faction, unit: Unit, game_id: str
) -> dict[str, Any]:
    """Spec 4.2: the unit, its tile and its 8 neighbours (bombs visible to SAPPERs only)."""
    sapper = unit.type is UnitType.SAPPER
    board = state.board
    return {
        "context": context_json(state, config, faction, game_id),
        "faction": faction_json(state, config, faction),
        "unit": unit_json(unit, config.unit_damage[unit.type]),
        "unitLocation": location_json(state, config, unit.x, unit.y, sapper),
        "neighbouringLocations": [
            location_json(state, config, x, y, sapper) for x, y in board.neighbours(unit.x, unit.y)
        ],
    }


def hidden_info_check(game: Any) -> None:
    """The conformance suite's check of spec 4 *Hidden information*: bombs show only in a SAPPER's own
    unit view, never in `faction.base`; each input names only the asking faction and its own gold."""
    from botarena.core.protocol import Reply
    from botarena.core.status import Status

    config = game.config("smoke", {"starting_units": ["SAPPER", "PIONEER"], "turn_limit": 3})
    engine = game.new_engine(config, 12345, 3)
    state = engine.state
    board = state.board
    for f in state.factions:  # a bomb under every unit and base
        board.bomb[board.index(*f.base)] = f.id
    for unit in state.units.values():
        board.bomb[board.index(unit.x, unit.y)] = unit.owner
    while requests := engine.next_requests():
        for request in requests:
            payload = request.payload["input"]
            seat_faction = request.seat + 1
            assert payload["faction"]["id"] == seat_faction
            assert payload["faction"]["base"]["rigged"] is False
            assert payload["faction"]["base"].get("mined", False) is False
            assert str(payload).count("'gold'") == 1
            if request.payload["call"] == "unit":
                sapper = payload["unit"]["type"] == "SAPPER"
                for loc in [payload["unitLocation"], *payload["neighbouringLocations"]]:
                    assert loc.get("mined", loc["rigged"]) == loc["rigged"]
                    if not sapper:
                        assert loc["rigged"] is False
                if sapper:
                    assert payload["unitLocation"]["rigged"] is True
        engine.apply([Reply(r.seat, Status.OK, {"type": "IDLE"}) for r in requests])
