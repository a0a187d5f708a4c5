"""Bot statuses, the one vocabulary every game and transport shares (DESIGN, *Platform vocabulary*)."""

from __future__ import annotations

from enum import StrEnum
from typing import TypedDict


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
