"""`dummy` (spec section 10): targets within 20 steps, otherwise one-square trails home.

Written from the spec's description only. Its searches are breadth-first searches in a fixed
direction order; they run on bitboards (`botarena.games.domains.bitboard`), where a whole layer of
a search is a handful of integer shifts instead of a Python loop over squares.

Why the result is the square-by-square search's: a breadth-first search that expands squares in
first-in, first-out order, and each square's steps in a fixed order, visits the squares of a layer
in the lexicographic order of their smallest step sequences. So the first goal it visits is the
end of the lexicographically smallest shortest path to a goal. `first_step` finds that path
directly: layers forwards until one holds a goal; backwards, the squares of each layer that lead to
a goal; forwards again, taking at each square the first step in direction order that stays on them.
"""

from __future__ import annotations

from typing import Any

from botarena.games.domains.api import Direction, Player
from botarena.games.domains.bitboard import Geometry, iter_indices
from botarena.games.domains.state import DELTAS

TARGET_DEPTH = 20
DIAGONALS = (int(Direction.UL), int(Direction.UR), int(Direction.DL), int(Direction.DR))


def first_step(
    geo: Geometry,
    start: int,
    order: tuple[int, ...],
    open_: int,
    expand: int,
    diagonal_from: int,
    goal: int,
    max_depth: int,
) -> tuple[int, int] | None:
    """The search of spec section 10 from square `start`, with steps in `order` (diagonal ones only
    from squares of `diagonal_from`): a square is visited if it is open and not yet visited; squares
    other than the start are expanded only if in `expand`; the first visited square of `goal` within
    `max_depth` moves ends it. Returns (the path's first direction, the goal square), or None."""
    W, nl, nr = geo.W, geo.not_left, geo.not_right
    up_left, up_right = W + 1, W - 1
    diagonal = len(order) > 4
    corners = diagonal_from if diagonal else 0
    frontier = 1 << start  # the squares expanded into the next layer
    free = open_ & ~frontier  # open and not yet visited
    layers: list[int] = []
    hit = 0
    # Shifts may carry squares past the last row; `free` (within the board) drops them.
    while len(layers) < max_depth:
        left, right = frontier & nl, frontier & nr
        layer = (frontier >> W) | (frontier << W) | (left >> 1) | (right << 1)
        if corners & frontier:
            left &= corners
            right &= corners
            layer |= (left >> up_left) | (right >> up_right) | (left << up_right) | (right << up_left)
        layer &= free
        if not layer:
            return None
        layers.append(layer)
        hit = layer & goal
        if hit:
            break
        free ^= layer
        frontier = layer & expand
    if not hit:
        return None
    # backwards: the squares of each layer with a step into the next layer's useful squares
    useful = hit
    path_sets = [hit]
    for j in range(len(layers) - 2, -1, -1):
        left, right = useful & nl, useful & nr
        back = (useful >> W) | (useful << W) | (left >> 1) | (right << 1)
        if corners:
            back |= (
                (left >> up_left) | (right >> up_right) | (left << up_right) | (right << up_left)
            ) & corners
        useful = layers[j] & expand & back
        path_sets.append(useful)
    path_sets.reverse()
    # forwards: at each square, the first step in direction order that stays on useful squares
    here, first = start, -1
    for allowed in path_sets:
        y = here % W
        corner = corners >> here & 1
        for d in order:
            if d > 4 and not corner:
                continue
            dy = DELTAS[d][1]
            if (dy < 0 and y == 0) or (dy > 0 and y == W - 1):
                continue
            square = here + DELTAS[d][0] * W + dy
            if square >= 0 and allowed >> square & 1:
                if first < 0:
                    first = d
                here = square
                break
    return first, here


class Boards:
    """Turns the observation's grids into bitboards, redoing only the rows that changed since the
    last round (most rows of a 50x50 board do not change from one round to the next)."""

    def __init__(self) -> None:
        self.geo: Geometry | None = None
        self.painter: list[Any] = []
        self.drawer: list[Any] = []
        self.ability: list[Any] = []
        self.own: list[int] = []
        self.trail: list[int] = []
        self.zone: list[int] = []

    def read(self, me: int, H: int, W: int, painter: Any, drawer: Any, ability: Any) -> tuple[int, int, int]:
        """(own squares, own trail squares, enemy zone squares)."""
        if self.geo is None or self.geo.H != H or self.geo.W != W:
            self.geo = Geometry(H, W)
            self.painter, self.drawer, self.ability = [None] * H, [None] * H, [None] * H
            self.own, self.trail, self.zone = [0] * H, [0] * H, [0] * H
        own = trail = zone = 0
        for x in range(H):
            shift = x * W
            p = painter[x]
            new_paint = p != self.painter[x]
            if new_paint:
                self.painter[x] = p[:]
                self.own[x] = sum([1 << y for y, v in enumerate(p) if v == me])
            d = drawer[x]
            if d != self.drawer[x]:
                self.drawer[x] = d[:]
                self.trail[x] = sum([1 << y for y, v in enumerate(d) if v == me])
            a = ability[x]
            if new_paint or a != self.ability[x]:
                self.ability[x] = a[:]
                self.zone[x] = (
                    sum([1 << y for y, v in enumerate(a) if v > 0 and p[y] >= 0 and p[y] != me])
                    if any(a)
                    else 0
                )
            own |= self.own[x] << shift
            trail |= self.trail[x] << shift
            zone |= self.zone[x] << shift
        return own, trail, zone


class Dummy(Player):
    """Abilities first, then claimed targets, then drawing moves (spec section 10, steps 1-5)."""

    def __init__(self) -> None:
        super().__init__()
        self.boards = Boards()

    def play(self) -> None:
        me = self.me()
        H, W = self.rows(), self.cols()
        own, own_trail, zone = self.boards.read(
            me, H, W, self.grid("painter"), self.grid("drawer"), self.grid("ability")
        )
        geo = self.boards.geo
        assert geo is not None
        full = geo.full
        mine = self.units(me)
        my_units = enemy_units = 0
        enemies: list[int] = []
        for pl in range(self.numPlayers()):
            for uid in self.units(pl):
                pos = self.unit(uid).position()
                square = pos.x * W + pos.y
                if pl == me:
                    my_units |= 1 << square
                else:
                    enemy_units |= 1 << square
                    enemies.append(square)
        units = my_units | enemy_units
        bubbles = targets = 0
        for b in self.bubbles():
            square = b.position().x * W + b.position().y
            bubbles |= 1 << square
            if b.player() != me or b.roundsToPop() == 0:
                targets |= 1 << square
        for k in self.bonuses():
            targets |= 1 << (k.position().x * W + k.position().y)
        targets |= enemy_units & own  # enemy units on own squares
        stop = bubbles | enemy_units  # visited but not expanded
        open_ = full & ~my_units & ~zone  # minus the reserved squares, as they are reserved

        abilities = [uid for uid in mine if self.unit(uid).upgraded()]
        others = [uid for uid in mine if uid not in abilities]
        orders_of: dict[int, tuple[int, ...]] = {}
        for uid in others:
            perm = self.randomPermutation()
            orders_of[uid] = (perm[0] + 1, perm[1] + 1, perm[2] + 1, perm[3] + 1, *DIAGONALS)

        claimed = 0
        target_moves: list[tuple[int, int]] = []
        drawing: list[tuple[int, int]] = []
        for uid in others:
            pos = self.unit(uid).position()
            ux, uy = pos.x, pos.y
            here = ux * W + uy
            if zone >> here & 1:
                continue  # stuck in an enemy zone: no order
            near = 0
            for square in enemies:  # enemy units within Chebyshev distance 2
                if abs(square // W - ux) <= 2 and abs(square % W - uy) <= 2:
                    near |= 1 << square
            candidates = (targets | near) & ~claimed
            if candidates and not any(
                abs(square // W - ux) <= TARGET_DEPTH and abs(square % W - uy) <= TARGET_DEPTH
                for square in iter_indices(candidates)
            ):
                candidates = 0  # nothing within reach: spare the search
            found = None
            if candidates:
                found = first_step(
                    geo, here, orders_of[uid], open_, full & ~stop, own, candidates, TARGET_DEPTH
                )
            if found is None:
                drawing.append((uid, here))
                continue
            first, target = found
            claimed |= 1 << target
            open_ &= ~(1 << (here + DELTAS[first][0] * W + DELTAS[first][1]))
            target_moves.append((uid, first))

        drawing_moves: list[tuple[int, int]] = []
        free = full & ~units & ~bubbles
        for uid, here in drawing:
            if own >> here & 1:  # inside own paint: the nearest square just outside, orthogonally
                found = first_step(
                    geo,
                    here,
                    orders_of[uid][:4],
                    open_,
                    own & free,
                    0,
                    free & ~own & ~own_trail,
                    H * W,
                )
            else:  # on its trail or outside: the nearest own square, never over its own trail
                found = first_step(
                    geo, here, orders_of[uid], open_ & free & ~own_trail, full, own, own, H * W
                )
            if found is not None:
                first = found[0]
                open_ &= ~(1 << (here + DELTAS[first][0] * W + DELTAS[first][1]))
                drawing_moves.append((uid, first))

        for uid in abilities:
            self.ability(uid)
        for uid, d in target_moves:
            self.move(uid, Direction(d))
        for uid, d in drawing_moves:
            self.move(uid, Direction(d))
