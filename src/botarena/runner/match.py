"""The one match loop (DESIGN principle 5): the same code for a terminal, a tournament or a server.

It drives an engine through its batches of requests, sends each batch to the bots (all requests of a
batch go out before any reply is read), enforces each request's limit with the bot's overage bank
and the chain budget, records everything in a Replay, and always produces a result: whatever a bot
does becomes a status, never an exception.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from botarena import __version__
from botarena.bots.base import Bot
from botarena.core.config import config_to_dict
from botarena.core.game import Engine, GameInfo, MatchResult
from botarena.core.protocol import Reply, Request, Verdict
from botarena.core.replay import Replay, verdict_json
from botarena.core.rng import check_seed
from botarena.core.status import Reason, Status
from botarena.core.timing import OverageBank

StepObserver = Callable[[int, dict[str, Any], Engine], None]


@dataclass
class MatchRun:
    """A finished match: its result and (unless recording was off) its replay."""

    result: MatchResult
    replay: Replay


class _Exchange:
    """Sends batches of requests to the seats' bots and collects one Reply per request."""

    def __init__(self, bots: Sequence[Bot], overage_bank_ms: int) -> None:
        self.bots = bots
        self.banks = [OverageBank(overage_bank_ms) for _ in bots]
        self.time_used_ms = [0.0 for _ in bots]
        self.chain_spent_ms: dict[Any, float] = {}
        self.next_id = 0

    def _allowance_ms(self, request: Request) -> float:
        allowance = self.banks[request.seat].allowance_ms(request.timeout_ms)
        if request.chain is not None and request.chain_budget_ms > 0:
            left = request.chain_budget_ms - self.chain_spent_ms.get(request.chain, 0.0)
            allowance = min(allowance, left)
        return allowance

    def run(self, requests: list[Request]) -> list[Reply]:
        bots = self.bots
        sent: list[bool] = []
        for request in requests:
            bot = bots[request.seat]
            allowance = self._allowance_ms(request)
            if not bot.alive or allowance <= 0:
                sent.append(False)
                continue
            self.next_id += 1
            bot.send(request, self.next_id, allowance / 1000.0)
            sent.append(True)
        replies: list[Reply] = []
        for request, was_sent in zip(requests, sent, strict=True):
            seat = request.seat
            if was_sent:
                reply = bots[seat].receive()
                reply.seat = seat
            elif not bots[seat].alive:
                reply = Reply(seat, Status.CRASHED, None, Reason.PROCESS_EXITED)  # GD-26 and kin
            else:
                reply = Reply(seat, Status.TIMEOUT, None, Reason.DEADLINE)  # chain budget spent
            self.banks[seat].charge(request.timeout_ms, reply.time_ms)
            self.time_used_ms[seat] += reply.time_ms
            if request.chain is not None:
                self.chain_spent_ms[request.chain] = self.chain_spent_ms.get(request.chain, 0.0) + reply.time_ms
            replies.append(reply)
        return replies


def _count(statuses: list[dict[str, int]], verdicts: list[Verdict]) -> None:
    for verdict in verdicts:
        tally = statuses[verdict.seat]
        key = verdict.status.value
        tally[key] = tally.get(key, 0) + 1


def run_match(
    game: GameInfo,
    bots: Sequence[Bot],
    *,
    config: Any = None,
    seed: int = 0,
    preset: str = "default",
    match_id: str | None = None,
    on_step: StepObserver | None = None,
) -> MatchRun:
    """Play one match of `game` between `bots` (seat i is bots[i]) and return its result and replay.

    `config` defaults to the game's `preset`. Bots are opened here and always closed, whatever happens.
    """
    game.check_players(len(bots))
    check_seed(seed)
    if config is None:
        config = game.config(preset)
    match_id = match_id or f"{game.id}-{seed}-{uuid.uuid4().hex[:8]}"
    engine = game.new_engine(config, seed, len(bots))
    exchange = _Exchange(bots, int(getattr(config, "overage_bank_ms", 0)))
    statuses: list[dict[str, int]] = [{} for _ in bots]
    replay = Replay(
        game=game.id,
        rules=game.rules_version,
        preset=preset,
        config=config_to_dict(config),
        seed=seed,
        players=[{"seat": seat, **bot.describe()} for seat, bot in enumerate(bots)],
        match_id=match_id,
        created_by=f"botarena {__version__}",
    )
    try:
        for seat, bot in enumerate(bots):
            bot.open(match_id, seat)
        replies = exchange.run(engine.start_requests())
        verdicts = engine.apply_start(replies)
        replay.start = {"replies": [r.to_json() for r in replies], "verdicts": [verdict_json(v) for v in verdicts]}
        _count(statuses, verdicts)
        _play(engine, exchange, replay, statuses, game.keyframe_every, on_step)
        replies = exchange.run(engine.end_requests())
        verdicts = engine.apply_end(replies)
        replay.end = {"replies": [r.to_json() for r in replies], "verdicts": [verdict_json(v) for v in verdicts]}
    finally:
        replay.logs = []
        for seat, bot in enumerate(bots):
            log = bot.close()
            replay.logs.append({"seat": seat, "text": log.text, "dropped_bytes": log.dropped_bytes})
    result = engine.result()
    replay.result = result.to_json()
    replay.time_used_ms = [round(t, 3) for t in exchange.time_used_ms]
    replay.statuses = statuses
    return MatchRun(result, replay)


def _play(
    engine: Engine,
    exchange: _Exchange,
    replay: Replay,
    statuses: list[dict[str, int]],
    keyframe_every: int,
    on_step: StepObserver | None,
) -> None:
    steps = replay.steps
    keyframes = replay.keyframes
    keyframes.append({"step": 0, "state": engine.keyframe()})
    while True:
        requests = engine.next_requests()
        if not requests:
            break
        replies = exchange.run(requests)
        step = engine.apply(replies)
        verdicts = step.verdicts
        _count(statuses, verdicts)
        steps.append(
            {
                "replies": [r.to_json() for r in replies],
                "verdicts": [verdict_json(v) for v in verdicts],
                "record": step.record,
            }
        )
        index = len(steps)
        if index % keyframe_every == 0:
            keyframes.append({"step": index, "state": engine.keyframe()})
        if on_step is not None:
            on_step(index, step.record, engine)
    if keyframes[-1]["step"] != len(steps):
        keyframes.append({"step": len(steps), "state": engine.keyframe()})
