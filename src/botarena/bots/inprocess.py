"""In-process Python bots: a function or an object with `setup`, `act` and `end`, preempted on time.

A bot is given as a *factory* (a class, or any zero-argument callable returning the bot), so every
match gets a fresh instance. The instance may be:

- an object with `act(payload)` and optionally `setup(payload)` and `end(payload)`;
- a plain function, used as `act`.

`setup` and `end` default to replying `{}`. An exception in the bot's code is `CRASHED` with reason
`bot_error` for that exchange; the bot is still asked again next time.

What a bot returns is taken as a wire bot's reply would be: it is copied through JSON at once
(orjson; numpy scalars and arrays become numbers and lists, NaN becomes null), so a bot that later
changes the object it returned cannot change the replay. An integer beyond 64 bits reads as the float
a subprocess bot's reply would give, and a value JSON cannot carry at all (a set, an object) is
`INVALID` with reason `bad_json`. Request payloads are handed over as the
engine built them, without a copy: an engine builds fresh payloads and never reads them back (the
conformance suite checks it), and in-process bots are trusted code.
"""

from __future__ import annotations

import json
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

import orjson

from botarena.bots import preempt
from botarena.bots.base import Bot, BotLog
from botarena.bots.preempt import BotTimeout
from botarena.core.protocol import MessageType, Reply, Request
from botarena.core.status import Reason, Status, Warning

LOG_CAP_BYTES = 64 * 1024

_perf_counter = time.perf_counter
_get_ident = threading.get_ident
_dumps = orjson.dumps
_loads = orjson.loads
_DUMPS_OPTIONS = orjson.OPT_SERIALIZE_NUMPY
_OK = Status.OK
_TIMEOUT = Status.TIMEOUT
_CRASHED = Status.CRASHED
_INVALID = Status.INVALID
_DEADLINE = Reason.DEADLINE
_BOT_ERROR = Reason.BOT_ERROR


def _as_wire_reply(payload: Any) -> Any:
    """What orjson cannot write but a wire bot could send (an integer beyond 64 bits) becomes what the
    subprocess transport would read from that line: the standard library writes the text, orjson
    parses it (so such an integer arrives as a float, exactly as from a subprocess bot)."""
    return _loads(json.dumps(payload, allow_nan=False))


def _empty_reply(payload: Any) -> dict[str, Any]:
    return {}


class PythonBot(Bot):
    """A bot that runs in the runner's own process."""

    kind = "python"

    def __init__(self, factory: Callable[[], Any], name: str | None = None) -> None:
        self.factory = factory
        self.name = str(name or getattr(factory, "__name__", "python-bot"))
        self._handlers: dict[MessageType, Callable[[Any], Any]] = {}
        self._pending: Request | None = None
        self._timeout_s = 0.0
        self._log: list[str] = []
        self._log_bytes = 0
        self._dropped = 0
        self._thread = 0  # the thread `_call` was chosen for
        self._call: preempt.TimedCall = preempt.call_with_timeout

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
        return self.ask(request, self._timeout_s)

    def ask(self, request: Request, timeout_s: float) -> Reply:
        """`send` and `receive` in one call: the runner's path for in-process bots."""
        seat = request.seat
        handler = self._handlers.get(request.type)
        if handler is None:
            return Reply(seat, _CRASHED, None, _BOT_ERROR)
        if _get_ident() != self._thread:
            self._thread = _get_ident()
            self._call = preempt.mechanism_for_this_thread()
        started = _perf_counter()
        try:
            payload = self._call(handler, request.payload, timeout_s, True)
        except BotTimeout:
            return Reply(seat, _TIMEOUT, None, _DEADLINE, (_perf_counter() - started) * 1000.0)
        except Exception as exc:
            elapsed = (_perf_counter() - started) * 1000.0
            self._note(traceback.format_exc())
            warning: Warning = {"code": "EXCEPTION", "detail": f"{type(exc).__name__}: {exc}"[:500]}
            return Reply(seat, _CRASHED, None, _BOT_ERROR, elapsed, [warning])
        elapsed = (_perf_counter() - started) * 1000.0
        if elapsed > timeout_s * 1000.0:  # a C call that ignored the alarm until it returned
            return Reply(seat, _TIMEOUT, None, _DEADLINE, elapsed)
        try:
            payload = _loads(_dumps(payload, option=_DUMPS_OPTIONS))
        except TypeError as exc:  # orjson.JSONEncodeError is a TypeError
            try:
                payload = _as_wire_reply(payload)
            except (TypeError, ValueError):
                detail: Warning = {"code": "NOT_JSON", "detail": str(exc)[:500]}
                return Reply(seat, _INVALID, None, Reason.BAD_JSON, elapsed, [detail])
        return Reply(seat, _OK, payload, None, elapsed)

    def close(self) -> BotLog:
        preempt.disarm()
        return BotLog("".join(self._log), self._dropped)
