"""Crafting Quest 2 scenario generator (spec CQ-5 to CQ-25). Work in progress."""

from __future__ import annotations

from botarena.games.craftingquest.config import CraftingQuestConfig
from botarena.games.craftingquest.scenario import Scenario


def generate_scenario(config: CraftingQuestConfig, seed: int) -> Scenario:
    """CQ-5: generate the scenario of a match (not implemented yet)."""
    raise NotImplementedError("craftingquest scenario generation is not implemented yet")
