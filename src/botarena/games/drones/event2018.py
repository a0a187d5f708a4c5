"""The GameOfDrones 2018 event as a tournament format the drones game declares (spec 2.3 and 6.3).

`EVENT_2018` is registered on drones' `GAME.tournament_formats`: the `drones-2018` format (the name
stored with the tournament; users may name it `drones_2018_event`, the spec's name), played with game
preset `bravolt2018` and the event's config (`config.EVENT_2018_CONFIG`), and its leaderboard
sections (`event_standings`): the spec 6.3 standings, the event's per-opponent summary and notes on
the entrants the event would have dropped. The generic tournament layer knows none of this by name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from typing import Any

from botarena.core.formats import FinishedMatch, FormatError, RoundRobin, canonical
from botarena.core.game import TournamentFormat
from botarena.core.roundrobin import MatchScore, Standing, standings, summary_line
from botarena.games.drones.config import EVENT_2018_CONFIG

DRONES_2018_FORMAT = "drones-2018"
"""The format of the 2018 event (spec 6.3): the name stored with its tournaments."""

DRONES_2018_EVENT = "drones_2018_event"
"""The spec's name for the event (2.3), an alias of `DRONES_2018_FORMAT` with the same behaviour."""

DRONES_2018_PRESET = "bravolt2018"
"""The drones game preset the `drones-2018` format plays (spec 2.2: `{"rules": "bravolt2018"}`)."""


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


def event_standings(
    entrants: Sequence[str], finished: Sequence[FinishedMatch], details: Details | None
) -> dict[str, Any]:
    """The event's leaderboard sections (`TournamentFormat.standings`): `standings` (spec 6.3's table,
    rows of `Standing` fields plus `round_difference`), `standings_summary` (entrant -> opponent ->
    `WIN (W:792/ L:208/ D:0)`), `standings_title` and `standings_notes` (every entrant is played;
    which ones the 2018 event would have dropped)."""
    return {
        "standings_title": "2018 event standings (spec 6.3)",
        "standings": [
            {**asdict(standing), "round_difference": standing.round_difference}
            for standing in drones_2018_standings(entrants, finished, details)
        ],
        "standings_summary": drones_2018_summary(entrants, finished, details),
        "standings_notes": drones_2018_notes(entrants, finished, details),
    }


EVENT_2018 = TournamentFormat(
    format=Drones2018,
    preset=DRONES_2018_PRESET,
    config={key: value for key, value in EVENT_2018_CONFIG.items() if key != "rules"},  # the preset's
    aliases=(DRONES_2018_EVENT,),
    standings=event_standings,
)
"""Spec 2.3: `botarena tournament drones --format drones_2018_event` (or `drones-2018`) plays the event."""
