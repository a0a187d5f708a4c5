"""Helpers for the Crafting Quest 2 configuration, map and scenario tests.

The original maps are not in the repository (no licence covers them, spec §11): tests read them from
`$BOTARENA_CQ_MAPS` or from the shared fixtures next to the checkout (`../shared/fixtures/craftingquest/
maps`), and skip with a clear message when neither exists.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

import pytest

from botarena.core.config import build_config
from botarena.games.craftingquest.config import PRESETS, CraftingQuestConfig

REPO_ROOT = Path(__file__).resolve().parents[3]
SHARED_MAPS = REPO_ROOT / ".." / "shared" / "fixtures" / "craftingquest" / "maps"
MAP_NAMES = ("map_v1", "map_v5", "map_v2")


def maps_dir() -> Path | None:
    """Where the original maps are, or None."""
    env = os.environ.get("BOTARENA_CQ_MAPS")
    for candidate in (Path(env) if env else None, SHARED_MAPS):
        if candidate is not None and (candidate / "map_v1.cqm").is_file():
            return candidate.resolve()
    return None


def require_maps() -> Path:
    """The maps directory, or skip the test with a message saying how to supply it."""
    found = maps_dir()
    if found is None:
        pytest.skip(
            "the original Crafting Quest maps are not available: set BOTARENA_CQ_MAPS to a directory "
            "holding map_v1.cqm, map_v5.cqm and map_v2.cqm (shared/fixtures/craftingquest/maps)"
        )
    return found


def config(preset: str = "default", **overrides: Any) -> CraftingQuestConfig:
    return build_config(CraftingQuestConfig, PRESETS, preset, overrides)


def terrain_e() -> list[str]:
    """Spec §9 scenario E's terrain: Grass, with Water at (4,4), Sand at (5,4) and Rock at (6,2)."""
    rows = [["."] * 50 for _ in range(50)]
    rows[4][4] = "w"
    rows[4][5] = "s"
    rows[2][6] = "#"
    return ["".join(row) for row in rows]


_SCENARIO_E: dict[str, Any] = {
    "width": 50,
    "height": 50,
    "rounds": 160,
    "terrain": terrain_e(),
    "camps": [{"x": 10, "y": 10, "stock": ["O1", "O4"]}, {"x": 39, "y": 39, "stock": ["O1", "O4"]}],
    "starts": {"1": [[3, 3], [4, 3], [5, 3]], "2": [[46, 46], [45, 46], [44, 46]]},
    "attribute_values": [4, 5, 4, 4, 5],
    # E gives no tests; these agree with every vector of E (R3: a0 = 2, a2 = 4; R8: a0 = 1)
    "type_tests": {"R3": {"0": 2, "2": 4}, "R8": {"0": 1}},
    "deposits": [
        {
            "x": 3,
            "y": 3,
            "buried": {"R3": 10, "R8": 2},
            "vectors": {"R3": [2, 1, 4, 3, 1], "R8": [1, 5, 2, 2, 3]},
        },
        {"x": 9, "y": 9, "buried": {"R3": 7}, "vectors": {"R3": [2, 3, 4, 1, 1]}},
    ],
    "blueprints": [
        {
            "id": "O4",
            "kind": "simple",
            "price": 57,
            "value": 231,
            "alternatives": [{"R1": 20, "R2": 10}, {"R1": 8, "R2": 4, "R3": 17}],
        },
        {
            "id": "O10",
            "kind": "complex",
            "price": 247,
            "value": 2475,
            "alternatives": [{"O2": 2, "O5": 3}, {"O2": 1, "O5": 2, "O7": 1}],
        },
    ],
    "origin": {"seed": 42, "map": "generated"},
}


def scenario_e() -> dict[str, Any]:
    """A fresh copy of scenario E as a CQ-26 record (mutate it freely)."""
    return copy.deepcopy(_SCENARIO_E)
