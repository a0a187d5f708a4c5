"""A rich progress bar for a running tournament: matches done, running, failed, and the time left."""

from __future__ import annotations

import time
from collections.abc import Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from botarena.tournament.failures import EntrantFailures

SHOWN_FAILING = 2  # entrants named on the progress line; the rest are counted


class TournamentProgress:
    """A `ProgressSink` (and `FailureSink`) that draws one rich progress line while the tournament
    runs, naming the entrants that fail (issue 26, item 2: "bad crashed 3/3").

    The estimate of time left is the mean time per finished match (since this run started) times the
    matches left, divided over what runs at once; formats that schedule round by round (Swiss,
    elimination, ladder) grow `total` as they go, so the estimate covers what is scheduled so far.
    """

    def __init__(self, title: str, *, console: Any = None, transient: bool = False) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[running]} running · {task.fields[failed]} failed"),
            TimeElapsedColumn(),
            TextColumn("· left {task.fields[eta]}"),
            TextColumn("{task.fields[failing]}", style="bold red"),
            console=console,
            transient=transient,
        )
        self.task = self.progress.add_task(title, total=None, running=0, failed=0, eta="?", failing="")
        self.started = time.monotonic()
        self.first_done: int | None = None

    def __enter__(self) -> TournamentProgress:
        self.progress.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.progress.stop()

    def update(self, *, total: int, done: int, running: int, failed: int) -> None:
        finished = done + failed
        if self.first_done is None:
            self.first_done = finished  # results from before a resume are not this run's speed
        self.progress.update(
            self.task,
            total=total,
            completed=finished,
            running=running,
            failed=failed,
            eta=self._eta(total, finished),
        )

    def failures(self, failing: Sequence[EntrantFailures]) -> None:
        self.progress.update(self.task, failing=failing_text(failing))

    def _eta(self, total: int, finished: int) -> str:
        played_now = finished - (self.first_done or 0)
        if played_now <= 0 or finished >= total:
            return "?" if finished < total else "0s"
        per_match = (time.monotonic() - self.started) / played_now
        seconds = int(per_match * (total - finished) + 0.5)
        minutes, seconds = divmod(seconds, 60)
        hours, minutes = divmod(minutes, 60)
        return (
            f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{seconds:02d}s" if minutes else f"{seconds}s"
        )


def failing_text(failing: Sequence[EntrantFailures]) -> str:
    """The progress line's note of failing entrants, short (the line is narrow): each with the matches
    it failed in of those it played, "· failing: bad 3/3, slow 1/2, 3 more"."""
    from rich.markup import escape

    if not failing:
        return ""
    named = ", ".join(f"{e.name} {e.failed}/{e.played}" for e in failing[:SHOWN_FAILING])
    more = f", {len(failing) - SHOWN_FAILING} more" if len(failing) > SHOWN_FAILING else ""
    return escape(f"· failing: {named}{more}")  # an entrant's name is no markup
