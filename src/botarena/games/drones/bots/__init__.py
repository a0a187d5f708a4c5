"""GameOfDrones' bots: `STARTERS` (spec section 10) and the random legal bot.

- `examples.py`: the four 2018 example strategies (Randomonium, Zergy, Hard Hitting Pacifist,
  Adaptive Defender), one family with a shared base, each the twin of a kits/drones-js bot;
- `tactician.py`: Tactician, the stronger starter;
- `mulberry.py`: the JavaScript adapter's seeded `Math.random`, which the Python twins draw from;
- `random.py`: `RandomLegal`, the registry's `random_bot` (conformance and fuzzing).

Test-only bots (Idle, Greedy, Kamikaze, ...) live in tests/games/drones/drones_testbots.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from botarena.games.drones.bots.examples import AdaptiveDefender, Pacifist, Randomonium, Zergy
from botarena.games.drones.bots.tactician import Tactician

STARTERS: dict[str, Callable[[], Any]] = {
    "randomonium": Randomonium,
    "zergy": Zergy,
    "pacifist": Pacifist,
    "adaptive": AdaptiveDefender,
    "tactician": Tactician,
}
