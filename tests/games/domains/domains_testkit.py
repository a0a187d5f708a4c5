"""Helpers for Domains rule tests: bare boards (spec section 9's setting), scripted draws, orders."""

from __future__ import annotations

from typing import Any

from botarena.core.config import build_config
from botarena.games.domains.config import PRESETS, DomainsConfig
from botarena.games.domains.rng import ScriptedRandom
from botarena.games.domains.rules import DomainsGame
from botarena.games.domains.state import NONE, Order, OrderKind, State

NEVER = -1_000_000  # a counter that never reaches its period within a test


def make_config(**overrides: Any) -> DomainsConfig:
    return build_config(DomainsConfig, PRESETS, "default", overrides)


def bare_game(rows: int = 8, cols: int = 8, players: int = 2, **overrides: Any) -> DomainsGame:
    """Section 9's setting: nothing on the board, a scripted source, and no spawns of any kind."""
    config = make_config(board_height=rows, board_width=cols, num_players=players, **overrides)
    source = ScriptedRandom([0] * config.bonus_table_size)
    game = DomainsGame(config, 0, source)
    game.state = State.empty(config)
    state = game.state
    state.respawn_counter = [NEVER] * players
    state.bubble_counter = [NEVER] * players
    state.bonus_counter = [NEVER] * config.bonus_table_size
    game.frames = []
    return game


def script(game: DomainsGame, *draws: int) -> ScriptedRandom:
    source = game.source
    assert isinstance(source, ScriptedRandom)
    source.values = list(draws)
    source.calls = []
    return source


def paint(game: DomainsGame, player: int, cells: list[tuple[int, int]]) -> None:
    for x, y in cells:
        game.state.painter[game.state.index(x, y)] = player


def rect(x0: int, x1: int, y0: int, y1: int) -> list[tuple[int, int]]:
    """Rows x0..x1 by columns y0..y1, inclusive."""
    return [(x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)]


def unit(
    game: DomainsGame, uid: int, player: int, x: int, y: int, energy: int = 5, upgraded: bool = False
) -> None:
    state = game.state
    q = state.index(x, y)
    state.unit_owner[uid] = player
    state.unit_pos[uid] = q
    state.unit_energy[uid] = energy
    state.unit_upgraded[uid] = upgraded
    state.unit_at[q] = uid


def bubble(game: DomainsGame, bid: int, colour: int, x: int, y: int, rtp: int = 0) -> None:
    state = game.state
    q = state.index(x, y)
    state.bubble_colour[bid] = colour
    state.bubble_pos[bid] = q
    state.bubble_rtp[bid] = rtp
    state.bubble_at[q] = bid


def bonus(game: DomainsGame, k: int, x: int, y: int) -> None:
    state = game.state
    q = state.index(x, y)
    state.bonus_pos[k] = q
    state.bonus_at[q] = k


def trail(game: DomainsGame, uid: int, player: int, cells: list[tuple[int, int]]) -> None:
    for x, y in cells:
        q = game.state.index(x, y)
        game.state.drawer[q] = player
        game.state.drawer_unit[q] = uid


def mv(uid: int, direction: int) -> Order:
    return Order(uid, OrderKind.move, int(direction))


def at(uid: int, direction: int) -> Order:
    return Order(uid, OrderKind.attack, int(direction))


def ab(uid: int) -> Order:
    return Order(uid, OrderKind.ability, 0)


def play(game: DomainsGame, *lists: list[Order]) -> None:
    """One round with the given per-player order lists (missing players give none)."""
    orders = list(lists) + [[] for _ in range(game.state.n - len(lists))]
    game.play_round(orders)


def pos(game: DomainsGame, uid: int) -> tuple[int, int] | None:
    q = game.state.unit_pos[uid]
    return None if q == NONE else game.state.xy(q)


def painted(game: DomainsGame, player: int) -> set[tuple[int, int]]:
    state = game.state
    return {state.xy(int(q)) for q in (state.painter == player).nonzero()[0]}


def trail_cells(game: DomainsGame, uid: int) -> set[tuple[int, int]]:
    state = game.state
    return {state.xy(int(q)) for q in (state.drawer_unit == uid).nonzero()[0]}


def flags(game: DomainsGame) -> dict[tuple[int, int], int]:
    state = game.state
    return {state.xy(int(q)): int(state.ability[q]) for q in (state.ability > 0).nonzero()[0]}
