"""What of an arena match's replay each caller may read (`specs/arena.md`, Routes and Security): anyone
gets the replay with every seat's log removed, a team its own seats' logs, the organizer all of them.

A bot's log (its stderr, capped, with the per-turn marks) is where a team's debugging output, and so
anything of its code it prints, ends up; the moves themselves are the game and stay public. Arena bots
run as sealed subprocesses or HTTP services, whose exception text reaches the replay only through the
log, so removing the log entries is what keeps a team's output its own.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any


def replay_for(replay: Mapping[str, Any], seats: Collection[int] | None) -> dict[str, Any]:
    """`replay` (its JSON object) as a caller who may read the logs of `seats` sees it; `seats` None
    means every seat (the organizer). A hidden seat keeps an empty log entry marked `hidden`, so every
    seat still has its entry in seat order."""
    shown = dict(replay)
    logs = replay.get("logs")
    if seats is None or not isinstance(logs, list):
        return shown
    shown["logs"] = [_log_entry(entry, index, seats) for index, entry in enumerate(logs)]
    return shown


def _log_entry(entry: Any, index: int, seats: Collection[int]) -> Any:
    seat = entry.get("seat", index) if isinstance(entry, Mapping) else index
    if seat in seats:
        return entry
    return {"seat": seat, "text": "", "dropped_bytes": 0, "hidden": True}
