"""The Domains rules (spec section 3), in the spec's order: setup (DR-5 .. DR-7); a round as the named
phases A-N (`play_round`: `phase_round_start` B, `phase_interleave` C with the orders DR-11 .. DR-16,
`phase_free_attacks` D .. `phase_points` M, `phase_end_of_round` N); the procedures DR-17 .. DR-22.

`DomainsGame` is the pure rule engine: give it each player's parsed order list per round and it
plays the round (DR-9 .. DR-34) and produces the export frame (spec 7.4). `DomainsEngine` in
`engine.py` wraps it in the platform's Engine interface. No requests, replies or payloads here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from botarena.games.domains.bitboard import Geometry, from_mask, indices
from botarena.games.domains.config import DomainsConfig
from botarena.games.domains.rng import RandomSource, make_source
from botarena.games.domains.state import (
    NONE,
    Direction,
    Order,
    OrderKind,
    State,
    direction_between,
    is_diagonal,
)

CROSS = np.array([[False, True, False], [True, True, True], [False, True, False]])
"""4-connectivity: scipy.ndimage.generate_binary_structure(2, 1)."""
BUBBLE_MOVE_ORDER = (Direction.left, Direction.right, Direction.up, Direction.down)  # DR-27

# Refusal codes for the round's event log (DR-11): warnings, never statuses.
NOT_OWNED = "NOT_OWNED"
DIAGONAL_OFF_PAINT = "DIAGONAL_OFF_PAINT"
OFF_BOARD = "OFF_BOARD"
TRAPPED = "TRAPPED"
SHUT_OUT = "SHUT_OUT"
OWN_UNIT = "OWN_UNIT"
NOT_UPGRADED = "NOT_UPGRADED"


class Snapshot:
    """DR-9: the round-start state of every square (content ids, paint, trail player, flag), and points."""

    __slots__ = ("bonus_at", "bubble_at", "drawer", "flag", "painter", "points", "unit_at")

    def __init__(self, state: State) -> None:
        self.unit_at = state.unit_at.copy()
        self.bubble_at = state.bubble_at.copy()
        self.bonus_at = state.bonus_at.copy()
        self.painter = state.painter.copy()
        self.drawer = state.drawer.copy()
        self.flag = state.ability > 0
        self.points = list(state.points)

    @classmethod
    def blank(cls, state: State) -> Snapshot:
        """The empty board of DR-5, for the export's first frame."""
        snap = cls.__new__(cls)
        size = state.H * state.W
        snap.unit_at = np.full(size, NONE, dtype=np.int16)
        snap.bubble_at = np.full(size, NONE, dtype=np.int16)
        snap.bonus_at = np.full(size, NONE, dtype=np.int16)
        snap.painter = np.full(size, NONE, dtype=np.int8)
        snap.drawer = np.full(size, NONE, dtype=np.int8)
        snap.flag = np.zeros(size, dtype=bool)
        snap.points = [0] * state.n
        return snap


class DomainsGame:
    """One Domains game: state, random source, and the rules as named phases in the spec's order."""

    def __init__(self, config: DomainsConfig, seed: int = 0, source: RandomSource | None = None) -> None:
        self.config = config
        self.source: RandomSource = source if source is not None else make_source(config.rng, seed)
        self.state = State.empty(config)
        self.geo = Geometry(config.board_height, config.board_width)
        self.events: list[list[Any]] = []  # this round's refusals and notable happenings
        self.frames: list[str] = []  # export frames (spec 7.4): the initial one, then one per round
        self.changes: list[list[int]] = []  # this round's changed squares, for the replay record
        self._killed: set[int] = set()
        self._free_attacks: list[tuple[int, int, int]] = []
        self._ability_queue: list[int] = []
        self._s0: Snapshot | None = None
        self.setup()

    def R(self, lo: int, hi: int) -> int:
        """DR-1: one call to the game's random source."""
        return self.source.draw(lo, hi)

    # -- setup (DR-5 .. DR-7) ------------------------------------------------------------------------
    def setup(self) -> None:
        """DR-5 .. DR-7 on the empty state: the bonus counters' first draws, each player's 3x3 of paint
        and first unit; and the export's first frame."""
        state, config = self.state, self.config
        for k in range(config.bonus_table_size):  # DR-6
            state.bonus_counter[k] = self.R(0, config.max_rounds_per_bonus) - 1
        H, W = state.H, state.W
        centres = [(H - 2, 1), (1, W - 2), (H - 2, W - 2), (1, 1)]
        for p in range(state.n):  # DR-7
            cx, cy = centres[p]
            for x in range(cx - 1, cx + 2):
                for y in range(cy - 1, cy + 2):
                    state.painter[x * W + y] = p
            centre = cx * W + cy
            state.unit_owner[p] = p
            state.unit_pos[p] = centre
            state.unit_energy[p] = config.energy_at_start
            state.unit_at[centre] = p
        blank = Snapshot.blank(state)
        self.frames.append(self._frame(0, blank)[0])

    @property
    def finished(self) -> bool:
        return self.state.round >= self.config.number_of_rounds

    # -- a round (DR-8 .. DR-34): phases A-N in the spec's order -------------------------------------
    def play_round(self, orders: list[list[Order]]) -> None:
        """Run round `state.round` with each player's parse-time order list `L_p` (phase A, DR-8: the
        replies were parsed by `actions.py`), through phases B to N."""
        self.phase_round_start()  # B
        self.phase_interleave(orders)  # C
        self.phase_free_attacks()  # D
        self.phase_bubble_timers()  # E
        self.phase_abilities()  # F
        self.phase_bubble_moves()  # G
        self.phase_count()  # H
        self.phase_respawn()  # I
        self.phase_bubble_spawn()  # J
        self.phase_bonus_spawn()  # K
        self.phase_energy()  # L
        self.phase_points()  # M
        self.phase_end_of_round()  # N
        self.state.round += 1

    def phase_round_start(self) -> None:
        """B (DR-9): the snapshot S0 and points P0; clear the killed marks and both queues (and the
        round's event log)."""
        self.events = []
        self._s0 = Snapshot(self.state)
        self._killed = set()
        self._free_attacks = []
        self._ability_queue = []

    def phase_interleave(self, orders: list[list[Order]]) -> None:
        """C (DR-10): one order at a time, from a player drawn among those with orders left."""
        n = self.state.n
        cursors = [0] * n
        lists = [orders[p] if p < len(orders) else [] for p in range(n)]
        while True:
            active = [p for p in range(n) if cursors[p] < len(lists[p])]
            if not active:
                break
            k = self.R(0, len(active) - 1) if len(active) > 1 else 0
            p = active[k]
            order = lists[p][cursors[p]]
            cursors[p] += 1
            self.execute(p, order)

    # -- DR-11 .. DR-16: orders ----------------------------------------------------------------------
    def _refuse(self, p: int, order: Order, code: str) -> None:
        self.events.append([p, order.unit, int(order.kind), order.dir, code])

    def execute(self, p: int, order: Order) -> None:
        """DR-11: refused unless the unit is p's now; else a move, an attack or an ability."""
        u = order.unit
        state = self.state
        if not 0 <= u < len(state.unit_owner) or state.unit_owner[u] != p:
            self._refuse(p, order, NOT_OWNED)
            return
        if order.kind is OrderKind.move:
            self.move(p, u, order)
        elif order.kind is OrderKind.attack:
            self.attack(p, u, order)
        else:
            self.use_ability(p, u, order)

    def _is_enemy(self, painter: int, p: int) -> bool:
        return painter >= 0 and painter != p

    def move(self, p: int, u: int, order: Order) -> None:
        """DR-12 .. DR-14."""
        state = self.state
        direction = order.dir
        a = state.unit_pos[u]
        painter = state.painter
        if is_diagonal(direction) and painter[a] != p:  # 1
            self._refuse(p, order, DIAGONAL_OFF_PAINT)
            return
        if direction == 0:  # 2
            return
        d = state.step(a, direction)
        if d < 0:  # 3
            self._refuse(p, order, OFF_BOARD)
            return
        flag_a = state.ability[a] > 0
        flag_d = state.ability[d] > 0
        pa = int(painter[a])
        pd = int(painter[d])
        if flag_a and self._is_enemy(pa, p) and not flag_d:  # 4 trapped
            self._refuse(p, order, TRAPPED)
            return
        if (not flag_a or pa == p) and flag_d and self._is_enemy(pd, p):  # 5 shut out
            self._refuse(p, order, SHUT_OUT)
            return
        # DR-13: the destination's content
        v = int(state.unit_at[d])
        if v >= 0:
            if state.unit_owner[v] == p:
                self._refuse(p, order, OWN_UNIT)
                return
            unfair = is_diagonal(direction) and pd != state.unit_owner[v]
            if not self.fight(u, v, unfair):
                return
        else:
            k = int(state.bonus_at[d])
            if k >= 0:
                if (
                    not state.unit_upgraded[u]
                    and state.upgraded_count(p) < self.config.max_bonuses_per_player
                ):
                    state.unit_upgraded[u] = True
                state.bonus_at[d] = NONE
                state.bonus_pos[k] = NONE
                state.bonus_counter[k] = self.R(0, self.config.max_rounds_per_bonus) - 1
            else:
                b = int(state.bubble_at[d])
                if b >= 0:
                    if state.bubble_colour[b] == p:
                        self.pop(b, forced=False)
                    else:
                        state.bubble_colour[b] = p
                        state.bubble_rtp[b] = self.config.rounds_to_pop
                        return
        # DR-14: relocation
        state.unit_at[a] = NONE
        state.unit_at[d] = u
        state.unit_pos[u] = d
        self.draw(p, u, a, d, direction)

    def attack(self, p: int, u: int, order: Order) -> None:
        """DR-15 (with F1: real units, F2: never against one's own unit)."""
        state = self.state
        direction = order.dir
        a = state.unit_pos[u]
        t = state.step(a, direction)
        if t < 0:
            self._refuse(p, order, OFF_BOARD)
            return
        v = int(state.unit_at[t])
        if v >= 0:  # case A
            owner = state.unit_owner[v]
            if owner == p:
                return
            unfair = is_diagonal(direction) and state.painter[t] != owner
            self.fight(u, v, unfair)
            return
        b = int(state.bubble_at[t])
        if b >= 0:  # case B
            if state.bubble_colour[b] == p:
                self.pop(b, forced=False)
            else:
                state.bubble_colour[b] = p
                state.bubble_rtp[b] = self.config.rounds_to_pop
            return
        assert self._s0 is not None
        w = int(self._s0.unit_at[t])
        if w < 0:  # case D
            return
        # case C: the round-start occupant left; chase it if it is an enemy still in range
        owner = state.unit_owner[w]
        if owner >= 0 and owner != p:
            ws = state.unit_pos[w]
            ax, ay = divmod(a, state.W)
            wx, wy = divmod(ws, state.W)
            reach = max(abs(wx - ax), abs(wy - ay)) == 1
            diagonal_to_w = reach and wx != ax and wy != ay
            in_range = reach and (not diagonal_to_w or state.painter[a] == p)
            if in_range:
                unfair = is_diagonal(direction) and diagonal_to_w and state.painter[ws] != owner
                self.fight(u, w, unfair)
                return
        self._free_attacks.append((u, a, t))

    def use_ability(self, p: int, u: int, order: Order) -> None:
        """DR-16: spend the upgrade now; the zone comes in phase F."""
        state = self.state
        if not state.unit_upgraded[u]:
            self._refuse(p, order, NOT_UPGRADED)
            return
        state.unit_upgraded[u] = False
        self._ability_queue.append(u)

    # -- DR-17 .. DR-22: procedures ------------------------------------------------------------------
    def draw(self, p: int, u: int, a: int, d: int, direction: int) -> None:
        """DR-17: trails follow a unit that left its paint orthogonally."""
        state = self.state
        w = int(state.drawer_unit[d])
        if w >= 0:  # 1
            self.erase(w, d)
        if state.drawer_unit[a] == u:  # 2
            state.drawer[d] = p
            state.drawer_unit[d] = u
            if state.painter[d] == p:
                self.paint(p, u, a)
            return
        if state.painter[a] == p and state.painter[d] != p and not is_diagonal(direction):  # 3
            state.drawer[d] = p
            state.drawer_unit[d] = u
            state.unit_record[u] = (a, d)

    def erase(self, w: int, s: int) -> None:
        """DR-18: clear w's record and the 4-connected trail of w through s."""
        state = self.state
        state.unit_record[w] = None
        drawer_unit = state.drawer_unit
        if s < 0 or drawer_unit[s] != w:
            return
        W, H = state.W, state.H
        drawer = state.drawer
        drawer_unit[s] = NONE
        drawer[s] = NONE
        stack = [s]
        while stack:
            c = stack.pop()
            x, y = divmod(c, W)
            if x > 0 and drawer_unit[c - W] == w:
                drawer_unit[c - W] = NONE
                drawer[c - W] = NONE
                stack.append(c - W)
            if x < H - 1 and drawer_unit[c + W] == w:
                drawer_unit[c + W] = NONE
                drawer[c + W] = NONE
                stack.append(c + W)
            if y > 0 and drawer_unit[c - 1] == w:
                drawer_unit[c - 1] = NONE
                drawer[c - 1] = NONE
                stack.append(c - 1)
            if y < W - 1 and drawer_unit[c + 1] == w:
                drawer_unit[c + 1] = NONE
                drawer[c + 1] = NONE
                stack.append(c + 1)

    def paint(self, p: int, u: int, s: int) -> None:
        """DR-19: the enclosure. Fill the regions next to u's closing trail that do not touch the box edge.

        Computed on bitboards, in an order that usually spares most of the box search:

        - A region (a 4-connected set of non-wall squares in the box) next to T succeeds exactly when
          the whole-board region R of the same walls through that square has its bounding rectangle
          strictly inside the box: if R reaches the board edge or the box's boundary, or leaves the
          box, the part in the box touches the box's boundary. So the regions are flooded on the
          whole board first, each stopped as soon as it reaches the board edge (it fails then).
        - The box only grows as the border search proceeds, so the search stops as soon as its
          bounding rectangle holds all of u's trail squares and, one square further out, every
          bounded region: nothing more of the box could change the outcome. Only when the search
          ends before that does the outcome depend on the exact box, and then it is used as is.
        """
        state = self.state
        state.unit_record[u] = None  # 2
        drawer_unit = state.drawer_unit
        if drawer_unit[s] != u:
            return
        geo = self.geo
        painted = from_mask(state.painter == p)
        trail_u = from_mask(drawer_unit == u)
        nonwall = geo.full & ~(painted | trail_u)
        start = 1 << s
        # T and the regions next to it, on the whole board
        t_full = geo.flood4(start, trail_u)
        regions = self._bounded_regions(p, painted, start, geo.grow4(t_full) & nonwall, nonwall)
        fill, trail_box = self._enclosed(p, painted, start, trail_u, t_full, nonwall, regions)
        if fill:
            self._fill(p, fill)
        # 5. u's trail squares in the box become p's
        own = np.array(indices(trail_box), dtype=np.intp)
        state.painter[own] = p
        state.drawer[own] = NONE
        drawer_unit[own] = NONE

    def _bounded_regions(
        self, p: int, painted: int, start: int, pending: int, nonwall: int
    ) -> list[tuple[int, tuple[int, int, int, int]]]:
        """DR-19 step 3, on the whole board: the regions through the `pending` squares (those next to
        the trail) that reach neither the board edge nor the boundary of the owned rectangle, with
        their bounds. The others fail whatever the box."""
        geo = self.geo
        regions: list[tuple[int, tuple[int, int, int, int]]] = []
        if not pending:
            return regions
        # The box lies within the bounding rectangle of p's owned squares and s, so a region that
        # reaches that rectangle's boundary fails too: its inside is all a region may fill.
        owned = painted | from_mask(self.state.drawer == p) | start
        ox0, ox1, oy0, oy1 = geo.bounds(owned)
        outside = geo.full & ~geo.rectangle(ox0 + 1, ox1 - 1, oy0 + 1, oy1 - 1)
        while pending:
            region = geo.flood4_inner(pending & -pending, nonwall, outside)
            if region < 0:  # reached the board edge or the owned rectangle's: fails whatever the box
                pending &= ~(-region)
                continue
            pending &= ~region
            regions.append((region, geo.bounds(region)))
        return regions

    def _enclosed(
        self,
        p: int,
        painted: int,
        start: int,
        trail_u: int,
        t_full: int,
        nonwall: int,
        regions: list[tuple[int, tuple[int, int, int, int]]],
    ) -> tuple[int, int]:
        """DR-19 steps 1 and 3: the squares to fill (the bounded regions next to the trail strictly
        inside the box) and u's trail squares in the box."""
        geo = self.geo
        # 1. the box, just far enough to decide
        x0, x1, y0, y1 = geo.bounds(trail_u)
        for _, (rx0, rx1, ry0, ry1) in regions:
            x0, x1, y0, y1 = min(x0, rx0 - 1), max(x1, rx1 + 1), min(y0, ry0 - 1), max(y1, ry1 + 1)
        box = self._box(p, painted, start, (x0, x1, y0, y1))
        fill = 0
        if box is None:  # the box holds the whole trail and every bounded region strictly inside
            for region, _ in regions:
                fill |= region
            return fill, trail_u
        bx0, bx1, by0, by1 = box
        inside = geo.rectangle(bx0, bx1, by0, by1)
        trail_box = trail_u & inside
        t_box = t_full if trail_box == trail_u else geo.flood4(start, trail_box)
        near = geo.grow4(t_box) & nonwall & inside
        for region, (rx0, rx1, ry0, ry1) in regions:
            if region & near and bx0 < rx0 and rx1 < bx1 and by0 < ry0 and ry1 < by1:
                fill |= region
        return fill, trail_box

    def _box(
        self, p: int, painted: int, start: int, goal: tuple[int, int, int, int]
    ) -> tuple[int, int, int, int] | None:
        """DR-19 step 1: the bounding box (x0, x1, y0, y1) of the border search from s, or None as soon
        as the squares visited so far span the rectangle `goal` (the box can only grow from there).

        The search's edges are symmetric, so the visited set is the connected component of s in the
        graph of border squares (s included): orthogonal edges, and diagonal edges whose two side
        squares are not both or neither p-owned. It is flooded a layer at a time.
        """
        state, geo = self.state, self.geo
        W, full, nl, nr = geo.W, geo.full, geo.not_left, geo.not_right
        sx, sy = divmod(start.bit_length() - 1, W)
        if sx <= goal[0] and sx >= goal[1] and sy <= goal[2] and sy >= goal[3]:
            return None  # s alone spans the goal (a one-square trail with nothing to fill)
        owned = painted | from_mask(state.drawer == p)
        other = full & ~painted
        near = (other >> W) | ((other << W) & full) | ((other & nl) >> 1) | ((other & nr) << 1)
        border = (owned & near) | start
        # the squares from which each diagonal step is allowed (exactly one side square p-owned)
        dr = ((owned >> 1) ^ (owned >> W)) & nr
        ul = ((owned << W) ^ (owned << 1)) & nl
        dl = ((owned << 1) ^ (owned >> W)) & nl
        ur = ((owned << W) ^ (owned >> 1)) & nr
        gx0, gx1, gy0, gy1 = goal
        gx0, gy0 = max(gx0, 0), max(gy0, 0)
        top = (1 << ((gx0 + 1) * W)) - 1  # rows 0..gx0
        bottom_shift = gx1 * W  # rows gx1.. after shifting
        left = geo.columns_upto(gy0)
        right = geo.columns_from(gy1) if gy1 < W else 0
        reached = 0  # which of the goal's four sides the visited squares reach (bits 1, 2, 4, 8)
        seen = start
        frontier = start
        while frontier:
            if not reached & 1 and frontier & top:
                reached |= 1
            if not reached & 2 and frontier >> bottom_shift:
                reached |= 2
            if not reached & 4 and frontier & left:
                reached |= 4
            if not reached & 8 and frontier & right:
                reached |= 8
            if reached == 15:
                return None
            grown = (
                (frontier >> W)
                | ((frontier << W) & full)
                | ((frontier & nl) >> 1)
                | ((frontier & nr) << 1)
                | (((frontier & dr) << (W + 1)) & full)
                | ((frontier & ul) >> (W + 1))
                | (((frontier & dl) << (W - 1)) & full)
                | ((frontier & ur) >> (W - 1))
            ) & border
            frontier = grown & ~seen
            seen |= frontier
        return geo.bounds(seen)

    def _fill(self, p: int, fill: int) -> None:
        """DR-19 steps 4 and 5 for the successful regions: clean-up in row-major order, then paint."""
        state = self.state
        squares = np.array(indices(fill), dtype=np.intp)  # row-major already
        drawer_unit = state.drawer_unit
        records = state.unit_record
        origins = {rec[0] for rec in records if rec is not None}
        candidates = squares[drawer_unit[squares] >= 0].tolist()
        if origins:
            candidates = sorted(set(candidates) | (origins & set(squares.tolist())))
        for q in candidates:
            if q in origins:
                for i, rec in enumerate(records):
                    if rec is not None and rec[0] == q:
                        self.erase(i, rec[1])
            w = int(drawer_unit[q])
            if w >= 0:
                self.erase(w, q)
        state.painter[squares] = p

    def fight(self, u: int, v: int, unfair: bool) -> bool:
        """DR-20 on the real units (F1). Returns True when the attacker u wins."""
        state = self.state
        ppu = self.config.points_per_unit
        if unfair:
            self.kill(v)
            state.points[state.unit_owner[u]] += ppu
            self.events.append(["fight", u, v, u])
            return True
        e1 = self.R(0, state.unit_energy[u])
        e2 = self.R(0, state.unit_energy[v])
        if e1 > e2:
            attacker_wins = True
        elif e2 > e1:
            attacker_wins = False
        else:
            attacker_wins = self.R(0, 1) == 1
        winner, loser, loser_roll = (u, v, e2) if attacker_wins else (v, u, e1)
        self.kill(loser)
        state.points[state.unit_owner[winner]] += ppu
        cost = self.R(0, loser_roll // 2)
        if cost:
            state.unit_energy[winner] = max(self.config.min_energy, state.unit_energy[winner] - cost)
        self.events.append(["fight", u, v, winner])
        return attacker_wins

    def kill(self, v: int) -> None:
        """DR-21: the unit dies; its recorded trail is erased, orphans stay."""
        state = self.state
        state.unit_upgraded[v] = False
        state.unit_owner[v] = NONE
        pos = state.unit_pos[v]
        if pos >= 0 and state.unit_at[pos] == v:
            state.unit_at[pos] = NONE
        state.unit_pos[v] = NONE
        self._killed.add(v)
        record = state.unit_record[v]
        if record is not None:
            self.erase(v, record[1])

    def pop(self, b: int, forced: bool) -> None:
        """DR-22: paint the cross in the bubble's colour, close that colour's trails under it, pay."""
        state = self.state
        c = state.bubble_colour[b]
        s = state.bubble_pos[b]
        remembered: list[int] = []
        for direction in (0, 1, 2, 3, 4):
            q = s if direction == 0 else state.step(s, direction)
            if q < 0:
                continue
            state.painter[q] = c
            if state.drawer[q] == c:
                remembered.append(q)
        for q in remembered:
            if state.drawer[q] == c:
                self.paint(c, int(state.drawer_unit[q]), q)
        state.points[c] += self.config.points_per_pop if forced else self.config.points_per_bubble
        state.bubble_at[s] = NONE
        state.bubble_colour[b] = NONE
        state.bubble_pos[b] = NONE
        state.bubble_rtp[b] = 0
        state.bubble_moves[b] = 0

    # -- DR-23 .. DR-33: end-of-round phases ---------------------------------------------------------
    def phase_free_attacks(self) -> None:
        """D (DR-23)."""
        state = self.state
        for u, a, t in self._free_attacks:
            if u in self._killed:
                continue
            target = int(state.unit_at[t])
            if target < 0 or state.unit_owner[target] == state.unit_owner[u]:
                continue
            ax, ay = divmod(a, state.W)
            tx, ty = divmod(t, state.W)
            unfair = is_diagonal(direction_between(ax, ay, tx, ty)) and (
                state.painter[t] != state.unit_owner[target]
            )
            self.fight(u, target, unfair)

    def phase_bubble_timers(self) -> None:
        """E (DR-24)."""
        state = self.state
        for b, colour in enumerate(state.bubble_colour):
            if colour >= 0 and state.bubble_rtp[b] > 0:
                state.bubble_rtp[b] -= 1
                if state.bubble_rtp[b] == 0:
                    self.pop(b, forced=True)

    def phase_abilities(self) -> None:
        """F (DR-25)."""
        state = self.state
        queue = self._ability_queue
        if not queue:
            return
        if len(queue) == 1:
            u = queue[0]
            if u not in self._killed:
                self.zone(state.unit_owner[u], state.unit_pos[u])
            return
        entries: dict[int, int] = {}
        for u in queue:
            if u in self._killed:
                continue
            entries[state.unit_owner[u]] = state.unit_pos[u]
        size = self.config.ability_size
        cancelled: set[int] = set()
        players = sorted(entries)
        for i_index, i in enumerate(players):
            xi, yi = divmod(entries[i], state.W)
            for j in players[i_index + 1 :]:
                xj, yj = divmod(entries[j], state.W)
                if abs(xi - xj) < size and abs(yi - yj) < size:
                    cancelled.add(i)
                    cancelled.add(j)
        for i in players:
            if i not in cancelled:
                self.zone(i, entries[i])

    def zone(self, p: int, c: int) -> None:
        """DR-26: an ability zone of player p centred on square c."""
        state = self.state
        H, W = state.H, state.W
        h = (self.config.ability_size - 1) // 2
        cx, cy = divmod(c, W)
        top, bottom, left, right = cx - h, cx + h, cy - h, cy + h
        countdown = self.config.ability_duration + 1
        candidates: list[int] = []
        for x in range(max(0, top), min(H - 1, bottom) + 1):
            for y in range(max(0, left), min(W - 1, right) + 1):
                q = x * W + y
                owner = int(state.painter[q])
                if state.ability[q] > 0 and owner >= 0 and owner != p:
                    self._clear_zone(q, owner)
                o = int(state.drawer[q])
                if o >= 0:
                    w = int(state.drawer_unit[q])
                    if o != p:
                        self.erase(w, q)
                    elif top < x < bottom and left < y < right:
                        if 0 <= w < len(state.unit_record):
                            state.unit_record[w] = None
                        state.drawer[q] = NONE
                        state.drawer_unit[q] = NONE
                    else:
                        candidates.append(q)
                state.painter[q] = p
                state.ability[q] = countdown
        for q in candidates:
            if state.drawer[q] == p:
                self.paint(p, int(state.drawer_unit[q]), q)

    def _clear_zone(self, q: int, owner: int) -> None:
        """DR-26 step 1: switch off the 4-connected flagged squares of `owner` containing q."""
        state = self.state
        H, W = state.H, state.W
        # imported here, not with the module: loading scipy is about 0.35 s of every `botarena` start
        from scipy import ndimage  # type: ignore[import-untyped]

        mask = ((state.ability > 0) & (state.painter == owner)).reshape(H, W)
        labels, _ = ndimage.label(mask, structure=CROSS)
        label = labels.ravel()[q]
        state.ability[labels.ravel() == label] = 0

    def phase_bubble_moves(self) -> None:
        """G (DR-27)."""
        state = self.state
        period = self.config.rounds_per_bubble_move
        for b, colour in enumerate(state.bubble_colour):
            if colour < 0:
                continue
            state.bubble_moves[b] += 1
            if state.bubble_moves[b] < period:
                continue
            state.bubble_moves[b] = 0
            s = state.bubble_pos[b]
            flag = state.ability[s] > 0
            options = []
            for direction in BUBBLE_MOVE_ORDER:
                q = state.step(s, direction)
                if q >= 0 and state.is_empty(q) and (state.ability[q] > 0) == flag:
                    options.append(q)
            if not options:
                continue
            q = options[self.R(0, len(options) - 1)]
            state.bubble_at[s] = NONE
            state.bubble_at[q] = b
            state.bubble_pos[b] = q

    def phase_count(self) -> None:
        """H (DR-28): O_p in row-major order, and the flags' countdowns."""
        state = self.state
        painter = state.painter
        state.owned = [np.flatnonzero(painter == p) for p in range(state.n)]
        ability = state.ability
        on = ability > 0
        if on.any():
            ability[on] -= 1

    def _free_squares(self, p: int) -> np.ndarray:
        owned = self.state.owned[p]
        if owned.size == 0:
            return owned
        return np.asarray(owned[self.state.empty_mask()[owned]])

    def phase_respawn(self) -> None:
        """I (DR-29)."""
        state, config = self.state, self.config
        counts = [0] * state.n
        for owner in state.unit_owner:
            if owner >= 0:
                counts[owner] += 1
        for p in range(state.n):
            if counts[p] >= config.max_number_of_units:
                continue
            state.respawn_counter[p] += 1
            if state.respawn_counter[p] < config.rounds_per_respawn:
                continue
            free = self._free_squares(p)
            if free.size == 0:
                state.respawn_counter[p] -= 1
                continue
            q = int(free[self.R(0, free.size - 1)])
            u = state.unit_owner.index(NONE)
            state.unit_owner[u] = p
            state.unit_pos[u] = q
            state.unit_upgraded[u] = False
            state.unit_energy[u] = config.energy_at_start
            state.unit_record[u] = None
            state.unit_at[q] = u
            state.respawn_counter[p] = 0

    def phase_bubble_spawn(self) -> None:
        """J (DR-30)."""
        state, config = self.state, self.config
        for p in range(state.n):
            state.bubble_counter[p] += 1
            if state.bubble_counter[p] < config.rounds_per_bubble:
                continue
            free = self._free_squares(p)
            if free.size == 0:
                state.bubble_counter[p] -= 1
                continue
            q = int(free[self.R(0, free.size - 1)])
            try:
                b = state.bubble_colour.index(NONE)
            except ValueError:  # cannot happen with the spec's table size; never crash on it
                continue
            state.bubble_colour[b] = p
            state.bubble_pos[b] = q
            state.bubble_rtp[b] = 0
            state.bubble_moves[b] = 0
            state.bubble_at[q] = b
            state.bubble_counter[p] = 0

    def phase_bonus_spawn(self) -> None:
        """K (DR-31), with the proposed skip when no square is empty."""
        state, config = self.state, self.config
        K = config.bonus_table_size
        H, W = state.H, state.W
        for k in range(K):
            state.bonus_counter[k] += 1
            if state.bonus_counter[k] < config.max_rounds_per_bonus:
                continue
            if NONE not in state.bonus_pos:
                continue
            if not state.empty_mask().any():
                continue
            while True:
                x = self.R(0, H - 1)
                y = self.R(0, W - 1)
                q = x * W + y
                if state.is_empty(q):
                    break
            j = state.bonus_pos.index(NONE)
            state.bonus_pos[j] = q
            state.bonus_at[q] = j
            state.bonus_counter[j] = 0

    def phase_energy(self) -> None:
        """L (DR-32)."""
        state, config = self.state, self.config
        painter = state.painter
        for u, owner in enumerate(state.unit_owner):
            if owner < 0:
                continue
            square = painter[state.unit_pos[u]]
            if square < 0:
                continue
            if square == owner:
                if state.unit_energy[u] < config.max_energy:
                    state.unit_energy[u] += 1
            elif not state.unit_upgraded[u] and state.unit_energy[u] > config.min_energy:
                state.unit_energy[u] -= 1

    def phase_points(self) -> None:
        """M (DR-33)."""
        state = self.state
        per = self.config.points_per_square
        for p in range(state.n):
            state.points[p] += per * int(state.owned[p].size)

    # -- N: the export frame (spec 7.4) --------------------------------------------------------------
    def phase_end_of_round(self) -> None:
        """N (DR-34): the round's export frame against S0, and its changed squares for the replay."""
        assert self._s0 is not None
        frame, changed = self._frame(self.state.round, self._s0)
        self.frames.append(frame)
        self.changes = self._change_list(changed)

    def cell_codes(self, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The `<sq>` and `<ct>` codes (0-25, 0-13) of the given squares, now."""
        state = self.state
        painter = state.painter[indices].astype(np.int16)
        drawer = state.drawer[indices].astype(np.int16)
        flag = state.ability[indices] > 0
        sq = np.zeros(indices.size, dtype=np.int16)
        painted = painter >= 0
        drawn = drawer >= 0
        sq = np.where(painted & ~drawn, 1 + painter, sq)
        sq = np.where(~painted & drawn, 9 + drawer, sq)
        other = painted & drawn & (drawer != painter)
        sq = np.where(other, 13 + 3 * painter + drawer - (drawer > painter), sq)
        sq = np.where(painted & drawn & (drawer == painter), 25, sq)
        sq = np.where(flag & painted, 5 + painter, sq)
        ct = np.full(indices.size, 13, dtype=np.int16)
        bonus = state.bonus_at[indices]
        ct[bonus >= 0] = 12
        bubble = state.bubble_at[indices]
        has_bubble = bubble >= 0
        if has_bubble.any():
            colours = np.array(state.bubble_colour, dtype=np.int16)
            ct[has_bubble] = 8 + colours[bubble[has_bubble]]
        unit = state.unit_at[indices]
        has_unit = unit >= 0
        if has_unit.any():
            codes = np.array(
                [o + 4 * up for o, up in zip(state.unit_owner, state.unit_upgraded, strict=True)],
                dtype=np.int16,
            )
            ct[has_unit] = codes[unit[has_unit]]
        return sq, ct

    def _frame(self, label: int, s0: Snapshot) -> tuple[str, np.ndarray]:
        state = self.state
        changed = np.flatnonzero(
            (state.unit_at != s0.unit_at)
            | (state.bubble_at != s0.bubble_at)
            | (state.bonus_at != s0.bonus_at)
            | (state.painter != s0.painter)
            | (state.drawer != s0.drawer)
            | ((state.ability > 0) != s0.flag)
        )
        deltas = "".join(f"{now - before} " for now, before in zip(state.points, s0.points, strict=True))
        if changed.size == 0:
            return f"{label} {deltas}", changed
        sq, ct = self.cell_codes(changed)
        skips = np.diff(changed, prepend=0)
        parts = [
            f"{skip}{chr(58 + a)}{chr(58 + b)}"
            for skip, a, b in zip(skips.tolist(), sq.tolist(), ct.tolist(), strict=True)
        ]
        return f"{label} {deltas}{''.join(parts)}", changed

    def _change_list(self, changed: np.ndarray) -> list[list[int]]:
        """The replay's per-square changes of this round: [index, painter, drawer, countdown]."""
        if changed.size == 0:
            return []
        state = self.state
        rows: list[list[int]] = np.stack(
            (
                changed,
                state.painter[changed],
                state.drawer[changed],
                state.ability[changed],
            ),
            axis=1,
        ).tolist()
        return rows
