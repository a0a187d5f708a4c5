"""Ratings, pair records and leaderboards from finished matches: the same code locally and on the server.

Ratings are OpenSkill's Plackett-Luce model with its default parameters (mu 25, sigma 25/3), for 2 to
N players per match, each player its own team; equal ranks are ties. Matches are applied one at a
time in the canonical order (round, key), so the ratings depend only on the results, never on the
order they arrived in. A failed match (`ranks is None`) is no result: it changes no rating, counts in
no record and is not `played`. Entrants are ranked by the ordinal mu - 3 sigma (openskill's
`ordinal()`), then by name.

Pair records compare every ordered pair of seats within each match by rank (a lower rank wins, an
equal rank draws), so a 4-player match gives each player three comparisons. The score rate
(wins + draws / 2) / played has a 95% Wilson score interval.

Leaderboard points per match: the opponents beaten plus half the opponents tied, which is win 1,
draw 0.5, loss 0 for 2 players, and for N players the average of (players - place) over the places
a tie spans (a 4-player match ranked 1, 2, 2, 4 gives 3, 1.5, 1.5, 0). A match counts as a win when
the entrant is ranked first alone, a draw when it shares first place, and a loss otherwise.

A game may declare its own tournament standings (`GAME_STANDINGS`, e.g. DatsPulse's spec 6.3 table
over a lockstep tournament's rounds): `leaderboard` then adds that titled table as `game_standings`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

from openskill.models import PlackettLuce, PlackettLuceRating

if TYPE_CHECKING:
    from botarena.tournament.formats import FinishedMatch

Z95 = NormalDist().inv_cdf(0.975)
"""The normal quantile of a two-sided 95% interval (1.95996...)."""

MODEL = PlackettLuce()

DRONES_2018_FORMAT = "drones-2018"
"""The format whose leaderboard has the drones spec 6.3 standings (they need the result details)."""

GAME_STANDINGS = "tournament_standings"
"""The `GameInfo.extras` key of a game's own tournament standings: a `GameStandings` function
`(entrants, matches) -> table`.

`entrants` are the tournament's entrant names (registration order); `matches` are its finished and
failed matches in the canonical order (round, key), each a plain dict (a game imports nothing from
this layer): `{key, round, seats, ranks, scores, details}`, where `seats` are entrant names by seat,
`ranks`/`scores` are None for a failed match and `details` is the match's `MatchResult.details` (None
when it is not known: a failed match, or a replay that cannot be read). The table is
`{"title": str, "columns": [{"key": str, "label": str}, ...], "rows": [{key: JSON value}, ...]}`,
rows best first."""

GameStandings = Callable[[Sequence[str], Sequence[Mapping[str, Any]]], Mapping[str, Any]]


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


def _check(entrants: Sequence[str]) -> list[str]:
    names = list(entrants)
    if len(set(names)) != len(names):
        raise ValueError("an entrant is listed twice")
    return names


def _rated(entrants: Sequence[str], finished: Iterable[FinishedMatch]) -> list[FinishedMatch]:
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
    names = _check(entrants)
    ratings = {name: MODEL.rating(name=name) for name in names}
    played = dict.fromkeys(names, 0)
    for match in _rated(names, finished):
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
    names = _check(entrants)
    tallies: dict[tuple[str, str], list[int]] = {}
    for match in _rated(names, finished):
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


def _points_and_outcomes(
    names: Sequence[str], matches: Sequence[FinishedMatch]
) -> tuple[dict[str, float], dict[str, list[int]]]:
    points = dict.fromkeys(names, 0.0)
    outcomes = {name: [0, 0, 0] for name in names}
    for match in matches:
        assert match.ranks is not None
        best = min(match.ranks)
        firsts = match.ranks.count(best)
        for name, rank in zip(match.seats, match.ranks, strict=True):
            beaten = sum(1 for other in match.ranks if other > rank)
            tied = sum(1 for other in match.ranks if other == rank) - 1
            points[name] += beaten + 0.5 * tied
            outcomes[name][0 if rank == best and firsts == 1 else 1 if rank == best else 2] += 1
    return points, outcomes


def declared_standings(game_id: str) -> GameStandings | None:
    """The standings function game `game_id` declares (`extras[GAME_STANDINGS]`), or None (also for a
    game that is not registered: its tournament still has ratings)."""
    from botarena.core.registry import get_game

    try:
        found = get_game(game_id).extras.get(GAME_STANDINGS)
    except LookupError:
        return None
    return found if callable(found) else None


def game_standings(
    function: GameStandings,
    entrants: Sequence[str],
    finished: Iterable[FinishedMatch],
    details: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """Call a game's standings `function` (see `GAME_STANDINGS`) and check the table it returns.

    `details` maps a match key to its result details. Raises ValueError for a table of the wrong shape
    (a bug in the game, said in one line)."""
    known = details or {}
    matches = [
        {
            "key": match.key,
            "round": match.round,
            "seats": list(match.seats),
            "ranks": None if match.ranks is None else list(match.ranks),
            "scores": None if match.scores is None else list(match.scores),
            "details": known.get(match.key) if match.ranks is not None else None,
        }
        for match in sorted(finished, key=lambda m: (m.round, m.key))
    ]
    table = function(list(entrants), matches)
    try:
        title = table["title"]
        columns = [{"key": c["key"], "label": c["label"]} for c in table["columns"]]
        rows = [dict(row) for row in table["rows"]]
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"a game's standings table is malformed ({type(exc).__name__}: {exc})") from None
    if not isinstance(title, str) or not all(
        isinstance(c["key"], str) and isinstance(c["label"], str) for c in columns
    ):
        raise ValueError("a game's standings table needs a string title and string column keys and labels")
    return {"title": title, "columns": columns, "rows": rows}


def leaderboard(
    entrants: Sequence[str],
    finished: Iterable[FinishedMatch],
    *,
    format_name: str,
    game_table: GameStandings | None = None,
    details: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """The leaderboard JSON: rating rows, the pair matrix, for `drones-2018` the spec 6.3 standings
    (`standings`, with round draws from `details`), the event's per-opponent summary
    (`standings_summary`: entrant -> opponent -> `WIN (W:792/ L:208/ D:0)`) and `standings_notes`
    (that every entrant is played, and which ones the 2018 event would have dropped), and the game's
    own standings when it declares them.

    Rows follow `rate`'s order; `rank` is shared by equal ordinals (1, 2, 2, 4). `pairs.cells[i][j]`
    is row entrant i's record against column entrant j (registration order), null on the diagonal
    and for pairs that never met. `standings` rows are `roundrobin.Standing` fields (`entrant`,
    `points`, ..., `round_difference`). With a `game_table` function (`declared_standings`),
    `game_standings` is the table it makes (`game_standings`; `details`: match key -> result details).
    """
    matches = list(finished)
    names = _check(entrants)
    rated = _rated(names, matches)
    ratings = rate(names, rated)
    points, outcomes = _points_and_outcomes(names, rated)
    rows: list[dict[str, Any]] = []
    previous: float | None = None
    rank = 0
    for position, rating in enumerate(ratings, start=1):
        if rating.ordinal != previous:
            rank, previous = position, rating.ordinal
        wins, draws, losses = outcomes[rating.name]
        rows.append(
            {
                "rank": rank,
                "name": rating.name,
                "mu": rating.mu,
                "sigma": rating.sigma,
                "ordinal": rating.ordinal,
                "played": rating.played,
                "wins": wins,
                "draws": draws,
                "losses": losses,
                "points": points[rating.name],
            }
        )
    records = pair_matrix(names, rated)
    cells: list[list[dict[str, Any] | None]] = []
    for a in names:
        line: list[dict[str, Any] | None] = []
        for b in names:
            record = records.get((a, b))
            line.append(
                None
                if record is None
                else {
                    "wins": record.wins,
                    "draws": record.draws,
                    "losses": record.losses,
                    "played": record.played,
                    "score": record.score,
                    "ci": [record.ci_low, record.ci_high],
                }
            )
        cells.append(line)
    board: dict[str, Any] = {"rows": rows, "pairs": {"names": names, "cells": cells}}
    if format_name == DRONES_2018_FORMAT:
        from botarena.tournament.formats import drones_2018_notes, drones_2018_standings, drones_2018_summary

        board["standings"] = [
            {**asdict(standing), "round_difference": standing.round_difference}
            for standing in drones_2018_standings(names, matches, details)
        ]
        board["standings_summary"] = drones_2018_summary(names, matches, details)
        board["standings_notes"] = drones_2018_notes(names, matches, details)
    if game_table is not None:
        board["game_standings"] = game_standings(game_table, names, matches, details)
    return board
