"""Feeding a recorded request to a bot: `botarena replay FILE --feed STEP --seat SEAT --bot SPEC`.

To debug a lost match locally (as Halite's replay feeding and CodinGame's replay-in-IDE allow), a
replay's match is played again through the engine (`ReplayRerun`, the machinery of `replay
--verify`), which regenerates the exact requests of every exchange: a replay records the replies,
not the requests, but the engine is deterministic. The bot under test then gets:

1. its seat's start request, so a stateful bot is set up as in the match (step 0 feeds only this);
2. with `history`, every earlier request of its seat, in order, its own replies discarded (with
   `request`, the seat's earlier requests of the same step too);
3. the step's request(s) of its seat: a step is one batch, so a seat may have several (a Devops
   faction's base call and one per unit); all of them, or only the `request`-th (1-based).

Each request goes out with the game's real limit: its own `timeout_ms` plus what was left of the
seat's overage bank, capped by what was left of its chain's budget, both counted from the times the
replay recorded up to that point (for Crafting Quest, whose chain budget runs by wall clock in a
match, the recorded times of the turn's earlier actions stand in for the clock). Batch transports
(the Devops course's HTTP bot) get their requests as one batch and enforce their limits themselves.
The envelope's `id` counts this session's requests: the match's ids depended on every seat's
transport and are not recorded.

The new reply is judged by the engine itself: the step's recorded replies are applied with this
seat's replaced by the new ones (the walk stops at this step, so the engine is not needed after it),
and the start reply on a fresh engine likewise, so the verdicts are exactly what the runner would
have recorded. A request the match did not wait for (Crafting Quest's `result` with `actions_left:
0`, whose answer is late by definition) is sent and its answer shown, but not judged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from botarena.bots.base import Bot, BotLog
from botarena.bots.subprocess import encode_request
from botarena.core.config import LimitsConfig
from botarena.core.protocol import Reply, Request
from botarena.core.replay import Replay, verdict_json
from botarena.core.status import Reason, Status
from botarena.runner.match import _Budgets
from botarena.runner.verify import ReplayRerun, RerunMismatch, new_engine_for

TRIM_LINES = 40
"""How many lines of a pretty-printed request or payload are shown without `full`."""
LOG_TAIL_LINES = 20
"""How many of the bot's last log lines the report shows."""


class FeedError(ValueError):
    """A step, seat or request that the replay does not have, or a replay that does not re-run: one line."""


@dataclass
class FedRequest:
    """One recorded request sent to the bot under test, with both replies and both verdicts."""

    label: str
    envelope: dict[str, Any]
    """The request as a wire bot received it (an in-process bot gets its `payload`)."""
    recorded: Reply
    recorded_verdict: list[Any]
    new: Reply
    new_verdict: list[Any] | None = None
    """The engine's verdict on the new reply; None when it was not judged (see `note`)."""
    note: str = ""

    @property
    def same_payload(self) -> bool:
        return self.recorded.status is self.new.status and _canon(self.recorded.payload) == _canon(
            self.new.payload
        )

    @property
    def same_verdict(self) -> bool | None:
        if self.new_verdict is None:
            return None
        return bool(_canon(self.recorded_verdict) == _canon(self.new_verdict))


@dataclass
class FeedReport:
    """What `feed_replay` did: the start exchange, how many earlier requests were replayed, the fed
    requests, and the bot's log."""

    game: str
    step: int
    seat: int
    bot: str
    start: FedRequest
    history: int = 0
    history_not_ok: int = 0
    fed: list[FedRequest] = field(default_factory=list)
    log: BotLog = field(default_factory=BotLog)


def _canon(value: Any) -> Any:
    return orjson.loads(orjson.dumps(value, option=orjson.OPT_SERIALIZE_NUMPY))


def seat_requests(replay: Replay, step: int, seat: int, request: int | None = None) -> list[int]:
    """The indexes, in the step's batch, of the requests `seat` got at `step` (0: the start exchange),
    or only the `request`-th of them (1-based). Raises FeedError with a one-line reason."""
    seats = len(replay.players)
    if not 0 <= seat < seats:
        raise FeedError(f"no seat {seat}: this replay has seats 0-{seats - 1}")
    if not 0 <= step <= len(replay.steps):
        raise FeedError(
            f"no step {step}: this replay has steps 1-{len(replay.steps)} (0 feeds the start exchange)"
        )
    exchange = replay.start if step == 0 else replay.steps[step - 1]
    asked = [i for i, reply in enumerate((exchange or {}).get("replies") or []) if reply.get("seat") == seat]
    if not asked:
        near = [i for i in range(step - 1, 0, -1) if _asks(replay, i, seat)][:1]
        near += [i for i in range(step + 1, len(replay.steps) + 1) if _asks(replay, i, seat)][:1]
        hint = f" (nearest steps that do: {', '.join(map(str, near))})" if near else ""
        raise FeedError(f"seat {seat} has no request at step {step}{hint}")
    if request is None:
        return asked
    if not 1 <= request <= len(asked):
        raise FeedError(f"no request {request}: seat {seat} has {len(asked)} at step {step}")
    return [asked[request - 1]]


def _asks(replay: Replay, step: int, seat: int) -> bool:
    return any(reply.get("seat") == seat for reply in replay.steps[step - 1].get("replies") or [])


class _Sender:
    """Sends requests of one seat to the bot under test with the match's limits (see the module
    docstring), numbering them as it goes."""

    def __init__(self, bot: Bot, budgets: _Budgets, match_id: str, seat: int) -> None:
        self.bot = bot
        self.budgets = budgets
        self.match_id = match_id
        self.seat = seat
        self.next_id = 0

    def send(self, requests: list[Request], charge: bool) -> list[tuple[dict[str, Any], Reply, str]]:
        """Each request's envelope, the bot's reply and a note; batch transports get them at once.
        With `charge`, the replies' times count in the seat's bank and chain budget (else the
        caller counts the recorded ones)."""
        if self.bot.takes_batches:
            return self._send_batch(requests)
        return [self._send_one(request, charge) for request in requests]

    def _envelope(self, request: Request, timeout_s: float) -> tuple[int, dict[str, Any]]:
        self.next_id += 1
        raw = encode_request(request, self.next_id, self.match_id, self.seat, timeout_s)
        return self.next_id, orjson.loads(raw)

    def _send_one(self, request: Request, charge: bool) -> tuple[dict[str, Any], Reply, str]:
        note = ""
        allowance = self.budgets.allowance(request)
        if allowance <= 0:
            note = "in the match its chain had no time left (TIMEOUT unsent); sent with its own limit"
            allowance = request.timeout_ms
        if not request.await_reply:
            note = "the match did not wait for this answer (it is late by definition): not judged"
            allowance = request.timeout_ms
        request_id, envelope = self._envelope(request, allowance / 1000.0)
        if not self.bot.alive:
            return envelope, Reply(self.seat, Status.CRASHED, None, Reason.PROCESS_EXITED), note
        self.bot.send(request, request_id, allowance / 1000.0)
        reply = self.bot.receive()
        reply.seat = self.seat
        if charge:
            self.budgets.charge(request, reply.time_ms)
        return envelope, reply, note

    def _send_batch(self, requests: list[Request]) -> list[tuple[dict[str, Any], Reply, str]]:
        envelopes = [self._envelope(request, request.timeout_ms / 1000.0)[1] for request in requests]
        self.bot.send_batch(requests)
        replies = self.bot.receive_batch()
        for reply in replies:
            reply.seat = self.seat
        return [(envelope, reply, "") for envelope, reply in zip(envelopes, replies, strict=True)]


def feed_replay(
    replay: Replay,
    bot: Bot,
    *,
    step: int,
    seat: int,
    request: int | None = None,
    history: bool = False,
) -> FeedReport:
    """Feed `seat`'s recorded request(s) of `step` to `bot` (opened and closed here) and judge its
    replies; see the module docstring. Raises FeedError for a bad step, seat or request, or a replay
    that does not re-run identically up to the step."""
    picked = seat_requests(replay, step, seat, request)
    try:
        rerun = ReplayRerun(replay)
    except RerunMismatch as exc:
        raise FeedError(f"the replay does not re-run ({exc.where}: {exc.detail})") from None
    limits: LimitsConfig = rerun.engine.config
    budgets = _Budgets(len(replay.players), limits.overage_bank_ms)
    match_id = replay.match_id or f"{replay.game}-{replay.seed}"
    sender = _Sender(bot, budgets, match_id, seat)
    bot.keep_late_replies(False)  # one seat alone: a late answer is discarded by its request id
    bot.use_config(rerun.engine.config)
    bot.open(match_id, seat)
    try:
        report = _walk(rerun, sender, picked, step, seat, history, bot.name)
    except RerunMismatch as exc:
        raise FeedError(f"the replay does not re-run ({exc.where}: {exc.detail})") from None
    finally:
        log = bot.close()
    report.log = log
    return report


def _walk(
    rerun: ReplayRerun, sender: _Sender, picked: list[int], step: int, seat: int, history: bool, name: str
) -> FeedReport:
    """The start exchange, the earlier steps (sent with `history`) and the fed step."""
    report = FeedReport(rerun.replay.game, step, seat, name, _feed_start(rerun, sender, seat))
    if step == 0:
        report.fed.append(report.start)
        return report
    rerun.apply_start()
    for _ in range(step - 1):
        pending = rerun.next_step()
        if history:
            _send_history(sender, report, [r for r in pending.requests if r.seat == seat])
        for request, reply in zip(pending.requests, pending.replies, strict=True):
            sender.budgets.charge(request, reply.time_ms)  # the match's accounting, as recorded
        rerun.apply_step()
    _feed_step(rerun, sender, picked, history, report)
    return report


def _feed_start(rerun: ReplayRerun, sender: _Sender, seat: int) -> FedRequest:
    """Send the seat's start request and judge the reply on a fresh engine."""
    replay = rerun.replay
    start_requests = rerun.start_requests()
    start_replies = rerun.start_replies()
    for request, reply in zip(start_requests, start_replies, strict=False):
        sender.budgets.charge(request, reply.time_ms)
    index = next(i for i, request in enumerate(start_requests) if request.seat == seat)
    ((envelope, new, note),) = sender.send([start_requests[index]], charge=False)
    start = FedRequest("start", envelope, start_replies[index], _recorded_verdict(replay.start, index), new)
    start.note = note
    start.new_verdict = _judge_start(replay, start_replies, index, new)
    return start


def _send_history(sender: _Sender, report: FeedReport, requests: list[Request]) -> None:
    """Send earlier requests of the seat; their replies are only counted."""
    if not requests:
        return
    answers = sender.send(requests, charge=False)
    report.history += len(answers)
    report.history_not_ok += sum(reply.status is not Status.OK for _e, reply, _n in answers)


def _feed_step(
    rerun: ReplayRerun, sender: _Sender, picked: list[int], history: bool, report: FeedReport
) -> None:
    """Send the step's picked requests and judge the replies: the engine applies the step with them in
    place of the recorded ones (the walk ends here, so the engine itself can take them)."""
    seat = report.seat
    pending = rerun.next_step()
    if history:  # with `request`: the seat's earlier requests of this very step
        _send_history(sender, report, [r for r in pending.requests[: picked[0]] if r.seat == seat])
    for i, (request, reply) in enumerate(zip(pending.requests, pending.replies, strict=True)):
        if i not in picked:  # e.g. the faction's earlier calls of this turn, with `request`
            sender.budgets.charge(request, reply.time_ms)
    answers = sender.send([pending.requests[i] for i in picked], charge=True)
    replies = list(pending.replies)
    for i, (_envelope, reply, _note) in zip(picked, answers, strict=True):
        replies[i] = reply
    verdicts = [verdict_json(v) for v in rerun.engine.apply(replies).verdicts]
    mine = [i for i, r in enumerate(pending.requests) if r.seat == seat]
    for i, (envelope, reply, note) in zip(picked, answers, strict=True):
        label = pending.where + (f" · request {mine.index(i) + 1} of {len(mine)}" if len(mine) > 1 else "")
        fed = FedRequest(label, envelope, pending.replies[i], _recorded_verdict(pending.recorded, i), reply)
        fed.note = note
        if pending.requests[i].await_reply and i < len(verdicts):
            fed.new_verdict = verdicts[i]
        report.fed.append(fed)


def _recorded_verdict(exchange: dict[str, Any] | None, index: int) -> list[Any]:
    verdicts = (exchange or {}).get("verdicts") or []
    return list(verdicts[index]) if index < len(verdicts) else []


def _judge_start(replay: Replay, recorded: list[Reply], index: int, new: Reply) -> list[Any] | None:
    """The verdict a fresh engine gives the new start reply among the recorded others."""
    engine = new_engine_for(replay)
    engine.start_requests()
    replies = list(recorded)
    replies[index] = new
    verdicts = engine.apply_start(replies)
    return verdict_json(verdicts[index]) if index < len(verdicts) else None


# -- the report in words ----------------------------------------------------------------------------


def _pretty(value: Any, full: bool) -> str:
    text = orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY).decode()
    lines = text.splitlines()
    if full or len(lines) <= TRIM_LINES:
        return text
    rest = len(lines) - TRIM_LINES
    return "\n".join([*lines[:TRIM_LINES], f"... {rest} more lines (--full shows all)"])


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line for line in text.splitlines())


def _verdict_text(verdict: list[Any] | None) -> str:
    if verdict is None:
        return "not judged"
    if not verdict:
        return "(none recorded)"
    text = str(verdict[0]) + (f" {verdict[1]}" if len(verdict) > 1 and verdict[1] else "")
    if len(verdict) > 2 and verdict[2]:
        text += f": {verdict[2]}"
    if len(verdict) > 3 and verdict[3]:
        text += f" warnings {orjson.dumps(verdict[3]).decode()}"
    return text


def _reply_lines(title: str, reply: Reply, verdict: list[Any] | None, full: bool) -> list[str]:
    head = f"{title}: {reply.status.value}"
    if reply.reason:
        head += f" {reply.reason}"
    head += f" · {reply.time_ms:.1f} ms"
    lines = [head]
    if reply.warnings:
        lines.append(f"  warnings: {orjson.dumps(reply.warnings).decode()}")
    lines.append("  payload:")
    lines.append(_indent(_pretty(reply.payload, full)))
    lines.append(f"  verdict: {_verdict_text(verdict)}")
    return lines


def _yes_no(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "NO")


def format_fed(fed: FedRequest, bot: str, full: bool) -> list[str]:
    """One fed request: the request, the recorded reply and the new one, and how they compare."""
    lines = [
        f"== {fed.label} ==",
        "request (the envelope a wire bot receives):",
        _indent(_pretty(fed.envelope, full)),
    ]
    lines += _reply_lines("recorded reply", fed.recorded, fed.recorded_verdict, full)
    lines += _reply_lines(f"new reply ({bot})", fed.new, fed.new_verdict, full)
    if fed.note:
        lines.append(f"note: {fed.note}")
    lines.append(f"same reply: {_yes_no(fed.same_payload)} · same verdict: {_yes_no(fed.same_verdict)}")
    return lines


def format_report(report: FeedReport, *, full: bool = False) -> str:
    """The report as `botarena replay --feed` prints it."""
    lines = [f"{report.game} · seat {report.seat} · bot {report.bot} · step {report.step}"]
    if report.step > 0:
        start = report.start
        lines.append(
            f"start exchange: new reply {start.new.status.value}"
            + (f" {start.new.reason}" if start.new.reason else "")
            + f" ({start.new.time_ms:.1f} ms), verdict {_verdict_text(start.new_verdict)}"
            + f"; recorded verdict {_verdict_text(start.recorded_verdict)}"
        )
        if report.history:
            lines.append(
                f"history: sent the seat's {report.history} earlier requests, replies discarded"
                f" ({report.history_not_ok} not OK)"
            )
    for fed in report.fed:
        lines += format_fed(fed, report.bot, full)
    log = report.log.text.rstrip("\n").splitlines()
    if log:
        shown = log[-LOG_TAIL_LINES:]
        lines.append(f"bot log (last {len(shown)} of {len(log)} lines):")
        lines += [f"    {line}" for line in shown]
    else:
        lines.append("bot log: (empty)")
    return "\n".join(lines)
