"""The starter bots of Nim (and the random legal bot, `bots.random`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from botarena_nim.bots.first import First
from botarena_nim.bots.random import RandomBot
from botarena_nim.bots.xor import Xor

STARTERS: dict[str, Callable[[], Any]] = {
    "xor": Xor,
    "first": First,
    "random": RandomBot,
}

__all__ = ["STARTERS", "First", "RandomBot", "Xor"]
