"""Fixtures for transport tests: zoo bots and scripted fake bots as real subprocesses."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from botarena.bots.subprocess import SubprocessBot

ZOO = Path(__file__).parent / "zoo"

BotMaker = Callable[..., SubprocessBot]


@pytest.fixture
def zoo() -> Iterator[BotMaker]:
    """zoo("never_answers", **options): a SubprocessBot running tests/bots/zoo/<name>.py."""
    made: list[SubprocessBot] = []

    def make(name: str, **options: Any) -> SubprocessBot:
        bot = SubprocessBot([sys.executable, str(ZOO / f"{name}.py")], name=name, cwd=str(ZOO), **options)
        made.append(bot)
        return bot

    yield make
    for bot in made:
        bot.close()  # idempotent: a test that forgot to close leaves no process behind


@pytest.fixture
def scripted() -> Iterator[BotMaker]:
    """scripted(script, start_delay=None, **options): a bot replaying canned lines (zoo/scripted.py)."""
    made: list[SubprocessBot] = []

    def make(script: list[list[Any]], start_delay: float | None = None, **options: Any) -> SubprocessBot:
        argv = [sys.executable, str(ZOO / "scripted.py"), json.dumps(script)]
        if start_delay is not None:
            argv.append(str(start_delay))
        bot = SubprocessBot(argv, name="scripted", **options)
        made.append(bot)
        return bot

    yield make
    for bot in made:
        bot.close()
