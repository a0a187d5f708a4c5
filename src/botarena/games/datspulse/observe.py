"""What a team sees (spec §3.9, §4) and what a spectator sees.

`arena` builds the §4 object with the §7.1 key order: plain dicts whose insertion order is the wire
order, ints as ints, optional ant keys omitted. Only the visible set (DP-90) is shown: tiles, piles,
anthill nectar stores and living enemy units; enemies carry no id.
"""

from __future__ import annotations

from typing import Any

from botarena.games.datspulse.hexgrid import Hex
from botarena.games.datspulse.state import FoodType, State, Unit


def qr(h: Hex) -> dict[str, int]:
    return {"q": h[0], "r": h[1]}


def visible_set(state: State, team: int) -> list[int]:
    """DP-90: hexes within view of each listed unit (position and `lastMove`) and `spot_view` of the
    spot, as hex numbers in canonical order."""
    own = state.teams[team]
    centres: dict[int, list[int]] = {state.config.spot_view: [own.spot]}
    for unit in own.units:
        cells = centres.setdefault(state.stats[unit.type].view, [])
        cells.append(unit.pos)
        cells.extend(unit.last_move)
    return state.grid.disc_union(centres)


def cargo(unit: Unit) -> dict[str, int]:
    return {"type": unit.cargo_type, "amount": unit.cargo_amount}


def ant_json(state: State, unit: Unit, order: list[Hex] | None) -> dict[str, Any]:
    """An own ant in §7.1 key order: q, r, type, health, id, then the optional lastMove, move,
    lastAttack and lastEnemyAnt, then food."""
    hexes = state.grid.hexes
    q, r = hexes[unit.pos]
    out: dict[str, Any] = {"q": q, "r": r, "type": unit.type, "health": unit.health, "id": unit.id}
    if unit.last_move:
        out["lastMove"] = [qr(hexes[h]) for h in unit.last_move]
    if order:
        out["move"] = [qr(h) for h in order]
    if unit.last_attack >= 0:
        out["lastAttack"] = qr(hexes[unit.last_attack])
    if unit.last_enemy is not None:
        out["lastEnemyAnt"] = unit.last_enemy
    out["food"] = cargo(unit)
    return out


def tile_templates(state: State) -> tuple[dict[str, int], ...]:
    """The §4 `map` entry of every hex, built once per round (terrain never changes; DP-10)."""
    cached = state.tile_json
    if cached is None:
        costs = state.costs
        cached = tuple(
            {"q": q, "r": r, "cost": costs[kind], "type": kind}
            for (q, r), kind in zip(state.grid.hexes, state.terrain, strict=True)
        )
        state.tile_json = cached
    return cached


def arena(state: State, team: int, visible: list[int], next_turn_in: float) -> dict[str, Any]:
    """The §4 arena object of `team` (without `errors`). Every nested object is fresh, so a caller (or
    an in-process bot) may change it without touching the state or another team's arena."""
    own = state.teams[team]
    hexes = state.grid.hexes
    occupancy = state.occupancy
    piles = state.piles
    anthills = state.anthill_owner
    templates = tile_templates(state)
    tiles = [templates[h].copy() for h in visible]
    enemies: list[dict[str, Any]] = []
    food: list[dict[str, Any]] = []
    for h in visible:
        here = occupancy.get(h)
        if here:
            others = [u for u in here if u.team != team]
            if others:
                q, r = hexes[h]
                others.sort(key=lambda u: u.type)
                for u in others:
                    enemies.append(
                        {
                            "q": q,
                            "r": r,
                            "type": u.type,
                            "health": u.health,
                            "food": cargo(u),
                            "attack": state.stats[u.type].attack,
                        }
                    )
        if h in piles:
            q, r = hexes[h]
            pile = piles[h]
            food.append({"q": q, "r": r, "type": pile[0], "amount": pile[1]})
        elif h in anthills:
            owner, slot = anthills[h]
            stored = state.teams[owner].nectar[slot]
            if stored > 0:
                q, r = hexes[h]
                food.append({"q": q, "r": r, "type": int(FoodType.NECTAR), "amount": stored})
    return {
        "ants": [ant_json(state, u, own.orders.get(u.id)) for u in own.units],
        "enemies": enemies,
        "map": tiles,
        "food": food,
        "turnNo": state.turn,
        "nextTurnIn": next_turn_in,
        "home": [qr(hexes[h]) for h in own.home],
        "score": own.score,
        "spot": qr(hexes[own.spot]),
    }


def spectator_frame(state: State, events: list[tuple[int, str]]) -> dict[str, Any]:
    """§4 spectator frame: every team's totals, every listed unit, the piles and the last events.

    Built for every transition (the replay's step record), so its loops bind what they read to locals
    and build each object as one literal."""
    hexes = state.grid.hexes
    units: list[dict[str, Any]] = []
    append = units.append
    for unit in state.all_units():
        q, r = hexes[unit.pos]
        entry: dict[str, Any] = {
            "id": unit.id,
            "team": unit.team,
            "type": unit.type,
            "q": q,
            "r": r,
            "health": unit.health,
            "food": {"type": unit.cargo_type, "amount": unit.cargo_amount},
        }
        if unit.last_move:
            entry["lastMove"] = [qr(hexes[h]) for h in unit.last_move]
        if unit.last_attack >= 0:
            entry["lastAttack"] = qr(hexes[unit.last_attack])
        append(entry)
    piles = state.piles
    food: list[dict[str, Any]] = []
    for h in sorted(piles):  # canonical hex order (hex numbers are unique: no need to compare piles)
        q, r = hexes[h]
        pile = piles[h]
        food.append({"q": q, "r": r, "type": pile[0], "amount": pile[1]})
    return {
        "turnNo": state.turn,
        "teams": [
            {
                "index": t.index,
                "name": t.name,
                "score": t.score,
                "spot": qr(hexes[t.spot]),
                "home": [qr(hexes[h]) for h in t.home],
                "nectar": list(t.nectar),
                "unitsLost": t.units_lost,
            }
            for t in state.teams
        ],
        "units": units,
        "food": food,
        "events": [{"team": team, "message": message} for team, message in events],
    }


def terrain(state: State) -> dict[str, Any]:
    """{radius, tiles: [[q, r, type], ...]} in canonical order (§4, the replay header)."""
    return {
        "radius": state.grid.radius,
        "tiles": [[q, r, kind] for (q, r), kind in zip(state.grid.hexes, state.terrain, strict=True)],
    }
