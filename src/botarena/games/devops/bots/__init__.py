"""Starter bots for the Devops Game (spec section 10), as `FactionLogic` classes, and the adapter that
makes any `FactionLogic` an in-process platform bot (spec 7.3)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from botarena.games.devops.bots.basic import Banker, Idle, RandomLogic, Starter
from botarena.games.devops.bots.expander import Expander
from botarena.games.devops.bots.logic import FactionBot, FactionLogic


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
STARTERS: dict[str, Callable[[], Any]] = {name: _adapted(cls) for name, cls in LOGICS.items()}
RandomBot = STARTERS["random"]

__all__ = ["LOGICS", "STARTERS", "FactionBot", "FactionLogic", "RandomBot"]
