"""A series' results over its rounds: the final standings (§6.3) and the achievements (§6.4).

`standings` sums rounds' `results()`; `tournament_standings` is the game's leaderboard rule for a
lockstep tournament or a real-time series (its matches' records), and shows a test series per round
(`per_round_table`); `achievements` are the §6.4 titles of a final series. Pure functions of results:
no round, clock or I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from botarena.core.rng import stream
from botarena.games.datspulse.config import GAME_ID, DatsPulseConfig

__all__ = [
    "STANDINGS_COLUMNS",
    "TEST_ROUND_COLUMNS",
    "achievements",
    "is_test_round",
    "per_round_table",
    "standings",
    "tournament_standings",
]

#: The columns of the §6.3 table a tournament shows (`tournament_standings`).
STANDINGS_COLUMNS = (
    ("place", "place"),
    ("name", "team"),
    ("points", "points"),
    ("calories", "calories"),
    ("unitsLost", "units lost"),
    ("rounds", "rounds"),
    ("roundsScored", "rounds scored"),
    ("active", "active"),
)


def _zero_row(name: str) -> dict[str, Any]:
    return {"name": name, "points": 0, "calories": 0, "unitsLost": 0, "roundsScored": 0}


def _totals(rounds_results: Sequence[Sequence[Mapping[str, Any]]]) -> dict[str, dict[str, Any]]:
    """Per team name, in first-seen order: its §6.3 sums over the rounds and the rounds it scored in."""
    totals: dict[str, dict[str, Any]] = {}
    for results in rounds_results:
        for entry in results:
            name = str(entry["name"])
            row = totals.setdefault(name, _zero_row(name))
            row["points"] += int(entry["points"])
            row["calories"] += int(entry["score"])
            row["unitsLost"] += int(entry["unitsLost"])
            row["roundsScored"] += 1 if int(entry["score"]) >= 1 else 0
    return totals


def _placed(rows: Iterable[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    """§6.3 order, best first, with each row's place: total points desc, total calories desc, total units
    lost asc; rows equal on all three share a place and keep their given order (the sort is stable)."""

    def key(row: Mapping[str, Any]) -> tuple[int, int, int]:
        return (-row["points"], -row["calories"], row["unitsLost"])

    ordered = sorted(rows, key=key)
    keys = [key(row) for row in ordered]
    return [(keys.index(k) + 1, row) for row, k in zip(ordered, keys, strict=True)]


def standings(rounds_results: Sequence[Sequence[Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """§6.3 final standings over rounds' `results()` lists, teams matched by `name`.

    Returns one entry per team, best first: {place, name, points, calories, unitsLost, roundsScored,
    active}. Order: total points desc, total calories desc, total units lost asc; teams equal on all three
    share a place. `active`: scored >= 1 in at least ceil(F/2) of the F rounds."""
    needed = math.ceil(len(rounds_results) / 2)
    return [
        {"place": place, **row, "active": row["roundsScored"] >= needed}
        for place, row in _placed(_totals(rounds_results).values())
    ]


#: The columns of the per-round table of a test series (§6.3: test rounds are never summed).
TEST_ROUND_COLUMNS = (
    ("round", "round"),
    ("place", "place"),
    ("name", "team"),
    ("score", "calories"),
    ("points", "points"),
    ("unitsLost", "units lost"),
)
#: A real-time round's match key is its name, `<realm_prefix>-<series>-<number>` (§7.3)
_TEST_ROUND_KEY = re.compile(r"-test-[0-9]+$")


def is_test_round(key: str) -> bool:
    """True for a match that is a real-time test round (its key is `<realm_prefix>-test-<n>`)."""
    return _TEST_ROUND_KEY.search(key) is not None


def _round_results(match: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """A finished match's round results with each row's `name` = the entrant in its seat (DP-5), or
    None for a failed match or one without readable details."""
    details = match.get("details")
    results = details.get("results") if isinstance(details, Mapping) else None
    seats = list(match.get("seats") or [])
    if match.get("ranks") is None or not isinstance(results, list) or len(results) != len(seats):
        return None
    return [{**row, "name": seats[int(row["index"])]} for row in results]


def per_round_table(matches: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """§6.3 "Test-round results are shown per round and are never summed": one row per team and
    round, rounds in the order given (round number), teams by round place."""
    rows: list[dict[str, Any]] = []
    for match in matches:
        results = _round_results(match)
        for row in sorted(results or [], key=lambda r: (int(r["place"]), int(r["index"]))):
            rows.append({"round": match.get("key"), **{k: row[k] for k, _ in TEST_ROUND_COLUMNS[1:]}})
    return {
        "title": "DatsPulse test rounds (spec 6.3: per round, never summed)",
        "columns": [{"key": k, "label": label} for k, label in TEST_ROUND_COLUMNS],
        "rows": rows,
    }


def tournament_standings(entrants: Sequence[str], matches: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """§6.3 final standings of a lockstep tournament, over its rounds (one match = one round), for the
    platform's tournament leaderboard (`GameInfo.extras["tournament_standings"]`).

    A real-time test series (`botarena datspulse serve`, series `test`: its rounds are the matches
    keyed `<realm_prefix>-test-<n>`) has no final standings: §6.3 counts final rounds only, and shows
    test rounds per round, never summed, so its table is `per_round_table`. Test rounds never enter
    the sums of a table that has other rounds.

    A match's `details["results"]` are its round's `results()` (§6.1/§6.2, by team index = seat, DP-5);
    each row is credited to the entrant in that seat, whatever name the team had in the round. Failed
    matches and matches without details are no round. Every entrant has a row (zeros when it played
    no round). Order and shared places as `standings`; `active` (scored >= 1 in at least
    ceil(F/2) of F rounds) takes F as the rounds the team played, which is every round in a series."""
    tests = [match for match in matches if is_test_round(str(match.get("key", "")))]
    if tests and len(tests) == len(matches):
        return per_round_table(tests)
    rounds: list[list[dict[str, Any]]] = []
    played = dict.fromkeys(entrants, 0)
    for match in matches:
        results = None if is_test_round(str(match.get("key", ""))) else _round_results(match)
        if results is None:
            continue
        rounds.append(results)
        for name in match.get("seats") or []:
            played[name] = played.get(name, 0) + 1
    totals = _totals(rounds)
    for name in entrants:
        totals.setdefault(name, _zero_row(name))  # after the teams that played: `standings`' order
    rows = []
    for place, row in _placed(totals.values()):
        rounds_played = played.get(row["name"], 0)
        rows.append(
            {
                "place": place,
                "name": row["name"],
                "points": row["points"],
                "calories": row["calories"],
                "unitsLost": row["unitsLost"],
                "rounds": rounds_played,
                "roundsScored": row["roundsScored"],
                "active": rounds_played > 0 and row["roundsScored"] >= math.ceil(rounds_played / 2),
            }
        )
    return {
        "title": "DatsPulse final standings (spec 6.3)",
        "columns": [{"key": k, "label": label} for k, label in STANDINGS_COLUMNS],
        "rows": rows,
    }


def achievements(
    config: DatsPulseConfig,
    seed: int,
    final_results: Sequence[Sequence[Mapping[str, Any]]],
    union_kills: Sequence[Sequence[tuple[int, int]]],
    table: Sequence[Mapping[str, Any]],
) -> dict[str, list[str]]:
    """§6.4 achievements of a final series (empty unless `achievements_enabled`).

    `final_results[k]` is final round k+1's `results()`, `union_kills[k]` its `Round.union_kills`, `table`
    the `standings`. Returns team names per achievement: lucky, queen, union, top10, top20. Random
    tie-breaks draw from the `achievement` stream of `seed`: Lucky first, then Dear Queen."""
    if not config.achievements_enabled:
        return {}
    rng = stream(seed, f"{GAME_ID}.achievement")
    out: dict[str, list[str]] = {"lucky": [], "queen": [], "union": [], "top10": [], "top20": []}

    def final_round(number: int) -> Sequence[Mapping[str, Any]] | None:
        return final_results[number - 1] if 1 <= number <= len(final_results) else None

    lucky_round = final_round(config.achievement_lucky_round)
    if lucky_round is not None:
        holders = sorted(
            (r for r in lucky_round if r["place"] == config.achievement_lucky_place), key=lambda r: r["index"]
        )
        if holders:
            pick = holders[int(rng.integers(len(holders)))] if len(holders) > 1 else holders[0]
            out["lucky"].append(str(pick["name"]))
    queen_round = final_round(config.achievement_queen_round)
    if queen_round:
        most = max(r["unitsLost"] for r in queen_round)
        top = [r for r in queen_round if r["unitsLost"] == most]
        best_score = max(r["score"] for r in top)
        top = sorted((r for r in top if r["score"] == best_score), key=lambda r: r["index"])
        pick = top[int(rng.integers(len(top)))] if len(top) > 1 else top[0]
        out["queen"].append(str(pick["name"]))
    number = config.achievement_union_round
    union_round = final_round(number)
    if union_round is not None and 1 <= number <= len(union_kills) and union_kills[number - 1]:
        winner = union_kills[number - 1][0][1]
        out["union"] += [str(r["name"]) for r in union_round if r["index"] == winner]
    out["top10"] = [str(r["name"]) for r in table if 1 <= r["place"] <= 10]
    out["top20"] = [str(r["name"]) for r in table if 11 <= r["place"] <= 20]
    return out
