"""DatsPulse payloads of the generic JSON-lines protocol (spec §7.5, §7.6), and the moves body.

The platform owns the envelope; this module builds what goes inside it:

- `start_payload`: `{"game", "ruleset", "team": {"index", "name"}, "teams", "bot_seed", "config"}`, the
  config without the real-time-only keys (§7.6);
- `turn_payload`: the §4 arena of the turn plus `errors`, the rejections of the bot's previous reply (§7.5);
- `end_payload`: the final arena, the team's score, place and points, and every team's result (§7.6);
- `orders_body`: a moves body (§5) from merged order slots, as the real-time driver records them (§7.5).

Every payload is built fresh: an in-process bot may change what it is given (the conformance suite checks
that the engine never reads a payload back).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from botarena.games.datspulse.config import GAME_ID, RULES_VERSION

#: The keys of one team's entry in the `end` payload's `results` (§7.6), in that order.
END_RESULT_KEYS = ("index", "name", "score", "place", "unitsLost")


def start_payload(
    seat: int, name: str, teams: int, bot_seed: int, lockstep_config: Mapping[str, Any]
) -> dict[str, Any]:
    """§7.6 `start`: who the bot is, how many teams play, its own seed, and the effective config.

    `lockstep_config` is the config without the real-time-only keys (`DatsPulseConfig.lockstep_dict()`);
    it is copied, so each seat gets its own objects.
    """
    return {
        "game": GAME_ID,
        "ruleset": RULES_VERSION,
        "team": {"index": seat, "name": name},
        "teams": teams,
        "bot_seed": bot_seed,
        "config": {
            key: list(value) if isinstance(value, list | tuple) else value
            for key, value in lockstep_config.items()
        },
    }


def turn_payload(arena: dict[str, Any], errors: Sequence[str]) -> dict[str, Any]:
    """§7.5 step 1: the arena with `errors` added last (the order of a `/api/move` reply, §7.1)."""
    arena["errors"] = list(errors)
    return arena


def end_payload(arena: dict[str, Any], seat: int, results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """§7.6 `end`: the final arena, this team's score, place and points, and all teams' results.

    `results` are `Round.results()` rows (`index, name, score, place, points, unitsLost`); the `results`
    list of the payload keeps the five keys §7.6 names.
    """
    own = next(row for row in results if row["index"] == seat)
    return {
        "observation": arena,
        "score": own["score"],
        "place": own["place"],
        "points": own["points"],
        "results": [{key: row[key] for key in END_RESULT_KEYS} for row in results],
    }


def orders_body(orders: Mapping[str, Sequence[Sequence[int]]]) -> dict[str, Any]:
    """A §5 moves body that gives every ant of `orders` (ant id -> path of (q, r)) its path.

    Submitting it at the same turn installs exactly these orders again: each path was accepted once and
    the checks of §5 depend only on the turn's state, so the real-time server records a transition's
    merged order slots as this body and a lockstep re-run reproduces them (§7.5, "Replays of both drivers").
    """
    return {
        "moves": [
            {"ant": ant, "path": [{"q": int(hex_[0]), "r": int(hex_[1])} for hex_ in path]}
            for ant, path in orders.items()
        ]
    }
