"""An example Domains bot on the Python player API (spec 7.2), written in the original's style.

Every unit leaves its paint orthogonally, walks three squares out, one across, and comes home,
closing a small rectangle; upgraded units use their ability at once.

    botarena play domains examples/domains/explorer.py dummy --seed 3
    python -m botarena.kit examples/domains/explorer.py      # the same bot as a subprocess
"""

from __future__ import annotations

from botarena.games.domains.api import Direction, Player, Position, utils


class Explorer(Player):
    def __init__(self) -> None:
        super().__init__()
        self.plans: dict[int, list[Direction]] = {}  # persists between rounds

    def play(self) -> None:
        for uid in self.units(self.me()):
            unit = self.unit(uid)
            if unit.upgraded():
                self.ability(uid)
                continue
            here = unit.position()
            plan = self.plans.get(uid)
            if not plan:
                plan = self.plans[uid] = self.new_plan(here)
            step = plan.pop(0)
            target: Position = here + step
            if self.posOk(target) and not self.square(target).hasUnit():
                self.move(uid, step)
            else:
                self.plans.pop(uid, None)

    def new_plan(self, here: Position) -> list[Direction]:
        out = [Direction.up, Direction.down, Direction.left, Direction.right][self.randomNumber(0, 3)]
        side = utils.perpendiculars(out)[self.randomNumber(0, 1)]
        back = utils.invert(out)
        return [out, out, out, side, back, back, back]


create_bot = Explorer
