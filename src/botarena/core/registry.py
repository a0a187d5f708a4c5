"""The game registry. Game packages are imported on first use, so the CLI starts fast."""

from __future__ import annotations

import importlib
from typing import Any

from botarena.core.game import GameInfo

# id -> module that defines `GAME: GameInfo`. Later games add a line here.
_GAME_MODULES: dict[str, str] = {
    "craftingquest": "botarena.games.craftingquest",
    "datspulse": "botarena.games.datspulse",
    "devops": "botarena.games.devops",
    "domains": "botarena.games.domains",
    "drones": "botarena.games.drones",
    "rps": "botarena.games.rps",
}
_loaded: dict[str, GameInfo[Any]] = {}


class UnknownGameError(LookupError):
    """No game of that id is registered."""


def game_ids() -> list[str]:
    """Registered game ids, sorted."""
    return sorted(_GAME_MODULES)


def get_game(game_id: str) -> GameInfo[Any]:
    """The GameInfo of `game_id` (raises UnknownGameError with the known ids)."""
    info = _loaded.get(game_id)
    if info is not None:
        return info
    module_name = _GAME_MODULES.get(game_id)
    if module_name is None:
        raise UnknownGameError(f"unknown game {game_id!r} (known: {', '.join(game_ids())})")
    info = importlib.import_module(module_name).GAME
    assert isinstance(info, GameInfo)
    _loaded[game_id] = info
    return info


def all_games() -> list[GameInfo[Any]]:
    """Every registered game."""
    return [get_game(game_id) for game_id in game_ids()]
