"""A small Crafting Quest 2 bot to start from (see README.md next to this file).

Each turn, every unit in turn: sells what it carries, crafts what it can, buys the cheapest simple
blueprint when it stands next to a camp that sells it, digs its cell once, picks up whatever it
found that the blueprint needs, and walks on (straight ahead until blocked) while it has energy.
It never scans, so it learns nothing about the attribute vectors: that is the first thing to add
(README, "The learning problem").

Run it:  botarena play craftingquest examples/craftingquest/my_bot.py wanderer --seed 1
"""

from __future__ import annotations

import random
from typing import Any

Payload = dict[str, Any]
END_TURN: Payload = {"action": "end_turn"}
STEPS = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)]
TERRAIN_NAME = {".": "grass", ":": "dirt", "s": "sand", "*": "snow", "#": "rock", "~": "swamp", "w": "water"}
TERRAIN_NAME["W"] = "deep_water"


class MyBot:
    def setup(self, payload: Payload) -> Payload:
        self.rng = random.Random(payload["bot_seed"])  # your own randomness: replays stay identical
        self.rules = payload["rules"]
        self.catalogue = {bp["id"]: bp for bp in payload["blueprints"]}
        simple = [bp for bp in payload["blueprints"] if bp["kind"] == "simple"]
        self.goal = min(simple, key=lambda bp: (bp["price"], int(bp["id"][1:])))["id"]
        self.owned: list[str] = []
        self.found: Payload = {}
        self.heading: dict[int, tuple[int, int]] = {}  # each unit's walking direction
        return {"ready": True}

    def act(self, payload: Payload) -> Payload:
        """One question (a `turn_start` or the `result` of the last action), one answer."""
        if payload["type"] == "turn_start":
            self.units = {u["id"]: u for u in payload["units"]}
            self.todo = sorted(self.units)  # the units still acting this turn, lowest id first
            self.dug: set[int] = set()  # units that dug this turn
        else:
            if payload["unit"] is not None:
                self.units[payload["unit"]["id"]] = payload["unit"]
            if payload.get("dig"):
                self.found = payload["dig"]  # type -> quantity buried under the unit
            if not payload["ok"] and self.todo:
                self.todo.pop(0)  # an action failed: that unit is done for this turn
        self.owned = payload["blueprints_owned"]
        if payload["actions_left"] == 0:
            return END_TURN
        while self.todo:
            action = self.next_for(self.units[self.todo[0]], payload["credit"])
            if action is not None:
                return action
            self.todo.pop(0)
        return END_TURN

    def next_for(self, unit: Payload, credit: int) -> Payload | None:
        uid = unit["id"]
        for obj, qty in unit["objects"].items():
            return {"action": "sell", "unit": uid, "object": obj, "quantity": qty}
        for bp_id in self.owned:
            for index, alternative in enumerate(self.catalogue[bp_id]["alternatives"]):
                if all(unit["resources"].get(t, 0) >= q for t, q in alternative.items()):
                    return {"action": "craft", "unit": uid, "object": bp_id, "alternative": index}
        if self.goal not in self.owned and credit >= self.catalogue[self.goal]["price"]:
            for cell in unit["view"]["cells"]:
                stock = (cell.get("camp") or {}).get("stock")  # a list only when within camp_radius
                if stock and self.goal in stock:
                    return {"action": "buy", "unit": uid, "blueprint": self.goal}
        if uid not in self.dug and unit["energy"] >= self.rules["dig_cost"]:
            self.dug.add(uid)
            self.found = {}
            return {"action": "dig", "unit": uid}
        carried = unit["resources"]
        wanted: dict[str, int] = {}  # the most of each type that either alternative needs
        for alternative in self.catalogue[self.goal]["alternatives"]:
            for t, q in alternative.items():
                wanted[t] = max(wanted.get(t, 0), q)
        items = {
            t: min(q, wanted[t] - unit["resources"].get(t, 0)) for t, q in self.found.items() if t in wanted
        }
        items = {t: q for t, q in items.items() if q > 0}
        self.found = {}
        if items and unit["energy"] >= self.rules["pickup_cost"]:
            return {"action": "pickup", "unit": uid, "items": items}
        if unit["energy"] >= 25 + sum(carried.values()) // 2 + self.rules["dig_cost"]:  # a move, a dig
            return self.wander(unit)
        return None

    def wander(self, unit: Payload) -> Payload | None:
        """Keep walking in the unit's heading; turn at random when the next cell is closed to it."""
        view, r = unit["view"], self.rules["sight_radius"]
        blocked = {(c["x"], c["y"]) for c in view["cells"] if "camp" in c or "tower" in c}
        options = []
        for dx, dy in STEPS:
            name = TERRAIN_NAME.get(view["terrain"][r + dy][r + dx])  # '-' (off the map) has no name
            x, y = unit["x"] + dx, unit["y"] + dy
            if name and unit["kind"] in self.rules["terrain"][name]["enter"] and (x, y) not in blocked:
                options.append((dx, dy))
        if not options:
            return None
        heading = self.heading.get(unit["id"])
        if heading not in options:
            heading = self.heading[unit["id"]] = self.rng.choice(options)
        self.dug.discard(unit["id"])  # a new cell: dig again there
        return {
            "action": "move",
            "unit": unit["id"],
            "x": unit["x"] + heading[0],
            "y": unit["y"] + heading[1],
        }

    def end(self, payload: Payload) -> Payload:
        return {}


def create_bot() -> MyBot:  # botarena looks for create_bot() first
    return MyBot()
