"""The Domains C++ player kit (spec 7.3): players in the original's style compile unchanged with g++
and play as subprocesses over the generic protocol."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from botarena.bots.cppkit import CppKitError, build_player, kit_dir
from botarena.bots.inprocess import PythonBot
from botarena.bots.subprocess import SubprocessBot
from botarena.core.registry import get_game
from botarena.runner import run_match
from cppbuilds import build_once

PLAYERS = Path(__file__).parent / "domains_cpp_players"
pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
GAME = get_game("domains")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, shared_cpp_cache: Path) -> dict[str, Path]:
    """The players these tests play, each compiled once per run (the starters are shared with the
    sandbox tests); the two-file player is this module's own."""
    players = {name: build_once(PLAYERS / f"AI{name}.cc", shared_cpp_cache) for name in PLAYED}
    players["Demo"] = build_once(kit_dir() / "bots" / "AIDemo.cc", shared_cpp_cache)
    players["Dummy"] = build_once(kit_dir() / "bots" / "AIDummy.cc", shared_cpp_cache)
    out = tmp_path_factory.mktemp("domains-cpp")
    players["Both"] = build_player([PLAYERS / "AIMover.cc", PLAYERS / "AIAttacker.cc"], out / "both")
    return players


PLAYED = ("Mover", "Attacker", "Ability", "Crash")


def match(bots: list[Any], rounds: int = 40, size: int = 14, seed: int = 11) -> Any:
    config = GAME.config(overrides={"number_of_rounds": rounds, "board_height": size, "board_width": size})
    return run_match(GAME, bots, config=config, seed=seed)


def cpp(path: Path, *args: str) -> SubprocessBot:
    return SubprocessBot([str(path), *args], name=path.name)


def orders_of(run: Any, seat: int) -> list[dict[str, Any]]:
    found = []
    for step in run.replay.steps:
        payload = step["replies"][seat]["payload"]
        if isinstance(payload, dict):
            found.extend(payload.get("orders", []))
    return found


def test_a_player_that_moves(built: dict[str, Path]) -> None:
    run = match([cpp(built["Mover"]), PythonBot(GAME.starter_bots["demo"], "demo")])
    assert run.replay.statuses[0] == {"OK": 41}  # start and 40 rounds (the end exchange is not tallied)
    moves = orders_of(run, 0)
    assert moves and {order["type"] for order in moves} == {"move"}
    assert run.result.scores[0] > 9 * 40  # it left its start block and painted
    log = run.replay.logs[0]["text"]
    assert "mover round 39 calls 40" in log  # cout went to stderr; the object lived all game


def test_a_player_that_attacks(built: dict[str, Path]) -> None:
    run = match([cpp(built["Attacker"]), PythonBot(GAME.starter_bots["dummy"], "dummy")], rounds=60, size=10)
    assert run.replay.statuses[0] == {"OK": 61}
    kinds = [order["type"] for order in orders_of(run, 0)]
    assert "attack" in kinds and "move" in kinds
    assert "already has an order this round" in run.replay.logs[0]["text"]  # F5 at queue time
    fights = [e for step in run.replay.steps for e in step["record"].get("events", []) if e[0] == "fight"]
    assert fights  # attacks reached real fights


def test_a_player_that_uses_the_ability(built: dict[str, Path]) -> None:
    run = match([cpp(built["Ability"]), PythonBot(GAME.starter_bots["demo"], "demo")], rounds=80, size=12)
    assert run.replay.statuses[0] == {"OK": 81}
    used = [
        i
        for i, step in enumerate(run.replay.steps)
        if any(o.get("type") == "ability" for o in (step["replies"][0]["payload"] or {}).get("orders", []))
    ]
    assert used, "no unit ever got upgraded and used the ability"
    record = run.replay.steps[used[0]]["record"]
    assert any(cell[3] > 0 for cell in record["cells"])  # the zone's flags
    log = run.replay.logs[0]["text"]
    assert "null unit -1 (-1, -1) bubble -1 square -1 points -1 units 0 rn 5 max 20" in log
    assert "ROUNDS_PER_BUBBLE_MOVE5" in log and "domains kit warning" in log


def test_cpp_demo_plays_exactly_like_the_python_demo(built: dict[str, Path]) -> None:
    """Both draw from the DR-4 private stream seeded with bot_seed, so the same seat plays the same."""
    python = match([PythonBot(GAME.starter_bots["demo"], "demo"), PythonBot(GAME.starter_bots["demo"], "d")])
    native = match([cpp(built["Demo"]), PythonBot(GAME.starter_bots["demo"], "d")])
    assert [s["record"] for s in native.replay.steps] == [s["record"] for s in python.replay.steps]
    assert native.result.scores == python.result.scores


def test_a_crashing_player_gets_statuses_and_the_game_completes(built: dict[str, Path]) -> None:
    run = match([cpp(built["Crash"]), PythonBot(GAME.starter_bots["demo"], "demo")], rounds=8)
    verdicts = [step["verdicts"][0][:2] for step in run.replay.steps]
    assert verdicts[0] == ["OK", None]
    assert verdicts[1] == ["CRASHED", "bot_error"]
    assert verdicts[2] == ["OK", None]
    assert all(v[0] == "CRASHED" for v in verdicts[3:])
    assert verdicts[-1][1] == "process_exited"
    assert len(run.replay.steps) == 8 and len(run.result.ranks) == 2
    assert run.replay.steps[-1]["record"]["units"]  # its units stay in the game


def test_registration_names_the_player_when_several_are_built(built: dict[str, Path]) -> None:
    done = subprocess.run(
        [str(built["Both"])], input="", capture_output=True, text=True, timeout=30, check=False
    )
    assert done.returncode == 2 and "name one as the first argument" in done.stderr and done.stdout == ""
    done = subprocess.run(
        [str(built["Both"]), "Nobody"], input="", capture_output=True, text=True, timeout=30, check=False
    )
    assert done.returncode == 2 and "unknown player 'Nobody'" in done.stderr
    run = match([cpp(built["Both"], "Attacker"), cpp(built["Both"], "Mover")], rounds=5)
    assert run.replay.statuses == [{"OK": 6}, {"OK": 6}]


def test_a_player_that_does_not_compile_is_a_one_line_error(tmp_path: Path) -> None:
    broken = tmp_path / "AIBroken.cc"
    broken.write_text(
        '#include "../game/Player.hh"\nstruct X : public Player { void play() { nonsense(); } };\n'
    )
    with pytest.raises(CppKitError, match="does not compile"):
        build_player(broken, tmp_path / "broken")


@pytest.mark.parametrize(("players", "size", "seed"), [(2, 14, 11), (3, 16, 5)])
def test_the_cpp_dummy_plays_exactly_as_the_python_dummy(
    built: dict[str, Path], players: int, size: int, seed: int
) -> None:
    """Spec 7.3's kit tests: a C++ `dummy` (section 10) in the original's style. Same private stream
    (DR-4), same rules: the same orders as the Python starter, round after round."""
    python = [PythonBot(GAME.starter_bots["dummy"], "dummy") for _ in range(players)]
    reference = match(python, rounds=60, size=size, seed=seed)
    mixed = match([cpp(built["Dummy"]), *python[1:]], rounds=60, size=size, seed=seed)
    assert mixed.replay.statuses[0] == {"OK": 61}
    assert orders_of(mixed, 0) and orders_of(mixed, 0) == orders_of(reference, 0)
    assert mixed.result.scores == reference.result.scores
