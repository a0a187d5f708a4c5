# mypy: disable-error-code="no-untyped-call,no-untyped-def"
"""The model of `dummy` for tests: the first, square-by-square version of the starter bot (spec 10).

Written from the spec's description only. The searches read whole board layers through the API's
`grid()` accessor: building a Square per visited square would cost more than the whole engine.
"""

from __future__ import annotations

from collections import deque

from botarena.games.domains.api import Direction, Player

DELTAS = ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1))
DIAGONALS = (Direction.UL, Direction.UR, Direction.DL, Direction.DR)
TARGET_DEPTH = 20


class Dummy(Player):
    """Abilities first, then claimed targets, then drawing moves (spec section 10, steps 1-5)."""

    def play(self) -> None:
        me = self.me()
        H, W = self.rows(), self.cols()
        painter = self.grid("painter")
        drawer = self.grid("drawer")
        ability = self.grid("ability")
        mine = self.units(me)
        unit_at: dict[tuple[int, int], int] = {}  # square -> owner
        for pl in range(self.numPlayers()):
            for uid in self.units(pl):
                pos = self.unit(uid).position()
                unit_at[(pos.x, pos.y)] = pl
        bubbles = {(b.position().x, b.position().y): b for b in self.bubbles()}
        bonuses = {(k.position().x, k.position().y) for k in self.bonuses()}
        reserved: set[tuple[int, int]] = set()

        def own(x: int, y: int) -> bool:
            return painter[x][y] == me

        def open_square(x: int, y: int) -> bool:
            if not (0 <= x < H and 0 <= y < W):
                return False
            if unit_at.get((x, y)) == me or (x, y) in reserved:
                return False
            p = painter[x][y]
            return not (ability[x][y] > 0 and p >= 0 and p != me)

        abilities = [uid for uid in mine if self.unit(uid).upgraded()]
        others = [uid for uid in mine if uid not in abilities]
        orders_of: dict[int, list[Direction]] = {}
        for uid in others:
            perm = self.randomPermutation()
            orders_of[uid] = [Direction(v + 1) for v in perm] + list(DIAGONALS)

        claimed: set[tuple[int, int]] = set()
        target_moves: list[tuple[int, Direction]] = []
        drawing: list[int] = []
        for uid in others:
            pos = self.unit(uid).position()
            ux, uy = pos.x, pos.y
            p = painter[ux][uy]
            if ability[ux][uy] > 0 and p >= 0 and p != me:
                continue  # stuck in an enemy zone: no order
            candidates = self._targets(ux, uy, me, unit_at, bubbles, bonuses, own) - claimed
            found = None
            if candidates and any(max(abs(tx - ux), abs(ty - uy)) <= TARGET_DEPTH for tx, ty in candidates):
                found = self._search_target(
                    ux, uy, orders_of[uid], candidates, open_square, own, unit_at, bubbles, me
                )
            if found is None:
                drawing.append(uid)
                continue
            target, first = found
            claimed.add(target)
            reserved.add((ux + DELTAS[first][0], uy + DELTAS[first][1]))
            target_moves.append((uid, first))

        drawing_moves: list[tuple[int, Direction]] = []
        for uid in drawing:
            pos = self.unit(uid).position()
            ux, uy = pos.x, pos.y
            if own(ux, uy):
                first = self._search(
                    ux,
                    uy,
                    [d for d in orders_of[uid] if d <= 4],
                    expand=lambda x, y: own(x, y) and (x, y) not in unit_at and (x, y) not in bubbles,
                    goal=lambda x, y: (
                        not own(x, y)
                        and (x, y) not in unit_at
                        and (x, y) not in bubbles
                        and drawer[x][y] != me
                    ),
                    open_square=open_square,
                    diagonal_from=lambda x, y: False,
                )
            else:
                first = self._search(
                    ux,
                    uy,
                    orders_of[uid],
                    expand=lambda x, y: True,
                    goal=own,
                    open_square=lambda x, y: (
                        open_square(x, y)
                        and (x, y) not in unit_at
                        and (x, y) not in bubbles
                        and drawer[x][y] != me
                    ),
                    diagonal_from=own,
                )
            if first is not None:
                reserved.add((ux + DELTAS[first][0], uy + DELTAS[first][1]))
                drawing_moves.append((uid, first))

        for uid in abilities:
            self.ability(uid)
        for uid, d in target_moves:
            self.move(uid, d)
        for uid, d in drawing_moves:
            self.move(uid, d)

    def _targets(self, ux, uy, me, unit_at, bubbles, bonuses, own):  # type: ignore[no-untyped-def]
        targets = set(bonuses)
        for square, bubble in bubbles.items():
            if bubble.player() != me or bubble.roundsToPop() == 0:
                targets.add(square)
        for (x, y), owner in unit_at.items():
            if owner != me and (own(x, y) or max(abs(x - ux), abs(y - uy)) <= 2):
                targets.add((x, y))
        return targets

    def _search_target(self, ux, uy, order, candidates, open_square, own, unit_at, bubbles, me):  # type: ignore[no-untyped-def]
        """Step 3: BFS to depth 20; bubbles and enemy units are not expanded; first unclaimed target wins."""
        start = (ux, uy)
        seen = {start}
        queue = deque([(ux, uy, 0, None)])
        while queue:
            x, y, depth, first = queue.popleft()
            if depth >= TARGET_DEPTH:
                continue
            steps = order if own(x, y) else [d for d in order if d <= 4]
            for d in steps:
                dx, dy = DELTAS[d]
                nx, ny = x + dx, y + dy
                if (nx, ny) in seen or not open_square(nx, ny):
                    continue
                seen.add((nx, ny))
                step = d if first is None else first
                if (nx, ny) in candidates:
                    return (nx, ny), step
                holder = unit_at.get((nx, ny))
                if (nx, ny) in bubbles or (holder is not None and holder != me):
                    continue
                queue.append((nx, ny, depth + 1, step))
        return None

    @staticmethod
    def _search(ux, uy, order, expand, goal, open_square, diagonal_from):  # type: ignore[no-untyped-def]
        """Step 4: BFS without a depth limit; the start is always expanded."""
        seen = {(ux, uy)}
        queue = deque([(ux, uy, None)])
        while queue:
            x, y, first = queue.popleft()
            if first is not None and not expand(x, y):
                continue
            diag = diagonal_from(x, y)
            for d in order:
                if d > 4 and not diag:
                    continue
                dx, dy = DELTAS[d]
                nx, ny = x + dx, y + dy
                if (nx, ny) in seen or not open_square(nx, ny):
                    continue
                seen.add((nx, ny))
                step = d if first is None else first
                if goal(nx, ny):
                    return step
                queue.append((nx, ny, step))
        return None
