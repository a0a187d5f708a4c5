"""`botarena tournament GAME --bots ...` (run or --resume a tournament, print its leaderboard and who
failed in it) and `botarena leaderboard [TOURNAMENT]` (print one, as tables or --json)."""

from __future__ import annotations

import dataclasses
import secrets
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from botarena.commands.common import (
    ReplaysOption,
    SetOption,
    UnsandboxedOption,
    UserError,
    config_overrides,
    find_tournament,
    isolation,
    open_store,
)
from botarena.commands.secret_options import (
    DbFileOption,
    DbOption,
    LiveTokenFileOption,
    LiveTokenOption,
    live_token_of,
)
from botarena.core.registry import get_game

GameArgument = Annotated[str | None, typer.Argument(metavar="GAME", help="Game id (not with --resume).")]
BotsOption = Annotated[
    list[str] | None,
    typer.Option("--bots", "-b", metavar="[NAME=]BOT", help="Entrants, repeatable or comma-separated."),
]
FormatOption = Annotated[
    str,
    typer.Option(
        "--format",
        help="round-robin, drones_2018_event (drones: the 2018 event, spec 2.3; alias drones-2018), "
        "swiss, single-elimination or ladder.",
    ),
]
WorkersOption = Annotated[int, typer.Option(help="Local worker processes (0: play in this process).")]
DaskOption = Annotated[str | None, typer.Option(help="Run matches on the Dask scheduler at this address.")]
NameOption = Annotated[str | None, typer.Option(help="Tournament name (default: GAME-FORMAT-time).")]
ResumeOption = Annotated[
    str | None, typer.Option(help="Resume the tournament of this name or id (e.g. after a kill).")
]
SeedOption = Annotated[
    int | None,
    typer.Option(
        help="Tournament seed: every match seed derives from it, so it is shown only once the "
        "tournament is over (default: a random one, kept in the store)."
    ),
]
PresetOption = Annotated[str | None, typer.Option(help="Config preset (drones_2018_event: bravolt2018).")]
ConfigFileOption = Annotated[Path | None, typer.Option("--config", help="A JSON file of config overrides.")]
PlayersOption = Annotated[int | None, typer.Option(help="Seats per match (default: the game's minimum).")]
RoundsOption = Annotated[int | None, typer.Option(help="swiss: rounds to play.")]
CyclesOption = Annotated[int | None, typer.Option(help="round-robin: times each group meets.")]
MatchesOption = Annotated[int | None, typer.Option(help="ladder: matches to play in all.")]
PaceOption = Annotated[int, typer.Option(help="Sleep after each step (for live spectators).")]
ProgressOption = Annotated[bool, typer.Option(help="Show the progress bar.")]
LiveUrlOption = Annotated[
    str | None,
    typer.Option(
        help="Stream the matches live to the server at this URL, with its live token "
        "(BOTARENA_LIVE_TOKEN or --live-token-file)."
    ),
]
FailOnDeadOption = Annotated[
    bool,
    typer.Option(
        "--fail-on-dead-entrant",
        help="Exit 1 when an entrant never started in any of its matches (it is always warned of).",
    ),
]


def tournament_command(
    game_id: GameArgument = None,
    bots: BotsOption = None,
    format_: FormatOption = "round-robin",
    workers: WorkersOption = 2,
    dask: DaskOption = None,
    db: DbOption = None,
    db_file: DbFileOption = None,
    replays: ReplaysOption = None,
    name: NameOption = None,
    resume: ResumeOption = None,
    seed: SeedOption = None,
    preset: PresetOption = None,
    set_: SetOption = None,
    config_file: ConfigFileOption = None,
    players: PlayersOption = None,
    rounds: RoundsOption = None,
    cycles: CyclesOption = None,
    matches: MatchesOption = None,
    pace_ms: PaceOption = 0,
    progress: ProgressOption = True,
    unsandboxed: UnsandboxedOption = False,
    live_url: LiveUrlOption = None,
    live_token: LiveTokenOption = None,
    live_token_file: LiveTokenFileOption = None,
    fail_on_dead_entrant: FailOnDeadOption = False,
) -> None:
    """Run a tournament (or resume one) and print its leaderboard, and who failed in it."""
    if workers < 0:
        raise UserError(f"--workers must be 0 or more, got {workers}")
    live = _live_target(live_url, live_token_of(live_token, live_token_file))
    sealed = isolation(not unsandboxed)
    store = open_store(db, db_file, replays)
    try:
        if resume is not None:
            if game_id is not None or bots:
                raise UserError("--resume takes no GAME or --bots: they are in the store")
            tournament = find_tournament(store, resume)
            print(f"resuming tournament {tournament.id} {tournament.name!r} ({tournament.status})")
        else:
            if game_id is None:
                raise UserError("name a GAME (see `botarena games`), or --resume a tournament")
            get_game(game_id)
            plan = _plan(game_id, format_, bots, name, seed, preset, config_overrides(config_file, set_))
            options = {"rounds": rounds, "cycles": cycles, "matches": matches, "pace_ms": pace_ms or None}
            chosen = {key: value for key, value in options.items() if value is not None}
            plan = dataclasses.replace(plan, options=chosen, players=players)
            tournament = _created(store, plan, sealed)
        summary = _run_with_progress(store, tournament, workers, dask, progress, sealed, live)
        _print_summary(summary)
        print_leaderboard(store, tournament.id, failure_lines=False)
    finally:
        store.close()
    _warn_dead_entrants(summary.dead)
    _exit_code(summary, tournament.id, fail_on_dead_entrant)


def _plan(
    game_id: str,
    format_: str,
    bots: list[str] | None,
    name: str | None,
    seed: int | None,
    preset: str | None,
    overrides: dict[str, Any],
) -> Any:
    """A new tournament's plan from the command line (the caller adds its options and seats)."""
    from botarena.tournament.service import TournamentPlan

    return TournamentPlan(
        name=name or f"{game_id}-{format_}-{time.strftime('%Y%m%d-%H%M%S')}",
        game=game_id,
        format=format_,
        entrants=_entrants(bots or []),
        # a guessable seed (0 was the default) would give away every match seed however well the
        # server keeps it (DESIGN principle 7)
        seed=secrets.randbelow(2**63) if seed is None else seed,
        preset=preset,
        overrides=overrides,
    )


def _created(store: Any, plan: Any, sealed: Any) -> Any:
    from botarena.tournament.service import create_tournament

    tournament = create_tournament(store, plan, isolation=sealed)
    print(f"tournament {tournament.id} {tournament.name!r}: {len(plan.entrants)} entrants, {store.url}")
    return tournament


def _print_summary(summary: Any) -> None:
    """What this run played, then one line per failing entrant."""
    unplayed = f", {summary.unplayed} not played" if summary.unplayed else ""
    failing = len(summary.failing)
    entrants = f", {failing} {'entrant' if failing == 1 else 'entrants'} failing:" if failing else ""
    print(
        f"{summary.status}: {summary.played} matches played now, {summary.failed} failed{unplayed}, "
        f"{summary.total_finished} recorded in all, {summary.seconds:.1f} s{entrants}"
    )
    for entrant in summary.failing:
        print(f"  {entrant.name}: {entrant.line()}")


def _exit_code(summary: Any, tournament_id: int, fail_on_dead_entrant: bool) -> None:
    """Exit 1 when matches were left unplayed (the last line says why), or with
    --fail-on-dead-entrant when an entrant never started."""
    if summary.reason is not None:  # after the leaderboard: the last line says what went wrong
        print(
            f"botarena: {summary.unplayed} matches could not be played: {summary.reason};"
            f" once that is fixed, `botarena tournament --resume {tournament_id}` (with the same --db)"
            " plays them",
            file=sys.stderr,
        )
        raise typer.Exit(1)
    if summary.dead and fail_on_dead_entrant:
        raise typer.Exit(1)


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
    sealed: Any,
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
    credentials = WorkerSecrets.of(store.connect_url, live)
    factory = partial(make_executor, workers, dask, credentials=credentials) if (dask or workers) else None
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
                isolation=sealed,
                live_url=live[0],
                live_token=live[1],
            )
        finished = True
        return summary
    finally:
        if executor is not None:  # on Ctrl-C, matches under way are dropped: --resume plays them
            close_executor(executor, cancel=not finished)


def print_leaderboard(store: Any, tournament_id: int, *, failure_lines: bool = True) -> None:
    """The tournament's leaderboard as tables (`botarena.tournament.leaderboard_text`)."""
    from botarena.tournament.leaderboard_text import print_leaderboard as print_tables
    from botarena.tournament.service import tournament_leaderboard

    print_tables(tournament_leaderboard(store, tournament_id), failure_lines=failure_lines)


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
    import orjson

    from botarena.tournament.service import tournament_leaderboard

    store = open_store(db, db_file, replays)
    try:
        found = find_tournament(store, tournament)
        if as_json:
            data = tournament_leaderboard(store, found.id)
            sys.stdout.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode())
            sys.stdout.write("\n")
        else:
            print_leaderboard(store, found.id)
    finally:
        store.close()
