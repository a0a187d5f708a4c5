"""A played match for people: the result table, a partial replay's summary and the per-seat failure
blocks, as `botarena play` and `botarena replay` print them and a notebook can show them.

The failure blocks come from `botarena.runner.failures` (what went wrong for each seat, read from the
replay alone); this module only names the bots and lays the text out. Tables are rich tables, built
here and printed by the caller.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from botarena.runner.failures import SeatReport, seat_reports

STDERR_TAIL_LINES = 5
"""How many of a failing bot's last log lines `play` prints under its report."""


def partial_lines(file: Path, replay: Any) -> list[str]:
    """The summary of a journal whose game did not finish (a killed `play`, or one still running)."""
    # seats as every viewer labels them (README "Seats"): "seat N · name", N 0-based
    seats = [f"seat {p.get('seat', i)} · {p.get('name', '?')}" for i, p in enumerate(replay.players)]
    return [
        f"{replay.game} · seed {replay.seed} · players {', '.join(seats)}",
        f"partial replay: the game did not finish; {len(replay.steps)} steps recorded"
        f" (if its host was killed: botarena play --resume {file})",
    ]


def result_table(game_id: str, seed: int, replay: Any) -> Any:
    """A finished match's rich table: per seat its bot, rank, score, status counts and time used."""
    from rich.table import Table

    result = replay.result
    table = Table(title=f"{game_id} · seed {seed} · {len(replay.steps)} steps")
    for column in ("seat", "bot", "rank", "score", "statuses", "time used"):
        table.add_column(column)
    for seat, player in enumerate(replay.players):
        statuses = " ".join(f"{k}:{v}" for k, v in sorted(replay.statuses[seat].items()))
        table.add_row(
            str(seat),
            player["name"],
            str(result["ranks"][seat]),
            f"{result['scores'][seat]:g}",
            statuses,
            f"{replay.time_used_ms[seat]:.1f} ms",
        )
    return table


def outcome_line(replay: Any) -> str | None:
    """`outcome: ...` when the game's result details name one (how the match was decided)."""
    outcome = replay.result["details"].get("outcome")
    return None if outcome is None else f"outcome: {outcome}"


@dataclass(frozen=True)
class FailureBlock:
    """One seat's failure report as lines: the headline first, then its indented details."""

    report: SeatReport
    lines: list[str]


def failure_blocks(
    replay: Any, specs: Sequence[str] = (), tail_lines: int = STDERR_TAIL_LINES
) -> list[FailureBlock]:
    """A block for each seat with something to say: status counts with the first failure (status,
    reason, where, detail), the first of each other status, what of its replies was lost, then the
    last lines of its log. A seat's bot is named "name, spec" when its spec (`specs[seat]`) says
    more than its display name."""
    blocks = []
    for report in seat_reports(replay, tail_lines):
        spec = specs[report.seat] if report.seat < len(specs) else report.name
        bot = report.name if spec == report.name else f"{report.name}, {spec}"
        blocks.append(FailureBlock(report, report.lines(bot)))
    return blocks
