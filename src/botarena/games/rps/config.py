"""Rock-paper-scissors configuration (RPS-1): the number of rounds and the time limits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import ConfigDict, Field, StrictInt

GAME_ID = "rps"
RULES_VERSION = "rps_v1"


@dataclass(frozen=True)
class RpsConfig:
    """Every parameter of the game. Validated by `botarena.core.config.build_config`."""

    __pydantic_config__ = ConfigDict(extra="forbid")

    rounds: Annotated[StrictInt, Field(ge=1, le=10_000, description="rounds per match (RPS-1)")] = 9
    setup_timeout_ms: Annotated[StrictInt, Field(ge=1, le=120_000, description="start reply limit")] = 5000
    turn_timeout_ms: Annotated[StrictInt, Field(ge=1, le=60_000, description="move reply limit")] = 1000
    overage_bank_ms: Annotated[StrictInt, Field(ge=0, le=600_000, description="time bank per seat")] = 0


PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    "long": {"rounds": 99},
}
