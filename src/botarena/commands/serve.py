"""`botarena serve` (the organizer's web server: leaderboards, replays, live matches; with --demo,
cycles of starter-bot tournaments to watch) and `botarena devops-service` (the Devops Game's
starter logic as an HTTP service)."""

from __future__ import annotations

import os
import sys
import threading
from dataclasses import dataclass
from typing import Annotated, Any

import typer

from botarena.commands.common import ReplaysOption, UnsandboxedOption, UserError, isolation, open_store
from botarena.commands.secret_options import (
    DbFileOption,
    DbOption,
    LiveTokenFileOption,
    LiveTokenOption,
    OrganizerKeyFileOption,
    OrganizerKeyOption,
    live_token_of,
    organizer_key_of,
)

HostOption = Annotated[str, typer.Option(help="Interface to listen on.")]
PortOption = Annotated[int, typer.Option(help="Port (0: pick a free one).")]
DemoOption = Annotated[
    bool, typer.Option("--demo", help="Also run a round robin of every game's starter bots.")
]
WorkersOption = Annotated[int, typer.Option(help="--demo: worker processes (0: in the server).")]
PaceOption = Annotated[int, typer.Option(help="--demo: sleep after each step, so matches can be watched.")]
SeedOption = Annotated[int, typer.Option(help="--demo: the first demo cycle's tournament seed.")]
DemoCyclesOption = Annotated[
    int, typer.Option(help="--demo: how many cycles of demo tournaments to play (0: until stopped).")
]
DemoKeepOption = Annotated[
    int | None,
    typer.Option(
        help="--demo: how many demo cycles to keep (default 3), the one being played included; "
        "older demo tournaments are deleted with their matches and replays (no other tournament "
        "ever is)."
    ),
]
DemoSetOption = Annotated[
    list[str] | None,
    typer.Option(
        "--demo-set",
        metavar="GAME.KEY=VALUE",
        help="--demo: override a config key of one game's demo matches (repeatable), e.g. "
        "datspulse.turns=30 for shorter rounds on a slow machine.",
    ),
]
LivePolicyOption = Annotated[
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
]
LiveDelayOption = Annotated[
    int | None,
    typer.Option("--live-delay", help="--live-policy delayed: how many steps behind (default 30)."),
]

DEMO_EXIT_DEADLINE_S = 60.0
"""How long `serve --demo` may take to exit once told to stop, whatever holds it up."""


def serve_command(
    db: DbOption = None,
    db_file: DbFileOption = None,
    replays: ReplaysOption = None,
    host: HostOption = "127.0.0.1",
    port: PortOption = 8000,
    demo: DemoOption = False,
    workers: WorkersOption = 2,
    pace_ms: PaceOption = 20,
    seed: SeedOption = 1,
    demo_cycles: DemoCyclesOption = 0,
    demo_keep: DemoKeepOption = None,
    demo_set: DemoSetOption = None,
    unsandboxed: UnsandboxedOption = False,
    live_token: LiveTokenOption = None,
    live_token_file: LiveTokenFileOption = None,
    live_policy: LivePolicyOption = None,
    live_delay: LiveDelayOption = None,
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
    from botarena.server.spectators import SpectatorGate

    demo_plan = _demo_plan(demo, workers, pace_ms, seed, demo_cycles, demo_keep, demo_set)
    policy, demo_policy = _spectator_policies(live_policy, live_delay)
    token = _live_token(live_token, live_token_file)
    key = _organizer_key(organizer_key, organizer_key_file)
    sealed = isolation(not unsandboxed)
    store = open_store(db, db_file, replays)
    hub = LiveHub()
    gate = SpectatorGate(hub, policy, organizer=LiveHub(public=False) if key else None)
    server = _ServedArena(store, gate, policy, demo_policy, demo_plan, sealed, token, key)
    if demo:
        _exit_anyway_after(server.stop, DEMO_EXIT_DEADLINE_S)
    try:
        serve(
            store,
            host=host,
            port=port,
            hub=hub,
            on_ready=server.on_ready,
            stop=server.stop,
            live_token=token,
            organizer_key=key,
            spectators=gate,
        )
    finally:
        store.close()
    _exit_if_the_demo_lingers()


@dataclass(frozen=True)
class _DemoPlan:
    """`serve --demo`'s options, checked: None of them matter without --demo."""

    on: bool
    workers: int
    pace_ms: int
    seed: int
    cycles: int
    keep: int
    overrides: dict[str, dict[str, Any]]
    """Game id to config overrides (--demo-set), laid over each game's own demo config."""


def _demo_plan(
    demo: bool,
    workers: int,
    pace_ms: int,
    seed: int,
    cycles: int,
    demo_keep: int | None,
    demo_set: list[str] | None,
) -> _DemoPlan:
    from botarena.tournament.service import DEMO_KEEP

    if workers < 0 or pace_ms < 0 or cycles < 0:
        raise UserError("--workers, --pace-ms and --demo-cycles must be 0 or more")
    keep = DEMO_KEEP if demo_keep is None else demo_keep
    if keep < 1:
        raise UserError(f"--demo-keep must be 1 or more (the cycle being played counts), got {keep}")
    return _DemoPlan(demo, workers, pace_ms, seed, cycles, keep, _demo_overrides(demo_set or []))


def _demo_overrides(settings: list[str]) -> dict[str, dict[str, Any]]:
    """`--demo-set GAME.KEY=VALUE` items by game, each game's checked against its config (with its
    own demo overrides under them) before the store is opened, so a typo is one line, not a demo
    that fails in the log."""
    from botarena.core.config import ConfigError, parse_override
    from botarena.core.registry import all_games

    games = {game.id: game for game in all_games()}
    overrides: dict[str, dict[str, Any]] = {}
    for item in settings:
        try:
            dotted, value = parse_override(item)
        except ConfigError as exc:
            raise UserError(f"--demo-set: {exc} (GAME.KEY=VALUE)") from None
        game_id, _, key = dotted.partition(".")
        if game_id not in games or not key:
            known = ", ".join(sorted(games))
            raise UserError(f"--demo-set {item!r}: expected GAME.KEY=VALUE with GAME one of {known}")
        overrides.setdefault(game_id, {})[key] = value
    for game_id, mine in overrides.items():
        game = games[game_id]
        try:
            game.config(overrides={**game.demo.overrides, **mine})
        except ConfigError as exc:
            raise UserError(f"--demo-set {game_id}: {exc}") from None
    return overrides


def _spectator_policies(live_policy: str | None, live_delay: int | None) -> tuple[Any, Any]:
    """The spectators' policy of every match, and of the demo's own matches."""
    from botarena.server.spectators import LivePolicy, SpectatorPolicy

    policy = SpectatorPolicy.parse(live_policy or LivePolicy.AFTER.value, live_delay)
    if live_delay is not None and policy.mode is not LivePolicy.DELAYED:
        raise UserError("--live-delay is for --live-policy delayed")
    # the demo plays the games' own starter bots: nobody's secret to keep, so it is watchable live
    return policy, policy if live_policy is not None else SpectatorPolicy.open()


def _live_token(token: str | None, token_file: Any) -> str | None:
    live_token = live_token_of(token, token_file)
    if live_token is not None:
        from botarena.server.ingest import check_live_token

        check_live_token(live_token)
    return live_token


def _organizer_key(key: str | None, key_file: Any) -> str | None:
    from botarena.server.secrecy import check_organizer_key

    organizer_key = organizer_key_of(key, key_file)
    if organizer_key is not None:
        check_organizer_key(organizer_key)
    return organizer_key


class _ServedArena:
    """What the server's `on_ready` needs: it prints where things are, then plays the demo."""

    def __init__(
        self,
        store: Any,
        gate: Any,
        policy: Any,
        demo_policy: Any,
        demo: _DemoPlan,
        sealed: Any,
        live_token: str | None,
        organizer_key: str | None,
    ) -> None:
        self.store, self.gate, self.policy, self.demo_policy = store, gate, policy, demo_policy
        self.demo, self.sealed = demo, sealed
        self.live_token, self.organizer_key = live_token, organizer_key
        self.stop = threading.Event()

    def on_ready(self, url: str) -> None:
        """Runs in its own thread once the server listens."""
        print(f"botarena arena: {self.store.url}", flush=True)
        print(url, flush=True)
        if self.live_token is not None:
            print("live ingest enabled: tournaments elsewhere can stream with --live-url", flush=True)
        print(f"live policy: {self.policy.describe()}", flush=True)
        if self.demo.on and self.demo_policy != self.policy:
            print("  (the demo's own matches are open: only starter bots play them)", flush=True)
        if self.organizer_key is not None:
            print("organizer key: requests with it in X-Organizer-Key see every match whole", flush=True)
        if self.demo.on:
            self._play_demo(url)

    def _play_demo(self, url: str) -> None:
        from botarena.tournament.service import run_demo_cycles

        demo = self.demo
        print(
            f"running the demo tournaments, keeping the last {demo.keep} cycles (Ctrl-C stops the server)...",
            flush=True,
        )
        try:
            run_demo_cycles(
                self.store,
                seed=demo.seed,
                cycles=demo.cycles,
                keep=demo.keep,
                workers=demo.workers,
                pace_ms=demo.pace_ms,
                live=self.gate.sink(self.demo_policy),
                stop=self.stop,
                isolation=self.sealed,
                overrides=demo.overrides,
                on_cycle=self._cycle_done,
            )
        except Exception as exc:  # the server goes on serving what was recorded
            print(f"botarena: the demo stopped: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
            return
        if not self.stop.is_set():
            print(f"demo tournaments finished; still serving {url}", flush=True)

    def _cycle_done(self, cycle: Any) -> None:
        gone = cycle.deleted
        if gone.tournaments:
            print(
                f"deleted {gone.tournaments} older demo tournaments ({gone.matches} matches,"
                f" {gone.replays} replays)",
                flush=True,
            )
        if cycle.played and not self.stop.is_set():
            print(f"demo cycle {cycle.seed} finished ({cycle.played} matches played)", flush=True)


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


def devops_service_command(
    port: Annotated[int | None, typer.Option(help="Port (default: $HTTP_PORT or 8080).")] = None,
    bot: Annotated[str, typer.Option(help="Logic: starter, expander, banker, random or idle.")] = "starter",
    host: HostOption = "127.0.0.1",
) -> None:
    """Run the Devops Game starter logic service (POST /moves/base, /moves/unit; GET /logs)."""
    from botarena.games.devops.bots import LOGICS
    from botarena.server.devops.starter_service import serve

    if bot not in LOGICS:
        raise UserError(f"unknown devops logic {bot!r} (known: {', '.join(sorted(LOGICS))})")
    print(f"devops {bot} logic listening on http://{host}:{port or os.environ.get('HTTP_PORT', '8080')}")
    serve(port, bot, host)
