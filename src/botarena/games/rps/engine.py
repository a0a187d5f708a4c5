"""The rock-paper-scissors engine: both seats asked together each round (RPS-3)."""

from __future__ import annotations

from typing import Any

from botarena.core.game import Engine, MatchResult, Step
from botarena.core.protocol import MessageType, Reply, Request, Verdict
from botarena.core.rng import bot_seed
from botarena.games.rps import rules
from botarena.games.rps.actions import parse_move
from botarena.games.rps.config import GAME_ID, RpsConfig
from botarena.games.rps.observe import end_payload, start_payload, turn_payload

SEATS = (0, 1)


class RpsEngine(Engine[RpsConfig]):
    """One match: a start exchange, `rounds` simultaneous rounds, an end exchange."""

    def __init__(self, config: RpsConfig, seed: int, num_players: int = 2) -> None:
        self.config = config
        self.seed = seed
        self.state = rules.setup(config)

    def start_requests(self) -> list[Request]:
        timeout = self.config.setup_timeout_ms
        return [
            Request(
                seat,
                start_payload(self.state, seat, bot_seed(self.seed, GAME_ID, seat)),
                timeout,
                MessageType.START,
            )
            for seat in SEATS
        ]

    def apply_start(self, replies: list[Reply]) -> list[Verdict]:
        """RPS-2: the start reply is not read; its verdict is the transport's."""
        return [Verdict(r.seat, r.status, r.reason, list(r.warnings)) for r in replies]

    def next_requests(self) -> list[Request]:
        if rules.is_over(self.state):
            return []
        turn = self.state.played + 1
        timeout = self.config.turn_timeout_ms
        return [Request(seat, turn_payload(self.state, seat), timeout, turn=turn) for seat in SEATS]

    def apply(self, replies: list[Reply]) -> Step:
        parsed = [parse_move(reply) for reply in replies]
        moves = [move for move, _ in parsed]
        winner = rules.play_round(self.state, moves)
        record: dict[str, Any] = {
            "round": self.state.played,
            "moves": list(moves),
            "winner": winner,
            "scores": list(self.state.scores),
        }
        return Step(record, [verdict for _, verdict in parsed])

    def end_requests(self) -> list[Request]:
        ranks = rules.ranks(self.state.scores)
        timeout = self.config.turn_timeout_ms
        return [
            Request(seat, end_payload(self.state, seat, ranks), timeout, MessageType.END) for seat in SEATS
        ]

    def result(self) -> MatchResult:
        scores = self.state.scores
        return MatchResult(rules.ranks(scores), [float(s) for s in scores], {"points": list(scores)})

    def keyframe(self) -> dict[str, Any]:
        state = self.state
        last = None if state.last_moves is None else list(state.last_moves)
        return {
            "played": state.played,
            "rounds": state.rounds,
            "scores": list(state.scores),
            "last_moves": last,
        }
