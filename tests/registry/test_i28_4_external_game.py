"""Issue 28 item 4, the proof: a seventh game in its own installable package, with no edit to botarena.

examples/nim_game is Nim as pip would install it: its pyproject.toml names the entry point
`nim = "botarena_nim:GAME"` of the `botarena.games` group. Instead of a throwaway virtualenv (slow),
`botarena.testing.installed` writes the dist-info pip would write into a temporary folder on
`sys.path`, so `importlib.metadata` finds the entry point exactly as after `pip install`. Then the
registry lists the game, `check_game` passes on it, `botarena play` plays it, the RL layer finds its
encoding, and the registry-wide suites (`BOTARENA_EXTRA_GAMES=examples/nim_game`) include it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from botarena.cli import main
from botarena.core import registry
from botarena.core.registry import ENTRY_POINT_GROUP, all_games, game_ids, get_game
from botarena.testing import check_game
from botarena.testing.installed import install_for_tests, uninstall

ROOT = Path(__file__).resolve().parents[2]
NIM = ROOT / "examples" / "nim_game"


@pytest.fixture(scope="module")
def nim(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The Nim package made visible as pip installs it (unless BOTARENA_EXTRA_GAMES did already)."""
    if "nim" in game_ids():
        yield
        return
    install = install_for_tests(NIM, tmp_path_factory.mktemp("site-packages"))
    try:
        yield
    finally:
        uninstall(install)
        assert "nim" not in game_ids()


def test_i28_4_the_example_is_a_pip_installable_package() -> None:
    pyproject = tomllib.loads((NIM / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["build-system"]["build-backend"] == "hatchling.build"
    assert pyproject["project"]["name"] == "botarena-nim" and pyproject["project"]["version"]
    assert pyproject["project"]["entry-points"][ENTRY_POINT_GROUP] == {"nim": "botarena_nim:GAME"}
    (package,) = pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"]
    assert (NIM / package / "__init__.py").is_file()


def test_i28_4_not_found_before_it_is_installed() -> None:
    if os.environ.get("BOTARENA_EXTRA_GAMES"):
        pytest.skip("BOTARENA_EXTRA_GAMES installed the extra games for the whole session")
    assert "nim" not in game_ids()


def test_i28_4_the_registry_finds_it_by_its_entry_point(nim: None) -> None:
    import botarena_nim

    assert "nim" in game_ids()
    assert get_game("nim") is botarena_nim.GAME
    assert "nim" in {game.id for game in all_games()}
    source = registry._discover()["nim"]
    assert source.target == "botarena_nim:GAME" and "botarena-nim 0.1" in source.origin


def test_i28_4_check_game_passes_on_it(nim: None) -> None:
    check_game(get_game("nim"))


def test_i28_4_botarena_plays_it(nim: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["games"]) == 0
    assert "nim" in capsys.readouterr().out
    replay = tmp_path / "nim.json.gz"
    assert main(["play", "nim", "random", "xor", "--seed", "5", "--replay", str(replay)]) == 0
    assert replay.is_file()
    assert main(["replay", str(replay), "--verify"]) == 0
    out = capsys.readouterr().out
    assert "identical" in out.lower()


def test_i28_4_the_rl_layer_finds_its_encoding(nim: None) -> None:
    from botarena_nim.rl import NimEncoding

    from botarena import rl
    from botarena.rl.encoding import encoded_games, encoding_class

    assert "nim" in encoded_games() and encoding_class("nim") is NimEncoding
    env = rl.gym_env("nim", opponents="xor")
    observation, info = env.reset(seed=1)
    assert observation in env.observation_space and info["action_mask"].any()


def test_i28_4_the_registry_wide_suites_include_it_with_no_edit() -> None:
    """tests/conformance, run with BOTARENA_EXTRA_GAMES, checks Nim too (a fresh interpreter, as CI)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "BOTARENA_EXTRA_GAMES": "examples/nim_game"}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]
    command += ["tests/conformance", "-k", "nim"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "deselected" in done.stdout
