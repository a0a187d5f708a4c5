"""Domains state (spec 3.1): the board as flat numpy arrays, and the unit, bubble and bonus tables.

A square is addressed by its row-major index `x * W + y` (spec section 0). Per-square arrays hold
-1 for "none"; the ability array holds the countdown (0 = flag off).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np

from botarena.games.domains.config import DomainsConfig

NONE = -1


class Direction(IntEnum):
    """The nine directions; their numbers are part of every format (spec section 0)."""

    null = 0
    up = 1
    down = 2
    left = 3
    right = 4
    UL = 5
    UR = 6
    DL = 7
    DR = 8


DELTAS: tuple[tuple[int, int], ...] = (
    (0, 0),
    (-1, 0),
    (1, 0),
    (0, -1),
    (0, 1),
    (-1, -1),
    (-1, 1),
    (1, -1),
    (1, 1),
)
"""(dx, dy) of each Direction, indexed by its number."""


def is_diagonal(direction: int) -> bool:
    """Directions 5-8."""
    return direction >= 5


def direction_between(ax: int, ay: int, bx: int, by: int) -> int:
    """dir(a -> b): the direction of the signs of the differences (null when a == b)."""
    dx = (bx > ax) - (bx < ax)
    dy = (by > ay) - (by < ay)
    return DELTAS.index((dx, dy))


class OrderKind(IntEnum):
    """What an order asks (spec section 5)."""

    move = 0
    attack = 1
    ability = 2


@dataclass(frozen=True, slots=True)
class Order:
    """One parsed order: unit id, kind and direction (null for abilities)."""

    unit: int
    kind: OrderKind
    dir: int = 0


@dataclass(slots=True)
class State:
    """The whole game state of spec 3.1 (plus the round-start snapshot of DR-9)."""

    config: DomainsConfig
    n: int
    H: int
    W: int
    painter: np.ndarray
    drawer: np.ndarray
    drawer_unit: np.ndarray
    ability: np.ndarray
    unit_at: np.ndarray
    bubble_at: np.ndarray
    bonus_at: np.ndarray
    unit_owner: list[int]
    unit_pos: list[int]
    unit_upgraded: list[bool]
    unit_energy: list[int]
    unit_record: list[tuple[int, int] | None]
    bubble_colour: list[int]
    bubble_pos: list[int]
    bubble_rtp: list[int]
    bubble_moves: list[int]
    bonus_pos: list[int]
    bonus_counter: list[int]
    points: list[int]
    respawn_counter: list[int]
    bubble_counter: list[int]
    owned: list[np.ndarray] = field(default_factory=list)
    round: int = 0

    @classmethod
    def empty(cls, config: DomainsConfig) -> State:
        """DR-5: every table empty, nothing painted, all counters 0."""
        n, H, W = config.num_players, config.board_height, config.board_width
        size = H * W
        U, B, K = config.unit_table_size, config.bubble_table_size, config.bonus_table_size
        return cls(
            config=config,
            n=n,
            H=H,
            W=W,
            painter=np.full(size, NONE, dtype=np.int8),
            drawer=np.full(size, NONE, dtype=np.int8),
            drawer_unit=np.full(size, NONE, dtype=np.int16),
            ability=np.zeros(size, dtype=np.int16),
            unit_at=np.full(size, NONE, dtype=np.int16),
            bubble_at=np.full(size, NONE, dtype=np.int16),
            bonus_at=np.full(size, NONE, dtype=np.int16),
            unit_owner=[NONE] * U,
            unit_pos=[NONE] * U,
            unit_upgraded=[False] * U,
            unit_energy=[0] * U,
            unit_record=[None] * U,
            bubble_colour=[NONE] * B,
            bubble_pos=[NONE] * B,
            bubble_rtp=[0] * B,
            bubble_moves=[0] * B,
            bonus_pos=[NONE] * K,
            bonus_counter=[0] * K,
            points=[0] * n,
            respawn_counter=[0] * n,
            bubble_counter=[0] * n,
            owned=[np.zeros(0, dtype=np.intp) for _ in range(n)],
        )

    # -- small helpers ---------------------------------------------------------------------------------
    def index(self, x: int, y: int) -> int:
        return x * self.W + y

    def xy(self, index: int) -> tuple[int, int]:
        return divmod(index, self.W)

    def step(self, index: int, direction: int) -> int:
        """The index of `index + direction`, or -1 off the board."""
        dx, dy = DELTAS[direction]
        x, y = divmod(index, self.W)
        x += dx
        y += dy
        if 0 <= x < self.H and 0 <= y < self.W:
            return x * self.W + y
        return NONE

    def is_empty(self, index: int) -> bool:
        """No unit, bubble or bonus on the square (paint, trails and flags do not count)."""
        return bool(self.unit_at[index] < 0 and self.bubble_at[index] < 0 and self.bonus_at[index] < 0)

    def empty_mask(self) -> np.ndarray:
        return (self.unit_at < 0) & (self.bubble_at < 0) & (self.bonus_at < 0)

    def living_units(self, player: int | None = None) -> list[int]:
        """Ids of owned units (of `player`, or of anyone), ascending."""
        owners = self.unit_owner
        if player is None:
            return [u for u, o in enumerate(owners) if o >= 0]
        return [u for u, o in enumerate(owners) if o == player]

    def upgraded_count(self, player: int) -> int:
        return sum(1 for u, o in enumerate(self.unit_owner) if o == player and self.unit_upgraded[u])
