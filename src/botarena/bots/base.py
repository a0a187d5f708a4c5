"""The transport interface the runner talks to, whatever kind of bot is behind it."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

from botarena.core.protocol import Reply, Request


@dataclass(slots=True)
class BotLog:
    """A bot's captured log (stderr for processes), capped; `dropped_bytes` counts what was cut."""

    text: str = ""
    dropped_bytes: int = 0


class Bot(ABC):
    """One bot for one match. The runner calls `open`, then `send`/`receive` pairs, then `close`.

    `send` starts a request and returns at once; `receive` waits for that request's reply, for at most
    the timeout given to `send`, and never raises for anything the bot does: a slow, dead or babbling
    bot becomes a Reply with status TIMEOUT, CRASHED or INVALID.
    """

    name: str = "bot"
    kind: str = "bot"

    def open(self, match_id: str, seat: int) -> None:
        """Prepare for a match (start a process, build an instance). Failures make the bot dead."""
        self.match_id = match_id
        self.seat = seat

    @property
    def alive(self) -> bool:
        """False once the bot can never answer again (its process exited)."""
        return True

    @abstractmethod
    def send(self, request: Request, request_id: int, timeout_s: float) -> None:
        """Start `request`; its reply is due within `timeout_s` seconds."""

    @abstractmethod
    def receive(self) -> Reply:
        """The reply to the last request sent."""

    def close(self) -> BotLog:
        """Release everything (kill the process group); return the captured log."""
        return BotLog()

    def describe(self) -> dict[str, str]:
        """How the bot is listed in replays."""
        return {"name": self.name, "kind": self.kind}
