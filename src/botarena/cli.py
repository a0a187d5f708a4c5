"""The `botarena` command: games, matches, replays, tournaments, leaderboards and the organizer's server.

Every mistake a person can make here (an unknown game, bot, preset or config key, a broken replay
file, a bad option) ends with one line on stderr and exit code 2, never a traceback. Set
BOTARENA_DEBUG=1 to see tracebacks of unexpected errors.

Exit codes: 0 done; 1 done, but not everything could be played (`play`: a bot never got to play;
`tournament`: matches left unplayed for the platform's reasons, a full disk or no worker that can
sandbox, which `--resume` plays); 2 a mistake in the command (or a bot that cannot be loaded);
130 interrupted.
"""

from __future__ import annotations

import os
import sys

import typer
from typer.exceptions import TyperException

from botarena.commands import games, play, replay, serve, submit, tournament
from botarena.commands.common import UserError, shortened
from botarena.core.config import ConfigError
from botarena.core.registry import GameRegistrationError, UnknownGameError
from botarena.core.replay import ReplayError

__all__ = ["OPTIONAL_EXTRAS", "UserError", "app", "main", "missing_module_message"]

app = typer.Typer(
    name="botarena",
    help="botarena: play, replay and watch bot-programming games.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)

# The commands in the order `botarena --help` lists them; each lives in its module of commands/.
app.command("games")(games.games_command)
app.command("play")(play.play_command)
app.command("config")(games.config_command)
app.command("replay")(replay.replay_command)
app.command("view")(replay.view_command)
app.command("devops-service")(serve.devops_service_command)
app.command("tournament")(tournament.tournament_command)
app.command("leaderboard")(tournament.leaderboard_command)
app.command("serve")(serve.serve_command)
app.command("submit")(submit.submit_command)
app.command("fetch")(submit.fetch_command)
app.add_typer(__import__("botarena.server.datspulse.cli", fromlist=["app"]).app, name="datspulse")
app.add_typer(__import__("botarena.commands.domains", fromlist=["app"]).app, name="domains")
app.add_typer(__import__("botarena.commands.arena", fromlist=["app"]).app, name="arena")


def _user_errors() -> tuple[type[BaseException], ...]:
    from botarena.bots.resolve import BotSpecError
    from botarena.bots.sandbox import SandboxUnavailable
    from botarena.store import StoreError

    return (
        UserError,
        SandboxUnavailable,
        ConfigError,
        UnknownGameError,
        GameRegistrationError,
        ReplayError,
        BotSpecError,
        StoreError,
        ValueError,
        OSError,
    )


def _one_line(exc: BaseException) -> str:
    """`exc` for people: an OSError as "what it says: the file" (never "[Errno 36] ..."), with a
    file name too long to read shortened."""
    if isinstance(exc, OSError) and exc.strerror:
        if exc.filename is None:
            return exc.strerror
        name = exc.filename
        shown = os.fsdecode(name) if isinstance(name, str | bytes) else str(name)
        return f"{exc.strerror}: {shortened(shown)}"
    return str(exc)


OPTIONAL_EXTRAS: dict[str, str] = {
    "psycopg": "postgres",
    "dask": "dask",
    "distributed": "dask",
    "pettingzoo": "rl",
    "gymnasium": "rl",
    "moviepy": "rl",
    "stable_baselines3": "rl-train",
    "sb3_contrib": "rl-train",
    "torch": "rl-train",
}
"""Top-level module -> the extra of pyproject.toml that installs it (tests/cli check the two agree)."""


def missing_module_message(exc: ImportError) -> str:
    """One line for a module a command needs and the installation lacks, naming what to install.

    An optional extra's module names its extra; a module of the core install (or of botarena itself)
    means a broken installation, so the line says to reinstall. A message that already says what to
    install (the raiser knew better) is kept as it is."""
    said = str(exc)
    if "pip install" in said:
        return said
    module = (exc.name or "").partition(".")[0]
    extra = OPTIONAL_EXTRAS.get(module)
    if extra is not None:
        return f"this needs {module}, which is not installed: pip install 'botarena[{extra}]'"
    what = module or "a module"
    return (
        f"{what} is missing from this installation ({said}): it comes with botarena, reinstall it "
        "(pip install --force-reinstall botarena, or pip install . in a clone)"
    )


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
        if isinstance(exc, ImportError):  # an extra not installed: what to install, never a traceback
            print(f"botarena: error: {shortened(missing_module_message(exc), 400)}", file=sys.stderr)
            return 2
        if isinstance(exc, _user_errors()):
            print(f"botarena: error: {_one_line(exc)}", file=sys.stderr)
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
