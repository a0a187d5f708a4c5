"""The Wanderer, Crafting Quest 2's trivial starter bot (spec section 10).

Every turn, each unit in id order digs once; then, while it has at least 25 energy, it moves to a
uniformly random neighbour that its kind may enter, that holds no camp or tower, and that lies
outside the range of every opponent tower it has seen. Then the bot ends its turn. It never picks
up, crafts, buys or sells, so it always ends with its starting credit. It exercises movement,
terrain, dig, views and the turn protocol (a chain of actions, each answered by a `result`, CQ-31).

It reads everything from its payloads (spec 4.1 to 4.4): who may enter which terrain from `setup`'s
`rules.terrain`, and the cells around a unit from that unit's `view`. Its only randomness is a
`random.Random` seeded with the `bot_seed` of `setup`, so a game replays identically.
"""

from __future__ import annotations

import random
from typing import Any

from botarena.games.craftingquest.geometry import Terrain

Payload = dict[str, Any]
Cell = tuple[int, int]

MIN_MOVE_ENERGY = 25
"""A unit keeps moving while it has at least this much energy (spec 10): the dearest move of a unit
that carries nothing (snow or swamp, 25% on the base 20) costs exactly this."""
END_TURN: Payload = {"action": "end_turn"}
NEIGHBOUR_STEPS: tuple[Cell, ...] = ((-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1))


class Wanderer:
    """See the module docstring. One instance plays one game."""

    def __init__(self) -> None:
        self.rng = random.Random(0)
        self.player = 0
        self.width = 0
        self.height = 0
        self.tower_radius = 0
        self.enterable: dict[str, frozenset[str]] = {}  # terrain character -> unit kinds
        self.units: dict[int, Payload] = {}  # own units as last reported (spec 4.2)
        self.enemy_towers: dict[int, Cell] = {}  # opponent towers seen and not seen gone since
        self.to_move: list[int] = []  # this turn's units still to act, in id order
        self.dug = False  # whether the first of `to_move` has dug this turn

    # -- the platform's calls ----------------------------------------------------------------------
    def setup(self, payload: Payload) -> Payload:
        self.rng = random.Random(payload["bot_seed"])
        self.player = payload["player"]
        self.width, self.height = payload["width"], payload["height"]
        rules = payload["rules"]
        self.tower_radius = rules["tower_radius"]
        self.enterable = {
            Terrain(name).char: frozenset(entry["enter"]) for name, entry in rules["terrain"].items()
        }
        self._see_units(payload["units"])
        return {"ready": True}

    def act(self, payload: Payload) -> Payload:
        if payload.get("type") == "turn_start":
            self._see_units(payload["units"])
            self.to_move = sorted(self.units)
            self.dug = False
        elif payload.get("type") == "result":
            if payload.get("unit"):
                self._see_unit(payload["unit"])
            if not payload.get("ok", True):
                self._next_unit()  # a refused action (spec 5.3) is not retried
        if payload.get("actions_left", 0) <= 0:
            return dict(END_TURN)  # the turn has closed (CQ-31); a late end_turn is discarded
        return self._next_action()

    def end(self, payload: Payload) -> Payload:
        return {}

    # -- deciding ------------------------------------------------------------------------------------
    def _next_action(self) -> Payload:
        while self.to_move:
            unit = self.units[self.to_move[0]]
            if not self.dug:
                self.dug = True
                return {"action": "dig", "unit": unit["id"]}
            if unit["energy"] >= MIN_MOVE_ENERGY:
                targets = self._open_neighbours(unit)
                if targets:
                    x, y = self.rng.choice(targets)
                    return {"action": "move", "unit": unit["id"], "x": x, "y": y}
            self._next_unit()
        return dict(END_TURN)

    def _next_unit(self) -> None:
        if self.to_move:
            self.to_move.pop(0)
        self.dug = False

    def _open_neighbours(self, unit: Payload) -> list[Cell]:
        """The neighbours `unit` may step onto, in a fixed order (so the seeded choice replays)."""
        view = unit["view"]
        x0, y0, rows = view["x0"], view["y0"], view["terrain"]
        blocked = {(c["x"], c["y"]) for c in view["cells"] if "camp" in c or "tower" in c}
        kind = unit["kind"]
        found = []
        for dx, dy in NEIGHBOUR_STEPS:
            x, y = unit["x"] + dx, unit["y"] + dy
            if not (0 <= x < self.width and 0 <= y < self.height) or (x, y) in blocked:
                continue
            if kind not in self.enterable.get(rows[y - y0][x - x0], frozenset()):
                continue
            if self._guarded((x, y)):
                continue
            found.append((x, y))
        return found

    def _guarded(self, cell: Cell) -> bool:
        """Within `tower_radius` (Chebyshev, CQ-38) of an opponent tower seen."""
        radius = self.tower_radius
        return any(
            max(abs(cell[0] - tx), abs(cell[1] - ty)) <= radius for tx, ty in self.enemy_towers.values()
        )

    # -- remembering ---------------------------------------------------------------------------------
    def _see_units(self, units: list[Payload]) -> None:
        for unit in units:
            self._see_unit(unit)

    def _see_unit(self, unit: Payload) -> None:
        """Keep the unit's latest state, and the opponent towers its view shows (forgetting those
        whose cell it shows without one: destroyed)."""
        self.units[unit["id"]] = unit
        view = unit["view"]
        x0, y0, size = view["x0"], view["y0"], len(view["terrain"])
        towers = {c["tower"]["id"]: (c["x"], c["y"]) for c in view["cells"] if "tower" in c}
        for tower_id, (x, y) in list(self.enemy_towers.items()):
            if x0 <= x < x0 + size and y0 <= y < y0 + size and tower_id not in towers:
                del self.enemy_towers[tower_id]
        for cell in view["cells"]:
            tower = cell.get("tower")
            if tower is not None and tower["owner"] != self.player:
                self.enemy_towers[tower["id"]] = (cell["x"], cell["y"])
