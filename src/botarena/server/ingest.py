"""Live ingest: the checks of `POST /api/live/ingest`, through which workers and tournament
processes elsewhere stream their matches (`botarena.tournament.live_http`) to the server's hub.

Only a client holding the server's live token gets past the door, and even it can do no more than
show live matches: the events go to the `LiveHub` only (results, replays and ratings come from the
store, which nothing here touches), and every event is checked against the shapes `LiveStreamer`
makes before any of a request's events is published, so a bad request changes nothing.

The checks, in order: ingest enabled (403), the token (401, compared in constant time), the body's
size (413, before it is read whole), the JSON (400), the events' number (413) and shapes (422).
What passes them is offered to the hub event by event; what the hub does not take (a header over
its size cap, steps of a match it does not hold, ...) is named in the answer (`LiveHub.offer`), and
the hub's bounds hold its memory whatever a token holder sends.
"""

from __future__ import annotations

import hmac
import re
from typing import Any

import orjson

from botarena.tournament.live_http import MAX_INGEST_BYTES, MAX_INGEST_EVENTS, MAX_KEY_CHARS, encode_event

MIN_TOKEN_CHARS = 16
MAX_TOKEN_CHARS = 512
MAX_PLAYERS = 64
MAX_RESULT_BYTES = 64 << 10  # a result is listed by /api/live, which every arena page polls
MAX_STEP_INDEX = 10**9
MAX_ID = 2**63 - 1

# "t3/r01-m002": segments of letters, digits and . _ : @ + -, each starting with a letter or digit
# (no empty, "." or ".." segment: the key is a path in /api/live/{key}/events).
_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@+-]*(?:/[A-Za-z0-9][A-Za-z0-9._:@+-]*)*")
_TOKEN = re.compile(r"[\x21-\x7e]+")  # printable ASCII, no spaces: it travels in a header


class IngestError(ValueError):
    """A request ingest refuses: `status` (4xx) and a one-line `detail`."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


def check_live_token(token: str) -> str:
    """`token` if it can be a live token (MIN_TOKEN_CHARS+ printable ASCII), else ValueError (one line)."""
    if not (MIN_TOKEN_CHARS <= len(token) <= MAX_TOKEN_CHARS) or not _TOKEN.fullmatch(token):
        raise ValueError(
            f"a live token must be {MIN_TOKEN_CHARS} to {MAX_TOKEN_CHARS} printable ASCII characters"
            " without spaces (make one: python -c 'import secrets; print(secrets.token_urlsafe())')"
        )
    return token


def authorize(expected: str | None, authorization: str | None) -> None:
    """Raise IngestError unless ingest is enabled (`expected`) and `authorization` is its bearer token."""
    if not expected:
        raise IngestError(
            403,
            "live ingest is disabled: start the server with a live token"
            " (BOTARENA_LIVE_TOKEN or --live-token-file)",
        )
    scheme, _, given = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        raise IngestError(401, "live ingest needs the header 'Authorization: Bearer <live token>'")
    if not hmac.compare_digest(given.strip().encode("utf-8", "replace"), expected.encode()):
        raise IngestError(401, "wrong live token")


def check_length(content_length: str | None) -> None:
    """Refuse a declared body over MAX_INGEST_BYTES before reading it (413), or a bad header (400)."""
    if content_length is None:
        return
    try:
        size = int(content_length)
    except ValueError:
        raise IngestError(400, "invalid Content-Length") from None
    if size > MAX_INGEST_BYTES:
        raise IngestError(413, f"body of {size} bytes over the {MAX_INGEST_BYTES}-byte cap")


def parse_events(body: bytes) -> list[dict[str, Any]]:
    """The live events of a request body (a JSON list), checked; IngestError for anything else."""
    if len(body) > MAX_INGEST_BYTES:
        raise IngestError(413, f"body over the {MAX_INGEST_BYTES}-byte cap")
    try:
        events = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise IngestError(400, f"the body is not JSON: {' '.join(str(exc).split())[:120]}") from None
    if not isinstance(events, list):
        raise IngestError(422, "the body must be a JSON list of live events")
    if len(events) > MAX_INGEST_EVENTS:
        raise IngestError(413, f"{len(events)} events in one request, over the cap of {MAX_INGEST_EVENTS}")
    for index, event in enumerate(events):
        problem = _event_problem(event)
        if problem is not None:
            raise IngestError(422, f"event {index}: {problem}")
    return events


def _is_int(value: Any, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _event_problem(event: Any) -> str | None:
    """What is wrong with `event`, or None: the shapes of botarena.server.live's contract."""
    if not isinstance(event, dict):
        return "not an object"
    key = event.get("key")
    if not isinstance(key, str) or len(key) > MAX_KEY_CHARS or not _KEY.fullmatch(key):
        return f"key must be 1 to {MAX_KEY_CHARS} characters like 't3/r01-m002'"
    kind = event.get("type")
    if kind == "header":
        return _header_problem(event)
    if kind == "steps":
        if not _is_int(event.get("first"), 0, MAX_STEP_INDEX):
            return f"steps: first must be an integer from 0 to {MAX_STEP_INDEX}"
        steps = event.get("steps")
        if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
            return "steps: steps must be a list of step objects"
        return None
    if kind == "end":
        return _end_problem(event)
    return "type must be header, steps or end"


def _header_problem(event: dict[str, Any]) -> str | None:
    tournament_id = event.get("tournament_id")
    if tournament_id is not None and not _is_int(tournament_id, 1, MAX_ID):
        return "header: tournament_id must be a positive integer or null"
    match = event.get("match")
    if match is not None and (not isinstance(match, str) or len(match) > MAX_KEY_CHARS):
        return f"header: match must be a string of at most {MAX_KEY_CHARS} characters"
    replay = event.get("replay")
    if not isinstance(replay, dict):
        return "header: replay must be an object"
    game = replay.get("game", "")
    if not isinstance(game, str) or len(game) > MAX_KEY_CHARS:
        return "header: replay.game must be a short string"
    players = replay.get("players", [])
    if not isinstance(players, list) or len(players) > MAX_PLAYERS:
        return f"header: replay.players must be a list of at most {MAX_PLAYERS}"
    for player in players:
        name = player.get("name", "") if isinstance(player, dict) else player
        if not isinstance(name, str | int) or len(str(name)) > MAX_KEY_CHARS:
            return f"header: a player's name must be a string of at most {MAX_KEY_CHARS} characters"
    return None


def _end_problem(event: dict[str, Any]) -> str | None:
    match_id = event.get("match_id")
    if match_id is not None and not _is_int(match_id, 1, MAX_ID):
        return "end: match_id must be a positive integer or null"
    fields = event.get("fields")
    if not isinstance(fields, dict):
        return "end: fields must be an object"
    result = fields.get("result")
    if result is not None and not isinstance(result, dict):
        return "end: fields.result must be an object"
    if result is not None and len(encode_event(result)) > MAX_RESULT_BYTES:
        return f"end: fields.result over {MAX_RESULT_BYTES} bytes"
    return None
