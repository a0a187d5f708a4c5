"""`botarena replay FILE` (summarise, --verify, --feed a step to a bot, --text) and `botarena view
FILE` (the web viewer, or one self-contained page with --html)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from botarena.commands.common import UserError, console
from botarena.core.registry import get_game


def replay_command(
    file: Annotated[Path, typer.Argument(help="A replay file (.json.gz or .json).")],
    verify: Annotated[bool, typer.Option("--verify", help="Re-run the match and compare.")] = False,
    feed: Annotated[
        int | None,
        typer.Option(
            "--feed",
            metavar="STEP",
            help="Send the recorded request(s) of this step (1-based, as the viewer counts; 0: the "
            "start exchange) to --bot, after the seat's start request, and compare its replies.",
        ),
    ] = None,
    seat: Annotated[int | None, typer.Option(help="--feed: the seat whose requests are sent.")] = None,
    bot: Annotated[
        str | None,
        typer.Option(
            help="--feed: the bot, named as `botarena play` takes it (starter, file, URL, command)."
        ),
    ] = None,
    request: Annotated[
        int | None,
        typer.Option(
            metavar="K",
            help="--feed: only the seat's K-th request of the step (1-based; a devops faction has "
            "one per unit). Default: all of them.",
        ),
    ] = None,
    history: Annotated[
        bool,
        typer.Option(
            "--history", help="--feed: first send every earlier request of the seat (replies discarded)."
        ),
    ] = False,
    full: Annotated[
        bool, typer.Option("--full", help="--feed: print requests and payloads in full.")
    ] = False,
    text: Annotated[
        bool, typer.Option("--text", help="Print every keyframe of the replay as ASCII (the game's text.py).")
    ] = False,
) -> None:
    """Summarise a replay, re-run it with --verify and prove it identical, --feed a step's request
    to a bot and print its reply next to the recorded one, or print its keyframes as --text."""
    from botarena.core.replay import read_replay

    data = read_replay(file)
    if feed is not None or seat is not None or bot is not None or request is not None or history or full:
        if verify:
            raise UserError("--verify and --feed are separate: give one of them")
        _feed(data, feed, seat, bot, request, history, full)
    elif text:
        _print_keyframes(data)
    elif verify:
        _verify(data)
    else:
        print_summary(file, data)


def print_summary(file: Path, data: Any) -> None:
    """A finished replay's result table, or a partial one's summary."""
    if data.partial:
        print_partial(file, data)
    else:
        print_result(data.game, data.seed, data, out=console())


def print_partial(file: Path, data: Any) -> None:
    """The summary of a journal whose game did not finish (a killed `play`, or one still running)."""
    from botarena.runner.report import partial_lines

    for line in partial_lines(file, data):
        print(line)


def print_result(game_id: str, seed: int, replay: Any, *, out: Any) -> None:
    """The result table of a finished match, then its outcome line if the game gives one."""
    from botarena.runner.report import outcome_line, result_table

    out.print(result_table(game_id, seed, replay))
    outcome = outcome_line(replay)
    if outcome is not None:
        out.print(outcome)


def _print_keyframes(data: Any) -> None:
    render = get_game(data.game).text_renderer
    for keyframe in data.keyframes:
        print(f"-- step {keyframe['step']}\n{render(keyframe['state']).rstrip()}")


def _verify(data: Any) -> None:
    """Re-run the replay and print the comparison; exit code 1 when it differs."""
    from botarena.runner.verify import verify_replay

    report = verify_replay(data)
    print(report)
    if not report.identical:
        raise typer.Exit(1)


def _feed(
    data: Any,
    step: int | None,
    seat: int | None,
    spec: str | None,
    request: int | None,
    history: bool,
    full: bool,
) -> None:
    """`replay --feed`: check the arguments (one line each), resolve the bot as `play` does, feed."""
    from botarena.bots.resolve import resolve_bot
    from botarena.runner.feed import feed_replay, format_report, seat_requests

    if step is None or seat is None or spec is None:
        raise UserError(
            "--feed STEP needs --seat SEAT and --bot SPEC (and --request, --history, --full need --feed)"
        )
    seat_requests(data, step, seat, request)  # a bad step, seat or request fails before any bot starts
    report = feed_replay(
        data, resolve_bot(spec, get_game(data.game)), step=step, seat=seat, request=request, history=history
    )
    print(format_report(report, full=full))


def view_command(
    file: Annotated[
        Path, typer.Argument(help="A replay file, or an original Domains game file, to watch in the browser.")
    ],
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (0: pick a free one).")] = 0,
    html: Annotated[
        Path | None,
        typer.Option(
            "--html",
            help="Write one self-contained HTML page that plays the replay (opens from file://, "
            "no server) instead of serving the viewer.",
        ),
    ] = None,
) -> None:
    """Serve the web viewer for a replay (or a game file of the original Domains) and print its URL."""
    import tempfile

    from botarena.commands.domains import is_game_file
    from botarena.core.replay import read_replay, write_replay
    from botarena.server.viewer import serve_viewer

    if html is not None:
        _write_html(file, html)
        return
    if is_game_file(file):  # the original's game file: shown as its web viewer shows it
        replay = _imported_game_file(file)
        with tempfile.TemporaryDirectory(prefix="botarena-view-") as folder:
            serve_viewer(write_replay(replay, Path(folder) / f"{file.stem}.json.gz"), host=host, port=port)
        return
    read_replay(file)  # fail early, in one line, on a broken file
    serve_viewer(file, host=host, port=port)


def _imported_game_file(file: Path) -> Any:
    from botarena.games.domains.protocol import import_game_file

    return import_game_file(file.read_text(encoding="ascii"), source=file.name)


def _write_html(file: Path, html: Path) -> None:
    """`view --html`: the replay (or game file) as one self-contained page."""
    from botarena.commands.domains import is_game_file
    from botarena.core.replay import read_replay
    from botarena.standalone import StandaloneError, write_standalone_html

    shown = _imported_game_file(file) if is_game_file(file) else read_replay(file)
    try:
        written = write_standalone_html(shown, html)
    except (StandaloneError, OSError) as exc:
        raise UserError(f"cannot write {html}: {exc}") from None
    steps = len(shown.steps)
    print(f"wrote {written}: {shown.game} seed {shown.seed}, {steps} steps; open it in a browser")
    if shown.partial:
        from botarena.server.viewer import partial_summary

        print(f"{partial_summary(shown)}; the page says so")
