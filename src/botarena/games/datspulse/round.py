"""The DatsPulse round: the engine's public API (spec §3 to §6).

`Round` is a pure, deterministic state machine for one round (DP-95): no clock, no I/O, every random
draw from a named stream of the match seed. Both drivers sit on it: the real-time FastAPI server
(`server/`) and the lockstep platform engine (`engine.py`). Team index = seat = registration order (DP-5).

    r = Round.create(config, seed, ["alpha", "beta"])
    r.arena(0, next_turn_in=2.0)          # §4, what team 0 sees
    errors = r.submit(0, {"moves": [...]})  # §5, merged into team 0's order slots
    logs = r.transition()                 # §3.8, turn_no += 1; {team: ["turn 1: ...", ...]}
    r.results()                           # §6.1/§6.2 once r.finished
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from botarena.games.datspulse.config import DatsPulseConfig

#: A source of random streams by short name (`"map"`, `"order"`, ...; DP-95). The default is
#: `botarena.core.rng.stream(seed, "datspulse.<name>")`; tests inject forced draws (§9, §11).
StreamSource = Callable[[str], Any]


class BadBody(ValueError):
    """§5: a move body rejected as a whole (HTTP 400 code 4); str(exc) is the <reason>."""


class Round:
    """One DatsPulse round: pure, deterministic state machine (no clock, no I/O). Team index = seat (DP-5)."""

    config: DatsPulseConfig
    seed: int
    team_names: list[str]

    @classmethod
    def create(
        cls,
        config: DatsPulseConfig,
        seed: int,
        team_names: Sequence[str],
        *,
        round_number: int = 1,
        streams: StreamSource | None = None,
    ) -> Round:
        """Generate the map for len(team_names) teams and set up turn 0 (§3.5, §3.6). Raises ConfigError
        (botarena.core.config) when the map cannot be generated for that many teams.

        `round_number` (1-based within the series) picks the generator when `map_generator` is `cycle`
        (DP-47). `streams` replaces the seeded streams (tests only)."""
        raise NotImplementedError

    @property
    def turn_no(self) -> int:
        """The current turn: 0 at the start, `config.turns` at the end (§4 `turnNo`)."""
        raise NotImplementedError

    @property
    def finished(self) -> bool:
        """True once turn_no == config.turns (DP-81)."""
        raise NotImplementedError

    @property
    def radius(self) -> int:
        """The map radius R (DP-4)."""
        raise NotImplementedError

    def arena(self, team: int, next_turn_in: float) -> dict[str, Any]:
        """The §4 arena object for `team`, keys in the §7.1 order, ints as ints, optional ant keys omitted.
        `next_turn_in` is put in as given (callers round it, §7.1)."""
        raise NotImplementedError

    def submit(self, team: int, body: Any) -> list[str]:
        """Validate a parsed JSON move body (§5) for `team` at the current turn and merge the accepted
        paths into the team's orders for the next transition (latest accepted wins per ant, §7.2).
        Returns the `errors` strings in order. Raises BadBody for a whole-body rejection (top level not
        an object, `moves` neither array nor null). Body size and JSON syntax are the caller's checks.

        Once the round is finished a well-formed body changes nothing and gets `["round is over"]` (§7.2)."""
        raise NotImplementedError

    def orders(self, team: int) -> dict[str, list[tuple[int, int]]]:
        """The team's accepted order slots for the coming transition (ant id -> path), for replays."""
        raise NotImplementedError

    def set_orders(self, team: int, orders: Mapping[str, Sequence[tuple[int, int]]]) -> None:
        """Install recorded orders verbatim (replay re-runs and the lockstep/real-time identity test)."""
        raise NotImplementedError

    def transition(self) -> dict[int, list[str]]:
        """Run one §3.8 transition; clears all orders; turn_no += 1. Returns the new §7.7 log lines per team
        index (already formatted `turn <t+1>: <text>`). Raises RuntimeError if finished."""
        raise NotImplementedError

    def spectator_frame(self) -> dict[str, Any]:
        """§4 "Spectator frame" (never sent to bots): {turnNo, teams, units, food, events}; `events` are the
        last transition's log lines as {team, message}."""
        raise NotImplementedError

    def terrain(self) -> dict[str, Any]:
        """{radius, tiles: [[q, r, type], ...]} in canonical hex order (§4), for the replay header."""
        raise NotImplementedError

    def visible_hexes(self, team: int) -> list[tuple[int, int]]:
        """The team's visible set (DP-90) in canonical order (viewer/tests)."""
        raise NotImplementedError

    def results(self) -> list[dict[str, Any]]:
        """§6.1/6.2 per team index: {index, name, score, place, points, unitsLost}."""
        raise NotImplementedError


def round_places(scores: Sequence[int]) -> list[int]:
    """§6.2 competition ranking by score, descending (1, 1, 3)."""
    raise NotImplementedError


def standings(rounds_results: Sequence[Sequence[Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """§6.3 final standings over rounds' `results()` lists, teams matched by `name`.

    Returns one entry per team, best first: {place, name, points, calories, unitsLost, roundsScored,
    active}. Order: total points desc, total calories desc, total units lost asc; teams equal on all three
    share a place. `active`: scored >= 1 in at least ceil(F/2) of the F rounds."""
    raise NotImplementedError
