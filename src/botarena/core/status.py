"""Bot statuses, the one vocabulary every game and transport shares (DESIGN, *Platform vocabulary*)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any, TypedDict


class Status(StrEnum):
    """What became of one exchange with a bot. Game outcomes are never statuses."""

    OK = "OK"
    INVALID = "INVALID"
    TIMEOUT = "TIMEOUT"
    CRASHED = "CRASHED"


class Reason:
    """Platform-level reason codes; games add their own (`not_object`, `bad_field`, ...)."""

    DEADLINE = "deadline"
    PROCESS_EXITED = "process_exited"
    BOT_ERROR = "bot_error"
    BAD_JSON = "bad_json"
    BAD_ENVELOPE = "bad_envelope"
    LINE_TOO_LONG = "line_too_long"
    NOT_OBJECT = "not_object"
    BAD_FIELD = "bad_field"


class Warning(TypedDict):
    """A warning attached to an exchange: a code and a human-readable detail."""

    code: str
    detail: str


UNKNOWN_KEY = "UNKNOWN_KEY"
"""The warning code of a key in a bot's reply that the game does not read: the reply is taken as if
the key were absent (a misspelt `newproducers` is not an order), and the warning says so."""

DROPPED_ENTRY = "DROPPED_ENTRY"
"""The warning code of an entry of a bot's reply (an order in a list) that the game could not use
and left out, the rest of the reply being taken: the detail names the entry and why."""


def unknown_key_warnings(payload: Mapping[str, Any], known: frozenset[str], where: str = "") -> list[Warning]:
    """An UNKNOWN_KEY warning for each key of `payload` not in `known`, naming the closest known key.

    `where` prefixes the detail (e.g. "order 2: "). Costs one set comparison when every key is known.
    """
    if payload.keys() <= known:
        return []
    return [
        {"code": UNKNOWN_KEY, "detail": f"{where}unknown key {key!r} ignored{_closest(key, known)}"[:300]}
        for key in payload
        if key not in known
    ]


def _closest(key: Any, known: Iterable[str]) -> str:
    if not isinstance(key, str):
        return ""
    names = sorted(known)
    lowered = {name.lower(): name for name in names}
    match = lowered.get(key.lower()) or next(iter(difflib.get_close_matches(key, names, n=1)), None)
    return f" (did you mean {match!r}?)" if match else ""
