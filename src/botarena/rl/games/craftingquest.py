"""Crafting Quest 2 for learners (spec: shared specs craftingquest.md; rules CQ-n, sections §n).

| | |
|---|---|
| agents | `player_0`, `player_1` (seats 0 and 1 = players 1 and 2, CQ-2) |
| dynamics | alternating (CQ-29): one env step is one action request of the team whose turn it is (a `turn_start` or a `result`, CQ-31); the native AEC env's `agent_selection` is that team; in the parallel env the waiting team's action is ignored |
| observation | `Dict` of `map` `Box(0, 255, (31, H, W), uint8)`, `units` `Box(0, cap, (3, 40), float32)`, `team` `Box(0, cap, (33,), float32)`, `catalogue` `Box(0, cap, (12, 51), float32)`; the team's memory of everything its payloads showed this match (below) |
| action | `Discrete(253)`: 0 is `end_turn` (CQ-47); `1 + 84 * k + a` is action `a` of unit slot k (Devil, Fox, Crocodile, CQ-2), below |
| action mask | `info["action_mask"]` (int8, 253): end_turn always; a unit action where the team's knowledge says the game accepts it (costs CQ-36, the checks of CQ-37 to CQ-46); a waiting team's mask allows only end_turn |
| step reward | the change of the team's own credit on the step (sales CQ-44, purchases CQ-45, towers CQ-46), divided by 1000 |
| terminal reward | rank-based: +1 for the higher final credit, -1 for the lower, 0 for a draw (§6), on the last step |
| episode | one match: `rounds` rounds of two turns, each a chain of up to `max_actions_per_turn` steps |

**Memory.** A `result` (§4.4) shows only the acting unit, so the encoding keeps, per learner seat and
per match (reset by the `setup` request, §4.1), what its payloads showed: the terrain, camps, towers,
units and piles of every view (§4.2), every scan (CQ-40) and dig (CQ-39) result, and its own units'
last state. Nothing else: no hidden state ever enters (§4.6). While a team waits, and once the match
is over, its observation is all zeros (`team[0]`, "acting", is 0 then and 1 otherwise).

**`map`** planes, indexed [plane, y, x] (CQ-1), 0 where unknown:
0-7 terrain one-hot in CQ-3 code order (grass, dirt, sand, snow, rock, swamp, water, deep_water);
8 seen; 9 camp; 10 own standing tower; 11 opponent standing tower (as last seen); 12, 13, 14 own
Devil, Fox, Crocodile; 15 opponent units (count, as last seen); 16 visible resource pile (total, at
most 255); 17 dropped objects (total); 18 covered by a scan of the team; 19 buried types the last
scan showed (vector count); 20-24 and 25-29 the first and second scan vectors (CQ-21, sorted as
CQ-40 sends them); 30 buried quantity known from digs (total, less the team's pickups, at most 255).

**`units`** rows, one per unit slot: x, y, energy, carried total (CQ-37); resources R1-R12; objects
O1-O12; the blueprints a camp within `camp_radius` stocks (12 flags, CQ-45).

**`team`**: acting, round, rounds_left, credit, actions_left (§4.3), request is a `result` (1) or a
`turn_start` (0), the last result's `ok`; blueprints owned (12 flags); the last error's code one-hot
in `ERROR_CODES` order (§5.3).

**`catalogue`** rows, one per blueprint O1-O12 (§4.1): complex (1) or simple (0), price, value, then
alternative 0 and alternative 1 as quantities of R1-R12, O1-O12 (24 each).

**Unit actions** `a` (84 per unit): 0-7 move to the neighbour in the order (-1,-1), (0,-1), (1,-1),
(-1,0), (1,0), (-1,1), (0,1), (1,1) (CQ-37); 8 dig (CQ-39); 9 scan (CQ-40); 10-33 pick up all the
team knows to be available of R1-R12, O1-O12 on the unit's cell (the visible pile plus dug-known
buried quantity, CQ-41); 34 drop everything carried (CQ-42); 35-58 craft blueprint `b` by
alternative `alt` at `35 + 2 * b + alt` (CQ-43); 59-70 sell every carried O1-O12 (CQ-44); 71-82 buy
blueprint O1-O12 (CQ-45); 83 build a tower (CQ-46). Unmasked choices still send a well-formed
request (a quantity of at least 1), which the game refuses with its own error: never an INVALID.

The mask is exact except where the team cannot know: a pickup fails (`PickupError`) if the opponent
emptied the cell since the team's dig, and a tower is offered only on a cell known to be empty (a
scan or a dig of the team showed nothing buried there).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from gymnasium import spaces

from botarena.core.game import Step
from botarena.core.protocol import Request
from botarena.games.craftingquest.constants import ERROR_CODES
from botarena.games.craftingquest.geometry import NEIGHBOUR_OFFSETS
from botarena.rl.encoding import Encoding, capped_box

ITEMS: tuple[str, ...] = (*(f"R{i}" for i in range(1, 13)), *(f"O{i}" for i in range(1, 13)))
ITEM_INDEX = {item: index for index, item in enumerate(ITEMS)}
OBJECTS = ITEMS[12:]
TERRAIN_CHARS = ".:s*#~wW"
TERRAIN_NAMES = ("grass", "dirt", "sand", "snow", "rock", "swamp", "water", "deep_water")
KINDS = ("devil", "fox", "crocodile")

# map planes
SEEN, CAMP, OWN_TOWER, OPP_TOWER, OWN_UNIT, OPP_UNITS = 8, 9, 10, 11, 12, 15
PILE, DROPPED, SCANNED, VECTOR_COUNT, VECTORS, DUG = 16, 17, 18, 19, 20, 30
PLANES = 31
# unit actions
MOVE, DIG, SCAN, PICKUP, DROP_ALL, CRAFT, SELL, BUY, BUILD_TOWER = 0, 8, 9, 10, 34, 35, 59, 71, 83
PER_UNIT = 84
END_TURN = 0
ACTIONS = 1 + 3 * PER_UNIT
UNIT_FEATURES = 4 + 12 + 12 + 12
TEAM_FEATURES = 7 + 12 + len(ERROR_CODES)
CATALOGUE_FEATURES = 3 + 2 * len(ITEMS)
CREDIT_SCALE = 1000.0
"""Step rewards are credit changes in thousands."""

_CHAR_CODE = np.full(256, -1, dtype=np.int16)
for _code, _char in enumerate(TERRAIN_CHARS):
    _CHAR_CODE[ord(_char)] = _code


def unit_action(slot: int, action: int) -> int:
    """The flat action index of unit slot `slot`'s action `action` (module docstring)."""
    return 1 + PER_UNIT * slot + action


@dataclass
class TeamMemory:
    """What one team's payloads showed this match (module docstring, "Memory")."""

    width: int
    height: int
    player: int = 1
    rules: dict[str, Any] = field(default_factory=dict)
    catalogue: dict[str, dict[str, Any]] = field(default_factory=dict)
    planes: np.ndarray[Any, np.dtype[np.uint8]] = field(init=False)
    terrain: np.ndarray[Any, np.dtype[np.int16]] = field(init=False)
    units: dict[int, dict[str, Any]] = field(default_factory=dict)
    stock_near: dict[int, set[str]] = field(default_factory=dict)
    piles: dict[tuple[int, int], dict[str, int]] = field(default_factory=dict)
    dug: dict[tuple[int, int], dict[str, int]] = field(default_factory=dict)
    known_empty: np.ndarray[Any, np.dtype[np.bool_]] = field(init=False)
    """Cells a scan or a dig of the team showed to hold nothing buried (buried only decreases)."""
    credit: int = 0
    rounds_left: int = 0
    owned: set[str] = field(default_factory=set)
    team: np.ndarray[Any, np.dtype[np.float32]] = field(init=False)
    seen_request: Request | None = None

    def __post_init__(self) -> None:
        self.planes = np.zeros((PLANES, self.height, self.width), dtype=np.uint8)
        self.terrain = np.full((self.height, self.width), -1, dtype=np.int16)
        self.team = np.zeros(TEAM_FEATURES, dtype=np.float32)
        self.known_empty = np.zeros((self.height, self.width), dtype=np.bool_)
        self.catalogue_rows = np.zeros((12, CATALOGUE_FEATURES), dtype=np.float32)

    # -- absorbing payloads ------------------------------------------------------------------------

    def setup(self, payload: dict[str, Any]) -> None:
        """§4.1: the rules, the catalogue and the units' first views."""
        self.player = int(payload["player"])
        self.rules = payload["rules"]
        self.catalogue = {bp["id"]: bp for bp in payload["blueprints"]}
        self.catalogue_rows = catalogue_array(self.catalogue)
        self.credit = int(payload["credit"])
        for unit in payload["units"]:
            self._unit(unit)

    def absorb(self, payload: dict[str, Any]) -> None:
        """A `turn_start` (§4.3) or a `result` (§4.4)."""
        if payload.get("type") == "result":
            self._result(payload)
        else:
            for unit in payload.get("units", []):
                self._unit(unit)
        self.credit = int(payload["credit"])
        self.rounds_left = int(payload.get("rounds_left", self.rounds_left))
        self.owned = set(payload["blueprints_owned"])
        self._own_towers(payload["towers"])
        team = self.team
        team[:] = 0.0
        team[:7] = [
            1.0,
            payload["round"],
            self.rounds_left,
            self.credit,
            payload["actions_left"],
            payload.get("type") == "result",
            bool(payload.get("ok", True)),
        ]
        for blueprint in self.owned:
            team[7 + ITEM_INDEX[blueprint] - 12] = 1.0
        error = payload.get("error")
        if error and error.get("code") in ERROR_CODES:
            team[19 + ERROR_CODES.index(error["code"])] = 1.0

    def _result(self, payload: dict[str, Any]) -> None:
        unit, request = payload.get("unit"), payload.get("action")
        if unit is not None and payload.get("ok") and isinstance(request, dict):
            cell = (int(unit["x"]), int(unit["y"]))
            kind = request.get("action")
            if kind == "pickup":
                self._picked(cell, request.get("items") or {})
            elif kind == "dig" and "dig" in payload:
                self._dug(cell, payload["dig"])
            elif kind == "scan" and "scan" in payload:
                self._scanned(cell, payload["scan"])
        elif unit is not None and (payload.get("error") or {}).get("code") == "PickupError":
            # the opponent took some since the team's dig: what is buried there is unknown again
            self.dug.pop((int(unit["x"]), int(unit["y"])), None)
            self.planes[DUG, unit["y"], unit["x"]] = 0
        if unit is not None:
            self._unit(unit)

    def _picked(self, cell: tuple[int, int], items: dict[str, Any]) -> None:
        """CQ-41: the visible pile goes first, the rest comes out of the buried quantity."""
        pile, buried = self.piles.get(cell, {}), self.dug.get(cell)
        for item, amount in items.items():
            from_buried = max(0, int(amount) - pile.get(item, 0))
            if buried is not None and item in buried:
                buried[item] = max(0, buried[item] - from_buried)
        if buried is not None:
            self.planes[DUG, cell[1], cell[0]] = min(255, sum(buried.values()))

    def _dug(self, cell: tuple[int, int], found: dict[str, int]) -> None:
        self.dug[cell] = {item: int(amount) for item, amount in found.items()}
        self.planes[DUG, cell[1], cell[0]] = min(255, sum(self.dug[cell].values()))
        if not found:
            self.known_empty[cell[1], cell[0]] = True

    def _scanned(self, cell: tuple[int, int], cells: list[dict[str, Any]]) -> None:
        """CQ-40: the scan window is covered; listed cells hold their vectors, the others nothing."""
        radius = int(self.rules["scan_radius"])
        x, y = cell
        left, right = max(0, x - radius), min(self.width, x + radius + 1)
        top, bottom = max(0, y - radius), min(self.height, y + radius + 1)
        planes = self.planes
        planes[SCANNED, top:bottom, left:right] = 1
        planes[VECTOR_COUNT : VECTORS + 10, top:bottom, left:right] = 0
        for entry in cells:
            cx, cy, vectors = int(entry["x"]), int(entry["y"]), entry["vectors"]
            planes[VECTOR_COUNT, cy, cx] = min(255, len(vectors))
            for slot, vector in enumerate(vectors[:2]):
                start = VECTORS + 5 * slot
                planes[start : start + 5, cy, cx] = vector[:5]  # attribute values are 1..5 (CQ-19)
        window = planes[VECTOR_COUNT, top:bottom, left:right] == 0
        self.known_empty[top:bottom, left:right] |= window

    def _unit(self, unit: dict[str, Any]) -> None:
        """§4.2: a unit of the team, and everything its view shows."""
        uid = int(unit["id"])
        slot = uid - 3 * self.player
        previous = self.units.get(uid)
        if previous is not None:
            self.planes[OWN_UNIT + slot, previous["y"], previous["x"]] = 0
        self.units[uid] = unit
        self.planes[OWN_UNIT + slot, unit["y"], unit["x"]] = 1
        self._view(uid, unit["view"])

    def _view(self, uid: int, view: dict[str, Any]) -> None:
        rows = view["terrain"]
        size = len(rows)
        chars = np.frombuffer("".join(rows).encode("ascii"), dtype=np.uint8).reshape(size, size)
        codes = _CHAR_CODE[chars]
        x0, y0 = int(view["x0"]), int(view["y0"])
        left, top = max(0, x0), max(0, y0)
        right, bottom = min(self.width, x0 + size), min(self.height, y0 + size)
        window = codes[top - y0 : bottom - y0, left - x0 : right - x0]
        self.terrain[top:bottom, left:right] = window
        planes = self.planes
        onehot = window[None, :, :] == np.arange(8, dtype=np.int16)[:, None, None]
        planes[0:8, top:bottom, left:right] = onehot
        planes[SEEN, top:bottom, left:right] = 1
        for plane in (CAMP, OPP_TOWER, OPP_UNITS, PILE, DROPPED):
            planes[plane, top:bottom, left:right] = 0
        for gone in [c for c in self.piles if left <= c[0] < right and top <= c[1] < bottom]:
            del self.piles[gone]
        stock: set[str] = set()
        for cell in view["cells"]:
            self._view_cell(cell, stock)
        self.stock_near[uid] = stock

    def _view_cell(self, cell: dict[str, Any], stock: set[str]) -> None:
        x, y = int(cell["x"]), int(cell["y"])
        planes = self.planes
        camp = cell.get("camp")
        if camp is not None:
            planes[CAMP, y, x] = 1
            stock.update(camp.get("stock") or [])
        tower = cell.get("tower")
        if tower is not None and tower["owner"] != self.player:
            planes[OPP_TOWER, y, x] = 1
        opponents = sum(1 for unit in cell.get("units", []) if unit["player"] != self.player)
        planes[OPP_UNITS, y, x] = min(255, opponents)
        resources, objects = cell.get("resources") or {}, cell.get("objects") or {}
        planes[PILE, y, x] = min(255, sum(resources.values()))
        planes[DROPPED, y, x] = min(255, sum(objects.values()))
        if resources or objects:
            self.piles[(x, y)] = {**resources, **objects}

    def _own_towers(self, towers: list[dict[str, Any]]) -> None:
        self.planes[OWN_TOWER] = 0
        for tower in towers:
            if tower["alive"]:
                self.planes[OWN_TOWER, tower["y"], tower["x"]] = 1

    # -- derived quantities --------------------------------------------------------------------------

    def unit(self, slot: int) -> dict[str, Any]:
        return self.units[3 * self.player + slot]

    def pickable(self, cell: tuple[int, int]) -> set[str]:
        """The items the team knows to lie or be buried on `cell`."""
        return {*self.piles.get(cell, {}), *self.dug.get(cell, {})}

    def available(self, cell: tuple[int, int], item: str) -> int:
        """What the team knows it could pick up of `item` on `cell` (CQ-41)."""
        known = self.piles.get(cell, {}).get(item, 0)
        return known + self.dug.get(cell, {}).get(item, 0)

    def move_cost(self, unit: dict[str, Any], code: int) -> int:
        """CQ-37 with the rules of the `setup` payload."""
        penalty = int(self.rules["terrain"][TERRAIN_NAMES[code]]["penalty_pct"] or 0)
        carried = int(sum(unit["resources"].values()) + sum(unit["objects"].values()))
        base, divisor = int(self.rules["move_base_cost"]), int(self.rules["carry_divisor"])
        return base * (100 + penalty) // 100 + carried // divisor

    def guarded(self, x: int, y: int) -> bool:
        """CQ-41: a standing opponent tower within `tower_radius` (any such tower is in sight)."""
        radius = int(self.rules["tower_radius"])
        window = self.planes[
            OPP_TOWER, max(0, y - radius) : y + radius + 1, max(0, x - radius) : x + radius + 1
        ]
        return bool(window.any())


class CraftingQuestEncoding(Encoding):
    """See the module docstring."""

    def __init__(self, config: Any, seats: int) -> None:
        super().__init__(config, seats)
        self.width, self.height = int(config.width), int(config.height)
        self.observation_space = spaces.Dict(
            {
                "map": spaces.Box(0, 255, (PLANES, self.height, self.width), np.uint8),
                "units": capped_box((3, UNIT_FEATURES)),
                "team": capped_box((TEAM_FEATURES,)),
                "catalogue": capped_box((12, CATALOGUE_FEATURES)),
            }
        )
        self.action_space = spaces.Discrete(ACTIONS)
        self.memory: dict[int, TeamMemory] = {}
        self._credits = [float(config.initial_credit)] * seats

    # -- the match's start -------------------------------------------------------------------------

    def start_reply(self, request: Request) -> Any:
        """A new match: the seat's memory starts from its `setup` payload (§4.1)."""
        memory = TeamMemory(self.width, self.height)
        memory.setup(request.payload)
        self.memory[request.seat] = memory
        self._credits = [float(request.payload["credit"])] * self.seats
        return {"ready": True}

    def late_answer(self, request: Request) -> Any:
        """The result sent with `actions_left: 0` (CQ-31): the turn has closed; a late `end_turn`
        is discarded (CQ-33), so the next turn is played as usual."""
        return {"action": "end_turn"}

    # -- observation ---------------------------------------------------------------------------------

    def _memory(self, seat: int, requests: Sequence[Request]) -> TeamMemory | None:
        """The seat's memory, brought up to date with its current request (once per request)."""
        if not requests or seat not in self.memory:
            return None
        memory = self.memory[seat]
        request = requests[0]
        if memory.seen_request is not request:
            memory.absorb(request.payload)
            memory.seen_request = request
        return memory

    def observe(self, seat: int, requests: Sequence[Request]) -> dict[str, np.ndarray[Any, Any]]:
        memory = self._memory(seat, requests)
        if memory is None:
            return self._zeros()
        units = np.zeros((3, UNIT_FEATURES), dtype=np.float32)
        for slot in range(3):
            unit = memory.unit(slot)
            row = units[slot]
            row[:3] = unit["x"], unit["y"], unit["energy"]
            for item, amount in (*unit["resources"].items(), *unit["objects"].items()):
                row[4 + ITEM_INDEX[item]] = amount
            row[3] = row[4:28].sum()
            for blueprint in memory.stock_near.get(unit["id"], ()):
                row[28 + ITEM_INDEX[blueprint] - 12] = 1.0
        return {
            "map": memory.planes.copy(),
            "units": units,
            "team": memory.team.copy(),
            "catalogue": memory.catalogue_rows.copy(),
        }

    def _zeros(self) -> dict[str, np.ndarray[Any, Any]]:
        return {
            "map": np.zeros((PLANES, self.height, self.width), dtype=np.uint8),
            "units": np.zeros((3, UNIT_FEATURES), dtype=np.float32),
            "team": np.zeros(TEAM_FEATURES, dtype=np.float32),
            "catalogue": np.zeros((12, CATALOGUE_FEATURES), dtype=np.float32),
        }

    # -- mask ----------------------------------------------------------------------------------------

    def action_mask(self, seat: int, requests: Sequence[Request]) -> np.ndarray[Any, Any]:
        mask = np.zeros(ACTIONS, dtype=np.int8)
        mask[END_TURN] = 1
        memory = self._memory(seat, requests)
        if memory is None:
            return mask
        for slot in range(3):
            start = unit_action(slot, 0)
            mask[start : start + PER_UNIT] = unit_mask(memory, slot)
        return mask

    # -- action --------------------------------------------------------------------------------------

    def act(self, seat: int, requests: Sequence[Request], action: Any) -> list[Any]:
        memory = self._memory(seat, requests)
        index = int(action)
        if memory is None or not 0 < index < ACTIONS:
            return [{"action": "end_turn"}]
        slot, kind = divmod(index - 1, PER_UNIT)
        return [action_payload(memory, slot, kind)]

    # -- rewards -------------------------------------------------------------------------------------

    def step_rewards(self, step: Step) -> list[float]:
        """Each team's credit change on the step (the state after it, §7.4), in thousands."""
        state = step.record.get("state") or {}
        credits = state.get("credits")
        if not credits:
            return [0.0] * self.seats
        now = [float(credits[str(seat + 1)]) for seat in range(self.seats)]
        rewards = [(new - old) / CREDIT_SCALE for new, old in zip(now, self._credits, strict=True)]
        self._credits = now
        return rewards


def catalogue_array(catalogue: dict[str, dict[str, Any]]) -> np.ndarray[Any, np.dtype[np.float32]]:
    """§4.1's blueprints as the `catalogue` rows of the module docstring."""
    array = np.zeros((12, CATALOGUE_FEATURES), dtype=np.float32)
    for blueprint_id, blueprint in catalogue.items():
        row = array[ITEM_INDEX[blueprint_id] - 12]
        row[:3] = blueprint["kind"] == "complex", blueprint["price"], blueprint["value"]
        for alt, alternative in enumerate(blueprint["alternatives"][:2]):
            for item, amount in alternative.items():
                row[3 + len(ITEMS) * alt + ITEM_INDEX[item]] = amount
    return array


def _carries(unit: dict[str, Any], items: dict[str, int]) -> bool:
    carried = {**unit["resources"], **unit["objects"]}
    return all(carried.get(item, 0) >= amount for item, amount in items.items())


def unit_mask(memory: TeamMemory, slot: int) -> np.ndarray[Any, np.dtype[np.int8]]:
    """The legal actions of one unit (module docstring), from what the team knows."""
    rules, unit = memory.rules, memory.unit(slot)
    mask = np.zeros(PER_UNIT, dtype=np.int8)
    energy, x, y = int(unit["energy"]), int(unit["x"]), int(unit["y"])
    kind = KINDS[slot]
    costs = [memory.move_cost(unit, code) for code in range(len(TERRAIN_NAMES))]
    for direction, (dx, dy) in enumerate(NEIGHBOUR_OFFSETS):
        tx, ty = x + dx, y + dy
        if not (0 <= tx < memory.width and 0 <= ty < memory.height):
            continue  # CQ-37 MoveError
        code = int(memory.terrain[ty, tx])
        if code < 0 or kind not in rules["terrain"][TERRAIN_NAMES[code]]["enter"]:
            continue  # unknown, or CQ-37 TerrainError
        if (
            memory.planes[CAMP, ty, tx]
            or memory.planes[OWN_TOWER, ty, tx]
            or memory.planes[OPP_TOWER, ty, tx]
        ):
            continue  # CQ-37 ObstacleError
        mask[MOVE + direction] = energy >= costs[code]
    mask[DIG] = energy >= int(rules["dig_cost"])
    mask[SCAN] = energy >= int(rules["scan_cost"])
    cell = (x, y)
    if energy >= int(rules["pickup_cost"]) and not memory.guarded(x, y):
        for item in memory.pickable(cell):
            mask[PICKUP + ITEM_INDEX[item]] = memory.available(cell, item) > 0
    carried = {**unit["resources"], **unit["objects"]}
    mask[DROP_ALL] = bool(carried) and energy >= int(rules["drop_cost"])
    if energy >= int(rules["craft_cost"]):
        for blueprint in memory.owned:
            alternatives = memory.catalogue[blueprint]["alternatives"]
            for alt, alternative in enumerate(alternatives[:2]):
                mask[CRAFT + 2 * (ITEM_INDEX[blueprint] - 12) + alt] = _carries(unit, alternative)
    if energy >= int(rules["sell_cost"]):
        for obj in unit["objects"]:
            mask[SELL + ITEM_INDEX[obj] - 12] = 1
    if energy >= int(rules["buy_cost"]):
        for blueprint in memory.stock_near.get(unit["id"], ()):
            if blueprint not in memory.owned and memory.credit >= memory.catalogue[blueprint]["price"]:
                mask[BUY + ITEM_INDEX[blueprint] - 12] = 1
    mask[BUILD_TOWER] = (
        energy >= int(rules["tower_energy_cost"])
        and memory.credit >= int(rules["tower_price"])
        and not memory.planes[OWN_TOWER, y, x]
        and cell not in memory.piles
        and memory.known_empty[y, x]
    )
    return mask


def action_payload(memory: TeamMemory, slot: int, kind: int) -> dict[str, Any]:
    """The request (§5.1) of unit slot `slot`'s action `kind`; quantities are at least 1, so an
    unmasked choice is a well-formed request that the game refuses with its own error."""
    unit = memory.unit(slot)
    uid = int(unit["id"])
    max_quantity = int(memory.rules.get("max_quantity", 1_000_000))
    if kind < DIG:
        dx, dy = NEIGHBOUR_OFFSETS[kind - MOVE]
        return {"action": "move", "unit": uid, "x": int(unit["x"]) + dx, "y": int(unit["y"]) + dy}
    if kind == DIG:
        return {"action": "dig", "unit": uid}
    if kind == SCAN:
        return {"action": "scan", "unit": uid}
    if kind < DROP_ALL:
        item = ITEMS[kind - PICKUP]
        amount = memory.available((int(unit["x"]), int(unit["y"])), item)
        return {"action": "pickup", "unit": uid, "items": {item: min(max(1, amount), max_quantity)}}
    if kind == DROP_ALL:
        items = {**unit["resources"], **unit["objects"]} or {"R1": 1}
        return {"action": "drop", "unit": uid, "items": items}
    if kind < SELL:
        blueprint, alt = divmod(kind - CRAFT, 2)
        return {"action": "craft", "unit": uid, "object": OBJECTS[blueprint], "alternative": alt}
    if kind < BUY:
        obj = OBJECTS[kind - SELL]
        quantity = max(1, int(unit["objects"].get(obj, 0)))
        return {"action": "sell", "unit": uid, "object": obj, "quantity": quantity}
    if kind < BUILD_TOWER:
        return {"action": "buy", "unit": uid, "blueprint": OBJECTS[kind - BUY]}
    return {"action": "build_tower", "unit": uid}
