"""A rich progress bar for a running tournament: matches done, running, failed, and the time left."""

from __future__ import annotations

import time
from types import TracebackType
from typing import Any


class TournamentProgress:
    """A `ProgressSink` that draws one rich progress line while the tournament runs.

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
            console=console,
            transient=transient,
        )
        self.task = self.progress.add_task(title, total=None, running=0, failed=0, eta="?")
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
