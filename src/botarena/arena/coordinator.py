"""The arena's coordinator, `botarena arena run` (specs/arena.md: Components, Validation, Scheduler,
Ratings, Version states; goals G1, G3, G4, G11): one per competition, the only writer of its matches
and ratings.

- **One at a time.** A row of `arena_coordinators` (host, pid, heartbeat) is the lock: a second run
  for the same competition is refused (CoordinatorBusy: "competition C already has a coordinator
  (host, pid)"); a lock whose heartbeat is older than `stale_s`, or whose pid is gone on this host,
  is taken over. The heartbeat is stamped every `heartbeat_s`; a run whose lock was taken stops.
- **Resumable.** At start the scheduler is rebuilt from the store: active versions with
  `ratings_current`, the rated games of the last hour (fed through the scheduler in finish order),
  queued validations (their finished validation matches are kept, not played again), and the matches
  a killed run left unfinished, which are played again under their own key: `record_results` is
  exactly-once per key, and the rating update commits in the same transaction, so nothing is rated
  twice.
- **Event-driven.** Up to 2 x C tasks are in flight (C = `executor_slots`, re-counted now and then);
  whenever a task ends, the scheduler is asked for matches at once (no waves). Short matches ride
  several to a task (`BATCH_TARGET_S` of play, as the tournament batches). With nothing in flight
  the run waits on `stop` for `poll_s` (0.5 s by default) and then looks at the store: uploads arrive
  through the server process, so a new version is seen within one poll interval.
- **Validation.** `received -> validating -> ready | rejected`: the version's validation matches
  (`Scheduler` plans them first) are judged by `validation.judge` on its own seats, plus a re-run of
  one replay (`runner.verify.verify_replay`). A platform failure is replayed up to `MAX_ATTEMPTS`
  ("retrying (attempt n of 3)" on the match), never a rejection. A ready version with `activate`
  becomes the team's only active one; the previous one retires, and its running matches are rated
  for it when they end.
- **Rated results.** The result, its rating update (`rating.RatingBook`, arrival order: a task's
  results in match id order), the history rows, `ratings_current`, `first_rated_match_at` and the
  rating epoch commit in one transaction (`ArenaRunStore.record_rated`). A crash streak pauses a
  version (state `paused`, reason `crash_streak`); a match past its timeout is given up (its late
  result is ignored) and replayed.
- **Phase.** `open`: everything; `frozen`: rated matches go on, no new validation starts; `draft`,
  `paused`, `closed`: nothing new starts, running matches finish and are recorded.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from botarena.arena.competitions import policy_of
from botarena.arena.rating import RatingBook, VersionRating
from botarena.arena.scheduler import (
    MatchOutcome,
    MatchPlan,
    Scheduler,
    Seat,
)
from botarena.arena.validation import ValidationGame, judge, validation_seats
from botarena.arena.vocabulary import (
    Format,
    MatchKind,
    MatchReason,
    PauseReason,
    Phase,
    VersionKind,
    VersionState,
)
from botarena.core.registry import get_game
from botarena.core.rng import stream
from botarena.core.status import Status
from botarena.runner.record import MatchRecord
from botarena.store import Store
from botarena.store.arena import ArenaStore, CompetitionRow
from botarena.store.arena_runs import ArenaMatchView, ArenaRunStore, RatedWrite, RatingWrite, VersionView
from botarena.store.arena_versions import seat_name
from botarena.tournament.executor import (
    EntryRefused,
    MatchBatchResult,
    MatchFailure,
    MatchTask,
    MatchTaskError,
    close_executor,
    executor_slots,
    is_worker_loss,
    play_batch,
)
from botarena.tournament.service import BATCH_TARGET_S, MAX_ATTEMPTS, MAX_BATCH, SLOTS_RECOUNT_S

if TYPE_CHECKING:
    from botarena.arena.policy import ArenaPolicy
    from botarena.bots.resolve import Isolation
    from botarena.core.game import GameInfo

log = logging.getLogger(__name__)

POLL_S = 0.5  # how often an idle coordinator looks at the store for new versions and phase changes
HEARTBEAT_S = 2.0
STALE_S = 15.0  # a lock whose heartbeat is older than this is taken over
EXPECTED_MATCH_S = 60.0  # the preset's expected match length when the caller gives none
MATCH_SEED_LIMIT = 2**32
_SCHEDULING_PHASES = frozenset({Phase.OPEN, Phase.FROZEN})
_VALIDATING_PHASES = frozenset({Phase.OPEN, Phase.PAUSED, Phase.DRAFT})
_QUEUED = frozenset({VersionState.RECEIVED.value, VersionState.VALIDATING.value})
_BAD = (Status.CRASHED.value, Status.TIMEOUT.value, Status.INVALID.value)


@dataclass(frozen=True)
class CoordinatorOptions:
    """How the coordinator paces itself (seconds)."""

    poll_s: float = POLL_S
    heartbeat_s: float = HEARTBEAT_S
    stale_s: float = STALE_S
    expected_match_s: float = EXPECTED_MATCH_S
    max_in_flight: int | None = None  # tasks in flight at most; None: 2 x the executor's slots


@dataclass
class RunSummary:
    """What one `arena run` did."""

    competition_id: int
    rated: int = 0
    validation_matches: int = 0
    failed: int = 0
    platform_failures: int = 0
    validated: int = 0
    rejected: int = 0
    paused: list[int] = field(default_factory=list)
    resumed_matches: int = 0
    took_over: str | None = None
    stopped_because: str = "stopped"


@dataclass
class _Task:
    plans: list[MatchPlan]
    keys: tuple[str, ...]
    executor: Executor | None


def pid_alive(host: str, pid: int) -> bool:
    """Whether the coordinator `pid` on `host` may still run: gone only when it is this host's and
    the pid is free (another host's process cannot be asked: its heartbeat decides)."""
    if host != socket.gethostname():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def validation_config(
    game: GameInfo[Any], policy: ArenaPolicy, preset: str, overrides: dict[str, Any]
) -> tuple[str, dict[str, Any]]:
    """The (preset, overrides) a validation match plays: the policy's `validation_preset` when the
    organizer set one, else the competition's own with the game's `validation_preset` laid over it
    (Devops `smoke`: a small map and 60 turns, with the competition's wire model and rules kept)."""
    if policy.validation_preset:
        return policy.validation_preset, overrides
    if game.validation_preset is None:
        return preset, overrides
    return preset, {**overrides, **game.presets[game.validation_preset]}


def expected_match_s(game: Any, preset: str, config: Mapping[str, Any], default: float) -> float:
    """A match's expected length: `default`, or at least the pace of a paced game (its config's
    `turn_interval_ms`, Devops DV-51) times its `turn_limit`. The Devops course preset plays 2400
    turns at 1 s, 40 minutes: a 60 s guess would cancel every course match as overdue after 10
    minutes (`match_timeout_factor` x this) and replay it until it is given up."""
    from botarena.core.config import PacedConfig

    built = game.config(preset, dict(config))
    interval = built.turn_interval_ms if isinstance(built, PacedConfig) else 0
    turns = getattr(built, "turn_limit", None)
    if interval <= 0 or not isinstance(turns, int):
        return default
    return max(default, turns * interval / 1000.0)


def epoch(at: datetime | None) -> float:
    return at.timestamp() if at is not None else time.time()


class ArenaCoordinator:
    """One run of one competition's coordinator (see the module docstring)."""

    def __init__(
        self,
        store: Store,
        competition_id: int,
        executor: Executor,
        *,
        isolation: Isolation | None = None,
        executor_factory: Callable[[], Executor] | None = None,
        stop: threading.Event | None = None,
        options: CoordinatorOptions | None = None,
        live_url: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        from botarena.store.artifacts import artifact_source
        from botarena.tournament.service import resolved_isolation

        self.store = store
        self.arena = ArenaStore(store)
        self.runs = ArenaRunStore(store)
        found = self.arena.get_competition(competition_id)
        if found is None:
            raise LookupError(f"no competition {competition_id}")
        self.competition: CompetitionRow = found
        self.policy = policy_of(found)
        self.game = get_game(found.game)
        self.executor = executor
        self.executor_factory = executor_factory
        self.own_executors: list[Executor] = []
        self.isolation = resolved_isolation(isolation)
        self.stop = stop or threading.Event()
        self.options = options or CoordinatorOptions()
        self.live_url = live_url
        self.clock = clock
        self.artifact_source = artifact_source(store.connect_url)
        self.owner = secrets.token_hex(8)
        self.opponent = self.policy.validation_opponent or next(iter(self.game.starter_bots))
        self.scheduler = self._new_scheduler()
        self.book = RatingBook(self.policy.on_new_version)
        self.summary = RunSummary(competition_id)
        self.phase = Phase(found.phase)
        self.versions: dict[int, VersionView] = {}
        self.state: dict[int, str] = {}  # what this run last made of or saw in each version's state
        self.team_active: dict[int, int] = {}  # team -> its active version
        self.match_ids: dict[str, int] = {}
        self.live_attempt: dict[str, int] = {}  # key -> the attempt whose result counts
        self.errors: dict[str, str] = {}  # key -> the last platform failure, for "retrying" notes
        self.validation: dict[int, dict[int, ValidationGame]] = {}  # version -> game index -> game
        self.tasks: dict[Future[MatchBatchResult], _Task] = {}
        self.resubmit: list[MatchPlan] = []
        self.match_seconds: float | None = None
        self.played_seconds = 0.0
        self.played_count = 0
        self.max_tasks = 2
        self.slots_counted_at = -SLOTS_RECOUNT_S
        self.polled_at = -1e18
        self.beat_at = 0.0

    def _new_scheduler(self) -> Scheduler:
        match_format = Format(self.competition.format)
        world = match_format == Format.WORLD
        # in a world, `players` is the world's size; a validation match seats fewer (validation_seats)
        seats = validation_seats(self.competition.players, match_format, self.game.min_players)
        return Scheduler(
            self.policy,
            seed=self.competition.seed,
            players=seats,
            match_format=match_format,
            world_size=self.competition.players if world else None,
            validation_opponent=self.opponent,
            expected_match_s=self._expected_match_s(),
        )

    def _expected_match_s(self) -> float:
        """The longer of a rated and a validation match's expected lengths (one timeout covers both)."""
        rated = (self.competition.preset, dict(self.competition.config))
        validation = validation_config(self.game, self.policy, *rated)
        return max(
            expected_match_s(self.game, preset, config, self.options.expected_match_s)
            for preset, config in (rated, validation)
        )

    # ------------------------------------------------------------------------------ the run

    def run(self) -> RunSummary:
        """Claim the lock, rebuild the view from the store and play until `stop` is set (or the lock
        is lost). Running matches are abandoned at the end: the next run plays them again."""
        self.start()
        try:
            while not self.stop.is_set():
                self.tick()
        finally:
            self.close()
        return self.summary

    def start(self) -> None:
        """Claim the competition's lock (CoordinatorBusy when a live coordinator holds it) and
        rebuild the view from the store; `tick` then plays, `close` ends."""
        held = self.runs.claim_coordinator(
            self.competition.id,
            host=socket.gethostname(),
            pid=os.getpid(),
            owner=self.owner,
            stale_s=self.options.stale_s,
            alive=pid_alive,
        )
        if held is not None:
            self.summary.took_over = f"{held.host}, {held.pid}"
            log.warning("took over the stale coordinator lock of (%s)", self.summary.took_over)
        try:
            self.load()
        except BaseException:
            self.runs.release_coordinator(self.competition.id, self.owner)
            raise
        self.beat_at = time.monotonic()

    def tick(self) -> None:
        """One turn of the loop: heartbeat, poll the store, give up overdue matches, fill the free
        slots, wait for a task to end (or the poll interval), take what ended and fill again."""
        monotonic = time.monotonic()
        if monotonic - self.beat_at >= self.options.heartbeat_s:
            self.beat_at = monotonic
            if not self.runs.heartbeat(self.competition.id, self.owner):
                self.summary.stopped_because = "the coordinator lock was taken over"
                log.warning("the lock of competition %d was taken over: stopping", self.competition.id)
                self.stop.set()
                return
        if monotonic - self.polled_at >= self.options.poll_s:
            self.polled_at = monotonic
            self.poll()
        now = self.clock()
        for plan in self.scheduler.overdue(now):
            self.give_up_overdue(plan, now)
        self.fill(now)
        if self.collect(self.options.poll_s):
            self.fill(self.clock())  # a result frees its versions: the next matches start now

    def close(self) -> None:
        for future in self.tasks:
            future.cancel()
        for executor in self.own_executors:
            close_executor(executor, cancel=True)
        try:
            self.runs.release_coordinator(self.competition.id, self.owner)
        except Exception:  # the store is down: the lock goes stale and the next run takes it over
            log.exception("cannot release the coordinator lock")

    # ------------------------------------------------------------------------------ loading

    def load(self) -> None:
        """Rebuild the scheduler and the ratings from the store (see the module docstring)."""
        now = self.clock()
        tournament = self.competition.tournament_id
        ratings = self.runs.ratings(self.competition.id)
        self.book.ratings = {v: VersionRating(r.mu, r.sigma, r.games) for v, r in ratings.items()}
        for version in self.runs.versions(self.competition.id):
            self.versions[version.id] = version
            self.state[version.id] = version.state
        since = datetime.fromtimestamp(now, UTC) - timedelta(hours=1)
        recent = self.runs.matches(
            tournament, statuses=["finished"], kind=MatchKind.RATED.value, finished_since=since
        )
        fed: dict[int, int] = {}
        for match in recent:
            for seated in match.versions.values():
                fed[seated] = fed.get(seated, 0) + 1
        for entry in self.versions.values():
            if entry.state == VersionState.ACTIVE:
                self._schedule_active(entry, games_fed=fed.get(entry.id, 0), now=None)
        for match in recent:
            self._feed(match)
        everything = self.runs.matches(tournament)
        self.scheduler.continue_numbering(max((m.round for m in everything), default=0))
        for match in everything:
            self.match_ids[match.key] = match.id
            if match.status in ("scheduled", "running") and match.kind == MatchKind.RATED:
                self._resume_rated(match, now)
        self.phase = Phase(self.competition.phase)

    def _schedule_active(self, version: VersionView, *, games_fed: int, now: float | None) -> None:
        rating = self.book.ratings.get(version.id) or self.book.activate(version.id, version.inherits_from)
        self.team_active[version.team_id] = version.id
        games = max(0, rating.games - games_fed)
        self.scheduler.version_activated(version.id, version.team_id, rating.mu, rating.sigma, games, now)

    def _feed(self, match: ArenaMatchView) -> None:
        """A rated match of the last hour told to the scheduler as if it had just been played."""
        plan = self._plan_of(match)
        if plan is None or match.ranks is None:
            return
        statuses = [_seat_status(counts) for counts in match.statuses or ()]
        self.scheduler.match_started(plan, epoch(match.started_at))
        self.scheduler.match_finished(
            plan, epoch(match.finished_at), MatchOutcome.result(match.ranks, statuses)
        )

    def _plan_of(self, match: ArenaMatchView) -> MatchPlan | None:
        """The scheduler's plan of a stored match (seats: its versions, or the opponent's name)."""
        seats: list[Seat] = []
        for seat in range(len(match.seats)):
            version = match.versions.get(seat)
            seats.append(version if version is not None else self.opponent)
        if not any(isinstance(seat, int) for seat in seats):
            return None
        known = {reason.value for reason in MatchReason}
        reason = MatchReason(match.reason) if match.reason in known else MatchReason.DEFICIT
        return MatchPlan(match.round, MatchKind(match.kind), reason, tuple(seats), match.seed)

    def _resume_rated(self, match: ArenaMatchView, now: float) -> None:
        """A rated match a killed run left unfinished: played again under its key (first attempt of
        this run), counted in flight from now."""
        plan = self._plan_of(match)
        if plan is None:
            return
        self.scheduler.match_started(plan, now)
        self.resubmit.append(plan)
        self.summary.resumed_matches += 1

    # ------------------------------------------------------------------------------ polling

    def poll(self) -> None:
        """Look at the store: the phase, new versions, and what others changed (the organizer's
        disable and enable, a team's retire, a newer upload superseding a queued one)."""
        found = self.arena.get_competition(self.competition.id)
        if found is not None:
            self.competition = found
            self.phase = Phase(found.phase)
        now = self.clock()
        for version in self.runs.versions(self.competition.id):
            before = self.state.get(version.id)
            self.versions[version.id] = version
            if version.state != before:
                self.state[version.id] = version.state
                self._changed_elsewhere(version, before, now)
            elif version.state in _QUEUED and version.id not in self.validation:
                self._request_validation(version)  # new, or one a killed run had begun

    def _changed_elsewhere(self, version: VersionView, before: str | None, now: float) -> None:
        state = version.state
        if state in _QUEUED:
            self._request_validation(version)
        elif state == VersionState.SUPERSEDED:
            self.scheduler.validation_cancelled(version.id)
        elif state in (VersionState.DISABLED, VersionState.RETIRED, VersionState.PAUSED):
            if self.team_active.get(version.team_id) == version.id:
                del self.team_active[version.team_id]
            self.scheduler.version_disabled(version.id)
        elif state == VersionState.ACTIVE and before is not None:  # enabled again, or resumed
            self._schedule_active(version, games_fed=0, now=now)

    def _request_validation(self, version: VersionView) -> None:
        if self.phase not in _VALIDATING_PHASES:
            return  # frozen or closed: no new validation starts (it stays received)
        self.validation.setdefault(version.id, {})
        self.scheduler.validation_requested(version.id)

    # ------------------------------------------------------------------------------ submitting

    def count_slots(self) -> None:
        now = time.monotonic()
        if now - self.slots_counted_at < SLOTS_RECOUNT_S:
            return
        self.slots_counted_at = now
        self.max_tasks = self.options.max_in_flight or 2 * executor_slots(self.executor)

    def batch_size(self) -> int:
        """Matches per task: about BATCH_TARGET_S of play once a match has been measured."""
        if self.match_seconds is None:
            return 1
        return max(1, min(MAX_BATCH, int(BATCH_TARGET_S / max(self.match_seconds, 1e-4))))

    def fill(self, now: float) -> None:
        """Ask the scheduler for as many matches as free task slots take, and submit them."""
        self.count_slots()
        plans, self.resubmit = self.resubmit, []
        free = self.max_tasks - len(self.tasks)
        if self.phase in _SCHEDULING_PHASES and free > 0:
            batch = self.batch_size()
            wanted = free * batch - len(plans)
            if wanted > 0:
                plans.extend(self.scheduler.next_matches(wanted, now))
        ready = [plan for plan in (self.prepare(plan, now) for plan in plans) if plan is not None]
        # about BATCH_TARGET_S per task, but never so many that a free task slot goes without work
        batch = max(1, min(self.batch_size(), len(ready) // max(1, free)))
        for start in range(0, len(ready), batch):
            self.submit(ready[start : start + batch])

    def prepare(self, plan: MatchPlan, now: float) -> MatchPlan | None:
        """The plan's match row (made once per key); None when it needs no task: a validation game a
        killed run had finished (judged from the store). A URL entry's address is not looked up here:
        the worker checks it right before the match (`bots.urls.sealed_url_bot`), so a name whose
        resolver or TLS handshake stalls holds its own match only, never the coordinator's loop."""
        key = self.key_of(plan)
        versions = {seat: v for seat, v in enumerate(plan.seats) if isinstance(v, int)}
        match_id = self.match_ids.get(key)
        if match_id is None:
            match_id = self.runs.add_match(
                self.competition.tournament_id, key=key, round=plan.number, seats=self.row_seats(plan),
                seed=plan.seed, kind=plan.kind.value, reason=plan.reason.value, versions=versions,
            )  # fmt: skip
            self.match_ids[key] = match_id
        if plan.kind == MatchKind.VALIDATION:
            version = plan.versions[0]
            self._mark_validating(version)
            row = self.store.get_match(match_id)
            if row is not None and row.status == "finished" and row.replay_hash:
                self._validation_result(plan, self.store.load_replay(row.replay_hash), now)
                return None
        self.live_attempt[key] = plan.attempt
        return plan

    def _mark_validating(self, version: int) -> None:
        received = VersionState.RECEIVED.value
        if self.state.get(version) != received:
            return
        if self.runs.set_state(version, VersionState.VALIDATING.value, only_from=[received]):
            self.state[version] = VersionState.VALIDATING

    def submit(self, plans: list[MatchPlan]) -> None:
        keys = tuple(self.key_of(plan) for plan in plans)
        self.store.mark_running_many(self.competition.tournament_id, keys)
        tasks = [self.task(plan) for plan in plans]
        executor = self.executor
        try:
            future = executor.submit(play_batch, tasks)
        except BrokenProcessPool as exc:  # broken since the last collect: replaced when it is ours
            future = Future()
            future.set_exception(exc)
        except RuntimeError as exc:  # shut down under us: nothing more can be played in this run
            self.summary.stopped_because = f"the executor is shut down ({exc})"
            self.stop.set()
            future = Future()
            future.set_exception(exc)
        self.tasks[future] = _Task(plans, keys, executor)

    def task(self, plan: MatchPlan) -> MatchTask:
        specs: list[str] = []
        artifacts: list[str | None] = []
        for seat in plan.seats:
            if isinstance(seat, str):
                specs.append(seat)
                artifacts.append(None)
                continue
            version = self.versions[seat]
            specs.append(version.spec or "")
            artifacts.append(version.artifact)
        preset, overrides = self.competition.preset, dict(self.competition.config)
        if plan.kind == MatchKind.VALIDATION:
            preset, overrides = validation_config(self.game, self.policy, preset, overrides)
        key = self.key_of(plan)
        return MatchTask(
            tournament_id=self.competition.tournament_id, key=key, game=self.competition.game,
            preset=preset, overrides=overrides, seed=plan.seed,
            seats=tuple(self.seat_names(plan)), specs=tuple(specs), match_id=self.match_ids.get(key),
            isolation=self.isolation, artifacts=tuple(artifacts), artifact_source=self.artifact_source,
            live_url=self.live_url, replay_target=self._replay_target(), url_allow=self._url_allow(),
        )  # fmt: skip

    def _url_allow(self) -> tuple[str, ...] | None:
        """What a worker checks the match's URL entries against (None: the policy takes none now)."""
        return tuple(self.policy.url_allow) if self.policy.allow_url else None

    def _replay_target(self) -> str | None:
        from pathlib import Path

        from botarena.tournament.executor import WorkerPool

        target = self.store.replays.target
        directory = getattr(self.store.replays, "root", None)
        if target is None and isinstance(self.executor, WorkerPool) and isinstance(directory, Path):
            target = directory.absolute().as_uri()
        return target

    def key_of(self, plan: MatchPlan) -> str:
        """A rated match's key is its number; a validation game's names its version and its index,
        so that a resumed validation finds the games a killed run finished."""
        if plan.kind == MatchKind.VALIDATION:
            return f"val-{plan.versions[0]}-{self.validation_index(plan)}"
        return f"m{plan.number}"

    def validation_index(self, plan: MatchPlan) -> int:
        version = plan.versions[0]
        for game in range(self.scheduler.validation_games):
            name = f"arena.validation.{version}.{game}"
            if int(stream(self.competition.seed, name).integers(0, MATCH_SEED_LIMIT)) == plan.seed:
                return game
        raise AssertionError(f"validation plan {plan.number} has no game index")

    @staticmethod
    def row_seats(plan: MatchPlan) -> list[str]:
        """How the match row names its seats: `version:<id>` (store.arena_versions.seat_name, what the
        arena's reads and routes look a seat's version and team up by) or `starter:NAME`."""
        return [f"starter:{seat}" if isinstance(seat, str) else seat_name(seat) for seat in plan.seats]

    def seat_names(self, plan: MatchPlan) -> list[str]:
        """The seats' display names in the match's replay: `team#number` or `starter:NAME`."""
        names = []
        for seat in plan.seats:
            if isinstance(seat, str):
                names.append(f"starter:{seat}")
            else:
                version = self.versions[seat]
                names.append(f"{version.team_name}#{version.number}")
        return names

    # ------------------------------------------------------------------------------ collecting

    def collect(self, timeout: float) -> int:
        """Wait up to `timeout` for a task to end (or on `stop` when none runs), then take what
        ended; returns how many tasks ended."""
        if not self.tasks:
            self.stop.wait(timeout)
            return 0
        deadline = self.scheduler.next_deadline()
        if deadline is not None:
            timeout = max(0.0, min(timeout, deadline - self.clock()))
        done, _ = wait(list(self.tasks), timeout=timeout, return_when=FIRST_COMPLETED)
        for future in done:
            task = self.tasks.pop(future)
            try:
                results = future.result()
            except Exception as exc:  # the whole task was lost: never a bot's doing
                self.task_lost(task, exc)
            else:
                self.take(task, results)
        return len(done)

    def task_lost(self, task: _Task, exc: BaseException) -> None:
        if is_worker_loss(exc) and task.executor is self.executor:
            self.replace_executor()
        now = self.clock()
        for plan in task.plans:
            if self._counts(plan):
                self.platform_failed(plan, f"{type(exc).__name__}: {exc}", now)

    def replace_executor(self) -> None:
        if self.executor_factory is None:
            return
        log.warning("the process pool broke; starting a new one")
        if self.executor in self.own_executors:
            close_executor(self.executor, cancel=True)
            self.own_executors.remove(self.executor)
        self.executor = self.executor_factory()
        self.own_executors.append(self.executor)

    def _counts(self, plan: MatchPlan) -> bool:
        """Whether this attempt's outcome is the one that counts (not given up as overdue)."""
        return self.live_attempt.get(self.key_of(plan)) == plan.attempt

    def take(self, task: _Task, results: MatchBatchResult) -> None:
        """A task's outcomes: results recorded (rated ones with their ratings, one transaction for
        the task), failures judged as the platform's or the bot's."""
        by_key = {result.key: result for result in results}
        plans = sorted(
            (plan for plan in task.plans if self._counts(plan)), key=lambda p: self.match_ids[self.key_of(p)]
        )
        records = [(p, r) for p in plans if isinstance(r := by_key.get(self.key_of(p)), MatchRecord)]
        records = [(p, r) for p, r in records if self._replay_kept(p, r)]
        self.record(records)
        now = self.clock()
        for plan in plans:
            result = by_key.get(self.key_of(plan))
            if isinstance(result, MatchFailure):
                if result.refused_seats:  # a URL entry refused on the worker, right before the match
                    culprits = {plan.seats[i] for i in result.refused_seats if i < len(plan.seats)}
                    why = result.error.removeprefix(f"{EntryRefused.__name__}: ")
                    error = f"refused at match time: {why}"
                    self.bot_failed(plan, error, now, unreachable=True, culprits=culprits)
                elif result.platform or not result.error.startswith(MatchTaskError.__name__):
                    self.platform_failed(plan, result.error, now)
                else:
                    self.bot_failed(plan, result.error, now)
            elif result is None:
                self.platform_failed(plan, "RuntimeError: the task returned no result for it", now)

    def _replay_kept(self, plan: MatchPlan, record: MatchRecord) -> bool:
        if record.replay_hash is None or self.store.replays.exists(record.replay_hash):
            return True
        self.platform_failed(plan, f"ReplayMissing: {record.replay_hash} is not in the store", self.clock())
        return False

    def record(self, records: Sequence[tuple[MatchPlan, MatchRecord]]) -> None:
        """Record the results (match id order) with their rating updates in one transaction, then
        tell the scheduler and judge the validations they complete."""
        if not records:
            return
        writes = self.rate(records)
        try:
            written = self.runs.record_rated(
                self.competition.tournament_id, self.competition.id, [r for _, r in records], writes
            )
        except Exception:
            self._reload_ratings()  # nothing was written: the book must not keep what it applied
            raise
        if not all(written[i] for i, (plan, _) in enumerate(records) if self.key_of(plan) in writes):
            self._reload_ratings()  # another writer recorded one of them first: the store's state wins
        now = self.clock()
        for plan, record in records:
            self._note_duration(record)
            if plan.kind == MatchKind.VALIDATION:
                self.summary.validation_matches += 1
                self._validation_record(plan, record, now)
            else:
                self._rated_finished(plan, record, now)

    def rate(self, records: Sequence[tuple[MatchPlan, MatchRecord]]) -> dict[str, RatedWrite]:
        writes: dict[str, RatedWrite] = {}
        for plan, record in records:
            if plan.kind != MatchKind.RATED:
                continue
            key = self.key_of(plan)
            versions = plan.versions
            for version in versions:
                if version not in self.book.ratings:
                    self.book.activate(version, self.versions[version].inherits_from)
            update = self.book.record(self.match_ids[key], versions, record.ranks)
            ratings = [RatingWrite(v, r.mu, r.sigma, r.games) for v, r in update.ratings.items()]
            writes[key] = RatedWrite(ratings, update.rows)
        return writes

    def _reload_ratings(self) -> None:
        ratings = self.runs.ratings(self.competition.id)
        self.book.ratings = {v: VersionRating(r.mu, r.sigma, r.games) for v, r in ratings.items()}

    def _note_duration(self, record: MatchRecord) -> None:
        self.played_seconds += record.duration_s
        self.played_count += 1
        self.match_seconds = self.played_seconds / self.played_count

    def _rated_finished(self, plan: MatchPlan, record: MatchRecord, now: float) -> None:
        self.summary.rated += 1
        statuses = [_seat_status(counts) for counts in record.statuses]
        ratings = {v: (self.book.ratings[v].mu, self.book.ratings[v].sigma) for v in plan.versions}
        report = self.scheduler.match_finished(
            plan, now, MatchOutcome.result(record.ranks, statuses), ratings
        )
        for version in report.paused:
            self.pause(version)

    def pause(self, version: int) -> None:
        window = self.policy.crash_window
        reason = f"CRASHED or TIMEOUT in {self.policy.crash_streak} of its last {window} rated matches"
        moved = self.runs.set_state(
            version, VersionState.PAUSED.value, reason_code=PauseReason.CRASH_STREAK.value, reason=reason,
            only_from=[VersionState.ACTIVE.value],
        )  # fmt: skip
        if moved:
            self.state[version] = VersionState.PAUSED
            team = self.versions[version].team_id
            if self.team_active.get(team) == version:
                del self.team_active[team]
            self.summary.paused.append(version)

    # ------------------------------------------------------------------------------ failures

    def platform_failed(self, plan: MatchPlan, error: str, now: float) -> None:
        """Not the bots' doing: replayed (the same key) up to MAX_ATTEMPTS, never rated."""
        key = self.key_of(plan)
        self.summary.platform_failures += 1
        self.live_attempt.pop(key, None)
        report = self.scheduler.match_finished(plan, now, MatchOutcome.platform())
        tournament = self.competition.tournament_id
        if report.retry is not None:
            note = f"retrying (attempt {report.retry.attempt} of {MAX_ATTEMPTS}): {error}"
            self.store.postpone(tournament, key, note)
            log.warning("match %s: %s", key, note)
        elif report.abandoned:
            self.store.record_failure(
                tournament, key, f"platform failure, given up after {plan.attempt} attempts: {error}"
            )
        if report.validated is not None:
            self.judge(report.validated, now)

    def bot_failed(
        self,
        plan: MatchPlan,
        error: str,
        now: float,
        *,
        unreachable: bool = False,
        culprits: Collection[Seat] | None = None,
    ) -> None:
        """The match cannot be played because of an entry (a spec that does not resolve, a URL that
        is refused): recorded failed, never rated, a setup failure for a validation. `culprits`: the
        versions at fault (a refused URL entry), the only seats counted CRASHED (their crash streak);
        None: every version seat."""
        key = self.key_of(plan)
        self.live_attempt.pop(key, None)
        self.store.record_failure(self.competition.tournament_id, key, error)
        self.summary.failed += 1
        if plan.kind == MatchKind.VALIDATION:
            seats = tuple(i for i, seat in enumerate(plan.seats) if isinstance(seat, int))
            game = ValidationGame(None, seats, setup_error=error, unreachable=unreachable)
            self.validation.setdefault(plan.versions[0], {})[self.validation_index(plan)] = game
            report = self.scheduler.match_finished(plan, now, MatchOutcome.failed([]))
            if report.validated is not None:
                self.judge(report.validated, now)
            return
        # The opponent of a refused entry did nothing wrong: OK for it, CRASHED for the culprit only.
        statuses = [
            Status.CRASHED if isinstance(seat, int) and (culprits is None or seat in culprits) else Status.OK
            for seat in plan.seats
        ]
        report = self.scheduler.match_finished(plan, now, MatchOutcome.failed(statuses))
        for version in report.paused:
            self.pause(version)

    def give_up_overdue(self, plan: MatchPlan, now: float) -> None:
        """A match running past its timeout: its result, should it still come, is ignored, and the
        match is replayed as a platform failure."""
        timeout = self.scheduler.match_timeout_s
        self.platform_failed(plan, f"MatchTimeout: running longer than {timeout:g} s, cancelled", now)

    # ------------------------------------------------------------------------------ validation

    def _validation_record(self, plan: MatchPlan, record: MatchRecord, now: float) -> None:
        row = self.store.get_match(self.match_ids[self.key_of(plan)])
        if row is None or not row.replay_hash:
            self.platform_failed(plan, "ReplayMissing: the validation replay was not stored", now)
            return
        self._validation_result(plan, self.store.load_replay(row.replay_hash), now)

    def _validation_result(self, plan: MatchPlan, replay: Any, now: float) -> None:
        version = plan.versions[0]
        seats = tuple(i for i, seat in enumerate(plan.seats) if seat == version)
        self.validation.setdefault(version, {})[self.validation_index(plan)] = ValidationGame(replay, seats)
        self.scheduler.match_started(plan, now)  # no-op for a plan in flight; counts a stored one
        report = self.scheduler.match_finished(plan, now, MatchOutcome.result([1] * len(plan.seats), []))
        if report.validated is not None:
            self.judge(report.validated, now)

    def judge(self, version: int, now: float) -> None:
        """The verdict on a version whose validation games have all ended."""
        from botarena.runner.verify import verify_replay

        games_by_index = self.validation.pop(version, {})
        current = self.runs.get_version(version)
        if current is None or current.state not in _QUEUED:  # superseded or disabled meanwhile
            return
        games = [games_by_index[i] for i in sorted(games_by_index)]
        if len(games) < self.scheduler.validation_games:  # a game was given up for the platform's reasons
            log.warning("version %d: validation incomplete (platform trouble), queued again", version)
            self.validation[version] = games_by_index
            self.scheduler.validation_requested(version)
            return
        mismatch = None
        first = next((game.replay for game in games if game.replay is not None), None)
        if first is not None:
            verified = verify_replay(first)
            if not verified.identical:
                mismatch = f"{verified.where}: {verified.detail}"
        verdict = judge(
            games, max_timeout_fraction=self.policy.max_timeout_fraction, verify_mismatch=mismatch,
            url_entry=current.kind == VersionKind.URL,
        )  # fmt: skip
        if not verdict.passed:
            assert verdict.code is not None
            self.runs.set_state(
                version, VersionState.REJECTED.value, reason_code=verdict.code.value,
                reason=verdict.first_error, log=verdict.log, validated=True,
            )  # fmt: skip
            self.state[version] = VersionState.REJECTED
            self.summary.rejected += 1
            return
        if not self.runs.set_state(version, VersionState.READY.value, validated=True, only_from=_QUEUED):
            return  # superseded or disabled since it was read above
        self.state[version] = VersionState.READY
        self.summary.validated += 1
        if current.activate:
            self.activate(current, now)

    def activate(self, version: VersionView, now: float) -> None:
        """`version` becomes its team's only active one; the previous one retires (its running
        matches finish and are rated for it); its rating starts under `on_new_version`."""
        previous = self.team_active.get(version.team_id)
        fresh = version.id not in self.book.ratings
        start = self.book.activate(version.id, previous)
        write = RatingWrite(version.id, start.mu, start.sigma, start.games) if fresh else None
        self.runs.activate(self.competition.id, version.id, previous, write)
        if previous is not None:
            self.scheduler.version_retired(previous)
            self.state[previous] = VersionState.RETIRED
        self.state[version.id] = VersionState.ACTIVE
        self.versions[version.id] = replace(version, state=VersionState.ACTIVE.value, inherits_from=previous)
        self.team_active[version.team_id] = version.id
        self.scheduler.version_activated(version.id, version.team_id, start.mu, start.sigma, start.games, now)


def _seat_status(counts: Mapping[str, int]) -> Status:
    """A seat's status in a finished match: its worst verdict (CRASHED, TIMEOUT, INVALID) or OK."""
    for status in _BAD:
        if counts.get(status, 0):
            return Status(status)
    return Status.OK
