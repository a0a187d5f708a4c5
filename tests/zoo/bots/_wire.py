"""The protocol loop the hostile bots share: read an envelope, answer it, write the reply line.

Standalone on purpose (no botarena import): these bots stand for bots written in any language. Each bot
is started as `python <bot>.py MARKER CONTEXT`: MARKER is a unique string the test looks for in
/proc afterwards (a process still carrying it outlived its match), CONTEXT is a JSON object with what
the attack aims at (a rival's file, the database, a local port).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

HONEST_TURN = {"newProducers": 1}
"""What every bot of the zoo plays when it plays at all: never an attack, so every round runs to its
turn limit and the opponent's exchanges line up with those of a match against a quiet bot."""


def marker() -> str:
    return sys.argv[1] if len(sys.argv) > 1 else "no-marker"


def context() -> dict[str, Any]:
    return json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}


def note(text: str) -> None:
    """One line on stderr (the bot's log, which the replay keeps, capped)."""
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def reply(request_id: Any, payload: Any) -> None:
    sys.stdout.write(json.dumps({"id": request_id, "payload": payload}) + "\n")
    sys.stdout.flush()


def honest(envelope: dict[str, Any]) -> dict[str, Any]:
    return dict(HONEST_TURN) if envelope["type"] == "turn" else {}


def serve(answer: Callable[[dict[str, Any]], Any]) -> None:
    """Call `answer(envelope)` per request; a non-None result is sent as the reply payload."""
    for line in sys.stdin:
        envelope = json.loads(line)
        payload = answer(envelope)
        if payload is not None:
            reply(envelope["id"], payload)
