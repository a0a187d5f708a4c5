"""The `botarena` command: list games, play a match, verify or view a replay.

Every mistake a person can make here (an unknown game, bot, preset or config key, a broken replay
file, a bad option) ends with one line on stderr and exit code 2, never a traceback. Set
BOTARENA_DEBUG=1 to see tracebacks of unexpected errors.
"""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.exceptions import TyperException

from botarena.core.config import ConfigError, load_overrides, parse_override
from botarena.core.registry import UnknownGameError, all_games, get_game
from botarena.core.replay import ReplayError

app = typer.Typer(
    name="botarena",
    help="botarena: play, replay and watch bot-programming games.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


class UserError(Exception):
    """A mistake of the person at the keyboard: reported in one line, exit code 2."""


def _console() -> Any:
    from rich.console import Console

    return Console(highlight=False)


@app.command("games")
def games_command() -> None:
    """List the games, their player counts, presets and starter bots."""
    from rich.table import Table

    table = Table(title="botarena games")
    for column in ("id", "title", "players", "presets", "starter bots"):
        table.add_column(column)
    for game in all_games():
        players = (
            str(game.min_players)
            if game.min_players == game.max_players
            else f"{game.min_players}-{game.max_players}"
        )
        table.add_row(game.id, game.title, players, ", ".join(game.presets), ", ".join(game.starter_bots))
    _console().print(table)


@app.command("play")
def play_command(
    game_id: Annotated[str, typer.Argument(metavar="GAME", help="Game id (see `botarena games`).")],
    bots: Annotated[
        list[str],
        typer.Argument(metavar="BOT...", help="Starter bot name, Python or JS file, URL, or command line."),
    ],
    seed: Annotated[int | None, typer.Option(help="Match seed (0..2^64-1); random if omitted.")] = None,
    preset: Annotated[str, typer.Option(help="Config preset.")] = "default",
    set_: Annotated[
        list[str] | None,
        typer.Option("--set", metavar="KEY=VALUE", help="Override a config key (repeatable)."),
    ] = None,
    config_file: Annotated[
        Path | None, typer.Option("--config", help="A JSON file of config overrides (before --set).")
    ] = None,
    replay: Annotated[Path | None, typer.Option(help="Write the replay here (.json.gz).")] = None,
    original_json: Annotated[
        Path | None,
        typer.Option(help="drones, bravolt2018: also write the 2018 MatchResult JSON here."),
    ] = None,
) -> None:
    """Play one match and print its result."""
    from botarena.bots.resolve import resolve_bot
    from botarena.core.replay import write_replay
    from botarena.runner import run_match

    game = get_game(game_id)
    game.check_players(len(bots))
    overrides = load_overrides(config_file) if config_file is not None else {}
    overrides.update(parse_override(item) for item in set_ or [])
    config = game.config(preset, overrides)
    if seed is None:
        seed = secrets.randbelow(2**32)
    players = [resolve_bot(spec, game) for spec in bots]
    run = run_match(game, players, config=config, seed=seed, preset=preset)
    _print_result(game_id, seed, run.replay)
    if replay is not None:
        write_replay(run.replay, replay)
        print(f"replay written to {replay}")
    if original_json is not None:
        writer = game.extras.get("original_result_json")
        if writer is None:
            raise UserError(f"{game_id} has no original result format")
        original_json.write_text(writer(run.replay), encoding="utf-8")
        print(f"original MatchResult JSON written to {original_json}")


def _print_result(game_id: str, seed: int, replay: Any) -> None:
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
    console = _console()
    console.print(table)
    outcome = result["details"].get("outcome")
    if outcome is not None:
        console.print(f"outcome: {outcome}")


@app.command("replay")
def replay_command(
    file: Annotated[Path, typer.Argument(help="A replay file (.json.gz or .json).")],
    verify: Annotated[bool, typer.Option("--verify", help="Re-run the match and compare.")] = False,
) -> None:
    """Summarise a replay, or re-run it with --verify and prove it identical."""
    from botarena.core.replay import read_replay
    from botarena.runner.verify import verify_replay

    data = read_replay(file)
    if not verify:
        _print_result(data.game, data.seed, data)
        return
    report = verify_replay(data)
    print(report)
    if not report.identical:
        raise typer.Exit(1)


@app.command("view")
def view_command(
    file: Annotated[Path, typer.Argument(help="A replay file to watch in the browser.")],
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (0: pick a free one).")] = 0,
) -> None:
    """Serve the web viewer for a replay and print its URL."""
    from botarena.core.replay import read_replay
    from botarena.server.viewer import serve_viewer

    read_replay(file)  # fail early, in one line, on a broken file
    serve_viewer(file, host=host, port=port)


def _user_errors() -> tuple[type[BaseException], ...]:
    from botarena.bots.resolve import BotSpecError

    return (UserError, ConfigError, UnknownGameError, ReplayError, BotSpecError, ValueError, OSError)


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the CLI and map every error to a one-line message and an exit code."""
    try:
        code = app(args=argv, standalone_mode=False, prog_name="botarena")
    except typer.Abort:
        print("botarena: aborted", file=sys.stderr)
        return 130
    except typer.Exit as exc:
        return int(exc.exit_code)
    except TyperException as exc:  # usage errors: bad options or arguments
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        if message:  # empty when the help was shown for a bare `botarena`
            print(f"botarena: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("botarena: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if isinstance(exc, _user_errors()):
            print(f"botarena: error: {exc}", file=sys.stderr)
            return 2
        if os.environ.get("BOTARENA_DEBUG"):
            raise
        print(
            f"botarena: internal error: {type(exc).__name__}: {exc} (BOTARENA_DEBUG=1 shows the traceback)",
            file=sys.stderr,
        )
        return 1
    return code if isinstance(code, int) else 0


if __name__ == "__main__":
    sys.exit(main())
