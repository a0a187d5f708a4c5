"""Starter bots for the Devops Game (spec section 10), as `FactionLogic` classes, one per module, and
the adapter (`logic.FactionBot`) that makes any `FactionLogic` an in-process platform bot (spec 7.3).

`LOGICS` names the logic classes (the starter service serves any of them); `STARTERS` names the
in-process bots; `RandomBot` (random.py) is the random legal bot.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from botarena.games.devops.bots.banker import Banker
from botarena.games.devops.bots.expander import Expander
from botarena.games.devops.bots.idle import Idle
from botarena.games.devops.bots.logic import FactionBot, FactionLogic
from botarena.games.devops.bots.random import RandomBot, RandomLogic
from botarena.games.devops.bots.starter import Starter


def _adapted(logic_class: type[Any]) -> Callable[[], FactionBot]:
    def factory() -> FactionBot:
        return FactionBot(logic_class())

    factory.__name__ = logic_class.__name__.lower()
    return factory


LOGICS: dict[str, type[Any]] = {
    "idle": Idle,
    "banker": Banker,
    "random": RandomLogic,
    "starter": Starter,
    "expander": Expander,
}
STARTERS: dict[str, Callable[[], Any]] = {
    name: RandomBot if cls is RandomLogic else _adapted(cls) for name, cls in LOGICS.items()
}

__all__ = ["LOGICS", "STARTERS", "FactionBot", "FactionLogic", "RandomBot"]
