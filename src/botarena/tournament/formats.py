"""Tournament formats: which matches to play, derived again from scratch at every step.

A `Format` is built from (entrants, tournament seed, players per match, options) and answers two
questions about the matches already `scheduled` and the ones `finished`: which matches to add now
(`schedule`) and whether the tournament is over (`done`). It keeps no state of its own, so a resumed
tournament continues exactly where it stopped, and its answers depend only on what the results are,
never on the order they arrived in (the `finished` mapping is always read in (round, key) order).

Every match gets the seed `match_seed(tournament seed, key)`, so any match of any tournament can be
re-run on its own. A failed match (`FinishedMatch.ranks is None`) is no result, and never rated:

- round robins: it stays failed (finished, not replayed; no points in the drones standings);
- swiss: 0 points to both sides, but it counts as a meeting and for the seats;
- single elimination: replayed with seats swapped like a draw (nobody can be said to have lost it);
- ladder: it counts as a game scheduled for both (so the least-played still play first).

Formats (`FORMATS`):

- `round-robin`: every pair meets `cycles` times (2 players), or every group of `players` entrants
  plays `players` matches per cycle with each member in each seat once (3..N players).
- `drones-2018`: the GameOfDrones 2018 event (drones spec 2.3 and 6.3): the circle schedule with the
  event's sides, and the spec's standings with the event's per-opponent summary. Users name it
  `drones_2018_event` (the spec's name; `drones-2018` is an alias): for the drones game both also
  select game preset `bravolt2018` and the event's config (`games.drones.config.EVENT_2018_TOURNAMENT`).
- `swiss`: rounds paired by score with a maximum-weight matching, no rematch where one is avoidable.
- `single-elimination`: a seeded bracket; drawn or failed matches are replayed with seats swapped.
- `ladder`: continuous matchmaking in waves by rating uncertainty; nobody is ever starved of games.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import networkx as nx  # type: ignore[import-untyped]
from openskill.models import PlackettLuceRating

from botarena.tournament.ratings import MODEL, openskill_ratings
from botarena.tournament.results import FinishedMatch, canonical
from botarena.tournament.roundrobin import MatchScore, Standing, circle_schedule, standings, summary_line

DRONES_2018_PRESET = "bravolt2018"
"""The drones game preset the `drones-2018` format plays (spec 2.2: `{"rules": "bravolt2018"}`)."""

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


def _width(count: int, minimum: int) -> int:
    return max(minimum, len(str(max(count, 0))))


def _int_option(options: Mapping[str, Any], name: str, default: int, low: int, high: int) -> int:
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


class _FixedFormat(Format):
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


class RoundRobin(_FixedFormat):
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
        self.cycles = _int_option(options, "cycles", 1, 1, 1000)
        self.groups: list[tuple[str, ...]] = []
        if players == 2:
            if "groups" in options:
                raise FormatError("option 'groups' is for matches of 3 or more players")
        else:
            total = math.comb(len(self.entrants), players)
            if "groups" in options:
                count = _int_option(options, "groups", 1, 1, MAX_GROUPS)
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
        round_width = _width(total_rounds, 2)
        match_width = _width(max(len(r) for r in rounds), 3)
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


DRONES_2018_FORMAT = "drones-2018"
"""The format of the 2018 event (spec 6.3): its leaderboard has the event's standings."""


class Drones2018(RoundRobin):
    """The GameOfDrones 2018 event (drones spec 2.3 and 6.3), played with game preset `bravolt2018`.

    The circle-method schedule exactly as at the event: round r's pairs with `PLAYER 1` (seat 0)
    named first, the pair with the bye left out. 2 players only, no options. Standings:
    `drones_2018_standings`.
    """

    name = DRONES_2018_FORMAT
    options = frozenset()
    two_player_only = True

    def _orient(self, a: str, b: str) -> tuple[str, str]:
        return a, b


Details = Mapping[str, Mapping[str, Any]]
"""Match key -> the match's result details (`MatchResult.details`, read from its replay)."""


def _round_draws(details: Details | None, key: str) -> int:
    """The drawn rounds of match `key` (`roundTotals.draws` of its drones result details), 0 if unknown."""
    found = (details or {}).get(key) or {}
    totals = found.get("roundTotals")
    draws = totals.get("draws") if isinstance(totals, Mapping) else None
    return draws if type(draws) is int and draws >= 0 else 0


def drones_2018_scores(finished: Iterable[FinishedMatch], details: Details | None = None) -> list[MatchScore]:
    """The played drones matches as `MatchScore`s, in canonical order (failed ones left out).

    A drones match's scores are [PLAYER 1's round wins, PLAYER 2's round wins]; its drawn rounds come
    from the result details (`roundTotals.draws`), 0 when those are not given or cannot be read. A
    match with ranks but no scores counts as 1 round won to 0 (or 0-0 when ranks tie).
    """
    results: list[MatchScore] = []
    for match in canonical(finished):
        if match.ranks is None or len(match.seats) != 2:
            continue
        if match.scores is not None and len(match.scores) == 2:
            wins1, wins2 = round(match.scores[0]), round(match.scores[1])
        else:
            one, two = match.ranks
            wins1, wins2 = int(one < two), int(two < one)
        draws = _round_draws(details, match.key)
        results.append(MatchScore(match.seats[0], match.seats[1], wins1, wins2, draws))
    return results


def drones_2018_standings(
    entrants: Sequence[str], finished: Iterable[FinishedMatch], details: Details | None = None
) -> list[Standing]:
    """The spec 6.3 standings table from drones results (`roundrobin.standings`).

    `round_draws` counts the drawn rounds found in `details` (`drones_2018_scores`). A failed match is
    no result: it is left out (nobody gets points, nobody has played it).
    """
    try:
        return standings(entrants, drones_2018_scores(finished, details))
    except ValueError as error:
        raise FormatError(str(error)) from None


def drones_2018_summary(
    entrants: Sequence[str], finished: Iterable[FinishedMatch], details: Details | None = None
) -> dict[str, dict[str, str]]:
    """Spec 6.3's per-entrant summary, as the event printed it: entrant -> opponent -> e.g.
    `WIN (W:792/ L:208/ D:0)` (`roundrobin.summary_line`), opponents in the order they were met."""
    table: dict[str, dict[str, str]] = {name: {} for name in entrants}
    for score in drones_2018_scores(finished, details):
        for name, opponent in ((score.player1, score.player2), (score.player2, score.player1)):
            if name in table:
                table[name][opponent] = summary_line(score, name)
    return table


def drones_2018_notes(
    entrants: Sequence[str], finished: Iterable[FinishedMatch], details: Details | None = None
) -> list[str]:
    """What the standings should say about entrants the 2018 event would not have played.

    The original round robin silently dropped a bot without `meta.name` and any later bot whose
    `meta.name` an earlier one had; botarena plays every entrant. The metas are those the bots sent
    in their first finished match (result details `meta`); the engine's default meta
    (`{"name": "Anonymous Player"}`, what a bot that sent none gets) counts as no name.
    """
    metas: dict[str, Any] = {}
    for match in canonical(finished):
        sent = ((details or {}).get(match.key) or {}).get("meta")
        if match.ranks is None or not isinstance(sent, Sequence) or len(sent) != len(match.seats):
            continue
        for name, meta in zip(match.seats, sent, strict=True):
            metas.setdefault(name, meta)
    notes = [
        "every entrant is played: the 2018 event dropped a bot without meta.name and any later bot "
        "with a duplicate meta.name (spec 6.3)"
    ]
    first_with: dict[str, str] = {}
    for name in entrants:
        if name not in metas:
            continue
        meta = metas[name]
        meta_name = meta.get("name") if isinstance(meta, Mapping) else None
        if not meta_name or meta == ANONYMOUS_META:
            notes.append(f"{name}: no meta.name, the 2018 event would have dropped it")
        elif not isinstance(meta_name, str | int | float):
            continue  # the original's `in` test on an object key: not reproduced
        elif str(meta_name) in first_with:
            earlier = first_with[str(meta_name)]
            notes.append(
                f"{name}: meta.name {meta_name!r} as {earlier}, the 2018 event would have dropped it"
            )
        else:
            first_with[str(meta_name)] = name
    return notes


ANONYMOUS_META = {"name": "Anonymous Player"}
"""The meta a drones bot that sent none is recorded with (drones spec 7.1, 7.5)."""


def _round_state(scheduled: Sequence[MatchSpec], finished: Mapping[str, FinishedMatch]) -> tuple[int, bool]:
    """The last scheduled round (0 when none) and whether all its matches have finished."""
    last = max((spec.round for spec in scheduled), default=0)
    complete = all(spec.key in finished for spec in scheduled if spec.round == last)
    return last, complete


def match_points(match: FinishedMatch) -> dict[str, float]:
    """Each seat's points from one 2-player match: win 1, draw 0.5, loss 0; a failed match gives 0."""
    if match.ranks is None:
        return dict.fromkeys(match.seats, 0.0)
    return {
        name: sum(1.0 if rank < other else 0.5 if rank == other else 0.0 for other in match.ranks) - 0.5
        for name, rank in zip(match.seats, match.ranks, strict=True)
    }


class Swiss(Format):
    """Swiss pairing by score for 2 players, `rounds` rounds (option, default ceil(log2(n))).

    Round r + 1 is paired once every match of round r has finished. Points: win 1, draw 0.5, loss 0,
    a bye 1; a failed match gives both sides 0 (it still counts as a meeting and a seat). Entrants are
    ranked by points, then by a seed-derived order (`tiebreak`). With an odd count the bye goes to
    the lowest-ranked entrant among those with the fewest byes; a bye is not a match, so it is seen
    in `scheduled` as the one entrant missing from its round.

    The others are paired by `networkx.max_weight_matching` (maximum cardinality) on integer weights
    whose penalties are strictly ordered (`swiss_pairs`): rematches first, so there is no rematch
    when the round's players (the bye set aside) have a perfect matching without one; then the score
    gaps, so scores are as equal as they can be; then the seat imbalance a pair would leave; then the
    rank distance, so neighbours in the ranking meet. In each match the entrant with the lower seat
    balance (seat-0 matches minus seat-1 matches) sits in seat 0 (ties: the seed-derived order of
    that round).
    """

    name = "swiss"
    options = frozenset({"rounds"})
    two_player_only = True

    def __init__(self, entrants: Sequence[str], *, seed: int, players: int, options: Mapping[str, Any]):
        super().__init__(entrants, seed=seed, players=players, options=options)
        default = max(1, math.ceil(math.log2(len(self.entrants))))
        self.rounds = _int_option(options, "rounds", default, 1, 1000)
        self._round_width = _width(self.rounds, 2)
        self._match_width = _width(len(self.entrants) // 2, 3)

    @property
    def planned_matches(self) -> int:
        return self.rounds * (len(self.entrants) // 2)

    def done(self, scheduled: Sequence[MatchSpec], finished: Mapping[str, FinishedMatch]) -> bool:
        last, complete = _round_state(scheduled, finished)
        return last >= self.rounds and complete

    def standings(self, scheduled: Sequence[MatchSpec], finished: Mapping[str, FinishedMatch]) -> list[str]:
        """Entrants ranked by Swiss points (byes included), then by the seed-derived order."""
        points = self.points(scheduled, finished)
        return sorted(self.entrants, key=lambda name: (-points[name], tiebreak(self.seed, "swiss", name)))

    def points(
        self, scheduled: Sequence[MatchSpec], finished: Mapping[str, FinishedMatch]
    ) -> dict[str, float]:
        """Swiss points: match points of finished matches plus 1 per bye."""
        points = dict.fromkeys(self.entrants, 0.0)
        for match in canonical(finished):
            for name, value in match_points(match).items():
                points[name] += value
        for name in self.byes(scheduled):
            points[name] += 1.0
        return points

    def byes(self, scheduled: Sequence[MatchSpec]) -> list[str]:
        """The entrant that sat out each scheduled round, in round order (odd counts only)."""
        if len(self.entrants) % 2 == 0:
            return []
        playing: dict[int, set[str]] = {}
        for spec in scheduled:
            playing.setdefault(spec.round, set()).update(spec.seats)
        return [
            next(name for name in self.entrants if name not in playing[number]) for number in sorted(playing)
        ]

    def schedule(
        self, scheduled: Sequence[MatchSpec], finished: Mapping[str, FinishedMatch]
    ) -> list[MatchSpec]:
        last, complete = _round_state(scheduled, finished)
        if last >= self.rounds or not complete:
            return []
        number = last + 1
        ranking = self.standings(scheduled, finished)
        points = self.points(scheduled, finished)
        met: Counter[frozenset[str]] = Counter(frozenset(spec.seats) for spec in scheduled)
        balance: Counter[str] = Counter()  # seat-0 matches minus seat-1 matches
        for spec in scheduled:
            balance[spec.seats[0]] += 1
            balance[spec.seats[1]] -= 1
        pool = list(ranking)
        if len(pool) % 2:
            byes = Counter(self.byes(scheduled))
            fewest = min(byes[name] for name in pool)
            pool.remove(next(name for name in reversed(ranking) if byes[name] == fewest))
        pairs = swiss_pairs(pool, points, met, balance)
        matches: list[MatchSpec] = []
        for m, (a, b) in enumerate(pairs, start=1):
            first, second = sorted(
                (a, b), key=lambda name: (balance[name], tiebreak(self.seed, f"seat{number}", name))
            )
            key = f"r{number:0{self._round_width}d}-m{m:0{self._match_width}d}"
            matches.append(self.spec(key, number, (first, second)))
        return matches


def swiss_pairs(
    ranking: Sequence[str],
    points: Mapping[str, float],
    met: Mapping[frozenset[str], int],
    balance: Mapping[str, int] | None = None,
) -> list[tuple[str, str]]:
    """A perfect matching of `ranking` (even length, best first) as described in `Swiss`.

    Penalties, each tier worth more than any sum of the tiers below it: rematches (per earlier
    meeting), the score gap (squared, in half points), the seat imbalance the pair would leave
    (`balance`: seat-0 minus seat-1 matches; the lower one takes seat 0), the rank distance
    (squared). The pairs are returned best-ranked first, each (better-ranked, worse-ranked).
    """
    n = len(ranking)
    seat_balance = balance or {}
    half = [round(2 * points[name]) for name in ranking]
    sides = [seat_balance.get(name, 0) for name in ranking]
    max_gap = max(half, default=0) - min(half, default=0)
    max_side = max((abs(side) for side in sides), default=0) + 1

    def imbalance(i: int, j: int) -> int:
        low, high = sorted((sides[i], sides[j]))
        return max(0, max(abs(low + 1), abs(high - 1)) - 1) ** 2

    rank_unit = 1
    seat_unit = rank_unit * (n * n * n + 1)  # beats the sum of all rank-distance penalties
    score_unit = seat_unit * (n * max_side * max_side + 1)  # beats the sum of all seat penalties
    rematch_unit = score_unit * (n * (max_gap * max_gap + 1) + 1)  # beats the sum of all score penalties
    most_met = max((met.get(frozenset((a, b)), 0) for a, b in itertools.combinations(ranking, 2)), default=0)
    offset = rematch_unit * (most_met + 1) + score_unit * (max_gap * max_gap + 1)
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    for i, j in itertools.combinations(range(n), 2):
        penalty = (
            rematch_unit * met.get(frozenset((ranking[i], ranking[j])), 0)
            + score_unit * (half[i] - half[j]) ** 2
            + seat_unit * imbalance(i, j)
            + rank_unit * (j - i) ** 2
        )
        graph.add_edge(i, j, weight=offset - penalty)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    pairs = sorted((min(i, j), max(i, j)) for i, j in matching)
    if 2 * len(pairs) != n:  # a complete graph always has a perfect matching
        raise AssertionError("swiss pairing is not perfect")
    return [(ranking[i], ranking[j]) for i, j in pairs]


def bracket_order(size: int) -> list[int]:
    """Seed numbers (1-based) in bracket order for a power-of-two `size`: 1 v size, 2 v size-1, ...

    Built by the standard doubling (1 2 -> 1 4 2 3 -> 1 8 4 5 2 7 3 6), so seeds 1 and 2 can only
    meet in the final, 1-4 only in the semi-finals, and so on.
    """
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for top in order for seed in (top, total - top)]
    return order


@dataclass(frozen=True)
class Placing:
    """Where an entrant finished a single elimination: `place` 1, 2, 3 (shared), 5 (shared), ..."""

    name: str
    place: int
    reached: int  # the last round the entrant was in (the final's number + 1 for the winner)
    seed: int  # 1-based entrant order


class SingleElimination(Format):
    """A seeded knockout for 2 players; entrant order is the seeding (seed 1 first).

    The bracket has the next power of two slots in `bracket_order`; slots past the last entrant are
    byes, so the top seeds skip the first round. A match is scheduled as soon as both its entrants
    are known (a bracket does not wait for the whole round). Game 1 of a pairing has the higher seed
    in seat 0. A drawn game, or a failed one (no result: nobody can be said to have lost it), is
    replayed with seats swapped under a new key (`-g2`, `-g3`, ...), at most `replays` times (option,
    default 2); if no game decides, the higher seed advances. `placings` gives the final standings
    by the round reached.
    """

    name = "single-elimination"
    options = frozenset({"replays"})
    two_player_only = True

    def __init__(self, entrants: Sequence[str], *, seed: int, players: int, options: Mapping[str, Any]):
        super().__init__(entrants, seed=seed, players=players, options=options)
        self.replays = _int_option(options, "replays", 2, 0, 99)
        self.size = 1 << (len(self.entrants) - 1).bit_length()
        self.rounds = self.size.bit_length() - 1
        self._round_width = _width(self.rounds, 2)
        self._match_width = _width(self.size // 2, 3)
        self._game_width = _width(self.replays + 1, 1)

    def game_key(self, number: int, slot: int, game: int) -> str:
        """The key of game `game` (1-based) of the pairing in bracket slot `slot` of round `number`."""
        base = f"r{number:0{self._round_width}d}-m{slot:0{self._match_width}d}"
        return base if game == 1 else f"{base}-g{game:0{self._game_width}d}"

    def _play(
        self, finished: Mapping[str, FinishedMatch]
    ) -> tuple[list[tuple[int, int, int, str, str]], list[list[int | None]]]:
        """Walk the bracket: the games that are due, and every round's slots.

        A due game is (round, slot, game, seat 0, seat 1). `slots[r]` lists, in bracket order, the
        entrant index in each slot of round r + 1: `_BYE` for an empty slot, None when not known yet;
        the last list holds the champion.
        """
        due: list[tuple[int, int, int, str, str]] = []
        n = len(self.entrants)
        slots: list[int | None] = [s - 1 if s <= n else _BYE for s in bracket_order(self.size)]
        rounds = [slots]
        for number in range(1, self.rounds + 1):
            advancing: list[int | None] = []
            for slot in range(len(slots) // 2):
                a, b = slots[2 * slot], slots[2 * slot + 1]
                if a is None or b is None:
                    advancing.append(None)
                elif a == _BYE or b == _BYE:
                    advancing.append(max(a, b))  # never two byes: n > size / 2
                else:
                    advancing.append(self._pairing(finished, number, slot + 1, min(a, b), max(a, b), due))
            slots = advancing
            rounds.append(slots)
        return due, rounds

    def _pairing(
        self,
        finished: Mapping[str, FinishedMatch],
        number: int,
        slot: int,
        high: int,
        low: int,
        due: list[tuple[int, int, int, str, str]],
    ) -> int | None:
        """The winner of one pairing (None while undecided, its next game added to `due`)."""
        for game in range(1, self.replays + 2):
            one, two = (high, low) if game % 2 else (low, high)
            match = finished.get(self.game_key(number, slot, game))
            if match is None:
                due.append((number, slot, game, self.entrants[one], self.entrants[two]))
                return None
            if match.ranks is not None and match.ranks[0] != match.ranks[1]:
                return one if match.ranks[0] < match.ranks[1] else two
        return high  # drawn or failed every time: the higher seed advances

    def schedule(
        self, scheduled: Sequence[MatchSpec], finished: Mapping[str, FinishedMatch]
    ) -> list[MatchSpec]:
        known = {spec.key for spec in scheduled}
        due, _ = self._play(finished)
        return [
            self.spec(self.game_key(number, slot, game), number, (one, two))
            for number, slot, game, one, two in due
            if self.game_key(number, slot, game) not in known
        ]

    def done(self, scheduled: Sequence[MatchSpec], finished: Mapping[str, FinishedMatch]) -> bool:
        _, rounds = self._play(finished)
        return rounds[-1][0] is not None

    def champion(self, finished: Mapping[str, FinishedMatch]) -> str | None:
        """The winner, once the final is decided."""
        _, rounds = self._play(finished)
        winner = rounds[-1][0]
        return None if winner is None else self.entrants[winner]

    def placings(self, finished: Mapping[str, FinishedMatch]) -> list[Placing]:
        """Final standings by round reached: the winner 1, the final's loser 2, the semi-finals'
        losers 3, the quarter-finals' 5, ...; entrants still in a running bracket share the place
        of the round they are in. Sorted by place, then seed."""
        _, rounds = self._play(finished)
        reached = dict.fromkeys(range(len(self.entrants)), 1)
        for number, slots in enumerate(rounds, start=1):
            for index in slots:
                if index is not None and index != _BYE:
                    reached[index] = number
        table = [
            Placing(
                name=self.entrants[index],
                place=1 if last > self.rounds else (self.size >> last) + 1,
                reached=last,
                seed=index + 1,
            )
            for index, last in reached.items()
        ]
        return sorted(table, key=lambda p: (p.place, p.seed))


_BYE = -1
"""An empty bracket slot."""


class Ladder(Format):
    """Continuous matchmaking by rating uncertainty for 2..N players; nobody is starved of games.

    The tournament plays `matches` matches in all (option, default ceil(10 n / players), about ten
    per entrant), in waves of floor(n / players) matches; wave w + 1 is made once every match of
    wave w has finished, from the ratings (`ratings.rate`) of everything finished so far.

    Who plays: the `wave size x players` entrants with the fewest scheduled games, ties broken by a
    seed-derived order that changes every wave. Game counts therefore never differ by more than one
    after any wave: if they are all k or k + 1, either enough entrants have k games to fill the wave
    (they go up to k + 1 or stay at k) or all of them play along with some at k + 1 (so the counts
    become k + 1 and k + 2). A failed match still counts as a game scheduled (so a bot whose matches
    keep failing is not given ever more of them) but rates as no result.

    Who plays whom: the chosen entrants are taken in order (fewest games first); the first one not
    yet placed anchors a match, and the seats are filled one at a time with the remaining candidate
    that maximises `match_quality`: openskill's predicted draw probability of the group with the
    candidate (evenly matched games teach most) plus the candidate's sigma over the initial sigma
    (uncertain ratings need games), minus half the share of the anchor's games already played
    against the candidate (so the same two do not meet every wave). Ties: the seed-derived order.
    Seats: filled seat by seat by the member who has sat in that seat least, then by that order.
    """

    name = "ladder"
    options = frozenset({"matches"})

    def __init__(self, entrants: Sequence[str], *, seed: int, players: int, options: Mapping[str, Any]):
        super().__init__(entrants, seed=seed, players=players, options=options)
        default = math.ceil(10 * len(self.entrants) / players)
        self.matches = _int_option(options, "matches", default, 1, 1_000_000)
        self.wave_size = len(self.entrants) // players
        self.waves = math.ceil(self.matches / self.wave_size)
        self._wave_width = _width(self.waves, 4)
        self._match_width = _width(self.wave_size, 2)

    @property
    def planned_matches(self) -> int:
        return self.matches

    def done(self, scheduled: Sequence[MatchSpec], finished: Mapping[str, FinishedMatch]) -> bool:
        _, complete = _round_state(scheduled, finished)
        return len(scheduled) >= self.matches and complete

    def schedule(
        self, scheduled: Sequence[MatchSpec], finished: Mapping[str, FinishedMatch]
    ) -> list[MatchSpec]:
        last, complete = _round_state(scheduled, finished)
        count = min(self.wave_size, self.matches - len(scheduled))
        if count <= 0 or not complete:
            return []
        number = last + 1
        games: Counter[str] = Counter(name for spec in scheduled for name in spec.seats)
        seats: Counter[tuple[str, int]] = Counter(
            (name, seat) for spec in scheduled for seat, name in enumerate(spec.seats)
        )
        met: Counter[tuple[str, str]] = Counter(
            (a, b) for spec in scheduled for a in spec.seats for b in spec.seats if a != b
        )
        salt = f"wave{number}"
        order = sorted(self.entrants, key=lambda name: (games[name], tiebreak(self.seed, salt, name)))
        chosen = order[: count * self.players]
        ratings, _ = openskill_ratings(self.entrants, canonical(finished))
        matches: list[MatchSpec] = []
        remaining = list(chosen)
        for m in range(1, count + 1):
            group = [remaining.pop(0)]
            while len(group) < self.players:
                best = max(
                    remaining,
                    key=lambda name: (
                        match_quality(group, name, ratings, games, met),
                        -tiebreak(self.seed, salt, name),
                    ),
                )
                remaining.remove(best)
                group.append(best)
            seating: list[str] = []
            for seat in range(self.players):
                sitter = min(
                    (name for name in group if name not in seating),
                    key=lambda name: (seats[(name, seat)], tiebreak(self.seed, f"{salt}.seat{seat}", name)),
                )
                seating.append(sitter)
            key = f"w{number:0{self._wave_width}d}-m{m:0{self._match_width}d}"
            matches.append(self.spec(key, number, seating))
        return matches


def match_quality(
    group: Sequence[str],
    candidate: str,
    ratings: Mapping[str, PlackettLuceRating],
    games: Mapping[str, int],
    met: Mapping[tuple[str, str], int],
) -> float:
    """How good adding `candidate` to `group` (anchor first) is for the ladder (see `Ladder`)."""
    draw = MODEL.predict_draw([[ratings[name]] for name in [*group, candidate]])
    uncertainty = ratings[candidate].sigma / MODEL.sigma
    anchor = group[0]
    repeat = met.get((anchor, candidate), 0) / max(1, games.get(anchor, 0))
    return float(draw) + uncertainty - 0.5 * repeat


FORMATS: dict[str, type[Format]] = {
    RoundRobin.name: RoundRobin,
    Drones2018.name: Drones2018,
    Swiss.name: Swiss,
    SingleElimination.name: SingleElimination,
    Ladder.name: Ladder,
}


def make_format(
    name: str, entrants: Sequence[str], *, seed: int, players: int, options: Mapping[str, Any] | None = None
) -> Format:
    """The format called `name`; `FormatError` (one line) on an unknown name or a bad option."""
    cls = FORMATS.get(name)
    if cls is None:
        raise FormatError(f"unknown format {name!r} (known: {', '.join(sorted(FORMATS))})")
    return cls(entrants, seed=seed, players=players, options=options or {})
