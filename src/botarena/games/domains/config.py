"""Domains configuration (spec section 2): one frozen dataclass, presets, ranges, derived sizes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, StrictInt

GAME_ID = "domains"
RULES_VERSION = "domains_v1"


@dataclass(frozen=True)
class DomainsConfig:
    """Every key of spec section 2, with the original's `config.cnf` values as defaults."""

    __pydantic_config__ = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    num_players: Annotated[StrictInt, Field(ge=1, le=4, description="number of players (matches: 2-4)")] = 2
    rng: Literal["pcg64", "reference"] = "pcg64"
    """Random source: `pcg64` for play, or `reference` to reproduce the original byte for byte (DR-2, DR-3)"""
    setup_timeout_ms: Annotated[
        StrictInt, Field(ge=10, le=120_000, description="deadline of the start exchange")
    ] = 5000
    turn_timeout_ms: Annotated[StrictInt, Field(ge=10, le=60_000, description="per-round reply limit")] = 1000
    overage_bank_ms: Annotated[
        StrictInt, Field(ge=0, le=600_000, description="overage bank per player; 0 = none")
    ] = 0
    number_of_rounds: Annotated[StrictInt, Field(ge=1, le=10_000, description="rounds played")] = 500
    board_height: Annotated[StrictInt, Field(ge=6, le=127, description="rows H")] = 50
    board_width: Annotated[StrictInt, Field(ge=6, le=127, description="columns W")] = 50
    max_number_of_units: Annotated[
        StrictInt, Field(ge=1, le=100, description="cap on a player's owned units")
    ] = 10
    units_at_start: Annotated[
        StrictInt, Field(ge=0, le=100, description="no effect; written to the export only")
    ] = 1
    min_number_of_units: Annotated[
        StrictInt, Field(ge=0, le=100, description="no effect; written to the export only")
    ] = 5
    max_number_of_bonuses: Annotated[StrictInt, Field(ge=0, le=32, description="bonus slots")] = 4
    max_bonuses_per_player: Annotated[
        StrictInt, Field(ge=0, le=100, description="most upgraded units a player may own")
    ] = 1
    rounds_per_respawn: Annotated[StrictInt, Field(ge=1, le=1000, description="unit respawn period")] = 3
    rounds_per_bubble: Annotated[StrictInt, Field(ge=1, le=1000, description="bubble spawn period")] = 15
    rounds_per_bubble_move: Annotated[
        StrictInt, Field(ge=1, le=1000, description="bubble movement period")
    ] = 5
    max_rounds_per_bonus: Annotated[
        StrictInt, Field(ge=1, le=1000, description="bonus respawn threshold")
    ] = 4
    points_per_unit: Annotated[StrictInt, Field(ge=0, le=1_000_000, description="points for a kill")] = 500
    points_per_bubble: Annotated[
        StrictInt, Field(ge=0, le=1_000_000, description="points for popping an own bubble")
    ] = 500
    points_per_pop: Annotated[StrictInt, Field(ge=0, le=1_000_000, description="points for a timed pop")] = (
        5000
    )
    points_per_square: Annotated[
        StrictInt, Field(ge=0, le=1_000_000, description="points per owned square per round")
    ] = 1
    energy_at_start: Annotated[StrictInt, Field(ge=0, le=1000, description="energy of a new unit")] = 5
    max_energy: Annotated[StrictInt, Field(ge=1, le=1000, description="cap of the per-round gain")] = 20
    min_energy: Annotated[
        StrictInt, Field(ge=0, le=1000, description="floor of the per-round loss and of the fight cost")
    ] = 1
    ability_size: Annotated[StrictInt, Field(ge=1, le=25, description="side of the ability zone (odd)")] = 5
    ability_duration: Annotated[
        StrictInt, Field(ge=1, le=120, description="rounds an ability zone blocks")
    ] = 10
    rounds_to_pop: Annotated[
        StrictInt, Field(ge=1, le=120, description="timer set when a bubble is recoloured")
    ] = 3

    def check(self) -> None:
        """Cross-key ranges that a field constraint cannot express."""
        if self.min_energy > self.max_energy:
            raise ValueError(
                f"config key 'min_energy': {self.min_energy} is greater than max_energy {self.max_energy}"
            )
        if not self.min_energy <= self.energy_at_start <= self.max_energy:
            raise ValueError(
                f"config key 'energy_at_start': {self.energy_at_start} is outside "
                f"min_energy..max_energy ({self.min_energy}..{self.max_energy})"
            )
        if self.ability_size % 2 == 0:
            raise ValueError(f"config key 'ability_size': must be odd, got {self.ability_size}")

    # -- derived sizes (section 2) -------------------------------------------------------------------
    @property
    def unit_table_size(self) -> int:
        """U = max_number_of_units x n."""
        return int(self.max_number_of_units * self.num_players)

    @property
    def bubble_table_size(self) -> int:
        """B = n x (number_of_rounds div rounds_per_bubble + 1)."""
        return int(self.num_players * (self.number_of_rounds // self.rounds_per_bubble + 1))

    @property
    def bonus_table_size(self) -> int:
        """K = max_number_of_bonuses."""
        return int(self.max_number_of_bonuses)


PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    "standard": {},
    "reference": {"rng": "reference"},
}
