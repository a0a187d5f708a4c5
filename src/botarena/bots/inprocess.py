"""In-process Python bots: a function or an object with `setup`, `act` and `end`, preempted on time.

A bot is given as a *factory* (a class, or any zero-argument callable returning the bot), so every
match gets a fresh instance. The instance may be:

- an object with `act(payload)` and optionally `setup(payload)` and `end(payload)`;
- a plain function, used as `act`.

`setup` and `end` default to replying `{}`. An exception in the bot's code is `CRASHED` with reason
`bot_error` for that exchange; the bot is still asked again next time.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from typing import Any

from botarena.bots.base import Bot, BotLog
from botarena.bots.preempt import BotTimeout, call_with_timeout
from botarena.core.protocol import MessageType, Reply, Request
from botarena.core.status import Reason, Status

LOG_CAP_BYTES = 64 * 1024


def _empty_reply(payload: Any) -> dict[str, Any]:
    return {}


class PythonBot(Bot):
    """A bot that runs in the runner's own process."""

    kind = "python"

    def __init__(self, factory: Callable[[], Any], name: str | None = None) -> None:
        self.factory = factory
        self.name = name or getattr(factory, "__name__", "python-bot")
        self._handlers: dict[MessageType, Callable[[Any], Any]] = {}
        self._pending: Request | None = None
        self._timeout_s = 0.0
        self._log: list[str] = []
        self._log_bytes = 0
        self._dropped = 0

    def open(self, match_id: str, seat: int) -> None:
        super().open(match_id, seat)
        self._handlers = {}
        try:
            instance = self.factory()
        except Exception:
            self._note(traceback.format_exc())
            instance = None
        if instance is None:
            return
        act = getattr(instance, "act", None)
        if act is None and callable(instance):
            act = instance
        self._handlers = {
            MessageType.START: getattr(instance, "setup", _empty_reply),
            MessageType.TURN: act if act is not None else _empty_reply,
            MessageType.END: getattr(instance, "end", _empty_reply),
        }

    def _note(self, text: str) -> None:
        size = len(text)
        if self._log_bytes + size > LOG_CAP_BYTES:
            self._dropped += size
            return
        self._log.append(text)
        self._log_bytes += size

    def send(self, request: Request, request_id: int, timeout_s: float) -> None:
        self._pending = request
        self._timeout_s = timeout_s

    def receive(self) -> Reply:
        request = self._pending
        assert request is not None, "receive() without send()"
        self._pending = None
        handler = self._handlers.get(request.type)
        if handler is None:
            return Reply(request.seat, Status.CRASHED, None, Reason.BOT_ERROR)
        started = time.perf_counter()
        try:
            payload = call_with_timeout(handler, request.payload, self._timeout_s)
        except BotTimeout:
            elapsed = (time.perf_counter() - started) * 1000.0
            return Reply(request.seat, Status.TIMEOUT, None, Reason.DEADLINE, elapsed)
        except Exception as exc:
            elapsed = (time.perf_counter() - started) * 1000.0
            self._note(traceback.format_exc())
            warning = {"code": "EXCEPTION", "detail": f"{type(exc).__name__}: {exc}"[:500]}
            return Reply(request.seat, Status.CRASHED, None, Reason.BOT_ERROR, elapsed, [warning])
        elapsed = (time.perf_counter() - started) * 1000.0
        if elapsed > self._timeout_s * 1000.0:  # a C call that ignored the alarm until it returned
            return Reply(request.seat, Status.TIMEOUT, None, Reason.DEADLINE, elapsed)
        return Reply(request.seat, Status.OK, payload, None, elapsed)

    def close(self) -> BotLog:
        return BotLog("".join(self._log), self._dropped)
