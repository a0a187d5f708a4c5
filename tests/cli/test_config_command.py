"""`botarena config GAME [--preset P]` lists every config key (issue 15, item 3), and an unknown key
is refused with the closest known one."""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path

import pytest
from cli_in_process import botarena_in_process

from botarena.core.config import ConfigError, config_to_dict, describe_config
from botarena.core.registry import all_games, get_game


def botarena(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    # in this process: these claims are about what the command says, not about a process
    return botarena_in_process(*args, cwd=cwd)


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.id)
def test_every_key_of_every_preset_is_listed_with_its_value(game: object) -> None:
    from botarena.core.game import GameInfo

    assert isinstance(game, GameInfo)
    names = [field.name for field in dataclasses.fields(game.config_class)]
    for preset in game.presets:
        config = game.config(preset)
        keys = describe_config(game.config_class, config)
        assert [key.name for key in keys] == names
        values = config_to_dict(config)
        assert {key.name: key.value for key in keys} == values
        assert all(key.allowed for key in keys)
        defaults = config_to_dict(game.config())
        assert {key.name: key.default for key in keys} == defaults


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.id)
def test_every_key_has_a_meaning(game: object) -> None:
    """Every key `botarena config GAME` lists says what it means, in one short line (the field's
    description or attribute docstring)."""
    from botarena.core.game import GameInfo

    assert isinstance(game, GameInfo)
    keys = describe_config(game.config_class, game.config())
    missing = [key.name for key in keys if not key.meaning.strip()]
    assert not missing, f"{game.id}: keys without a meaning: {missing}"
    for key in keys:
        assert len(key.meaning) <= 200 and "\n" not in key.meaning, (key.name, key.meaning)


def test_the_command_prints_json_and_a_table() -> None:
    listed = botarena("config", "drones", "--preset", "bravolt2018", "--json")
    assert listed.returncode == 0, listed.stderr
    keys = {key["name"]: key for key in json.loads(listed.stdout)}
    assert keys["rules"]["value"] == "bravolt2018" and keys["rules"]["default"] == "seed"
    assert keys["rules"]["allowed"] == '"seed" | "bravolt2018"'
    assert keys["turn_limit"]["allowed"] == "1..50"
    assert keys["turn_limit_range"]["allowed"] == "[1..50, 1..50] or null"
    table = botarena("config", "domains")
    assert table.returncode == 0 and "board_width" in table.stdout and "6..127" in table.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["config", "nosuch"], "unknown game 'nosuch'"),
    (["config", "drones", "--preset", "nope"], "unknown preset 'nope' (known: bravolt2018, default)"),
])  # fmt: skip
def test_bad_arguments_are_one_line(args: list[str], message: str) -> None:
    done = botarena(*args)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_an_unknown_key_suggests_the_closest() -> None:
    with pytest.raises(ConfigError, match=r"unknown config key 'turnlimit' \(did you mean 'turn_limit'\?\)"):
        get_game("drones").config(overrides={"turnlimit": 3})
    with pytest.raises(
        ConfigError, match=r"unknown config key 'Board_Width' \(did you mean 'board_width'\?\)"
    ):
        get_game("domains").config(overrides={"Board_Width": 30})
    with pytest.raises(
        ConfigError, match=r"unknown config key 'xyzzy' \(`botarena config GAME` lists the keys\)"
    ):
        get_game("drones").config(overrides={"xyzzy": 3})


def test_play_refuses_a_misspelt_key_in_one_line(tmp_path: Path) -> None:
    done = botarena("play", "drones", "pacifist", "zergy", "--set", "turnlimit=3")
    assert done.returncode == 2
    assert (
        done.stderr.strip() == "botarena: error: unknown config key 'turnlimit' (did you mean 'turn_limit'?)"
    )
    overrides = tmp_path / "c.json"
    overrides.write_text('{"round": 2}')
    done = botarena("play", "drones", "pacifist", "zergy", "--config", str(overrides))
    assert done.returncode == 2 and "unknown config key 'round' (did you mean 'rounds'?)" in done.stderr
