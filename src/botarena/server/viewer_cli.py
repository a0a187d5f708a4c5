"""The viewer's own command line, `REPLAY [PORT]`: serve the web viewer for one replay until Ctrl-C
(`botarena.server.viewer.main` calls this; `botarena view` is the full command)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from botarena.core.replay import ReplayError
from botarena.server.viewer import ServerDependencyError, serve_viewer

PROG = "python -m botarena.server.viewer"

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command(help="Serve the web viewer for one replay and print the URL to open.")
def view_command(
    replay: Annotated[str, typer.Argument(metavar="REPLAY.json.gz", help="The replay file to show.")],
    # a text, read below: a port that is no number is one line of error, as a busy port is
    port: Annotated[str, typer.Argument(metavar="PORT", help="Port (0: pick a free one).")] = "0",
) -> None:
    try:
        serve_viewer(replay, port=int(port))
    except (ReplayError, ServerDependencyError, OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        pass


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns 0 when served until Ctrl-C, 1 for a file or port that cannot be
    served, 2 for a usage mistake."""
    try:
        app(args=argv, prog_name=PROG)
    except SystemExit as exc:  # typer's standalone mode ends every run so
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    return 0
