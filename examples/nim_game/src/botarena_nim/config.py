"""Nim configuration (NIM-1, NIM-4): the heaps, the largest take and the time limits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import ConfigDict, Field, StrictInt

GAME_ID = "nim"
RULES_VERSION = "nim_v1"


@dataclass(frozen=True)
class NimConfig:
    """Every parameter of the game. Validated by `botarena.core.config.build_config`."""

    __pydantic_config__ = ConfigDict(extra="forbid")

    heap_count: Annotated[StrictInt, Field(ge=1, le=8, description="number of heaps (NIM-1)")] = 3
    heap_max: Annotated[StrictInt, Field(ge=1, le=50, description="largest heap at the start (NIM-1)")] = 9
    max_take: Annotated[StrictInt, Field(ge=0, le=50, description="most objects a move takes; 0: any")] = 0
    setup_timeout_ms: Annotated[StrictInt, Field(ge=1, le=120_000, description="start reply limit")] = 5000
    turn_timeout_ms: Annotated[StrictInt, Field(ge=1, le=60_000, description="move reply limit")] = 1000
    overage_bank_ms: Annotated[StrictInt, Field(ge=0, le=600_000, description="time bank per seat")] = 0


PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    "subtraction": {"heap_count": 1, "heap_max": 30, "max_take": 3},
}
