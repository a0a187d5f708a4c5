"""DatsPulse for learners (spec datspulse.md; rules DP-n).

| | |
|---|---|
| agents | `player_0` .. `player_{N-1}`: seat s is team index s (DP-5) |
| dynamics | simultaneous lockstep (§7.5): every team acts every step; a step is one turn and one transition (§3.8) |
| observation | `Dict(map=Box(0, cap, (C, D, D)), ants=Box(0, cap, (S, A)), scalars=Box(0, cap, (K,)))`, float32, from the turn's arena (§4) only; C = 19, A = 11, K = 8 |
| action | `MultiDiscrete([13] * S)`: one choice per ant slot: stay, one step in a direction, or a straight run in a direction |
| action mask | `info["action_mask"]`: int8, the S slots' 13-entry masks concatenated (sb3-contrib's MaskablePPO); the space's `sample` also takes it flat |
| step reward | the team's score change in the transition (deliveries DP-78 up, raids on its anthill DP-77 down), in nectar units (calories / `nectar_calories`) |
| terminal reward | rank-based (§6.2 places, equal scores share): +1 first, -1 last, linear in between |
| episode | one round: exactly `turns` steps (DP-81; nobody is eliminated) |

**The grid.** The map is the hex disc of radius R (DP-4), R = `map_radius`, or when that is 0,
`max(map_min_radius, ceil(sqrt(map_hexes_per_team * seats / 3)))`: fixed by the config and the
seat count, which the `start` payload shows a bot too. Planes are indexed in axial coordinates
(DP-3): the hex (q, r) is `map[c, z + R, x + R]` with `x = q - (r - (r & 1)) // 2`, `z = r`, so
D = 2R + 1 and the six directions are the same array offsets everywhere (E (0, +1), NE (-1, +1),
NW (-1, 0), W (0, -1), SW (+1, -1), SE (+1, 0) as (row, column) steps). Array cells outside the
disc are off the map: channel 0 is 0 there, and everything else is 0 too.

**Observation `map`** (C = 19 channels), what the arena shows this turn (hexes out of sight are 0
except channels 0, 7, 8; the encoding keeps no memory: stack frames or use a recurrent policy for
one): 0 on the map (DP-4), 1 visible now (DP-90), 2-6 terrain one-hot of visible hexes: anthill,
empty, dirt, acid, stone (DP-10), 7 one of the team's own anthill hexes (`home`), 8 its spot, 9
apple amount, 10 bread amount, 11 nectar amount (dropped piles and anthill stores alike, §4 `food`),
12-14 the team's living worker, soldier, scout on the hex: its health (0 = none; DP-22 allows one
of each type), 15-17 visible enemy worker, soldier, scout: its health (summed over teams, which
never share a hex), 18 the food amount the enemies on the hex carry.

**Ant slots.** S = max(`unit_limit`, 3): a team never has more living units (DP-23; it starts with 3,
DP-50). Slot i is the team's i-th *living* ant in `ants` order, that is spawn order (DP-5); corpses
(health 0, DP-24) take no slot, so an ant keeps its slot until an older one dies.

**Observation `ants`** (S x A, A = 11), one row per slot, zeros for an empty slot: 0 present, 1-2 its
hex as array row and column (z + R, x + R), 3-5 type one-hot (worker, soldier, scout; DP-20), 6
health, 7-9 cargo type one-hot (apple, bread, nectar; DP-30), 10 cargo amount.

**Observation `scalars`** (K = 8): 0 turnNo, 1 turns, 2 score (DP-33), 3 living ants, 4 corpses,
5 visible enemy units, 6 number of the previous reply's rejected commands (`errors`, §7.5), 7 seats.
A seat with no request (the round is over) observes zeros everywhere.

**Action** (13 choices per slot): 0 stay (no command: the ant keeps no order, DP-60); 1-6 one step
to the neighbour in direction E, NE, NW, W, SW, SE (DP-2 order); 7-12 a straight run in that
direction of up to the ant's speed in hexes (DP-20, the §5 path-length limit), cut at the map's rim
and before the first visible hex known to block (stone, another team's anthill; DP-75 rules 1-2).
MP, occupancy and unseen terrain are settled when the path is walked (DP-75): a run stops where the
ant's movement points or a blocking unit stop it, with no error. A command is sent only for an
occupied slot, and never leaves the map, so every reply passes §5's checks: an unmasked choice into
stone or an enemy anthill just does not move the ant; off the map it is sent as "stay".

**Mask.** Stay is always legal. A step or run in direction d is legal for an occupied slot when the
neighbour in d is on the map and not known to block: not a visible stone hex and not an anthill
hex outside the team's `home` (DP-11 "Entry"). Moves stay legal toward unseen hexes (the engine
accepts any path on the map, §5) and toward own or enemy units (they may move first, DP-75).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from botarena.core.game import Step
from botarena.core.protocol import Request
from botarena.games.datspulse.mapgen import map_radius
from botarena.games.datspulse.state import FoodType, Terrain
from botarena.rl.encoding import Encoding, FlatMaskMultiDiscrete, capped_box

CHANNELS = 19
ANT_FEATURES = 11
SCALARS = 8
CHOICES = 13
"""Per slot: 0 stay, 1-6 a step, 7-12 a run, directions in DP-2 order."""
STAY = 0
DIRECTIONS = 6
STARTING_UNITS = 3  # DP-50

# channels of `map`
ON_MAP, VISIBLE, TERRAIN0, HOME, SPOT, APPLE, BREAD, NECTAR, OWN0, ENEMY0, ENEMY_CARGO = (
    0,
    1,
    2,
    7,
    8,
    9,
    10,
    11,
    12,
    15,
    18,
)
_FOOD_CHANNEL = {int(FoodType.APPLE): APPLE, int(FoodType.BREAD): BREAD, int(FoodType.NECTAR): NECTAR}

AXIAL_DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
"""DP-2's directions E, NE, NW, W, SW, SE as axial (dx, dz) steps (DP-3): the same on every row."""
_DX = np.array([d[0] for d in AXIAL_DIRECTIONS], dtype=np.int64)
_DZ = np.array([d[1] for d in AXIAL_DIRECTIONS], dtype=np.int64)


def grid_radius(config: Any, seats: int) -> int:
    """The map radius R of a `seats`-team round under `config` (DP-4)."""
    return map_radius(config, seats)


def axial(q: Any, r: Any) -> tuple[Any, Any]:
    """Offset (q, r) to axial (x, z) (DP-3); works on ints and numpy arrays alike."""
    return q - (r - (r & 1)) // 2, r


def on_map(x: Any, z: Any, radius: int) -> Any:
    """Whether axial (x, z) lies within `radius` of (0, 0) (DP-4)."""
    return (abs(x) <= radius) & (abs(z) <= radius) & (abs(x + z) <= radius)


def living_ants(arena: dict[str, Any]) -> list[dict[str, Any]]:
    """The ants that take slots: the living ones (health > 0), in `ants` (spawn) order."""
    return [ant for ant in arena["ants"] if ant["health"] > 0]


@dataclass
class ArenaArrays:
    """One arena (§4) read into array indices (row z + R, column x + R)."""

    rows: np.ndarray[Any, Any]
    cols: np.ndarray[Any, Any]
    kinds: np.ndarray[Any, Any]
    """The visible tiles' cells and types (DP-10)."""
    home_rows: np.ndarray[Any, Any]
    home_cols: np.ndarray[Any, Any]
    blocked: np.ndarray[Any, Any]
    """(D, D) bool: visible stone, and visible anthill hexes not in `home` (DP-75 rules 1-2)."""
    ants: list[dict[str, Any]]
    """The living ants in slot order."""
    ant_rows: np.ndarray[Any, Any]
    ant_cols: np.ndarray[Any, Any]


class DatsPulseEncoding(Encoding):
    """See the module docstring."""

    def __init__(self, config: Any, seats: int) -> None:
        super().__init__(config, seats)
        self.radius = grid_radius(config, seats)
        self.size = 2 * self.radius + 1
        self.slots = max(int(config.unit_limit), STARTING_UNITS)
        self.speeds = (int(config.worker_speed), int(config.soldier_speed), int(config.scout_speed))
        self.observation_space = spaces.Dict(
            {
                "map": capped_box((CHANNELS, self.size, self.size)),
                "ants": capped_box((self.slots, ANT_FEATURES)),
                "scalars": capped_box((SCALARS,)),
            }
        )
        self.action_space = FlatMaskMultiDiscrete(np.full(self.slots, CHOICES, dtype=np.int64))
        span = np.arange(-self.radius, self.radius + 1)
        z, x = np.meshgrid(span, span, indexing="ij")
        self._on_map = on_map(x, z, self.radius).astype(np.float32)
        self._read_cache: dict[int, tuple[Request, ArenaArrays]] = {}
        self._scores: tuple[int, list[int]] | None = None
        """(turnNo, every team's score) after the last transition seen."""

    # -- the arena as arrays -------------------------------------------------------------------------
    def _cells(self, items: Sequence[dict[str, Any]]) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        """Array (row, column) of each `{q, r, ...}` item (DP-3), as two int arrays."""
        q = np.fromiter((item["q"] for item in items), dtype=np.int64, count=len(items))
        r = np.fromiter((item["r"] for item in items), dtype=np.int64, count=len(items))
        x, z = axial(q, r)
        return z + self.radius, x + self.radius

    def _read(self, seat: int, request: Request) -> ArenaArrays:
        """The request's arena as arrays, read once for `observe`, `action_mask` and `act` of the
        same request (the session hands all three the same Request object)."""
        cached = self._read_cache.get(seat)
        if cached is not None and cached[0] is request:
            return cached[1]
        arena = request.payload
        tiles = arena["map"]
        rows, cols = self._cells(tiles)
        kinds = np.fromiter((tile["type"] for tile in tiles), dtype=np.int64, count=len(tiles))
        home_rows, home_cols = self._cells(arena["home"])
        blocked = np.zeros((self.size, self.size), dtype=bool)
        blocked[rows, cols] = (kinds == Terrain.STONE) | (kinds == Terrain.ANTHILL)
        blocked[home_rows, home_cols] = False  # DP-11: only another team's anthill hexes block
        own = living_ants(arena)[: self.slots]
        ant_rows, ant_cols = self._cells(own)
        read = ArenaArrays(rows, cols, kinds, home_rows, home_cols, blocked, own, ant_rows, ant_cols)
        self._read_cache[seat] = (request, read)
        return read

    # -- observation -------------------------------------------------------------------------------
    def observe(self, seat: int, requests: Sequence[Request]) -> dict[str, np.ndarray[Any, Any]]:
        planes = np.zeros((CHANNELS, self.size, self.size), dtype=np.float32)
        ants = np.zeros((self.slots, ANT_FEATURES), dtype=np.float32)
        scalars = np.zeros(SCALARS, dtype=np.float32)
        if requests:
            arena = requests[0].payload
            read = self._read(seat, requests[0])
            self._map_planes(arena, read, planes)
            self._ant_rows(read, ants)
            living = sum(1 for ant in arena["ants"] if ant["health"] > 0)
            scalars[:] = [
                arena["turnNo"],
                self.config.turns,
                arena["score"],
                living,
                len(arena["ants"]) - living,
                len(arena["enemies"]),
                len(arena.get("errors", [])),
                self.seats,
            ]
        return {"map": planes, "ants": ants, "scalars": scalars}

    def _map_planes(self, arena: dict[str, Any], read: ArenaArrays, planes: np.ndarray[Any, Any]) -> None:
        planes[ON_MAP] = self._on_map
        planes[VISIBLE, read.rows, read.cols] = 1.0
        planes[TERRAIN0 + read.kinds - int(Terrain.ANTHILL), read.rows, read.cols] = 1.0
        planes[HOME, read.home_rows, read.home_cols] = 1.0
        planes[SPOT, read.home_rows[:1], read.home_cols[:1]] = 1.0  # `home` starts with the spot (DP-11)
        food = arena["food"]
        rows, cols = self._cells(food)
        for index, pile in enumerate(food):  # one pile or store per hex (DP-31): a few dozen at most
            planes[_FOOD_CHANNEL[pile["type"]], rows[index], cols[index]] = pile["amount"]
        for index, ant in enumerate(read.ants):
            planes[OWN0 + ant["type"], read.ant_rows[index], read.ant_cols[index]] = ant["health"]
        enemies = arena["enemies"]
        rows, cols = self._cells(enemies)
        for index, enemy in enumerate(enemies):
            planes[ENEMY0 + enemy["type"], rows[index], cols[index]] += enemy["health"]
            planes[ENEMY_CARGO, rows[index], cols[index]] += enemy["food"]["amount"]

    def _ant_rows(self, read: ArenaArrays, ants: np.ndarray[Any, Any]) -> None:
        count = len(read.ants)
        ants[:count, 0] = 1.0
        ants[:count, 1] = read.ant_rows
        ants[:count, 2] = read.ant_cols
        for slot, ant in enumerate(read.ants):
            row = ants[slot]
            row[3 + ant["type"]] = 1.0
            row[6] = ant["health"]
            cargo = ant["food"]
            if cargo["amount"] > 0:
                row[6 + cargo["type"]] = 1.0
                row[10] = cargo["amount"]

    # -- action ------------------------------------------------------------------------------------
    def act(self, seat: int, requests: Sequence[Request], action: Any) -> list[Any]:
        read = self._read(seat, requests[0])
        choices = np.asarray(action, dtype=np.int64).reshape(-1)
        moves = []
        for slot, ant in enumerate(read.ants):
            choice = int(choices[slot]) if slot < choices.shape[0] else STAY
            if not 0 < choice < CHOICES:
                continue
            direction = (choice - 1) % DIRECTIONS
            length = 1 if choice <= DIRECTIONS else self.speeds[ant["type"]]
            path = self._path(ant, direction, length, read.blocked)
            if path:
                moves.append({"ant": ant["id"], "path": path})
        return [{"moves": moves}]

    def _path(
        self, ant: dict[str, Any], direction: int, length: int, blocked: np.ndarray[Any, Any]
    ) -> list[dict[str, int]]:
        """Up to `length` hexes straight on from the ant in `direction`: on the map only, and past
        the first hex, never into a hex known to block (the first is sent as chosen)."""
        x, z = axial(ant["q"], ant["r"])
        dx, dz = AXIAL_DIRECTIONS[direction]
        radius = self.radius
        path: list[dict[str, int]] = []
        for _ in range(length):
            x, z = x + dx, z + dz
            if not on_map(x, z, radius) or (path and blocked[z + radius, x + radius]):
                break
            path.append({"q": x + (z - (z & 1)) // 2, "r": z})
        return path

    def action_mask(self, seat: int, requests: Sequence[Request]) -> np.ndarray[Any, Any]:
        mask = np.zeros((self.slots, CHOICES), dtype=np.int8)
        mask[:, STAY] = 1
        if requests:
            read = self._read(seat, requests[0])
            count = len(read.ants)
            rows = read.ant_rows[:, None] + _DZ  # the six neighbours of every ant (DP-2)
            cols = read.ant_cols[:, None] + _DX
            radius = self.radius
            legal = on_map(cols - radius, rows - radius, radius)
            legal[legal] = ~read.blocked[rows[legal], cols[legal]]
            mask[:count, 1 : 1 + DIRECTIONS] = legal
            mask[:count, 1 + DIRECTIONS :] = legal
        return mask.reshape(-1)

    # -- rewards -----------------------------------------------------------------------------------
    def step_rewards(self, step: Step) -> list[float]:
        """Each team's score change in this transition (the spectator frame's `teams[].score`), in
        nectar units. Turn 1 starts from the DP-50 score 0; later turns from the scores this encoding
        saw after the previous transition (no reward when it did not see them)."""
        frame = step.record
        turn = int(frame["turnNo"])
        scores = [int(team["score"]) for team in frame["teams"]]
        if turn == 1:
            previous: list[int] | None = [0] * len(scores)
        elif self._scores is not None and self._scores[0] == turn - 1:
            previous = self._scores[1]
        else:
            previous = None
        self._scores = (turn, scores)
        if previous is None:
            return [0.0] * self.seats
        scale = float(self.config.nectar_calories)
        return [(now - before) / scale for now, before in zip(scores, previous, strict=True)]
