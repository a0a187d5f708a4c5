"""`RandomBot`, the platform's random legal Crafting Quest 2 player (for the conformance suite and
fuzzing): a few random, well-formed actions per turn (spec 5.1); game checks may refuse them, the
shape never fails."""

from __future__ import annotations

import random
from typing import Any

Payload = dict[str, Any]

END_TURN: Payload = {"action": "end_turn"}


class RandomBot:
    """Up to `MAX_ACTIONS` random actions of random own units per turn, then `end_turn`.

    It moves to random neighbours most of the time, and sometimes digs, scans, picks up, drops,
    crafts, sells, buys or builds a tower, so that every rule runs. Seeded by `bot_seed`."""

    MAX_ACTIONS = 6

    def __init__(self) -> None:
        self.rng = random.Random(0)
        self.units: list[int] = []
        self.sent = 0

    def setup(self, payload: Payload) -> Payload:
        self.rng = random.Random(payload["bot_seed"])
        self.units = [unit["id"] for unit in payload["units"]]
        return {"ready": True}

    def act(self, payload: Payload) -> Payload:
        if payload.get("type") == "turn_start":
            self.sent = 0
        if self.sent >= self.MAX_ACTIONS or payload.get("actions_left", 0) <= 1:
            return dict(END_TURN)
        self.sent += 1
        return self._random_action(payload)

    def _random_action(self, payload: Payload) -> Payload:
        rng = self.rng
        unit = rng.choice(self.units)
        position = self._position(payload, unit)
        roll = rng.random()
        if roll < 0.6 and position is not None:
            x, y = position
            dx, dy = rng.choice([(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)])
            return {"action": "move", "unit": unit, "x": x + dx, "y": y + dy}
        item = rng.choice([f"R{rng.randint(1, 12)}", f"O{rng.randint(1, 12)}"])
        obj = f"O{rng.randint(1, 12)}"
        return rng.choice(
            [
                {"action": "dig", "unit": unit},
                {"action": "scan", "unit": unit},
                {"action": "pickup", "unit": unit, "items": {item: rng.randint(1, 3)}},
                {"action": "drop", "unit": unit, "items": {item: 1}},
                {"action": "craft", "unit": unit, "object": obj, "alternative": rng.randint(0, 1)},
                {"action": "sell", "unit": unit, "object": obj, "quantity": 1},
                {"action": "buy", "unit": unit, "blueprint": obj},
                {"action": "build_tower", "unit": unit},
            ]
        )

    @staticmethod
    def _position(payload: Payload, unit: int) -> tuple[int, int] | None:
        """Where `unit` is, from a `turn_start` (all units) or a `result` (the acting unit)."""
        units = payload.get("units") or []
        if payload.get("unit"):
            units = [*units, payload["unit"]]
        for entry in units:
            if entry.get("id") == unit:
                return entry["x"], entry["y"]
        return None

    def end(self, payload: Payload) -> Payload:
        return {}
