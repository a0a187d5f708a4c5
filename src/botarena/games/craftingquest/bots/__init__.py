"""Crafting Quest 2 bots: the starter bots of spec 10 and the engine's own tiny bots."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from botarena.games.craftingquest.bots.idle import IdleBot, RandomBot
from botarena.games.craftingquest.bots.prospector import Prospector
from botarena.games.craftingquest.bots.wanderer import Wanderer

STARTERS: Mapping[str, Callable[[], Any]] = {"idle": IdleBot, "prospector": Prospector, "wanderer": Wanderer}

__all__ = ["STARTERS", "IdleBot", "Prospector", "RandomBot", "Wanderer"]
