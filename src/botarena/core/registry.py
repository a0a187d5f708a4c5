"""The game registry: every game the platform can play, found by one mechanism.

A game is declared by an entry point of the `botarena.games` group (`id = "package.module:GAME"`, or
`id = "package.module"` for a module that defines `GAME`), which is how a game in its own pip package
registers with no edit to botarena; or it registers itself at run time with `register_game(info)`.
The built-in games are declared in botarena's pyproject.toml the same way, and again in
`BUILTIN_GAMES` below, so a source tree run with `PYTHONPATH=src` (no installation metadata) finds
them too.

Game packages are imported on first use (`get_game`), so `game_ids()` and the CLI start fast: an entry
point names its game without loading it.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from types import ModuleType
from typing import Any, Generic, TypeVar

from botarena.core.game import GameInfo

ENTRY_POINT_GROUP = "botarena.games"

BUILTIN_GAMES: Mapping[str, str] = {
    "craftingquest": "botarena.games.craftingquest:GAME",
    "datspulse": "botarena.games.datspulse:GAME",
    "devops": "botarena.games.devops:GAME",
    "domains": "botarena.games.domains:GAME",
    "drones": "botarena.games.drones:GAME",
    "rps": "botarena.games.rps:GAME",
}
"""The games botarena ships, as its pyproject.toml declares them (a test keeps the two equal): the
fallback for a source tree that has no installation metadata."""


def load_target(target: str) -> Any:
    """The object a `"package.module:attr.path"` target names (the module itself for `"package.module"`),
    imported now: how entry points and a GameInfo's hooks name what lives elsewhere."""
    module_name, _, attr = target.partition(":")
    loaded: Any = importlib.import_module(module_name)
    for part in attr.split(".") if attr else ():
        loaded = getattr(loaded, part)
    return loaded


HookT = TypeVar("HookT")


class LayerHook(Generic[HookT]):
    """A hook that a layer above games finds for a game: registered with the layer (`register`),
    else the `"package.module:attr"` target the game names on its GameInfo (`declared`), imported on
    first use. The layer holds one per hook; no table of game ids is written anywhere."""

    def __init__(self, declared: Callable[[GameInfo[Any]], str | None]) -> None:
        self._declared = declared
        self._registered: dict[str, HookT] = {}

    def register(self, game_id: str, hook: HookT) -> None:
        """Give game `game_id` this hook from outside the game (it wins over a declared one)."""
        self._registered[game_id] = hook

    def unregister(self, game_id: str) -> None:
        self._registered.pop(game_id, None)

    def of(self, game: GameInfo[Any]) -> HookT | None:
        """The game's hook: registered, else declared, else None."""
        registered = self._registered.get(game.id)
        if registered is not None:
            return registered
        target = self._declared(game)
        if target is None:
            return None
        hook: HookT = load_target(target)
        return hook


class UnknownGameError(LookupError):
    """No game of that id is registered."""


class GameRegistrationError(RuntimeError):
    """A game's declaration is broken (its entry point does not load, or loads no GameInfo of that
    id) or clashes with another game's: the message names the entry point and its distribution."""


class BrokenGameWarning(UserWarning):
    """A declared game that cannot be loaded was left out of a listing (`all_games`)."""


@dataclass(frozen=True)
class GameSource:
    """Where a game's GameInfo comes from, before it is loaded: `target` is `module:attr` or `module`."""

    game_id: str
    target: str
    origin: str
    """Who declares it: `botarena (built in)` or `entry point NAME of DIST VERSION`."""

    def load(self) -> GameInfo[Any]:
        """Import the target and return its GameInfo (raises GameRegistrationError naming the source)."""
        try:
            loaded = load_target(self.target)
        except Exception as error:  # a third party's import may raise anything: name it, never crash
            raise GameRegistrationError(
                f"game {self.game_id!r} ({self.origin}, {self.target!r}) failed to load: "
                f"{type(error).__name__}: {error}"
            ) from error
        if isinstance(loaded, ModuleType):
            loaded = getattr(loaded, "GAME", None)
        if not isinstance(loaded, GameInfo):
            raise GameRegistrationError(
                f"game {self.game_id!r} ({self.origin}, {self.target!r}) is not a GameInfo "
                f"(nor a module with GAME = GameInfo(...)): got {type(loaded).__name__}"
            )
        if loaded.id != self.game_id:
            raise GameRegistrationError(
                f"game {self.game_id!r} ({self.origin}, {self.target!r}) loads a GameInfo whose id "
                f"is {loaded.id!r}: the entry point's name must be the game's id"
            )
        return loaded


_loaded: dict[str, GameInfo[Any]] = {}
"""Games loaded or registered so far, by id (tests may `monkeypatch.setitem` a game of their own)."""
_registered: dict[str, GameInfo[Any]] = {}
"""Games registered at run time by `register_game` (listed by `game_ids`, unlike a test's `_loaded`)."""
_sources: dict[str, GameSource] | None = None
_clashes: dict[str, str] = {}
"""Ids declared twice with different targets: the message `get_game` raises for them."""


def _origin(point: object) -> str:
    dist = getattr(point, "dist", None)
    name = getattr(point, "name", "?")
    if dist is None:
        return f"entry point {name!r}"
    return f"entry point {name!r} of {dist.metadata['Name']} {dist.version}"


def _discover() -> dict[str, GameSource]:
    """The built-in games, then every `botarena.games` entry point (names only: nothing is imported)."""
    global _sources
    if _sources is not None:
        return _sources
    found = {gid: GameSource(gid, target, "botarena (built in)") for gid, target in BUILTIN_GAMES.items()}
    for point in entry_points(group=ENTRY_POINT_GROUP):
        source = GameSource(point.name, point.value, _origin(point))
        known = found.get(point.name)
        if known is None:
            found[point.name] = source
        elif known.target != source.target:  # an installed botarena names its own games again: fine
            _clashes[point.name] = (
                f"game {point.name!r} is declared twice: by {known.origin} ({known.target!r}) "
                f"and by {source.origin} ({source.target!r})"
            )
    _sources = found
    return found


def refresh() -> None:
    """Scan the entry points again, for a caller that changed `sys.path` after the first look-up
    (a test adding or removing a package): a loaded game whose declaration is gone is forgotten,
    a game registered by `register_game` stays."""
    global _sources
    _sources = None
    _clashes.clear()
    declared = _discover()
    for game_id in [gid for gid in _loaded if gid not in declared and gid not in _registered]:
        del _loaded[game_id]


def register_game(info: GameInfo[Any]) -> None:
    """Register `info` under `info.id`. Registering the same object again does nothing; another
    GameInfo of an id already registered or declared raises GameRegistrationError."""
    if not isinstance(info, GameInfo):
        raise TypeError(f"register_game takes a GameInfo, got {type(info).__name__}")
    known = _registered.get(info.id) or _loaded.get(info.id)
    if known is None and info.id in _discover():
        known = get_game(info.id)  # declared by an entry point: the same object is no clash
    if known is not None and known is not info:
        raise GameRegistrationError(f"game {info.id!r} is already registered by another GameInfo")
    _registered[info.id] = info
    _loaded[info.id] = info


def game_ids() -> list[str]:
    """Registered game ids, sorted (without importing any game package)."""
    return sorted(set(_discover()) | set(_registered))


def get_game(game_id: str) -> GameInfo[Any]:
    """The GameInfo of `game_id` (raises UnknownGameError with the known ids, GameRegistrationError
    when its declaration is broken)."""
    info = _loaded.get(game_id)
    if info is not None:
        return info
    sources = _discover()
    if game_id in _clashes:
        raise GameRegistrationError(_clashes[game_id])
    source = sources.get(game_id)
    if source is None:
        raise UnknownGameError(f"unknown game {game_id!r} (known: {', '.join(game_ids())})")
    info = source.load()
    _loaded[game_id] = info
    return info


def all_games() -> list[GameInfo[Any]]:
    """Every registered game that loads; a broken one is left out with a BrokenGameWarning that
    names it, so one bad third-party package never takes the listing (`botarena games`) down."""
    games = []
    for game_id in game_ids():
        try:
            games.append(get_game(game_id))
        except GameRegistrationError as error:
            warnings.warn(str(error), BrokenGameWarning, stacklevel=2)
    return games
