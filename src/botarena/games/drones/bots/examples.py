"""The four 2018 example strategies, written from spec section 10 (not translated from the originals).

Each is an in-process bot: `setup(start)`, `act(observation)`, `end(result)`. Every action names all
three keys, as the JavaScript twins in kits/drones-js do, so both produce identical records.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from typing import Any, ClassVar

from botarena.games.drones.bots.mulberry import Mulberry32

Payload = dict[str, Any]


def action(producers: Any, soldiers: Any, attack: bool = False) -> Payload:
    """A complete GameOfDrones action payload."""
    return {"newProducers": producers, "newSoldiers": soldiers, "launchAttack": attack}


class ExampleBot(ABC):
    """Shared plumbing: the bot's meta and its seeded mulberry32; each example writes its own `act`."""

    meta: ClassVar[Payload] = {"name": "Anonymous Player"}

    def __init__(self) -> None:
        self.random = Mulberry32(0)

    def setup(self, start: Payload) -> Payload:
        self.random = Mulberry32(int(start["playerSeed"]))
        return {"meta": dict(self.meta)}

    @abstractmethod
    def act(self, obs: Payload) -> Payload:
        """The example's action for one turn (spec 10)."""

    def end(self, result: Payload) -> Payload:
        return {}


class Randomonium(ExampleBot):
    """Random attack turn in 1..L+1 (L+1: never), random soldiers in 0..c each turn."""

    meta: ClassVar[Payload] = {"name": "Randomonium (Example Bot)", "author": "Bravo LT"}

    def __init__(self) -> None:
        super().__init__()
        self.attack_turn = 0

    def act(self, obs: Payload) -> Payload:
        if obs["turn"] == 1:
            self.attack_turn = math.floor(self.random.random() * (obs["turnLimit"] + 1)) + 1
        capacity = obs["producers"]
        soldiers = math.floor(self.random.random() * (capacity + 1))
        return action(capacity - soldiers, soldiers, obs["turn"] >= self.attack_turn)


class Zergy(ExampleBot):
    """Zerg rush: everything into soldiers; attack once they reach defenderBonus + 1."""

    meta: ClassVar[Payload] = {"name": "Zergy McZergface (Example Bot)", "author": "Bravo LT"}

    def act(self, obs: Payload) -> Payload:
        capacity = obs["producers"]
        return action(0, capacity, obs["soldiers"] + capacity >= obs["defenderBonus"] + 1)


class Pacifist(ExampleBot):
    """Hard Hitting Pacifist: producers until turn L, then everything into soldiers; never attacks."""

    meta: ClassVar[Payload] = {"name": "Hard Hitting Pacifist (Example Bot)", "author": "Bravo LT"}

    def act(self, obs: Payload) -> Payload:
        capacity = obs["producers"]
        if obs["turn"] < obs["turnLimit"]:
            return action(capacity, 0)
        return action(0, capacity)


class AdaptiveDefender(ExampleBot):
    """Switches to soldiers on the turn the opponent attacked last round (or on L); never attacks."""

    meta: ClassVar[Payload] = {"name": "Adaptive Defender (Example Bot)", "author": "Bravo LT"}

    def act(self, obs: Payload) -> Payload:
        previous = obs["previousRound"]
        soldier_turn = obs["turnLimit"]
        if previous is not None and previous["them"]["launchedAttack"]:
            soldier_turn = previous["turnsPlayed"]
        capacity = obs["producers"]
        if obs["turn"] < soldier_turn:
            return action(capacity, 0)
        return action(0, capacity)
