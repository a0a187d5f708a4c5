"""Boards as Python integers: bit `x * W + y` is square (x, y) (its row-major index, spec section 0).

Shifting a whole board by a direction, and-ing two boards or comparing them costs a fraction of a
microsecond on a 50x50 board, far less than a numpy call, so floods and breadth-first searches that
run a few dozen layers (the enclosure of DR-19, the starter bots' searches of spec section 10) are
fast without a compiled extension. The results are the same sets the square-by-square definitions
give: these are just another representation.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np


def from_mask(mask: np.ndarray) -> int:
    """The board of a boolean array of H*W squares in row-major order."""
    return int.from_bytes(np.packbits(mask.ravel(), bitorder="little").tobytes(), "little")


def indices(board: int) -> list[int]:
    """The squares of a board, ascending (row-major order)."""
    found: list[int] = []
    append = found.append
    while board:
        low = board & -board
        append(low.bit_length() - 1)
        board ^= low
    return found


def iter_indices(board: int) -> Iterator[int]:
    """The squares of a board, ascending, lazily."""
    while board:
        low = board & -board
        yield low.bit_length() - 1
        board ^= low


class Geometry:
    """The masks and shifts of one board size."""

    __slots__ = ("H", "W", "_columns", "_rows", "full", "not_left", "not_right")

    def __init__(self, H: int, W: int) -> None:
        self.H, self.W = H, W
        row = (1 << W) - 1
        self.full = (1 << (H * W)) - 1
        left = sum(1 << (x * W) for x in range(H))
        right = left << (W - 1)
        self.not_left = self.full & ~left
        self.not_right = self.full & ~right
        self._rows = row
        self._columns = [left * ((1 << (y + 1)) - 1) for y in range(W)]  # columns 0..y

    def grow4(self, board: int) -> int:
        """The board and its orthogonal neighbours."""
        W = self.W
        return (
            board
            | (board >> W)
            | ((board << W) & self.full)
            | ((board & self.not_left) >> 1)
            | ((board & self.not_right) << 1)
        )

    def flood4(self, seed: int, within: int) -> int:
        """The squares of `within` 4-connected to `seed` (seed squares outside `within` excluded)."""
        W, full, nl, nr = self.W, self.full, self.not_left, self.not_right
        region = seed & within
        frontier = region
        while frontier:
            grown = (
                (frontier >> W) | ((frontier << W) & full) | ((frontier & nl) >> 1) | ((frontier & nr) << 1)
            ) & within
            frontier = grown & ~region
            region |= frontier
        return region

    def flood4_inner(self, seed: int, within: int, edge: int) -> int:
        """Like `flood4`, but gives up as soon as the region reaches a square of `edge`: then the result
        is minus the squares flooded so far (all of them in the region)."""
        W, full, nl, nr = self.W, self.full, self.not_left, self.not_right
        region = seed & within
        if region & edge:
            return -region
        frontier = region
        while frontier:
            grown = (
                (frontier >> W) | ((frontier << W) & full) | ((frontier & nl) >> 1) | ((frontier & nr) << 1)
            ) & within
            frontier = grown & ~region
            region |= frontier
            if frontier & edge:
                return -region
        return region

    def columns_upto(self, y: int) -> int:
        """The squares of columns 0..y."""
        return self._columns[y] if y >= 0 else 0

    def columns_from(self, y: int) -> int:
        """The squares of columns y..W-1."""
        return self.full & ~self.columns_upto(y - 1)

    def bounds(self, board: int) -> tuple[int, int, int, int]:
        """(x0, x1, y0, y1): the bounding rectangle of a non-empty board."""
        W = self.W
        x0 = ((board & -board).bit_length() - 1) // W
        x1 = (board.bit_length() - 1) // W
        fold = board >> (x0 * W)
        span = x1 - x0 + 1
        step = 1
        while step < span:  # fold rows onto the first: log2(rows) shifts
            fold |= fold >> (step * W)
            step *= 2
        columns = fold & self._rows
        return x0, x1, (columns & -columns).bit_length() - 1, columns.bit_length() - 1

    def rectangle(self, x0: int, x1: int, y0: int, y1: int) -> int:
        """The squares of rows x0..x1 and columns y0..y1 (clipped to the board; empty if a range is)."""
        x0, x1, y0, y1 = max(x0, 0), min(x1, self.H - 1), max(y0, 0), min(y1, self.W - 1)
        if x0 > x1 or y0 > y1:
            return 0
        W = self.W
        rows = ((1 << ((x1 - x0 + 1) * W)) - 1) << (x0 * W)
        return rows & self._columns[y1] & ~(self._columns[y0 - 1] if y0 else 0)
