"""One match driven step by step for learners: the RL envs' engine loop.

The runner (`runner.match.run_match`) plays a whole match between bots. A learning algorithm instead
holds the loop: it is given observations and hands back actions. `MatchSession` is that inverted
loop over the same engine. Learner seats answer through the game's `Encoding`; opponent seats are
real botarena bots (in-process, subprocess, HTTP) asked through the runner's own exchange, so their
time limits and verdicts are exactly those of a real match. Batches that ask no learner seat (the
opponent's turn in an alternating game) are played through at once.

The session records the match as a `Replay` (the viewer renders it; `verify_replay` re-runs it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from botarena import __version__
from botarena.bots import preempt
from botarena.bots.base import Bot
from botarena.bots.inprocess import PythonBot
from botarena.core.game import Engine, GameInfo, MatchResult
from botarena.core.protocol import NOT_AWAITED, MessageType, Reply, Request
from botarena.core.replay import Replay, exchange_entry
from botarena.core.status import Status
from botarena.rl.encoding import Action, Encoding
from botarena.runner.match import config_json, new_exchange


class _NeverAsked:
    """Stands in a learner's seat of the opponents' exchange, which only ever asks opponent seats."""

    def setup(self, payload: Any) -> Any:
        raise RuntimeError("a learner seat is answered by the learner, not by a bot")

    act = end = setup


@dataclass
class StepOutcome:
    """What one `MatchSession.step` did: every seat's reward, and whether the match is over."""

    rewards: list[float]
    done: bool
    steps: int = 0
    """Engine steps (batches) played, opponents-only batches included."""


@dataclass
class MatchSession:
    """A match of `game` where `learners` are answered by the caller and `opponents` by bots.

    Call `start()`, then `step(actions)` while not `done`, then `close()` (also on abandon).
    """

    game: GameInfo[Any]
    engine: Engine[Any]
    encoding: Encoding
    seed: int
    opponents: Mapping[int, Bot] = field(default_factory=dict)
    preset: str = "default"
    record: bool = True
    learners: list[int] = field(init=False)
    pending: dict[int, list[Request]] = field(init=False, default_factory=dict)
    """Every learner seat's requests of the current batch (a learner that waits has [])."""
    done: bool = field(init=False, default=False)
    result: MatchResult | None = field(init=False, default=None)
    replay: Replay = field(init=False)
    _batch: list[Request] = field(init=False, default_factory=list)
    _late: list[Reply] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        seats = self.encoding.seats
        self.learners = [seat for seat in range(seats) if seat not in self.opponents]
        bots: list[Bot] = [
            self.opponents[seat] if seat in self.opponents else PythonBot(_NeverAsked, name="learner")
            for seat in range(seats)
        ]
        self._bots = bots
        self._exchange = new_exchange(self.engine, bots, self.engine.config)
        self.replay = Replay(
            game=self.game.id,
            rules=self.game.rules_version,
            preset=self.preset,
            config=config_json(self.engine.config),  # cached per config: a reset costs nothing
            seed=self.seed,
            players=[
                {"seat": seat, **bots[seat].describe()}
                if seat in self.opponents
                else {"seat": seat, "name": f"learner {seat}", "kind": "learner"}
                for seat in range(seats)
            ],
            match_id=f"{self.game.id}-rl-{self.seed}",
            created_by=f"botarena {__version__}",
        )

    def start(self) -> None:
        """Open the opponents, play the start exchange and stop at the first batch for a learner."""
        for seat, bot in self.opponents.items():
            bot.open(self.replay.match_id, seat)
        requests = self.engine.start_requests()
        replies = self._answer(requests, {})
        verdicts = self.engine.apply_start(replies)
        self.replay.start = exchange_entry(replies, verdicts)
        self._keyframe()
        rewards = [0.0] * self.encoding.seats
        self._advance(rewards)
        preempt.disarm()

    def step(self, actions: Mapping[int, Action]) -> StepOutcome:
        """Answer the current batch: each learner seat that has requests takes its action from
        `actions` (others are ignored); then play on to the next batch that asks a learner."""
        if self.done:
            raise RuntimeError("the match is over: reset the env")
        payloads = {
            seat: self.encoding.act(seat, requests, actions[seat])
            for seat, requests in self.pending.items()
            if requests
        }
        rewards = [0.0] * self.encoding.seats
        steps = self._apply(self._batch, payloads, rewards) + self._advance(rewards)
        # In-process opponents leave their SIGALRM timer running between calls (bots/preempt.py);
        # the learner's own time until its next step is not theirs: an alarm there, or at the
        # interpreter's exit after a library reset the handler, would only disturb the learner.
        preempt.disarm()
        return StepOutcome(rewards, self.done, steps)

    def requests_of(self, seat: int) -> list[Request]:
        """`seat`'s awaited requests of the current batch, learner or opponent ([] once it is over)."""
        return [request for request in self._batch if request.seat == seat and request.await_reply]

    def close(self) -> None:
        """Close every opponent (kills its process); the session cannot be used afterwards."""
        for seat, bot in self.opponents.items():
            log = bot.close()
            self.replay.logs.append({"seat": seat, "text": log.text, "dropped_bytes": log.dropped_bytes})
        self.opponents = {}

    def _advance(self, rewards: list[float]) -> int:
        """Play opponents-only batches until one asks a learner or the match ends."""
        steps = 0
        while True:
            self._deliver_late()
            batch = self.engine.next_requests()
            if not batch:
                self._finish(rewards)
                return steps
            if any(request.seat not in self.opponents for request in batch):
                self._batch = batch
                self.pending = {seat: [] for seat in self.learners}
                for request in batch:
                    if request.seat not in self.opponents and request.await_reply:
                        self.pending[request.seat].append(request)
                if any(self.pending.values()):
                    return steps
                steps += self._apply(batch, {}, rewards)  # only unawaited learner requests
                continue
            steps += self._apply(batch, {}, rewards)

    def _apply(self, batch: list[Request], payloads: dict[int, list[Any]], rewards: list[float]) -> int:
        replies = self._answer(batch, payloads)
        step = self.engine.apply(replies)
        for seat, reward in enumerate(self.encoding.step_rewards(step)):
            rewards[seat] += reward
        if self.record:
            self.replay.steps.append(exchange_entry(replies, step.verdicts, step.record))
            if len(self.replay.steps) % self.game.keyframe_every == 0:
                self._keyframe()
        return 1

    def _keyframe(self) -> None:
        """A keyframe after the steps recorded so far, as the runner takes them."""
        self.replay.keyframes.append({"step": len(self.replay.steps), "state": self.engine.keyframe()})

    def _answer(self, batch: Sequence[Request], payloads: Mapping[int, list[Any]]) -> list[Reply]:
        """Replies in batch order: the learners' from `payloads` (or their encoding's start/end
        reply), the opponents' from their bots within the match's limits."""
        asked = [request for request in batch if request.seat in self.opponents]
        from_bots = iter(self._exchange.run(asked) if asked else [])
        taken = {seat: iter(items) for seat, items in payloads.items()}
        replies = []
        for request in batch:
            if request.seat in self.opponents:
                replies.append(next(from_bots))
            elif not request.await_reply:
                replies.append(Reply(request.seat, Status.TIMEOUT, None, NOT_AWAITED))
                answer = self.encoding.late_answer(request)
                self._late.append(Reply(request.seat, Status.OK, answer))
            else:
                replies.append(Reply(request.seat, Status.OK, self._learner_payload(request, taken)))
        return replies

    def _learner_payload(self, request: Request, taken: Mapping[int, Any]) -> Any:
        if request.type is MessageType.START:
            return self.encoding.start_reply(request)
        if request.type is MessageType.END:
            return self.encoding.end_reply(request)
        return next(taken[request.seat])

    def _deliver_late(self) -> None:
        """Owed answers, learners' and opponents', handed over between batches as the runner does."""
        arrived = [*self._late, *self._exchange.collect_late()]
        self._late = []
        for reply in arrived:
            self.engine.late_reply(reply)
            if self.record:
                self.replay.late.append({"after_step": len(self.replay.steps), "reply": reply.to_json()})

    def _finish(self, rewards: list[float]) -> None:
        replies = self._answer(self.engine.end_requests(), {})
        verdicts = self.engine.apply_end(replies)
        self.replay.end = exchange_entry(replies, verdicts)
        if self.replay.keyframes[-1]["step"] != len(self.replay.steps):
            self._keyframe()
        result = self.engine.result()
        self.result = result
        self.replay.result = result.to_json()
        for seat, reward in enumerate(self.encoding.terminal_rewards(result)):
            rewards[seat] += reward
        self.pending = {seat: [] for seat in self.learners}
        self._batch = []
        self.done = True
