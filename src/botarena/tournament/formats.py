"""Tournament formats: the generic ones every game plays, and the lookup of every format by name.

The format interface (`Format`: which matches to add now, whether the tournament is over, derived
again from scratch at every step) and the round robin are in `botarena.core.formats`, so that a game
can declare formats of its own (`GameInfo.tournament_formats`: an event's schedule, the game set-up
it plays, its leaderboard sections). This module knows no game: `make_format` finds a name among
`GENERIC_FORMATS`, then among the formats the registered games declare (`declared_formats`), which
imports the games only when a name is not a generic one.

A failed match (`FinishedMatch.ranks is None`) is no result, and never rated:

- round robins: it stays failed (finished, not replayed; no points in a declared format's standings);
- swiss: 0 points to both sides, but it counts as a meeting and for the seats;
- single elimination: replayed with seats swapped like a draw (nobody can be said to have lost it);
- ladder: it counts as a game scheduled for both (so the least-played still play first).

Generic formats (`GENERIC_FORMATS`):

- `round-robin`: every pair meets `cycles` times (2 players), or every group of `players` entrants
  plays `players` matches per cycle with each member in each seat once (3..N players).
- `swiss`: rounds paired by score with a maximum-weight matching, no rematch where one is avoidable.
- `single-elimination`: a seeded bracket; drawn or failed matches are replayed with seats swapped.
- `ladder`: continuous matchmaking in waves by rating uncertainty; nobody is ever starved of games.

`FORMATS` is every format by name, the declared ones included (a lazy mapping: reading it imports the
games). A declared format's aliases (`TournamentFormat.aliases`) are resolved by the tournament
service for the tournament's own game; `make_format` takes format names only.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx  # type: ignore[import-untyped]
from openskill.models import PlackettLuceRating

from botarena.core.formats import (
    MAX_SEED,
    RUNNER_OPTIONS,
    FinishedMatch,
    FixedFormat,
    Format,
    FormatError,
    MatchSpec,
    RoundRobin,
    canonical,
    int_option,
    key_width,
    match_seed,
    pick_groups,
    tiebreak,
)
from botarena.core.game import GameInfo, TournamentFormat
from botarena.core.registry import all_games, get_game
from botarena.tournament.ratings import MODEL, openskill_ratings

__all__ = [  # the names importers of the tournament layer read from here (the interface is core's)
    "FORMATS",
    "GENERIC_FORMATS",
    "MAX_SEED",
    "RUNNER_OPTIONS",
    "FinishedMatch",
    "FixedFormat",
    "Format",
    "FormatError",
    "Ladder",
    "MatchSpec",
    "Placing",
    "RoundRobin",
    "SingleElimination",
    "Swiss",
    "bracket_order",
    "declared_format",
    "declared_formats",
    "make_format",
    "match_points",
    "match_quality",
    "match_seed",
    "pick_groups",
    "swiss_pairs",
    "tiebreak",
]


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
        self.rounds = int_option(options, "rounds", default, 1, 1000)
        self._round_width = key_width(self.rounds, 2)
        self._match_width = key_width(len(self.entrants) // 2, 3)

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
        self.replays = int_option(options, "replays", 2, 0, 99)
        self.size = 1 << (len(self.entrants) - 1).bit_length()
        self.rounds = self.size.bit_length() - 1
        self._round_width = key_width(self.rounds, 2)
        self._match_width = key_width(self.size // 2, 3)
        self._game_width = key_width(self.replays + 1, 1)

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
        self.matches = int_option(options, "matches", default, 1, 1_000_000)
        self.wave_size = len(self.entrants) // players
        self.waves = math.ceil(self.matches / self.wave_size)
        self._wave_width = key_width(self.waves, 4)
        self._match_width = key_width(self.wave_size, 2)

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


GENERIC_FORMATS: dict[str, type[Format]] = {
    RoundRobin.name: RoundRobin,
    Swiss.name: Swiss,
    SingleElimination.name: SingleElimination,
    Ladder.name: Ladder,
}
"""The formats every game plays, by name."""


def declared_formats(game: str | None = None) -> dict[str, TournamentFormat]:
    """The formats game `game` declares (every registered game's when None), by name.

    Raises FormatError when a declared name or alias is taken twice (by a generic format or another
    declared one): a tournament stores only the name, so it must say which format it was."""
    games = all_games() if game is None else _registered(game)
    found: dict[str, TournamentFormat] = {}
    taken = set(GENERIC_FORMATS)
    for info in games:
        for declared in info.tournament_formats:
            for name in declared.names:
                if name in taken:
                    raise FormatError(f"game {info.id!r} declares format {name!r}, a name already taken")
                taken.add(name)
            found[declared.name] = declared
    return found


def _registered(game: str) -> list[GameInfo[Any]]:
    """[game `game`'s info], or [] when no such game is registered (it declares nothing then)."""
    try:
        return [get_game(game)]
    except LookupError:
        return []


def declared_format(name: str, game: str | None = None) -> TournamentFormat | None:
    """The declared format called `name` or one of its aliases (of game `game` when given), or None.

    A generic name is never a declared one, so it imports no game."""
    if name in GENERIC_FORMATS:
        return None
    for declared in declared_formats(game).values():
        if name in declared.names:
            return declared
    return None


class _AllFormats(Mapping[str, type[Format]]):
    """Every format by name: the generic ones, then the declared ones (read at each use, so a game
    registered later is seen)."""

    def _merged(self) -> dict[str, type[Format]]:
        declared = {name: found.format for name, found in declared_formats().items()}
        return {**GENERIC_FORMATS, **declared}

    def __getitem__(self, name: str) -> type[Format]:
        if name in GENERIC_FORMATS:
            return GENERIC_FORMATS[name]
        return self._merged()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._merged())

    def __len__(self) -> int:
        return len(self._merged())


FORMATS: Mapping[str, type[Format]] = _AllFormats()
"""Every format by name, the generic and the declared ones (see the module docstring)."""


def make_format(
    name: str,
    entrants: Sequence[str],
    *,
    seed: int,
    players: int,
    options: Mapping[str, Any] | None = None,
    game: str | None = None,
) -> Format:
    """The format called `name`: a generic one, or one game `game` declares (any game's when None);
    `FormatError` (one line) on an unknown name or a bad option."""
    cls = GENERIC_FORMATS.get(name)
    if cls is None:
        declared = declared_formats(game).get(name)
        cls = None if declared is None else declared.format
    if cls is None:
        known = sorted({*GENERIC_FORMATS, *declared_formats(game)})
        raise FormatError(f"unknown format {name!r} (known: {', '.join(known)})")
    return cls(entrants, seed=seed, players=players, options=options or {})
