"""DR-19 (the enclosure) against a literal model: the engine's bitboard `paint` stops the box search
as soon as the outcome is decided; the model below computes the whole box and labels the regions
exactly as the rule's text says. Random walkers that keep leaving and re-entering their paint (many
units, 2-4 players, small boards, abilities, bubbles and fights) must leave identical games."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scipy import ndimage  # type: ignore[import-untyped]

from botarena.core.config import build_config
from botarena.games.domains.config import PRESETS, DomainsConfig
from botarena.games.domains.rules import DomainsGame
from botarena.games.domains.state import NONE, Order, OrderKind

CROSS = ndimage.generate_binary_structure(2, 1)


class ModelGame(DomainsGame):
    """The engine with DR-19 computed the plain way: the full border search, then labelled regions."""

    def model_box(self, p: int, s: int) -> tuple[int, int, int, int]:
        state = self.state
        H, W = state.H, state.W
        painter = state.painter.reshape(H, W)
        owned = (painter == p) | (state.drawer.reshape(H, W) == p)

        def border(x: int, y: int) -> bool:
            if not (0 <= x < H and 0 <= y < W) or not owned[x, y]:
                return False
            return any(
                0 <= x + dx < H and 0 <= y + dy < W and painter[x + dx, y + dy] != p
                for dx, dy in ((-1, 0), (1, 0), (0, -1), (0, 1))
            )

        start = divmod(s, W)
        seen = {start}
        todo = [start]
        while todo:
            x, y = todo.pop()
            for dx, dy in ((-1, -1), (-1, 1), (1, -1), (1, 1)):
                nx, ny = x + dx, y + dy
                if (nx, ny) in seen or not border(nx, ny):
                    continue
                if owned[x + dx, y] != owned[x, y + dy]:
                    seen.add((nx, ny))
                    todo.append((nx, ny))
            for dx, dy in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                nx, ny = x + dx, y + dy
                if (nx, ny) not in seen and border(nx, ny):
                    seen.add((nx, ny))
                    todo.append((nx, ny))
        xs = [x for x, _ in seen]
        ys = [y for _, y in seen]
        return min(xs), max(xs), min(ys), max(ys)

    def paint(self, p: int, u: int, s: int) -> None:
        state = self.state
        H, W = state.H, state.W
        x0, x1, y0, y1 = self.model_box(p, s)
        state.unit_record[u] = None
        painter2 = state.painter.reshape(H, W)
        box_trail = state.drawer_unit.reshape(H, W)[x0 : x1 + 1, y0 : y1 + 1] == u
        open_ = ~((painter2[x0 : x1 + 1, y0 : y1 + 1] == p) | box_trail)
        trail_labels, _ = ndimage.label(box_trail, structure=CROSS)
        sx, sy = divmod(s, W)
        t_label = trail_labels[sx - x0, sy - y0]
        if t_label == 0:
            return
        t_mask = trail_labels == t_label
        regions, count = ndimage.label(open_, structure=CROSS)
        if count:
            near_t = ndimage.binary_dilation(t_mask, structure=CROSS)
            good = np.zeros(count + 1, dtype=bool)
            good[regions[near_t & open_]] = True
            for edge in (regions[0, :], regions[-1, :], regions[:, 0], regions[:, -1]):
                good[edge] = False
            good[0] = False
            bx, by = np.nonzero(good[regions])
            fill = ((bx + x0) * W + (by + y0)).astype(np.intp)
            if fill.size:
                drawer_unit = state.drawer_unit
                records = state.unit_record
                origins = {rec[0] for rec in records if rec is not None}
                candidates = sorted(
                    set(fill[drawer_unit[fill] >= 0].tolist()) | (origins & set(fill.tolist()))
                )
                for q in candidates:
                    if q in origins:
                        for i, rec in enumerate(records):
                            if rec is not None and rec[0] == q:
                                self.erase(i, rec[1])
                    w = int(drawer_unit[q])
                    if w >= 0:
                        self.erase(w, q)
                state.painter[fill] = p
        bx, by = np.nonzero(state.drawer_unit.reshape(H, W)[x0 : x1 + 1, y0 : y1 + 1] == u)
        own = (bx + x0) * W + (by + y0)
        state.painter[own] = p
        state.drawer[own] = NONE
        state.drawer_unit[own] = NONE


def walker_orders(game: DomainsGame, rng: np.random.Generator, heading: dict[int, int]) -> list[list[Order]]:
    """Each unit mostly keeps a heading and turns now and then, so trails leave, bend and come back."""
    state = game.state
    orders: list[list[Order]] = [[] for _ in range(state.n)]
    for u, owner in enumerate(state.unit_owner):
        if owner < 0:
            continue
        roll = float(rng.random())
        if state.unit_upgraded[u] and roll < 0.15:
            orders[owner].append(Order(u, OrderKind.ability))
            continue
        if roll < 0.05:
            orders[owner].append(Order(u, OrderKind.attack, int(rng.integers(0, 9))))
            continue
        if u not in heading or roll < 0.35:
            heading[u] = int(rng.integers(1, 5)) if roll > 0.1 else int(rng.integers(1, 9))
        orders[owner].append(Order(u, OrderKind.move, heading[u]))
    for listed in orders:
        rng.shuffle(listed)  # type: ignore[arg-type]
    return orders


def snapshot(game: DomainsGame) -> tuple[Any, ...]:
    state = game.state
    return (
        state.painter.tobytes(),
        state.drawer.tobytes(),
        state.drawer_unit.tobytes(),
        state.ability.tobytes(),
        state.unit_at.tobytes(),
        list(state.unit_record),
        list(state.points),
        game.frames[-1],
    )


@pytest.mark.parametrize("seed", range(12))
def test_dr19_bitboard_enclosure_matches_the_model(seed: int) -> None:
    rng = np.random.default_rng(seed)
    players = 2 + seed % 3
    size = (8, 10, 13, 16)[seed % 4]
    overrides = {
        "num_players": players,
        "board_height": size,
        "board_width": size + seed % 3,
        "max_number_of_units": 6,
        "rounds_per_respawn": 2,
        "rounds_per_bubble": 7,
        "max_bonuses_per_player": 2,
        "ability_size": (3, 5)[seed % 2],
        "number_of_rounds": 400,
    }
    config = build_config(DomainsConfig, PRESETS, "default", overrides)
    game = DomainsGame(config, seed)
    model = ModelGame(config, seed)
    heading: dict[int, int] = {}
    paints = 0
    original = game.paint

    def counted(p: int, u: int, s: int) -> None:
        nonlocal paints
        paints += 1
        original(p, u, s)

    game.paint = counted  # type: ignore[method-assign]
    while not game.finished:
        orders = walker_orders(game, rng, heading)
        game.play_round(orders)
        model.play_round(orders)
        assert snapshot(game) == snapshot(model), f"round {game.state.round - 1}"
    assert paints > 50
