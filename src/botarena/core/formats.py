"""The tournament format interface: what every format (generic or a game's own) is built on.

A `Format` is built from (entrants, tournament seed, players per match, options) and answers two
questions about the matches already `scheduled` and the ones `finished`: which matches to add now
(`schedule`) and whether the tournament is over (`done`). It keeps no state of its own, so a resumed
tournament continues exactly where it stopped, and its answers depend only on what the results are,
never on the order they arrived in (the `finished` mapping is always read in (round, key) order).

It lives in core, not in `botarena.tournament`, because a game may declare formats of its own
(`GameInfo.tournament_formats`) and games import core only. `RoundRobin` is here for the same reason:
a game's event format is often a round robin with the event's seating (`FixedFormat` for any other
schedule known up front). The generic formats and the lookup by name are in `tournament.formats`.

Every match gets the seed `match_seed(tournament seed, key)`, so any match of any tournament can be
re-run on its own. A failed match (`FinishedMatch.ranks is None`) is no result, and never rated.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from botarena.core.roundrobin import circle_schedule

RUNNER_OPTIONS = frozenset({"players", "pace_ms"})
"""Tournament options that belong to the runner, not to a format: every format accepts and ignores
them (`players`, when present, must equal the `players` argument)."""

MAX_SEED = 2**64 - 1
MAX_GROUPS = 5000
PICK_TRIES = 1000
"""The most groups a 3..N-player round robin plays without an explicit `groups` option."""


class FormatError(ValueError):
    """A wrong format name, option or entrant list: the message is one line for the user."""


@dataclass(frozen=True)
class MatchSpec:
    """A match to play. `key` is unique in its tournament and sorts in schedule order within a round."""

    key: str
    round: int
    seats: tuple[str, ...]
    seed: int


@dataclass(frozen=True)
class FinishedMatch:
    """A match's outcome: 1-based `ranks` per seat (shared on ties), or None if the match failed."""

    key: str
    round: int
    seats: tuple[str, ...]
    ranks: tuple[int, ...] | None
    scores: tuple[float, ...] | None


def canonical(finished: Mapping[str, FinishedMatch] | Iterable[FinishedMatch]) -> list[FinishedMatch]:
    """Finished matches in the canonical order (round, key), whatever order they arrived in."""
    matches = finished.values() if isinstance(finished, Mapping) else finished
    return sorted(matches, key=lambda m: (m.round, m.key))


def match_seed(tournament_seed: int, key: str) -> int:
    """The seed of match `key` (0..2**32-1): the first four bytes of SHA-256 of seed and key.

    Stable forever: changing it would change every re-run of every recorded tournament.
    """
    digest = hashlib.sha256(f"botarena.match/{tournament_seed}/{key}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def tiebreak(tournament_seed: int, salt: str, name: str) -> int:
    """A seed-derived sort key that breaks ties between entrants without favouring list order."""
    digest = hashlib.sha256(f"botarena.tiebreak/{tournament_seed}/{salt}/{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def key_width(count: int, minimum: int) -> int:
    """The digits a match key's number field takes: `minimum`, or more for large counts."""
    return max(minimum, len(str(max(count, 0))))


def int_option(options: Mapping[str, Any], name: str, default: int, low: int, high: int) -> int:
    """Format option `name` (`default` when absent), an integer in low..high, or `FormatError`."""
    value = options.get(name, default)
    # An integral float (3.0) is an integer, as everywhere on the platform; bools are not.
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if type(value) is not int or not low <= value <= high:
        raise FormatError(f"option {name!r} must be an integer in {low}..{high}, got {value!r}")
    return value


class Format(ABC):
    """A tournament format (see the module docstring). Subclasses set `name` and `options`."""

    name: ClassVar[str]
    options: ClassVar[frozenset[str]] = frozenset()
    two_player_only: ClassVar[bool] = False

    def __init__(self, entrants: Sequence[str], *, seed: int, players: int, options: Mapping[str, Any]):
        if isinstance(entrants, str):
            raise FormatError("entrants must be a list of names, not one string")
        names = list(entrants)
        for name in names:
            if not isinstance(name, str) or not name:
                raise FormatError(f"entrant names must be non-empty strings, got {name!r}")
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise FormatError(f"entrant {duplicates[0]!r} is listed twice")
        if type(seed) is not int or not 0 <= seed <= MAX_SEED:
            raise FormatError(f"tournament seed must be an integer in 0..{MAX_SEED}, got {seed!r}")
        if type(players) is not int or players < 2:
            raise FormatError(f"players per match must be an integer >= 2, got {players!r}")
        if self.two_player_only and players != 2:
            raise FormatError(f"format {self.name!r} is for 2-player matches, not {players}")
        if not isinstance(options, Mapping):
            raise FormatError("options must be a mapping of option names to values")
        unknown = sorted(str(key) for key in options if key not in self.options | RUNNER_OPTIONS)
        if unknown:
            allowed = ", ".join(sorted(self.options)) or "none"
            raise FormatError(f"format {self.name!r} has no option {unknown[0]!r} (options: {allowed})")
        if "players" in options and options["players"] != players:
            raise FormatError(f"option 'players' is {options['players']!r} but the match has {players} seats")
        minimum = max(2, players)
        if len(names) < minimum:
            raise FormatError(
                f"format {self.name!r} with {players} players per match needs at least {minimum} "
                f"entrants, got {len(names)}"
            )
        self.entrants: tuple[str, ...] = tuple(names)
        self.seed = seed
        self.players = players
        self.index = {name: i for i, name in enumerate(names)}

    def spec(self, key: str, round_: int, seats: Sequence[str]) -> MatchSpec:
        """The match `key` with its seed derived from the tournament seed."""
        return MatchSpec(key=key, round=round_, seats=tuple(seats), seed=match_seed(self.seed, key))

    @abstractmethod
    def schedule(
        self, scheduled: Sequence[MatchSpec], finished: Mapping[str, FinishedMatch]
    ) -> list[MatchSpec]:
        """The matches to add now (none already in `scheduled`); [] when waiting for results or done."""

    @abstractmethod
    def done(self, scheduled: Sequence[MatchSpec], finished: Mapping[str, FinishedMatch]) -> bool:
        """Whether the tournament is over: nothing more will be scheduled and all of it has finished."""

    @property
    def planned_matches(self) -> int | None:
        """How many matches the whole tournament plays, when that is known in advance (for progress)."""
        return None


class FixedFormat(Format):
    """A format whose whole schedule is known up front (round robins)."""

    @abstractmethod
    def all_matches(self) -> list[MatchSpec]:
        """Every match of the tournament, in (round, key) order."""

    def schedule(
        self, scheduled: Sequence[MatchSpec], finished: Mapping[str, FinishedMatch]
    ) -> list[MatchSpec]:
        known = {spec.key for spec in scheduled}
        return [spec for spec in self.all_matches() if spec.key not in known]

    def done(self, scheduled: Sequence[MatchSpec], finished: Mapping[str, FinishedMatch]) -> bool:
        # A failed match is finished too (as no result): round robins do not replay it.
        return all(spec.key in finished for spec in self.all_matches())

    @property
    def planned_matches(self) -> int:
        return len(self.all_matches())


class RoundRobin(FixedFormat):
    """Every pair (2 players) or every group of `players` entrants meets; seats are balanced.

    2 players: the rounds of the circle method (`roundrobin.circle_schedule`), `cycles` times
    (option, default 1). In odd cycles the lower-registered entrant of pair (i, j) sits in seat 0
    when i + j is odd, which leaves every entrant with seat 0 in half its matches (one more or less
    when that number is odd); even cycles swap every pair's seats.

    3..N players: every combination of `players` entrants (`itertools.combinations`, registration
    order) plays `players` matches per cycle, the seats rotated cyclically, so each member sits in
    each seat once per cycle. Round k of a cycle holds every group's rotation k. With option
    `groups`, only that many groups play, picked so that appearances stay even (see `pick_groups`);
    without it more than `MAX_GROUPS` groups is an error.

    A failed match stays failed: it is not replayed and rates as no result.
    """

    name = "round-robin"
    options = frozenset({"cycles", "groups"})

    def __init__(self, entrants: Sequence[str], *, seed: int, players: int, options: Mapping[str, Any]):
        super().__init__(entrants, seed=seed, players=players, options=options)
        self.cycles = int_option(options, "cycles", 1, 1, 1000)
        self.groups: list[tuple[str, ...]] = []
        if players == 2:
            if "groups" in options:
                raise FormatError("option 'groups' is for matches of 3 or more players")
        else:
            total = math.comb(len(self.entrants), players)
            if "groups" in options:
                count = int_option(options, "groups", 1, 1, MAX_GROUPS)
                self.groups = pick_groups(self.entrants, players, min(count, total), seed)
            elif total > MAX_GROUPS:
                raise FormatError(
                    f"{total} groups of {players} from {len(self.entrants)} entrants is too many: "
                    "set option 'groups' or use the ladder"
                )
            else:
                self.groups = list(itertools.combinations(self.entrants, players))
        self._matches = self._build()

    def _build(self) -> list[MatchSpec]:
        rounds: list[list[tuple[str, ...]]]
        if self.players == 2:
            rounds = [[self._orient(a, b) for a, b in pairs] for pairs in circle_schedule(self.entrants)]
        else:
            rounds = [[group[k:] + group[:k] for group in self.groups] for k in range(self.players)]
        total_rounds = len(rounds) * self.cycles
        round_width = key_width(total_rounds, 2)
        match_width = key_width(max(len(r) for r in rounds), 3)
        matches: list[MatchSpec] = []
        for cycle in range(self.cycles):
            for r, seatings in enumerate(rounds):
                number = cycle * len(rounds) + r + 1
                for m, seats in enumerate(seatings, start=1):
                    if self.players == 2 and cycle % 2:
                        seats = seats[::-1]
                    key = f"r{number:0{round_width}d}-m{m:0{match_width}d}"
                    matches.append(self.spec(key, number, seats))
        return matches

    def _orient(self, a: str, b: str) -> tuple[str, str]:
        low, high = sorted((a, b), key=self.index.__getitem__)
        if (self.index[low] + self.index[high]) % 2:
            return low, high
        return high, low

    def all_matches(self) -> list[MatchSpec]:
        return list(self._matches)


def pick_groups(entrants: Sequence[str], players: int, count: int, seed: int) -> list[tuple[str, ...]]:
    """`count` groups of `players` for a round robin that cannot play every combination.

    Pick k takes the `players` entrants with the fewest appearances so far, so appearances never
    differ by more than one. Among the entrants tied at the boundary it takes the first combination,
    in a seed-derived order that changes with k, that was not picked before (the first one when the
    first `PICK_TRIES` were all picked). Each group lists its members in registration order.
    """
    index = {name: i for i, name in enumerate(entrants)}
    appearances = dict.fromkeys(entrants, 0)
    chosen: list[tuple[str, ...]] = []
    seen: set[tuple[str, ...]] = set()
    for k in range(count):
        order = sorted(entrants, key=lambda name: (appearances[name], tiebreak(seed, f"group{k}", name)))
        level = appearances[order[players - 1]]
        forced = [name for name in order if appearances[name] < level]
        pool = [name for name in order if appearances[name] == level]
        group: tuple[str, ...] | None = None
        for extra in itertools.islice(itertools.combinations(pool, players - len(forced)), PICK_TRIES):
            trial = tuple(sorted([*forced, *extra], key=index.__getitem__))
            if group is None:
                group = trial
            if trial not in seen:
                group = trial
                break
        assert group is not None
        seen.add(group)
        chosen.append(group)
        for name in group:
            appearances[name] += 1
    return chosen
