"""`botarena games` and `botarena config GAME`: what the registry holds, for people."""

from __future__ import annotations

import dataclasses
import warnings
from typing import Annotated

import typer

from botarena.commands.common import console
from botarena.core.registry import BrokenGameWarning, all_games, get_game


def games_command() -> None:
    """List the games, their player counts, presets and starter bots."""
    from rich.table import Table

    table = Table(title="botarena games")
    for column in ("id", "title", "players", "presets", "starter bots"):
        table.add_column(column)
    # a third-party game whose entry point is broken is left out with a line that names it
    with warnings.catch_warnings(record=True) as broken:
        warnings.simplefilter("always", BrokenGameWarning)
        games = all_games()
    for game in games:
        players = (
            str(game.min_players)
            if game.min_players == game.max_players
            else f"{game.min_players}-{game.max_players}"
        )
        table.add_row(game.id, game.title, players, ", ".join(game.presets), ", ".join(game.starter_bots))
    console().print(table)
    for warning in broken:
        typer.echo(f"warning: {warning.message}", err=True)


def config_command(
    game_id: Annotated[str, typer.Argument(metavar="GAME", help="Game id (see `botarena games`).")],
    preset: Annotated[str, typer.Option(help="Show this preset's values.")] = "default",
    as_json: Annotated[bool, typer.Option("--json", help="Print the keys as JSON.")] = False,
) -> None:
    """List every config key of a game: its value (in --preset), default, what is allowed, meaning."""
    import orjson
    from rich.markup import escape
    from rich.table import Table

    from botarena.core.config import describe_config

    game = get_game(game_id)
    keys = describe_config(game.config_class, game.config(preset))
    if as_json:
        print(orjson.dumps([dataclasses.asdict(key) for key in keys]).decode())
        return
    table = Table(title=f"{game_id} config · preset {preset} · presets: {', '.join(sorted(game.presets))}")
    # Long values (tables such as place_points) fold in a capped column, so the meaning keeps room.
    for column, cap in (("key", None), ("value", 30), ("default", 30), ("allowed", 26), ("meaning", None)):
        table.add_column(column, overflow="fold", max_width=cap)
    for key in keys:
        shown = orjson.dumps(key.value).decode()
        default = "" if key.value == key.default else orjson.dumps(key.default).decode()
        table.add_row(*(escape(cell) for cell in (key.name, shown, default, key.allowed, key.meaning)))
    console().print(table)
