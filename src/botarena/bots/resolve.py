"""Turn a command-line bot spec into a Bot: a starter bot's name, a Python file, a JavaScript file
(for games with a JS adapter), an http(s) URL, or a command line.

    zergy                   a starter bot of the game, in-process
    path/to/bot.py          a Python file, in-process: `create_bot()`, a `Bot` class, or an `act` function
    path/to/bot.js          a 2018-style JavaScript bot through the game's Node adapter (drones)
    http://127.0.0.1:8080   an HTTP bot (the generic binding)
    "python3 my_bot.py"     any command line speaking the generic JSON-lines protocol
    cmd:./my_bot            the same, explicitly
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

from botarena.bots.base import Bot
from botarena.bots.inprocess import PythonBot
from botarena.core.game import GameInfo


class BotSpecError(ValueError):
    """A bot spec that names nothing playable; the message says what was tried."""


def _load_module(path: Path) -> ModuleType:
    name = f"botarena_user_bot_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise BotSpecError(f"cannot load Python bot {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # a bot file's own error: report it in one line
        raise BotSpecError(f"cannot load Python bot {path}: {type(exc).__name__}: {exc}") from None
    return module


def python_file_factory(path: Path) -> Callable[[], Any]:
    """The bot factory a Python file defines: `create_bot()`, a `Bot` class, or module-level `act`."""
    module = _load_module(path)
    for attr in ("create_bot", "Bot"):
        factory = getattr(module, attr, None)
        if callable(factory):
            return factory  # type: ignore[no-any-return]
    if callable(getattr(module, "act", None)):
        hooks = {
            hook: getattr(module, hook)
            for hook in ("setup", "act", "end")
            if callable(getattr(module, hook, None))
        }
        return lambda: SimpleNamespace(**hooks)
    raise BotSpecError(f"{path} defines no create_bot(), Bot class or act() function")


def resolve_bot(spec: str, game: GameInfo) -> Bot:
    """The Bot a spec names for `game` (raises BotSpecError with a one-line reason)."""
    if spec in game.starter_bots:
        return PythonBot(game.starter_bots[spec], name=spec)
    if spec.startswith(("http://", "https://")):
        native = game.extras.get("url_bot")
        if native is not None:  # "module:Class": the game's own HTTP contract (devops spec 7.1)
            module_name, _, attr = str(native).partition(":")
            return getattr(importlib.import_module(module_name), attr)(spec)  # type: ignore[no-any-return]
        from botarena.bots.http import HttpBot

        return HttpBot(spec)
    if spec.startswith("cmd:"):
        return _command_bot(spec[4:])
    path = Path(spec)
    if path.is_file():
        suffix = path.suffix.lower()
        if suffix == ".py":
            return PythonBot(python_file_factory(path), name=path.stem)
        if suffix in (".js", ".mjs"):
            kit = game.extras.get("js_kit")
            if kit is None:
                raise BotSpecError(f"{game.id} has no JavaScript adapter; run {spec} as a command instead")
            from botarena.bots.node import node_bot

            return node_bot(path, kit=kit)
        if os.access(path, os.X_OK):
            return _command_bot(shlex.quote(str(path)))
        raise BotSpecError(f"{spec} is not a .py or .js bot and not executable")
    if any(ch.isspace() for ch in spec):
        return _command_bot(spec)
    starters = ", ".join(sorted(game.starter_bots))
    raise BotSpecError(
        f"unknown bot {spec!r}: not a starter bot of {game.id} ({starters}), a file, a URL or a command line"
    )


def _command_bot(command: str) -> Bot:
    from botarena.bots.subprocess import SubprocessBot

    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise BotSpecError(f"cannot parse command {command!r}: {exc}") from None
    if not argv:
        raise BotSpecError("empty command line")
    return SubprocessBot(argv, name=Path(argv[-1] if len(argv) > 1 else argv[0]).name)
