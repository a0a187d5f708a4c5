"""The command line of the Domains C++ kit: `python -m botarena.bots.cppkit SOURCE.cc... -o OUTPUT`
compiles a player with the kit's headers and prints OUTPUT; a compile error is one line on stderr,
then the compiler's whole output (`botarena.bots.cppkit.main` calls this)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from botarena.bots.cppkit import CppKitError, build_player

PROG = "python -m botarena.bots.cppkit"

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command(help="Compile a Domains C++ player (the original's headers are the kit's).")
def build_command(
    sources: Annotated[list[str], typer.Argument(metavar="SOURCE.cc", help="the player's .cc files")],
    output: Annotated[str, typer.Option("-o", "--output", help="the executable to write")],
) -> None:
    try:
        build_player(sources, output)
    except CppKitError as exc:
        print(f"error: {exc}", file=sys.stderr)
        if exc.diagnostics:
            print(exc.diagnostics, file=sys.stderr, end="")
        raise typer.Exit(1) from None
    print(output)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns 0 when built, 1 on a compile error, 2 on a usage mistake."""
    try:
        app(args=argv, prog_name=PROG)
    except SystemExit as exc:  # typer's standalone mode ends every run so
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    return 0
