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

import dataclasses
import errno
import os
import secrets
import sys
import threading
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

import orjson
import typer
from typer.exceptions import TyperException

from botarena.commands.secret_options import (
    DbFileOption,
    DbOption,
    LiveTokenFileOption,
    LiveTokenOption,
    OrganizerKeyFileOption,
    OrganizerKeyOption,
    live_token_of,
    organizer_key_of,
    store_url,
)
from botarena.core.config import ConfigError, load_overrides, parse_override
from botarena.core.registry import (
    BrokenGameWarning,
    GameRegistrationError,
    UnknownGameError,
    all_games,
    get_game,
)
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
    _console().print(table)
    for warning in broken:
        typer.echo(f"warning: {warning.message}", err=True)


@app.command("play")
def play_command(
    game_id: Annotated[
        str | None, typer.Argument(metavar="GAME", help="Game id (see `botarena games`).", show_default=False)
    ] = None,
    bots: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="BOT...",
            help="Starter bot name, Python or JS file, C++ source (domains: compiled), URL, or command line.",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Match seed (0..2^64-1); random if omitted.")] = None,
    preset: Annotated[str, typer.Option(help="Config preset.")] = "default",
    set_: Annotated[
        list[str] | None,
        typer.Option("--set", metavar="KEY=VALUE", help="Override a config key (repeatable)."),
    ] = None,
    config_file: Annotated[
        Path | None, typer.Option("--config", help="A JSON file of config overrides (before --set).")
    ] = None,
    replay: Annotated[
        Path | None,
        typer.Option(
            help="Write the replay here (.json.gz), as the game goes: if this process is killed, "
            "`--resume` goes on from the file's last complete step."
        ),
    ] = None,
    resume: Annotated[
        Path | None,
        typer.Option(
            "--resume",
            metavar="FILE",
            help="Go on with the game whose --replay FILE a killed `play` left: its recorded steps are "
            "re-run, then the same bots play on (the game, bots, seed and config come from FILE).",
        ),
    ] = None,
    original_json: Annotated[
        Path | None,
        typer.Option(help="drones, bravolt2018: also write the 2018 MatchResult JSON here."),
    ] = None,
    live: Annotated[
        bool,
        typer.Option(
            "--live", help="Serve the viewer on 127.0.0.1 and stream the match to it while it runs."
        ),
    ] = False,
    live_port: Annotated[int, typer.Option(help="--live: port of the viewer (0: a free one).")] = 0,
    live_linger: Annotated[
        float,
        typer.Option(help="--live: seconds to keep serving after the end (Ctrl-C stops earlier)."),
    ] = 60.0,
    sandbox: Annotated[
        bool,
        typer.Option(
            "--sandbox",
            help="Run the bots as strangers' code would run in a tournament: Python files as "
            "subprocesses, every bot process sealed (bubblewrap, cgroup limits). See docs/security.md.",
        ),
    ] = False,
) -> None:
    """Play one match and print its result (with --live, watch it in the viewer as it is played;
    with --resume, go on with a killed one)."""
    from botarena.bots.resolve import TRUSTED, resolve_bot
    from botarena.core.journal import ReplayJournal
    from botarena.core.replay import write_replay
    from botarena.runner import resume_match, run_match

    if live and (live_port < 0 or live_linger < 0):
        raise UserError("--live-port and --live-linger must be 0 or more")
    if resume is not None:
        given = [game_id, *(bots or []), seed, set_, config_file, replay, preset != "default", sandbox]
        if any(item for item in given if item is not None and item is not False and item != []):
            raise UserError(
                "--resume FILE takes the game, bots, seed, config and sandbox from FILE: give none of"
                " GAME, BOT, --seed, --preset, --set, --config, --replay or --sandbox with it"
            )
        match = _resumed_match(resume)
    else:
        match = _new_match(game_id, bots, seed, preset, set_ or [], config_file, replay, sandbox)
    game, specs, seed, preset, config, replay = (
        match.game,
        match.specs,
        match.seed,
        match.preset,
        match.config,
        match.replay,
    )
    isolation = _isolation(match.sandbox) if match.sandbox else TRUSTED
    if match.sandbox:
        players = _sealed_players(specs, game, isolation)
    else:
        players = [resolve_bot(spec, game, isolation=isolation) for spec in specs]
    if original_json is not None and game.native_result_json is None:
        raise UserError(f"{game.id} has no original result format")
    external = match.external
    journal = ReplayJournal(replay, resume=match.header, external=external) if replay is not None else None
    reported: list[bool] = []

    def report(run: Any) -> None:
        """Write the files, then print the result, as soon as the match ends (a live viewer may
        linger). The finished replay is written first (issue 26, item 1): whatever the printing
        below meets, the game on disk is whole and never a journal left to resume."""
        if replay is not None:
            if journal is not None:
                journal.close()
            write_replay(run.replay, replay)
        _print_result(game.id, seed, run.replay)
        reported.append(_print_failures(run.replay, specs))
        if replay is not None:
            print(f"replay written to {replay}")
        if original_json is not None and game.native_result_json is not None:
            original_json.write_text(game.native_result_json(run.replay), encoding="utf-8")
            print(f"original MatchResult JSON written to {original_json}")

    def play(game_: Any, on_begin: Any = None, on_step: Any = None) -> Any:
        """The match, new or resumed, with the journal (if any) among its observers."""
        if journal is not None:
            on_begin, on_step = journal.observers(on_begin, on_step)
        if match.partial is not None:
            return resume_match(
                match.partial, players, game=game_, external=external, on_begin=on_begin, on_step=on_step
            )
        return run_match(
            game_, players, config=config, seed=seed, preset=preset, on_begin=on_begin, on_step=on_step
        )

    try:
        if live:
            _play_live(
                game,
                players,
                config,
                seed,
                live_port,
                live_linger,
                play=play,
                on_done=report,
                journal=journal,
                external=external,
            )
        else:
            report(play(game))
    finally:
        if journal is not None and not reported:
            journal.close()
            _print_resume_hint(replay)
    if any(reported):
        raise typer.Exit(1)  # the result above stands, but a bot never got to play: say so to scripts


@dataclasses.dataclass
class _PlayedMatch:
    """What `play` plays: a new match from its arguments, or a killed one from its journal."""

    game: Any
    specs: list[str]
    seed: int
    preset: str
    config: Any
    sandbox: bool
    replay: Path | None
    header: dict[str, Any]
    """The journal's resume header (`botarena.commands.resume`)."""
    partial: Any = None
    """The killed match's partial replay (resuming), else None."""
    external: list[dict[str, Any]] = dataclasses.field(default_factory=list)


def _new_match(
    game_id: str | None,
    bots: list[str] | None,
    seed: int | None,
    preset: str,
    settings: list[str],
    config_file: Path | None,
    replay: Path | None,
    sandbox: bool,
) -> _PlayedMatch:
    from botarena.commands.resume import resume_header

    if game_id is None or not bots:
        raise UserError("play needs a GAME and its BOTs (or --resume FILE)")
    game = get_game(game_id)
    game.check_players(len(bots))
    overrides = load_overrides(config_file) if config_file is not None else {}
    overrides.update(parse_override(item) for item in settings)
    config = game.config(preset, overrides)
    if replay is not None:
        _refuse_to_overwrite_a_killed_game(replay)
    seed = secrets.randbelow(2**32) if seed is None else seed
    header = resume_header(bots, game, sandbox=sandbox)
    return _PlayedMatch(game, bots, seed, preset, config, sandbox, replay, header)


def _resumed_match(file: Path) -> _PlayedMatch:
    from botarena.commands.resume import resume_plan

    plan = resume_plan(file)
    partial = plan.partial
    config = plan.game.config("default", partial.config)
    return _PlayedMatch(
        plan.game,
        plan.specs,
        partial.seed,
        partial.preset,
        config,
        plan.sandbox,
        file,
        plan.resume,
        partial,
        plan.external,
    )


def _refuse_to_overwrite_a_killed_game(file: Path) -> None:
    """`--replay FILE` starts its journal at once: never over a game that can still be resumed."""
    from botarena.core.replay import read_replay

    try:
        os.stat(file)
    except OSError as exc:  # no such file (the usual case), or a name no file can have
        if exc.errno == errno.ENAMETOOLONG:
            raise UserError(f"cannot write the replay to {_shortened(str(file))}: {exc.strerror}") from None
        return
    try:
        partial = read_replay(file).partial
    except ReplayError:
        return  # not a replay: overwritten, as before
    if partial:
        raise UserError(
            f"{file} holds a game that did not finish: go on with `botarena play --resume {file}`,"
            " or remove the file to start a new game there"
        )


def _print_resume_hint(file: Path | None) -> None:
    """After a match stopped early: where it stands, and how to go on."""
    from botarena.core.replay import read_replay

    try:
        partial = read_replay(file) if file is not None else None
    except ReplayError:
        return
    if partial is not None and partial.partial:
        print(
            f"botarena: the game stopped after step {len(partial.steps)}; go on with:"
            f" botarena play --resume {file}",
            file=sys.stderr,
        )


class _Stopped(Exception):
    """The live server stopped (Ctrl-C) while its match was being played."""


def _play_live(
    game: Any,
    players: list[Any],
    config: Any,
    seed: int,
    port: int,
    linger_s: float,
    *,
    play: Callable[..., Any],
    on_done: Callable[[Any], None],
    journal: Any = None,
    external: Sequence[dict[str, Any]] = (),
) -> Any:
    """Play the match in the thread of the organizer's server (`botarena.server.app.serve`) on
    127.0.0.1, streaming it to a `LiveHub` through the tournament's `LiveStreamer`: the viewer at the
    printed URL follows it (the config's `turn_interval_ms` paces it). `play(game, on_begin, on_step)`
    plays the match (new or resumed) with those observers. `on_done(run)` gets the
    finished match at once; the server then serves `linger_s` seconds more, and this returns the
    match's `MatchRun`. A game's live routes get `journal` (where they write the inputs they
    accept) and `external` (a resumed game's earlier inputs).
    """
    import dataclasses
    import tempfile
    from types import SimpleNamespace

    from botarena.server.app import ARENA_PAGE, live_events_url, serve
    from botarena.server.live import LiveHub, LockedEngine, live_routes_of
    from botarena.server.spectators import SpectatorGate, SpectatorPolicy
    from botarena.store import Store
    from botarena.tournament.executor import LiveStreamer

    hub = LiveHub()
    gate = SpectatorGate(hub, SpectatorPolicy.open())  # the participant's own match: all of it, live
    stop = threading.Event()
    # the key and the name are public (the live list, the stream's URL): never the seed
    key = f"play/{game.id}-{secrets.token_hex(4)}"
    outcome: dict[str, Any] = {}
    # a game may serve routes of its own for the running match (devops: spec 7.5 bonus codes)
    match = SimpleNamespace(
        engine=None,
        config=config,
        players=players,
        organizer_key=secrets.token_urlsafe(16),
        lock=threading.RLock(),
        journal=journal,  # the routes write what they accept from outside the bots (devops codes)
        external=list(external),  # and a resumed game's routes restore it
    )
    make_routes = live_routes_of(game)
    router = make_routes(match) if make_routes is not None else None
    if router is not None:
        make_engine = game.new_engine

        def new_engine(*args: Any) -> Any:
            # the routes run on the server's threads: the engine's phases hold their lock
            match.engine = LockedEngine(make_engine(*args), match.lock)
            return match.engine

        game = dataclasses.replace(game, new_engine=new_engine)

    def on_ready(url: str) -> None:
        base = url[: -len(ARENA_PAGE)] if url.endswith(ARENA_PAGE) else url.rstrip("/")
        names = ", ".join(bot.name for bot in players)
        streamer = LiveStreamer(key, gate.publish, match=f"{game.id}: {names}")

        def begin(replay: Any) -> None:
            streamer.begin(replay)  # the URL works from now on: print it only now
            print(f"watch live: {base}/index.html?live={live_events_url(key)}", flush=True)
            if router is not None:
                print(f"game routes under {base}/api (organizer key: {match.organizer_key})", flush=True)

        def step(index: int, record: dict[str, Any], engine: Any) -> None:
            if stop.is_set():
                raise _Stopped
            streamer.step(index, record, engine)

        try:
            run = play(game, begin, step)
            streamer.end(run.replay)
            outcome["run"] = run
            on_done(run)  # the result now, not after the linger
        except BaseException as exc:  # reported by the main thread once the server has stopped
            outcome["error"] = exc
            stop.set()
            return
        if linger_s > 0 and not stop.is_set():
            print(f"match over; still serving for {linger_s:g} s (Ctrl-C stops)", flush=True)
            stop.wait(linger_s)
        stop.set()

    with tempfile.TemporaryDirectory(prefix="botarena-live-") as folder:
        store = Store.open(f"sqlite:///{Path(folder) / 'live.db'}", replay_dir=Path(folder) / "replays")
        try:
            routers = [router] if router is not None else []
            serve(
                store,
                host="127.0.0.1",
                port=port,
                hub=hub,
                on_ready=on_ready,
                stop=stop,
                routers=routers,
                spectators=gate,
            )
        finally:
            store.close()
    error = outcome.get("error")
    if isinstance(error, _Stopped) or ("run" not in outcome and error is None):
        raise KeyboardInterrupt
    if error is not None:
        raise error
    return outcome["run"]


def _print_partial(file: Path, replay: Any) -> None:
    """The summary of a journal whose game did not finish (a killed `play`, or one still running)."""
    # seats as every viewer labels them (README "Seats"): "seat N · name", N 0-based
    seats = [f"seat {p.get('seat', i)} · {p.get('name', '?')}" for i, p in enumerate(replay.players)]
    players = ", ".join(seats)
    print(f"{replay.game} · seed {replay.seed} · players {players}")
    print(
        f"partial replay: the game did not finish; {len(replay.steps)} steps recorded"
        f" (if its host was killed: botarena play --resume {file})"
    )


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


STDERR_TAIL_LINES = 5
"""How many of a failing bot's last log lines `play` prints under its report."""


def _print_failures(replay: Any, specs: Sequence[str]) -> bool:
    """A block on stderr for each seat with something to say (`botarena.runner.failures`): status
    counts with the first failure (status, reason, where, detail), the first of each other status,
    what of its replies was lost, then the last lines of its log; the match went on, and the table
    above is its result. True if some seat never played."""
    from botarena.runner.failures import seat_reports

    never = False
    for report in seat_reports(replay, STDERR_TAIL_LINES):
        spec = specs[report.seat] if report.seat < len(specs) else report.name
        bot = report.name if spec == report.name else f"{report.name}, {spec}"
        for index, line in enumerate(report.lines(bot)):
            print(f"botarena: {line}"[:400] if index == 0 else line[:400], file=sys.stderr)
        never = never or report.never_played
    return never


@app.command("config")
def config_command(
    game_id: Annotated[str, typer.Argument(metavar="GAME", help="Game id (see `botarena games`).")],
    preset: Annotated[str, typer.Option(help="Show this preset's values.")] = "default",
    as_json: Annotated[bool, typer.Option("--json", help="Print the keys as JSON.")] = False,
) -> None:
    """List every config key of a game: its value (in --preset), default, what is allowed, meaning."""
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
    _console().print(table)


@app.command("replay")
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
    from botarena.runner.verify import verify_replay

    data = read_replay(file)
    if feed is not None or seat is not None or bot is not None or request is not None or history or full:
        if verify:
            raise UserError("--verify and --feed are separate: give one of them")
        _feed(data, feed, seat, bot, request, history, full)
        return
    if text:
        render = get_game(data.game).text_renderer
        for keyframe in data.keyframes:
            print(f"-- step {keyframe['step']}\n{render(keyframe['state']).rstrip()}")
        return
    if not verify:
        if data.partial:
            _print_partial(file, data)
        else:
            _print_result(data.game, data.seed, data)
        return
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


@app.command("view")
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
    from botarena.games.domains.protocol import import_game_file
    from botarena.server.viewer import serve_viewer

    if html is not None:
        from botarena.server.standalone import StandaloneError, write_standalone_html

        shown = (
            import_game_file(file.read_text(encoding="ascii"), source=file.name)
            if is_game_file(file)
            else read_replay(file)
        )
        try:
            written = write_standalone_html(shown, html)
        except (StandaloneError, OSError) as exc:
            raise UserError(f"cannot write {html}: {exc}") from None
        steps = len(shown.steps)
        print(f"wrote {written}: {shown.game} seed {shown.seed}, {steps} steps; open it in a browser")
        if shown.partial:
            from botarena.server.viewer import partial_summary

            print(f"{partial_summary(shown)}; the page says so")
        return
    if is_game_file(file):  # the original's game file: shown as its web viewer shows it
        replay = import_game_file(file.read_text(encoding="ascii"), source=file.name)
        with tempfile.TemporaryDirectory(prefix="botarena-view-") as folder:
            serve_viewer(write_replay(replay, Path(folder) / f"{file.stem}.json.gz"), host=host, port=port)
        return
    read_replay(file)  # fail early, in one line, on a broken file
    serve_viewer(file, host=host, port=port)


@app.command("devops-service")
def devops_service_command(
    port: Annotated[int | None, typer.Option(help="Port (default: $HTTP_PORT or 8080).")] = None,
    bot: Annotated[str, typer.Option(help="Logic: starter, expander, banker, random or idle.")] = "starter",
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
) -> None:
    """Run the Devops Game starter logic service (POST /moves/base, /moves/unit; GET /logs)."""
    from botarena.games.devops.bots import LOGICS
    from botarena.server.devops.starter_service import serve

    if bot not in LOGICS:
        raise UserError(f"unknown devops logic {bot!r} (known: {', '.join(sorted(LOGICS))})")
    print(f"devops {bot} logic listening on http://{host}:{port or os.environ.get('HTTP_PORT', '8080')}")
    serve(port, bot, host)


# -- tournaments, leaderboards, the organizer's server ---------------------------------------------

ReplaysOption = Annotated[
    str | None,
    typer.Option(
        "--replays",
        envvar="BOTARENA_REPLAYS",
        metavar="db|DIR|file:///DIR",
        help="Where the store keeps replays: db (in the database: a server on any machine that reaches "
        "it shows them), a directory, or file:///shared/dir (a location every machine mounts; workers "
        "write the replays there themselves). Default: replays/ next to a SQLite file; the database "
        "for PostgreSQL.",
    ),
]


def _entrants(items: list[str]) -> list[Any]:
    """`NAME=SPEC` or a bare spec (named after the starter, file stem, URL host or command)."""
    from botarena.tournament.service import Entrant

    entrants: list[Entrant] = []
    taken: set[str] = set()
    for item in (part.strip() for raw in items for part in raw.split(",")):
        if not item:
            continue
        name, sep, spec = item.partition("=")
        if not sep or " " in name or "/" in name:
            name, spec = _default_name(item), item
        if not name or not spec:
            raise UserError(f"bad entrant {item!r}: write NAME=SPEC or a bot spec")
        base, n = name, 1
        while name in taken:
            n += 1
            name = f"{base}-{n}"
        taken.add(name)
        entrants.append(Entrant(name, spec))
    return entrants


def _default_name(spec: str) -> str:
    if spec.startswith(("http://", "https://")):
        from urllib.parse import urlsplit

        return urlsplit(spec).netloc or spec
    command = spec[4:] if spec.startswith("cmd:") else spec
    last = command.split()[-1] if command.split() else command
    return Path(last).stem or last


def _open_store(db: str | None, db_file: Path | None, replays: str | None = None) -> Any:
    """The store that `--db`/`BOTARENA_DB` or `--db-file` names (commands/secret_options.py), its
    replays where `replays` says (store/replays.py; None: the default)."""
    from botarena.store import Store, StoreError

    try:
        return Store.open(store_url(db, db_file), replays=replays)
    except StoreError as exc:
        if "no password supplied" not in str(exc):
            raise
        raise StoreError(f"{exc} (give it in BOTARENA_DB, --db-file FILE, PGPASSWORD or ~/.pgpass)") from None


def _find_tournament(store: Any, which: str | None) -> Any:
    if which is None:
        found = store.list_tournaments()
        if not found:
            raise UserError(f"no tournaments in {store.url}")
        return found[0]
    tournament = store.get_tournament(int(which)) if which.isdigit() else None
    tournament = tournament or store.find_tournament(which)
    if tournament is None:
        raise UserError(f"no tournament {which!r} in {store.url}")
    return tournament


def _live_target(url: str | None, token: str | None) -> tuple[str | None, str | None]:
    """(url, token) checked for `tournament --live-url`; a URL without a token is a one-line error."""
    from botarena.server.ingest import check_live_token
    from botarena.tournament.live_http import check_live_url

    if url is None:
        return None, None
    if not token:
        raise UserError(
            "--live-url needs the server's live token: give it in BOTARENA_LIVE_TOKEN or"
            " --live-token-file FILE"
        )
    return check_live_url(url), check_live_token(token)


UnsandboxedOption = Annotated[
    bool,
    typer.Option(
        "--unsandboxed",
        help="Run entrants' bot processes without the sandbox (only for code you trust; docs/security.md).",
    ),
]


def _sealed_players(specs: Sequence[str], game: Any, isolation: Any) -> list[Any]:
    """`play --sandbox`'s bots, run as a tournament's worker runs them: each bot's files packed into
    an artifact and unpacked in the artifact cache (read-only, modes 0644/0755), so that the bot sees
    what it would see in a tournament, and the sandbox's own uid can read it whatever the modes of
    the originals (a 0600 file, a 0700 folder). Each keeps the name its spec gives it."""
    from botarena.bots.artifacts import ArtifactCache, materialize, pack_spec
    from botarena.bots.resolve import resolve_bot

    cache = ArtifactCache()
    players = []
    for spec in specs:
        packed = pack_spec(spec, game)
        if packed is None:  # a starter, a URL, a command of system programs: nothing to pack
            players.append(resolve_bot(spec, game, isolation=isolation))
            continue
        folder = cache.unpacked(packed.digest, _bytes_of(packed.data))
        bot = resolve_bot(materialize(packed.run_spec, folder), game, isolation=isolation)
        path = Path(spec)
        bot.name = path.absolute().name if path.is_dir() else path.stem if path.is_file() else bot.name
        players.append(bot)
    return players


def _bytes_of(data: bytes) -> Callable[[str], bytes]:
    """An artifact fetcher that has the bytes at hand (the cache still checks them against the digest)."""
    return lambda _digest: data


def _isolation(sandboxed: bool) -> Any:
    """The Isolation for strangers' code: sandboxed (refused in one line if the sandbox is missing)."""
    from botarena.bots.resolve import untrusted
    from botarena.bots.sandbox import SandboxPolicy, check_sandbox

    if not sandboxed:
        return untrusted(sandbox=None)
    policy = SandboxPolicy()
    check_sandbox(policy)  # SandboxUnavailable: one line naming the missing piece, exit code 2
    return untrusted(sandbox=policy)


@app.command("tournament")
def tournament_command(
    game_id: Annotated[
        str | None, typer.Argument(metavar="GAME", help="Game id (not with --resume).")
    ] = None,
    bots: Annotated[
        list[str] | None,
        typer.Option("--bots", "-b", metavar="[NAME=]BOT", help="Entrants, repeatable or comma-separated."),
    ] = None,
    format_: Annotated[
        str,
        typer.Option(
            "--format",
            help="round-robin, drones_2018_event (drones: the 2018 event, spec 2.3; alias drones-2018), "
            "swiss, single-elimination or ladder.",
        ),
    ] = "round-robin",
    workers: Annotated[int, typer.Option(help="Local worker processes (0: play in this process).")] = 2,
    dask: Annotated[
        str | None, typer.Option(help="Run matches on the Dask scheduler at this address.")
    ] = None,
    db: DbOption = None,
    db_file: DbFileOption = None,
    replays: ReplaysOption = None,
    name: Annotated[str | None, typer.Option(help="Tournament name (default: GAME-FORMAT-time).")] = None,
    resume: Annotated[
        str | None, typer.Option(help="Resume the tournament of this name or id (e.g. after a kill).")
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            help="Tournament seed: every match seed derives from it, so it is shown only once the "
            "tournament is over (default: a random one, kept in the store)."
        ),
    ] = None,
    preset: Annotated[
        str | None, typer.Option(help="Config preset (drones_2018_event: bravolt2018).")
    ] = None,
    set_: Annotated[
        list[str] | None,
        typer.Option("--set", metavar="KEY=VALUE", help="Override a config key (repeatable)."),
    ] = None,
    config_file: Annotated[
        Path | None, typer.Option("--config", help="A JSON file of config overrides.")
    ] = None,
    players: Annotated[
        int | None, typer.Option(help="Seats per match (default: the game's minimum).")
    ] = None,
    rounds: Annotated[int | None, typer.Option(help="swiss: rounds to play.")] = None,
    cycles: Annotated[int | None, typer.Option(help="round-robin: times each group meets.")] = None,
    matches: Annotated[int | None, typer.Option(help="ladder: matches to play in all.")] = None,
    pace_ms: Annotated[int, typer.Option(help="Sleep after each step (for live spectators).")] = 0,
    progress: Annotated[bool, typer.Option(help="Show the progress bar.")] = True,
    unsandboxed: UnsandboxedOption = False,
    live_url: Annotated[
        str | None,
        typer.Option(
            help="Stream the matches live to the server at this URL, with its live token "
            "(BOTARENA_LIVE_TOKEN or --live-token-file)."
        ),
    ] = None,
    live_token: LiveTokenOption = None,
    live_token_file: LiveTokenFileOption = None,
    fail_on_dead_entrant: Annotated[
        bool,
        typer.Option(
            "--fail-on-dead-entrant",
            help="Exit 1 when an entrant never started in any of its matches (it is always warned of).",
        ),
    ] = False,
) -> None:
    """Run a tournament (or resume one) and print its leaderboard, and who failed in it."""
    from botarena.tournament.service import TournamentPlan, create_tournament

    if workers < 0:
        raise UserError(f"--workers must be 0 or more, got {workers}")
    live = _live_target(live_url, live_token_of(live_token, live_token_file))
    isolation = _isolation(not unsandboxed)
    store = _open_store(db, db_file, replays)
    try:
        if resume is not None:
            if game_id is not None or bots:
                raise UserError("--resume takes no GAME or --bots: they are in the store")
            tournament = _find_tournament(store, resume)
            print(f"resuming tournament {tournament.id} {tournament.name!r} ({tournament.status})")
        else:
            if game_id is None:
                raise UserError("name a GAME (see `botarena games`), or --resume a tournament")
            get_game(game_id)
            overrides = load_overrides(config_file) if config_file is not None else {}
            overrides.update(parse_override(item) for item in set_ or [])
            options = {
                key: value
                for key, value in (("rounds", rounds), ("cycles", cycles), ("matches", matches))
                if value is not None
            }
            if pace_ms:
                options["pace_ms"] = pace_ms
            plan = TournamentPlan(
                name=name or f"{game_id}-{format_}-{time.strftime('%Y%m%d-%H%M%S')}",
                game=game_id,
                format=format_,
                entrants=_entrants(bots or []),
                # a guessable seed (0 was the default) would give away every match seed however
                # well the server keeps it (DESIGN principle 7)
                seed=secrets.randbelow(2**63) if seed is None else seed,
                preset=preset,
                overrides=overrides,
                options=options,
                players=players,
            )
            tournament = create_tournament(store, plan, isolation=isolation)
            print(
                f"tournament {tournament.id} {tournament.name!r}: {len(plan.entrants)} entrants, {store.url}"
            )
        summary = _run_with_progress(store, tournament, workers, dask, progress, isolation, live)
        unplayed = f", {summary.unplayed} not played" if summary.unplayed else ""
        failing = len(summary.failing)
        entrants = f", {failing} {'entrant' if failing == 1 else 'entrants'} failing:" if failing else ""
        print(
            f"{summary.status}: {summary.played} matches played now, {summary.failed} failed{unplayed}, "
            f"{summary.total_finished} recorded in all, {summary.seconds:.1f} s{entrants}"
        )
        for entrant in summary.failing:
            print(f"  {entrant.name}: {entrant.line()}")
        _print_leaderboard(store, tournament.id, failure_lines=False)
    finally:
        store.close()
    _warn_dead_entrants(summary.dead)
    if summary.reason is not None:  # after the leaderboard: the last line says what went wrong
        print(
            f"botarena: {summary.unplayed} matches could not be played: {summary.reason};"
            f" once that is fixed, `botarena tournament --resume {tournament.id}` (with the same --db)"
            " plays them",
            file=sys.stderr,
        )
        raise typer.Exit(1)
    if summary.dead and fail_on_dead_entrant:
        raise typer.Exit(1)


def _warn_dead_entrants(dead: Sequence[Any]) -> None:
    """A bold warning on stderr for each entrant that never started in any of its matches: its
    results are all losses by default, which a leaderboard alone would never explain."""
    from rich.console import Console
    from rich.markup import escape

    if not dead:
        return
    console = Console(stderr=True, highlight=False)
    for entrant in dead:
        console.print(
            escape(
                f"botarena: WARNING: entrant {entrant.name!r} never started in any of its "
                f"{entrant.played} matches: {entrant.first_text()}"
            ),
            style="bold red",
            soft_wrap=True,  # one line per entrant, whatever the terminal's width (scripts grep it)
        )


def _run_with_progress(
    store: Any,
    tournament: Any,
    workers: int,
    dask: str | None,
    show: bool,
    isolation: Any,
    live: tuple[str | None, str | None] = (None, None),
) -> Any:
    import contextlib
    from functools import partial

    from botarena.core.credentials import WorkerSecrets
    from botarena.tournament.executor import close_executor, make_executor
    from botarena.tournament.progress import TournamentProgress
    from botarena.tournament.service import run_tournament

    # a local pool's workers get the store's password and the live token through their initializer,
    # never in a task (botarena.core.credentials); Dask workers have theirs in their environment
    secrets = WorkerSecrets.of(store.connect_url, live)
    factory = partial(make_executor, workers, dask, credentials=secrets) if (dask or workers) else None
    executor = factory() if factory else None
    bar = TournamentProgress(tournament.name) if show else None
    finished = False
    try:
        with bar or contextlib.nullcontext():
            summary = run_tournament(
                store,
                tournament.id,
                executor,
                progress=bar,
                executor_factory=factory,
                isolation=isolation,
                live_url=live[0],
                live_token=live[1],
            )
        finished = True
        return summary
    finally:
        if executor is not None:  # on Ctrl-C, matches under way are dropped: --resume plays them
            close_executor(executor, cancel=not finished)


def _counts_text(entrant: Mapping[str, Any]) -> str:
    """An entrant's failure counts from the leaderboard's JSON, e.g. "crashed 3/3"."""
    from botarena.tournament.failures import KINDS, LABELS

    counts, played = entrant.get("counts") or {}, entrant.get("played", 0)
    return ", ".join(f"{LABELS[kind]} {counts[kind]}/{played}" for kind in KINDS if counts.get(kind))


def _print_leaderboard(store: Any, tournament_id: int, *, failure_lines: bool = True) -> None:
    """The leaderboard's tables; the failing entrants' counts in a column and, unless
    `failure_lines` is False (the caller printed them), each one's first failure under the table."""
    from rich.table import Table

    from botarena.tournament.service import tournament_leaderboard

    data = tournament_leaderboard(store, tournament_id)
    info, board = data["tournament"], data["leaderboard"]
    table = Table(title=f"{info['name']} · {info['game']} · {info['format']} · {info['status']}")
    from rich.markup import escape

    # a bot's exception text is no markup ("KeyError: ['x']")
    failing = board.get("failures") or []
    failures = {entrant["name"]: escape(_counts_text(entrant)) for entrant in failing}
    columns = ("rank", "bot", "ordinal", "mu", "sigma", "played", "W", "D", "L", "points")
    for column in (*columns, "failures") if failures else columns:
        table.add_column(column, justify="left" if column in ("bot", "failures") else "right")
    for row in board["rows"]:
        extra = (failures.get(row["name"], ""),) if failures else ()
        table.add_row(
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
            *extra,
        )
    console = _console()
    console.print(table)
    if failure_lines and failing:
        print("failures (the first of each entrant):")
        for entrant in failing:  # plain lines, never wrapped into a narrow column
            print(f"  {entrant['name']}: {entrant['line']}")
    standings = board.get("standings")
    if standings:
        table = Table(title="2018 event standings (spec 6.3)")
        for column in ("rank", "bot", "points", "W", "D", "L", "rounds W/L/D", "round +/-"):
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
        console.print(table)
        summary, notes = board.get("standings_summary") or {}, board.get("standings_notes") or []
        _print_event_summary(console, summary, notes)
    game_table = board.get("game_standings")
    if game_table:
        console.print(_standings_table(game_table))


def _print_event_summary(console: Any, summary: dict[str, dict[str, str]], notes: list[str]) -> None:
    """The 2018 event's per-opponent lines (spec 6.3), e.g. `vs Zergy: WIN (W:792/ L:208/ D:0)`,
    then the standings notes (every entrant is played, unlike at the event)."""
    from rich.markup import escape

    for entrant, results in summary.items():
        if results:
            console.print(escape(f"{entrant}:"))
            for opponent, text in results.items():
                console.print(escape(f"  vs {opponent}: {text}"))
    for note in notes:
        console.print(escape(f"note: {note}"))


def _standings_cell(value: Any) -> str:
    """A game standings value as text: yes/no for a flag, `:g` for a fraction, – for nothing."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _standings_table(game_table: dict[str, Any]) -> Any:
    """A game's own standings (`leaderboard["game_standings"]`: title, columns, rows) as a rich table."""
    from rich.table import Table

    table = Table(title=str(game_table["title"]))
    columns = game_table["columns"]
    for column in columns:
        text = any(isinstance(row.get(column["key"]), str) for row in game_table["rows"])
        table.add_column(str(column["label"]), justify="left" if text else "right", no_wrap=text)
    for row in game_table["rows"]:
        table.add_row(*(_standings_cell(row.get(column["key"])) for column in columns))
    return table


@app.command("leaderboard")
def leaderboard_command(
    tournament: Annotated[
        str | None, typer.Argument(metavar="[TOURNAMENT]", help="Name or id (default: the newest).")
    ] = None,
    db: DbOption = None,
    db_file: DbFileOption = None,
    replays: ReplaysOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the leaderboard as JSON.")] = False,
) -> None:
    """Print a tournament's leaderboard: ratings, results, standings."""
    from botarena.tournament.service import tournament_leaderboard

    store = _open_store(db, db_file, replays)
    try:
        found = _find_tournament(store, tournament)
        if as_json:
            import orjson

            sys.stdout.write(
                orjson.dumps(tournament_leaderboard(store, found.id), option=orjson.OPT_INDENT_2).decode()
            )
            sys.stdout.write("\n")
        else:
            _print_leaderboard(store, found.id)
    finally:
        store.close()


@app.command("serve")
def serve_command(
    db: DbOption = None,
    db_file: DbFileOption = None,
    replays: ReplaysOption = None,
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (0: pick a free one).")] = 8000,
    demo: Annotated[
        bool, typer.Option("--demo", help="Also run a round robin of every game's starter bots.")
    ] = False,
    workers: Annotated[int, typer.Option(help="--demo: worker processes (0: in the server).")] = 2,
    pace_ms: Annotated[
        int, typer.Option(help="--demo: sleep after each step, so matches can be watched.")
    ] = 20,
    seed: Annotated[int, typer.Option(help="--demo: the first demo cycle's tournament seed.")] = 1,
    demo_cycles: Annotated[
        int,
        typer.Option(help="--demo: how many cycles of demo tournaments to play (0: until stopped)."),
    ] = 0,
    demo_keep: Annotated[
        int | None,
        typer.Option(
            help="--demo: how many demo cycles to keep (default 3), the one being played included; "
            "older demo tournaments are deleted with their matches and replays (no other tournament "
            "ever is)."
        ),
    ] = None,
    unsandboxed: UnsandboxedOption = False,
    live_token: LiveTokenOption = None,
    live_token_file: LiveTokenFileOption = None,
    live_policy: Annotated[
        str | None,
        typer.Option(
            "--live-policy",
            metavar="after|delayed|organizer|open",
            help="What spectators see of a running match of a hidden-information game (drones, "
            "devops, datspulse, craftingquest): after (the default: nothing of it until it ends), "
            "delayed (--live-delay steps behind), organizer (only with the organizer key) or open "
            "(as it is played: every entrant could watch its rivals). domains and rps are always "
            "live. --demo's own matches are open unless this is given.",
        ),
    ] = None,
    live_delay: Annotated[
        int | None,
        typer.Option("--live-delay", help="--live-policy delayed: how many steps behind (default 30)."),
    ] = None,
    organizer_key: OrganizerKeyOption = None,
    organizer_key_file: OrganizerKeyFileOption = None,
) -> None:
    """Serve leaderboards, matches, replays and live matches (the organizer's web server).

    With --demo it plays cycles of round robins of every game's starter bots while it serves, one
    seed after another (a cycle an earlier run left unfinished is resumed), so there is always a
    match to watch live; it keeps the last --demo-keep cycles and deletes older demo tournaments.
    With a live token (BOTARENA_LIVE_TOKEN or --live-token-file), tournaments run elsewhere
    (`botarena tournament --live-url`, Dask workers) stream their matches to it. Their live view
    follows --live-policy; the organizer key (BOTARENA_ORGANIZER_KEY or --organizer-key-file) sees
    every match whole, as it is played."""

    from botarena.server.app import serve
    from botarena.server.live import LiveHub
    from botarena.server.secrecy import check_organizer_key
    from botarena.server.spectators import LivePolicy, SpectatorGate, SpectatorPolicy
    from botarena.tournament.service import DEMO_KEEP, DemoCycle, run_demo_cycles

    if workers < 0 or pace_ms < 0 or demo_cycles < 0:
        raise UserError("--workers, --pace-ms and --demo-cycles must be 0 or more")
    keep = DEMO_KEEP if demo_keep is None else demo_keep
    if keep < 1:
        raise UserError(f"--demo-keep must be 1 or more (the cycle being played counts), got {keep}")
    policy = SpectatorPolicy.parse(live_policy or LivePolicy.AFTER.value, live_delay)
    if live_delay is not None and policy.mode is not LivePolicy.DELAYED:
        raise UserError("--live-delay is for --live-policy delayed")
    # the demo plays the games' own starter bots: nobody's secret to keep, so it is watchable live
    demo_policy = policy if live_policy is not None else SpectatorPolicy.open()
    live_token = live_token_of(live_token, live_token_file)
    if live_token is not None:
        from botarena.server.ingest import check_live_token

        check_live_token(live_token)
    organizer_key = organizer_key_of(organizer_key, organizer_key_file)
    if organizer_key is not None:
        check_organizer_key(organizer_key)
    isolation = _isolation(not unsandboxed)
    store = _open_store(db, db_file, replays)
    hub = LiveHub()
    gate = SpectatorGate(hub, policy, organizer=LiveHub(public=False) if organizer_key else None)
    stop = threading.Event()

    def on_ready(url: str) -> None:
        print(f"botarena arena: {store.url}", flush=True)
        print(url, flush=True)
        if live_token is not None:
            print("live ingest enabled: tournaments elsewhere can stream with --live-url", flush=True)
        print(f"live policy: {policy.describe()}", flush=True)
        if demo and demo_policy != policy:
            print("  (the demo's own matches are open: only starter bots play them)", flush=True)
        if organizer_key is not None:
            print("organizer key: requests with it in X-Organizer-Key see every match whole", flush=True)
        if not demo:
            return
        print(
            f"running the demo tournaments, keeping the last {keep} cycles (Ctrl-C stops the server)...",
            flush=True,
        )

        def cycle_done(cycle: DemoCycle) -> None:
            gone = cycle.deleted
            if gone.tournaments:
                print(
                    f"deleted {gone.tournaments} older demo tournaments ({gone.matches} matches,"
                    f" {gone.replays} replays)",
                    flush=True,
                )
            if cycle.played and not stop.is_set():
                print(f"demo cycle {cycle.seed} finished ({cycle.played} matches played)", flush=True)

        try:
            run_demo_cycles(
                store,
                seed=seed,
                cycles=demo_cycles,
                keep=keep,
                workers=workers,
                pace_ms=pace_ms,
                live=gate.sink(demo_policy),
                stop=stop,
                isolation=isolation,
                on_cycle=cycle_done,
            )
        except Exception as exc:  # the server goes on serving what was recorded
            print(f"botarena: the demo stopped: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
            return
        if not stop.is_set():
            print(f"demo tournaments finished; still serving {url}", flush=True)

    if demo:
        _exit_anyway_after(stop, DEMO_EXIT_DEADLINE_S)
    try:
        serve(
            store,
            host=host,
            port=port,
            hub=hub,
            on_ready=on_ready,
            stop=stop,
            live_token=live_token,
            organizer_key=organizer_key,
            spectators=gate,
        )
    finally:
        store.close()
    _exit_if_the_demo_lingers()


DEMO_EXIT_DEADLINE_S = 60.0
"""How long `serve --demo` may take to exit once told to stop, whatever holds it up."""


def _exit_anyway_after(stop: threading.Event, deadline_s: float) -> None:
    """Once `stop` is set (Ctrl-C, SIGTERM), give the process `deadline_s` to exit; then print every
    thread's stack on stderr (to find what held it) and exit. `serve --demo` has been seen, rarely
    and not reproducibly, to stay up after Ctrl-C with its demo thread already gone; the demo's
    results are recorded as each match ends, so nothing recorded is lost, and a restart resumes."""
    import faulthandler

    def watch() -> None:
        stop.wait()
        threading.Event().wait(deadline_s)  # a daemon thread: a normal exit never waits for it
        print(
            f"botarena: still running {deadline_s:.0f} s after the stop; exiting"
            " (the threads' stacks follow)",
            file=sys.stderr,
            flush=True,
        )
        faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
        os._exit(0)

    threading.Thread(target=watch, name="botarena-exit-watchdog", daemon=True).start()


def _exit_if_the_demo_lingers() -> None:
    """After Ctrl-C the demo had `serve`'s stop timeout to end its matches. If it still runs, a
    process pool's exit handler would wait for its workers without end: exit now instead (the
    workers die with this process, and a restart resumes the unfinished tournaments, whose results
    are recorded exactly once)."""

    from botarena.server.app import ON_READY_THREAD

    if any(thread.name == ON_READY_THREAD and thread.is_alive() for thread in threading.enumerate()):
        print(
            "botarena: the demo's matches did not stop in time; exiting without them"
            " (a restart resumes them)",
            file=sys.stderr,
            flush=True,
        )
        sys.stdout.flush()
        os._exit(0)


app.add_typer(__import__("botarena.server.datspulse.cli", fromlist=["app"]).app, name="datspulse")
app.add_typer(__import__("botarena.commands.domains", fromlist=["app"]).app, name="domains")


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
        return f"{exc.strerror}: {_shortened(shown)}"
    return str(exc)


def _shortened(text: str, limit: int = 120) -> str:
    """`text`, or its start and end around an ellipsis when it is longer than `limit`."""
    if len(text) <= limit:
        return text
    keep = (limit - 3) // 2
    return f"{text[:keep]}...{text[-keep:]}"


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
            print(f"botarena: error: {_shortened(missing_module_message(exc), 400)}", file=sys.stderr)
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
