"""Test-only bots of spec section 10 (not starters), plus the random legal player for conformance."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from botarena.games.drones.bots.examples import action

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


class RandomLegal:
    """Random legal play from its own bot_seed: a random split of capacity, attacking now and then."""

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)

    def setup(self, start: Payload) -> Payload:
        self.rng = np.random.default_rng(int(start["bot_seed"]))
        return {"meta": {"name": "Random legal"}}

    def act(self, obs: Payload) -> Payload:
        capacity = obs["producers"]
        whole = int(capacity)
        soldiers = int(self.rng.integers(0, whole + 1))
        return action(whole - soldiers, soldiers, bool(self.rng.random() < 0.15))
