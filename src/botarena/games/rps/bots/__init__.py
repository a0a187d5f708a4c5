"""The starter bots of rock-paper-scissors (and the random legal bot, `bots.random`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from botarena.games.rps.bots.copycat import Copycat
from botarena.games.rps.bots.cycler import Cycler
from botarena.games.rps.bots.random import RandomBot
from botarena.games.rps.bots.rock import Rock

STARTERS: dict[str, Callable[[], Any]] = {
    "rock": Rock,
    "cycler": Cycler,
    "copycat": Copycat,
    "random": RandomBot,
}

__all__ = ["STARTERS", "Copycat", "Cycler", "RandomBot", "Rock"]
