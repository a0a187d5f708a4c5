"""The executor seam (DESIGN principle 6): tournament matches as tasks for any `concurrent.futures.Executor`.

A `MatchTask` is plain picklable data and `play_task` a top-level function, so the same task runs
inline, in a local process pool or on a Dask cluster (`Client.get_executor()`). A task is a pure
function of its data: it has no side effects outside its own bots, and the caller records its
outcome under the match's unique key, so running a task twice never records a result twice.

Live viewing from worker processes: a process pool made by `make_executor(..., live_queue=q)` hands
`q` to every worker; `play_task` then sends the match's header, its steps (batched, at most every
`LIVE_FLUSH_S`) and its end to `q` as the live events of `botarena.tournament.live`. Workers with
no such queue (Dask's, or any, when the tournament runs apart from the server) post the events to
the task's `live_url` (`botarena.tournament.live_http`) with the live token the worker has of its
own: the task carries none, nor the store's password (`botarena.core.credentials`).

How a pool worker dies (issue 12, item 4): a SIGTERM (the pool's own `terminate`, a stop, or a bot
that signals its worker) unwinds the match under way, so that its bots are closed (their processes
killed, their cgroups removed), and then ends the worker with `os._exit`: a `SystemExit` would travel
through the standard library's worker loop, where it is either sent back as the match's "result" or,
raised while the worker holds the call queue's lock, deadlocks every other worker and the pool's
shutdown. Where Python cannot raise it (an at-fork callback, a `__del__`), the worker's unraisable
hook signals the worker again from a helper thread, so the unwinding is never lost. Between matches
a SIGTERM exits at once. A worker also dies with its coordinator: it gets
SIGTERM when its parent (the forkserver, which exits with the coordinator) dies (PR_SET_PDEATHSIG),
and a watchdog thread that waits on the coordinator's pid does the same and, should the match not
unwind within `TERMINATE_GRACE_S`, exits the worker outright; its bot processes die with it
(`botarena.bots.subprocess.die_with_parent`, and the sandbox's --die-with-parent).
"""

from __future__ import annotations

import contextlib
import ctypes
import gzip
import logging
import multiprocessing
import os
import re
import select
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing.queues import SimpleQueue
from typing import TYPE_CHECKING, Any

from botarena.core.game import Engine
from botarena.core.replay import Replay
from botarena.runner.record import MatchRecord

if TYPE_CHECKING:
    from botarena.bots.resolve import Isolation
    from botarena.bots.sandbox import SandboxPolicy
    from botarena.core.credentials import WorkerSecrets

log = logging.getLogger(__name__)

LIVE_FLUSH_S = 0.1
TERMINATE_GRACE_S = 1.0  # after SIGTERM, a pool worker gets this long to close its bots
FINISH_GRACE_S = 30.0  # a finished tournament's pool gets this long to exit before it is killed
_PR_SET_PDEATHSIG = 1
DASK_HINT = "pip install 'botarena[dask]'"

LiveSink = Callable[[dict[str, Any]], None]

# Set in each pool worker by `_init_worker`; None in the coordinator and on Dask workers.
_worker_live_queue: Any = None
_in_task = False  # a pool worker is playing a match (its SIGTERM unwinds the match first)
_resignal_fd = -1  # a pool worker's pipe to the thread that sends it SIGTERM again (`_signal_again_soon`)
_resignal_pid = -1  # that worker's pid: a process it forks shares the pipe, not the thread


class WorkerTerminated(BaseException):
    """Raised in a pool worker's match by SIGTERM: unwinds it (closing its bots), then the worker exits."""


@dataclass(frozen=True)
class MatchTask:
    """Everything a worker needs to play one tournament match."""

    tournament_id: int
    key: str
    game: str
    preset: str
    overrides: dict[str, Any]
    seed: int
    seats: tuple[str, ...]  # entrant names, seat order
    specs: tuple[str, ...]  # how to reach each seat's bot (see bots/resolve.py)
    pace_ms: int = 0  # sleep after each step, for spectators of live matches
    match_id: int | None = None  # the store's id: where the replay will be once recorded
    isolation: Isolation | None = None  # how far the entrants are trusted; None: untrusted, sandboxed
    # Per seat, the digest of the bot's artifact (None: no files, e.g. a starter bot); a seat with
    # one has a spec in which "{artifact}" stands for the folder the worker unpacks it to.
    artifacts: tuple[str | None, ...] = ()
    # Where workers fetch artifacts they have not cached: a store URL without its password, and
    # `live_url` without its token: each worker has its own (botarena.core.credentials), since a
    # task is seen by whatever carries it (a Dask scheduler holds every task it schedules).
    artifact_source: str | None = None
    live_url: str | None = None  # a server to stream the match to (workers without a live queue)
    replay_target: str | None = None  # a shared location (URL) the worker writes the replay to itself
    # A hosted arena's URL entries (a seat whose spec is an http(s) URL and whose artifact is the
    # entry's config): the competition's `url_allow` networks the worker checks each one against
    # right before the match (bots.urls.sealed_url_bot); None: URL entries are refused.
    url_allow: tuple[str, ...] | None = None

    @property
    def live_key(self) -> str:
        return f"t{self.tournament_id}/{self.key}"


class MatchTaskError(RuntimeError):
    """A match could not be played at all (a bot spec that no longer resolves, a bad config)."""


class EntryRefused(MatchTaskError):
    """Seats whose entry was refused right before the match (a URL entry whose host now resolves
    where the arena calls nothing, or does not resolve): their fault alone, never the platform's."""

    def __init__(self, message: str, seats: Sequence[int]) -> None:
        super().__init__(message)
        self.seats = tuple(seats)


@dataclass(frozen=True)
class MatchFailure:
    """What `play_batch` returns for a match whose task raised: the error, and whether playing the
    match again could help (a MatchTaskError cannot: its spec or config is wrong).

    `platform`: the fault is the platform's, never a bot's (`is_platform_fault`): the coordinator
    plays the match again, elsewhere or in a later run, and never records it as failed.
    `unfit_worker`: the Dask worker whose own machine is at fault (it cannot sandbox, its artifact
    cache is full): the coordinator sends it no more matches."""

    key: str
    error: str  # "ExceptionType: message"
    retry: bool
    platform: bool = False
    unfit_worker: str | None = None
    refused_seats: tuple[int, ...] = ()  # EntryRefused: the seats whose entry is at fault


MatchBatchResult = list[MatchRecord | MatchFailure]


def task_isolation(task: MatchTask) -> Isolation:
    """The task's isolation, the default (untrusted, sandboxed with the default policy) when unset."""
    from botarena.bots.resolve import untrusted

    return task.isolation if task.isolation is not None else untrusted()


def play_task(task: MatchTask, live: LiveSink | None = None) -> MatchRecord:
    """Play `task` and return its outcome; stream it to `live` (or the worker's live queue) if set.

    In a pool worker a SIGTERM during the match unwinds it (its bots are closed) and ends the worker
    (the coordinator sees a broken pool and plays the match again): see the module docstring.
    """
    global _in_task
    _in_task = True
    try:
        return _play_task(task, live)
    except WorkerTerminated:
        from botarena.bots.inprocess import real_exit

        real_exit(128 + signal.SIGTERM)
    finally:
        _in_task = False


def play_batch(tasks: Sequence[MatchTask], live: LiveSink | None = None) -> MatchBatchResult:
    """Play `tasks` one after another; one outcome or failure per task, in order.

    Several short matches per task spare the coordinator and the executor their per-task costs (a
    pickled task and result, a scheduler round trip on Dask), which dominate matches of a few
    milliseconds. A match that raises fails alone; the others are played.
    """
    results: MatchBatchResult = []
    for task in tasks:
        try:
            results.append(play_task(task, live))
        except Exception as exc:
            results.append(match_failure(task.key, exc))
    return results


def match_failure(key: str, exc: Exception) -> MatchFailure:
    """The MatchFailure for match `key`, whose task raised `exc` (whose fault it is, see MatchFailure)."""
    error = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, EntryRefused):
        return MatchFailure(key, error, retry=False, refused_seats=exc.seats)
    if isinstance(exc, MatchTaskError):
        return MatchFailure(key, error, retry=False)
    if not is_platform_fault(exc):
        return MatchFailure(key, error, retry=True)
    unfit = _dask_worker_address() if is_unfit_worker(exc) else None
    return MatchFailure(key, error, retry=True, platform=True, unfit_worker=unfit)


def is_platform_fault(exc: BaseException) -> bool:
    """Whether `exc`, raised on a worker setting up or playing a match, is the platform's fault and
    never a bot's: a worker that cannot sandbox, an artifact cache that cannot take the bot's files
    (its disk full or read-only), a store the worker cannot reach (fetching an artifact, writing a
    replay to the shared location). A bot's own failures are statuses in its match's result."""
    from botarena.bots.artifacts import ArtifactCacheError, ArtifactUnavailable
    from botarena.bots.sandbox import SandboxUnavailable
    from botarena.store import StoreError

    return isinstance(exc, (SandboxUnavailable, ArtifactCacheError, ArtifactUnavailable, StoreError))


def is_unfit_worker(exc: BaseException) -> bool:
    """Whether `exc` says the worker's own machine cannot play matches (no sandbox, a full or
    read-only artifact cache), so that another worker should play them instead."""
    from botarena.bots.artifacts import ArtifactCacheError
    from botarena.bots.sandbox import SandboxUnavailable

    return isinstance(exc, (SandboxUnavailable, ArtifactCacheError))


def _dask_worker_address() -> str | None:
    """The address of the Dask worker running this task, None anywhere else."""
    if "distributed" not in sys.modules:  # never imported here: not a Dask worker
        return None
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):  # ValueError: not in a Dask worker
        return None


def _play_task(task: MatchTask, live: LiveSink | None) -> MatchRecord:
    from botarena.bots.artifacts import materialize_specs
    from botarena.bots.resolve import BotSpecError, resolve_bot
    from botarena.core.config import ConfigError
    from botarena.core.registry import get_game
    from botarena.runner.match import run_match
    from botarena.store.artifacts import store_fetcher
    from botarena.tournament.failures import seat_failures

    started = time.perf_counter()
    isolation = task_isolation(task)
    if isolation.sandbox is not None:
        check_worker_sandbox(isolation.sandbox)  # a worker that cannot seal bots plays nothing
    try:
        game = get_game(task.game)
        config = game.config(task.preset, task.overrides)
        fetch = store_fetcher(task.artifact_source) if task.artifact_source else None
        sealed = _url_entry_bots(task, game, fetch)  # checked now, pinned to what was checked
        artifacts = [None if i in sealed else a for i, a in enumerate(task.artifacts)]
        specs = materialize_specs(task.specs, artifacts, fetch)  # bots' files, fetched
        bots = [
            sealed[i] if i in sealed else resolve_bot(spec, game, isolation=isolation)
            for i, spec in enumerate(specs)
        ]
    except EntryRefused:
        raise
    except (BotSpecError, ConfigError, LookupError, ValueError) as exc:
        raise MatchTaskError(f"{task.key}: {exc}") from None
    for bot, name in zip(bots, task.seats, strict=True):
        bot.name = name  # the entrant's name, not the spec's, in the replay and the viewer
    sink = live if live is not None else (_queue_sink() or _http_sink(task))
    streamer = LiveStreamer.for_task(task, sink) if sink is not None else None
    run = run_match(
        game,
        bots,
        config=config,
        seed=task.seed,
        preset=task.preset,
        match_id=replay_match_id(task.tournament_id, task.key),
        on_begin=streamer.begin if streamer else None,
        on_step=streamer.step if streamer else None,
    )
    replay = run.replay
    replay_gz = gzip.compress(replay.dumps(), compresslevel=6, mtime=0)
    if streamer is not None:
        streamer.end(replay)
    replay_hash = None
    if task.replay_target:  # a shared location: the replay is written from here, only its hash goes back
        from botarena.store.replays import ship_replay

        replay_gz, replay_hash = ship_replay(task.replay_target, replay_gz)
    return MatchRecord(
        key=task.key,
        ranks=list(run.result.ranks),
        scores=list(run.result.scores),
        statuses=replay.statuses,
        time_used_ms=replay.time_used_ms,
        steps=len(replay.steps),
        duration_s=time.perf_counter() - started,
        replay_gz=replay_gz,
        replay_hash=replay_hash,
        failures=seat_failures(replay),  # here, from the replay in memory: nobody reads it again for this
    )


def url_entry_seats(task: MatchTask) -> list[int]:
    """The seats of `task` that are a hosted arena's URL entries: an http(s) spec with an artifact
    (the entry's config; a plain URL spec, e.g. a local tournament's, has none)."""
    return [
        seat
        for seat, spec in enumerate(task.specs)
        if spec.startswith(("http://", "https://"))
        and seat < len(task.artifacts)
        and task.artifacts[seat] is not None
    ]


def _url_entry_bots(task: MatchTask, game: Any, fetch: Callable[[str], bytes] | None) -> dict[int, Any]:
    """Each URL entry's bot, its URL checked right now against `task.url_allow` and the bot pinned to
    the addresses checked (bots.urls.sealed_url_bot). Raises EntryRefused, one line naming the
    refused seats, when a host now resolves where the arena calls nothing (DNS rebinding)."""
    seats = url_entry_seats(task)
    if not seats:
        return {}
    from botarena.bots.artifacts import ArtifactError, fetched
    from botarena.bots.urls import UrlRejected, sealed_url_bot

    if fetch is None:
        raise ArtifactError(f"{task.key}: the task names no store to fetch its URL entries from")
    bots: dict[int, Any] = {}
    refused: list[tuple[int, str]] = []
    for seat in seats:
        digest = task.artifacts[seat]
        assert digest is not None
        try:
            bots[seat] = sealed_url_bot(fetched(digest, fetch), game, task.url_allow)
        except UrlRejected as exc:
            refused.append((seat, f"{task.seats[seat]}: {exc.detail}"))
    if refused:
        raise EntryRefused("; ".join(text for _, text in refused), [seat for seat, _ in refused])
    return bots


def replay_match_id(tournament_id: int, key: str) -> str:
    """The `match_id` in the replay of tournament match `key` (how its replay is told from others')."""
    return f"t{tournament_id}-{key}"


def check_worker_sandbox(policy: SandboxPolicy) -> None:
    """Raise SandboxUnavailable, naming this worker, unless it can sandbox bots with `policy`.

    The coordinator checks its own machine; a Dask worker is another machine, which may lack
    bubblewrap or cgroups. Every Dask worker runs this before its first match of a sandboxed
    tournament (`botarena.tournament.dask_gate`), and one that fails takes none; every match runs it
    again (cached per process and policy), so that whatever executor plays it, no entrant ever runs
    unsealed: a match that finds it failing is a platform fault, played again elsewhere or later.
    """
    from botarena.bots.sandbox import SandboxUnavailable, check_sandbox

    try:
        check_sandbox(policy)
    except SandboxUnavailable as exc:
        reason = re.sub(r"[,;] or pass --unsandboxed$", "", str(exc))
        where = f"{socket.gethostname()} (pid {os.getpid()})"
        raise SandboxUnavailable(f"the worker on {where} cannot sandbox bots: {reason}") from None


def is_worker_loss(exc: BaseException) -> bool:
    """Whether `exc` says the worker running a task died (not that the task failed): a local pool's
    BrokenProcessPool, or Dask's KilledWorker (the scheduler gives up on a task after its workers
    died running it `distributed.scheduler.allowed-failures` + 1 times). Matched by name: Dask is an
    optional dependency."""
    if isinstance(exc, BrokenProcessPool):
        return True
    kind = type(exc)
    return kind.__name__ == "KilledWorker" and kind.__module__.startswith("distributed")


def _queue_sink() -> LiveSink | None:
    queue = _worker_live_queue
    return queue.put if queue is not None else None


_no_token_warned: set[str] = set()


def _http_sink(task: MatchTask) -> LiveSink | None:
    """The process's sink posting to the task's server, if it names one (botarena.tournament.live_http),
    with the token this process has for it (botarena.core.credentials.live_token). Without one the
    match is played unstreamed, and the worker says so once per server."""
    if not task.live_url:
        return None
    from botarena.core.credentials import SecretSourceError, live_token
    from botarena.tournament.live_http import live_sink

    try:
        token = live_token(task.live_url)
    except SecretSourceError as exc:  # a BOTARENA_LIVE_TOKEN_FILE that is refused
        token, why = None, str(exc)
    else:
        why = "set BOTARENA_LIVE_TOKEN (or BOTARENA_LIVE_TOKEN_FILE) in this worker's environment"
    if not token:
        if task.live_url not in _no_token_warned:
            _no_token_warned.add(task.live_url)
            log.warning(
                "matches are not streamed to %s: this worker has no live token (%s)", task.live_url, why
            )
        return None
    return live_sink(task.live_url, token)


class LiveStreamer:
    """Turns a running match into live events (`botarena.server.live`): a header, batches of steps
    (at most every `LIVE_FLUSH_S`), an end, each handed to `sink` (e.g. `LiveHub.publish`).

    `begin` and `step` are `run_match`'s `on_begin` and `on_step` observers; call `end(replay)` once
    the match is over. `pace_ms` sleeps after each step (for spectators; a game's own
    `turn_interval_ms` is the runner's pacing and needs nothing here). `flush_s`: 0 sends each
    step as it comes (a real-time round whose turns take a second: a spectator policy counts the
    steps played by what it has received).
    """

    def __init__(
        self,
        key: str,
        sink: LiveSink,
        *,
        tournament_id: int | None = None,
        match: str | None = None,
        match_id: int | None = None,
        pace_ms: int = 0,
        flush_s: float = LIVE_FLUSH_S,
    ) -> None:
        self.key = key
        self.sink = sink
        self.tournament_id = tournament_id
        self.match = match if match is not None else key
        self.match_id = match_id
        self.replay: Replay | None = None
        self.sent = 0
        self.last_flush = 0.0
        self.pace_s = pace_ms / 1000.0
        self.flush_s = flush_s

    @classmethod
    def for_task(cls, task: MatchTask, sink: LiveSink) -> LiveStreamer:
        return cls(
            task.live_key,
            sink,
            tournament_id=task.tournament_id,
            match=task.key,
            match_id=task.match_id,
            pace_ms=task.pace_ms,
        )

    def _event(self, kind: str, **fields: Any) -> dict[str, Any]:
        return {
            "type": kind,
            "key": self.key,
            "tournament_id": self.tournament_id,
            "match": self.match,
            **fields,
        }

    def begin(self, replay: Replay) -> None:
        self.replay = replay
        header = replay.to_json()
        header["steps"] = []
        self.sink(self._event("header", replay=header))
        self.last_flush = time.monotonic()

    def step(self, index: int, record: dict[str, Any], engine: Engine[Any]) -> None:
        if self.pace_s:
            time.sleep(self.pace_s)
        now = time.monotonic()
        if now - self.last_flush >= self.flush_s:
            self._flush()
            self.last_flush = now

    def _flush(self) -> None:
        assert self.replay is not None
        steps = self.replay.steps
        if self.sent < len(steps):
            self.sink(self._event("steps", first=self.sent, steps=steps[self.sent :]))
            self.sent = len(steps)

    def end(self, replay: Replay) -> None:
        if self.replay is None:  # the match never began (a bot failed to start): nothing was shown
            return
        self._flush()
        # the seed too: a public hub sent the header without it (botarena.server.secrecy), and the
        # match is over now
        fields = {
            name: getattr(replay, name)
            for name in ("seed", "result", "end", "keyframes", "logs", "time_used_ms", "statuses")
        }
        self.sink(self._event("end", match_id=self.match_id, fields=fields))


def _init_worker(
    live_queue: Any,
    coordinator_pid: int | None = None,
    credentials: WorkerSecrets | None = None,
    started: SimpleQueue[int] | None = None,
) -> None:
    global _worker_live_queue
    if started is not None:  # WorkerPool's own record of its workers: this one's pid, before anything
        started.put(os.getpid())
    _worker_live_queue = live_queue
    if credentials is not None:  # the coordinator's store password and live token: never in a task
        from botarena.core.credentials import hold

        hold(credentials)
    # Ctrl-C in a terminal reaches the whole process group: the coordinator decides what stops.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # SIGTERM (close_executor(cancel=True), a broken pool's cleanup) unwinds the match under way, so
    # run_match closes its bots (they live in process groups of their own and would be left behind).
    signal.signal(signal.SIGTERM, _on_sigterm)
    sys.unraisablehook = _report_unraisable
    _start_resignaller()
    from botarena.bots.subprocess import die_with_parent

    die_with_parent()  # the bot processes this worker starts die with it
    parent = os.getppid()
    _set_parent_death_signal(signal.SIGTERM)
    if os.getppid() != parent:  # the parent died before the line above: nothing will signal us
        os.kill(os.getpid(), signal.SIGTERM)
    if coordinator_pid is not None:
        threading.Thread(
            target=_watch_coordinator, args=(coordinator_pid,), name="botarena-coordinator-watch", daemon=True
        ).start()


def _on_sigterm(signum: int, frame: Any) -> None:
    from botarena.bots.inprocess import mark_stopping, real_exit

    mark_stopping()  # an in-process bot's call that this lands in passes it on
    if not _in_task:
        real_exit(128 + signum)  # between matches: nothing to close, and no lock may be left held
    if _called_from(frame, _report_unraisable.__code__):
        _signal_again_soon()  # raised here it would be lost, and printed as a failure of the hook itself
        return
    raise WorkerTerminated()


def _report_unraisable(unraisable: Any) -> None:
    """The worker's `sys.unraisablehook`: a SIGTERM's unwinding is never lost.

    The SIGTERM handler's `WorkerTerminated` can land where Python cannot raise it: in an at-fork
    callback (logging's lock release after a bot's fork: CI stop 36), a `__del__`, a weakref callback.
    Python would print "Exception ignored" and go on playing the match; this says nothing and signals
    the worker again, so the handler runs in ordinary code and unwinds the match.
    """
    if isinstance(unraisable.exc_value, WorkerTerminated):
        _signal_again_soon()
        return
    sys.__unraisablehook__(unraisable)


def _signal_again_soon() -> None:
    """Have the resignaller thread SIGTERM this worker: the handler then runs once the main thread's
    current callback has returned (should it land in the hook again, it asks again). One write to a
    pipe: no lock that the handler, landing in the middle of it, could find held."""
    if os.getpid() != _resignal_pid:
        return  # a child the worker forked: the thread reading the pipe would signal the worker
    with contextlib.suppress(OSError):  # a full pipe: a resignal is already on its way
        os.write(_resignal_fd, b"x")


def _start_resignaller() -> None:
    global _resignal_fd, _resignal_pid
    read_fd, _resignal_fd = os.pipe()
    _resignal_pid = os.getpid()
    os.set_blocking(_resignal_fd, False)
    threading.Thread(target=_resignal_loop, args=(read_fd,), name="botarena-resignal", daemon=True).start()


def _resignal_loop(read_fd: int) -> None:
    from botarena.bots.subprocess import block_thread_signals

    block_thread_signals()  # the main thread takes the signal and runs the handler
    while os.read(read_fd, 1):
        os.kill(os.getpid(), signal.SIGTERM)


def _called_from(frame: Any, code: Any) -> bool:
    while frame is not None:
        if frame.f_code is code:
            return True
        frame = frame.f_back
    return False


def _set_parent_death_signal(sig: int) -> None:
    """prctl(PR_SET_PDEATHSIG, sig): the kernel sends `sig` to this process when its parent dies."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)


def _watch_coordinator(pid: int) -> None:
    """Wait for the coordinator `pid` to end, then stop this worker: SIGTERM (the match unwinds and
    closes its bots), and after `TERMINATE_GRACE_S` an outright exit."""
    from botarena.bots.inprocess import real_exit
    from botarena.bots.subprocess import block_thread_signals

    block_thread_signals()
    _wait_for_exit(pid)
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(TERMINATE_GRACE_S)  # the grace the main thread has to close its bots
    real_exit(128 + signal.SIGTERM)


def _wait_for_exit(pid: int) -> None:
    """Block until process `pid` has exited (a pidfd where the kernel has them, else polling)."""
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        fd = -1
    if fd >= 0:
        try:
            select.select([fd], [], [])  # readable once the process has exited
            return
        finally:
            os.close(fd)
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        except PermissionError:
            pass
        time.sleep(0.5)


class LiveQueuePump:
    """A thread that forwards the live events pool workers put on `queue` to `sink`."""

    def __init__(self, queue: Any, sink: LiveSink) -> None:
        self.queue = queue
        self.sink = sink
        self.thread = threading.Thread(target=self._run, name="botarena-live-pump", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while True:
            event = self.queue.get()
            if event is None:
                return
            try:
                self.sink(event)
            except Exception:  # a viewer's trouble must never stop the tournament
                log.exception("live sink failed")

    def close(self) -> None:
        self.queue.put(None)
        self.thread.join(timeout=5)


def make_executor(
    workers: int,
    dask_address: str | None = None,
    *,
    live_queue: Any = None,
    credentials: WorkerSecrets | None = None,
) -> Executor:
    """A process pool of `workers` processes, or a Dask cluster's executor when `dask_address` is set.

    Pool workers start by `forkserver` (never a fork of a threaded server) and, with `live_queue`, send
    the live events of their matches to it (make the queue with `live_queue_for_pool()`). They hold
    `credentials` (the store's password, the live token), handed to their initializer: tasks carry
    none. Dask workers take theirs from their own environment (botarena.core.credentials).
    """
    if dask_address:
        return dask_executor(dask_address)
    return WorkerPool(workers, live_queue=live_queue, credentials=credentials)


def live_queue_for_pool() -> Any:
    """A queue that pool workers of `make_executor` can write live events to."""
    return multiprocessing.get_context("forkserver").Queue()


def dask_executor(address: str, *, timeout_s: float = 10.0) -> Executor:
    """The `concurrent.futures` executor of the Dask cluster at `address` (raises ValueError on failure)."""
    try:
        from distributed import Client
    except ImportError:
        raise ImportError(
            f"--dask needs dask.distributed, which is not installed; run: {DASK_HINT}"
        ) from None
    try:
        client = Client(address, timeout=timeout_s, set_as_default=False)  # type: ignore[no-untyped-call]
    except OSError as exc:
        raise ValueError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
    return DaskExecutor(client)


def close_executor(executor: Executor, *, cancel: bool = False) -> None:
    """Shut `executor` down (and its Dask client, if it has one).

    With `cancel`, matches under way are abandoned (a resumed tournament plays them again): queued
    ones are cancelled and a process pool's workers are terminated, so that stopping never waits for
    a long match to end. A `WorkerPool` never makes this hang: its workers get `FINISH_GRACE_S` to
    exit (`TERMINATE_GRACE_S` when cancelled) and are killed after that.
    """
    if isinstance(executor, WorkerPool):
        executor.stop(cancel=cancel)
    elif isinstance(executor, DaskExecutor):
        executor.shutdown(wait=not cancel)  # Dask's executor takes no cancel_futures
    else:
        executor.shutdown(wait=not cancel, cancel_futures=cancel)


class WorkerPool(ProcessPoolExecutor):
    """`make_executor`'s process pool: forkserver workers set up by `_init_worker`, with its own
    record of them, so that stopping it (`stop`) and the tests that kill a worker from outside use
    no private attribute of the standard library's pool.

    Each worker puts its pid on the pool's `started` queue as its initializer begins; the pool reads
    them when asked (`worker_pids`), and holds a pidfd for each, so a signal it sends later reaches
    that worker and never a process that took the pid over after it exited. (A pid read after its
    worker exited could in principle name another process already; the pidfd is opened as soon as
    the pool looks, and a worker exits only when the pool is stopped or broken.)"""

    def __init__(
        self, workers: int, *, live_queue: Any = None, credentials: WorkerSecrets | None = None
    ) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        context = multiprocessing.get_context("forkserver")
        self.workers = workers
        """How many matches the pool plays at once (`executor_slots`)."""
        # A SimpleQueue's put writes to the pipe at once (no feeder thread): a pid put by a worker's
        # initializer is readable before that worker plays anything.
        self._pids_started: SimpleQueue[int] = context.SimpleQueue()
        self._worker_handles: dict[int, _WorkerHandle] = {}
        self._worker_handles_lock = threading.Lock()
        super().__init__(
            max_workers=workers,
            mp_context=context,
            initializer=_init_worker,
            initargs=(live_queue, os.getpid(), credentials, self._pids_started),
        )

    def worker_pids(self) -> list[int]:
        """The pids of the workers that have started so far, whether or not they still run (none
        once `stop` has returned: its record is closed with the pool)."""
        return sorted(handle.pid for handle in self._known_workers())

    def _known_workers(self) -> list[_WorkerHandle]:
        with self._worker_handles_lock:
            while not self._pids_started.empty():
                pid = int(self._pids_started.get())
                self._worker_handles.setdefault(pid, _WorkerHandle.open(pid))
            return list(self._worker_handles.values())

    def stop(self, *, cancel: bool) -> None:
        """Shut down (see `close_executor`), bounded: the workers get `FINISH_GRACE_S` to finish
        (`TERMINATE_GRACE_S` after a SIGTERM when `cancel`), then SIGKILL, then 5 s more."""
        # The public shutdown, waiting, in a thread of its own: it returns once the pool's manager
        # thread has joined every worker, and this thread bounds how long anyone waits for that.
        closer = threading.Thread(
            target=self.shutdown,
            kwargs={"wait": True, "cancel_futures": cancel},
            name="botarena-pool-stop",
            daemon=True,
        )
        closer.start()
        deadline = time.monotonic() + (TERMINATE_GRACE_S if cancel else FINISH_GRACE_S)
        terminated: set[int] = set()
        while closer.is_alive() and time.monotonic() < deadline:
            if cancel:  # again each round: a worker still starting reports its pid late
                for handle in self._known_workers():
                    if handle.pid not in terminated:
                        handle.send(signal.SIGTERM)
                        terminated.add(handle.pid)
            closer.join(timeout=min(0.05, max(0.0, deadline - time.monotonic())))
        if closer.is_alive():  # a worker stuck in native code, or on a lock a dead worker left held
            for handle in self._known_workers():
                handle.send(signal.SIGKILL)
            closer.join(timeout=5)
        with self._worker_handles_lock:
            for handle in self._worker_handles.values():
                handle.close()
            self._worker_handles.clear()


@dataclass
class _WorkerHandle:
    """A pool worker the coordinator did not start itself (the forkserver did): its pid and a pidfd."""

    pid: int
    fd: int  # -1 where the kernel has no pidfds: signals then go by pid

    @classmethod
    def open(cls, pid: int) -> _WorkerHandle:
        try:
            return cls(pid, os.pidfd_open(pid))
        except (AttributeError, OSError):  # no pidfds here, or the worker is gone already
            return cls(pid, -1)

    def send(self, sig: int) -> None:
        """Send `sig` to the worker; nothing happens if it has exited."""
        with contextlib.suppress(OSError):  # ProcessLookupError: exited; EBADF: closed
            if self.fd >= 0:
                signal.pidfd_send_signal(self.fd, sig)
            else:
                os.kill(self.pid, sig)

    def close(self) -> None:
        if self.fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = -1


class DaskExecutor(Executor):
    """A Dask cluster's `concurrent.futures` executor together with its `distributed.Client`, which
    `shutdown` closes and `dask_client` and `executor_slots` read (no private attribute of Dask's)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        # pure=False: two tasks with equal arguments are two matches, never one cached result.
        self.inner: Executor = client.get_executor(pure=False)

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        """As `ClientExecutor.submit`: keywords Dask knows (workers=, resources=) route the task."""
        return self.inner.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.inner.shutdown(wait=wait)  # Dask's shutdown takes no cancel_futures
        self.client.close()


def dask_client(executor: Executor) -> Any:
    """The `distributed.Client` behind a Dask cluster's executor, else None. An executor is Dask's
    when its public `client` is a distributed Client: a `DaskExecutor`, or a wrapper that says so."""
    client = getattr(executor, "client", None)
    if client is None or not type(client).__module__.startswith("distributed"):
        return None
    return client


def executor_slots(executor: Executor) -> int:
    """How many tasks `executor` runs at once: a `WorkerPool`'s workers, a Dask cluster's worker
    threads (at this moment), an executor's own public `slots`, or 2 for one that does not say."""
    if isinstance(executor, WorkerPool):
        return executor.workers
    client = dask_client(executor)
    if client is not None:
        try:
            return max(1, int(sum(client.nthreads().values())))
        except Exception:  # the scheduler is unreachable just now: its tasks will say so
            return 1
    slots = getattr(executor, "slots", None)
    return max(1, slots) if isinstance(slots, int) else 2
