"""`demo`, the original PlayerDemo (spec section 10): random orthogonal steps on even rounds."""

from __future__ import annotations

from botarena.games.domains.api import Direction, Player

_STEP = {1: Direction.up, 2: Direction.down, 3: Direction.left, 4: Direction.right}


class Demo(Player):
    """On even rounds every own unit, in ascending id, moves where randomNumber(1, 4) says."""

    def play(self) -> None:
        if self.round() % 2:
            return
        for uid in self.units(self.me()):
            self.move(uid, _STEP[self.randomNumber(1, 4)])
