"""`botarena arena ...`: the organizer's bootstrap of a hosted competition (specs/arena.md).

    botarena arena create GAME --name N [--preset P] [--players K | --world] [--config FILE] --db URL
    botarena arena team add NAME --competition C --db URL
    botarena arena team import teams.csv --competition C --db URL
    botarena arena run --competition C --db URL --workers N | --dask ADDR [--live-url U]
    botarena arena rerate --competition C --db URL [--write]

Each prints the tokens it makes once (the store keeps only their hashes). Every check (game, preset,
config keys, players, team names, the CSV) is made before the store is written: a mistake is one
line on stderr and exit code 2 with nothing written. The work is `botarena.arena.competitions`'.
"""

from __future__ import annotations

import csv
import io
import logging
import sys
import time
from concurrent.futures import Executor
from pathlib import Path
from typing import Annotated, Any

import typer

from botarena.commands.common import UserError, open_store
from botarena.commands.secret_options import (
    DbFileOption,
    DbOption,
    LiveTokenFileOption,
    LiveTokenOption,
    live_token_of,
)

app = typer.Typer(
    name="arena",
    help="Host a competition: create it, add or import its teams (each token is printed once).",
    no_args_is_help=True,
    add_completion=False,
)
team_app = typer.Typer(name="team", help="Add or import a competition's teams.", no_args_is_help=True)
app.add_typer(team_app, name="team")

NameOption = Annotated[str, typer.Option("--name", help="The competition's name (unique in the store).")]
PresetOption = Annotated[str | None, typer.Option(help="The game's config preset (default: default).")]
PlayersOption = Annotated[int | None, typer.Option(help="Seats per match (default: the game's minimum).")]
WorldOption = Annotated[
    bool,
    typer.Option(
        "--world", help="One match of every ready team at a time (up to --players or the game's most)."
    ),
]
ConfigOption = Annotated[Path | None, typer.Option("--config", help="A JSON file of config overrides.")]
CompetitionOption = Annotated[str, typer.Option("--competition", help="The competition's id or name.")]


@app.command("create")
def create_command(
    game_id: Annotated[str, typer.Argument(metavar="GAME", help="Game id (see `botarena games`).")],
    name: NameOption,
    preset: PresetOption = None,
    players: PlayersOption = None,
    world: WorldOption = False,
    config_file: ConfigOption = None,
    db: DbOption = None,
    db_file: DbFileOption = None,
) -> None:
    """Create a competition (phase draft) and print its id and the organizer's token, once."""
    from botarena.arena.competitions import check_name, check_setup, create_competition
    from botarena.core.config import load_overrides

    overrides = load_overrides(config_file) if config_file is not None else {}
    setup = check_setup(game_id, preset=preset, players=players, world=world, config=overrides)
    check_name(name, "competition")
    arena = _arena(db, db_file)
    try:
        competition, token = create_competition(arena, name, setup, actor="cli")
    finally:
        arena.store.close()
    shape = f"world of up to {setup.players}" if world else f"matches of {setup.players}"
    print(
        f"competition {competition.id} {competition.name!r}: {setup.game}, preset {setup.preset}, "
        f"{shape} players, phase {competition.phase} ({arena.store.url})"
    )
    print(f"organizer token (shown once, keep it secret): {token.text}")


@team_app.command("add")
def team_add_command(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The team's name.")],
    competition: CompetitionOption,
    db: DbOption = None,
    db_file: DbFileOption = None,
) -> None:
    """Add a team and print its token, once."""
    from botarena.arena.competitions import add_team, check_name

    check_name(name)
    arena = _arena(db, db_file)
    try:
        found = _competition(arena, competition)
        team, token = add_team(arena, found.id, name, actor="cli")
    finally:
        arena.store.close()
    print(f"team {team.id} {team.name!r} in competition {found.id} {found.name!r}")
    print(f"team token (shown once, give it to the team): {token.text}")


@team_app.command("import")
def team_import_command(
    teams_csv: Annotated[
        Path, typer.Argument(metavar="TEAMS.CSV", help="One team name per row (a header `name` is skipped).")
    ],
    competition: CompetitionOption,
    db: DbOption = None,
    db_file: DbFileOption = None,
) -> None:
    """Add every team of a CSV file (all or none) and print `name,token` lines, once."""
    from botarena.arena.competitions import add_teams, read_teams_csv

    names = read_teams_csv(_read_text(teams_csv))
    arena = _arena(db, db_file)
    try:
        found = _competition(arena, competition)
        added = add_teams(arena, found.id, names, actor="cli")
    finally:
        arena.store.close()
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["name", "token"])
    writer.writerows([team.name, token.text] for team, token in added)
    sys.stdout.write(out.getvalue())
    print(f"{len(added)} teams added to competition {found.id} {found.name!r}", file=sys.stderr)


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise UserError(f"teams file {path}: not UTF-8 text") from None
    except OSError as exc:
        raise UserError(f"cannot read teams file {path}: {exc.strerror or exc}") from None


def _arena(db: str | None, db_file: Path | None) -> Any:
    from botarena.store.arena import ArenaStore

    return ArenaStore(open_store(db, db_file))


def _competition(arena: Any, which: str) -> Any:
    """The competition of id or name `which`, or UserError."""
    found = arena.get_competition(int(which)) if which.isdigit() else None
    found = found or arena.find_competition(which)
    if found is None:
        raise UserError(f"no competition {which!r} in {arena.store.url}")
    return found


WorkersOption = Annotated[int, typer.Option("--workers", help="Local worker processes (matches at once).")]
DaskOption = Annotated[
    str | None,
    typer.Option("--dask", metavar="ADDR", help="A Dask scheduler's address instead of --workers."),
]
LiveUrlOption = Annotated[
    str | None,
    typer.Option(
        "--live-url", metavar="URL", help="A server to stream matches to (its token: BOTARENA_LIVE_TOKEN)."
    ),
]


@app.command("run")
def run_command(
    competition: CompetitionOption,
    workers: WorkersOption = 2,
    dask: DaskOption = None,
    live_url: LiveUrlOption = None,
    live_token: LiveTokenOption = None,
    live_token_file: LiveTokenFileOption = None,
    db: DbOption = None,
    db_file: DbFileOption = None,
) -> None:
    """Run the competition's coordinator: validations and rated matches, until Ctrl-C (resumable)."""
    from botarena.arena.coordinator import ArenaCoordinator
    from botarena.commands.common import isolation
    from botarena.commands.tournament import _live_target
    from botarena.core.credentials import WorkerSecrets, hold
    from botarena.tournament.executor import close_executor, make_executor

    if workers < 1 and dask is None:
        raise UserError(f"--workers must be 1 or more, got {workers}")
    live = _live_target(live_url, live_token_of(live_token, live_token_file))
    sealed = isolation(True)  # SandboxUnavailable: the sandbox's one-line reason, exit code 2
    arena = _arena(db, db_file)
    store = arena.store
    found = _competition(arena, competition)
    # the pool's workers fetch artifacts from the store and stream to the live server: the secrets
    # go to them through their initializer, never in a task
    secrets = WorkerSecrets.of(store.connect_url, live)
    hold(secrets)
    factory = None if dask else (lambda: make_executor(workers, credentials=secrets))
    executor = make_executor(workers, dask, credentials=secrets)
    if dask:
        try:
            executor = gated_dask(executor, sealed, dask)  # SandboxUnavailable: one line, exit 2
        except BaseException:
            close_executor(executor, cancel=True)
            store.close()
            raise
    stop = _stop_on_signals()
    coordinator = ArenaCoordinator(
        store, found.id, executor, isolation=sealed, executor_factory=factory, stop=stop, live_url=live[0]
    )
    print(f"arena run: competition {found.id} {found.name!r} ({store.url}); Ctrl-C stops", flush=True)
    try:
        summary = coordinator.run()
    finally:
        close_executor(executor, cancel=True)
        store.close()
    if summary.took_over:
        print(f"took over the lock of a coordinator that is gone ({summary.took_over})")
    print(
        f"stopped ({summary.stopped_because}): {summary.rated} rated and {summary.validation_matches} "
        f"validation matches, {summary.validated} versions ready, {summary.rejected} rejected, "
        f"{summary.platform_failures} platform failures retried"
    )


GATE_WAIT_S = 60.0  # how long the workers' sandbox probes may take to answer (only a failure waits)


class GatedDask(Executor):
    """A Dask cluster's executor whose matches go only to the workers that passed the sandbox probe
    (`tournament.dask_gate`, the tournament's own gate): `slots` counts their threads alone, and
    `shutdown` closes the client."""

    def __init__(self, cluster: Executor, gate: Any) -> None:
        self.cluster = cluster  # the DaskExecutor: its client is the gate's
        self.gate = gate

    @property
    def slots(self) -> int:
        """The fit workers' threads now (a worker that joins is probed by the plugin; one that
        fails is logged once and never sent a match)."""
        self.gate.refresh()
        return int(self.gate.slots())

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        return self.gate.executor.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.cluster.shutdown(wait=wait)


def gated_dask(executor: Executor, sealed: Any, address: str) -> Executor:
    """`executor` (a Dask cluster's) behind the sandbox gate: every worker runs `check_sandbox` before
    its first match, as a tournament's do. SandboxUnavailable (exit 2, the workers' one-line reasons)
    when workers answered and none of them can sandbox: `arena run` refuses rather than idle with
    every match retried as a platform failure. Unsandboxed (no policy): `executor` itself."""
    from botarena.bots.sandbox import SandboxUnavailable
    from botarena.tournament import dask_gate
    from botarena.tournament.dask_gate import DaskGate
    from botarena.tournament.executor import dask_client

    client = dask_client(executor)
    if client is None or sealed.sandbox is None:
        return executor
    gate = DaskGate(executor, client, sealed.sandbox)  # probes the workers there now
    deadline = time.monotonic() + GATE_WAIT_S
    # the gate logs each refusal as it first sees it; here they are said once, below, by this command
    quiet = logging.getLogger(dask_gate.__name__)
    quiet.disabled = True
    try:
        gate.refresh()
        while gate.pending and time.monotonic() < deadline:  # workers that joined meanwhile
            time.sleep(0.1)
            gate.refresh()
    finally:
        quiet.disabled = False
    refused = sorted(set(gate.refused.values()))
    if gate.threads and not gate.fit():
        raise SandboxUnavailable(f"no Dask worker at {address} can sandbox bots: {'; '.join(refused)}")
    for worker, reason in sorted(gate.refused.items()):
        print(f"arena run: the Dask worker {worker} takes no matches: {reason}", file=sys.stderr)
    return GatedDask(executor, gate)


def _stop_on_signals() -> Any:
    """An event set by Ctrl-C or SIGTERM: the coordinator stops between two events, and the matches
    running then are played again by the next run."""
    import signal
    import threading

    stop = threading.Event()

    def stopping(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGINT, stopping)
    signal.signal(signal.SIGTERM, stopping)
    return stop


@app.command("rerate")
def rerate_command(
    competition: CompetitionOption,
    write: Annotated[bool, typer.Option("--write", help="Store the recomputed ratings as current.")] = False,
    db: DbOption = None,
    db_file: DbFileOption = None,
) -> None:
    """Recompute the ratings from the recorded results (finished_at, match id order; voided matches
    skipped) and say whether they equal the stored ones; `--write` stores them."""
    from botarena.arena.rerating import rebuild
    from botarena.arena.rerating import write as write_ratings

    arena = _arena(db, db_file)
    try:
        found = _competition(arena, competition)
        report = rebuild(arena.store, found.id)
        print(
            f"competition {found.id}: {report.results} rated results ({report.voided} voided, skipped), "
            f"{len(report.rebuilt)} versions rated"
        )
        if report.equal:
            print("the recomputed ratings equal the stored ones")
        else:
            shown = ", ".join(str(v) for v in report.differing[:10])
            count = len(report.differing)
            print(f"the recomputed ratings differ from the stored ones for {count} versions: {shown}")
        if write and not report.equal:
            write_ratings(arena.store, found.id, report)
            print("stored the recomputed ratings")
    finally:
        arena.store.close()
    if not report.equal and not write:
        raise typer.Exit(1)  # a check that found a difference: scripts can tell
