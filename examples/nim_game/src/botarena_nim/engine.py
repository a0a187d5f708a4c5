"""The Nim engine: the seats asked one at a time, in turn (NIM-3)."""

from __future__ import annotations

from typing import Any

from botarena.core.game import Engine, MatchResult, Step
from botarena.core.protocol import MessageType, Reply, Request, Verdict
from botarena.core.rng import bot_seed
from botarena_nim import rules
from botarena_nim.actions import parse_take
from botarena_nim.config import GAME_ID, NimConfig
from botarena_nim.observe import end_payload, start_payload, turn_payload

SEATS = (0, 1)


class NimEngine(Engine):
    """One match: a start exchange, one request per move until the heaps are empty, an end exchange."""

    def __init__(self, config: NimConfig, seed: int, num_players: int = 2) -> None:
        self.config = config
        self.seed = seed
        self.state = rules.setup(config, seed)

    def start_requests(self) -> list[Request]:
        timeout, max_take = self.config.setup_timeout_ms, self.config.max_take
        return [
            Request(
                seat,
                start_payload(self.state, seat, bot_seed(self.seed, GAME_ID, seat), max_take),
                timeout,
                MessageType.START,
            )
            for seat in SEATS
        ]

    def apply_start(self, replies: list[Reply]) -> list[Verdict]:
        """NIM-2: the start reply is not read; its verdict is the transport's."""
        return [Verdict(r.seat, r.status, r.reason, list(r.warnings)) for r in replies]

    def next_requests(self) -> list[Request]:
        """The seat to move (a query: it changes nothing)."""
        if rules.is_over(self.state):
            return []
        seat = self.state.to_move
        payload = turn_payload(self.state, seat, self.config.max_take)
        return [Request(seat, payload, self.config.turn_timeout_ms, turn=self.state.moves + 1)]

    def apply(self, replies: list[Reply]) -> Step:
        (reply,) = replies
        take, verdict = parse_take(reply, self.state.heaps, self.config.max_take)
        forfeited = take is None
        if take is None:
            take = rules.forfeit_take(self.state.heaps)
        seat = self.state.to_move
        rules.play(self.state, take)
        record: dict[str, Any] = {
            "move": self.state.moves,
            "seat": seat,
            "heap": take.heap,
            "take": take.count,
            "forfeited": forfeited,
            "heaps": list(self.state.heaps),
        }
        return Step(record, [verdict])

    def end_requests(self) -> list[Request]:
        ranks = rules.ranks(self.state)
        timeout = self.config.turn_timeout_ms
        return [
            Request(seat, end_payload(self.state, seat, ranks), timeout, MessageType.END) for seat in SEATS
        ]

    def result(self) -> MatchResult:
        ranks = rules.ranks(self.state)
        return MatchResult(ranks, [1.0 if rank == 1 else 0.0 for rank in ranks], {"moves": self.state.moves})

    def keyframe(self) -> dict[str, Any]:
        state = self.state
        return {
            "heaps": list(state.heaps),
            "moves": state.moves,
            "to_move": state.to_move,
            "winner": state.winner,
        }
