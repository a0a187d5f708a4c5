"""Bots the conformance checks wrap around a game's own bots: one that records what it is sent,
one that scribbles over it, one that answers garbage."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from botarena.core.protocol import MessageType

Log = list[tuple[MessageType, Any]]

NOT_ACTIONS: tuple[Any, ...] = ("not an action", None, 42, [])
"""Replies that are no action of any game: a turn's verdict on them is never a silent OK."""
GARBAGE: tuple[Any, ...] = (*NOT_ACTIONS, {"junk": [1, 2]})
"""What `BadReplier` cycles through (with an exception). An object of unknown keys may be a valid
"do nothing" in a game that ignores unknown keys (GameOfDrones, DatsPulse): it must only not crash."""


def _method(bot: Any, name: str) -> Callable[[Any], Any] | None:
    """The bot's `setup`/`act`/`end`; a plain function is its own `act`."""
    method = getattr(bot, name, None)
    if method is None and name == "act" and callable(bot):
        return bot  # type: ignore[no-any-return]
    return method  # type: ignore[no-any-return]


class Recorder:
    """Wraps a bot and records (type, payload) of every request, as sent (before the bot sees it)."""

    def __init__(self, inner: Any, log: Log) -> None:
        self.inner = inner
        self.log = log

    def _ask(self, kind: MessageType, name: str, payload: Any) -> Any:
        self.log.append((kind, orjson.loads(orjson.dumps(payload))))
        method = _method(self.inner, name)
        return {} if method is None else method(payload)

    def setup(self, payload: Any) -> Any:
        return self._ask(MessageType.START, "setup", payload)

    def act(self, payload: Any) -> Any:
        return self._ask(MessageType.TURN, "act", payload)

    def end(self, payload: Any) -> Any:
        return self._ask(MessageType.END, "end", payload)


def recording(factory: Callable[[], Any], log: Log) -> Callable[[], Any]:
    """A factory of `factory`'s bots wrapped in a Recorder writing to `log`."""
    return lambda: Recorder(factory(), log)


def scribble(value: Any) -> None:
    """Overwrite a JSON value in place, as a careless bot might."""
    if isinstance(value, dict):
        for key in list(value):
            if isinstance(value[key], dict | list):
                scribble(value[key])
            else:
                value[key] = "scribbled"
        value["scribbled"] = True
    elif isinstance(value, list):
        for item in value:
            scribble(item)
        value.append("scribbled")


class Scribbler(Recorder):
    """Answers as the inner bot does, then scribbles over the request it was given."""

    def _ask(self, kind: MessageType, name: str, payload: Any) -> Any:
        method = _method(self.inner, name)
        reply = {} if method is None else method(payload)
        reply = orjson.loads(orjson.dumps(reply))
        scribble(payload)
        return reply


def scribbling(factory: Callable[[], Any]) -> Callable[[], Any]:
    """A factory of `factory`'s bots wrapped in a Scribbler."""
    return lambda: Scribbler(factory(), [])


class BotBroke(Exception):
    """What `BadReplier` raises every sixth call (an in-process bot's crash)."""


class BadReplier:
    """Answers every request (start and end too) with the next of `GARBAGE`, or raises `BotBroke`."""

    def __init__(self) -> None:
        self.calls = 0

    def _answer(self, payload: Any) -> Any:
        self.calls += 1
        index = self.calls % (len(GARBAGE) + 1)
        if index == len(GARBAGE):
            raise BotBroke("a bot's bug")
        return GARBAGE[index]

    def setup(self, payload: Any) -> Any:
        return self._answer(payload)

    def act(self, payload: Any) -> Any:
        return self._answer(payload)

    def end(self, payload: Any) -> Any:
        return self._answer(payload)
