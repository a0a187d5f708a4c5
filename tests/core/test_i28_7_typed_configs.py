"""Issue 28 item 7: `Engine[ConfigT]` and `GameInfo[ConfigT]` carry each game's config type through the
seam. mypy (strict, over src/) proves the static side; this checks the declarations it relies on."""

from __future__ import annotations

import importlib
import typing
from typing import Any

import pytest

from botarena.core.game import Engine, GameInfo
from botarena.core.registry import all_games
from botarena.testing.play import checks_config

GAMES = {game.id: game for game in all_games()}


def engine_base(engine_class: type[Any]) -> Any:
    """The `Engine[...]` among the bases `engine_class` (or a class above it) was declared with."""
    for cls in engine_class.__mro__:
        for base in getattr(cls, "__orig_bases__", ()):
            if typing.get_origin(base) is Engine:
                return base
    raise AssertionError(f"{engine_class.__name__} does not subclass Engine[SomeConfig]")


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_i28_7_every_engine_declares_its_games_config_type(game_id: str) -> None:
    game = GAMES[game_id]
    engine = game.new_engine(checks_config(game), 7, game.min_players)
    assert typing.get_args(engine_base(type(engine))) == (game.config_class,)
    assert isinstance(engine.config, game.config_class)
    assert isinstance(game.config(), game.config_class)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_i28_7_every_builtin_games_registration_is_typed_by_its_config(game_id: str) -> None:
    module_name = f"botarena.games.{game_id}"
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        pytest.skip(f"{game_id} is not a built-in game package")
    hints = typing.get_type_hints(module, include_extras=False)
    assert hints["GAME"] == GameInfo[GAMES[game_id].config_class]  # type: ignore[misc]
