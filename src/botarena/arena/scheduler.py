"""The arena's continuous scheduler (specs/arena.md, *Scheduler*): pure decisions on an in-memory view of
the competition, fed events by the coordinator and asked for matches whenever slots are free.

No store, no executor, no clock: every event and decision takes `now` (seconds, any epoch). The view is
kept incrementally, so a decision costs O(active versions) and never reads the history (goal G6):

- per active version: team, mu, sigma, rated games, games in the last hour (pruned from one deque of
  finish times as time passes), matches in flight, seat counts, meetings with each opponent in the last
  hour (pruned the same way), when its last match ended (idle time), the crash/timeout outcome of its
  last `crash_window` rated matches and its mean match duration;
- the mu ranking as a list kept sorted with `bisect`;
- pending validations, retries, and the matches in flight with their start times.

`next_matches(free_slots, now)` fills the free slots at once, in class order: retries of platform
failures, validation (up to 100 % of the slots, `validation_games` plans per version, the version in
each seat against the opponent named by the policy), placement (versions with fewer than P rated
games, up to `placement_share` of the capacity), rated (the rest). A seed is drawn at random among the
20 most deserving versions not at `max_in_flight_per_version` (largest deficit of games in the last
hour against its share, then longest idle); its opponents come from a window of the mu ranking of
random size ceil(5 / (0.01 + U) ** 0.65), half above and half below it, never of its own team nor busy,
fewest meetings within the last hour first; seats go to whoever sat least in that seat. In the `world`
format one match takes every ready active version (or `players` of them by deficit); the next starts
when it ends or when `world_every_s` has passed since it started.

`match_finished` counts the result, reports a version whose own seats ended CRASHED or TIMEOUT in
`crash_streak` of its last `crash_window` rated matches (to be paused, reason crash_streak), and queues
a platform failure for replay (same match, next attempt, up to `MAX_ATTEMPTS`), never counting it.
`overdue(now)` names the matches running longer than their timeout, for cancel-and-replay.
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_left, insort
from collections import Counter, deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum

from botarena.arena.policy import ArenaPolicy
from botarena.arena.rating import placement_games
from botarena.arena.vocabulary import Format, MatchKind, MatchReason, PauseReason
from botarena.core.rng import stream
from botarena.core.status import Status
from botarena.tournament.service import MAX_ATTEMPTS

VersionId = int
TeamId = int
Seat = VersionId | str
"""A seat's entrant: an arena version, or (validation only) the opponent's bot spec."""

HOUR_S = 3600.0
EXACT_SEATING_MAX = 64  # world matches up to this size are seated seat by seat (O(size^2))
SEED_POOL = 20  # the seed is drawn among this many of the most deserving versions (Halite-III PR #200)
MATCH_SEED_LIMIT = 2**32
_BAD_STATUSES = frozenset({Status.CRASHED, Status.TIMEOUT})


class OutcomeKind(StrEnum):
    """How a match ended: with `ranks`; `failed` by the bots' doing (no result, never rated, but it
    counts as a game played and in the crash window); or a `platform` failure (replayed, never counted)."""

    RESULT = "result"
    FAILED = "failed"
    PLATFORM = "platform"


@dataclass(frozen=True)
class MatchOutcome:
    """What the coordinator tells the scheduler about a finished match: the kind, the ranks (1-based, per
    seat) for a result, and each seat's own status."""

    kind: OutcomeKind
    ranks: tuple[int, ...] | None = None
    statuses: tuple[Status, ...] = ()

    @classmethod
    def result(cls, ranks: Iterable[int], statuses: Iterable[Status]) -> MatchOutcome:
        return cls(OutcomeKind.RESULT, tuple(ranks), tuple(statuses))

    @classmethod
    def failed(cls, statuses: Iterable[Status]) -> MatchOutcome:
        return cls(OutcomeKind.FAILED, None, tuple(statuses))

    @classmethod
    def platform(cls) -> MatchOutcome:
        return cls(OutcomeKind.PLATFORM)


@dataclass(frozen=True)
class MatchPlan:
    """A match to play. `number` is the scheduler's counter (a replay keeps it, with the next `attempt`);
    `seats` are versions in seat order (a `str` seat is the validation opponent); `seed` comes from the
    competition seed and the counter (`H(seed, version, i)` for validation)."""

    number: int
    kind: MatchKind
    reason: MatchReason
    seats: tuple[Seat, ...]
    seed: int
    attempt: int = 1

    @property
    def versions(self) -> tuple[VersionId, ...]:
        """The arena versions in this match, in seat order."""
        return tuple(seat for seat in self.seats if isinstance(seat, int))


@dataclass(frozen=True)
class FinishReport:
    """What a finished match asks of the coordinator: versions to pause (reason `crash_streak`), the
    replay queued for a platform failure, whether it was given up after `MAX_ATTEMPTS`, and the version
    whose validation matches have now all finished (to be judged)."""

    paused: tuple[VersionId, ...] = ()
    pause_reason: PauseReason = PauseReason.CRASH_STREAK
    retry: MatchPlan | None = None
    abandoned: bool = False
    validated: VersionId | None = None


@dataclass
class _Version:
    """The scheduler's view of one active version (or a retired one with matches still running)."""

    id: VersionId
    team: TeamId
    mu: float
    sigma: float
    games: int
    last_end: float
    active: bool = True
    recent: int = 0  # games finished within the last hour
    in_flight: int = 0
    seat_counts: Counter[int] = field(default_factory=Counter)
    seat_sum: int = 0
    seat_games: int = 0
    met: Counter[VersionId] = field(default_factory=Counter)  # meetings within the last hour
    outcomes: deque[bool] = field(default_factory=deque)  # True: own seat CRASHED or TIMEOUT
    bad: int = 0
    duration_sum: float = 0.0
    duration_count: int = 0

    @property
    def rank_key(self) -> tuple[float, VersionId]:
        return (self.mu, self.id)

    def mean_seat(self) -> float:
        return self.seat_sum / self.seat_games if self.seat_games else 0.0


@dataclass
class _Running:
    plan: MatchPlan
    started: float
    reported_overdue: bool = False


@dataclass
class SchedulerStats:
    """Counters of the work done: `examined` counts versions looked at by decisions and pruning (the
    cost test counts these), the rest what `/stats` shows."""

    examined: int = 0
    plans: int = 0
    retried: int = 0
    abandoned: int = 0


class Scheduler:
    """The arena's scheduler for one competition (see the module docstring)."""

    def __init__(
        self,
        policy: ArenaPolicy,
        *,
        seed: int,
        players: int = 2,
        match_format: Format = Format.PAIRS,
        world_size: int | None = None,
        validation_opponent: str = "starter",
        expected_match_s: float = 60.0,
    ) -> None:
        """`players`: seats of a `pairs` match and of a validation match; `world_size`: the most
        versions in one `world` match (None: every ready one); `expected_match_s`: the preset's expected
        match length, times `match_timeout_factor` the timeout after which a match is overdue."""
        if players < 2:
            raise ValueError(f"a match needs 2 or more players, got {players}")
        if world_size is not None and world_size < 2:
            raise ValueError(f"a world match needs 2 or more players, got {world_size}")
        self.policy = policy
        self.seed = seed
        self.players = players
        self.format = match_format
        self.world_size = world_size
        self.validation_opponent = validation_opponent
        self.validation_games = policy.validation_games or players
        self.match_timeout_s = policy.match_timeout_factor * expected_match_s
        self.placement_games = placement_games(players, world=match_format == Format.WORLD)
        self.stats = SchedulerStats()
        self._rng = stream(seed, "arena.scheduler")
        self._versions: dict[VersionId, _Version] = {}
        self._active_count = 0
        self._ranking: list[tuple[float, VersionId]] = []
        self._recent_games: deque[tuple[float, VersionId]] = deque()
        self._recent_total = 0
        self._recent_meetings: deque[tuple[float, VersionId, VersionId]] = deque()
        self._validations: dict[VersionId, int] = {}  # version -> validation games not yet planned
        self._validation_open: Counter[VersionId] = Counter()  # planned, not yet finished
        self._validation_queue: deque[VersionId] = deque()
        self._retries: deque[MatchPlan] = deque()
        self._running: dict[int, _Running] = {}
        self._running_by_reason: Counter[MatchReason] = Counter()
        self._counter = 0
        self._world_started: float | None = None
        self._world_running = 0
        self._world_ended = False  # a world match ended since the last one started

    # ----- events -----

    def version_activated(
        self,
        version: VersionId,
        team: TeamId,
        mu: float,
        sigma: float,
        games: int = 0,
        now: float | None = None,
    ) -> None:
        """`version` of `team` plays from now on with this rating (also when a paused or disabled
        version is enabled again: its crash window starts afresh)."""
        idle_since = -math.inf if now is None else now
        entry = self._versions.get(version)
        if entry is not None and entry.active:  # a new rating for a version already playing
            self._ranking.pop(self._rank_index(entry))
            entry.team, entry.mu, entry.sigma, entry.games = team, mu, sigma, games
            insort(self._ranking, entry.rank_key)
            return
        if entry is None:
            entry = _Version(version, team, mu, sigma, games, idle_since)
            self._versions[version] = entry
        else:  # retired or paused with matches still running: keep what those count
            entry.team, entry.mu, entry.sigma, entry.games = team, mu, sigma, games
            entry.last_end = max(entry.last_end, idle_since)
            entry.active = True
        entry.outcomes = deque(maxlen=self.policy.crash_window)
        entry.bad = 0
        self._active_count += 1
        self._recent_total += entry.recent
        insort(self._ranking, entry.rank_key)

    def version_retired(self, version: VersionId) -> None:
        """`version` stops being scheduled; its matches in flight finish and are counted for it."""
        self._deactivate(version)

    def version_paused(self, version: VersionId) -> None:
        """Paused (crash streak): not scheduled until activated again."""
        self._deactivate(version)

    def version_disabled(self, version: VersionId) -> None:
        """Disabled by the organizer: not scheduled until activated again."""
        self._deactivate(version)

    def continue_numbering(self, last: int) -> None:
        """Number new plans after `last` (on resume: the highest match number the store holds)."""
        self._counter = max(self._counter, last)

    def validation_requested(self, version: VersionId) -> None:
        """Queue `version`'s validation matches (served before any rated match, in request order)."""
        if version in self._validations:
            return
        self._validations[version] = self.validation_games
        self._validation_queue.append(version)

    def validation_cancelled(self, version: VersionId) -> None:
        """A newer upload superseded `version` in the queue: its unplanned validation games are dropped."""
        self._validations.pop(version, None)

    def ratings_updated(self, ratings: Mapping[VersionId, tuple[float, float]]) -> None:
        """New (mu, sigma) of some versions, after a rated result: the ranking moves them."""
        for version, (mu, sigma) in ratings.items():
            entry = self._versions.get(version)
            if entry is None:
                continue
            if entry.active:
                self._ranking.pop(self._rank_index(entry))
                entry.mu, entry.sigma = mu, sigma
                insort(self._ranking, entry.rank_key)
            else:
                entry.mu, entry.sigma = mu, sigma

    def match_started(self, plan: MatchPlan, now: float) -> None:
        """`plan` started at `now`: restamps a plan this scheduler made (the task began on a worker, so
        its timeout runs from here), or takes in one it did not make (matches found running on resume)."""
        running = self._running.get(plan.number)
        if running is not None:
            running.started = now
            return
        self._counter = max(self._counter, plan.number)
        if plan.kind == MatchKind.VALIDATION:
            self._validation_open[plan.versions[0]] += 1
        self._register(plan, now)

    def match_finished(
        self,
        plan: MatchPlan,
        now: float,
        outcome: MatchOutcome,
        ratings: Mapping[VersionId, tuple[float, float]] | None = None,
    ) -> FinishReport:
        """`plan` ended at `now`; counts it unless a platform failure (which is queued for replay)."""
        running = self._running.pop(plan.number, None)
        if running is None:
            return FinishReport()
        self._advance(now)
        self._release(running, now)
        if ratings:
            self.ratings_updated(ratings)
        if outcome.kind == OutcomeKind.PLATFORM:
            report = self._platform_failure(plan)
        elif plan.kind == MatchKind.VALIDATION:
            report = FinishReport(validated=self._validation_done(plan))
        else:
            self._count_game(plan, now, outcome)
            report = FinishReport(paused=self._crash_streaks(plan, outcome))
        self._forget_if_gone(plan.versions)
        return report

    def overdue(self, now: float) -> list[MatchPlan]:
        """The matches running longer than their timeout, each named once: the coordinator cancels them
        and reports each as a platform failure (replayed, up to `MAX_ATTEMPTS`)."""
        late: list[MatchPlan] = []
        for running in self._running.values():
            if not running.reported_overdue and now - running.started > self.match_timeout_s:
                running.reported_overdue = True
                late.append(running.plan)
        return late

    def next_deadline(self) -> float | None:
        """The next time a decision can change with no event (the world cadence, a match's timeout)."""
        times = [running.started + self.match_timeout_s for running in self._running.values()]
        if self.format == Format.WORLD and self._world_started is not None:
            times.append(self._world_started + self.policy.world_every_s)
        return min(times, default=None)

    # ----- decisions -----

    def next_matches(self, free_slots: int, now: float) -> list[MatchPlan]:
        """Plans for up to `free_slots` matches, started at `now` (see the module docstring)."""
        self._advance(now)
        plans: list[MatchPlan] = []
        self._take(plans, self._retry_plans(free_slots), now)
        self._take(plans, self._validation_plans(free_slots - len(plans)), now)
        if self.format == Format.WORLD:
            if len(plans) < free_slots:
                self._take(plans, self._world_plan(now), now)
            return plans
        capacity = len(self._running) + free_slots - len(plans)
        placement_room = min(free_slots - len(plans), self._placement_cap(capacity))
        self._pair_plans(plans, placement_room, now, placement=True)
        self._pair_plans(plans, free_slots - len(plans), now, placement=False)
        return plans

    @property
    def in_flight(self) -> int:
        return len(self._running)

    def in_flight_by_reason(self) -> dict[MatchReason, int]:
        return dict(self._running_by_reason)

    def waiting_validations(self) -> int:
        return sum(1 for remaining in self._validations.values() if remaining > 0)

    def games_last_hour(self, version: VersionId) -> int:
        entry = self._versions.get(version)
        return 0 if entry is None else entry.recent

    def active_versions(self) -> list[VersionId]:
        return [version for _, version in self._ranking]

    # ----- internals: the view -----

    def _deactivate(self, version: VersionId) -> None:
        entry = self._versions.get(version)
        if entry is None or not entry.active:
            return
        self._ranking.pop(self._rank_index(entry))
        entry.active = False
        self._active_count -= 1
        self._recent_total -= entry.recent
        if entry.in_flight == 0:
            del self._versions[version]

    def _rank_index(self, entry: _Version) -> int:
        index = bisect_left(self._ranking, entry.rank_key)
        if index >= len(self._ranking) or self._ranking[index] != entry.rank_key:
            raise AssertionError(f"version {entry.id} is not in the ranking")
        return index

    def _advance(self, now: float) -> None:
        """Forget games and meetings older than an hour (each entry once: amortised O(1) per game)."""
        horizon = now - HOUR_S
        games = self._recent_games
        while games and games[0][0] <= horizon:
            _, version = games.popleft()
            self.stats.examined += 1
            entry = self._versions.get(version)
            if entry is not None and entry.recent > 0:
                entry.recent -= 1
                if entry.active:
                    self._recent_total -= 1
        meetings = self._recent_meetings
        while meetings and meetings[0][0] <= horizon:
            _, a, b = meetings.popleft()
            self.stats.examined += 1
            for one, other in ((a, b), (b, a)):
                entry = self._versions.get(one)
                if entry is not None:
                    entry.met[other] -= 1
                    if entry.met[other] <= 0:
                        del entry.met[other]

    def _register(self, plan: MatchPlan, now: float) -> None:
        self._running[plan.number] = _Running(plan, now)
        self._running_by_reason[plan.reason] += 1
        if plan.reason == MatchReason.WORLD:
            self._world_running += 1
            self._world_started = now
            self._world_ended = False
        if plan.kind == MatchKind.VALIDATION:
            return
        for seat, version in enumerate(plan.seats):
            entry = self._versions.get(version) if isinstance(version, int) else None
            if entry is not None:
                entry.in_flight += 1
                entry.seat_counts[seat] += 1
                entry.seat_sum += seat
                entry.seat_games += 1

    def _release(self, running: _Running, now: float) -> None:
        plan = running.plan
        self._running_by_reason[plan.reason] -= 1
        if plan.reason == MatchReason.WORLD:
            self._world_running -= 1
            self._world_ended = True
        if plan.kind == MatchKind.VALIDATION:
            return
        for version in plan.versions:
            entry = self._versions.get(version)
            if entry is None:
                continue
            entry.in_flight -= 1
            entry.last_end = max(entry.last_end, now)
            entry.duration_sum += now - running.started
            entry.duration_count += 1

    def _count_game(self, plan: MatchPlan, now: float, outcome: MatchOutcome) -> None:
        """A played match (a result or the bots' failure): a game in the last hour for each seat, a
        meeting for each pair, a rated game for each seat when it has a result."""
        versions = plan.versions
        for version in versions:
            entry = self._versions.get(version)
            if entry is None:
                continue
            self._recent_games.append((now, version))
            entry.recent += 1
            if entry.active:
                self._recent_total += 1
            if outcome.kind == OutcomeKind.RESULT:
                entry.games += 1
        for i, a in enumerate(versions):
            for b in versions[i + 1 :]:
                self._recent_meetings.append((now, a, b))
                for one, other in ((a, b), (b, a)):
                    entry = self._versions.get(one)
                    if entry is not None:
                        entry.met[other] += 1

    def _forget_if_gone(self, versions: Iterable[VersionId]) -> None:
        """Drop retired versions whose last match has ended: the view holds active versions only."""
        for version in versions:
            entry = self._versions.get(version)
            if entry is not None and not entry.active and entry.in_flight == 0:
                del self._versions[version]

    def _crash_streaks(self, plan: MatchPlan, outcome: MatchOutcome) -> tuple[VersionId, ...]:
        """The versions of a rated match whose own seats now ended CRASHED or TIMEOUT in `crash_streak`
        of their last `crash_window` rated matches: they leave the schedule, reported for pausing."""
        paused: list[VersionId] = []
        for seat, version in enumerate(plan.seats):
            entry = self._versions.get(version) if isinstance(version, int) else None
            if entry is None or not entry.active or seat >= len(outcome.statuses):
                continue
            assert isinstance(version, int)
            bad = outcome.statuses[seat] in _BAD_STATUSES
            if len(entry.outcomes) == entry.outcomes.maxlen and entry.outcomes[0]:
                entry.bad -= 1  # the oldest outcome leaves the window
            entry.outcomes.append(bad)
            entry.bad += bad
            if entry.bad >= self.policy.crash_streak:
                paused.append(version)
                self._deactivate(version)
        return tuple(paused)

    def _platform_failure(self, plan: MatchPlan) -> FinishReport:
        """Replay the same match (same number and seed) at the next attempt, unless `MAX_ATTEMPTS` were
        used or a rated match's version is no longer active."""
        gone = plan.kind != MatchKind.VALIDATION and any(
            version not in self._versions or not self._versions[version].active for version in plan.versions
        )
        if plan.attempt >= MAX_ATTEMPTS or gone:
            self.stats.abandoned += 1
            validated = self._validation_done(plan) if plan.kind == MatchKind.VALIDATION else None
            return FinishReport(abandoned=True, validated=validated)
        retry = replace(plan, attempt=plan.attempt + 1)
        self._retries.append(retry)
        self.stats.retried += 1
        return FinishReport(retry=retry)

    def _validation_done(self, plan: MatchPlan) -> VersionId | None:
        """The version when its last planned validation game has finished and none is left to plan."""
        version = plan.versions[0]
        self._validation_open[version] -= 1
        if self._validation_open[version] > 0 or self._validations.get(version, 0) > 0:
            return None
        del self._validation_open[version]
        self._validations.pop(version, None)
        return version

    # ----- internals: decisions -----

    def _take(self, plans: list[MatchPlan], new: Iterable[MatchPlan], now: float) -> None:
        for plan in new:
            self._register(plan, now)
            plans.append(plan)
            self.stats.plans += 1

    def _next_number(self) -> int:
        self._counter += 1
        return self._counter

    def _match_seed(self, name: str) -> int:
        return int(stream(self.seed, name).integers(0, MATCH_SEED_LIMIT))

    def _free(self, entry: _Version) -> bool:
        return entry.active and entry.in_flight < self.policy.max_in_flight_per_version

    def _retry_plans(self, room: int) -> list[MatchPlan]:
        """Queued replays whose versions can play now (the others wait for a later call)."""
        ready: list[MatchPlan] = []
        for _ in range(len(self._retries)):
            if len(ready) >= room:
                break
            plan = self._retries.popleft()
            entries = [self._versions.get(version) for version in plan.versions]
            if plan.kind == MatchKind.VALIDATION or all(e is not None and self._free(e) for e in entries):
                ready.append(plan)
            elif all(e is not None and e.active for e in entries):
                self._retries.append(plan)  # busy now: later
            else:
                self.stats.abandoned += 1  # a version left: the match is no longer wanted
        return ready

    def _validation_plans(self, room: int) -> list[MatchPlan]:
        """Up to `room` validation plans, versions in request order, the version in seat i % players of
        its game i and the policy's opponent in the other seats."""
        plans: list[MatchPlan] = []
        while room > len(plans) and self._validation_queue:
            version = self._validation_queue[0]
            remaining = self._validations.get(version, 0)
            if remaining <= 0:
                self._validation_queue.popleft()
                continue
            game = self.validation_games - remaining
            seats: list[Seat] = [self.validation_opponent] * self.players
            seats[game % self.players] = version
            seed = self._match_seed(f"arena.validation.{version}.{game}")
            plan = MatchPlan(
                self._next_number(), MatchKind.VALIDATION, MatchReason.VALIDATION, tuple(seats), seed
            )
            plans.append(plan)
            self._validations[version] = remaining - 1
            self._validation_open[version] += 1
        return plans

    def _placement_cap(self, capacity: int) -> int:
        """How many more placement matches may start: `placement_share` of the capacity (at least one
        when the share is not 0), less those in flight."""
        share = self.policy.placement_share
        cap = 0 if share <= 0 else max(1, int(share * capacity))
        return max(0, cap - self._running_by_reason[MatchReason.PLACEMENT])

    def _deficit_key(self, entry: _Version, fair: float) -> tuple[float, float, VersionId]:
        """Most deserving first: the largest deficit of games in the last hour (in flight included)
        against its share min(F, 3600 / its mean match time), then the longest idle."""
        share = fair
        if entry.duration_count:
            mean = entry.duration_sum / entry.duration_count
            if mean > 0:
                share = min(fair, HOUR_S / mean)
        deficit = share - (entry.recent + entry.in_flight)
        return (-deficit, entry.last_end, entry.id)

    def _seed_candidates(self, count: int, placement: bool, tried: set[VersionId]) -> list[_Version]:
        """The `count` most deserving free versions, best first (placement: only those under P games)."""
        fair = self._recent_total / self._active_count if self._active_count else 0.0
        eligible: list[tuple[tuple[float, float, VersionId], _Version]] = []
        for _, version in self._ranking:
            entry = self._versions[version]
            self.stats.examined += 1
            if version in tried or not self._free(entry):
                continue
            if placement and entry.games + entry.in_flight >= self.placement_games:
                continue
            eligible.append((self._deficit_key(entry, fair), entry))
        return [entry for _, entry in heapq.nsmallest(count, eligible, key=lambda item: item[0])]

    def _pair_plans(self, plans: list[MatchPlan], room: int, now: float, *, placement: bool) -> None:
        """Add up to `room` seeded matches to `plans` (placement ones or rated ones)."""
        if room <= 0:
            return
        reason = MatchReason.PLACEMENT if placement else MatchReason.DEFICIT
        tried: set[VersionId] = set()
        made = 0
        while made < room:
            size = SEED_POOL + (room - made) * self.players
            candidates = self._seed_candidates(size, placement, tried)
            if not candidates:
                return
            while made < room and candidates:
                candidates = [entry for entry in candidates if self._free(entry)]
                if not candidates:
                    break
                pick = int(self._rng.integers(min(SEED_POOL, len(candidates))))
                seed = candidates.pop(pick)
                tried.add(seed.id)
                group = self._group(seed)
                if group is None:
                    continue
                number = self._next_number()
                match_seed = self._match_seed(f"arena.match.{number}")
                plan = MatchPlan(number, MatchKind.RATED, reason, self._seating(group), match_seed)
                self._take(plans, [plan], now)
                made += 1

    def _window(self, index: int, size: int) -> tuple[int, int]:
        """The slice [low, high) of the ranking around `index`: `size // 2` below and the rest above,
        shifted inwards at either end so the window keeps its size where the ranking allows."""
        below = size // 2
        above = size - below
        low, high = index - below, index + above + 1
        if low < 0:
            high -= low
            low = 0
        if high > len(self._ranking):
            low -= high - len(self._ranking)
            high = len(self._ranking)
        return max(0, low), high

    def _group(self, seed: _Version) -> list[_Version] | None:
        """The seed and `players - 1` opponents from its window of the mu ranking (widened when it
        holds nobody free), or None when nobody free of another team can play with it."""
        index = self._rank_index(seed)
        uniform = float(self._rng.random())
        size = math.ceil(5.0 / (0.01 + uniform) ** 0.65)
        group = [seed]
        while len(group) < self.players:
            opponent = None
            while opponent is None:
                low, high = self._window(index, size)
                opponent = self._best_opponent(group, low, high)
                if opponent is None and high - low >= len(self._ranking):
                    return None
                size *= 2
            group.append(opponent)
        return group

    def _best_opponent(self, group: list[_Version], low: int, high: int) -> _Version | None:
        """Among ranking[low:high], a free version of a team not in `group`, with the fewest meetings with
        the group within the last hour (ties at random)."""
        teams = {entry.team for entry in group}
        best: list[_Version] = []
        fewest = math.inf
        for _, version in self._ranking[low:high]:
            entry = self._versions[version]
            self.stats.examined += 1
            if entry.team in teams or not self._free(entry):
                continue
            meetings = sum(member.met.get(version, 0) for member in group)
            if meetings < fewest:
                best, fewest = [entry], meetings
            elif meetings == fewest:
                best.append(entry)
        if not best:
            return None
        return best[int(self._rng.integers(len(best)))]

    def _seating(self, group: list[_Version]) -> tuple[VersionId, ...]:
        """Seat by seat, the member who has sat least in that seat for its games (times in the seat
        less its even share of them; ties in a random order)."""
        members = [group[i] for i in self._rng.permutation(len(group))]
        size = len(group)
        seats: list[VersionId] = []
        for seat in range(size):
            sitter = min(members, key=lambda entry: entry.seat_counts[seat] * size - entry.seat_games)
            members.remove(sitter)
            seats.append(sitter.id)
        return tuple(seats)

    def _world_plan(self, now: float) -> list[MatchPlan]:
        """One world match of every free active version (at most `players` of them, most deserving
        first, one per team) when none is running or `world_every_s` has passed since the last began."""
        started = self._world_started
        waiting = started is not None and now - started < self.policy.world_every_s
        if self._world_running and waiting and not self._world_ended:
            return []
        limit = self.world_size or len(self._ranking)
        ranked = self._seed_candidates(len(self._ranking), False, set())
        members: list[_Version] = []
        teams: set[TeamId] = set()
        for entry in ranked:
            if entry.team not in teams and len(members) < limit:
                members.append(entry)
                teams.add(entry.team)
        if len(members) < 2:
            return []
        if len(members) <= EXACT_SEATING_MAX:
            seats = self._seating(members)
        else:  # too many for seat-by-seat: those who sat furthest back on average sit first
            shuffled = [members[i] for i in self._rng.permutation(len(members))]
            seats = tuple(entry.id for entry in sorted(shuffled, key=lambda entry: -entry.mean_seat()))
        number = self._next_number()
        seed = self._match_seed(f"arena.match.{number}")
        return [MatchPlan(number, MatchKind.RATED, MatchReason.WORLD, seats, seed)]
