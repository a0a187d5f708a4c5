"""The Devops Game for learners (spec devops.md; rules DV-n).

| | |
|---|---|
| agents | `player_0` .. `player_{N-1}`: seat s is faction s + 1 |
| dynamics | simultaneous: every undefeated faction acts every step; a step is one turn, and the agent's one action answers all of its calls of the turn: the base call and one call per unit (DV-16) |
| observation | `Dict(faction=Box(F,), units=Box(S, U), tiles=Box(S, C, 3, 3))`, float32, from the turn's base and unit inputs (spec 4.1, 4.2) only |
| action | `MultiDiscrete([9 + S] + [42] * S)`: the base move, then one move per unit slot |
| action mask | `info["action_mask"]`: int8, the dimensions' masks concatenated (sb3-contrib's MaskablePPO); the space's `sample` also takes it flat |
| step reward | the faction's score change in the turn (every DV score rule, penalties included) x `SCORE_SCALE` (0.001) |
| terminal reward | rank-based (spec 6 ranking): +1 first, -1 last, linear in between, ties share |
| episode | one game: up to `turn_limit` steps, fewer when at most one faction is left (DV-51) |

**Unit slots.** S = the most units a faction can ever own under the config: the population cap
bound `min(population_cap_max, population_cap_base + W_max * H_max // population_cap_tiles_per_unit)`,
plus one (a build started below the cap may spawn after a CONVERT filled it, DV-27 never checks the
cap), and at least `len(starting_units)`. Slot i is the faction's i-th unit call of the turn, so the
units in ascending unit id (DV-16); a unit keeps its slot only while no unit of a lower id dies.
Unused slots are zeros and their only legal move is IDLE.

**Observation `faction`** (F = 49), from the base input: 0 turnNumber, 1 mapWidth, 2 mapHeight,
3-4 base x, y, 5 gold, 6 bombs, 7 territorySize, 8 population, 9 populationCap, 10 kills, 11 score
(may be negative), 12 currentUpkeep, 13 build slot occupied, 14 its turnsLeft, 15-19 its unitType
one-hot (PIONEER, WORKER, FIGHTER, CLERIC, SAPPER), 20-23 activeBonuses (EXTRA_GOLD,
INCOME_MULTIPLIER, CHEAPER_UNITS, RUSH_ATTACK), 24-28 unitCost by type, 29 bombCost, 30-43
unitMoveCost in the spec's UnitMoveType order, 44-48 unitBaseHealth by type.

**Observation `units`** (S x U, U = 14), one row per slot: 0 present, 1-5 type one-hot, 6 health,
7 damage, 8 defenseBonus, 9 enlightened, 10-11 x, y, 12-13 the base's offset from the unit (dx, dy,
the shortest way on the torus, DV-2; may be negative).

**Observation `tiles`** (S x C x 3 x 3, C = 19): slot i's 3x3 view, `tiles[i, c, dy + 1, dx + 1]`
for the tile at offset (dx, dy) from the unit (its own tile in the centre; the 8 neighbours of
DV-2). Channels: 0 base, 1 resource, 2 fortified, 3 mined (shown to SAPPERs only, spec 4 hidden
information; 0 for other types), 4 owned by the faction, 5 owned by another faction, 6 neutral,
7 the faction's current base, 8 a unit stands there, 9 it is the faction's, 10 it is an enemy's,
11-15 its type one-hot, 16 its health, 17 its defenseBonus, 18 its enlightened. A seat that has no
call (a defeated faction, or the match is over) observes zeros.

**Action, base dimension** (9 + S choices): 0 IDLE (DV-30), 1 RECEIVE_INCOME (DV-24), 2-6
BUILD_UNIT of PIONEER, WORKER, FIGHTER, CLERIC, SAPPER (DV-25), 7 CONTINUE_BUILDING_UNIT (DV-26),
8 MANUFACTURE_BOMB (DV-28), 9 + i MOVE_BASE to the tile unit slot i stands on (DV-29).

**Action, unit dimension** (42 choices): 0 IDLE, 1-8 TRAVEL to neighbour k (DV-2 order), 9
CONQUER_NEUTRAL_TILE, 10 NEUTRALIZE_ENEMY_TILE, 11 GENERATE_GOLD, 12 PREPARE_DEFENSE, 13 FORTIFY,
14 PRAY, 15 DEPLOY_BOMB, 16 CLEAR_BOMB, 17 RETIRE, 18-25 ATTACK, 26-33 HEAL, 34-41 CONVERT the unit
on neighbour k.

**Mask.** A choice is legal when its unit type may make it (DV-5), its cost is within the input's
gold (DV-19: so a masked move is never `INVALID`), and its conditions hold in the input (the tile's
owner for CONQUER/NEUTRALIZE/GENERATE_GOLD/FORTIFY/DEPLOY_BOMB, an empty target for TRAVEL, an
enemy or a wounded friend on the target tile, an enlightened cleric and room under the cap for
CONVERT, a free build slot and room for BUILD_UNIT, ...). Moves of other factions or of the
faction's own earlier units may still make a legal move *ignored* when it is applied (spec 5.2, no
penalty). Unmasked choices are sent as chosen, so the engine judges them as it judges any bot
(`type_not_allowed`, `unaffordable`: INVALID and `penalty_error`); a choice that names a target
that is not there (ATTACK an empty tile, MOVE_BASE from an empty slot) is sent as IDLE.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from botarena.core.game import Step
from botarena.core.protocol import Request
from botarena.games.devops.actions import MOVES_BY_UNIT_TYPE
from botarena.games.devops.config import UNIT_MOVE_TYPES, UNIT_TYPES
from botarena.games.devops.observe import BONUS_TYPES
from botarena.rl.encoding import VALUE_CAP, Encoding, FlatMaskMultiDiscrete, capped_box

SCORE_SCALE = 0.001
"""Step reward per score point: a thousand points (a good game's score) weigh as much as a win."""

FACTION_FEATURES = 49
UNIT_FEATURES = 14
TILE_CHANNELS = 19

# the base dimension
BASE_IDLE, BASE_INCOME, BASE_BUILD, BASE_CONTINUE, BASE_BOMB, BASE_MOVE = 0, 1, 2, 7, 8, 9
# the unit dimension
UNIT_IDLE, TRAVEL, ATTACK, HEAL, CONVERT = 0, 1, 18, 26, 34
UNIT_CHOICES = 42
PLAIN_MOVES = (
    "CONQUER_NEUTRAL_TILE",
    "NEUTRALIZE_ENEMY_TILE",
    "GENERATE_GOLD",
    "PREPARE_DEFENSE",
    "FORTIFY",
    "PRAY",
    "DEPLOY_BOMB",
    "CLEAR_BOMB",
    "RETIRE",
)
"""Unit choices 9..17: the moves without a target."""
PLAIN = 9
TARGETED = ((ATTACK, "ATTACK"), (HEAL, "HEAL"), (CONVERT, "CONVERT"))

NEIGHBOUR_CELLS = (0, 3, 6, 1, 7, 2, 5, 8)
"""Where DV-2's k-th neighbour lands in the row-major 3x3 view (dy outer, dx inner); the centre, 4,
is the unit's own tile."""
_TYPE_INDEX = {name: index for index, name in enumerate(UNIT_TYPES)}


def unit_slots(config: Any) -> int:
    """S: the most units one faction can own under `config` (see the module docstring)."""
    territory = config.map_width_max * config.map_height_max
    cap = min(
        config.population_cap_max,
        config.population_cap_base + territory // config.population_cap_tiles_per_unit,
    )
    return max(len(config.starting_units), int(cap) + 1)


def _wrap(delta: int, size: int) -> int:
    """The shortest signed offset on a ring of `size` (DV-2)."""
    delta %= size
    return delta - size if delta > size // 2 else delta


class DevopsEncoding(Encoding):
    """See the module docstring."""

    def __init__(self, config: Any, seats: int) -> None:
        super().__init__(config, seats)
        self.slots = slots = unit_slots(config)
        faction_low = np.zeros(FACTION_FEATURES, dtype=np.float32)
        faction_low[11] = -VALUE_CAP  # the score
        unit_low = np.zeros((slots, UNIT_FEATURES), dtype=np.float32)
        unit_low[:, 12:14] = -VALUE_CAP  # the offset to the base
        self.observation_space = spaces.Dict(
            {
                "faction": capped_box((FACTION_FEATURES,), low=faction_low),
                "units": capped_box((slots, UNIT_FEATURES), low=unit_low),
                "tiles": capped_box((slots, TILE_CHANNELS, 3, 3)),
            }
        )
        self.base_choices = BASE_MOVE + slots
        self.action_space = FlatMaskMultiDiscrete([self.base_choices] + [UNIT_CHOICES] * slots)
        self._scores: dict[int, list[int]] = {}

    # -- observation -----------------------------------------------------------------------------
    def observe(self, seat: int, requests: Sequence[Request]) -> dict[str, np.ndarray[Any, Any]]:
        slots = self.slots
        faction = np.zeros(FACTION_FEATURES, dtype=np.float32)
        units = np.zeros((slots, UNIT_FEATURES), dtype=np.float32)
        views = np.zeros((slots, 9, TILE_CHANNELS), dtype=np.float32)
        slot = 0
        for request in requests:
            payload = request.payload
            if payload["call"] == "base":
                faction[:] = _faction_vector(payload["input"], self.config.bomb_cost)
            elif slot < slots:
                unit_row, view = _unit_rows(payload["input"])
                units[slot] = unit_row
                views[slot] = view
                slot += 1
        tiles = views.reshape(slots, 3, 3, TILE_CHANNELS).transpose(0, 3, 1, 2)
        return {"faction": faction, "units": units, "tiles": np.ascontiguousarray(tiles)}

    # -- action ----------------------------------------------------------------------------------
    def act(self, seat: int, requests: Sequence[Request], action: Any) -> list[Any]:
        choices = np.asarray(action, dtype=np.int64).reshape(-1)
        unit_inputs = [r.payload["input"] for r in requests if r.payload["call"] == "unit"]
        payloads: list[Any] = []
        slot = 0
        for request in requests:
            if request.payload["call"] == "base":
                payloads.append(self._base_payload(int(choices[0]), unit_inputs))
            else:
                choice = int(choices[1 + slot]) if slot < self.slots else UNIT_IDLE
                payloads.append(_unit_payload(choice, request.payload["input"]))
                slot += 1
        return payloads

    def _base_payload(self, choice: int, unit_inputs: list[dict[str, Any]]) -> dict[str, Any]:
        if choice == BASE_INCOME:
            return {"type": "RECEIVE_INCOME"}
        if BASE_BUILD <= choice < BASE_CONTINUE:
            return {"type": "BUILD_UNIT", "unitToBuild": UNIT_TYPES[choice - BASE_BUILD]}
        if choice == BASE_CONTINUE:
            return {"type": "CONTINUE_BUILDING_UNIT"}
        if choice == BASE_BOMB:
            return {"type": "MANUFACTURE_BOMB"}
        slot = choice - BASE_MOVE
        if 0 <= slot < len(unit_inputs):
            tile = unit_inputs[slot]["unitLocation"]
            return {"type": "MOVE_BASE", "baseLocation": {"x": tile["x"], "y": tile["y"]}}
        return {"type": "IDLE"}

    # -- mask ------------------------------------------------------------------------------------
    def action_mask(self, seat: int, requests: Sequence[Request]) -> np.ndarray[Any, Any]:
        base = np.zeros(self.base_choices, dtype=np.int8)
        units = np.zeros((self.slots, UNIT_CHOICES), dtype=np.int8)
        base[BASE_IDLE] = 1
        units[:, UNIT_IDLE] = 1
        unit_inputs = [r.payload["input"] for r in requests if r.payload["call"] == "unit"][: self.slots]
        for slot, unit_input in enumerate(unit_inputs):
            units[slot] = _unit_mask(unit_input)
        for request in requests:
            if request.payload["call"] == "base":
                _base_mask(base, request.payload["input"], unit_inputs, self.config.bomb_cost)
        return np.concatenate([base, units.reshape(-1)])

    # -- rewards ---------------------------------------------------------------------------------
    def step_rewards(self, step: Step) -> list[float]:
        """Each faction's score change in this turn (the step record's `factions` rows, spec 12),
        times `SCORE_SCALE`. Turn 1 starts from the DV-12 score 0; later turns from the scores this
        encoding saw at the end of the previous turn (no reward when it did not see them)."""
        turn = int(step.record["turn"])
        scores = [int(row[1]) for row in step.record["factions"]]
        if turn == 1:
            self._scores.clear()
            previous: list[int] | None = [0] * len(scores)
        else:
            previous = self._scores.get(turn - 1)
        self._scores[turn] = scores
        if previous is None:
            return [0.0] * self.seats
        return [(now - before) * SCORE_SCALE for now, before in zip(scores, previous, strict=True)]


def _faction_vector(base_input: dict[str, Any], default_bomb_cost: int) -> list[float]:
    """The `faction` observation (module docstring) from a BaseMoveInput (spec 4.1)."""
    context, faction, build = base_input["context"], base_input["faction"], base_input["buildSlotState"]
    base = faction["base"]
    row: list[float] = [
        context["turnNumber"],
        context["mapWidth"],
        context["mapHeight"],
        base["x"],
        base["y"],
        faction["gold"],
        faction["bombs"],
        faction["territorySize"],
        faction["population"],
        faction["populationCap"],
        faction["kills"],
        faction["score"],
        faction["currentUpkeep"],
    ]
    building = [0.0] * 7
    if build is not None:
        building[0], building[1] = 1.0, build["turnsLeft"]
        building[2 + _TYPE_INDEX[build["unitType"]]] = 1.0
    bonuses = context.get("activeBonuses", [])  # absent in the `course-2024` wire model
    row += building
    row += [float(bonus in bonuses) for bonus in BONUS_TYPES]
    row += [context["unitCost"][t] for t in UNIT_TYPES]
    row.append(context.get("bombCost", default_bomb_cost))
    row += [context["unitMoveCost"][m] for m in UNIT_MOVE_TYPES]
    row += [context["unitBaseHealth"][t] for t in UNIT_TYPES]
    return row


def _unit_rows(unit_input: dict[str, Any]) -> tuple[list[float], list[list[float]]]:
    """One slot's `units` row and its 9 tile rows (row-major 3x3 order) from a UnitMoveInput."""
    unit, here = unit_input["unit"], unit_input["unitLocation"]
    context, faction = unit_input["context"], unit_input["faction"]
    me, base = faction["id"], faction["base"]
    width, height = context["mapWidth"], context["mapHeight"]
    kind = [0.0] * 5
    kind[_TYPE_INDEX[unit["type"]]] = 1.0
    row = [
        1.0,
        *kind,
        unit["health"],
        unit["damage"],
        float(unit["defenseBonus"]),
        float(unit["enlightened"]),
        here["x"],
        here["y"],
        _wrap(base["x"] - here["x"], width),
        _wrap(base["y"] - here["y"], height),
    ]
    base_xy = (base["x"], base["y"])
    view: list[list[float]] = [[]] * 9
    view[4] = _tile_row(here, me, base_xy)
    for cell, location in zip(NEIGHBOUR_CELLS, unit_input["neighbouringLocations"], strict=True):
        view[cell] = _tile_row(location, me, base_xy)
    return row, view


def _tile_row(location: dict[str, Any], me: int, base: tuple[int, int]) -> list[float]:
    """The 19 channels of one Location (spec 4) from faction `me`'s view."""
    owner = location["owner"]
    occupant = location["occupyingUnit"]
    row = [
        float(location["base"]),
        float(location["resource"]),
        float(location["fortified"]),
        float(location["rigged"]),  # `mined` and `rigged` are equal (spec 4); only `rigged` is always sent
        float(owner == me),
        float(owner is not None and owner != me),
        float(owner is None),
        float((location["x"], location["y"]) == base),
    ]
    if occupant is None:
        return row + [0.0] * 11
    kind = [0.0] * 5
    kind[_TYPE_INDEX[occupant["type"]]] = 1.0
    mine = occupant["owner"] == me
    return [
        *row,
        1.0,
        float(mine),
        float(not mine),
        *kind,
        occupant["health"],
        float(occupant["defenseBonus"]),
        float(occupant["enlightened"]),
    ]


def _unit_payload(choice: int, unit_input: dict[str, Any]) -> dict[str, Any]:
    """The UnitMove (spec 5.1) of one unit dimension's choice."""
    neighbours = unit_input["neighbouringLocations"]
    if TRAVEL <= choice < PLAIN:
        target = neighbours[choice - TRAVEL]
        return {"type": "TRAVEL", "targetLocation": {"x": target["x"], "y": target["y"]}}
    if PLAIN <= choice < ATTACK:
        return {"type": PLAIN_MOVES[choice - PLAIN]}
    for start, kind in TARGETED:
        if start <= choice < start + 8:
            occupant = neighbours[choice - start]["occupyingUnit"]
            if occupant is None:
                break
            return {"type": kind, "targetUnit": {"id": occupant["id"]}}
    return {"type": "IDLE"}


def _unit_mask(unit_input: dict[str, Any]) -> np.ndarray[Any, Any]:
    """The unit dimension's legal choices (module docstring, *Mask*)."""
    mask = np.zeros(UNIT_CHOICES, dtype=np.int8)
    mask[UNIT_IDLE] = 1
    unit, here, faction = unit_input["unit"], unit_input["unitLocation"], unit_input["faction"]
    costs, gold, me = unit_input["context"]["unitMoveCost"], faction["gold"], faction["id"]
    allowed = {move for move in MOVES_BY_UNIT_TYPE[unit["type"]] if costs.get(move, 0) <= gold}
    owner = here["owner"]
    conditions = {
        "CONQUER_NEUTRAL_TILE": owner is None,  # DV-33
        "NEUTRALIZE_ENEMY_TILE": owner is not None and owner != me,  # DV-34
        "GENERATE_GOLD": owner == me,  # DV-35
        "PREPARE_DEFENSE": True,  # DV-37
        "FORTIFY": owner == me and not here["fortified"],  # DV-38
        "PRAY": True,  # DV-39
        "DEPLOY_BOMB": owner == me and not here["rigged"] and faction["bombs"] >= 1,  # DV-42
        "CLEAR_BOMB": bool(here["rigged"]),  # DV-43 (a SAPPER sees bombs)
        "RETIRE": True,  # DV-44
    }
    for index, move in enumerate(PLAIN_MOVES):
        mask[PLAIN + index] = move in allowed and conditions[move]
    convert = (
        "CONVERT" in allowed and unit["enlightened"] and faction["population"] < faction["populationCap"]
    )  # DV-41
    heal_limits = unit_input["context"]["unitBaseHealth"]
    for k, location in enumerate(unit_input["neighbouringLocations"]):
        occupant = location["occupyingUnit"]
        if occupant is None:
            mask[TRAVEL + k] = "TRAVEL" in allowed  # DV-31
            continue
        enemy = occupant["owner"] != me
        mask[ATTACK + k] = "ATTACK" in allowed and enemy  # DV-36
        wounded = occupant["health"] < heal_limits[occupant["type"]]
        mask[HEAL + k] = "HEAL" in allowed and not enemy and wounded  # DV-40
        mask[CONVERT + k] = convert and enemy
    return mask


def _base_mask(
    mask: np.ndarray[Any, Any],
    base_input: dict[str, Any],
    unit_inputs: list[dict[str, Any]],
    default_bomb_cost: int,
) -> None:
    """Fill the base dimension's legal choices (module docstring, *Mask*) into `mask`."""
    context, faction = base_input["context"], base_input["faction"]
    gold = faction["gold"]
    mask[BASE_INCOME] = 1  # DV-24
    free = base_input["buildSlotState"] is None
    room = faction["population"] < faction["populationCap"]
    for index, kind in enumerate(UNIT_TYPES):  # DV-25
        mask[BASE_BUILD + index] = free and room and context["unitCost"][kind] <= gold
    mask[BASE_CONTINUE] = not free  # DV-26
    mask[BASE_BOMB] = context.get("bombCost", default_bomb_cost) <= gold  # DV-28
    home = faction["base"]
    for slot, unit_input in enumerate(unit_inputs):  # DV-29
        tile = unit_input["unitLocation"]
        elsewhere = (tile["x"], tile["y"]) != (home["x"], home["y"])
        mask[BASE_MOVE + slot] = tile["base"] and tile["owner"] == faction["id"] and elsewhere
