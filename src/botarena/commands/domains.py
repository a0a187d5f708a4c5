"""`botarena domains ...`: Domains' own commands, for the original's game files (spec 7.4).

    botarena domains export REPLAY OUT [--format new|old]   a finished replay as an original game file
    botarena domains import GAME_FILE OUT                   an original game file as a replay (viewer)

`botarena view GAME_FILE` opens an original game file directly (it imports it on the fly). Mistakes
(a replay of another game, an unfinished one, a file that is no game file) are one line on stderr and
exit code 2: GameFileError is a ValueError, which the main CLI maps that way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(
    name="domains",
    help="Domains: export replays to the original's game files, and import them.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.command("export")
def export_command(
    replay: Annotated[Path, typer.Argument(help="A finished Domains replay (.json.gz or .json).")],
    out: Annotated[Path, typer.Argument(help="The game file to write (the original's .txt).")],
    fmt: Annotated[
        str, typer.Option("--format", help="new (incremental, the original's default) or old (full board).")
    ] = "new",
) -> None:
    """Write a finished botarena Domains game in the original's game-file format (spec 7.4)."""
    from botarena.core.replay import read_replay
    from botarena.games.domains.protocol import GameFileError, export_replay

    if fmt not in ("new", "old"):
        raise GameFileError(f"--format must be new or old, not {fmt!r}")
    text = export_replay(read_replay(replay), "new" if fmt == "new" else "old")
    out.write_text(text, encoding="ascii", newline="\n")
    print(f"{fmt}-format game file written to {out}")


@app.command("import")
def import_command(
    game_file: Annotated[Path, typer.Argument(help="A game file of the original (new or old format).")],
    out: Annotated[Path, typer.Argument(help="The replay to write (.json.gz).")],
) -> None:
    """Convert an original game file into a botarena replay that `botarena view` shows."""
    from botarena.core.replay import write_replay
    from botarena.games.domains.protocol import import_game_file

    replay = import_game_file(game_file.read_text(encoding="ascii"), source=game_file.name)
    write_replay(replay, out)
    print(f"replay written to {out}")


def is_game_file(path: Path) -> bool:
    """Whether `path` is a readable file that starts like an original Domains game file."""
    from botarena.games.domains.protocol import GAME_FILE_HEAD, looks_like_game_file

    try:
        with path.open("rb") as handle:
            head = handle.read(GAME_FILE_HEAD)
    except OSError:
        return False
    return looks_like_game_file(head)
