"""The real-time series: rounds on the clock, registrations, and what each team may see (spec §7.2, §7.3).

`Series` is the server's state machine. Every state change is due at a planned instant, and
`advance(now)` makes every change due by `now`, in order, idempotently:

    WAITING --first_lobby_at--> LOBBY --lobby_seconds--> RUNNING --turns x turn_seconds--> BREAK
    BREAK --break_seconds--> the next LOBBY (a `test` series forever; a `final` one then IDLE)

A lobby that ends with fewer than `min_teams` teams, or whose map cannot be generated (ConfigError),
is cancelled and the series goes straight to BREAK; one that nobody registered for is `empty`, not
cancelled: nothing failed, there was just no round (issue 26). Transition k of a round runs at
`round_start + k * turn_seconds`, computed afresh for every k, so the schedule never drifts; one
that overruns its slot delays only the next, which then runs at once.

Locking: the caller holds `series.lock` around `advance` and every request operation. Both the
conductor thread (which sleeps until the next due instant) and the request handlers call `advance`
with the instant they hold, so a request received at or after a transition's instant is answered only
after that transition has run (§7.3 "no stale turns"), and no request ever sees half a transition.
The lock covers only the transition's state change: its replay step (spectator frame, order bodies,
JSON) is written by `record_steps`, which the conductor calls after releasing the lock; it only reads
the state, and holds `record_lock`, which the next transition takes before changing anything.
Everything slow that is not game state (the store, live viewers) is handed to `SeriesEvents`, whose
methods must only enqueue.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import logging
import math
import re
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from botarena.core.config import ConfigError
from botarena.server.datspulse import wire
from botarena.server.datspulse.wire import LOBBY_ARENA, PublicError, ceil_ms

log = logging.getLogger(__name__)

MAX_ROUND_SEED = 2**63 - 1  # the store keeps seeds in a signed 64-bit column
PLANNED_TEST_ROUNDS = 2  # §7.2: a test series lists the next two rounds


class Phase(StrEnum):
    WAITING = "waiting"  # before the first lobby
    LOBBY = "lobby"
    RUNNING = "running"
    BREAK = "break"
    IDLE = "idle"  # a final series after its last round


class RoundStatus(StrEnum):
    LOBBY = "lobby"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"
    EMPTY = "empty"  # a lobby nobody registered for: no round was played, and none failed (issue 26)


@dataclass
class LiveRound:
    """One round of the series: its plan (monotonic instants), its teams and, once started, its game."""

    number: int  # 1-based within the series
    name: str  # <series name>-<number> (`round_prefix`)
    lobby_at: float
    start_at: float  # the lobby's end; once started, when turn 0 was published (round_start, §7.3)
    end_at: float  # the planned instant of the last transition
    status: RoundStatus = RoundStatus.LOBBY
    teams: list[str] = field(default_factory=list)  # registration order = team index (DP-5)
    index: dict[str, int] = field(default_factory=dict)
    seed: int = 0
    round: Any = None  # botarena.games.datspulse.engine.Round once started
    driver: Any = None  # RoundDriver (or PlainDriver) once started
    logs: list[deque[dict[str, str]]] = field(default_factory=list)
    cancel_reason: str | None = None
    results: list[dict[str, Any]] | None = None
    lags_s: list[float] = field(default_factory=list)  # per transition: start - scheduled instant
    durations_s: list[float] = field(default_factory=list)  # per transition: how long it took
    turn_seconds: float = 0.0
    finished_at: float | None = None  # when its last transition ended (the series' clock)
    resumed_after: int | None = None  # a round a killed server left running: the steps it was rebuilt at
    turns: int = 0  # transitions it is planned to have
    wall_offset: float = 0.0  # wall-clock time minus the series' clock (for `progress`)

    def progress(self, turn: int) -> dict[str, Any]:
        """Its clock once `turn` transitions have run, for the public list of live rounds (issue 26):
        the turn, the turns, when the next one is due and when the round ends (wall-clock seconds;
        `next_turn_at` null once it is over). Nothing of its state: the schedule is public (§7.2)."""
        over = turn >= self.turns
        return {
            "turn": turn,
            "turns": self.turns,
            "next_turn_at": None if over else self.due(turn + 1) + self.wall_offset,
            "ends_at": self.end_at + self.wall_offset,
        }

    @property
    def played_s(self) -> float | None:
        """How long the round took as played, by the series' clock: from turn 0's publication to the
        end of its last transition (None until it has finished). The stored `duration_s`: the
        transitions' own compute times are a small part of it (`durations_s`, for the timing view)."""
        if self.finished_at is None:
            return None
        return max(0.0, self.finished_at - self.start_at)

    def release(self) -> None:
        """Drop the game, its replay and its logs (long recorded; the results and timing stay)."""
        self.round = None
        self.driver = None
        self.logs = []

    def due(self, k: int) -> float:
        """The scheduled instant of transition k (k >= 1): no drift, whatever the earlier ones took."""
        return self.start_at + k * self.turn_seconds


@dataclass(frozen=True)
class PastRound:
    """A round of an earlier run of the same series (from the store), for `/api/rounds`."""

    number: int
    name: str
    start_wall: float  # when its lobby opened
    end_wall: float


class SeriesEvents(Protocol):
    """What the series tells the outside world. Called with the game lock held: only enqueue."""

    def round_started(self, live: LiveRound) -> None: ...
    def round_stepped(self, live: LiveRound, step: int) -> None: ...
    def round_finished(self, live: LiveRound) -> None: ...
    def round_cancelled(self, live: LiveRound) -> None: ...
    def series_finished(self) -> None: ...


class NoEvents:
    """SeriesEvents that do nothing (tests, or a server without a store)."""

    def round_started(self, live: LiveRound) -> None:
        pass

    def round_stepped(self, live: LiveRound, step: int) -> None:
        pass

    def round_finished(self, live: LiveRound) -> None:
        pass

    def round_cancelled(self, live: LiveRound) -> None:
        pass

    def series_finished(self) -> None:
        pass


_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def round_prefix(series_name: str) -> str:
    """What a series' round names start with: its name, every run of characters other than letters,
    digits, `.`, `_` and `-` made one `-`, so that a round name is one URL path segment (its live
    stream's address) and a file name (its journal): `Spring Cup 2025` gives `Spring-Cup-2025-3`."""
    cleaned = _UNSAFE_NAME.sub("-", series_name).strip("-.")
    return cleaned or "round"


def round_seed(series_seed: int, number: int) -> int:
    """Round `number`'s match seed: 63 bits of SHA-256 of the series seed and the number.

    A round's seed is public once it is over (its replay holds it), while the series seed, which
    gives every round's, stays secret until the series is (spec §4: the seed is hidden). A one-way
    hash keeps a finished round's seed from telling anything of the series seed or of the rounds to
    come; nothing short of guessing the series seed predicts them."""
    digest = hashlib.sha256(f"datspulse.server.round/{series_seed}/{number}".encode()).digest()
    return int.from_bytes(digest[:8], "big") & MAX_ROUND_SEED


RoundFactory = Callable[[Any, int, Sequence[str], int], Any]
DriverFactory = Callable[[Any, LiveRound], Any]


def create_round(config: Any, seed: int, teams: Sequence[str], number: int) -> Any:
    from botarena.games.datspulse.engine import Round

    return Round.create(config, seed, list(teams), round_number=number)


class PlainDriver:
    """Transitions without a replay: `Round.transition()` itself (when the lockstep engine is absent)."""

    def __init__(self, round_: Any) -> None:
        self.round = round_
        self.replay = None

    def advance(self) -> dict[int, list[str]]:
        logs: dict[int, list[str]] = self.round.transition()
        return logs

    def record(self) -> None:
        return None

    def finish(self) -> None:
        return None


def create_driver(preset: str) -> DriverFactory:
    def make(round_: Any, live: LiveRound) -> Any:
        try:
            from botarena.server.datspulse.driver import RoundDriver

            return RoundDriver(round_, round_number=live.number, preset=preset, match_id=live.name)
        except ImportError:  # the lockstep engine is not installed: play on, without a replay
            log.warning("no DatsPulse lockstep engine: round %s is played without a replay", live.name)
            return PlainDriver(round_)

    return make


class GcPacer:
    """Keeps the cyclic garbage collector's full collections short while a round runs.

    A round's replay and state are hundreds of thousands of long-lived objects, so CPython's full
    collections (triggered by the requests' allocations) take longer and longer: 100-300 ms with 50
    teams, stalling whatever request or transition they land in. After each transition the pacer
    collects what is new (cheap) and freezes the survivors, so later collections scan only young
    objects; when the round ends it unfreezes them, so the released round's cycles are collected.
    """

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.frozen = False

    def step(self) -> None:
        if not self.enabled or not gc.isenabled():
            return
        gc.collect()
        gc.freeze()
        self.frozen = True

    def release(self) -> None:
        if self.frozen:
            self.frozen = False
            gc.unfreeze()


class Series:
    """The series' state (see the module docstring). Hold `lock` around every call."""

    def __init__(
        self,
        config: Any,
        *,
        seed: int,
        preset: str = "test",
        events: SeriesEvents | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        wall_ns: Callable[[], int] = time.time_ns,
        first_number: int = 1,
        history: Iterable[PastRound] = (),
        round_factory: RoundFactory = create_round,
        driver_factory: DriverFactory | None = None,
        gc_pacing: bool = False,
        name: str | None = None,
    ) -> None:
        """`name`: the series' name (`series_name` of the config file); its rounds are called
        `<name>-<number>` (default `<realm_prefix>-<series>`, e.g. `antprotocol-test-7`)."""
        self.config = config
        self.round_prefix = round_prefix(name or f"{config.realm_prefix}-{config.series}")
        self.gc = GcPacer(gc_pacing)
        self.seed = seed
        self.events: SeriesEvents = events or NoEvents()
        self.clock = clock
        self.wall_ns = wall_ns
        self.lock = threading.RLock()
        # Held while a transition is recorded (outside `lock`) and by the next transition before it
        # changes the state, so a step is always recorded from the state its transition made.
        self.record_lock = threading.Lock()
        self._unrecorded: deque[tuple[LiveRound, int]] = deque()
        self.event_id = str(uuid.uuid4())
        self.round_factory = round_factory
        self.driver_factory = driver_factory or create_driver(preset)
        self._mono0 = clock()
        self._wall0 = wall()
        self.turn_seconds = float(config.turn_seconds)
        self.lobby_seconds = float(config.lobby_seconds)
        self.break_seconds = float(config.break_seconds)
        self.turns = int(config.turns)
        self.final = config.series == "final"
        self.history: list[PastRound] = list(history)
        self.rounds: list[LiveRound] = []  # this run's rounds, oldest first
        self.next_number = first_number
        self.current: LiveRound | None = None
        self.last_played: LiveRound | None = None  # the last finished round (its teams keep its view)
        self.break_end = 0.0
        self.phase = Phase.WAITING
        self.first_lobby = math.inf  # set by start(): nothing happens before the server listens
        if self.final and self.next_number > int(config.final_rounds):
            self.phase = Phase.IDLE  # a restarted final series that already played every round

    # ------------------------------------------------------------------------------ time

    def start(self, now: float) -> None:
        """The server listens from `now`: the first lobby opens at `first_lobby_at`, or now if that is
        unset or past (§7.3). A resumed round (`resume_round`) goes on instead: its next turn comes
        one `turn_seconds` from now."""
        text = getattr(self.config, "first_lobby_at", None)
        planned = self.mono_of(wire.parse_rfc3339(str(text))) if text else now
        self.first_lobby = max(now, planned)
        live = self.current
        if self.phase is Phase.RUNNING and live is not None and live.resumed_after is not None:
            self._restart_round(live, now)

    def resume_round(self, resumed: Any) -> None:
        """Take over the round a killed server left running, rebuilt from its journal (a
        `resume.ResumedRound`: its engine at step N, its replay of steps 1..N). `start` sets its
        clock going; its teams are registered as they were, so their clients just go on."""
        from botarena.server.datspulse.driver import RoundDriver

        steps = resumed.steps
        live = LiveRound(
            number=resumed.number,
            name=resumed.name,
            lobby_at=0.0,
            start_at=0.0,
            end_at=0.0,
            teams=list(resumed.teams),
            index={name: i for i, name in enumerate(resumed.teams)},
            seed=resumed.seed,
            turn_seconds=self.turn_seconds,
            resumed_after=steps,
            turns=self.turns,
            wall_offset=self._wall0 - self._mono0,
        )
        live.driver = RoundDriver.resumed(resumed.engine, resumed.replay)
        live.round = live.driver.round
        limit = int(self.config.log_limit)
        live.logs = [deque(maxlen=limit) for _ in live.teams]  # (the killed server's logs are gone)
        live.status = RoundStatus.RUNNING
        self.rounds.append(live)
        self.current = live
        self.phase = Phase.RUNNING
        self.next_number = max(self.next_number, live.number + 1)
        # (a request served before `start` sees a sane clock; `start` sets it again)
        self._rebase(live, self.clock())

    def _rebase(self, live: LiveRound, now: float) -> None:
        """A resumed round's clock, rebased so that its next transition (N + 1) is due one turn from
        now: the teams get a whole turn to see the state and send their orders."""
        steps = int(live.round.turn_no)
        live.start_at = now - steps * live.turn_seconds
        live.lobby_at = live.start_at - self.lobby_seconds
        live.end_at = live.start_at + self.turns * live.turn_seconds

    def _restart_round(self, live: LiveRound, now: float) -> None:
        """A resumed round goes on: its clock starts from `now`, the outside world hears of it."""
        self._rebase(live, now)
        steps = int(live.round.turn_no)
        prepare = getattr(live.round, "prepare_views", None)
        if prepare is not None:
            prepare()
        self.gc.step()
        log.warning("round %s: resumed after step %d with %d teams", live.name, steps, len(live.teams))
        self.events.round_started(live)
        if live.round.finished:  # killed after its last transition, before its result was stored
            self._finish(live)

    def wall_of(self, mono: float) -> float:
        return self._wall0 + (mono - self._mono0)

    def mono_of(self, wall: float) -> float:
        return self._mono0 + (wall - self._wall0)

    def round_seed(self, number: int) -> int:
        """Round `number`'s match seed (DP-95): `round_seed(series seed, number)`."""
        return round_seed(self.seed, number)

    # ------------------------------------------------------------------------------ the clock

    def next_deadline(self) -> float | None:
        """The monotonic instant of the next due state change, or None when IDLE."""
        current = self.current
        if self.phase is Phase.WAITING:
            return self.first_lobby
        if self.phase is Phase.LOBBY and current is not None:
            return current.start_at
        if self.phase is Phase.RUNNING and current is not None:
            return current.due(current.round.turn_no + 1)
        if self.phase is Phase.BREAK:
            return self.break_end
        return None

    def advance(self, now: float) -> None:
        """Make every state change due by `now` (caller holds the lock)."""
        while self._step(now):
            pass

    def _step(self, now: float) -> bool:
        current = self.current
        if self.phase is Phase.WAITING:
            if now < self.first_lobby:
                return False
            self._open_lobby(self.first_lobby)
            return True
        if self.phase is Phase.LOBBY and current is not None:
            if now < current.start_at:
                return False
            self._close_lobby(current)
            return True
        if self.phase is Phase.RUNNING and current is not None:
            if now < current.due(current.round.turn_no + 1):
                return False
            self._transition(current)
            return True
        if self.phase is Phase.BREAK:
            if now < self.break_end:
                return False
            if self.final and self.next_number > int(self.config.final_rounds):
                self.phase = Phase.IDLE
                self.events.series_finished()
            else:
                # On time, the next lobby opens when the break ends (no drift). A server that was
                # stopped or suspended past a whole lobby opens it now, rather than catching up on
                # rounds nobody could have registered for.
                late = now - self.break_end > self.lobby_seconds
                self._open_lobby(now if late else self.break_end)
            return True
        return False

    def _open_lobby(self, at: float) -> None:
        number = self.next_number
        self.next_number += 1
        start = at + self.lobby_seconds
        live = LiveRound(
            number=number,
            name=self.round_name(number),
            lobby_at=at,
            start_at=start,
            end_at=start + self.turns * self.turn_seconds,
            turn_seconds=self.turn_seconds,
            turns=self.turns,
            wall_offset=self._wall0 - self._mono0,
        )
        self.rounds.append(live)
        for old in self.rounds[:-3]:  # a test series runs for days: keep only recent rounds' games
            old.release()
        self.current = live
        self.phase = Phase.LOBBY
        log.info("round %s: lobby open", live.name)

    def _close_lobby(self, live: LiveRound) -> None:
        """The lobby's end: start the round for the registered teams, or cancel it (§7.3)."""
        minimum = int(self.config.min_teams)
        if not live.teams:
            self._cancel(live, "nobody registered", status=RoundStatus.EMPTY)
            return
        if len(live.teams) < minimum:
            self._cancel(live, f"{len(live.teams)} teams registered, min_teams is {minimum}")
            return
        live.seed = self.round_seed(live.number)
        began = self.clock()
        try:
            live.round = self.round_factory(self.config, live.seed, list(live.teams), live.number)
            live.driver = self.driver_factory(live.round, live)
        except ConfigError as exc:
            self._cancel(live, f"the map cannot be generated: {exc}")
            return
        except Exception as exc:  # a bug must not stop the series: this round is cancelled, the next comes
            log.exception("round %s could not start", live.name)
            self._cancel(live, f"the round could not start: {type(exc).__name__}: {exc}")
            return
        # Turn 0 is published now: the round starts at the lobby's end plus the time its map took to
        # generate (50 teams: a second or two), so transition 1 is not born late.
        live.start_at += max(0.0, self.clock() - began)
        live.end_at = live.start_at + self.turns * self.turn_seconds
        limit = int(self.config.log_limit)
        live.logs = [deque(maxlen=limit) for _ in live.teams]
        live.status = RoundStatus.RUNNING
        self.phase = Phase.RUNNING
        prepare = getattr(live.round, "prepare_views", None)  # (test factories may make plain rounds)
        if prepare is not None:
            prepare()  # before the GC pacer freezes the round: see Round.prepare_views
        self.gc.step()
        log.info("round %s: started with %d teams", live.name, len(live.teams))
        self.events.round_started(live)

    def _cancel(self, live: LiveRound, reason: str, status: RoundStatus = RoundStatus.CANCELLED) -> None:
        self.gc.release()
        live.status = status
        live.cancel_reason = reason
        live.end_at = live.start_at
        self.last_played = None
        self.break_end = live.start_at + self.break_seconds
        self.phase = Phase.BREAK
        if status is RoundStatus.EMPTY:  # (every few minutes on a test server nobody plays on)
            log.info("round %s: empty lobby, no round played", live.name)
        else:
            log.warning("round %s cancelled: %s", live.name, reason)
        self.events.round_cancelled(live)

    def _transition(self, live: LiveRound) -> None:
        """The state change of transition k, under the game lock. Its step is recorded later, by
        `record_steps` once the lock is released (the conductor calls it), or at the latest before the
        next transition or the round's end."""
        k = live.round.turn_no + 1
        began = self.clock()
        live.lags_s.append(began - live.due(k))
        self.record_steps()  # the previous step, if nobody has recorded it yet
        try:
            with _switch_interval(TRANSITION_SWITCH_INTERVAL_S):
                logs = live.driver.advance()
        except Exception as exc:  # the game cannot go on from a half-made turn: end this round here
            log.exception("round %s: transition %d failed", live.name, k)
            self._cancel(live, f"transition {k} failed: {type(exc).__name__}: {exc}")
            return
        self._append_logs(live, logs)
        live.durations_s.append(self.clock() - began)
        self._unrecorded.append((live, k))
        if live.round.finished:
            self.record_steps()
            self._finish(live)

    def has_unrecorded(self) -> bool:
        """True when a transition has run whose step `record_steps` has not written yet."""
        return bool(self._unrecorded)

    def record_steps(self) -> None:
        """Record the transitions run since the last call (the replay's steps, the live viewers' event,
        the GC pacer's step). The server's conductor calls it without the game lock: it only reads the
        state, and `record_lock` keeps the next transition from changing it meanwhile. Requests go on
        while it runs, so the lock is held only for the state change itself (§7.3: a request waits
        for a due transition, not for its replay)."""
        with self.record_lock, _switch_interval(RECORD_SWITCH_INTERVAL_S):
            recorded = False
            while self._unrecorded:
                live, k = self._unrecorded.popleft()
                try:
                    live.driver.record()
                except Exception:  # the round goes on; its replay misses this step and will not verify
                    log.exception("round %s: transition %d could not be recorded", live.name, k)
                self.events.round_stepped(live, k)
                recorded = True
            if recorded:
                self.gc.step()

    def _append_logs(self, live: LiveRound, logs: dict[int, list[str]]) -> None:
        if not logs:
            return
        stamp = wire.rfc3339_nanos(self.wall_ns())
        for team, lines in logs.items():
            if 0 <= team < len(live.logs):
                live.logs[team].extend({"message": line, "time": stamp} for line in lines)

    def _finish(self, live: LiveRound) -> None:
        live.finished_at = self.clock()
        try:
            live.driver.finish()
            live.results = live.round.results()
        except Exception:  # the round was played: keep its state for its teams, log the bug
            log.exception("round %s: its end could not be recorded", live.name)
        self.gc.release()
        live.status = RoundStatus.FINISHED
        self.last_played = live
        self.break_end = live.end_at + self.break_seconds
        self.phase = Phase.BREAK
        log.info("round %s: finished", live.name)
        self.events.round_finished(live)

    # ------------------------------------------------------------------------------ requests

    def _running_index(self, name: str) -> tuple[LiveRound, int] | None:
        live = self.current
        if live is None or live.status is not RoundStatus.RUNNING:
            return None
        index = live.index.get(name)
        return None if index is None else (live, index)

    def _played_index(self, name: str) -> tuple[LiveRound, int] | None:
        live = self.last_played
        if live is None or self.phase not in (Phase.BREAK, Phase.IDLE, Phase.WAITING):
            return None
        index = live.index.get(name)
        return None if index is None else (live, index)

    def _team_round(self, name: str) -> tuple[LiveRound, int]:
        """The round and team index a team's arena, move and logs requests read outside the lobby: the
        running round (`NOT_REGISTERED` when the team is not in it), else the round just played (no active
        game when the team was not in it or there is none)."""
        if self.phase is Phase.RUNNING:
            found = self._running_index(name)
            if found is None:
                raise wire.NOT_REGISTERED
            return found
        found = self._played_index(name)
        if found is None:
            raise self._outside_round()
        return found

    def _next_turn_in(self, live: LiveRound, now: float) -> int | float:
        """Seconds to the next transition, rounded up to the ms; > 0 while the round runs (§7.3)."""
        value = ceil_ms(live.due(live.round.turn_no + 1) - now)
        return value if value > 0 else 0.001

    def _outside_round(self) -> PublicError:
        return wire.no_active_game(self.upcoming())

    def register(self, name: str, now: float) -> dict[str, Any]:
        """POST/PUT /api/register (§7.2)."""
        live = self.current
        if self.phase is Phase.LOBBY and live is not None:
            if name not in live.index:
                if len(live.teams) >= int(self.config.max_teams):
                    raise wire.REGISTRATION_FULL
                live.index[name] = len(live.teams)
                live.teams.append(name)
            return {
                "lobbyEndsIn": max(1, math.ceil(live.start_at - now)),
                "name": name,
                "nextTurn": ceil_ms(live.start_at - now),
                "realm": live.name,
            }
        if self.phase is Phase.RUNNING and live is not None:
            if name not in live.index:
                raise wire.lobby_ended(self.upcoming())
            return {
                "lobbyEndsIn": -math.floor(max(0.0, now - live.start_at)),
                "name": name,
                "nextTurn": self._next_turn_in(live, now),
                "realm": live.name,
            }
        raise self._outside_round()

    def arena(self, name: str, now: float) -> dict[str, Any]:
        """GET /api/arena (§7.2)."""
        live = self.current
        if self.phase is Phase.LOBBY and live is not None:
            if name not in live.index:
                raise wire.NOT_REGISTERED
            return {**LOBBY_ARENA, "spot": {"q": 0, "r": 0}}
        live, team = self._team_round(name)
        next_turn_in = self._next_turn_in(live, now) if self.phase is Phase.RUNNING else 0
        return live.round.arena(team, next_turn_in)  # type: ignore[no-any-return]

    def move(self, name: str, body: Any, now: float) -> dict[str, Any]:
        """POST /api/move with a parsed JSON body (§5, §7.2). Raises PublicError (400 code 4 for a body
        rejected as a whole)."""
        from botarena.games.datspulse.engine import BadBody

        live = self.current
        if self.phase is Phase.LOBBY and live is not None:
            if name not in live.index:
                raise wire.NOT_REGISTERED
            return {**LOBBY_ARENA, "spot": {"q": 0, "r": 0}, "errors": lobby_move_errors(body)}
        live, team = self._team_round(name)
        try:
            errors = live.round.submit(team, body)
        except BadBody as exc:
            raise wire.invalid_body(str(exc)) from None
        next_turn_in = self._next_turn_in(live, now) if self.phase is Phase.RUNNING else 0
        reply: dict[str, Any] = live.round.arena(team, next_turn_in)
        reply["errors"] = list(errors)
        return reply

    def logs(self, name: str) -> list[dict[str, str]]:
        """GET /api/logs (§7.2): the team's log of the current round (or the one just finished)."""
        live = self.current
        if self.phase is Phase.LOBBY and live is not None:
            if name not in live.index:
                raise wire.NOT_REGISTERED
            return []
        live, team = self._team_round(name)
        return list(live.logs[team])

    # ------------------------------------------------------------------------------ listings

    def _planned(self) -> list[tuple[int, float]]:
        """The rounds not opened yet: (number, lobby instant), soonest first (§7.2 listing rules)."""
        if self.phase is Phase.IDLE or math.isinf(self.first_lobby):
            return []
        current = self.current
        if self.phase is Phase.WAITING or current is None:
            at = self.first_lobby
        elif self.phase is Phase.BREAK:
            at = self.break_end
        else:
            at = current.end_at + self.break_seconds
        if self.final:
            count = max(0, int(self.config.final_rounds) - self.next_number + 1)
        else:
            count = PLANNED_TEST_ROUNDS
        period = self.lobby_seconds + self.turns * self.turn_seconds + self.break_seconds
        return [(self.next_number + i, at + i * period) for i in range(count)]

    def round_name(self, number: int) -> str:
        """Round `number`'s name: the series' name and the number (`spring-cup-3`)."""
        return f"{self.round_prefix}-{number}"

    def upcoming(self) -> str:
        """§7.1 `<list>`: `[name startAt, ...]` of the rounds to come."""
        pairs = [f"{self.round_name(n)} {wire.rfc3339(self.wall_of(at))}" for n, at in self._planned()]
        return "[" + ", ".join(pairs) + "]"

    @property
    def duration_s(self) -> int:
        """§7.2 `duration`: lobby_seconds + turns x turn_seconds, as an integer."""
        return math.floor(self.lobby_seconds + self.turns * self.turn_seconds + 0.5)

    def rounds_listing(self, now: float) -> dict[str, Any]:
        """GET /api/rounds (§7.2)."""
        entries: list[tuple[float, dict[str, Any]]] = []
        duration = self.duration_s
        for past in self.history:
            entries.append(
                (past.start_wall, self._entry(past.name, past.start_wall, past.end_wall, "finished"))
            )
        for live in self.rounds:
            finished = live.status in (RoundStatus.FINISHED, RoundStatus.CANCELLED, RoundStatus.EMPTY)
            start = self.wall_of(live.lobby_at)
            entries.append(
                (
                    start,
                    self._entry(
                        live.name, start, self.wall_of(live.end_at), "finished" if finished else "active"
                    ),
                )
            )
        turns = self.turns * self.turn_seconds
        for number, at in self._planned():
            start = self.wall_of(at)
            end = self.wall_of(at + self.lobby_seconds + turns)
            status = "pending" if at > now else "active"
            entries.append((start, self._entry(self.round_name(number), start, end, status)))
        entries.sort(key=lambda item: item[0], reverse=True)  # newest first, as the DatsTeam sample
        for _, entry in entries:
            entry["duration"] = duration
        return {
            "gameName": "datspulse",
            "eventId": self.event_id,
            "now": wire.rfc3339_nanos(self.wall_ns()),
            "rounds": [entry for _, entry in entries],
        }

    @staticmethod
    def _entry(name: str, start: float, end: float, status: str) -> dict[str, Any]:
        return {
            "name": name,
            "startAt": wire.rfc3339(start),
            "endAt": wire.rfc3339(end),
            "duration": 0,
            "status": status,
            "repeat": 0,
        }

    def status(self, now: float) -> dict[str, Any]:
        """The organiser's view (`GET /api/datspulse/series`): phase, the current round, its timing."""
        live = self.current
        current: dict[str, Any] | None = None
        if live is not None:
            current = {
                "name": live.name,
                "status": live.status.value,
                "teams": list(live.teams),
                "turnNo": live.round.turn_no if live.round is not None else 0,
                "cancelReason": live.cancel_reason,
                "transitions": _timing(live),
            }
        return {
            "phase": self.phase.value,
            "series": self.config.series,
            "eventId": self.event_id,
            "current": current,
            "rounds": [
                {
                    "name": r.name,
                    "status": r.status.value,
                    "teams": list(r.teams),
                    "results": r.results,
                    "cancelReason": r.cancel_reason,
                    "transitions": _timing(r),
                }
                for r in self.rounds
            ],
        }


#: CPython's GIL switch interval (default 5 ms) while the series works in the conductor thread. A
#: transition runs with a long one: every request waits for it anyway (§7.3), so the sooner it ends the
#: sooner they are served. Recording a step (~20 ms of pure Python with 50 teams) runs with a short
#: one: requests are served meanwhile, and the event loop, which needs the GIL for a moment at every
#: turn of its loop, would otherwise wait up to 5 ms each time it asks.
TRANSITION_SWITCH_INTERVAL_S = 0.05
RECORD_SWITCH_INTERVAL_S = 0.0005


@contextlib.contextmanager
def _switch_interval(seconds: float) -> Iterator[None]:
    """The process-wide GIL switch interval set to `seconds`, and restored after."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(seconds)
    try:
        yield
    finally:
        sys.setswitchinterval(previous)


def _timing(live: LiveRound) -> dict[str, Any]:
    lags = sorted(live.lags_s)
    durations = sorted(live.durations_s)
    return {
        "count": len(lags),
        "lagMaxMs": round(lags[-1] * 1000.0, 3) if lags else None,
        "lagP99Ms": round(lags[min(len(lags) - 1, math.ceil(0.99 * len(lags)) - 1)] * 1000.0, 3)
        if lags
        else None,
        "durationMaxMs": round(durations[-1] * 1000.0, 3) if durations else None,
        "lagsMs": [round(x * 1000.0, 3) for x in live.lags_s],
        "durationsMs": [round(x * 1000.0, 3) for x in live.durations_s],
    }


def lobby_move_errors(body: Any) -> list[str]:
    """§7.2 in the lobby: the body's shape is checked as in §5 and every command is rejected as
    `ant <id> is dead` (there are no ants yet); entries §5 would skip get `invalid move command`."""
    if not isinstance(body, dict):
        raise wire.invalid_body("the top level is not an object")
    moves = body.get("moves")
    if moves is None:
        return []
    if not isinstance(moves, list):
        raise wire.invalid_body("moves is neither an array nor null")
    errors: list[str] = []
    for index, entry in enumerate(moves):
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("ant"), str)
            or not _path_ok(entry.get("path"))
        ):
            errors.append(f"invalid move command at index {index}")
        else:
            errors.append(f"ant {entry['ant']} is dead")
    return errors


def _integral(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return isinstance(value, int) or (math.isfinite(value) and value.is_integer())


def _path_ok(path: Any) -> bool:
    if path is None:
        return True
    if not isinstance(path, list):
        return False
    return all(isinstance(p, dict) and _integral(p.get("q")) and _integral(p.get("r")) for p in path)
