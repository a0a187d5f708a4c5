"""Crafting Quest 2 bots: spec 10's starter bots and the random legal player.

`prospector.py` (with its parts `prospector_learning.py`, `prospector_memory.py` and
`prospector_planning.py`) and `wanderer.py` are the starters; `random.py` holds `RandomBot`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from botarena.games.craftingquest.bots.prospector import Prospector
from botarena.games.craftingquest.bots.random import RandomBot
from botarena.games.craftingquest.bots.wanderer import Wanderer

# spec 10's starter bots; RandomBot (the conformance suite's random player) is not one of them
STARTERS: Mapping[str, Callable[[], Any]] = {"prospector": Prospector, "wanderer": Wanderer}

__all__ = ["STARTERS", "Prospector", "RandomBot", "Wanderer"]
