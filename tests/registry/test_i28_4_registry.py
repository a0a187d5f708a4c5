"""Issue 28 item 4: games registered by one call, found by the `botarena.games` entry points.

The registry's own behaviour: the built-in fallback is pyproject.toml's entry points, as data;
`game_ids()` imports no game; `register_game` is idempotent and refuses a clash; a broken
third-party entry point is named in a warning (and a one-line error), never a crash of
`botarena games`; the layers above games look a game's hooks up on its GameInfo, and no layer holds
a dict keyed by the built-in games' ids.
"""

from __future__ import annotations

import ast
import dataclasses
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from botarena.cli import main
from botarena.core import registry
from botarena.core.registry import (
    BUILTIN_GAMES,
    BrokenGameWarning,
    GameRegistrationError,
    all_games,
    game_ids,
    get_game,
    register_game,
)

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "botarena"


@pytest.fixture
def clean_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registry's tables as copies (the originals come back after the test, with `sys.path`),
    so what a test registers or discovers is gone after it."""
    monkeypatch.setattr(registry, "_loaded", dict(registry._loaded))
    monkeypatch.setattr(registry, "_registered", dict(registry._registered))
    monkeypatch.setattr(registry, "_clashes", dict(registry._clashes))
    monkeypatch.setattr(registry, "_sources", None)


def fake_distribution(folder: Path, name: str, points: dict[str, str]) -> None:
    """A `<name>-1.0.dist-info` in `folder` declaring `points` in the botarena.games group, as pip
    writes one."""
    info = folder / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n", encoding="utf-8")
    lines = "".join(f"{key} = {value}\n" for key, value in points.items())
    (info / "entry_points.txt").write_text(f"[botarena.games]\n{lines}", encoding="utf-8")


def test_i28_4_the_builtin_fallback_is_pyprojects_entry_points() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    declared = pyproject["project"]["entry-points"]["botarena.games"]
    assert declared == dict(BUILTIN_GAMES)
    assert set(BUILTIN_GAMES) <= set(game_ids())


def test_i28_4_game_ids_imports_no_game_package() -> None:
    code = (
        "import sys\n"
        "from botarena.core.registry import game_ids\n"
        "ids = game_ids()\n"
        "assert {'drones', 'rps'} <= set(ids), ids\n"
        "games = sorted(m for m in sys.modules if m.startswith('botarena.games'))\n"
        "assert games == [], games\n"
        "print(len(ids))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) >= len(BUILTIN_GAMES)


def test_i28_4_register_game_is_idempotent_and_refuses_a_clash(clean_registry: None) -> None:
    rps = get_game("rps")
    twin = dataclasses.replace(rps, id="rps_twin", title="Rock-paper-scissors, again")
    assert "rps_twin" not in game_ids()
    register_game(twin)
    register_game(twin)  # the same object again: nothing happens
    assert "rps_twin" in game_ids() and get_game("rps_twin") is twin
    assert twin in all_games()
    with pytest.raises(GameRegistrationError, match="'rps_twin' is already registered"):
        register_game(dataclasses.replace(twin))
    register_game(rps)  # the declared built-in itself: no clash
    with pytest.raises(GameRegistrationError, match="'rps' is already registered"):
        register_game(dataclasses.replace(rps))
    with pytest.raises(TypeError, match="takes a GameInfo"):
        register_game("rps")  # type: ignore[arg-type]


def test_i28_4_a_broken_entry_point_is_named_never_a_crash(
    clean_registry: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_distribution(
        tmp_path,
        "botarena_broken",
        {
            "missing": "botarena_no_such_module:GAME",
            "misnamed": "botarena.games.rps:GAME",  # a GameInfo whose id is rps
            "notagame": "botarena.core.registry:BUILTIN_GAMES",
        },
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    registry.refresh()
    assert {"missing", "misnamed", "notagame"} <= set(game_ids())
    with pytest.raises(
        GameRegistrationError, match=r"'missing' \(entry point 'missing' of botarena_broken 1\.0"
    ):
        get_game("missing")
    with pytest.raises(GameRegistrationError, match="whose id is 'rps'"):
        get_game("misnamed")
    with pytest.raises(GameRegistrationError, match="is not a GameInfo"):
        get_game("notagame")
    with pytest.warns(BrokenGameWarning) as caught:
        listed = {game.id for game in all_games()}
    named = " ".join(str(warning.message) for warning in caught)
    assert all(f"game {name!r}" in named for name in ("missing", "misnamed", "notagame"))
    assert set(BUILTIN_GAMES) <= listed and not listed & {"missing", "misnamed", "notagame"}

    assert main(["games"]) == 0
    out, err = capsys.readouterr()
    assert "drones" in out and "ModuleNotFoundError" in err
    assert all(f"warning: game {name!r}" in err for name in ("missing", "misnamed", "notagame"))
    assert main(["play", "missing", "a", "b"]) == 2
    err = capsys.readouterr().err
    assert "botarena_broken" in err and "Traceback" not in err


def test_i28_4_one_id_declared_twice_is_a_clear_error(
    clean_registry: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_distribution(tmp_path / "a", "botarena_first", {"twice": "botarena.games.rps:GAME"})
    fake_distribution(tmp_path / "b", "botarena_second", {"twice": "botarena.games.drones:GAME"})
    monkeypatch.syspath_prepend(str(tmp_path / "a"))
    monkeypatch.syspath_prepend(str(tmp_path / "b"))
    registry.refresh()
    with pytest.raises(GameRegistrationError, match="declared twice") as raised:
        get_game("twice")
    assert "botarena_first" in str(raised.value) and "botarena_second" in str(raised.value)


def test_i28_4_the_layers_find_a_games_hooks_on_its_gameinfo(clean_registry: None) -> None:
    from botarena.bots.devops_http import DevopsHttpBot
    from botarena.bots.resolve import url_bot_factory
    from botarena.rl.encoding import encoded_games, encoding_class, register_encoding
    from botarena.rl.games.rps import RpsEncoding
    from botarena.server.devops.codes import live_routes
    from botarena.server.live import live_routes_of

    devops, rps = get_game("devops"), get_game("rps")
    assert url_bot_factory(devops) is DevopsHttpBot and url_bot_factory(rps) is None
    assert live_routes_of(devops) is live_routes and live_routes_of(rps) is None
    assert encoding_class("rps") is RpsEncoding
    assert set(BUILTIN_GAMES) <= set(encoded_games())

    bare = dataclasses.replace(rps, id="rps_bare", rl_encoding=None)
    register_game(bare)
    assert "rps_bare" not in encoded_games()
    with pytest.raises(KeyError, match="no RL encoding for game 'rps_bare'"):
        encoding_class("rps_bare")
    register_encoding("rps_bare", "botarena.rl.games.rps:RpsEncoding")  # the layer's own registration
    try:
        assert encoding_class("rps_bare") is RpsEncoding and "rps_bare" in encoded_games()
    finally:
        from botarena.rl import encoding

        encoding._REGISTERED.pop("rps_bare")


def test_i28_4_a_layer_registers_a_hook_for_a_game_that_declares_none(clean_registry: None) -> None:
    """`register_url_bot` and `register_live_routes` give a game hooks from outside it, and win over
    what a game declares; taken back, the declared one (or none) is found again."""
    from botarena.bots.devops_http import DevopsHttpBot
    from botarena.bots.resolve import URL_BOTS, register_url_bot, url_bot_factory
    from botarena.server.devops.codes import live_routes
    from botarena.server.live import LIVE_ROUTES, live_routes_of, register_live_routes

    bare = dataclasses.replace(get_game("rps"), id="rps_hooked")
    register_game(bare)

    def routes(match: object) -> None:
        return None

    def other_url_bot(url: str) -> DevopsHttpBot:
        return DevopsHttpBot(url)

    register_url_bot(bare.id, DevopsHttpBot)
    register_live_routes(bare.id, routes)
    register_url_bot("devops", other_url_bot)  # registered wins over declared
    try:
        assert url_bot_factory(bare) is DevopsHttpBot and live_routes_of(bare) is routes
        assert url_bot_factory(get_game("devops")) is other_url_bot
    finally:
        for hooks, game_id in ((URL_BOTS, bare.id), (LIVE_ROUTES, bare.id), (URL_BOTS, "devops")):
            hooks.unregister(game_id)
    assert url_bot_factory(bare) is None and live_routes_of(bare) is None
    assert url_bot_factory(get_game("devops")) is DevopsHttpBot
    assert live_routes_of(get_game("devops")) is live_routes


def _dicts_keyed_by_builtin_games(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Dict):
            keys = {key.value for key in node.keys if isinstance(key, ast.Constant)}
            if keys & set(BUILTIN_GAMES):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_i28_4_no_layer_holds_a_dict_keyed_by_the_builtin_games() -> None:
    """A new game edits no table: only the registry's fallback list names the built-in games."""
    allowed = {SRC / "core" / "registry.py"}
    modules = [
        path
        for path in SRC.rglob("*.py")
        if path not in allowed and "games" not in path.relative_to(SRC).parts[:1]
    ]
    assert modules
    found = [where for path in modules for where in _dicts_keyed_by_builtin_games(path)]
    assert found == []
