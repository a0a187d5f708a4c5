"""DatsPulse (`datspulse`): the DatsTeam ant-colony gamethon of July 2025. Rules: spec datspulse.md.

This registers the lockstep mode (§7.5) with the platform; the real-time server is
`botarena.server.datspulse` and a team's HTTP client is `botarena.games.datspulse.client`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from botarena.core.game import GameInfo
from botarena.games.datspulse.bots import STARTERS, RandomWalker
from botarena.games.datspulse.config import GAME_ID, PRESETS, RULES_VERSION, DatsPulseConfig
from botarena.games.datspulse.engine import DatsPulseEngine, hidden_info_check
from botarena.games.datspulse.round import standings

#: The registry-wide conformance suite plays many whole matches with 1 and 100 teams, and scans every
#: payload of every seat: 3-turn rounds on maps of DP-4's automatic radius at its minimum of 300 hexes
#: per team (R = 12 for one team, 100 for a hundred) keep it to about 30 s of CPU.
CONFORMANCE_OVERRIDES = {"turns": 3, "map_hexes_per_team": 300}

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


def tournament_standings(entrants: Sequence[str], matches: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """§6.3 final standings of a lockstep tournament, over its rounds (one match = one round), for the
    platform's tournament leaderboard (`GameInfo.extras["tournament_standings"]`).

    A match's `details["results"]` are its round's `results()` (§6.1/§6.2, by team index = seat, DP-5);
    each row is credited to the entrant in that seat, whatever name the team had in the round. Failed
    matches and matches without details are no round. Every entrant has a row (zeros when it played
    no round). Order and shared places as `round.standings`; `active` (scored >= 1 in at least
    ceil(F/2) of F rounds) takes F as the rounds the team played, which is every round in a series."""
    rounds: list[list[dict[str, Any]]] = []
    played = dict.fromkeys(entrants, 0)
    for match in matches:
        details = match.get("details")
        results = details.get("results") if isinstance(details, Mapping) else None
        seats = list(match.get("seats") or [])
        if match.get("ranks") is None or not isinstance(results, list) or len(results) != len(seats):
            continue
        rounds.append([{**row, "name": seats[int(row["index"])]} for row in results])
        for name in seats:
            played[name] = played.get(name, 0) + 1
    totals = {row["name"]: row for row in standings(rounds)}
    for name in entrants:
        totals.setdefault(name, {"name": name, "points": 0, "calories": 0, "unitsLost": 0, "roundsScored": 0})

    def key(row: Mapping[str, Any]) -> tuple[int, int, int]:
        return (-row["points"], -row["calories"], row["unitsLost"])

    ordered = sorted(totals.values(), key=key)  # stable: `standings`' order among equals
    keys = [key(row) for row in ordered]
    rows = []
    for row, k in zip(ordered, keys, strict=True):
        rounds_played = played.get(row["name"], 0)
        rows.append(
            {
                "place": keys.index(k) + 1,
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


GAME = GameInfo(
    id=GAME_ID,
    rules_version=RULES_VERSION,
    title="DatsPulse",
    min_players=1,
    max_players=100,
    config_class=DatsPulseConfig,
    presets=PRESETS,
    new_engine=DatsPulseEngine,
    starter_bots=STARTERS,
    random_bot=RandomWalker,
    keyframe_every=50,
    extras={
        "conformance_overrides": CONFORMANCE_OVERRIDES,
        "hidden_info_check": hidden_info_check,
        "tournament_standings": tournament_standings,
        # `make run`'s demo: the three starters in one 100-turn round per seat rotation
        "demo_tournament": {"players": 3, "overrides": {"turns": 100}},
    },
)
