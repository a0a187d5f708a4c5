"""A tournament's leaderboard for a terminal: rich tables of the JSON that
`botarena.tournament.service.tournament_leaderboard` gives (and the server serves).

Everything here reads that JSON alone, so what the CLI prints is what the server's page shows:
the ratings table (with the failing entrants' counts in a column), each failing entrant's first
failure, the event standings a format adds (`standings`, with its per-opponent `standings_summary`
and `standings_notes`), and the titled table a game declares (`game_standings`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

RATING_COLUMNS = ("rank", "bot", "ordinal", "mu", "sigma", "played", "W", "D", "L", "points")
EVENT_COLUMNS = ("rank", "bot", "points", "W", "D", "L", "rounds W/L/D", "round +/-")
EVENT_TITLE = "event standings"
"""The title of a format's event standings (`leaderboard["standings"]`) when the format gives none
(`leaderboard["standings_title"]`)."""


def print_leaderboard(data: Mapping[str, Any], *, failure_lines: bool = True) -> None:
    """Print the leaderboard's tables on stdout; unless `failure_lines` is False (the caller printed
    them), each failing entrant's first failure goes under the ratings table as a plain line."""
    from rich.console import Console

    console = Console(highlight=False)
    board = data["leaderboard"]
    failing = board.get("failures") or []
    console.print(ratings_table(data["tournament"], board["rows"], failing))
    if failure_lines and failing:
        print("failures (the first of each entrant):")
        for entrant in failing:  # plain lines, never wrapped into a narrow column
            print(f"  {entrant['name']}: {entrant['line']}")
    standings = board.get("standings")
    if standings:
        console.print(event_table(standings, board.get("standings_title") or EVENT_TITLE))
        summary, notes = board.get("standings_summary") or {}, board.get("standings_notes") or []
        print_event_summary(console, summary, notes)
    game_table = board.get("game_standings")
    if game_table:
        console.print(standings_table(game_table))


def counts_text(entrant: Mapping[str, Any]) -> str:
    """An entrant's failure counts from the leaderboard's JSON, e.g. "crashed 3/3"."""
    from botarena.tournament.failures import KINDS, LABELS

    counts, played = entrant.get("counts") or {}, entrant.get("played", 0)
    return ", ".join(f"{LABELS[kind]} {counts[kind]}/{played}" for kind in KINDS if counts.get(kind))


def ratings_table(
    info: Mapping[str, Any], rows: Sequence[Mapping[str, Any]], failing: Sequence[Mapping[str, Any]]
) -> Any:
    """The ratings and results, one row per entrant; a `failures` column when some entrant failed."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=f"{info['name']} · {info['game']} · {info['format']} · {info['status']}")
    # a bot's exception text is no markup ("KeyError: ['x']")
    failures = {entrant["name"]: escape(counts_text(entrant)) for entrant in failing}
    for column in (*RATING_COLUMNS, "failures") if failures else RATING_COLUMNS:
        table.add_column(column, justify="left" if column in ("bot", "failures") else "right")
    for row in rows:
        extra = (failures.get(row["name"], ""),) if failures else ()
        table.add_row(*_rating_cells(row), *extra)
    return table


def _rating_cells(row: Mapping[str, Any]) -> tuple[str, ...]:
    return (
        str(row["rank"]),
        row["name"],
        f"{row['ordinal']:.2f}",
        f"{row['mu']:.2f}",
        f"{row['sigma']:.2f}",
        str(row["played"]),
        str(row["wins"]),
        str(row["draws"]),
        str(row["losses"]),
        f"{row['points']:g}",
    )


def event_table(standings: Sequence[Mapping[str, Any]], title: str = EVENT_TITLE) -> Any:
    """A format's event standings: points, matches won/drawn/lost and rounds won/lost/drawn."""
    from rich.table import Table

    table = Table(title=title)
    for column in EVENT_COLUMNS:
        table.add_column(column)
    for row in standings:
        table.add_row(
            str(row["rank"]),
            row["entrant"],
            f"{row['points']:g}",
            str(row["wins"]),
            str(row["draws"]),
            str(row["losses"]),
            f"{row['round_wins']}/{row['round_losses']}/{row['round_draws']}",
            f"{row['round_wins'] - row['round_losses']:+d}",
        )
    return table


def print_event_summary(console: Any, summary: Mapping[str, Mapping[str, str]], notes: Sequence[str]) -> None:
    """The event's per-opponent lines (spec 6.3), e.g. `vs Zergy: WIN (W:792/ L:208/ D:0)`, then the
    standings notes (every entrant is played, unlike at the event)."""
    from rich.markup import escape

    for entrant, results in summary.items():
        if results:
            console.print(escape(f"{entrant}:"))
            for opponent, text in results.items():
                console.print(escape(f"  vs {opponent}: {text}"))
    for note in notes:
        console.print(escape(f"note: {note}"))


def standings_cell(value: Any) -> str:
    """A game standings value as text: yes/no for a flag, `:g` for a fraction, – for nothing."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def standings_table(game_table: Mapping[str, Any]) -> Any:
    """A game's own standings (`leaderboard["game_standings"]`: title, columns, rows) as a rich table."""
    from rich.table import Table

    table = Table(title=str(game_table["title"]))
    columns = game_table["columns"]
    for column in columns:
        text = any(isinstance(row.get(column["key"]), str) for row in game_table["rows"])
        table.add_column(str(column["label"]), justify="left" if text else "right", no_wrap=text)
    for row in game_table["rows"]:
        table.add_row(*(standings_cell(row.get(column["key"])) for column in columns))
    return table
