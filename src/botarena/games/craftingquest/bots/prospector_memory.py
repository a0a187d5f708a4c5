"""The Prospector's memory (spec §10 "Memory"): what its team has seen, scanned and dug.

Cells are flat indices `y·W + x` (CQ-1). Terrain never changes, so a view's terrain is read once per
position a unit has seen it from; a view's cells (camps, towers) are read every time. Everything here is
built only from the payloads of §4 (`setup`, `turn_start`, `result`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from botarena.games.craftingquest.bots.prospector_learning import TypeLearner, Vector

Payload = dict[str, Any]

UNKNOWN = 255
"""The terrain code of a cell no unit of the team has seen."""

TERRAIN_CHARS = ".:s*#~wW"
"""CQ-3: the view character of each terrain, by fixture code."""

TERRAIN_NAMES = ("grass", "dirt", "sand", "snow", "rock", "swamp", "water", "deep_water")
"""CQ-3: the JSON name of each terrain, by fixture code."""

CODE_OF_CHAR = {c: i for i, c in enumerate(TERRAIN_CHARS)}

SCAN_SPACING = 5
"""§10 step 4: a unit scans only if no team scan was made within this distance of it."""

NEIGHBOUR_STEPS = ((0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1))


def square(width: int, height: int, x: int, y: int, radius: int) -> Iterable[int]:
    """The cells within Chebyshev `radius` of (x, y), clipped to the map, in row-major order."""
    for yy in range(max(0, y - radius), min(height, y + radius + 1)):
        row = yy * width
        for xx in range(max(0, x - radius), min(width, x + radius + 1)):
            yield row + xx


class Memory:
    """One team's knowledge of the map, built from its payloads."""

    def __init__(self, setup: Payload) -> None:
        rules = setup["rules"]
        self.width = int(setup["width"])
        self.height = int(setup["height"])
        self.player = int(setup["player"])
        self.size = self.width * self.height
        self.sight_radius = int(rules.get("sight_radius", 5))
        self.scan_radius = int(rules.get("scan_radius", 7))
        self.tower_radius = int(rules.get("tower_radius", 4))
        terrain_rules = rules.get("terrain", {})
        kinds = ("devil", "fox", "crocodile")
        # enter[kind][code]: whether that kind may enter that terrain (CQ-3, from setup.rules.terrain)
        self.enter: dict[str, bytes] = {
            kind: bytes(
                1 if kind in terrain_rules.get(name, {}).get("enter", ()) else 0 for name in TERRAIN_NAMES
            )
            for kind in kinds
        }
        self.penalty_pct = [
            int(terrain_rules.get(name, {}).get("penalty_pct") or 0) for name in TERRAIN_NAMES
        ]
        self.terrain = bytearray([UNKNOWN]) * self.size
        self.known_count = 0  # cells whose terrain the team has seen
        self._ones = int.from_bytes(b"\x01" * self.size, "big")
        self.neighbours: list[tuple[int, ...]] = [self._neighbours_of(i) for i in range(self.size)]
        self.camps: dict[int, tuple[str, ...] | None] = {}  # cell → stock, None until seen from next to it
        self.towers: dict[int, tuple[int, int]] = {}  # standing towers seen: cell → (id, owner)
        self.blocked = bytearray(self.size)  # camps and standing towers (CQ-37 ObstacleError)
        self.guarded = bytearray(self.size)  # within tower_radius of a standing opponent tower (CQ-41)
        self.vectors: dict[int, tuple[Vector, ...]] = {}  # the latest scan's vectors of each cell
        self.scan_covered = bytearray(self.size)  # within scan_radius of a team scan
        self.near_scan = bytearray(self.size)  # within SCAN_SPACING of a team scan (§10 step 4)
        self.dug: dict[
            int, dict[str, int]
        ] = {}  # known buried quantities: a dig less the team's pickups since
        self.dug_once = bytearray(self.size)  # the team has dug this cell (its vectors are then explained)
        self.dug_fresh: dict[int, bool] = {}  # dug, and no team pickup since: the type set is the dug one
        self.learner = TypeLearner(len(setup.get("resource_types") or ()) or 12)
        self._absorbed_from: set[tuple[int, int]] = set()  # positions whose view terrain is already read
        self.passable: dict[str, bytearray] = {kind: bytearray(self.size) for kind in kinds}
        self._parent: dict[str, list[int]] = {kind: list(range(self.size)) for kind in kinds}
        self._size: dict[str, list[int]] = {kind: [1] * self.size for kind in kinds}
        self._components_stale = False
        # derived indexes, kept up to date cell by cell (see `refresh`)
        self.located: dict[str, set[int]] = {}  # type → cells believed to hold it
        self.unexplained_cells: set[int] = set()  # cells with an unclassified vector, never dug
        self.index_version = 0  # bumped whenever a cell's entry in the indexes changes
        self._cell_types: dict[int, tuple[str, ...]] = {}
        self._waiting: dict[Vector, set[int]] = {}  # unclassified vector → undug cells showing it
        self._cell_waiting: dict[int, tuple[Vector, ...]] = {}
        self._learner_version = 0
        self.terrain_version = 0  # bumped when passability changes other than by new terrain

    def _neighbours_of(self, cell: int) -> tuple[int, ...]:
        x, y = cell % self.width, cell // self.width
        out = []
        for dx, dy in NEIGHBOUR_STEPS:
            nx, ny = x + dx, y + dy
            if 0 <= nx < self.width and 0 <= ny < self.height:
                out.append(ny * self.width + nx)
        return tuple(out)

    def cell(self, x: int, y: int) -> int:
        return y * self.width + x

    def xy(self, cell: int) -> tuple[int, int]:
        return cell % self.width, cell // self.width

    def cheb(self, a: int, b: int) -> int:
        """CQ-1's Chebyshev distance between two cells."""
        w = self.width
        return max(abs(a % w - b % w), abs(a // w - b // w))

    # ----------------------------------------------------------------- views (§4.2)

    def absorb_unit(self, unit: Payload) -> None:
        """Read one unit object's view: terrain once per position, camps and towers every time."""
        view = unit.get("view")
        if not view:
            return
        x0, y0 = int(view["x0"]), int(view["y0"])
        # cells first: a camp is then blocked before its terrain makes it passable, so components
        # (see `component`) only ever grow between tower changes
        self._absorb_cells(x0, y0, len(view.get("terrain") or ()), view.get("cells") or ())
        if (x0, y0) not in self._absorbed_from:
            self._absorbed_from.add((x0, y0))
            self._absorb_terrain(x0, y0, view.get("terrain") or ())

    def _absorb_terrain(self, x0: int, y0: int, rows: Iterable[str]) -> None:
        w, h, terrain = self.width, self.height, self.terrain
        for i, row in enumerate(rows):
            y = y0 + i
            if not 0 <= y < h:
                continue
            for j, ch in enumerate(row):
                x = x0 + j
                if 0 <= x < w:
                    c = y * w + x
                    if terrain[c] == UNKNOWN:
                        code = CODE_OF_CHAR.get(ch)
                        if code is not None:
                            terrain[c] = code
                            self.known_count += 1
                            self._refresh_passable(c)

    def _absorb_cells(self, x0: int, y0: int, span: int, cells: Iterable[Payload]) -> None:
        seen_towers: set[int] = set()
        for entry in cells:
            c = self.cell(int(entry["x"]), int(entry["y"]))
            camp = entry.get("camp")
            if camp is not None:
                if c not in self.camps:
                    self.camps[c] = None
                    self._set_blocked(c)
                stock = camp.get("stock")
                if stock is not None:
                    self.camps[c] = tuple(stock)
            tower = entry.get("tower")
            if tower is not None:
                seen_towers.add(c)
                if c not in self.towers:
                    self.towers[c] = (int(tower["id"]), int(tower["owner"]))
                    self._towers_changed()
        # a remembered tower inside this window that is no longer shown has been destroyed (CQ-38)
        gone = [
            c
            for c in self.towers
            if c not in seen_towers and x0 <= c % self.width < x0 + span and y0 <= c // self.width < y0 + span
        ]
        for c in gone:
            del self.towers[c]
        if gone:
            self._towers_changed()

    def _set_blocked(self, cell: int) -> None:
        self.blocked[cell] = 1
        self._refresh_passable(cell)
        self.terrain_version += 1

    def _towers_changed(self) -> None:
        """Recompute blocked and guarded cells from the camps and the standing towers."""
        self.blocked = bytearray(self.size)
        self.guarded = bytearray(self.size)
        for c in self.camps:
            self.blocked[c] = 1
        for c, (_, owner) in self.towers.items():
            self.blocked[c] = 1
            if owner != self.player:
                x, y = self.xy(c)
                for g in square(self.width, self.height, x, y, self.tower_radius):
                    self.guarded[g] = 1
        for c in range(self.size):
            self._refresh_passable(c)
        self.terrain_version += 1

    def _refresh_passable(self, cell: int) -> None:
        code = self.terrain[cell]
        free = code != UNKNOWN and not self.blocked[cell] and not self.guarded[cell]
        for kind, enter in self.enter.items():
            now = 1 if free and enter[code] else 0
            row = self.passable[kind]
            if row[cell] == now:
                continue
            row[cell] = now
            if now:
                self._join(kind, cell)
            else:
                self._components_stale = True  # a cell closed: rebuild the components before use

    # ----------------------------------------------------------------- components (union-find)

    def _join(self, kind: str, cell: int) -> None:
        """`cell` just became passable for `kind`: merge it with its passable neighbours."""
        parent, size, passable = self._parent[kind], self._size[kind], self.passable[kind]
        parent[cell] = cell
        size[cell] = 1
        for n in self.neighbours[cell]:
            if passable[n]:
                a, b = self._find(parent, cell), self._find(parent, n)
                if a != b:
                    if size[a] < size[b]:
                        a, b = b, a
                    parent[b] = a
                    size[a] += size[b]

    @staticmethod
    def _find(parent: list[int], cell: int) -> int:
        root = cell
        while parent[root] != root:
            root = parent[root]
        while parent[cell] != root:
            parent[cell], cell = root, parent[cell]
        return root

    def _rebuild_components(self) -> None:
        self._components_stale = False
        for kind, passable in self.passable.items():
            self._parent[kind] = list(range(self.size))
            self._size[kind] = [1] * self.size
            for c in range(self.size):
                if passable[c]:
                    self._join(kind, c)

    def component(self, kind: str, cell: int) -> tuple[int, int]:
        """(root, size) of the connected set of known cells `kind` may stand on that holds `cell`;
        (-1, 0) if `kind` may not stand on `cell`. Two cells are reachable from each other over
        known terrain exactly when their roots are equal."""
        if self._components_stale:
            self._rebuild_components()
        if not self.passable[kind][cell]:
            return -1, 0
        root = self._find(self._parent[kind], cell)
        return root, self._size[kind][root]

    def any_open_uncovered(self, kind: str) -> bool:
        """Whether some known cell that `kind` may enter lies outside every team scan (a quick
        pre-check, bytes as big integers, before a search for one)."""
        open_ = int.from_bytes(self.passable[kind], "big")
        covered = int.from_bytes(self.scan_covered, "big")
        return bool(open_ & (self._ones ^ covered))

    def may_enter(self, kind: str, cell: int) -> bool:
        """Whether `kind` may stand on `cell` as far as the team knows (terrain seen and enterable)."""
        code = self.terrain[cell]
        return code != UNKNOWN and bool(self.enter[kind][code])

    # ----------------------------------------------------------------- scans and digs (CQ-39, CQ-40)

    def absorb_scan(self, x: int, y: int, found: Iterable[Payload]) -> None:
        """A team scan from (x, y): the latest vectors of every cell in range (empty cells lose theirs)."""
        latest: dict[int, tuple[Vector, ...]] = {}
        for entry in found:
            shown = tuple(tuple(int(a) for a in v) for v in entry.get("vectors") or ())
            if shown:
                latest[self.cell(int(entry["x"]), int(entry["y"]))] = shown
        for c in square(self.width, self.height, x, y, self.scan_radius):
            self.scan_covered[c] = 1
            now = latest.get(c)
            if now == self.vectors.get(c):
                continue
            if now is None:
                del self.vectors[c]
            else:
                vectors = self.vectors[c] = now
                dug = self.dug.get(c)
                if dug is not None and self.dug_fresh.get(c, False):
                    self.learner.observe(vectors, [t for t, q in dug.items() if q > 0])
            self._update_cell(c)
        for c in square(self.width, self.height, x, y, SCAN_SPACING):
            self.near_scan[c] = 1

    def absorb_dig(self, cell: int, found: dict[str, int]) -> None:
        """A team dig: the cell's buried quantities, paired with its vectors to label them (§10)."""
        quantities = {str(t): int(q) for t, q in found.items() if int(q) > 0}
        self.dug[cell] = quantities
        self.dug_fresh[cell] = True
        self.dug_once[cell] = 1
        vectors = self.vectors.get(cell)
        if vectors is not None:
            if len(vectors) == len(quantities):
                self.learner.observe(vectors, quantities)
            else:  # a type was emptied since the scan: its vectors are stale, forget them
                del self.vectors[cell]
        self._update_cell(cell)

    def took(self, cell: int, items: dict[str, int]) -> None:
        """The team picked up `items` here: the known quantities drop (an underestimate if a visible
        pile gave part of it, which is safe: it never makes a later pickup ask for too much)."""
        dug = self.dug.get(cell)
        if dug is not None:
            for t, q in items.items():
                if t in dug:
                    dug[t] = max(0, dug[t] - q)
        self.dug_fresh[cell] = False
        self._update_cell(cell)

    def forget_quantities(self, cell: int) -> None:
        """After a PickupError the opponent has emptied part of the cell: dig again before a pickup."""
        self.dug.pop(cell, None)
        self.dug_fresh.pop(cell, None)
        self._update_cell(cell)

    # ----------------------------------------------------------------- derived indexes

    def types_at(self, cell: int) -> dict[str, int | None]:
        """What the team believes the cell holds: type → known quantity (None if classified, not dug)."""
        dug = self.dug.get(cell)
        if dug is not None:
            return {t: q for t, q in dug.items() if q > 0}
        out: dict[str, int | None] = {}
        for v in self.vectors.get(cell, ()):
            t = self.learner.classify(v)
            if t is not None:
                out[t] = None
        return out

    def unexplained(self, cell: int) -> bool:
        """A cell with a vector the labels cannot classify, that the team has never dug (§10 step 4)."""
        if self.dug_once[cell]:
            return False
        classify = self.learner.classify
        return any(classify(v) is None for v in self.vectors.get(cell, ()))

    def refresh(self) -> None:
        """Bring the indexes up to date after new labels: only cells with a vector that was not
        classified can change (a classified vector stays classified: hypotheses only widen)."""
        if self._learner_version == self.learner.version:
            return
        self._learner_version = self.learner.version
        classify = self.learner.classify
        for vector in [v for v in self._waiting if classify(v) is not None]:
            for c in list(self._waiting.get(vector, ())):
                self._update_cell(c)

    def _update_cell(self, cell: int) -> None:
        """Recompute one cell's entries in `located`, `unexplained_cells` and the waiting vectors."""
        for t in self._cell_types.pop(cell, ()):
            self.located[t].discard(cell)
        for v in self._cell_waiting.pop(cell, ()):
            holders = self._waiting[v]
            holders.discard(cell)
            if not holders:
                del self._waiting[v]
        self.unexplained_cells.discard(cell)
        types = tuple(self.types_at(cell))
        if types:
            self._cell_types[cell] = types
            for t in types:
                self.located.setdefault(t, set()).add(cell)
        if cell not in self.dug:
            classify = self.learner.classify
            waiting = tuple(v for v in self.vectors.get(cell, ()) if classify(v) is None)
            if waiting:
                self._cell_waiting[cell] = waiting
                for v in waiting:
                    self._waiting.setdefault(v, set()).add(cell)
                if not self.dug_once[cell]:
                    self.unexplained_cells.add(cell)
        self.index_version += 1
