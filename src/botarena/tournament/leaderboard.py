"""The leaderboard of a tournament from its finished matches: the same code locally and on the server.

Rows are the entrants' ratings (`ratings.rate`) with their wins, draws, losses and points. Points per
match: the opponents beaten plus half the opponents tied, which is win 1, draw 0.5, loss 0 for 2
players, and for N players the average of (players - place) over the places a tie spans (a 4-player
match ranked 1, 2, 2, 4 gives 3, 1.5, 1.5, 0). A match counts as a win when the entrant is ranked
first alone, a draw when it shares first place, and a loss otherwise.

A game may declare its own tournament standings (`GameInfo.tournament_standings`, a table over all
its tournaments): `leaderboard` then adds that titled table as `game_standings`. A format a game
declares (`GameInfo.tournament_formats`) may add sections of its own (`TournamentFormat.standings`,
an event's table): `leaderboard` adds them to the tournaments of that format. Neither is known here
by name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from botarena.core.formats import FinishedMatch
from botarena.core.game import GameStandings
from botarena.core.registry import get_game
from botarena.tournament.formats import declared_format
from botarena.tournament.ratings import PairRecord, check_entrants, pair_matrix, rate, rated_matches


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
    """The standings function game `game_id` declares, or None (also for a game that is not
    registered: its tournament still has ratings)."""
    try:
        return get_game(game_id).tournament_standings
    except LookupError:
        return None


def game_standings(
    function: GameStandings,
    entrants: Sequence[str],
    finished: Iterable[FinishedMatch],
    details: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """Call a game's standings `function` (`GameInfo.tournament_standings`) and check the table it returns.

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
    game: str | None = None,
) -> dict[str, Any]:
    """The leaderboard JSON: rating rows, the pair matrix, the sections of a declared format's own
    standings (`TournamentFormat.standings` of the format `format_name`, of game `game` when given,
    with `details`: match key -> result details), and the game's own standings when it declares them.

    Rows follow `rate`'s order; `rank` is shared by equal ordinals (1, 2, 2, 4). `pairs.cells[i][j]`
    is row entrant i's record against column entrant j (registration order), null on the diagonal
    and for pairs that never met. With a `game_table` function (`declared_standings`),
    `game_standings` is the table it makes (`game_standings`).
    """
    matches = list(finished)
    names = check_entrants(entrants)
    rated = rated_matches(names, matches)
    board: dict[str, Any] = {
        "rows": _rating_rows(names, rated),
        "pairs": {"names": names, "cells": _pair_cells(names, rated)},
    }
    board.update(format_sections(format_name, names, matches, details, game))
    if game_table is not None:
        board["game_standings"] = game_standings(game_table, names, matches, details)
    return board


_OWN_KEYS = frozenset({"rows", "pairs", "game_standings", "failures"})
"""The leaderboard's own keys, which a format's sections may not replace."""


def format_sections(
    format_name: str,
    names: Sequence[str],
    matches: Sequence[FinishedMatch],
    details: Mapping[str, Mapping[str, Any]] | None,
    game: str | None = None,
) -> dict[str, Any]:
    """The leaderboard sections the declared format `format_name` adds ({} for a generic format, or a
    declared one without standings). ValueError when they would replace the leaderboard's own keys."""
    declared = declared_format(format_name, game)
    if declared is None or declared.standings is None:
        return {}
    sections = dict(declared.standings(names, matches, details))
    clash = sorted(_OWN_KEYS & set(sections))
    if clash:
        raise ValueError(f"format {format_name!r}'s standings would replace the leaderboard's {clash[0]!r}")
    return sections


def format_reads_details(format_name: str, game: str | None = None) -> bool:
    """Whether the format's own standings are made from the matches' result details (read from the
    replays, so only when they are used)."""
    declared = declared_format(format_name, game)
    return declared is not None and declared.standings is not None


def _rating_rows(names: list[str], rated: list[FinishedMatch]) -> list[dict[str, Any]]:
    """One row per entrant in rating order; `rank` is shared by equal ordinals (1, 2, 2, 4)."""
    points, outcomes = _points_and_outcomes(names, rated)
    rows: list[dict[str, Any]] = []
    previous: float | None = None
    rank = 0
    for position, rating in enumerate(rate(names, rated), start=1):
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
    return rows


def _pair_cells(names: list[str], rated: list[FinishedMatch]) -> list[list[dict[str, Any] | None]]:
    """`cells[i][j]`: entrant i's record against entrant j, None on the diagonal and for pairs that
    never met."""
    records = pair_matrix(names, rated)
    return [[_pair_json(records.get((a, b))) for b in names] for a in names]


def _pair_json(record: PairRecord | None) -> dict[str, Any] | None:
    if record is None:
        return None
    return {
        "wins": record.wins,
        "draws": record.draws,
        "losses": record.losses,
        "played": record.played,
        "score": record.score,
        "ci": [record.ci_low, record.ci_high],
    }
