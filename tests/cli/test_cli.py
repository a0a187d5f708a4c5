"""The `botarena` command: play, replay --verify (identical, and the first difference after an edit),
and one-line errors with exit code 2 for every bad input."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from botarena.cli import main


def _play(tmp_path: Path, *extra: str) -> Path:
    replay = tmp_path / "r.json.gz"
    assert main(["play", "drones", "zergy", "adaptive", "--seed", "7", "--replay", str(replay), *extra]) == 0
    return replay


def test_play_writes_a_replay_that_verifies_identical(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replay = _play(tmp_path)
    assert replay.exists()
    capsys.readouterr()
    assert main(["replay", str(replay), "--verify"]) == 0
    assert capsys.readouterr().out.startswith("identical")


def test_verify_names_the_first_differing_turn_after_an_action_is_edited(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replay = _play(tmp_path)
    data = orjson.loads(gzip.decompress(replay.read_bytes()))
    step = data["steps"][4]  # round 3, turn 1 of zergy vs adaptive (zergy's rounds last two turns)
    record = step["record"]
    step["replies"][0]["payload"]["newSoldiers"] = 0
    replay.write_bytes(gzip.compress(orjson.dumps(data)))
    capsys.readouterr()
    assert main(["replay", str(replay), "--verify"]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"differs at step 5 (round {record['round']}, turn {record['turn']})")


def test_replay_summary_prints_the_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    replay = _play(tmp_path)
    capsys.readouterr()
    assert main(["replay", str(replay)]) == 0
    assert "outcome: PLAYER" in capsys.readouterr().out


def test_python_file_bot_plays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text("def act(obs):\n    return {'newProducers': obs['producers']}\n")
    assert main(["play", "drones", str(bot), "pacifist", "--seed", "3"]) == 0
    assert "bot" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "chess", "a", "b"], "unknown game 'chess'"),
        (["play", "drones", "zergy", "nobody"], "unknown bot 'nobody'"),
        (["play", "drones", "zergy"], "drones needs 2 players, got 1"),
        (["play", "drones", "zergy", "adaptive", "--set", "rounds=0"], "config key 'rounds'"),
        (["play", "drones", "zergy", "adaptive", "--set", "colour=red"], "unknown config key 'colour'"),
        (["play", "drones", "zergy", "adaptive", "--set", "rounds"], "expected key=value"),
        (["play", "drones", "zergy", "adaptive", "--preset", "nope"], "unknown preset 'nope'"),
        (["play", "drones", "zergy", "adaptive", "--seed", "-1"], "match seed must be an integer"),
        (["play", "drones", "zergy", "adaptive", "--seed", "x"], "Invalid value for '--seed'"),
        (["replay", "/nonexistent/r.json.gz", "--verify"], "cannot read"),
        (["no-such-command"], "No such command"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and err.startswith("botarena: error: ")
    assert "Traceback" not in err


def test_config_file_overrides_then_set(tmp_path: Path) -> None:
    from botarena.core.replay import read_replay

    config = tmp_path / "match.json"
    config.write_text('{"rounds": 3, "turn_limit": 4}')
    replay = tmp_path / "r.json.gz"
    argv = ["play", "drones", "zergy", "pacifist", "--config", str(config), "--set", "rounds=2"]
    assert main([*argv, "--replay", str(replay)]) == 0
    assert read_replay(replay).config["rounds"] == 2 and read_replay(replay).config["turn_limit"] == 4


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read config file"),
        ("{rounds: 3", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"rounds": 3.5}', "config key 'rounds'"),
        ('{"round": 3}', "unknown config key 'round'"),
    ],
)
def test_bad_config_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, message: str
) -> None:
    config = tmp_path / "match.json"
    if content is not None:
        config.write_text(content)
    assert main(["play", "drones", "zergy", "pacifist", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_broken_replay_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for content in (b"not json", gzip.compress(b"{}"), b"\x1f\x8b broken gzip"):
        bad = tmp_path / "bad.json.gz"
        bad.write_bytes(content)
        assert main(["replay", str(bad), "--verify"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("botarena: error: ") and err.count("\n") == 1


def test_installed_command_runs_as_a_process(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "botarena", "play", "drones", "zergy", "nobody"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("botarena: error: unknown bot")


def test_a_2018_javascript_bot_file_plays_through_the_node_adapter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from botarena.bots.node import MIN_NODE, node_version

    version = node_version()
    if version is None or version < MIN_NODE:
        pytest.skip(f"needs Node.js >= {'.'.join(map(str, MIN_NODE))}")
    bot = tmp_path / "rusher.js"  # the 2018 module style: a default-exported factory, no package.json
    bot.write_text(
        "export default function () {\n"
        "  return {\n"
        "    meta: {name: 'Rusher', author: 'tests'},\n"
        "    playTurn(state) { return {newSoldiers: state.producers, launchAttack: state.soldiers >= 1}; },\n"
        "  };\n"
        "}\n"
    )
    replay = tmp_path / "js.json.gz"
    assert main(["play", "drones", str(bot), "pacifist", "--seed", "5", "--replay", str(replay)]) == 0
    assert "OK:" in capsys.readouterr().out
    from botarena.core.replay import read_replay

    data = read_replay(replay)
    assert data.players[0]["kind"] == "node"
    assert data.statuses[0].get("OK", 0) == sum(data.statuses[0].values()), (data.statuses, data.logs)
    assert data.result["details"]["meta"][0] == {"name": "Rusher", "author": "tests"}


def test_js_file_for_a_game_without_an_adapter_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import dataclasses

    from botarena.core import registry
    from botarena.core.game import Kits

    game = registry.get_game("drones")
    monkeypatch.setitem(registry._loaded, "drones", dataclasses.replace(game, kits=Kits()))
    bot = tmp_path / "bot.js"
    bot.write_text("export default () => ({})\n")
    assert main(["play", "drones", str(bot), "pacifist"]) == 2
    assert "has no JavaScript adapter" in capsys.readouterr().err
