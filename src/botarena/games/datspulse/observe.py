"""What each seat sees (spec §3.9, §4, §7.5, §7.6), what a spectator sees, and the check of both.

- `arena` builds the §4 object (the `/api/arena` body, a turn's observation) with the §7.1 key order:
  plain dicts whose insertion order is the wire order, ints as ints, optional ant keys omitted. Only
  the visible set (DP-90) is shown: tiles, piles, anthill nectar stores and living enemy units; enemies
  carry no id.
- The payloads of the generic JSON-lines protocol around it: `start_payload` (§7.6, the config without
  the real-time-only keys), `turn_payload` (the arena plus `errors`, the rejections of the bot's
  previous reply, §7.5) and `end_payload` (the final arena, the team's score, place and points, and
  every team's result, §7.6). Every payload is built fresh: an in-process bot may change what it is
  given (the conformance suite checks that the engine never reads a payload back).
- `spectator_frame` and `terrain`: what the replay and the viewer show (never sent to bots).
- `hidden_info_check`: the conformance suite's check of §4 *Hidden*, played on the engine directly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from botarena.core.game import GameInfo
from botarena.core.protocol import Reply
from botarena.core.status import Status
from botarena.games.datspulse.bots import STARTERS, RandomWalker
from botarena.games.datspulse.config import GAME_ID, RULES_VERSION, DatsPulseConfig
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


# -- the payloads of the generic protocol (§7.5, §7.6) ---------------------------------------------

#: The keys of one team's entry in the `end` payload's `results` (§7.6), in that order.
END_RESULT_KEYS = ("index", "name", "score", "place", "unitsLost")


def start_payload(
    seat: int, name: str, teams: int, bot_seed: int, lockstep_config: Mapping[str, Any]
) -> dict[str, Any]:
    """§7.6 `start`: who the bot is, how many teams play, its own seed, and the effective config.

    `lockstep_config` is the config without the real-time-only keys (`DatsPulseConfig.lockstep_dict()`);
    it is copied, so each seat gets its own objects.
    """
    return {
        "game": GAME_ID,
        "ruleset": RULES_VERSION,
        "team": {"index": seat, "name": name},
        "teams": teams,
        "bot_seed": bot_seed,
        "config": {
            key: list(value) if isinstance(value, list | tuple) else value
            for key, value in lockstep_config.items()
        },
    }


def turn_payload(arena: dict[str, Any], errors: Sequence[str]) -> dict[str, Any]:
    """§7.5 step 1: the arena with `errors` added last (the order of a `/api/move` reply, §7.1)."""
    arena["errors"] = list(errors)
    return arena


def end_payload(arena: dict[str, Any], seat: int, results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """§7.6 `end`: the final arena, this team's score, place and points, and all teams' results.

    `results` are `Round.results()` rows (`index, name, score, place, points, unitsLost`); the `results`
    list of the payload keeps the five keys §7.6 names.
    """
    own = next(row for row in results if row["index"] == seat)
    return {
        "observation": arena,
        "score": own["score"],
        "place": own["place"],
        "points": own["points"],
        "results": [{key: row[key] for key in END_RESULT_KEYS} for row in results],
    }


# -- the check of §4 *Hidden* -----------------------------------------------------------------------


def hidden_info_check(game: GameInfo[DatsPulseConfig]) -> None:
    """The conformance suite's check of §4 *Hidden* (`GameInfo.extras["hidden_info_check"]`).

    Seat 0 plays the same seeded random walker against opponents that play very differently, on a map
    where the teams do not meet in the first turns and no food spawns (a pile's place depends on where
    every unit stands, DP-80). Its observations must be identical turn by turn, its own ant ids aside:
    they come from the one `ids` stream in spawn order (DP-95), so they differ when other teams spawn
    differently, without telling anything about them. Every observation also shows enemies without ids,
    and only enemies, piles and stores on tiles of its own `map` (DP-90).
    """
    config = game.config(overrides={"turns": 4, "map_radius": 16, "food_spawn_chance": 0.0})
    opponents: list[Any] = [lambda: None, STARTERS["random_walker"], STARTERS["forager"], STARTERS["raider"]]
    views = [_seat_zero_views(game, config, opponent) for opponent in opponents]
    for view in views[1:]:
        assert view == views[0], "seat 0's observations depend on what seat 1 does"


def _seat_zero_views(game: GameInfo[DatsPulseConfig], config: DatsPulseConfig, opponent: Any) -> list[Any]:
    engine = game.new_engine(config, 20250711, 2)
    starts = engine.start_requests()
    engine.apply_start([Reply(r.seat, Status.OK, {}) for r in starts])
    bots = [RandomWalker(), opponent()]
    for bot, request in zip(bots, starts, strict=True):
        if bot is not None:
            bot.setup(request.payload)
    ids: dict[str, int] = {}
    views: list[Any] = []
    while requests := engine.next_requests():
        for request in requests:
            _check_visible_only(request.payload)
        views.append(_with_spawn_numbers(requests[0].payload, ids))
        replies = [
            Reply(r.seat, Status.OK, bots[r.seat].act(r.payload) if bots[r.seat] else {}) for r in requests
        ]
        engine.apply(replies)
    return views


def _check_visible_only(arena: dict[str, Any]) -> None:
    tiles = {(tile["q"], tile["r"]) for tile in arena["map"]}
    for enemy in arena["enemies"]:
        assert set(enemy) == {"q", "r", "type", "health", "food", "attack"}, (
            "an enemy shows more than §4 lists"
        )
        assert (enemy["q"], enemy["r"]) in tiles, "an enemy outside the visible set"
    for pile in arena["food"]:
        assert (pile["q"], pile["r"]) in tiles, "food outside the visible set"


def _with_spawn_numbers(arena: dict[str, Any], ids: dict[str, int]) -> Any:
    """The arena with each own ant id replaced by its number in order of first appearance."""
    text = orjson.dumps(arena).decode()
    for ant in arena["ants"]:
        ids.setdefault(ant["id"], len(ids))
    for ant_id, number in ids.items():
        text = text.replace(ant_id, f"ant#{number}")
    return orjson.loads(text)
