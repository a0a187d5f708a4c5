"""The in-process interface (spec 7.3): `FactionLogic`, and `FactionBot`, which adapts one to the
platform's `setup`/`act`/`end` calls, plus the seeding rule of spec 10."""

from __future__ import annotations

import hashlib
import random
from typing import Any, Protocol


class FactionLogic(Protocol):
    def next_base_move(self, input: dict[str, Any]) -> dict[str, Any]: ...

    def next_unit_move(self, input: dict[str, Any]) -> dict[str, Any]: ...


def service_seed(game_id: str, faction_id: int) -> int:
    """Spec 10: behind the HTTP service (no start call), the first 4 bytes of sha256("<gameId>:<id>")."""
    return int.from_bytes(hashlib.sha256(f"{game_id}:{faction_id}".encode()).digest()[:4], "big")


class SeededLogic:
    """Base class of the starter bots: a private generator seeded by `bot_seed` (setup) or, without
    a start call, by `service_seed`; memory reset whenever `gameId` changes."""

    def __init__(self) -> None:
        self.rng = random.Random(0)
        self.game_id: str | None = None
        self.seeded = False

    def setup(self, start: dict[str, Any]) -> None:
        self.rng = random.Random(int(start.get("bot_seed", 0)))
        self.seeded = True
        self.game_id = start.get("gameId")
        self.reset()

    def reset(self) -> None:
        """Forget everything about the previous game."""

    def observe(self, input: dict[str, Any]) -> None:
        game_id = input["context"]["gameId"]
        if game_id != self.game_id:
            if self.game_id is not None or not self.seeded:
                self.rng = random.Random(service_seed(game_id, input["faction"]["id"]))
            self.game_id = game_id
            self.reset()

    def end(self, result: dict[str, Any]) -> None:
        pass


class FactionBot:
    """A platform in-process bot around a `FactionLogic` (spec 7.2 payloads)."""

    def __init__(self, logic: Any) -> None:
        self.logic = logic

    def setup(self, payload: dict[str, Any]) -> dict[str, Any]:
        setup = getattr(self.logic, "setup", None)
        if setup is not None:
            setup(payload)
        return {}

    def act(self, payload: dict[str, Any]) -> Any:
        if payload["call"] == "base":
            return self.logic.next_base_move(payload["input"])
        return self.logic.next_unit_move(payload["input"])

    def end(self, payload: dict[str, Any]) -> dict[str, Any]:
        end = getattr(self.logic, "end", None)
        if end is not None:
            end(payload)
        return {}
