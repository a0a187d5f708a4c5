"""The transport interface the runner talks to, whatever kind of bot is behind it."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

from botarena.core.protocol import Reply, Request


@dataclass(slots=True)
class BotLog:
    """A bot's captured log (stderr for processes), capped; `dropped_bytes` counts what was cut.

    `marks` are [step, offset] pairs: the output from UTF-8 byte `offset` of `text` on was written
    while the runner was at that step (0: the start exchange; k: the k-th batch; one past the last
    step: the end exchange), so a viewer can show each frame's output next to it. A process's
    stderr is read by a thread of its own, so its marks can lag its replies a little."""

    text: str = ""
    dropped_bytes: int = 0
    marks: list[list[int]] = field(default_factory=list)


class LogClock:
    """The step the runner is at, read by the bots' log writers to mark where each step's output
    starts (`BotLog.marks`). One per match; the runner sets `step` before each exchange."""

    __slots__ = ("step",)

    def __init__(self) -> None:
        self.step = 0


class LogMarks:
    """Collects a log's [step, offset] marks as its output arrives."""

    __slots__ = ("clock", "last", "marks")

    def __init__(self, clock: LogClock | None) -> None:
        self.clock = clock
        self.marks: list[list[int]] = []
        self.last = -1

    def note(self, offset: int) -> None:
        """Output is about to be appended at byte `offset`: mark it if the step changed."""
        clock = self.clock
        if clock is not None and clock.step != self.last:
            self.last = clock.step
            self.marks.append([clock.step, offset])


class Bot(ABC):
    """One bot for one match. The runner calls `open`, then `send`/`receive` pairs, then `close`.

    `send` starts a request and returns at once; `receive` waits for that request's reply, for at most
    the timeout given to `send`, and never raises for anything the bot does: a slow, dead or babbling
    bot becomes a Reply with status TIMEOUT, CRASHED or INVALID.
    """

    name: str = "bot"
    kind: str = "bot"
    late_replies_kept: bool = False
    log_clock: LogClock | None = None
    """Set by the runner before `open`: the step its log output belongs to (`BotLog.marks`)."""
    takes_batches: ClassVar[bool] = False
    """A transport that takes all its requests of a batch at once (`send_batch`, then
    `receive_batch`) and enforces every limit itself, per request and per chain (the Devops course
    transport calls a faction's units in parallel). No overage bank applies to it."""

    def use_config(self, config: Any) -> None:
        """The match's config, before `open`, for game-native transports that follow config keys
        (Devops' call parallelism). Default: unused."""
        return None

    def send_batch(self, requests: list[Request]) -> None:
        """Start every request of the batch that is this bot's (only if `takes_batches`)."""
        raise TypeError(f"{type(self).__name__} does not take batches")

    def receive_batch(self) -> list[Reply]:
        """The replies to the last `send_batch`, in its order (only if `takes_batches`)."""
        raise TypeError(f"{type(self).__name__} does not take batches")

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

    # -- awaiting several bots at once (fair clocks, DESIGN principle 7) ---------------------------
    # A wire transport lets the runner await every seat of a batch with one selector: `wait_fds`
    # names what to watch for the request in flight, `due` says when its deadline passes, and
    # `poll_reply` settles it without blocking. Each reply is stamped by the transport when it
    # arrives (when the selector reported it, or on the transport's own thread), never when the
    # runner happens to look, and a reply that arrived after its deadline is TIMEOUT. A transport
    # without descriptors (this default) is awaited with `receive` once the others are settled, so
    # it must stamp its replies itself (in-process bots are asked only when no wire request is open).

    def wait_fds(self) -> tuple[tuple[int, int], ...]:
        """(file descriptor, poll event mask) pairs that turn ready when the request in flight may
        be settled; empty if the transport cannot be awaited with a selector."""
        return ()

    def due(self) -> float:
        """When (time.perf_counter) the request in flight is past its deadline."""
        return float("inf")

    def poll_reply(self) -> Reply | None:
        """The reply to the request in flight if it is settled now (arrived, bot dead, or deadline
        passed), without blocking; else None. Only called for transports with `wait_fds`."""
        return self.receive()

    # -- late replies (engines with `Engine.late_replies`, CQ-31 to CQ-35) ------------------------
    # The runner calls `keep_late_replies(True)` before `open` when the match's engine takes late
    # replies (and False otherwise). Then a request whose `receive` is TIMEOUT, or that the runner
    # left with `owe()` instead of `receive`, stays open: its answer is collected later by
    # `poll_late`. Only an `end` request may be sent while one is open; its reply is told from the
    # owed answer by request id, and the owed answer is then dropped. A transport that cannot keep a
    # request open (this default) never answers late: its seat owes until the end, or until the bot
    # is no longer `alive` (then the runner reports CRASHED `process_exited`).

    def keep_late_replies(self, keep: bool) -> None:
        """Whether timed-out requests stay open for `poll_late` in the next match."""
        self.late_replies_kept = keep

    def owe(self) -> None:
        """Leave the request just sent open without waiting for it (its answer is collected by
        `poll_late`). Only called with late replies kept."""
        return None

    def poll_late(self) -> Reply | None:
        """The owed request's answer if it has arrived, without blocking; else None.

        `time_ms` counts from the sending of the owed request to the answer's arrival. An unreadable
        line is INVALID; a bot that died meanwhile is CRASHED `process_exited`.
        """
        return None

    def close(self) -> BotLog:
        """Release everything (kill the process group); return the captured log."""
        return BotLog()

    def describe(self) -> dict[str, str]:
        """How the bot is listed in replays."""
        return {"name": self.name, "kind": self.kind}
