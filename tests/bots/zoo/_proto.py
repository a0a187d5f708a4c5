"""The smallest protocol loop the zoo bots share: read an envelope, call `answer`, write the reply.

Standalone on purpose (no botarena import): these bots stand for bots written in any language.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any


def reply(request_id: Any, payload: Any) -> None:
    sys.stdout.write(json.dumps({"id": request_id, "payload": payload}) + "\n")
    sys.stdout.flush()


def loop(answer: Callable[[dict[str, Any]], Any]) -> None:
    """Call `answer(envelope)` per request; a non-None result is sent as the reply payload."""
    for line in sys.stdin:
        envelope = json.loads(line)
        payload = answer(envelope)
        if payload is not None:
            reply(envelope["id"], payload)
