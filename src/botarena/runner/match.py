"""The one match loop (DESIGN principle 5): the same code for a terminal, a tournament or a server.

It drives an engine through its batches of requests, sends each batch to the bots (all requests of a
batch go out before any reply is read), enforces each request's limit with the bot's overage bank
and the chain budget, records everything in a Replay, and always produces a result: whatever a bot
does becomes a status, never an exception.

The loop is a hot path for tournaments and RL (benchmarks/overhead.py, benchmarks/drones_throughput.py):
in-process bots are asked directly (`PythonBot.ask`, no envelope), the common case of a batch with no
bank and no chain skips their bookkeeping, and long matches keep the garbage collector from
re-scanning the growing replay (`_GcPacer`).

Engines that set `late_replies` (Crafting Quest, CQ-31 to CQ-35) get `_LateExchange` instead: a
request past its deadline stays open and its seat owes the answer, which is handed to the engine's
`late_reply` between batches and recorded in `replay.late` (see `botarena.core.game.Engine`).
"""

from __future__ import annotations

import dataclasses
import gc
import select
import time
import uuid
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import orjson

from botarena import __version__
from botarena.bots.base import Bot, LogClock
from botarena.bots.inprocess import PythonBot
from botarena.core.config import LimitsConfig, PacedConfig, config_to_dict
from botarena.core.game import ConfigT, Engine, GameInfo, MatchResult
from botarena.core.protocol import NOT_AWAITED, MessageType, Reply, Request
from botarena.core.replay import Replay, exchange_entry, recorded_statuses, resume_entry
from botarena.core.rng import check_seed
from botarena.core.status import Reason, Status

StepObserver = Callable[[int, dict[str, Any], Engine[Any]], None]
BeginObserver = Callable[[Replay], None]

_CRASHED = Status.CRASHED
_TIMEOUT = Status.TIMEOUT
_PROCESS_EXITED = Reason.PROCESS_EXITED
_DEADLINE = Reason.DEADLINE
_perf_counter = time.perf_counter
_poll = select.poll
_INF = float("inf")


def _await_wire(bots: Sequence[Bot], seats: list[int], settled: Callable[[int, Reply], bool]) -> None:
    """Await the requests in flight of `seats` together until each is settled (DESIGN principle 7).

    One `poll` watches every seat's descriptors (`Bot.wait_fds`) until the nearest deadline; a seat
    is asked for its reply (`poll_reply`, which reads before it checks the deadline) when its
    descriptors are ready or its deadline has passed, so the order of seats and what the others do
    change nothing. `settled(seat, reply)` records a reply and returns whether the seat has sent
    another request (a chain), which is then awaited too. Transports without descriptors are
    awaited with `receive` after all the others: they stamp their replies themselves.
    """
    waiting = list(seats)
    later: list[int] = []
    while waiting:
        poller = _poll()
        owner: dict[int, int] = {}
        due = _INF
        watched: list[int] = []
        for seat in waiting:
            bot = bots[seat]
            fds = bot.wait_fds()
            if not fds:
                later.append(seat)
                continue
            watched.append(seat)
            for fd, mask in fds:
                poller.register(fd, mask)
                owner[fd] = seat
            seat_due = bot.due()
            if seat_due < due:
                due = seat_due
        if not watched:
            break
        timeout_ms = (due - _perf_counter()) * 1000.0
        ready = {owner[fd] for fd, _mask in poller.poll(timeout_ms if timeout_ms > 0.0 else 0.0)}
        now = _perf_counter()
        waiting = []
        for seat in watched:
            bot = bots[seat]
            if seat in ready or bot.due() <= now:
                reply = bot.poll_reply()
                if reply is not None and not settled(seat, reply):
                    continue
            waiting.append(seat)
    for seat in later:
        while settled(seat, bots[seat].receive()):
            if bots[seat].wait_fds():
                _await_wire(bots, [seat], settled)
                break


@dataclass
class MatchRun:
    """A finished match: its result and (unless recording was off) its replay."""

    result: MatchResult
    replay: Replay


class _Budgets:
    """Every seat's time accounting, in one place: the overage bank, the time used, and each chain's
    spent budget.

    A request's hard limit (`allowance`) is its own limit plus what is left of its seat's bank,
    capped by what is left of its chain's budget; time a reply used over its request's own limit is
    taken from the bank (`charge`). A chain's budget left is counted from the replies' times, or by
    wall clock (`chain_elapsed_ms`) where the rules say so (CQ-31).
    """

    __slots__ = ("banks", "chain_spent_ms", "time_used_ms")

    def __init__(self, seats: int, overage_bank_ms: int) -> None:
        self.banks = [float(overage_bank_ms)] * seats
        self.time_used_ms = [0.0] * seats
        self.chain_spent_ms: dict[Hashable, float] = {}

    def allowance(self, request: Request, chain_elapsed_ms: float | None = None) -> float:
        """The request's hard limit in ms; zero or less when its chain's budget is spent."""
        allowance = request.timeout_ms + self.banks[request.seat]
        if request.chain is not None and request.chain_budget_ms > 0:
            spent = (
                self.chain_spent_ms.get(request.chain, 0.0) if chain_elapsed_ms is None else chain_elapsed_ms
            )
            left = request.chain_budget_ms - spent
            if left < allowance:
                return left
        return allowance

    def charge(self, request: Request, used_ms: float) -> None:
        """Count `used_ms` of the seat's time: the bank pays what went over the request's own limit."""
        seat = request.seat
        over = used_ms - request.timeout_ms
        if over > 0.0 and self.banks[seat] > 0.0:
            self.banks[seat] = max(0.0, self.banks[seat] - over)
        self.time_used_ms[seat] += used_ms
        if request.chain is not None:
            self.chain_spent_ms[request.chain] = self.chain_spent_ms.get(request.chain, 0.0) + used_ms


class _Exchange:
    """Sends batches of requests to the seats' bots and collects one Reply per request, counting
    every seat's time in one `_Budgets`.
    """

    late_replies = False

    def __init__(self, bots: Sequence[Bot], overage_bank_ms: int) -> None:
        for bot in bots:
            bot.keep_late_replies(self.late_replies)  # before `open`: a transport may set up for it
        self.bots = bots
        self.budgets = _Budgets(len(bots), overage_bank_ms)
        self.time_used_ms = self.budgets.time_used_ms
        self.next_id = 0
        # In-process bots are asked in one call; others get send() now and receive() below.
        self.ask: list[Callable[[Request, float], Reply] | None] = [
            bot.ask if isinstance(bot, PythonBot) else None for bot in bots
        ]

        self.all_direct = all(a is not None for a in self.ask)
        # Batch bots (`Bot.takes_batches`) enforce every limit themselves; no overage bank applies.
        self.batch = [bot.takes_batches for bot in bots]
        self.any_batch = any(self.batch)
        if self.any_batch:
            self.all_direct = False

    def count_recorded(self, requests: list[Request], replies: list[Reply]) -> None:
        """Count recorded replies as if they had just been received (a resumed match's earlier
        steps): the banks, chains and time used come out as the killed match had them."""
        for request, reply in zip(requests, replies, strict=True):
            if self.batch[request.seat]:
                self.time_used_ms[request.seat] += reply.time_ms
            else:
                self.budgets.charge(request, reply.time_ms)

    def swap_budgets(self, budgets: _Budgets) -> _Budgets:
        """Count with `budgets` from now on; returns the accounting so far (a resumed match keeps
        what its re-run counted apart from the restarted bots' start exchange)."""
        kept, self.budgets = self.budgets, budgets
        self.time_used_ms = budgets.time_used_ms
        return kept

    def settle_owed(self, timeout_s: float) -> None:
        """Nothing is owed outside `_LateExchange`."""
        return None

    def collect_late(self) -> list[Reply]:
        """Nothing is owed outside `_LateExchange`."""
        return []

    def run(self, requests: list[Request]) -> list[Reply]:
        if self.all_direct:
            return self._run_direct(requests)
        if self.any_batch:
            return self._run_with_batches(requests)
        return self._run_one_by_one(requests)

    def _run_one_by_one(self, requests: list[Request]) -> list[Reply]:
        """Send the first request of every wire seat, await all wire seats together, then ask the
        in-process bots (fair clocks, DESIGN principle 7).

        Every wire seat is awaited with one selector (`_await_wire`) and each reply is stamped by its
        transport when it arrives, so no seat's verdict depends on another seat's timing. In-process
        bots only start computing when asked, so they are asked once no wire request is open: one
        computing up to its limit can never hold up the reading of a wire seat's reply.
        A seat with several requests in one batch (a Devops faction's calls) is asked one request at
        a time, in order: its later requests are sent when the previous one is settled, with what is
        left of the chain budget then, since a wire bot has one request in flight.
        """
        bots, ask = self.bots, self.ask
        replies: list[Reply | None] = [None] * len(requests)
        queues: dict[int, list[int]] = {}  # wire seat -> its request indexes, in order
        direct: list[int] = []
        for index, request in enumerate(requests):
            if ask[request.seat] is not None:
                direct.append(index)
            else:
                queues.setdefault(request.seat, []).append(index)
        if queues:
            in_flight: dict[int, int] = {}  # wire seat -> index of its request in flight

            def advance(seat: int) -> bool:
                """Send the seat's next request (settling those that cannot be sent); whether one is
                now in flight."""
                queue = queues[seat]
                while queue:
                    index = queue.pop(0)
                    request = requests[index]
                    if self._send(request) is not None:
                        in_flight[seat] = index
                        return True
                    self._settle(request, self._unsendable(request.seat), replies, index)
                in_flight.pop(seat, None)
                return False

            def settled(seat: int, reply: Reply) -> bool:
                index = in_flight[seat]
                reply.seat = seat
                self._settle(requests[index], reply, replies, index)
                return advance(seat)

            waiting = [seat for seat in queues if advance(seat)]
            _await_wire(bots, waiting, settled)
        for index in direct:
            request = requests[index]
            granted = self._allowance(request)
            if granted is not None:
                reply = ask[request.seat](request, granted / 1000.0)  # type: ignore[misc]
            else:
                reply = self._unsendable(request.seat)
            self._settle(request, reply, replies, index)
        return replies  # type: ignore[return-value]

    def _unsendable(self, seat: int) -> Reply:
        """The reply of a request that could not be sent: its bot is dead, or its chain is spent."""
        if not self.bots[seat].alive:
            return Reply(seat, _CRASHED, None, _PROCESS_EXITED)  # GD-26 and kin
        return Reply(seat, _TIMEOUT, None, _DEADLINE)  # chain budget spent

    def _settle(self, request: Request, reply: Reply, replies: list[Reply | None], index: int) -> None:
        """Record `reply` and count its time."""
        self.budgets.charge(request, reply.time_ms)
        replies[index] = reply

    def _allowance(self, request: Request) -> float | None:
        """The request's hard limit in ms, or None if it cannot be sent (dead bot, chain spent)."""
        allowance = self.budgets.allowance(request)
        if allowance <= 0 or not self.bots[request.seat].alive:
            return None
        return allowance

    def _send(self, request: Request) -> float | None:
        allowance = self._allowance(request)
        if allowance is not None:
            self.next_id += 1
            self.bots[request.seat].send(request, self.next_id, allowance / 1000.0)
        return allowance

    def _run_with_batches(self, requests: list[Request]) -> list[Reply]:
        """`run` when some bots take batches: their requests go out first, all seats concurrently,
        then the other bots are asked as usual, then the batches are collected."""
        batched: dict[int, list[int]] = {}
        rest: list[int] = []
        for index, request in enumerate(requests):
            if self.batch[request.seat]:
                batched.setdefault(request.seat, []).append(index)
            else:
                rest.append(index)
        for seat, indexes in batched.items():
            self.bots[seat].send_batch([requests[i] for i in indexes])
        replies: list[Reply | None] = [None] * len(requests)
        if rest:
            answered = self._run_one_by_one([requests[i] for i in rest])
            for index, reply in zip(rest, answered, strict=True):
                replies[index] = reply
        for seat, indexes in batched.items():
            answers = self.bots[seat].receive_batch()
            for index, reply in zip(indexes, answers, strict=True):
                reply.seat = seat
                self.time_used_ms[seat] += reply.time_ms
                replies[index] = reply
        return replies  # type: ignore[return-value]

    def _run_direct(self, requests: list[Request]) -> list[Reply]:
        """`run` when every bot is in-process: each is asked in turn (sending first changes nothing
        for bots that only start computing when asked), in one pass."""
        ask, allowance_of, charge = self.ask, self.budgets.allowance, self.budgets.charge
        replies: list[Reply] = []
        for request in requests:
            seat = request.seat
            allowance = allowance_of(request)
            if allowance > 0 and self.bots[seat].alive:
                reply = ask[seat](request, allowance / 1000.0)  # type: ignore[misc]
            else:
                reply = self._unsendable(seat)
            charge(request, reply.time_ms)
            replies.append(reply)
        return replies


@dataclass(slots=True)
class _Owed:
    """An open request whose answer a seat owes: when it was sent, and the time already counted."""

    sent_at: float
    counted_ms: float


class _LateExchange(_Exchange):
    """The exchange for engines with `late_replies` (CQ-31 to CQ-35; the rules are in
    `botarena.core.game.Engine`'s docstring).

    Every bot, in-process ones included, goes through `send`/`receive`, so that a call past its
    deadline can go on (in-process bots then run in a worker thread). A chain's budget runs by wall
    clock from the sending of its first request (CQ-31: from `turn_start`); the overage bank works
    as in `_Exchange`.
    """

    late_replies = True

    def __init__(self, bots: Sequence[Bot], overage_bank_ms: int) -> None:
        super().__init__(bots, overage_bank_ms)
        self.owed: list[_Owed | None] = [None] * len(bots)
        self.owing = 0  # how many seats owe: the poll between batches is skipped while none do
        self.chain_clock: list[tuple[Hashable, float] | None] = [None] * len(bots)  # (chain, started)
        self.given_up: set[int] = set()  # restarted seats that never answered their start (resume)

    def run(self, requests: list[Request]) -> list[Reply]:
        if self.given_up:
            return self._run_without_given_up(requests)
        return self._run_late(requests)

    def _run_late(self, requests: list[Request]) -> list[Reply]:
        seats = [request.seat for request in requests]
        if len(set(seats)) != len(seats):
            raise RuntimeError(f"an engine with late replies asked a seat twice in one batch (seats {seats})")
        for request in requests:
            if self.owed[request.seat] is not None:
                if request.type is not MessageType.END:
                    raise RuntimeError(
                        f"engine bug: seat {request.seat} owes an answer and was sent a"
                        f" {request.type.value!r} request (only 'end' may be sent while a seat owes)"
                    )
                self._forgive(request.seat)  # the transport tells the owed answer from the end reply
        # send everything first (the start exchange: all bots think at once), await every seat whose
        # reply is waited for together (fair clocks), then settle the batch in request order
        sent = [self._send_late(request) for request in requests]
        awaited = [r.seat for r, how in zip(requests, sent, strict=True) if how is not None and how[1]]
        received: dict[int, Reply] = {}

        def settled(seat: int, reply: Reply) -> bool:
            received[seat] = reply
            return False

        _await_wire(self.bots, awaited, settled)
        return [self._collect(r, how, received) for r, how in zip(requests, sent, strict=True)]

    def _forgive(self, seat: int) -> None:
        self.owed[seat] = None
        self.owing -= 1

    def _owe(self, seat: int, sent_at: float, counted_ms: float) -> None:
        self.owed[seat] = _Owed(sent_at, counted_ms)
        self.owing += 1

    def _send_late(self, request: Request) -> tuple[float, bool] | None:
        """Send `request` if its bot is alive: (when it was sent, whether its reply is waited for),
        or None if it was not sent."""
        seat = request.seat
        bot = self.bots[seat]
        if not bot.alive:
            return None
        now = _perf_counter()
        elapsed_ms = None
        if request.chain is not None:  # the chain's budget runs by wall clock from its first request
            clock = self.chain_clock[seat]
            if clock is None or clock[0] != request.chain:
                clock = self.chain_clock[seat] = (request.chain, now)
            elapsed_ms = (now - clock[1]) * 1000.0
        allowance = self.budgets.allowance(request, elapsed_ms)
        if not request.await_reply:
            allowance = request.timeout_ms  # what the envelope tells the bot; nobody waits
        self.next_id += 1
        bot.send(request, self.next_id, max(allowance, 0.0) / 1000.0)
        if allowance > 0.0 and request.await_reply:
            return (now, True)
        # Not waited for: the engine asked so (CQ-31's `actions_left: 0`), or the chain's time is
        # spent (the bot still gets the message, and its answer is late, CQ-31).
        bot.owe()
        self._owe(seat, now, 0.0)
        return (now, False)

    def _collect(
        self, request: Request, sent: tuple[float, bool] | None, received: dict[int, Reply]
    ) -> Reply:
        seat = request.seat
        if sent is None:
            return Reply(seat, _CRASHED, None, _PROCESS_EXITED)
        sent_at, awaited = sent
        if not awaited:  # left open by `_send_late`
            return Reply(seat, _TIMEOUT, None, _DEADLINE if request.await_reply else NOT_AWAITED)
        reply = received[seat]
        reply.seat = seat
        self.budgets.charge(request, reply.time_ms)
        if reply.status is _TIMEOUT and request.type is not MessageType.END:
            self._owe(seat, sent_at, reply.time_ms)  # the transport keeps the request open
        return reply

    def settle_owed(self, timeout_s: float) -> None:
        """A resumed match's restarted bots whose start answer is late owe an answer their engine
        never asked for (so it must not see it). Wait up to `timeout_s` for those answers and drop
        them; a seat still owing then is given up, as if its process had exited: its requests are
        CRASHED `process_exited` without being sent (the engine treats it as a dead bot, CQ-34 never
        holds it waiting for an answer that would not come)."""
        deadline = _perf_counter() + timeout_s
        while self.owing and _perf_counter() < deadline:
            if not self.collect_late():
                time.sleep(0.01)  # a poll interval while a restarted bot is still thinking
        for seat, owed in enumerate(self.owed):
            if owed is not None:
                self._forgive(seat)
                self.given_up.add(seat)

    def _run_without_given_up(self, requests: list[Request]) -> list[Reply]:
        """`run` once some seats are given up (see `settle_owed`): theirs are answered CRASHED."""
        live = [r for r in requests if r.seat not in self.given_up]
        replies = iter(self._run_late(live) if live else [])
        return [
            Reply(r.seat, _CRASHED, None, _PROCESS_EXITED) if r.seat in self.given_up else next(replies)
            for r in requests
        ]

    def collect_late(self) -> list[Reply]:
        """The owed answers that have arrived (or died), in arrival order; those seats owe no more.

        Each answer's time beyond what its timed-out request already counted is counted too.
        """
        arrived: list[tuple[float, int, Reply]] = []
        for seat, owed in enumerate(self.owed):
            if owed is None:
                continue
            bot = self.bots[seat]
            reply = bot.poll_late()
            if reply is None:
                if bot.alive:
                    continue
                elapsed = (_perf_counter() - owed.sent_at) * 1000.0
                reply = Reply(seat, _CRASHED, None, _PROCESS_EXITED, elapsed)
            reply.seat = seat
            self._forgive(seat)
            extra = reply.time_ms - owed.counted_ms
            if extra > 0.0:
                self.time_used_ms[seat] += extra
            arrived.append((owed.sent_at + reply.time_ms / 1000.0, seat, reply))
        arrived.sort(key=lambda item: (item[0], item[1]))
        return [reply for _at, _seat, reply in arrived]


class _GcPacer:
    """Keeps the cyclic garbage collector from re-scanning a long match's growing replay.

    CPython runs a full collection whenever the objects that survived since the last one reach a
    quarter of all tracked objects, so a replay of millions of small containers is scanned again and
    again (benchmarks/overhead.py measured more time in the collector than in the rest of the loop).
    Every `every` steps the pacer collects what is new (frozen objects are not scanned, so that costs
    about one pass over the new objects, and no garbage is kept) and freezes the survivors; the match
    unfreezes them when it ends. It stays off while the collector is disabled, and when the process
    already uses `gc.freeze` itself (checked at the first freeze: `gc.get_freeze_count()` walks every
    frozen object, far too slow to call for every match).
    """

    def __init__(self, every: int = 2000) -> None:
        self.every = every
        self.active = gc.isenabled()
        self.froze = False

    def step(self, index: int) -> None:
        if not self.active or index % self.every:
            return
        if not self.froze and gc.get_freeze_count():
            self.active = False  # someone else's freeze: unfreezing at the end would undo it
            return
        gc.collect()
        gc.freeze()
        self.froze = True

    def finish(self) -> None:
        if self.froze:
            self.froze = False
            gc.unfreeze()


@lru_cache(maxsize=256)
def _config_bytes(config: Any) -> bytes:
    return orjson.dumps(config_to_dict(config))


def config_json(config: Any) -> dict[str, Any]:
    """A fresh JSON-able dict of every config key (the conversion is cached per config value)."""
    try:
        raw = _config_bytes(config)
    except TypeError:  # an unhashable config class
        return config_to_dict(config)
    return orjson.loads(raw)  # type: ignore[no-any-return]


def run_match(
    game: GameInfo[ConfigT],
    bots: Sequence[Bot],
    *,
    config: ConfigT | None = None,
    seed: int = 0,
    preset: str = "default",
    match_id: str | None = None,
    on_step: StepObserver | None = None,
    on_begin: BeginObserver | None = None,
) -> MatchRun:
    """Play one match of `game` between `bots` (seat i is bots[i]) and return its result and replay.

    `config` defaults to the game's `preset`. Bots are opened here and always closed, whatever happens.
    Observers (for live viewing, and `ReplayJournal`): `on_begin(replay)` once the start exchange and
    the first keyframe are recorded, then `on_step(index, record, engine)` after step `index`
    (1-based) is appended to `replay.steps`. They run on the match's thread, outside any bot's time.
    """
    game.check_players(len(bots))
    check_seed(seed)
    if config is None:
        config = game.config(preset)
    # (never the seed: the match id goes to every bot in its envelope, and to live viewers)
    match_id = match_id or f"{game.id}-{uuid.uuid4().hex[:12]}"
    engine = game.new_engine(config, seed, len(bots))
    engine.set_player_names([bot.name for bot in bots])
    replay = Replay(
        game=game.id,
        rules=game.rules_version,
        preset=preset,
        # the config the engine plays, which may follow the seat count (domains' num_players)
        config=config_json(engine.config),
        seed=seed,
        players=[{"seat": seat, **bot.describe()} for seat, bot in enumerate(bots)],
        match_id=match_id,
        created_by=f"botarena {__version__}",
    )
    match = _Match(game, engine, new_exchange(engine, bots, config), bots, replay, [{} for _ in bots])
    return _drive(match, config, _live_start(match), on_begin, on_step)


def _live_start(match: _Match, external: Sequence[dict[str, Any]] = ()) -> Callable[[LogClock], None]:
    """The start exchange of a match played from its beginning: asked live, applied, recorded with
    the first keyframe; then the outside inputs accepted before it (`external`) are given back."""
    engine, replay = match.engine, match.replay

    def start(clock: LogClock) -> None:
        replies = match.exchange.run(engine.start_requests())
        verdicts = engine.apply_start(replies)
        replay.start = exchange_entry(replies, verdicts, statuses=match.statuses)
        replay.keyframes.append({"step": 0, "state": engine.keyframe()})
        if external:
            engine.restore_pending_inputs(list(external))

    return start


class ResumeError(ValueError):
    """A partial replay that cannot be resumed; the message says why, in one line."""


def resume_match(
    partial: Replay,
    bots: Sequence[Bot],
    *,
    game: GameInfo[Any] | None = None,
    external: Sequence[dict[str, Any]] = (),
    on_step: StepObserver | None = None,
    on_begin: BeginObserver | None = None,
) -> MatchRun:
    """Go on with the match a killed host left as `partial` (a journal's replay: `read_replay`).

    A fresh engine re-runs every recorded step from the recorded replies (a step that comes out
    differently is refused: ResumeError), the time accounting is rebuilt from the recorded reply
    times, and the bots (the same ones, started again) get the seat's start request, whose replies
    are recorded in `replay.resumes` and not given to the engine. Then the match goes on live from
    the next step, exactly as `run_match` plays it, and the finished replay is one whole game that
    `verify_replay` re-runs. `game` may be a wrapped copy of the registered game (a live server's
    locked engine). `external` are the journal's outside inputs (`Engine.restore_pending_inputs`:
    those accepted after the last recorded step are given back). Raises ResumeError before any bot
    is started if the replay cannot be resumed.
    """
    from botarena.core.registry import get_game
    from botarena.runner.verify import ReplayRerun, RerunMismatch

    game = game or get_game(partial.game)
    if len(bots) != len(partial.players):
        raise ResumeError(f"the game has {len(partial.players)} seats, {len(bots)} bots were given")
    if not partial.start and not partial.steps:
        return _start_over(partial, bots, game, external, on_step, on_begin)
    try:
        rerun = ReplayRerun(partial, game)
        exchange = new_exchange(rerun.engine, bots, rerun.engine.config)
        exchanges = rerun.rerun_recorded()
        recorded_start = next(exchanges)  # the start exchange comes first
        for pending in (recorded_start, *exchanges):
            exchange.count_recorded(pending.requests, pending.replies)
        rerun.catch_up()
        rerun.engine.restore_pending_inputs(list(external))
    except RerunMismatch as mismatch:
        raise ResumeError(
            f"the recorded game does not re-run: differs at {mismatch.where}: {mismatch.detail}"
        ) from None
    engine = rerun.engine
    replay = _going_on(partial)
    if not replay.keyframes and not replay.steps:
        # cut after its start exchange, before the first keyframe: the state it would have shown
        replay.keyframes.append({"step": 0, "state": engine.keyframe()})
    statuses = recorded_statuses((replay.start, *replay.steps), len(replay.players))
    match = _Match(game, engine, exchange, bots, replay, statuses)
    resumed_after = len(partial.steps)

    def start(clock: LogClock) -> None:
        clock.step = resumed_after + 1  # the restarted bots' output belongs with the next step
        counted = exchange.swap_budgets(_Budgets(len(bots), 0))  # the warm-up: no bank, not counted
        requests = recorded_start.requests
        replies = exchange.run(requests)
        exchange.settle_owed(max(request.timeout_ms for request in requests) / 1000.0)
        exchange.swap_budgets(counted)
        replay.resumes.append(resume_entry(resumed_after, replies, f"botarena {__version__}"))

    return _drive(match, engine.config, start, on_begin, on_step, first_step=resumed_after)


def _going_on(partial: Replay) -> Replay:
    """The replay a resumed match goes on with: `partial`'s, with new lists (the match appends to
    them, `partial` stays as it was)."""
    return dataclasses.replace(
        partial,
        partial=False,
        start=dict(partial.start or {}),
        steps=list(partial.steps),
        keyframes=list(partial.keyframes),
        late=list(partial.late),
        resumes=list(partial.resumes),
    )


def _start_over(
    partial: Replay,
    bots: Sequence[Bot],
    game: GameInfo[Any],
    external: Sequence[dict[str, Any]],
    on_step: StepObserver | None,
    on_begin: BeginObserver | None,
) -> MatchRun:
    """`resume_match` of a journal cut before its start exchange was on disk (issue 26, item 1):
    nothing was recorded, so the same match (game, config, seed, seats, match id) is played from
    its beginning, exactly as `run_match` plays it."""
    from botarena.runner.verify import new_engine_for

    engine = new_engine_for(partial, game)
    replay = _going_on(partial)
    replay.keyframes = []
    match = _Match(game, engine, new_exchange(engine, bots, engine.config), bots, replay, [{} for _ in bots])
    return _drive(match, engine.config, _live_start(match, external), on_begin, on_step)


@dataclass
class _Match:
    """What `run_match` and `resume_match` set up for `_drive`."""

    game: GameInfo[Any]
    engine: Engine[Any]
    exchange: _Exchange
    bots: Sequence[Bot]
    replay: Replay
    statuses: list[dict[str, int]]


def new_exchange(engine: Engine[Any], bots: Sequence[Bot], config: Any) -> _Exchange:
    """The exchange that asks `bots` (seat i is bots[i]) the requests of `engine`'s batches within
    `config`'s limits: `run(requests) -> replies`, and `collect_late()` when the engine takes late
    replies. The bots are opened by the caller (the RL layer asks only its opponents' seats)."""
    for bot in bots:
        bot.use_config(config)
    exchange_class = _LateExchange if engine.late_replies else _Exchange
    limits: LimitsConfig = config
    return exchange_class(bots, limits.overage_bank_ms)


def _drive(
    match: _Match,
    config: Any,
    start: Callable[[LogClock], None],
    on_begin: BeginObserver | None,
    on_step: StepObserver | None,
    first_step: int = 0,
) -> MatchRun:
    """Open the bots, run `start` (the start exchange), play every step from `first_step` on and
    the end exchange, and always close the bots and record their logs."""
    engine, exchange, replay, statuses = match.engine, match.exchange, match.replay, match.statuses
    pacer = _GcPacer()
    clock = LogClock()  # the step each bot's log output belongs to (BotLog.marks)
    try:
        for seat, bot in enumerate(match.bots):
            bot.log_clock = clock
            bot.open(replay.match_id, seat)
        start(clock)
        if on_begin is not None:
            on_begin(replay)
        interval_s = config.turn_interval_ms / 1000.0 if isinstance(config, PacedConfig) else 0.0
        _play(
            engine,
            exchange,
            replay,
            statuses,
            match.game.keyframe_every,
            on_step,
            pacer,
            interval_s,
            clock,
            first_step,
        )
        clock.step = len(replay.steps) + 1
        replies = exchange.run(engine.end_requests())
        verdicts = engine.apply_end(replies)
        replay.end = exchange_entry(replies, verdicts)
    finally:
        pacer.finish()
        replay.logs = []
        for seat, bot in enumerate(match.bots):
            log = bot.close()
            entry: dict[str, Any] = {"seat": seat, "text": log.text, "dropped_bytes": log.dropped_bytes}
            if log.marks:
                entry["marks"] = log.marks
            replay.logs.append(entry)
    result = engine.result()
    replay.result = result.to_json()
    replay.time_used_ms = [int(t * 1000.0 + 0.5) / 1000.0 for t in exchange.time_used_ms]
    replay.statuses = statuses
    return MatchRun(result, replay)


def _play(
    engine: Engine[Any],
    exchange: _Exchange,
    replay: Replay,
    statuses: list[dict[str, int]],
    keyframe_every: int,
    on_step: StepObserver | None,
    pacer: _GcPacer,
    interval_s: float = 0.0,
    clock: LogClock | None = None,
    first_step: int = 0,
) -> None:
    """`interval_s` > 0 paces the match for live viewing: a batch starts no earlier than that long
    after the previous one started (a config's `turn_interval_ms`, devops DV-51)."""
    steps = replay.steps
    keyframes = replay.keyframes
    next_requests, apply, run = engine.next_requests, engine.apply, exchange.run
    append = steps.append
    pace_every = pacer.every if pacer.active else 0
    index = first_step  # a resumed match goes on after its recorded steps
    last_start = 0.0
    late = exchange if isinstance(exchange, _LateExchange) else None
    while True:
        if late is not None and late.owing:
            _deliver_late(engine, late, replay, index)
        requests = next_requests()
        if not requests:
            break
        if interval_s > 0.0:
            wait = last_start + interval_s - time.monotonic()
            if wait > 0.0 and index:
                time.sleep(wait)
            last_start = time.monotonic()
        if clock is not None:
            clock.step = index + 1
        replies = run(requests)
        step = apply(replies)
        append(exchange_entry(replies, step.verdicts, step.record, statuses))
        index += 1
        if index % keyframe_every == 0:
            keyframes.append({"step": index, "state": engine.keyframe()})
        if on_step is not None:
            on_step(index, step.record, engine)
        if pace_every and index % pace_every == 0:
            pacer.step(index)
    if not keyframes or keyframes[-1]["step"] != index:  # (none: a resumed journal cut before one)
        keyframes.append({"step": index, "state": engine.keyframe()})


def _deliver_late(engine: Engine[Any], exchange: _LateExchange, replay: Replay, after_step: int) -> None:
    """Hand the engine every owed answer that has arrived, and record each with the step it followed
    (runner/verify.py feeds them back at the same point)."""
    for reply in exchange.collect_late():
        engine.late_reply(reply)
        replay.late.append({"after_step": after_step, "reply": reply.to_json()})
