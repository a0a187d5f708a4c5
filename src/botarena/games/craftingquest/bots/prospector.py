"""The Prospector (spec §10): learns the resource types, buys one simple blueprint, crafts and sells.

An in-process bot: `setup(payload)`, `act(payload) -> action`, `end(payload)`. Each `turn_start` and
each `result` is one question, answered with one action (§7.2); the turn ends with `end_turn`.

Per unit, in ascending id, each question goes through §10's steps: sell what it carries; craft an
owned alternative it carries in full; the buyer heads for a camp that stocks the goal blueprint and
buys it; the others gather (dig a cell known to hold a needed type, pick up, dig unexplained cells,
scan, walk). A unit with nothing useful left, or without the energy for its next action, is done for
the turn; the turn ends once every unit is done.

Paths are breadth-first searches over known cells (`prospector_planning.bfs_path`), kept and followed
until what the team knows changes, so a turn costs a few searches rather than one per move.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable
from typing import Any

from botarena.games.craftingquest.bots.prospector_memory import UNKNOWN, Memory
from botarena.games.craftingquest.bots.prospector_planning import (
    bfs_path,
    choose_alternative,
    craftable,
    goal_blueprint,
    id_number,
    missing,
    move_cost,
)

Payload = dict[str, Any]

END_TURN: Payload = {"action": "end_turn"}
ENDGAME_ROUNDS = 15  # §10 "Endgame": no buying in the last 15 rounds
DETOUR = 2  # §10 step 3: extra steps the buyer accepts to see a camp's stock on its way
MAX_ACTIONS_PER_UNIT = 60  # a bound per unit and turn, so that no unforeseen loop can spin
TIMED_SHARE = 0.7  # in timed mode, end the turn after this share of the budget (the runner needs time too)


class Prospector:
    """The decent starter bot of spec §10."""

    def __init__(self) -> None:
        self.rng = random.Random(0)
        self.memory: Memory | None = None
        self.units: dict[int, Payload] = {}
        self.catalogue: dict[str, Payload] = {}
        self.simple_ids: list[str] = []
        self.rules: Payload = {}
        self.credit = 0
        self.owned: set[str] = set()
        self.rounds = 0
        self.rounds_left = 0
        self.budget_s = 0.0
        self.turn_started = 0.0
        self.done: set[int] = set()
        self.actions_this_turn: dict[int, int] = {}
        self.buyer: int | None = None
        self.buyer_chosen = False
        self.paths: dict[int, tuple[str, list[int], tuple[int, int, int]]] = {}
        self.no_path: dict[tuple[int, str], Any] = {}
        self.index_serial = 0
        self._optimistic: dict[str, tuple[tuple[int, int], bytearray]] = {}
        self.located: dict[str, set[int]] = {}
        self.unexplained_cells: set[int] = set()

    # ----------------------------------------------------------------- the three calls

    def setup(self, payload: Payload) -> Payload:
        # §10: randomness from bot_seed. Every choice below breaks ties by id or order, so the
        # generator is never drawn from; it is here for variants that want random choices.
        self.rng = random.Random(int(payload.get("bot_seed", 0)))
        self.memory = Memory(payload)
        self.rules = dict(payload.get("rules") or {})
        self.catalogue = {str(bp["id"]): bp for bp in payload.get("blueprints") or ()}
        self.simple_ids = sorted(
            (i for i, bp in self.catalogue.items() if bp.get("kind") == "simple"), key=id_number
        )
        self.credit = int(payload.get("credit", 0))
        self.rounds = int(payload.get("rounds", 0))
        self.rounds_left = self.rounds
        self.budget_s = int(payload.get("turn_budget_ms", 0)) / 1000.0
        for unit in payload.get("units") or ():
            self._absorb_unit(unit)
        return {"ready": True}

    def act(self, payload: Payload) -> Payload:
        kind = payload.get("type")
        if kind == "turn_start":
            self._begin_turn(payload)
        elif kind == "result":
            self._absorb_result(payload, late=False)
        if int(payload.get("actions_left", 1)) <= 0:
            return END_TURN  # the turn has closed already (CQ-31); this answer would be late
        if self.budget_s > 0 and time.perf_counter() - self.turn_started > TIMED_SHARE * self.budget_s:
            return END_TURN
        return self._next_action()

    def end(self, payload: Payload) -> Payload:
        return {}

    # ----------------------------------------------------------------- reading payloads

    def _absorb_unit(self, unit: Payload) -> None:
        assert self.memory is not None
        self.units[int(unit["id"])] = unit
        self.memory.absorb_unit(unit)

    def _team_state(self, payload: Payload) -> None:
        if "credit" in payload:
            self.credit = int(payload["credit"])
        if "blueprints_owned" in payload:
            self.owned = {str(b) for b in payload["blueprints_owned"] or ()}

    def _begin_turn(self, payload: Payload) -> None:
        self.turn_started = time.perf_counter()
        self.rounds_left = int(payload.get("rounds_left", self.rounds_left))
        self.done = set()
        self.actions_this_turn = {}
        self.buyer_chosen = False
        late = payload.get("late")
        if isinstance(late, dict):  # CQ-33: the late action's outcome, older than this turn's units
            self._absorb_result(late, late=True)
        self._team_state(payload)
        for unit in payload.get("units") or ():
            self._absorb_unit(unit)

    def _absorb_result(self, payload: Payload, late: bool) -> None:
        """Learn from one `result` (§4.4): the unit's new state, and a dig, scan or pickup's outcome."""
        assert self.memory is not None
        self._team_state(payload)
        unit = payload.get("unit")
        if isinstance(unit, dict):
            self._absorb_unit(unit)
        action = payload.get("action")
        if not isinstance(action, dict) or not isinstance(unit, dict):
            return
        uid = int(unit["id"])
        cell = self.memory.cell(int(unit["x"]), int(unit["y"]))
        name = action.get("action")
        if payload.get("ok"):
            if name == "dig":
                self.memory.absorb_dig(cell, payload.get("dig") or {})
            elif name == "scan":
                self.memory.absorb_scan(int(unit["x"]), int(unit["y"]), payload.get("scan") or ())
            elif name == "pickup":
                self.memory.took(cell, action.get("items") or {})
            elif name == "move":
                path = self.paths.get(uid)
                if path and path[1] and path[1][0] == cell:
                    path[1].pop(0)
            return
        error = payload.get("error") or {}
        self.paths.pop(uid, None)
        if error.get("code") == "PickupError":
            self.memory.forget_quantities(cell)  # §10: dig again before the next pickup here
        elif not late:
            self.done.add(uid)  # do not retry a failing action in this turn

    # ----------------------------------------------------------------- choosing the next action

    def _next_action(self) -> Payload:
        for uid in sorted(self.units):
            if uid in self.done:
                continue
            count = self.actions_this_turn.get(uid, 0)
            action = self._decide(uid) if count < MAX_ACTIONS_PER_UNIT else None
            if action is None:
                self.done.add(uid)
                continue
            self.actions_this_turn[uid] = count + 1
            return action
        return END_TURN

    def _owned_simple(self) -> list[tuple[str, list[dict[str, int]]]]:
        return [(i, self.catalogue[i]["alternatives"]) for i in self.simple_ids if i in self.owned]

    def _decide(self, uid: int) -> Payload | None:
        unit = self.units[uid]
        energy = int(unit["energy"])
        objects = unit.get("objects") or {}
        for obj in sorted(objects, key=id_number):  # §10 step 1: sell everything carried
            if int(objects[obj]) > 0 and energy >= int(self.rules.get("sell_cost", 0)):
                return {"action": "sell", "unit": uid, "object": obj, "quantity": int(objects[obj])}
        owned = self._owned_simple()
        ready = craftable(unit.get("resources") or {}, owned)
        if ready is not None and energy >= int(self.rules.get("craft_cost", 0)):  # §10 step 2
            return {"action": "craft", "unit": uid, "object": ready[0], "alternative": ready[1]}
        if self._is_buyer(uid):  # §10 step 3
            action = self._buy_step(uid)
            if action is not None:
                return action
        return self._gather_step(uid)  # §10 step 4

    # ----------------------------------------------------------------- step 3: buying the goal blueprint

    def _goal(self) -> str | None:
        """The blueprint still to buy, or None once one simple blueprint is owned (or in the endgame)."""
        if any(i in self.owned for i in self.simple_ids) or self.rounds_left < ENDGAME_ROUNDS:
            return None
        return goal_blueprint(self.catalogue.values(), self.credit)

    def _is_buyer(self, uid: int) -> bool:
        if self._goal() is None:
            return False
        if not self.buyer_chosen:
            self.buyer = self._choose_buyer()
            self.buyer_chosen = True
        return self.buyer == uid

    def _choose_buyer(self) -> int | None:
        """The unit nearest (by path) to its buying target; ties to the lower id (§10 step 3)."""
        best: tuple[int, int] | None = None
        for uid in sorted(self.units):
            plan = self._buy_plan(uid)
            if plan is not None and (best is None or len(plan[1]) < best[0]):
                best = (len(plan[1]), uid)
        return None if best is None else best[1]

    def _stocking_camps(self, goal: str) -> list[int]:
        assert self.memory is not None
        return [c for c, stock in self.memory.camps.items() if stock is not None and goal in stock]

    def _buy_plan(self, uid: int) -> tuple[str, list[int]] | None:
        """(category, path) towards a camp that stocks the goal, else a camp of unknown stock, else
        unseen cells. Unknown cells count as open here, so a path can lead into the unexplored."""
        memory = self.memory
        goal = self._goal()
        assert memory is not None and goal is not None
        unit = self.units[uid]
        kind = str(unit["kind"])
        here = memory.cell(int(unit["x"]), int(unit["y"]))
        radius = int(self.rules.get("camp_radius", 1))
        stocking = self._stocking_camps(goal)
        unseen = [c for c, stock in memory.camps.items() if stock is None]
        open_ = self._optimistic_open(kind)
        if stocking:
            if any(memory.cheb(here, camp) <= radius for camp in stocking):
                return "buy", []
            # camps of unknown stock on the way (a detour of at most DETOUR) are visited too
            cheb = memory.cheb
            direct = min(cheb(here, camp) for camp in stocking)
            unseen = [
                c for c in unseen if cheb(here, c) + min(cheb(c, s) for s in stocking) <= direct + DETOUR
            ]
            stocking = stocking + unseen
        for category, camps in (("buy", stocking), ("camp", unseen)):
            if not camps:
                continue
            near: set[int] = set()
            for camp in camps:
                near.update(self._within(camp, radius))
            path = self._cached_path(uid, category, open_, near.__contains__)
            if path is not None:
                return category, path
        path = self._cached_path(uid, "unseen", open_, self._is_unseen)
        return None if path is None else ("unseen", path)

    def _buy_step(self, uid: int) -> Payload | None:
        memory = self.memory
        goal = self._goal()
        assert memory is not None and goal is not None
        unit = self.units[uid]
        here = memory.cell(int(unit["x"]), int(unit["y"]))
        radius = int(self.rules.get("camp_radius", 1))
        price = int(self.catalogue[goal]["price"])
        for camp in self._stocking_camps(goal):
            if memory.cheb(camp, here) <= radius and self.credit >= price:
                return {"action": "buy", "unit": uid, "blueprint": goal}
        plan = self._buy_plan(uid)
        if plan is None or not plan[1]:
            return None
        return self._step(uid, plan[1][0])

    def _within(self, camp: int, radius: int) -> list[int]:
        assert self.memory is not None
        x, y = self.memory.xy(camp)
        w, h = self.memory.width, self.memory.height
        return [
            yy * w + xx
            for yy in range(max(0, y - radius), min(h, y + radius + 1))
            for xx in range(max(0, x - radius), min(w, x + radius + 1))
            if (xx, yy) != (x, y)
        ]

    # ----------------------------------------------------------------- step 4: gathering

    def _refresh_index(self) -> None:
        assert self.memory is not None
        self.memory.refresh()
        self.located = self.memory.located
        self.unexplained_cells = self.memory.unexplained_cells
        self.index_serial = self.memory.index_version

    def _work_for(self, uid: int) -> dict[str, int]:
        """The types and quantities this unit still needs for its chosen alternative (§10 "Goal")."""
        unit = self.units[uid]
        carried = unit.get("resources") or {}
        owned = self._owned_simple()
        if not owned:
            goal = self._goal()
            if goal is None:
                return {}
            owned = [(goal, self.catalogue[goal]["alternatives"])]
        choice = choose_alternative(carried, owned, lambda t: bool(self.located.get(t)))
        if choice is None:
            return {}
        alternatives = dict(owned)[choice[0]]
        return missing(carried, alternatives[choice[1]])

    def _gather_step(self, uid: int) -> Payload | None:
        memory = self.memory
        assert memory is not None
        self._refresh_index()
        unit = self.units[uid]
        energy = int(unit["energy"])
        here = memory.cell(int(unit["x"]), int(unit["y"]))
        need = self._work_for(uid)
        if not need:
            return None
        dig_cost = int(self.rules.get("dig_cost", 10))
        held = memory.types_at(here)
        wanted_here = [t for t in need if t in held]
        if wanted_here and not memory.guarded[here]:
            if here not in memory.dug:
                return {"action": "dig", "unit": uid} if energy >= dig_cost else None
            items = {t: min(need[t], int(held[t] or 0)) for t in wanted_here}
            items = {t: q for t, q in items.items() if q > 0}
            if items:
                if energy < int(self.rules.get("pickup_cost", 5)):
                    return None
                return {"action": "pickup", "unit": uid, "items": items}
        if memory.unexplained(here):
            return {"action": "dig", "unit": uid} if energy >= dig_cost else None
        if not memory.near_scan[here]:
            return {"action": "scan", "unit": uid} if energy >= int(self.rules.get("scan_cost", 10)) else None
        return self._walk(uid, need)

    def _walk(self, uid: int, need: dict[str, int]) -> Payload | None:
        """§10 step 4's walk: to a cell of a needed type, else an unexplained cell, else an unscanned
        cell, else towards unseen cells.

        A search that finds nothing visits every reachable cell, so none is started in vain: the
        first two categories are searched only if a target lies in the unit's component (the known
        cells it can reach, `Memory.component`); for the last two, whose targets only ever
        disappear from known ground, a failed search stands while that component is unchanged."""
        memory = self.memory
        assert memory is not None
        unit = self.units[uid]
        kind = str(unit["kind"])
        open_ = memory.passable[kind]
        here = memory.cell(int(unit["x"]), int(unit["y"]))
        root, size = memory.component(kind, here)
        located, unexplained, covered = self.located, self.unexplained_cells, memory.scan_covered
        wanted = [located[t] for t in need if t in located]

        def reachable(cells: Iterable[int]) -> bool:
            if root < 0:  # the unit stands where its kind may not (a guarded cell): just search
                return any(open_[c] for c in cells)
            return any(open_[c] and memory.component(kind, c)[0] == root for c in cells)

        same_ground = ("component", memory.terrain_version, root, size)
        targets: tuple[tuple[str, Callable[[int], bool], Callable[[], bool], Any], ...] = (
            (
                "needed",
                lambda c: any(c in cells for cells in wanted),
                lambda: any(reachable(cells) for cells in wanted),
                None,
            ),
            ("unexplained", unexplained.__contains__, lambda: reachable(unexplained), None),
            (
                "unscanned",
                lambda c: not covered[c],
                lambda: memory.any_open_uncovered(kind),
                same_ground if root >= 0 else None,
            ),
            (
                "unseen",
                self._is_unseen_neighbour,
                lambda: memory.known_count < memory.size,
                same_ground if root >= 0 else None,
            ),
        )
        for category, is_target, worth_searching, fail_key in targets:
            path = self._cached_path(uid, category, open_, is_target, worth_searching, fail_key)
            if path:
                return self._step(uid, path[0])
        return None

    def _is_unseen(self, cell: int) -> bool:
        assert self.memory is not None
        return self.memory.terrain[cell] == UNKNOWN

    def _is_unseen_neighbour(self, cell: int) -> bool:
        assert self.memory is not None
        terrain = self.memory.terrain
        return any(terrain[n] == UNKNOWN for n in self.memory.neighbours[cell])

    # ----------------------------------------------------------------- paths and moves

    def _state_key(self) -> tuple[int, int, int]:
        """What a failed search depends on: the indexes, blocking, and the terrain seen. A kept path
        depends on the first two only (newly seen terrain never closes a path)."""
        assert self.memory is not None
        return self.index_serial, self.memory.terrain_version, self.memory.known_count

    def _optimistic_open(self, kind: str) -> bytearray:
        """Known cells the kind may stand on, plus every unseen cell (rebuilt only when the terrain
        knowledge or the blocking changed)."""
        memory = self.memory
        assert memory is not None
        key = (memory.known_count, memory.terrain_version)
        kept = self._optimistic.get(kind)
        if kept is not None and kept[0] == key:
            return kept[1]
        passable, terrain = memory.passable[kind], memory.terrain
        open_ = bytearray(1 if passable[c] or terrain[c] == UNKNOWN else 0 for c in range(len(terrain)))
        self._optimistic[kind] = (key, open_)
        return open_

    def _cached_path(
        self,
        uid: int,
        category: str,
        open_: bytearray,
        is_target: Callable[[int], bool],
        worth_searching: Callable[[], bool] | None = None,
        fail_key: Any = None,
    ) -> list[int] | None:
        """A kept path of this category if what it was planned on still holds; else a new search
        (if `worth_searching()` allows one). A search that found nothing is not repeated while its
        `fail_key` (by default, everything the team knows: `_state_key`) is unchanged."""
        memory = self.memory
        assert memory is not None
        key = self._state_key()
        fail_key = key if fail_key is None else fail_key
        unit = self.units[uid]
        here = memory.cell(int(unit["x"]), int(unit["y"]))
        kept = self.paths.get(uid)
        if kept is not None and kept[0] == category and kept[2][:2] == key[:2] and kept[1]:
            path = kept[1]
            if (
                path[0] in memory.neighbours[here]
                and is_target(path[-1])
                and memory.passable[unit["kind"]][path[0]]
            ):
                return path
        if self.no_path.get((uid, category)) == fail_key:
            return None
        if worth_searching is not None and not worth_searching():
            self.no_path[(uid, category)] = fail_key
            return None
        found = bfs_path(memory.neighbours, open_, here, is_target)
        if found is None:
            self.no_path[(uid, category)] = fail_key
            return None
        self.paths[uid] = (category, found, key)
        return found

    def _step(self, uid: int, target: int) -> Payload | None:
        """A move onto a neighbouring cell, if the unit has the energy for it (CQ-37)."""
        memory = self.memory
        assert memory is not None
        if not memory.passable[str(self.units[uid]["kind"])][target]:
            self.paths.pop(uid, None)
            return None
        unit = self.units[uid]
        carried = sum(int(q) for q in (unit.get("resources") or {}).values())
        carried += sum(int(q) for q in (unit.get("objects") or {}).values())
        cost = move_cost(
            int(self.rules.get("move_base_cost", 20)),
            memory.penalty_pct[memory.terrain[target]],
            carried,
            int(self.rules.get("carry_divisor", 2)),
        )
        if int(unit["energy"]) < cost:
            return None
        x, y = memory.xy(target)
        return {"action": "move", "unit": uid, "x": x, "y": y}


def create_bot() -> Prospector:
    """The factory the platform calls once per match."""
    return Prospector()
