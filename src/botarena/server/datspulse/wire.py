"""The DatsPulse wire format (spec §7.1): JSON bytes, error bodies, times and rounded durations.

Everything a client parses goes through here, so the strict public parsers' expectations live in
one place: orjson keeps key order and writes integers as integers, `nextTurnIn`/`nextTurn` are
rounded *up* to whole milliseconds (a client that sleeps that long never wakes before the
transition), and every non-200 reply is exactly `{"code": int, "message": string}`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import IntEnum
from typing import Any

import orjson

JSON_TYPE = "application/json"
MAX_BODY_BYTES = 64 * 1024  # §5 (amended): a larger /api/move body is rejected whole (400 code 4)
#: §5 (amended): a move request may name at most `unit_limit` commands (a team never has more living
#: ants; 2 x was measured too costly: benchmarks/datspulse_overload.py)
COMMANDS_PER_UNIT_LIMIT = 1
#: §5 (amended): a path may have at most the fastest unit's speed plus this many hexes (a path longer
#: than its ant's speed is that ant's error, §5 rule 2; beyond this bound the body is refused)
PATH_SLACK = 3


@dataclass(frozen=True)
class MoveLimits:
    """What one `/api/move` request may cost (§5 as amended): its body's bytes, its commands, the
    hexes of each path. Anything beyond is 400 code 4, decided before the game lock is taken."""

    body_bytes: int
    commands: int
    path: int

    @classmethod
    def from_config(cls, config: Any) -> MoveLimits:
        speeds = [int(getattr(config, f"{kind}_speed", 7)) for kind in ("worker", "soldier", "scout")]
        return cls(
            body_bytes=MAX_BODY_BYTES,
            commands=COMMANDS_PER_UNIT_LIMIT * int(getattr(config, "unit_limit", 100)),
            path=max(speeds) + PATH_SLACK,
        )

    def check(self, body: Any) -> None:
        """Raise 400 code 4 when the parsed body names too many commands or too long a path; the
        shape errors of §5 are left to the game (they are per entry, or the body's own code 4)."""
        if not isinstance(body, dict):
            return
        moves = body.get("moves")
        if not isinstance(moves, list):
            return
        if len(moves) > self.commands:
            raise invalid_body(f"{len(moves)} move commands; at most {self.commands} per request")
        for index, entry in enumerate(moves):
            path = entry.get("path") if isinstance(entry, dict) else None
            if isinstance(path, list) and len(path) > self.path:
                raise invalid_body(
                    f"the path at index {index} has {len(path)} hexes; at most {self.path} per command"
                )


# §7.2: exactly what a registered team's GET /api/arena returns during the lobby
LOBBY_ARENA: dict[str, Any] = {
    "ants": [],
    "enemies": [],
    "map": [],
    "food": [],
    "turnNo": 0,
    "nextTurnIn": 0,
    "home": [],
    "score": 0,
    "spot": {"q": 0, "r": 0},
}


class ErrorCode(IntEnum):
    """The `code` of a PublicError body (§7.1 error table)."""

    INTERNAL = 0
    NO_ACTIVE_GAME = 1
    LOBBY_ENDED = 2
    NOT_REGISTERED = 3
    INVALID_BODY = 4
    BAD_TOKEN = 5
    RATE_LIMITED = 6
    NOT_FOUND = 7
    REGISTRATION_FULL = 8


@dataclass(frozen=True)
class PublicError(Exception):
    """A non-200 reply: HTTP status, §7.1 code and message (plus headers, e.g. Retry-After)."""

    status: int
    code: ErrorCode
    message: str
    headers: tuple[tuple[str, str], ...] = ()

    def body(self) -> bytes:
        return dumps({"code": int(self.code), "message": self.message})


def dumps(value: Any) -> bytes:
    """Compact JSON in the value's own key order (orjson: ints stay ints, no NaN)."""
    return orjson.dumps(value)


def ceil_ms(seconds: float) -> int | float:
    """`seconds` rounded up to whole milliseconds (§7.1), never negative: an int when whole, so
    `0` and `2` go out without a fraction and anything else with at most three decimals."""
    millis = max(0, math.ceil(round(seconds * 1000.0, 6)))  # round(): 1.0000000001 ms is 1 ms
    return millis // 1000 if millis % 1000 == 0 else millis / 1000.0


def rfc3339_nanos(time_ns: int) -> str:
    """A wall-clock time as RFC 3339 UTC with nanoseconds: `2025-07-11T18:32:32.213050503Z` (§7.2)."""
    seconds, nanos = divmod(time_ns, 1_000_000_000)
    stamp = datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{stamp}.{nanos:09d}Z"


def rfc3339(wall: float) -> str:
    """A planned instant (wall-clock seconds) for `/api/rounds` and the `next rounds` lists: whole
    seconds when it is whole (`2025-07-11T18:40:00Z`), else to the millisecond."""
    millis = math.floor(wall * 1000.0 + 0.5)
    seconds, rest = divmod(millis, 1000)
    stamp = datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{stamp}Z" if rest == 0 else f"{stamp}.{rest:03d}Z"


def parse_rfc3339(text: str) -> float:
    """An RFC 3339 time (`2025-07-11T18:40:00Z`, offsets allowed) as wall-clock seconds; ValueError
    if it is not one or has no time zone."""
    try:
        parsed = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"{text!r} is not an RFC 3339 time (e.g. 2025-07-11T18:40:00Z)") from None
    if parsed.tzinfo is None:
        raise ValueError(f"{text!r} has no time zone (add Z for UTC)")
    return parsed.timestamp()


# ------------------------------------------------------------------------------------ the error table


def no_active_game(upcoming: str) -> PublicError:
    return PublicError(
        400,
        ErrorCode.NO_ACTIVE_GAME,
        f"no active game: you are too late to register; next rounds: {upcoming}",
    )


def lobby_ended(upcoming: str) -> PublicError:
    return PublicError(400, ErrorCode.LOBBY_ENDED, f"you are too late, lobby ended; next rounds: {upcoming}")


NOT_REGISTERED = PublicError(400, ErrorCode.NOT_REGISTERED, "you are not registered in the current round")
BAD_TOKEN = PublicError(401, ErrorCode.BAD_TOKEN, "invalid or missing X-Auth-Token")
NOT_FOUND = PublicError(404, ErrorCode.NOT_FOUND, "not found")
METHOD_NOT_ALLOWED = PublicError(405, ErrorCode.NOT_FOUND, "method not allowed")
REGISTRATION_FULL = PublicError(400, ErrorCode.REGISTRATION_FULL, "registration is full")
INTERNAL_ERROR = PublicError(500, ErrorCode.INTERNAL, "internal error")


def invalid_body(reason: str) -> PublicError:
    return PublicError(400, ErrorCode.INVALID_BODY, f"invalid request body: {reason}")


def rate_limited(per_second: int) -> PublicError:
    return PublicError(
        429,
        ErrorCode.RATE_LIMITED,
        f"too many requests: limit is {per_second} per second",
        (("Retry-After", "1"),),
    )
