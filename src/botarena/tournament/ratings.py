"""Ratings and pair records from finished matches: the same code locally and on the server.

Ratings are OpenSkill's Plackett-Luce model with its default parameters (mu 25, sigma 25/3), for 2 to
N players per match, each player its own team; equal ranks are ties. Matches are applied one at a
time in the canonical order (round, key), so the ratings depend only on the results, never on the
order they arrived in. A failed match (`ranks is None`) is no result: it changes no rating, counts in
no record and is not `played`. Entrants are ranked by the ordinal mu - 3 sigma (openskill's
`ordinal()`), then by name.

Pair records compare every ordered pair of seats within each match by rank (a lower rank wins, an
equal rank draws), so a 4-player match gives each player three comparisons. The score rate
(wins + draws / 2) / played has a 95% Wilson score interval.


The leaderboard built from these is `botarena.tournament.leaderboard`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from openskill.models import PlackettLuce, PlackettLuceRating

from botarena.core.formats import FinishedMatch

Z95 = NormalDist().inv_cdf(0.975)
"""The normal quantile of a two-sided 95% interval (1.95996...)."""

MODEL = PlackettLuce()


@dataclass(frozen=True)
class Rating:
    """An entrant's rating after all its rated matches; `played` counts those matches."""

    name: str
    mu: float
    sigma: float
    ordinal: float
    played: int


@dataclass(frozen=True)
class PairRecord:
    """One ordered pair's record (row entrant against column entrant) with a 95% Wilson interval."""

    wins: int
    draws: int
    losses: int
    played: int
    score: float
    ci_low: float
    ci_high: float


def check_entrants(entrants: Sequence[str]) -> list[str]:
    names = list(entrants)
    if len(set(names)) != len(names):
        raise ValueError("an entrant is listed twice")
    return names


def rated_matches(entrants: Sequence[str], finished: Iterable[FinishedMatch]) -> list[FinishedMatch]:
    """The matches with a result, in canonical order, checked against the entrants."""
    known = set(entrants)
    matches = sorted((m for m in finished if m.ranks is not None), key=lambda m: (m.round, m.key))
    for match in matches:
        assert match.ranks is not None
        if len(match.ranks) != len(match.seats):
            raise ValueError(f"match {match.key}: {len(match.ranks)} ranks for {len(match.seats)} seats")
        if len(set(match.seats)) != len(match.seats):
            raise ValueError(f"match {match.key}: an entrant sits in two seats")
        for name in match.seats:
            if name not in known:
                raise ValueError(f"match {match.key} names {name!r}, who is not an entrant")
    return matches


def openskill_ratings(
    entrants: Sequence[str], finished: Iterable[FinishedMatch]
) -> tuple[dict[str, PlackettLuceRating], dict[str, int]]:
    """The openskill rating objects and rated-match counts after the finished matches."""
    names = check_entrants(entrants)
    ratings = {name: MODEL.rating(name=name) for name in names}
    played = dict.fromkeys(names, 0)
    for match in rated_matches(names, finished):
        assert match.ranks is not None
        teams = [[ratings[name]] for name in match.seats]
        updated = MODEL.rate(teams, ranks=[float(rank) for rank in match.ranks])
        for name, team in zip(match.seats, updated, strict=True):
            ratings[name] = team[0]
            played[name] += 1
    return ratings, played


def rate(entrants: Sequence[str], finished: Iterable[FinishedMatch]) -> list[Rating]:
    """Every entrant's rating, sorted by ordinal (descending), then by name."""
    ratings, played = openskill_ratings(entrants, finished)
    table = [
        Rating(name=name, mu=r.mu, sigma=r.sigma, ordinal=r.ordinal(), played=played[name])
        for name, r in ratings.items()
    ]
    table.sort(key=lambda rating: (-rating.ordinal, rating.name))
    return table


def wilson_interval(score: float, played: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a rate `score` observed over `played` trials ((0, 1) for none)."""
    if played <= 0:
        return 0.0, 1.0
    n = float(played)
    denominator = 1.0 + z * z / n
    centre = (score + z * z / (2.0 * n)) / denominator
    half = z / denominator * math.sqrt(max(score * (1.0 - score), 0.0) / n + z * z / (4.0 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def pair_matrix(
    entrants: Sequence[str], finished: Iterable[FinishedMatch]
) -> dict[tuple[str, str], PairRecord]:
    """The record of every ordered pair (a, b) that met in a rated match: a's wins, draws, losses vs b.

    Pairs that never met are absent. Record (b, a) mirrors (a, b).
    """
    names = check_entrants(entrants)
    tallies: dict[tuple[str, str], list[int]] = {}
    for match in rated_matches(names, finished):
        assert match.ranks is not None
        for i, j in ((i, j) for i in range(len(match.seats)) for j in range(len(match.seats)) if i != j):
            tally = tallies.setdefault((match.seats[i], match.seats[j]), [0, 0, 0])
            rank_i, rank_j = match.ranks[i], match.ranks[j]
            tally[0 if rank_i < rank_j else 1 if rank_i == rank_j else 2] += 1
    order = {name: i for i, name in enumerate(names)}
    records: dict[tuple[str, str], PairRecord] = {}
    for pair in sorted(tallies, key=lambda p: (order[p[0]], order[p[1]])):
        wins, draws, losses = tallies[pair]
        played = wins + draws + losses
        score = (wins + 0.5 * draws) / played
        low, high = wilson_interval(score, played)
        records[pair] = PairRecord(wins, draws, losses, played, score, low, high)
    return records
