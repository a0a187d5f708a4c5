"""Test-only bots of spec section 10 (not starters): the GameOfDrones tests play them."""

from __future__ import annotations

import time
from typing import Any

Payload = dict[str, Any]


class Idle:
    """Always `{}`."""

    def act(self, obs: Payload) -> Payload:
        return {}


class Greedy:
    """Always all capacity into producers."""

    def act(self, obs: Payload) -> Payload:
        return {"newProducers": obs["producers"]}


class Kamikaze:
    """Always all capacity into soldiers, and attack."""

    def act(self, obs: Payload) -> Payload:
        return {"newSoldiers": obs["producers"], "launchAttack": True}


class Sleeper:
    """Never replies on turn 2 (sleeps far past any test deadline)."""

    def act(self, obs: Payload) -> Payload:
        if obs["turn"] == 2:
            time.sleep(60)
        return {"newProducers": obs["producers"]}


class Garbage:
    """Replies `"hello"`, then `{"newSoldiers": "3"}`, alternately."""

    def __init__(self) -> None:
        self.calls = 0

    def act(self, obs: Payload) -> Any:
        self.calls += 1
        return "hello" if self.calls % 2 else {"newSoldiers": "3"}
