"""The rules of rock-paper-scissors, as phase functions over `RpsState` in spec order."""

from __future__ import annotations

from botarena.games.rps.config import RpsConfig
from botarena.games.rps.state import Move, RpsState

BEATS: dict[Move, Move] = {"rock": "scissors", "scissors": "paper", "paper": "rock"}
"""RPS-5: what each move beats."""


def setup(config: RpsConfig) -> RpsState:
    """RPS-1: no round played, both scores 0."""
    return RpsState(rounds=config.rounds)


def round_winner(moves: list[Move | None]) -> int | None:
    """RPS-5: the seat that wins a round, or None for a draw. A forfeit (None) loses to any move
    (RPS-4); two forfeits, or two equal moves, draw."""
    first, second = moves
    if first == second:
        return None
    if first is None or second is None:
        return 0 if second is None else 1
    return 0 if BEATS[first] == second else 1


def play_round(state: RpsState, moves: list[Move | None]) -> int | None:
    """RPS-5, RPS-6: score the round's winner a point and remember the moves; returns the winner."""
    winner = round_winner(moves)
    if winner is not None:
        state.scores[winner] += 1
    state.played += 1
    state.last_moves = list(moves)
    return winner


def is_over(state: RpsState) -> bool:
    """RPS-1: the match ends after `rounds` rounds."""
    return state.played >= state.rounds


def ranks(scores: list[int]) -> list[int]:
    """RPS-6: more points rank first; equal points share the rank."""
    return [1 + sum(other > own for other in scores) for own in scores]
