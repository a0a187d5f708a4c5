"""Helpers for the Crafting Quest 2 engine tests: the base scenario E of spec 9, and a driver that
plays an engine request by request without the runner (untimed, replies made by hand)."""

from __future__ import annotations

import copy
from typing import Any

from botarena.core.protocol import MessageType, Reply, Request
from botarena.core.status import Status
from botarena.games.craftingquest import GAME
from botarena.games.craftingquest.engine import CraftingQuestEngine
from botarena.games.craftingquest.state import Tower

Payload = dict[str, Any]

VECTOR_R3_AT_33 = [2, 1, 4, 3, 1]
VECTOR_R8_AT_33 = [1, 5, 2, 2, 3]
VECTOR_R3_AT_99 = [2, 3, 4, 1, 1]
O4 = {
    "id": "O4",
    "kind": "simple",
    "price": 57,
    "value": 231,
    "alternatives": [{"R1": 20, "R2": 10}, {"R1": 8, "R2": 4, "R3": 17}],
}
O10 = {
    "id": "O10",
    "kind": "complex",
    "price": 247,
    "value": 2475,
    "alternatives": [{"O2": 2, "O5": 3}, {"O2": 1, "O5": 2, "O7": 1}],
}


def terrain_e() -> list[str]:
    """50x50 Grass with Water at (4,4), Sand at (5,4) and Rock at (6,2) (spec 9, scenario E)."""
    rows = [["."] * 50 for _ in range(50)]
    rows[4][4] = "w"
    rows[4][5] = "s"
    rows[2][6] = "#"
    return ["".join(row) for row in rows]


def scenario_e() -> Payload:
    """Spec 9's base scenario E as a CQ-26 record.

    The attribute counts are Ex 18's `[4,5,4,4,5]`; R3 tests a0 = 2 and a2 = 4 and R8 tests a0 = 1,
    which every vector of E satisfies (Ex 5's learning argument holds for them)."""
    return {
        "width": 50,
        "height": 50,
        "rounds": 160,
        "terrain": terrain_e(),
        "camps": [{"x": 10, "y": 10, "stock": ["O1", "O4"]}, {"x": 39, "y": 39, "stock": ["O1", "O4"]}],
        "starts": {"1": [[3, 3], [4, 3], [5, 3]], "2": [[46, 46], [45, 46], [44, 46]]},
        "attribute_values": [4, 5, 4, 4, 5],
        "type_tests": {"R3": {"0": 2, "2": 4}, "R8": {"0": 1}},
        "deposits": [
            {
                "x": 3,
                "y": 3,
                "buried": {"R3": 10, "R8": 2},
                "vectors": {"R3": VECTOR_R3_AT_33, "R8": VECTOR_R8_AT_33},
            },
            {"x": 9, "y": 9, "buried": {"R3": 7}, "vectors": {"R3": VECTOR_R3_AT_99}},
        ],
        "blueprints": [copy.deepcopy(O4), copy.deepcopy(O10)],
    }


def config_e(scenario: Payload | None = None, **overrides: Any) -> Any:
    """Scenario E (or `scenario`) in untimed mode (CQ-35), with `overrides`."""
    return GAME.config(overrides={"scenario": scenario or scenario_e(), "turn_budget_ms": 0, **overrides})


class Driver:
    """Plays an engine by hand: `question` is the payload the engine asks next (None when over).

    Every request the engine makes is kept in `sent` as (seat, payload, awaited), every step record
    in `records`.
    """

    def __init__(self, scenario: Payload | None = None, seed: int = 1, setup: bool = True, **overrides: Any):
        self.engine = CraftingQuestEngine(config_e(scenario, **overrides), seed, 2)
        self.state = self.engine.state
        self.sent: list[tuple[int, Payload, bool]] = []
        self.records: list[Payload] = []
        self.request: Request | None = None
        self.setups = self.engine.start_requests()
        for request in self.setups:
            self.sent.append((request.seat, request.payload, True))
        if setup:
            self.engine.apply_start([Reply(r.seat, Status.OK, {}) for r in self.setups])
            self.pull()

    def pull(self) -> None:
        requests = self.engine.next_requests()
        assert len(requests) <= 1
        self.request = requests[0] if requests else None
        if self.request is not None:
            assert self.request.type is MessageType.TURN
            self.sent.append((self.request.seat, self.request.payload, self.request.await_reply))

    @property
    def question(self) -> Payload | None:
        return None if self.request is None else self.request.payload

    @property
    def seat(self) -> int:
        assert self.request is not None
        return self.request.seat

    def reply(self, status: Status, payload: Any = None, reason: str | None = None) -> Payload:
        """Answer the current question; return the step record."""
        assert self.request is not None, "the game is over"
        step = self.engine.apply([Reply(self.request.seat, status, payload, reason)])
        self.records.append(step.record)
        self.last_verdict = step.verdicts[0]
        self.pull()
        return step.record

    def act(self, action: Any) -> Payload:
        """Send one action and return its `result` (the next question, to the same seat)."""
        seat = self.seat
        self.reply(Status.OK, action)
        assert self.request is not None and self.request.seat == seat
        assert self.question is not None and self.question["type"] == "result"
        return self.question

    def end_turn(self) -> Payload:
        return self.reply(Status.OK, {"action": "end_turn"})

    def end_turns_until(self, player: int) -> None:
        """End turns until it is `player`'s turn."""
        while self.request is not None and self.request.seat != player - 1:
            self.end_turn()

    def late(self, seat: int, status: Status, payload: Any = None, reason: str | None = None) -> None:
        self.engine.late_reply(Reply(seat, status, payload, reason))

    def unit(self, unit_id: int) -> Any:
        return self.state.units[unit_id]

    def place(self, unit_id: int, x: int, y: int) -> None:
        unit = self.state.units[unit_id]
        unit.x, unit.y = x, y

    def tower(self, owner: int, x: int, y: int, strength: int = 250) -> Tower:
        """Suppose a standing tower (CQ-46) of `owner` at (x, y)."""
        tower = Tower(len(self.state.towers) + 1, owner, x, y, strength)
        self.state.towers.append(tower)
        self.state.tower_at[(x, y)] = tower
        self.state.teams[owner].towers.append(tower.id)
        return tower


def error_code(result: Payload) -> str | None:
    return None if result["error"] is None else result["error"]["code"]
