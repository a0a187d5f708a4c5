"""Starter bots for GameOfDrones (spec section 10)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from botarena.games.drones.bots.examples import AdaptiveDefender, Pacifist, Randomonium, Zergy
from botarena.games.drones.bots.tactician import Tactician

STARTERS: dict[str, Callable[[], Any]] = {
    "randomonium": Randomonium,
    "zergy": Zergy,
    "pacifist": Pacifist,
    "adaptive": AdaptiveDefender,
    "tactician": Tactician,
}
