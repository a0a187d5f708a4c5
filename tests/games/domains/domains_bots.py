"""Test-only Domains bots: one that never orders, one that replays a script, one that misses its deadline."""

from __future__ import annotations

import time
from typing import Any

Payload = dict[str, Any]


class Idle:
    """No orders, ever."""

    def act(self, obs: Payload) -> Payload:
        return {"orders": []}


class Scripted:
    """Replies with the listed payloads in order, then `{"orders": []}`."""

    def __init__(self, replies: list[Any]) -> None:
        self.replies = list(replies)

    def act(self, obs: Payload) -> Any:
        return self.replies.pop(0) if self.replies else {"orders": []}


class Sleeper:
    """Sleeps far past any test deadline in round 1, then plays nothing."""

    def act(self, obs: Payload) -> Payload:
        if obs["round"] == 1:
            time.sleep(60)
        return {"orders": []}
