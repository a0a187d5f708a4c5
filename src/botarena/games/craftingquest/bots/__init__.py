"""Crafting Quest 2 bots: the starter bots of spec 10 and the engine's own tiny bots."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from botarena.games.craftingquest.bots.idle import IdleBot, RandomBot
from botarena.games.craftingquest.bots.prospector import Prospector
from botarena.games.craftingquest.bots.wanderer import Wanderer

# spec 10's starter bots; IdleBot (ends every turn) and RandomBot (the conformance suite's random
# player) are the engine's own and stay out of the starter list
STARTERS: Mapping[str, Callable[[], Any]] = {"prospector": Prospector, "wanderer": Wanderer}

__all__ = ["STARTERS", "IdleBot", "Prospector", "RandomBot", "Wanderer"]
