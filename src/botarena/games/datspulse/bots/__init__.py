"""The DatsPulse starter bots of spec §10, as in-process bots (`setup`, `act`, `end`; §7.5).

- `random.py`: `RandomWalker` (§10.1), the random bot the conformance suite and fuzzing use;
- `forager.py`: `Forager`, and `raider.py`: `Raider` (§10.2, §10.3);
- `common.py`: what the starters share (unit parameters, map memory, path search, `SeededBot`).

Each also plays over HTTP through `botarena.clients.datspulse`, which feeds it the arena of each turn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from botarena.games.datspulse.bots.common import SeededBot
from botarena.games.datspulse.bots.forager import Forager
from botarena.games.datspulse.bots.raider import Raider
from botarena.games.datspulse.bots.random import RandomWalker

STARTERS: dict[str, Callable[[], Any]] = {
    "random_walker": RandomWalker,
    "forager": Forager,
    "raider": Raider,
}

__all__ = ["STARTERS", "Forager", "Raider", "RandomWalker", "SeededBot"]
