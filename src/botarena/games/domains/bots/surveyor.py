# mypy: disable-error-code="no-untyped-call,no-untyped-def"
"""`surveyor` (spec section 10): escape, strike, protect trails, bubbles, draw rectangles, idle.

Each round, for each own unit in ascending id, the first rule that applies gives its order. No two
units aim at the same square, and units closing a trail are issued first.
"""

from __future__ import annotations

from collections import deque

from botarena.games.domains.api import Direction, Player
from botarena.games.domains.state import DELTAS

ORTHO = (Direction.up, Direction.down, Direction.left, Direction.right)
ALL = (*ORTHO, Direction.UL, Direction.UR, Direction.DL, Direction.DR)


def cheb(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


class Surveyor(Player):
    """The decent baseline: rectangles sized by the distance to the nearest enemy."""

    def __init__(self) -> None:
        super().__init__()
        self.plans: dict[int, list[Direction]] = {}  # unit -> remaining rectangle legs

    def play(self) -> None:
        me = self.me()
        H, W = self.rows(), self.cols()
        painter = self.grid("painter")
        drawer = self.grid("drawer")
        drawer_unit = self.grid("drawer_unit")
        ability = self.grid("ability")
        units = {}
        for pl in range(self.numPlayers()):
            for uid in self.units(pl):
                units[uid] = self.unit(uid)
        unit_at = {(u.position().x, u.position().y): u for u in units.values()}
        enemies = [u for u in units.values() if u.player() != me]
        bubbles = {(b.position().x, b.position().y): b for b in self.bubbles()}
        targeted: set[tuple[int, int]] = set()
        closing: list[tuple[int, str, Direction]] = []
        rest: list[tuple[int, str, Direction]] = []

        def on_board(x: int, y: int) -> bool:
            return 0 <= x < H and 0 <= y < W

        def own(x: int, y: int) -> bool:
            return painter[x][y] == me

        def enterable(x: int, y: int, frm: tuple[int, int]) -> bool:
            if not on_board(x, y) or (x, y) in targeted:
                return False
            holder = unit_at.get((x, y))
            if holder is not None and holder.player() == me:
                return False
            p = painter[x][y]
            if ability[x][y] > 0 and p >= 0 and p != me:
                return False
            b = bubbles.get((x, y))
            # never pop a ticking own bubble
            return not (b is not None and b.player() == me and b.roundsToPop() > 0)

        def steps_from(pos: tuple[int, int]) -> tuple[Direction, ...]:
            return ALL if own(*pos) else ORTHO

        def path_first(start: tuple[int, int], goal, avoid_trail: bool = False, limit: int = 10_000):
            seen = {start}
            queue: deque[tuple[tuple[int, int], Direction | None, int]] = deque([(start, None, 0)])
            while queue:
                pos, first, depth = queue.popleft()
                if depth >= limit:
                    continue
                for d in steps_from(pos):
                    dx, dy = DELTAS[d]
                    nxt = (pos[0] + dx, pos[1] + dy)
                    if nxt in seen or not enterable(*nxt, pos):
                        continue
                    if avoid_trail and drawer[nxt[0]][nxt[1]] == me and not own(*nxt):
                        continue
                    seen.add(nxt)
                    step = d if first is None else first
                    if goal(nxt):
                        return step
                    if nxt in unit_at or nxt in bubbles:
                        continue
                    queue.append((nxt, step, depth + 1))
            return None

        for uid in self.units(me):
            unit = units[uid]
            pos = (unit.position().x, unit.position().y)
            energy = unit.energy()
            drawing = drawer[pos[0]][pos[1]] == me and drawer_unit[pos[0]][pos[1]] == uid
            order: tuple[str, Direction] | None = None

            # 1. escape
            for enemy in enemies:
                epos = (enemy.position().x, enemy.position().y)
                if cheb(pos, epos) > 2:
                    continue
                diagonal = epos[0] != pos[0] and epos[1] != pos[1] and cheb(pos, epos) == 1
                if enemy.energy() >= energy + 2 or (not own(*pos) and diagonal):
                    best = None
                    for d in steps_from(pos):
                        dx, dy = DELTAS[d]
                        nxt = (pos[0] + dx, pos[1] + dy)
                        if not enterable(*nxt, pos) or nxt in unit_at or nxt in bubbles:
                            continue
                        score = (own(*nxt), cheb(nxt, epos))
                        if best is None or score > best[0]:
                            best = (score, d)
                    if best is not None:
                        order = ("move", best[1])
                    break
            # 2. strike
            if order is None:
                for d in steps_from(pos):
                    dx, dy = DELTAS[d]
                    nxt = (pos[0] + dx, pos[1] + dy)
                    enemy = unit_at.get(nxt)  # type: ignore[assignment]
                    if enemy is None or enemy.player() == me or nxt in targeted:
                        continue
                    unfair = d > 4 and painter[nxt[0]][nxt[1]] != enemy.player()
                    if energy >= enemy.energy() + 2 or unfair:
                        order = ("attack", d)
                        break
            # 3. protect a trail
            if order is None and drawing:
                trail = [
                    (x, y)
                    for x in range(H)
                    for y in range(W)
                    if drawer_unit[x][y] == uid and drawer[x][y] == me
                ]
                threatened = any(
                    cheb(t, (e.position().x, e.position().y)) <= 3 for t in trail for e in enemies
                )
                if threatened:
                    if unit.upgraded() and any(cheb(t, pos) == 2 for t in trail):
                        order = ("ability", Direction.null)
                    else:
                        first = path_first(pos, lambda q: own(*q) and q not in unit_at, avoid_trail=True)
                        if first is not None:
                            order = ("move", first)
            # 4. bubbles
            if order is None:

                def bubble_goal(q: tuple[int, int], pos: tuple[int, int] = pos) -> bool:
                    b = bubbles.get(q)
                    return (
                        b is not None
                        and ((b.player() == me and b.roundsToPop() == 0) or b.player() != me)
                        and cheb(q, pos) <= 6
                    )

                if any(bubble_goal(q) for q in bubbles):
                    first = path_first(pos, bubble_goal, limit=6)
                    if first is not None:
                        order = ("move", first)
            # 5. expand: rectangles
            if order is None:
                order = self._expand(
                    uid, pos, drawing, painter, enemies, enterable, own, unit_at, bubbles, path_first
                )
            # 6. idle
            if order is None:
                first = path_first(pos, lambda q: not own(*q) and q not in unit_at and q not in bubbles)
                if first is not None:
                    order = ("move", first)
            if order is None:
                continue
            kind, d = order
            dx, dy = DELTAS[d]
            nxt = (pos[0] + dx, pos[1] + dy)
            targeted.add(nxt)
            entry = (uid, kind, d)
            if kind == "move" and drawing and on_board(*nxt) and own(*nxt):
                closing.append(entry)
            else:
                rest.append(entry)
        for uid, kind, d in closing + rest:
            if kind == "move":
                self.move(uid, d)
            elif kind == "attack":
                self.attack(uid, d)
            else:
                self.ability(uid)

    def _expand(self, uid, pos, drawing, painter, enemies, enterable, own, unit_at, bubbles, path_first):
        me = self.me()
        H, W = self.rows(), self.cols()
        plan = self.plans.get(uid)
        if own(*pos):
            # start a new rectangle from a border square facing the most unpainted space
            nearest = min((cheb(pos, (e.position().x, e.position().y)) for e in enemies), default=99)
            length = max(2, min(8, nearest - 2))
            best = None
            for d in (Direction.up, Direction.down, Direction.left, Direction.right):
                dx, dy = DELTAS[d]
                free = 0
                x, y = pos
                for _ in range(length):
                    x, y = x + dx, y + dy
                    if not (0 <= x < H and 0 <= y < W) or painter[x][y] == me:
                        break
                    free += 1
                if free and (best is None or free > best[0]):
                    best = (free, d)
            if best is None:
                self.plans.pop(uid, None)
                return None
            free, d = best
            side = (
                (Direction.right, Direction.left)
                if d in (Direction.up, Direction.down)
                else (Direction.down, Direction.up)
            )
            turn = side[(uid + self.round()) % 2]
            back = {
                Direction.up: Direction.down,
                Direction.down: Direction.up,
                Direction.left: Direction.right,
                Direction.right: Direction.left,
            }[d]
            legs = [d] * free + [turn] * free + [back] * free
            self.plans[uid] = legs[1:]
            x, y = pos[0] + DELTAS[d][0], pos[1] + DELTAS[d][1]
            if enterable(x, y, pos) and (x, y) not in unit_at:
                return ("move", d)
            return None
        if plan:
            d = plan.pop(0)
            x, y = pos[0] + DELTAS[d][0], pos[1] + DELTAS[d][1]
            if enterable(x, y, pos) and (x, y) not in unit_at and (x, y) not in bubbles:
                return ("move", d)
        # off plan: go home the shortest way without stepping on own trails
        self.plans.pop(uid, None)
        first = path_first(pos, lambda q: own(*q) and q not in unit_at, avoid_trail=True)
        return ("move", first) if first is not None else None
