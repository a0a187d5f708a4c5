"""The rules of Nim, as functions over `NimState` in spec order."""

from __future__ import annotations

from botarena.core.rng import stream
from botarena_nim.actions import Take
from botarena_nim.config import GAME_ID, NimConfig
from botarena_nim.state import NimState


def setup(config: NimConfig, seed: int) -> NimState:
    """NIM-1: the heaps, drawn from the match's `nim.heaps` stream; seat 0 moves first (NIM-3)."""
    rng = stream(seed, f"{GAME_ID}.heaps")
    return NimState(heaps=[int(size) for size in rng.integers(1, config.heap_max + 1, config.heap_count)])


def forfeit_take(heaps: list[int]) -> Take:
    """NIM-4: the move made for a seat whose reply is no legal move: one from the first non-empty heap."""
    return Take(next(index for index, size in enumerate(heaps) if size > 0), 1)


def play(state: NimState, take: Take) -> None:
    """NIM-3, NIM-5: the seat to move takes; who empties the last heap wins; the other seat moves next."""
    state.heaps[take.heap] -= take.count
    state.moves += 1
    if is_over(state):
        state.winner = state.to_move
    state.to_move = 1 - state.to_move


def is_over(state: NimState) -> bool:
    """NIM-5: the match ends when every heap is empty."""
    return not any(state.heaps)


def ranks(state: NimState) -> list[int]:
    """NIM-5: the winner ranks 1, the other 2."""
    return [1 if seat == state.winner else 2 for seat in (0, 1)]
