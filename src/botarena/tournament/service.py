"""Tournaments end to end: create one in the store, run it through an executor, resume it, rank it.

The coordinator (`run_tournament`) is the only writer of a tournament's rows. It asks the format for
the matches to add (a deterministic function of what is scheduled and finished), submits the ones not
finished to the executor, and records each outcome under the match's unique key. Because the store
holds everything the format needs, a tournament whose process was killed resumes by calling
`run_tournament` again: finished matches are kept as they are, matches that were running are played
again from their (unchanged) seed, and nothing is recorded twice (`Store.record_result` is
exactly-once per key).

A match that cannot be played is the bot's fault or the platform's (issue 25). A bot's own fault
(a spec or config that does not resolve, a match that raises every time it is played, an
unsandboxed entrant that kills its worker while playing alone) is recorded `failed` after its
retries: no result, never rated. The platform's (a worker lost while the bots were sandboxed, so
they could not have killed it; a whole task lost by the executor; a worker that cannot sandbox; an
artifact cache whose disk is full; a store or replay location a worker cannot reach) is never
recorded as failed: the match is played again, by another worker where there is one, and when this
run gives up on it (`PLATFORM_ATTEMPTS`) it is postponed, scheduled again with the reason, for a
later run: `--resume` plays it. The run then ends "stopped" with the reason in its summary.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from concurrent.futures.process import BrokenProcessPool, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from botarena.core.formats import FinishedMatch
from botarena.core.registry import get_game
from botarena.runner.record import MatchRecord
from botarena.store import MatchRow, Store, TournamentRow
from botarena.store.store import Deleted
from botarena.tournament.executor import (
    LiveSink,
    MatchBatchResult,
    MatchFailure,
    MatchTask,
    close_executor,
    dask_client,
    executor_slots,
    is_worker_loss,
    play_batch,
    replay_match_id,
)
from botarena.tournament.failures import EntrantFailures, FailureTally
from botarena.tournament.formats import Format, FormatError, MatchSpec, declared_format, make_format
from botarena.tournament.leaderboard import declared_standings, format_reads_details, leaderboard
from botarena.tournament.ratings import rate

if TYPE_CHECKING:
    from botarena.bots.resolve import Isolation
    from botarena.tournament.dask_gate import DaskGate

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 3  # a match whose task raises this often in one run is recorded failed
SOLO_BREAKS = 2  # an unsandboxed match that breaks the process pool this often while alone is recorded failed
PLATFORM_ATTEMPTS = 5  # a match the platform fails this often in one run is postponed (for --resume)
# Batching (several matches per executor task): a task aims to last about BATCH_TARGET_S, from the
# matches' measured durations, and holds at most MAX_BATCH matches. Long matches go one per task.
BATCH_TARGET_S = 0.5
MAX_BATCH = 256
SLOTS_RECOUNT_S = 5.0  # how often the coordinator re-counts its executor's slots (Dask workers)


@dataclass(frozen=True)
class Entrant:
    """A bot in a tournament: its display name and how to reach it (a spec `resolve_bot` accepts)."""

    name: str
    spec: str


@dataclass(frozen=True)
class TournamentPlan:
    """What `create_tournament` needs. `options` are the format's (rounds, matches, cycles, ...) plus
    the runner's `pace_ms` (sleep after each step, for spectators)."""

    name: str
    game: str
    format: str
    entrants: list[Entrant]
    seed: int = 0
    preset: str | None = None
    overrides: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    players: int | None = None  # seats per match; the game's minimum when None


@dataclass
class TournamentSummary:
    """How a call of `run_tournament` ended."""

    tournament_id: int
    status: str
    played: int = 0  # matches finished by this call
    failed: int = 0
    total_finished: int = 0
    seconds: float = 0.0
    unplayed: int = 0  # matches this call could not play for the platform's reasons (--resume plays them)
    reason: str | None = None  # why, when this call stopped for them (a full disk, no worker can sandbox)
    # The entrants that never started, crashed, timed out or were invalid in a recorded match (this
    # call's and earlier runs'), in registration order (issue 26, item 2).
    failing: list[EntrantFailures] = field(default_factory=list)

    @property
    def dead(self) -> list[EntrantFailures]:
        """The entrants that never started in any match they played."""
        return [entrant for entrant in self.failing if entrant.dead]


class ProgressSink(Protocol):
    """What the coordinator reports to (e.g. the rich progress bar of `tournament/progress.py`)."""

    def update(self, *, total: int, done: int, running: int, failed: int) -> None: ...


@runtime_checkable
class FailureSink(Protocol):
    """A progress sink that also hears which entrants fail (the failing ones, after each report)."""

    def failures(self, failing: Sequence[EntrantFailures]) -> None: ...


RUNNER_OPTIONS = ("pace_ms",)
DEMO_CYCLE = "demo_cycle"
"""The option that marks a tournament as one of `serve --demo`'s, with its cycle's seed: the demo's
retention (`prune_demo`) deletes only tournaments that carry it (`botarena tournament` never sets it)."""
NOT_FORMAT_OPTIONS = (*RUNNER_OPTIONS, DEMO_CYCLE)


# -- creating ------------------------------------------------------------------------------------------


def _absolute_spec(spec: str) -> str:
    """File and folder specs made absolute (what the entrant named, for people: workers run the
    artifact, see `botarena.bots.artifacts`)."""
    # os.path, not Path: a spec too long to be a file name is no file (Path.is_file raises)
    return str(Path(spec).resolve()) if os.path.isfile(spec) or os.path.isdir(spec) else spec


def plan_players(plan: TournamentPlan) -> int:
    game = get_game(plan.game)
    players = plan.players or game.min_players
    game.check_players(players)
    return players


def _apply_tournament_preset(plan: TournamentPlan) -> tuple[str, str, dict[str, Any]]:
    """(format, game preset, config overrides): a format the game declares (`GameInfo.tournament_formats`),
    named by its name or an alias, names all three; the plan's own preset and overrides win."""
    chosen = declared_format(plan.format, plan.game)
    if chosen is None:
        return plan.format, plan.preset or "default", dict(plan.overrides)
    return chosen.name, plan.preset or chosen.preset, {**chosen.config, **plan.overrides}


def resolved_isolation(isolation: Isolation | None) -> Isolation:
    """`isolation`, or the default for tournaments: untrusted, sandboxed with the default policy."""
    from botarena.bots.resolve import untrusted

    return isolation if isolation is not None else untrusted()


def check_isolation(isolation: Isolation) -> None:
    """Refuse (SandboxUnavailable, one line naming the missing piece) a sandbox that cannot be set up."""
    if isolation.sandbox is not None:
        from botarena.bots.sandbox import check_sandbox

        check_sandbox(isolation.sandbox)


def create_tournament(
    store: Store, plan: TournamentPlan, *, isolation: Isolation | None = None
) -> TournamentRow:
    """Register the entrants' bots and the tournament (checking the game, preset, config and format).

    Raises ValueError subclasses (ConfigError, FormatError, BotSpecError, UnknownGameError) with a
    one-line message for anything wrong, before anything is written; SandboxUnavailable when
    `isolation` (default: untrusted, sandboxed) asks for a sandbox this machine cannot set up.
    Entrants' specs are checked without importing or running their code (`check_spec`).
    """
    from botarena.bots.artifacts import pack_spec
    from botarena.bots.resolve import check_spec

    isolation = resolved_isolation(isolation)

    game = get_game(plan.game)
    players = plan_players(plan)
    format_name, preset, overrides = _apply_tournament_preset(plan)
    game.config(preset, overrides)  # validate now, in one line
    names = [e.name for e in plan.entrants]
    options = dict(plan.options)
    pace_ms = options.get("pace_ms", 0)
    if type(pace_ms) is not int or pace_ms < 0:
        raise FormatError(f"pace_ms must be a non-negative integer, got {pace_ms!r}")
    format_options = {k: v for k, v in options.items() if k not in NOT_FORMAT_OPTIONS}
    make_format(format_name, names, seed=plan.seed, players=players, options=format_options, game=plan.game)
    for entrant in plan.entrants:
        check_spec(entrant.spec, game, isolation=isolation)  # fails here, not in a worker
    check_isolation(isolation)
    packed = [pack_spec(e.spec, game) for e in plan.entrants]  # the bots' files, shipped to workers
    if store.find_tournament(plan.name) is not None:
        raise FormatError(
            f"a tournament named {plan.name!r} exists already (resume it, or pick another name)"
        )
    for bot in packed:
        if bot is not None:
            store.put_artifact(bot.digest, bot.data)
    versions = [
        store.register_bot(
            plan.game,
            e.name,
            _absolute_spec(e.spec),
            bot.digest if bot else None,  # an edited file or folder is a new version
            artifact=bot.digest if bot else None,
            run_spec=bot.run_spec if bot else None,
        )
        for e, bot in zip(plan.entrants, packed, strict=True)
    ]
    return store.create_tournament(
        name=plan.name,
        game=plan.game,
        format=format_name,
        preset=preset,
        config=overrides,
        seed=plan.seed,
        options={**options, "players": players},
        entrants=[(e.name, v.id) for e, v in zip(plan.entrants, versions, strict=True)],
    )


def tournament_format(tournament: TournamentRow) -> Format:
    options = {k: v for k, v in tournament.options.items() if k not in (*NOT_FORMAT_OPTIONS, "players")}
    return make_format(
        tournament.format,
        [e.name for e in tournament.entrants],
        seed=tournament.seed,
        players=int(tournament.options.get("players", 2)),
        options=options,
        game=tournament.game,
    )


# -- reading results -----------------------------------------------------------------------------------


def _spec_of(row: MatchRow) -> MatchSpec:
    return MatchSpec(key=row.key, round=row.round, seats=tuple(row.seats), seed=row.seed)


def _finished_of(row: MatchRow) -> FinishedMatch:
    ok = row.status == "finished"
    return FinishedMatch(
        key=row.key,
        round=row.round,
        seats=tuple(row.seats),
        ranks=tuple(row.ranks) if ok and row.ranks is not None else None,
        scores=tuple(row.scores) if ok and row.scores is not None else None,
    )


def finished_matches(rows: Sequence[MatchRow]) -> dict[str, FinishedMatch]:
    """Finished and failed matches by key (a failed one has no ranks)."""
    return {row.key: _finished_of(row) for row in rows if row.status in ("finished", "failed")}


class _DetailsCache:
    """Result details read from replays, by replay hash. A replay is content-addressed, so what is
    cached can never go stale; the details are small, the replays they come from are not."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._found: OrderedDict[str, dict[str, Any]] = OrderedDict()

    def get(self, store: Store, digest: str) -> dict[str, Any] | None:
        with self._lock:
            found = self._found.get(digest)
            if found is not None:
                self._found.move_to_end(digest)
                return found
        from botarena.core.replay import ReplayError
        from botarena.store import StoreError

        try:
            details = store.load_replay(digest).result.get("details")
        except (ReplayError, StoreError) as exc:  # the leaderboard goes on without this match's details
            log.warning("cannot read the result details of replay %s: %s", digest, exc)
            return None
        if not isinstance(details, dict):
            return None
        with self._lock:
            self._found[digest] = details
            while len(self._found) > self.size:
                self._found.popitem(last=False)
        return details


_details = _DetailsCache()


def match_details(store: Store, rows: Sequence[MatchRow]) -> dict[str, dict[str, Any]]:
    """The result details (`MatchResult.details`) of the finished matches among `rows`, by match key,
    read from their replays (the store keeps ranks and scores only). A replay that cannot be read is
    left out, with a warning in the log."""
    found: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row.status == "finished" and row.replay_hash:
            details = _details.get(store, row.replay_hash)
            if details is not None:
                found[row.key] = details
    return found


def tournament_board(store: Store, tournament: TournamentRow) -> dict[str, Any]:
    """The leaderboard of `tournament` (ratings, W/D/L, points, pair matrix, standings), JSON-able.

    Computed from the recorded results each time, by the same code locally and on the server. When
    the game declares its own standings (`GameInfo.tournament_standings`) they are in `game_standings`, made
    from the matches' result details. `failures` lists the entrants that never started, crashed,
    timed out or were invalid in a match (`EntrantFailures.to_json`: counts, the first reason, `dead`
    when it never started at all), from the seats' failures the store keeps with their results."""
    rows = store.list_matches(tournament.id, status=["finished", "failed"])
    names = [e.name for e in tournament.entrants]
    game_table = declared_standings(tournament.game)
    board = leaderboard(
        names,
        finished_matches(rows).values(),
        format_name=tournament.format,
        game_table=game_table,
        details=(
            match_details(store, rows)
            if game_table is not None or format_reads_details(tournament.format, tournament.game)
            else None
        ),
        game=tournament.game,
    )
    board["failures"] = [entrant.to_json() for entrant in FailureTally.from_rows(names, rows).failing()]
    return board


def tournament_leaderboard(store: Store, tournament_id: int) -> dict[str, Any]:
    """{"tournament": the row with its match counts, "leaderboard": `tournament_board`} (orjson-able:
    the row is a dataclass with datetimes)."""
    tournament = store.get_tournament(tournament_id)
    if tournament is None:
        raise LookupError(f"no tournament {tournament_id}")
    info = {**dataclasses.asdict(tournament), "matches": store.count_matches(tournament_id)}
    return {"tournament": info, "leaderboard": tournament_board(store, tournament)}


# -- running -------------------------------------------------------------------------------------------


class _Coordinator:
    """One run of one tournament: schedule, submit, record, until the format is done or `stop` is set."""

    live_url: str | None = None  # a server its workers stream matches to (botarena.tournament.live_http)

    def __init__(
        self,
        store: Store,
        tournament: TournamentRow,
        executor: Executor | None,
        progress: ProgressSink | None,
        live: LiveSink | None,
        stop: threading.Event | None,
        max_in_flight: int | None,
        executor_factory: Callable[[], Executor] | None,
        isolation: Isolation,
    ) -> None:
        self.store = store
        self.isolation = isolation
        self.tournament = tournament
        # A Dask cluster's matches go only to workers that can play them (tournament/dask_gate.py).
        self.gate = _dask_gate(executor, isolation)
        self.executor = self.gate.executor if self.gate is not None else executor
        self.executor_factory = executor_factory
        self.own_executors: list[Executor] = []  # replacements for broken pools, shut down by us
        self.progress = progress
        self.live = live
        self.stop = stop or threading.Event()
        # Tasks in flight at most: the caller's figure, else two per executor slot (re-counted now
        # and then: a Dask cluster's workers come and go).
        self.fixed_in_flight = max_in_flight
        self.max_in_flight = max_in_flight or 1
        self.slots_counted_at = -SLOTS_RECOUNT_S
        self.format = tournament_format(tournament)
        self.specs = {e.name: e.run_spec or e.spec for e in tournament.entrants}
        self.artifacts = {e.name: e.artifact for e in tournament.entrants}  # workers fetch them by digest
        from botarena.core.credentials import WorkerSecrets, hold
        from botarena.store.artifacts import artifact_source

        self.artifact_source = artifact_source(store.connect_url)  # without the password
        hold(WorkerSecrets.of(store.connect_url))  # for the matches this process plays itself
        self.pace_ms = int(tournament.options.get("pace_ms", 0))
        self.scheduled: dict[str, MatchSpec] = {}
        self.finished: dict[str, FinishedMatch] = {}
        self.match_ids: dict[str, int] = {}
        self.in_flight: dict[Future[MatchBatchResult], tuple[str, ...]] = {}  # a task's match keys
        self.pool_of: dict[Future[MatchBatchResult], Executor | None] = {}
        self.routes: dict[Future[MatchBatchResult], dict[str, Any]] = {}  # Dask tasks sent to named workers
        self.schedule_asked_at = -1  # len(finished) when the format was last asked for matches
        # How long a match takes to play, on average over every match recorded by this run (a
        # first slow match, a worker warming up, weighs only as one match among many).
        self.match_seconds: float | None = None
        self.played_seconds = 0.0
        self.played_count = 0
        self.attempts: dict[str, int] = {}  # tries by this run (the store counts every run's)
        self.platform_tries: dict[str, int] = {}  # tries by this run that failed for the platform's reasons
        self.postponed: dict[str, str] = {}  # matches this run gave up on for the platform's reasons: why
        self.halted: str | None = None  # why no match can be played at all (no worker can sandbox)
        # A replay is written before its match is recorded (by this process, or by a worker to the
        # store's location): a coordinator killed in between, or a worker lost after writing one,
        # leaves a replay that nothing references (see sweep_unrecorded_replays).
        self.unrecorded_replays_possible = False
        # A broken pool fails every match in it, so it cannot say which one killed its worker: those
        # matches become suspects and run again one at a time, alone in the pool (unsandboxed: a
        # sandboxed bot cannot kill its worker, so there a lost worker is the platform's fault).
        self.suspects: set[str] = set()
        self.solo: str | None = None
        self.solo_breaks: dict[str, int] = {}
        self.summary = TournamentSummary(tournament.id, "running")
        self.tally = FailureTally(e.name for e in tournament.entrants)  # who failed, as results come

    def load(self) -> None:
        for row in self.store.list_matches(self.tournament.id):
            self.scheduled[row.key] = _spec_of(row)
            self.match_ids[row.key] = row.id
            if row.status in ("finished", "failed"):
                self.finished[row.key] = _finished_of(row)
            if row.status == "finished":
                self.tally.add(row.key, row.round, row.seats, row.failures, row.statuses, row.id)
            tried_again = row.attempts > (1 if row.status == "finished" else 0)
            self.unrecorded_replays_possible |= tried_again

    def extend_schedule(self) -> None:
        """Add what the format schedules now (repeatedly: one addition may enable the next). The
        schedule is a function of what is scheduled and finished, and `finished` only grows: with
        no match finished since the last call there is nothing new to ask the format."""
        if len(self.finished) == self.schedule_asked_at:
            return
        self.schedule_asked_at = len(self.finished)
        while True:
            new = self.format.schedule(list(self.scheduled.values()), self.finished)
            new = [spec for spec in new if spec.key not in self.scheduled]
            if not new:
                return
            self.store.add_matches(self.tournament.id, new)
            for row in self.store.list_matches(self.tournament.id, status="scheduled"):
                self.match_ids[row.key] = row.id
            for spec in new:
                self.scheduled[spec.key] = spec

    @property
    def replay_target(self) -> str | None:
        """Where workers write replays themselves (sending back only their hashes): the store's
        shared location, or its own replay directory when the workers are this machine's processes
        (the coordinator then never touches the bytes); None: the replays come back as bytes."""
        target = self.store.replays.target
        if target is None and isinstance(self.executor, ProcessPoolExecutor):
            directory = getattr(self.store.replays, "root", None)
            if isinstance(directory, Path):
                target = directory.absolute().as_uri()
        return target

    def waiting(self) -> list[MatchSpec]:
        busy = {key for keys in self.in_flight.values() for key in keys} | self.suspects | set(self.postponed)
        pending = [s for k, s in self.scheduled.items() if k not in self.finished and k not in busy]
        return sorted(pending, key=lambda s: (s.round, s.key))

    def sweep_unrecorded_replays(self) -> None:
        """Remove the replays of this tournament's matches that no match references: written for a
        try that was never recorded (its coordinator killed before recording it, its worker lost
        after writing it). Only while nothing plays this tournament's matches (before a run, or
        after one that left nothing in flight), and only when a match was tried without being
        recorded; a replay that any match references is never touched (`remove_unrecorded_replays`)."""
        if not self.unrecorded_replays_possible:
            return
        ids = [replay_match_id(self.tournament.id, key) for key in sorted(self.scheduled)]
        removed = self.store.remove_unrecorded_replays(ids)
        self.unrecorded_replays_possible = False
        if removed:
            log.info("removed %d replays of tries that were never recorded", removed)

    def task(self, spec: MatchSpec) -> MatchTask:
        t = self.tournament
        return MatchTask(
            tournament_id=t.id,
            key=spec.key,
            game=t.game,
            preset=t.preset or "default",
            overrides=dict(t.config),
            seed=spec.seed,
            seats=spec.seats,
            specs=tuple(self.specs[name] for name in spec.seats),
            pace_ms=self.pace_ms,
            match_id=self.match_ids.get(spec.key),
            isolation=self.isolation,
            live_url=self.live_url,  # its token stays here and with the workers: never in a task
            replay_target=self.replay_target,
            artifacts=tuple(self.artifacts[name] for name in spec.seats),
            artifact_source=self.artifact_source,
        )

    def count_slots(self) -> None:
        """Re-count the executor's slots now and then (a Dask cluster's workers come and go, and
        the gate probes those that join); halt when no worker there can play."""
        if self.executor is None:
            return
        now = time.monotonic()
        if now - self.slots_counted_at < SLOTS_RECOUNT_S:
            return
        self.slots_counted_at = now
        if self.gate is not None:
            self.gate.refresh()
            self.check_gate()
            self.send_stranded_again()
        if self.fixed_in_flight is None:
            slots = self.gate.slots() if self.gate is not None else executor_slots(self.executor)
            self.max_in_flight = 2 * slots

    def send_stranded_again(self) -> None:
        """Tasks sent to Dask workers that have all gone since wait for nobody: cancel them and play
        their matches again (not a try: they never started)."""
        assert self.gate is not None
        for future, route in list(self.routes.items()):
            if future in self.in_flight and self.gate.stranded(route) and future.cancel():
                keys = self.in_flight.pop(future)
                self.pool_of.pop(future, None)
                del self.routes[future]
                for key in keys:
                    self.attempts[key] = max(0, self.attempts.get(key, 1) - 1)
                log.warning(
                    "the Dask workers %d matches were sent to have gone: sending them again", len(keys)
                )

    def check_gate(self) -> None:
        """Halt the run when the gate says no worker there can play a match."""
        reason = self.gate.halt_reason() if self.gate is not None else None
        if reason is not None and self.halted is None:
            log.warning("the tournament stops: %s", reason)
            self.halted = reason

    def submit(self) -> None:
        self.count_slots()
        if self.halted is not None:
            return
        if self.suspects:
            if not self.in_flight and not self.stop.is_set():
                key = min(self.suspects, key=lambda k: (self.scheduled[k].round, k))
                self.suspects.discard(key)
                self.solo = key
                self._submit([self.scheduled[key]])
            return
        pending = self.waiting()
        while pending and len(self.in_flight) < self.max_in_flight and not self.stop.is_set():
            size = self.batch_size(len(pending))
            self._submit(pending[:size])
            del pending[:size]
            if self.executor is None:
                return  # inline: one at a time, recorded before the next starts

    def batch_size(self, pending: int) -> int:
        """How many matches the next task plays: about BATCH_TARGET_S of play, but never so many
        that a task slot would go without work while matches wait (the tail stays balanced)."""
        if self.executor is None or self.match_seconds is None:
            return 1  # inline, or no match measured yet
        by_time = int(BATCH_TARGET_S / max(self.match_seconds, 1e-4))
        by_spread = pending // self.max_in_flight
        return max(1, min(MAX_BATCH, by_time, by_spread))

    def _submit(self, specs: Sequence[MatchSpec]) -> None:
        keys = tuple(spec.key for spec in specs)
        self.store.mark_running_many(self.tournament.id, keys)
        for key in keys:
            self.attempts[key] = self.attempts.get(key, 0) + 1
        tasks = [self.task(spec) for spec in specs]
        if self.executor is None:
            future: Future[MatchBatchResult] = Future()
            try:
                future.set_result(play_batch(tasks, self.live))
            except Exception as exc:  # recorded as the matches' failure, never raised
                future.set_exception(exc)
        else:
            future = self._pool_submit(tasks)
        self.in_flight[future] = keys
        self.pool_of[future] = self.executor

    def _pool_submit(self, tasks: list[MatchTask]) -> Future[MatchBatchResult]:
        """Submit `tasks` to the pool as one batch; a pool found broken (a worker died since the last
        collect) is replaced first. A pool that cannot take it at all yields a failed future: the
        matches are retried or recorded failed like any other failure, never raised out of the
        tournament."""
        assert self.executor is not None
        route = self.gate.route() if self.gate is not None else {}  # Dask: the workers that may play
        for _ in range(2):
            try:
                future = self.executor.submit(play_batch, tasks, **route)
                if route:
                    self.routes[future] = route
                return future
            except BrokenProcessPool:
                log.warning("the process pool was broken at submit; replacing it")
                if self.executor_factory is None:
                    break
                self.replace_executor()
            except RuntimeError as exc:  # shut down under us: the run is stopping
                return _failed_future(exc)
        return _failed_future(RuntimeError("the process pool broke and could not be replaced"))

    def collect(self, timeout: float | None) -> None:
        if not self.in_flight:
            return
        done, _ = wait(list(self.in_flight), timeout=timeout, return_when=FIRST_COMPLETED)
        for future in done:
            keys = self.in_flight.pop(future)
            pool = self.pool_of.pop(future)
            self.routes.pop(future, None)
            solo = self.solo is not None and keys == (self.solo,)
            if solo:
                self.solo = None
            try:
                results = future.result()
            except Exception as exc:
                if is_worker_loss(exc):  # a pool's BrokenProcessPool, Dask's KilledWorker
                    self.pool_broke(keys, pool, solo, exc)
                else:  # the whole task failed (it could not be sent, the cluster lost it): never a bot
                    self.unrecorded_replays_possible = True
                    for key in keys:
                        self.platform_failed(key, f"{type(exc).__name__}: {exc}")
            else:
                self.take(keys, results)

    def take(self, keys: tuple[str, ...], results: MatchBatchResult) -> None:
        """Record a finished task's outcomes in one transaction, then deal with its failures."""
        by_key = {result.key: result for result in results if result.key in keys}
        outcomes = [r for r in by_key.values() if isinstance(r, MatchRecord)]
        self.record([outcome for outcome in outcomes if self.replay_kept(outcome)])
        for key in keys:
            result = by_key.get(key)
            if isinstance(result, MatchFailure) and result.platform:
                self.platform_failed(key, result.error, unfit_worker=result.unfit_worker)
            elif isinstance(result, MatchFailure):
                self.task_failed(key, result.error, retry=result.retry)
            elif result is None:
                self.platform_failed(key, "RuntimeError: the task returned no result for it")

    def replay_kept(self, outcome: MatchRecord) -> bool:
        """Whether the replay a worker wrote to the shared location itself is there (else the match
        is played again); a replay sent back as bytes is always kept."""
        if outcome.replay_hash is None or self.store.replays.exists(outcome.replay_hash):
            return True
        message = f"ReplayMissing: its replay {outcome.replay_hash} is not in {self.store.replays.location}"
        self.platform_failed(outcome.key, message)  # the shared location's fault, never the bot's
        return False

    def record(self, outcomes: Sequence[MatchRecord]) -> None:
        if not outcomes:
            return
        self.store.record_results(self.tournament.id, outcomes)
        for outcome in outcomes:
            spec = self.scheduled[outcome.key]
            self.finished[outcome.key] = FinishedMatch(
                key=outcome.key,
                round=spec.round,
                seats=spec.seats,
                ranks=tuple(outcome.ranks),
                scores=tuple(outcome.scores),
            )
            self.tally.add(
                outcome.key, spec.round, spec.seats, outcome.failures or None, outcome.statuses,
                self.match_ids.get(outcome.key),
            )  # fmt: skip
        self.summary.played += len(outcomes)
        self.played_seconds += sum(outcome.duration_s for outcome in outcomes)
        self.played_count += len(outcomes)
        self.match_seconds = self.played_seconds / self.played_count

    def pool_broke(
        self, keys: tuple[str, ...], pool: Executor | None, solo: bool, exc: BaseException
    ) -> None:
        """A worker of `pool` died (killed, out of memory, a crash in native code) with `keys` in it.

        Sandboxed, no bot could have killed it (its processes cannot see the worker): the loss is the
        platform's, and its matches are simply played again. Unsandboxed, one of them may have: they
        become suspects, played alone, and one that breaks the pool alone SOLO_BREAKS times fails."""
        self.unrecorded_replays_possible = True  # the lost worker may have written a replay first
        if pool is self.executor and isinstance(exc, BrokenProcessPool):  # a Dask cluster heals itself
            self.replace_executor()
        if self.isolation.sandbox is not None:
            for key in keys:
                self.platform_failed(key, f"{type(exc).__name__}: {exc}")
            return
        if not solo:
            self.suspects.update(keys)
            return
        (key,) = keys
        breaks = self.solo_breaks[key] = self.solo_breaks.get(key, 0) + 1
        log.warning("match %s broke the process pool alone (%d of %d)", key, breaks, SOLO_BREAKS)
        if breaks < SOLO_BREAKS:
            self.suspects.add(key)
        else:
            self.fail(key, f"{type(exc).__name__}: {exc}")

    def replace_executor(self) -> None:
        if self.executor_factory is None:
            return  # the caller's pool: its matches fail (after retries) with the reason
        log.warning("the process pool broke; starting a new one")
        if self.executor in self.own_executors:
            close_executor(self.executor, cancel=True)  # type: ignore[arg-type]
            self.own_executors.remove(self.executor)  # type: ignore[arg-type]
        self.executor = self.executor_factory()
        self.own_executors.append(self.executor)

    def close(self) -> None:
        """Forget what is in flight (a stopped run: those matches are played again on resume) and
        shut down the pools this run started (bounded: their workers are killed if need be)."""
        for future in self.in_flight:
            future.cancel()
        for executor in self.own_executors:
            close_executor(executor, cancel=bool(self.in_flight))

    def task_failed(self, key: str, message: str, *, retry: bool) -> None:
        """Match `key` failed, by its bot's (or its spec's) doing: played again up to MAX_ATTEMPTS
        times in this run, then recorded failed."""
        attempts = self.attempts.get(key, 1)
        retry = retry and attempts < MAX_ATTEMPTS
        log.warning(
            "match %s failed (attempt %d): %s%s", key, attempts, message, " (retrying)" if retry else ""
        )
        if not retry:
            self.fail(key, message)
        # else: still scheduled in the store; `waiting()` offers it again

    def platform_failed(self, key: str, message: str, *, unfit_worker: str | None = None) -> None:
        """Match `key` could not be played for the platform's reason: never the bot's failure. It is
        played again (the try does not count against MAX_ATTEMPTS), by another worker when
        `unfit_worker` names the one at fault, and postponed for a later run after
        PLATFORM_ATTEMPTS such tries in this one."""
        if unfit_worker is not None and self.gate is not None:
            self.gate.leave_out(unfit_worker, message)
            self.check_gate()
        self.attempts[key] = max(0, self.attempts.get(key, 1) - 1)
        tries = self.platform_tries[key] = self.platform_tries.get(key, 0) + 1
        again = tries < PLATFORM_ATTEMPTS and self.halted is None
        log.warning(
            "match %s could not be played (the platform's fault, %d of %d): %s%s",
            key, tries, PLATFORM_ATTEMPTS, message, " (retrying)" if again else " (left for --resume)",
        )  # fmt: skip
        if not again:
            self.postpone(key, message)

    def postpone(self, key: str, message: str) -> None:
        """Leave match `key` for a later run: scheduled in the store with the reason, no result."""
        self.store.postpone(self.tournament.id, key, message)
        self.postponed[key] = message

    def fail(self, key: str, message: str) -> None:
        self.store.record_failure(self.tournament.id, key, message)
        spec = self.scheduled[key]
        self.finished[key] = FinishedMatch(
            key=key, round=spec.round, seats=spec.seats, ranks=None, scores=None
        )
        self.summary.failed += 1

    def unplayed_reason(self) -> str | None:
        """Why this run leaves matches unplayed (the platform's reasons, most frequent first), or None."""
        if self.halted is not None:
            return self.halted
        if not self.postponed:
            return None
        counts = Counter(self.postponed.values()).most_common()
        shown = [f"{message} ({n} {'match' if n == 1 else 'matches'})" for message, n in counts[:3]]
        more = f"; and {len(counts) - 3} other reasons" if len(counts) > 3 else ""
        return "; ".join(shown) + more

    def report(self) -> None:
        if self.progress is None:
            return
        failed = sum(1 for f in self.finished.values() if f.ranks is None)
        self.progress.update(
            total=max(len(self.scheduled), self.format.planned_matches or 0),
            done=len(self.finished) - failed,
            running=sum(len(keys) for keys in self.in_flight.values()),
            failed=failed,
        )
        if isinstance(self.progress, FailureSink):
            self.progress.failures(self.tally.failing())

    def stuck(self) -> bool:
        """Nothing in flight and nothing this run can still play: what is left was postponed (or
        the run halted). A run with nothing left for any reason but those is a format bug."""
        if self.in_flight or self.suspects or self.waiting():
            return False
        if not self.postponed and self.halted is None:
            raise RuntimeError(
                f"tournament {self.tournament.id}: the {self.tournament.format} format stalled"
            )
        return True

    def done(self) -> bool:
        return not self.in_flight and self.format.done(list(self.scheduled.values()), self.finished)


def run_tournament(
    store: Store,
    tournament_id: int,
    executor: Executor | None = None,
    *,
    progress: ProgressSink | None = None,
    live: LiveSink | None = None,
    stop: threading.Event | None = None,
    max_in_flight: int | None = None,
    executor_factory: Callable[[], Executor] | None = None,
    isolation: Isolation | None = None,
    live_url: str | None = None,
    live_token: str | None = None,
) -> TournamentSummary:
    """Run (or resume) tournament `tournament_id` to its end, or until `stop` is set.

    `isolation` says how far entrants are trusted (botarena.bots.resolve); None is the default for
    tournaments, untrusted and sandboxed: an entrant's code never shares a process with the engine or
    another entrant. A sandbox that cannot be set up raises SandboxUnavailable before anything runs.

    `executor` None plays matches inline in this thread. With `executor_factory`, a process pool that
    breaks (a worker killed) is replaced and its matches retried. Returns how the run ended; the
    results are in the store.

    `live_url` and `live_token` name a server (`botarena serve` with a live token) to which whatever
    plays a match (this thread, a pool worker, a Dask worker) streams it, unless `live` is given.
    The token never goes into a task: this process holds it for the matches it plays itself, a
    pool's workers get it from `make_executor(credentials=...)`, a Dask worker from its environment.
    """
    if live_url is not None:
        from botarena.tournament.live_http import check_live_url

        if not live_token:
            raise ValueError(
                "a live URL needs the server's live token (BOTARENA_LIVE_TOKEN or --live-token-file)"
            )
        check_live_url(live_url)
    started = time.perf_counter()
    tournament = store.get_tournament(tournament_id)
    if tournament is None:
        raise LookupError(f"no tournament {tournament_id}")
    store.reset_running(tournament_id)
    isolation = resolved_isolation(isolation)
    check_isolation(isolation)
    coordinator = _Coordinator(
        store, tournament, executor, progress, live, stop, max_in_flight, executor_factory, isolation
    )
    if live_url is not None and live_token:
        from botarena.core.credentials import WorkerSecrets, hold

        hold(WorkerSecrets.of(live=(live_url, live_token)))  # for the matches this process plays itself
        coordinator.live_url = live_url
    coordinator.load()
    coordinator.sweep_unrecorded_replays()
    store.set_tournament_status(tournament_id, "running")
    try:
        coordinator.report()
        while not coordinator.stop.is_set() and coordinator.halted is None:
            coordinator.extend_schedule()
            coordinator.submit()
            if coordinator.done() or coordinator.halted is not None:
                break
            if not coordinator.in_flight:
                if coordinator.stuck():
                    break
                continue
            coordinator.collect(timeout=0.5)
            coordinator.report()
    finally:
        coordinator.close()
    summary = coordinator.summary
    summary.total_finished = len(coordinator.finished)
    summary.failing = coordinator.tally.failing()
    summary.seconds = time.perf_counter() - started
    summary.reason = coordinator.unplayed_reason()
    if summary.reason is not None:
        summary.unplayed = sum(1 for key in coordinator.scheduled if key not in coordinator.finished)
    if coordinator.done():
        coordinator.sweep_unrecorded_replays()  # nothing is in flight: what a lost worker left behind
        finished = coordinator.finished.values()
        store.save_ratings(tournament_id, rate([e.name for e in tournament.entrants], finished))
        store.set_tournament_status(tournament_id, "finished")
        summary.status = "finished"
    else:
        summary.status = "stopped"
    return summary


def _dask_gate(executor: Executor | None, isolation: Isolation) -> DaskGate | None:
    """The gate of a Dask executor's workers (tournament/dask_gate.py); None for any other executor."""
    client = dask_client(executor) if executor is not None else None
    if client is None:
        return None
    from botarena.tournament.dask_gate import DaskGate

    return DaskGate(executor, client, isolation.sandbox)  # type: ignore[arg-type]


def _failed_future(exc: BaseException) -> Future[MatchBatchResult]:
    future: Future[MatchBatchResult] = Future()
    future.set_exception(exc)
    return future


# -- the demo ------------------------------------------------------------------------------------------

DEMO_KEEP = 3
"""How many demo cycles `serve --demo` keeps by default, the one being played included (`--demo-keep`)."""


def demo_plans(
    seed: int = 1,
    *,
    pace_ms: int = 0,
    prefix: str = "demo",
    games: Sequence[str] | None = None,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[TournamentPlan]:
    """One round robin of the starter bots of every registered game (`make run`'s tournaments), or
    of `games` only; each is marked with its cycle (`DEMO_CYCLE`: `seed`).

    A game may shape its demo in `GameInfo.demo`: `players` per match (default: its minimum, at
    least 2, which a round robin needs) and config `overrides` (shorter games than its default, so
    the demo finishes while someone watches). `overrides` (game id to config keys: `serve
    --demo-set`) are laid over the game's own, key by key."""
    from botarena.core.registry import all_games

    plans = []
    for game in all_games():
        if games is not None and game.id not in games:
            continue
        players = game.demo.players or max(2, game.min_players)
        starters = sorted(game.starter_bots)
        if len(starters) < players:
            continue
        plans.append(
            TournamentPlan(
                name=f"{prefix}-{game.id}-{seed}",
                game=game.id,
                format="round-robin",
                entrants=[Entrant(name, name) for name in starters],
                seed=seed,
                preset=None,
                overrides={**game.demo.overrides, **(overrides or {}).get(game.id, {})},
                options={DEMO_CYCLE: seed, **({"pace_ms": pace_ms} if pace_ms else {})},
                players=players,
            )
        )
    return plans


def demo_cycle_of(tournament: TournamentRow) -> int | None:
    """The demo cycle `tournament` belongs to, or None when it is no demo tournament."""
    cycle = tournament.options.get(DEMO_CYCLE)
    return cycle if isinstance(cycle, int) and not isinstance(cycle, bool) else None


def demo_cycles(store: Store) -> dict[int, list[TournamentRow]]:
    """The demo tournaments in the store by cycle, the cycle created last first (then newest first)."""
    cycles: dict[int, list[TournamentRow]] = {}
    for tournament in store.list_tournaments():  # newest first
        cycle = demo_cycle_of(tournament)
        if cycle is not None:
            cycles.setdefault(cycle, []).append(tournament)
    return cycles


def first_demo_cycle(store: Store, seed: int) -> int:
    """Where `serve --demo` starts: the cycle it played last (finished, it is skipped; unfinished, it
    is resumed) when that is `seed` or later, else `seed`. Older cycles may have been deleted: going
    back to `seed` would play them again."""
    last = next(iter(demo_cycles(store)), None)
    return last if last is not None and last >= seed else seed


def open_demo_cycle(
    store: Store,
    seed: int,
    *,
    pace_ms: int = 0,
    isolation: Isolation | None = None,
    games: Sequence[str] | None = None,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[TournamentRow]:
    """Create (or find, to resume) the tournaments of demo cycle `seed` (`demo_plans`, with its
    `games` and `overrides`). A name some other tournament has taken (an organizer's, not marked as
    the demo's) is left alone: that game sits this cycle out, with a warning in the log. A resumed
    tournament plays on with the config it was created with."""
    tournaments = []
    for plan in demo_plans(seed, pace_ms=pace_ms, games=games, overrides=overrides):
        found = store.find_tournament(plan.name)
        if found is None:
            tournaments.append(create_tournament(store, plan, isolation=isolation))
        elif demo_cycle_of(found) == seed:
            tournaments.append(found)
        else:
            log.warning("the demo leaves %r alone: a tournament not the demo's has that name", plan.name)
    return tournaments


def prune_demo(store: Store, *, keep: int, playing: Sequence[TournamentRow] = ()) -> Deleted:
    """Delete the demo tournaments (their matches, results and replays) of all but the `keep` demo
    cycles created last, counting the cycle of `playing` (the one about to be played) as one of
    them; `playing` itself is never deleted. Tournaments without the demo's mark are never touched."""
    if keep < 1:
        raise ValueError(f"the demo keeps 1 cycle or more, not {keep}")
    playing_ids = {t.id for t in playing}
    current = {cycle for t in playing if (cycle := demo_cycle_of(t)) is not None}
    cycles = demo_cycles(store)
    others = [cycle for cycle in cycles if cycle not in current]
    kept = current | set(others[: max(0, keep - len(current))])
    doomed = [t.id for cycle, rows in cycles.items() if cycle not in kept for t in rows]
    return store.delete_tournaments([t for t in doomed if t not in playing_ids])


@dataclass(frozen=True)
class DemoCycle:
    """How one cycle of `run_demo_cycles` went."""

    seed: int
    summaries: list[TournamentSummary]
    deleted: Deleted  # what the retention deleted of older cycles before it

    @property
    def played(self) -> int:
        return sum(s.played for s in self.summaries)


def run_demo_cycles(
    store: Store,
    *,
    seed: int = 1,
    cycles: int = 0,
    keep: int = DEMO_KEEP,
    workers: int = 2,
    pace_ms: int = 0,
    live: LiveSink | None = None,
    stop: threading.Event | None = None,
    isolation: Isolation | None = None,
    games: Sequence[str] | None = None,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
    on_cycle: Callable[[DemoCycle], None] | None = None,
) -> None:
    """`serve --demo`'s loop: demo cycles one after another from `first_demo_cycle(store, seed)` until
    `stop` is set or cycle `seed + cycles` (`cycles` 0: no end), keeping the last `keep` cycles.

    Each cycle's tournaments are created (or resumed) first, then the older cycles beyond `keep` are
    deleted (`prune_demo`: nothing of the cycle about to be played, nothing that is not the demo's),
    then the cycle is played (`run_demo`'s way) and `on_cycle` hears how it went. `overrides` are
    `demo_plans`'."""
    if keep < 1:
        raise ValueError(f"the demo keeps 1 cycle or more, not {keep}")
    stop = stop or threading.Event()
    cycle = first_demo_cycle(store, seed)
    while not stop.is_set() and (cycles == 0 or cycle < seed + cycles):
        tournaments = open_demo_cycle(
            store, cycle, pace_ms=pace_ms, isolation=isolation, games=games, overrides=overrides
        )
        deleted = prune_demo(store, keep=keep, playing=tournaments)
        summaries = _play_demo(store, tournaments, workers=workers, live=live, stop=stop, isolation=isolation)
        if on_cycle is not None:
            on_cycle(DemoCycle(cycle, summaries, deleted))
        cycle += 1


def run_demo(
    store: Store,
    *,
    workers: int = 2,
    seed: int = 1,
    pace_ms: int = 0,
    live: LiveSink | None = None,
    stop: threading.Event | None = None,
    progress_for: Callable[[TournamentRow], ProgressSink | None] | None = None,
    isolation: Isolation | None = None,
    games: Sequence[str] | None = None,
) -> list[TournamentSummary]:
    """Create (or resume) and run `demo_plans(seed)` side by side on one executor, streaming to `live`.

    With `workers` > 0 the matches run in a process pool whose workers stream their matches to
    `live` through a queue; with 0 they run in the coordinators' threads.
    """
    tournaments = open_demo_cycle(store, seed, pace_ms=pace_ms, isolation=isolation, games=games)
    return _play_demo(
        store,
        tournaments,
        workers=workers,
        live=live,
        stop=stop,
        progress_for=progress_for,
        isolation=isolation,
    )


def _play_demo(
    store: Store,
    tournaments: Sequence[TournamentRow],
    *,
    workers: int,
    live: LiveSink | None,
    stop: threading.Event | None,
    isolation: Isolation | None,
    progress_for: Callable[[TournamentRow], ProgressSink | None] | None = None,
) -> list[TournamentSummary]:
    """Run the unfinished ones of `tournaments` side by side on one executor (`run_demo`)."""
    if all(t.status == "finished" for t in tournaments):
        return []  # a cycle an earlier run finished: no pool to start
    from botarena.core.credentials import WorkerSecrets
    from botarena.tournament.executor import LiveQueuePump, close_executor, live_queue_for_pool, make_executor

    queue = live_queue_for_pool() if workers and live is not None else None
    pump = LiveQueuePump(queue, live) if queue is not None and live is not None else None
    secrets = WorkerSecrets.of(store.connect_url)  # the pool's workers fetch artifacts from the store
    factory = (lambda: make_executor(workers, live_queue=queue, credentials=secrets)) if workers else None
    executor = factory() if factory is not None else None
    summaries: list[TournamentSummary] = []
    errors: list[BaseException] = []

    def run_one(tournament: TournamentRow) -> None:
        progress = progress_for(tournament) if progress_for is not None else None
        try:
            summaries.append(
                run_tournament(
                    store, tournament.id, executor, progress=progress, live=live, stop=stop,
                    executor_factory=factory, isolation=isolation,
                )
            )  # fmt: skip
        except BaseException as exc:  # reported by the caller's thread below
            errors.append(exc)

    threads = [
        threading.Thread(target=run_one, args=(t,), name=f"botarena-demo-{t.game}", daemon=True)
        for t in tournaments
        if t.status != "finished"
    ]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        if executor is not None:
            close_executor(executor, cancel=True)
        if pump is not None:
            pump.close()
    if errors:
        raise errors[0]
    return summaries
