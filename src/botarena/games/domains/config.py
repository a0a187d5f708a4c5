"""Domains configuration (spec section 2): one frozen dataclass, presets, ranges, derived sizes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, StrictInt

GAME_ID = "domains"
RULES_VERSION = "domains_v1"


def _int(lo: int, hi: int, text: str) -> Any:
    return Annotated[StrictInt, Field(ge=lo, le=hi, description=text)]


@dataclass(frozen=True)
class DomainsConfig:
    """Every key of spec section 2, with the original's `config.cnf` values as defaults."""

    __pydantic_config__ = ConfigDict(extra="forbid")

    num_players: _int(1, 4, "number of players (matches: 2-4)") = 2
    rng: Literal["pcg64", "reference"] = "pcg64"
    setup_timeout_ms: _int(10, 120_000, "deadline of the start exchange") = 5000
    turn_timeout_ms: _int(10, 60_000, "per-round reply limit") = 1000
    overage_bank_ms: _int(0, 600_000, "overage bank per player; 0 = none") = 0
    number_of_rounds: _int(1, 10_000, "rounds played") = 500
    board_height: _int(6, 127, "rows H") = 50
    board_width: _int(6, 127, "columns W") = 50
    max_number_of_units: _int(1, 100, "cap on a player's owned units") = 10
    units_at_start: _int(0, 100, "no effect; written to the export only") = 1
    min_number_of_units: _int(0, 100, "no effect; written to the export only") = 5
    max_number_of_bonuses: _int(0, 32, "bonus slots") = 4
    max_bonuses_per_player: _int(0, 100, "most upgraded units a player may own") = 1
    rounds_per_respawn: _int(1, 1000, "unit respawn period") = 3
    rounds_per_bubble: _int(1, 1000, "bubble spawn period") = 15
    rounds_per_bubble_move: _int(1, 1000, "bubble movement period") = 5
    max_rounds_per_bonus: _int(1, 1000, "bonus respawn threshold") = 4
    points_per_unit: _int(0, 1_000_000, "points for a kill") = 500
    points_per_bubble: _int(0, 1_000_000, "points for popping an own bubble") = 500
    points_per_pop: _int(0, 1_000_000, "points for a timed pop") = 5000
    points_per_square: _int(0, 1_000_000, "points per owned square per round") = 1
    energy_at_start: _int(0, 1000, "energy of a new unit") = 5
    max_energy: _int(1, 1000, "cap of the per-round gain") = 20
    min_energy: _int(0, 1000, "floor of the per-round loss and of the fight cost") = 1
    ability_size: _int(1, 25, "side of the ability zone (odd)") = 5
    ability_duration: _int(1, 120, "rounds an ability zone blocks") = 10
    rounds_to_pop: _int(1, 120, "timer set when a bubble is recoloured") = 3

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
        return self.max_number_of_units * self.num_players

    @property
    def bubble_table_size(self) -> int:
        """B = n x (number_of_rounds div rounds_per_bubble + 1)."""
        return self.num_players * (self.number_of_rounds // self.rounds_per_bubble + 1)

    @property
    def bonus_table_size(self) -> int:
        """K = max_number_of_bonuses."""
        return self.max_number_of_bonuses


PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    "standard": {},
    "reference": {"rng": "reference"},
}
