"""GameOfDrones configuration (spec section 2): one frozen dataclass, presets, ranges."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, StrictInt

GAME_ID = "drones"
RULES_VERSION = "drones_v1"
MAX_TURN_LIMIT = 50

TurnCount = Annotated[StrictInt, Field(ge=1, le=MAX_TURN_LIMIT)]
PlayerSeed = Annotated[StrictInt, Field(ge=0, le=2**32 - 1)]


@dataclass(frozen=True)
class DronesConfig:
    """Every parameter of spec 2.1. Validated by `botarena.core.config.build_config`."""

    __pydantic_config__ = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    rules: Literal["seed", "bravolt2018"] = "seed"
    """Rule set: `seed` (integer counts, seeded tie-breaks) or `bravolt2018` (the 2018 original) (§2.2)"""
    rounds: Annotated[StrictInt, Field(ge=1, le=100_000, description="Rounds per match")] = 10
    turn_limit: Annotated[TurnCount, Field(description="Fixed turn limit of every round")] = 10
    turn_limit_range: Annotated[
        tuple[TurnCount, TurnCount] | None,
        Field(description="[lo, hi]: draw each round's turn limit uniformly from lo..hi (GD-7)"),
    ] = None
    defender_bonus: Annotated[StrictInt, Field(ge=0, le=1000, description="Lone defender's bonus")] = 1
    turn_timeout_ms: Annotated[StrictInt, Field(ge=1, le=60_000)] = 1000
    """Deadline for a bot's reply to each turn request and to the end request"""
    setup_timeout_ms: Annotated[StrictInt, Field(ge=1, le=120_000)] = 10_000
    """Deadline for the reply to the start request, process start and module loading included"""
    overage_bank_ms: Annotated[StrictInt, Field(ge=0, le=600_000)] = 0
    """Each bot's overage bank in ms; 0 means no bank, so every deadline is hard"""
    player_seeds: Annotated[
        tuple[PlayerSeed, PlayerSeed] | None,
        Field(
            description="[PLAYER 1's, PLAYER 2's] playerSeed, instead of the seats' bot_seed (GD-4); "
            "e.g. the original's (s, s + 1000) for a parity run"
        ),
    ] = None

    def check(self) -> None:
        """Cross-key checks that a field constraint cannot express."""
        if self.turn_limit_range is not None:
            lo, hi = self.turn_limit_range
            if lo > hi:
                raise ValueError(f"config key 'turn_limit_range': lo {lo} is greater than hi {hi}")

    @property
    def told_defender_bonus(self) -> int:
        """The bonus the bots are told: in bravolt2018 a 0 is told as 1 (spec 4.2)."""
        if self.rules == "bravolt2018" and self.defender_bonus == 0:
            return 1
        return self.defender_bonus


PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    "bravolt2018": {"rules": "bravolt2018"},
}

EVENT_2018_CONFIG: dict[str, Any] = {
    "rules": "bravolt2018",
    "rounds": 1000,
    "turn_limit": 10,
    "defender_bonus": 1,
}
"""Spec 2.3: the game config of the 2018 event's tournament format (`event2018.EVENT_2018`, a round
robin on the circle schedule, `botarena.core.roundrobin`). A runner may override `rules` with `seed`."""
