"""Domains for learners (spec: shared specs domains.md; rules DR-n).

| | |
|---|---|
| agents | `player_0` ... `player_{n-1}` (n = 2-4 seats; player p is the engine's player p) |
| dynamics | simultaneous: every agent acts every step; a step is one round (DR-8 .. DR-34) |
| observation | `Dict(board=Box(0, 255, (4n+6, H, W), uint8), units=Box((M, 5), float32), scalars=Box(0, cap, (n+2,), float32))`, the turn payload (spec section 4) as arrays, below; players are seen from the agent: relative player k is player (me + k) mod n, so k = 0 is always the agent itself |
| action | `MultiDiscrete([18] * M)`, M = `max_number_of_units`: one order per unit slot (slot k = the agent's k-th living unit by ascending id); choice 0 no order, 1-8 `move` in direction 1-8, 9-16 `attack` in direction 1-8, 17 `ability` |
| action mask | `info["action_mask"]`, int8 `(18 * M,)`, the M slot masks concatenated (MaskablePPO's layout), below |
| step reward | the round's points gain against the others': (gain of the agent - mean gain of the other players) / (H * W * number_of_rounds * max(1, points_per_square)) (DR-20, DR-22, DR-33) |
| terminal reward | rank-based: +1 first, -1 last, evenly in between, ties share (spec 1, ranking) |
| episode | one match: `number_of_rounds` steps, never ending early (DR-35) |

**board** planes (C = 4n + 6, H x W, indexed `[plane, x, y]` as the payload's boards):

| planes | content |
|---|---|
| 0 .. n-1 | painter: 1 where relative player k painted the square (`painter`) |
| n .. 2n-1 | trail: 1 where the square carries a trail of relative player k (`drawer`, DR-17) |
| 2n .. 3n-1 | units: 1 where a unit of relative player k stands |
| 3n .. 4n-1 | bubbles: 1 where a bubble of relative colour k sits |
| 4n | unit energy (capped at 255; the default `max_energy` is 20), 0 where no unit |
| 4n + 1 | 1 where an upgraded unit stands (DR-16) |
| 4n + 2 | ability countdown, 0 when the flag is off; the zone's owner is the square's painter (DR-26) |
| 4n + 3 | bubble `rounds_to_pop`, 0 while not ticking (DR-24) |
| 4n + 4 | 1 where a bonus lies (DR-13) |
| 4n + 5 | the agent's slots: k + 1 where the unit of action slot k stands |

**units** `(M, 5)` float32, row k = action slot k: present (1/0), x, y, energy, upgraded (1/0);
an empty slot's row is zeros. **scalars** `(n + 2,)`: round (0-based), number_of_rounds, then the
points of relative players 0 .. n-1 (raw: they grow to hundreds of thousands; scale them in the
policy). The observation once the match is over is all zeros.

**action mask**, per slot (choice 0 is always legal; an empty slot allows only choice 0). The mask
is taken on the round-start state, as the payload shows it:
- `move d` where DR-12 and DR-13 accept it now: not a diagonal off own paint (DR-12.1), on the board
  (DR-12.3), not trapped in an enemy zone (DR-12.4), not into an enemy zone (DR-12.5), not onto a
  square holding one of the agent's units (DR-13). Enemy units (a fight), bubbles and bonuses are
  allowed. Within a round, players' orders interleave (DR-10): an enemy's enclosure can repaint a
  square before the order runs, two of the agent's units sent to the same square collide, and a
  unit killed earlier in the round has no order (DR-11), so a masked-legal move can still be refused
  (a warning event, never an INVALID verdict).
- `attack d` where the target is on the board and holds an enemy unit or a bubble now (DR-15 cases
  A, B, and C when the enemy moves away within range). An attack on another square is accepted but
  hits only a unit that happens to enter it during the round (case A, or the free attack of case C
  after one of the agent's own units left it, DR-23): those long shots are masked out.
- `ability` where the slot's unit is upgraded (DR-16).

An unmasked action never breaks the env: every order it makes is well-formed, so the reply is `OK`;
an illegal one is refused by the engine with a warning event (DR-11).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from botarena.core.game import Step
from botarena.core.protocol import Request
from botarena.games.domains.config import DomainsConfig
from botarena.games.domains.state import DELTAS
from botarena.rl.encoding import Encoding, FlatMaskMultiDiscrete, capped_box

NO_ORDER = 0
MOVE = 1
"""Choices MOVE .. MOVE + 7 move in directions 1-8."""
ATTACK = 9
"""Choices ATTACK .. ATTACK + 7 attack in directions 1-8."""
ABILITY = 17
CHOICES = 18
UNIT_FIELDS = 5

_DX = np.array([dx for dx, _ in DELTAS[1:]], dtype=np.int64)
_DY = np.array([dy for _, dy in DELTAS[1:]], dtype=np.int64)
_DIAGONAL = np.arange(1, 9) >= 5
"""Over directions 1-8: which are diagonal (5-8)."""

UInt8Array = np.ndarray[Any, np.dtype[np.uint8]]
Float32Array = np.ndarray[Any, np.dtype[np.float32]]
Int8Array = np.ndarray[Any, np.dtype[np.int8]]


def choice_order(unit: int, choice: int) -> dict[str, Any] | None:
    """The order (spec section 5) of one slot's choice for `unit`, or None for no order."""
    choice = int(choice)
    if MOVE <= choice < ATTACK:
        return {"unit": unit, "type": "move", "dir": choice - MOVE + 1}
    if ATTACK <= choice < ABILITY:
        return {"unit": unit, "type": "attack", "dir": choice - ATTACK + 1}
    if choice == ABILITY:
        return {"unit": unit, "type": "ability"}
    return None


@dataclass
class _Parsed:
    """One turn payload as arrays: the boards and the unit tables the observation and mask share."""

    me: int
    painter: np.ndarray[Any, Any]
    drawer: np.ndarray[Any, Any]
    ability: np.ndarray[Any, Any]
    unit_player: np.ndarray[Any, Any]
    unit_x: np.ndarray[Any, Any]
    unit_y: np.ndarray[Any, Any]
    unit_energy: np.ndarray[Any, Any]
    unit_upgraded: np.ndarray[Any, Any]
    unit_id: np.ndarray[Any, Any]
    bubble_player: np.ndarray[Any, Any]
    bubble_x: np.ndarray[Any, Any]
    bubble_y: np.ndarray[Any, Any]
    bubble_rtp: np.ndarray[Any, Any]
    bonus_x: np.ndarray[Any, Any]
    bonus_y: np.ndarray[Any, Any]

    @property
    def mine(self) -> np.ndarray[Any, Any]:
        """Indexes (into the unit arrays) of the agent's units, ascending id: slot k is mine[k]."""
        return np.flatnonzero(self.unit_player == self.me)


def _columns(rows: list[dict[str, Any]], keys: Sequence[str]) -> list[np.ndarray[Any, Any]]:
    if not rows:
        return [np.zeros(0, dtype=np.int64) for _ in keys]
    table = np.array([[int(row[key]) for key in keys] for row in rows], dtype=np.int64)
    return [table[:, i] for i in range(len(keys))]


def parse_payload(payload: dict[str, Any]) -> _Parsed:
    """The arrays of a turn payload (spec section 4)."""
    uid, player, ux, uy, energy, upgraded = _columns(
        payload["units"], ("id", "player", "x", "y", "energy", "upgraded")
    )
    _, colour, bx, by, rtp = _columns(payload["bubbles"], ("id", "player", "x", "y", "rounds_to_pop"))
    _, kx, ky = _columns(payload["bonuses"], ("id", "x", "y"))
    return _Parsed(
        me=int(payload["me"]),
        painter=np.asarray(payload["painter"], dtype=np.int64),
        drawer=np.asarray(payload["drawer"], dtype=np.int64),
        ability=np.asarray(payload["ability"], dtype=np.int64),
        unit_player=player,
        unit_x=ux,
        unit_y=uy,
        unit_energy=energy,
        unit_upgraded=upgraded,
        unit_id=uid,
        bubble_player=colour,
        bubble_x=bx,
        bubble_y=by,
        bubble_rtp=rtp,
        bonus_x=kx,
        bonus_y=ky,
    )


class DomainsEncoding(Encoding):
    """See the module docstring."""

    def __init__(self, config: Any, seats: int) -> None:
        super().__init__(config, seats)
        assert isinstance(config, DomainsConfig)
        self.n = seats
        self.H = config.board_height
        self.W = config.board_width
        self.slots = config.max_number_of_units
        self.planes = 4 * seats + 6
        self.scale = float(self.H * self.W * config.number_of_rounds * max(1, config.points_per_square))
        high = np.zeros((self.slots, UNIT_FIELDS), dtype=np.float32)
        high[:] = [1, self.H - 1, self.W - 1, config.max_energy, 1]
        self.observation_space = spaces.Dict(
            {
                "board": spaces.Box(0, 255, (self.planes, self.H, self.W), np.uint8),
                "units": spaces.Box(np.zeros_like(high), high, dtype=np.float32),
                "scalars": capped_box((seats + 2,)),
            }
        )
        self.action_space = FlatMaskMultiDiscrete([CHOICES] * self.slots)
        self._rounds = float(config.number_of_rounds)
        self._points_after: list[int] = [0] * seats
        self._cache: dict[int, tuple[Request, _Parsed]] = {}

    # -- observation -----------------------------------------------------------------------------
    def _parsed(self, request: Request) -> _Parsed:
        """The request's payload as arrays, parsed once per seat for the observation, the mask and
        the action (the cache holds the request itself, so an identity match is the same request)."""
        cached = self._cache.get(request.seat)
        if cached is not None and cached[0] is request:
            return cached[1]
        parsed = parse_payload(request.payload)
        self._cache[request.seat] = (request, parsed)
        return parsed

    def _relative(self, players: np.ndarray[Any, Any], me: int) -> np.ndarray[Any, Any]:
        """Player ids as seen from `me` (k = (p - me) mod n); -1 (none) stays -1."""
        return np.where(players >= 0, (players - me) % self.n, -1)

    def observe(self, seat: int, requests: Sequence[Request]) -> dict[str, Any]:
        if not requests:
            return self._zeros()
        return self.encode(self._parsed(requests[0]), requests[0].payload)

    def _zeros(self) -> dict[str, Any]:
        return {
            "board": np.zeros((self.planes, self.H, self.W), dtype=np.uint8),
            "units": np.zeros((self.slots, UNIT_FIELDS), dtype=np.float32),
            "scalars": np.zeros(self.n + 2, dtype=np.float32),
        }

    def encode(self, parsed: _Parsed, payload: dict[str, Any]) -> dict[str, Any]:
        """The observation (module docstring) of one parsed turn payload."""
        n, me = self.n, parsed.me
        board = np.zeros((self.planes, self.H, self.W), dtype=np.uint8)
        players = np.arange(n)[:, None, None]
        board[0:n] = self._relative(parsed.painter, me)[None] == players
        board[n : 2 * n] = self._relative(parsed.drawer, me)[None] == players
        ux, uy = parsed.unit_x, parsed.unit_y
        board[2 * n + self._relative(parsed.unit_player, me), ux, uy] = 1
        board[3 * n + self._relative(parsed.bubble_player, me), parsed.bubble_x, parsed.bubble_y] = 1
        board[4 * n, ux, uy] = np.minimum(parsed.unit_energy, 255)
        board[4 * n + 1, ux, uy] = parsed.unit_upgraded
        board[4 * n + 2] = np.clip(parsed.ability, 0, 255)
        board[4 * n + 3, parsed.bubble_x, parsed.bubble_y] = np.minimum(parsed.bubble_rtp, 255)
        board[4 * n + 4, parsed.bonus_x, parsed.bonus_y] = 1
        mine = parsed.mine[: self.slots]
        board[4 * n + 5, ux[mine], uy[mine]] = np.arange(1, len(mine) + 1)
        units = np.zeros((self.slots, UNIT_FIELDS), dtype=np.float32)
        units[: len(mine)] = np.stack(
            [
                np.ones(len(mine)),
                ux[mine],
                uy[mine],
                np.minimum(parsed.unit_energy[mine], self.config.max_energy),
                parsed.unit_upgraded[mine],
            ],
            axis=1,
        )
        scalars = np.zeros(n + 2, dtype=np.float32)
        scalars[0] = payload["round"]
        scalars[1] = self._rounds
        scalars[2:] = np.roll(np.asarray(payload["points"], dtype=np.float64), -me)
        return {"board": board, "units": units, "scalars": scalars}

    # -- action ----------------------------------------------------------------------------------
    def act(self, seat: int, requests: Sequence[Request], action: Any) -> list[Any]:
        parsed = self._parsed(requests[0])
        units = parsed.unit_id[parsed.mine].tolist()
        choices = np.asarray(action, dtype=np.int64).reshape(-1)
        orders = []
        for unit, choice in zip(units, choices.tolist(), strict=False):
            order = choice_order(int(unit), int(choice))
            if order is not None:
                orders.append(order)
        return [{"orders": orders}]

    def action_mask(self, seat: int, requests: Sequence[Request]) -> Int8Array:
        mask = np.zeros((self.slots, CHOICES), dtype=np.int8)
        mask[:, NO_ORDER] = 1
        if requests:
            parsed = self._parsed(requests[0])
            mine = parsed.mine[: self.slots]
            mask[: len(mine), MOVE:ATTACK] = self._moves(parsed, mine)
            mask[: len(mine), ATTACK:ABILITY] = self._attacks(parsed, mine)
            mask[: len(mine), ABILITY] = parsed.unit_upgraded[mine] != 0
        return mask.reshape(-1)

    def _targets(
        self, parsed: _Parsed, mine: np.ndarray[Any, Any]
    ) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        """Each slot's 8 target squares (x, y clipped onto the board) and whether they are on it."""
        x = parsed.unit_x[mine][:, None] + _DX[None]
        y = parsed.unit_y[mine][:, None] + _DY[None]
        on_board = (x >= 0) & (x < self.H) & (y >= 0) & (y < self.W)
        return np.clip(x, 0, self.H - 1), np.clip(y, 0, self.W - 1), on_board

    def _occupants(self, parsed: _Parsed) -> np.ndarray[Any, Any]:
        """(H, W): the owner of the unit on each square, -1 where none."""
        grid = np.full((self.H, self.W), -1, dtype=np.int64)
        grid[parsed.unit_x, parsed.unit_y] = parsed.unit_player
        return grid

    def _moves(self, parsed: _Parsed, mine: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """(slots, 8): DR-12's checks in order and DR-13's own-unit refusal, on the payload's state."""
        me, painter, flag = parsed.me, parsed.painter, parsed.ability > 0
        ax, ay = parsed.unit_x[mine][:, None], parsed.unit_y[mine][:, None]
        x, y, legal = self._targets(parsed, mine)
        own_a = painter[ax, ay] == me
        enemy_a = (painter[ax, ay] >= 0) & ~own_a
        legal &= ~(_DIAGONAL[None] & ~own_a)  # DR-12.1
        enemy_d = (painter[x, y] >= 0) & (painter[x, y] != me)
        legal &= ~(flag[ax, ay] & enemy_a & ~flag[x, y])  # DR-12.4 trapped
        legal &= ~((~flag[ax, ay] | own_a) & flag[x, y] & enemy_d)  # DR-12.5 shut out
        legal &= self._occupants(parsed)[x, y] != me  # DR-13: a unit of p
        return legal

    def _attacks(self, parsed: _Parsed, mine: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """(slots, 8): attacks on an enemy unit or a bubble on the board (DR-15)."""
        x, y, legal = self._targets(parsed, mine)
        occupant = self._occupants(parsed)[x, y]
        bubble = np.zeros((self.H, self.W), dtype=bool)
        bubble[parsed.bubble_x, parsed.bubble_y] = True
        enemy = (occupant >= 0) & (occupant != parsed.me)
        legal &= enemy | bubble[x, y]
        return legal

    # -- rewards ---------------------------------------------------------------------------------
    def step_rewards(self, step: Step) -> list[float]:
        """The round's points gain of each player against the others' mean, scaled (module table)."""
        points = [int(p) for p in step.record["points"]]
        before = [0] * self.n if step.record["round"] == 0 else self._points_after
        self._points_after = points
        gains = np.asarray(points, dtype=np.float64) - np.asarray(before, dtype=np.float64)
        others = (gains.sum() - gains) / max(1, self.n - 1)
        return [float(r) for r in (gains - others) / self.scale]
