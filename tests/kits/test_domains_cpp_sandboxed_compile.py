"""Issue 12 ("sealed, fair matches"): a stranger's C++ player is compiled inside the sandbox too.

The compiler runs sealed like the bot will (docs/security.md): an `#include` of a host file (the
project's database, a rival's source) finds nothing, so its content cannot reach the compile error
that is shown and recorded; a compile bomb is stopped by the compile timeout with a one-line error;
a normal player still compiles sealed and plays in both seats against a sandboxed C++ opponent.

The tests skip where bubblewrap or cgroups are missing, except in CI (BOTARENA_REQUIRE_SANDBOX=1),
where a missing sandbox fails them.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from botarena.bots import cppkit
from botarena.bots import resolve as resolve_module
from botarena.bots.cppkit import CppKitError, build_player, compile_cached, kit_dir
from botarena.bots.resolve import BotSpecError, resolve_bot, untrusted
from botarena.bots.sandbox import SandboxPolicy, SandboxUnavailable, check_sandbox, run_sealed
from botarena.bots.subprocess import SubprocessBot
from botarena.core.registry import get_game
from botarena.runner import run_match
from cppbuilds import with_kit_objects

PLAYERS = Path(__file__).parent / "domains_cpp_players"
GAME = get_game("domains")
SMALL = {"number_of_rounds": 6, "board_height": 14, "board_width": 14}
SECRET = "LEAKED_SECRET_5c1e9a"
pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")


@pytest.fixture(autouse=True)
def sandbox_ready() -> None:
    try:
        check_sandbox()
    except SandboxUnavailable as exc:
        if os.environ.get("BOTARENA_REQUIRE_SANDBOX") == "1":
            pytest.fail(f"the sandbox is unavailable: {exc}", pytrace=False)
        pytest.skip(str(exc))


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_cpp_cache: Path) -> Path:
    """A fresh build cache: every player here is really compiled (never found already built); only
    the kit's own objects are in it, compiled once per run (tests/cppbuilds.py)."""
    folder = with_kit_objects(tmp_path / "cache", shared_cpp_cache)
    monkeypatch.setenv("BOTARENA_CACHE_DIR", str(folder))
    return folder


@pytest.fixture
def sealed_compiles(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[list[str]]]:
    """The command lines the kit ran through the sandbox (proof that a compile was sealed)."""
    seen: list[list[str]] = []
    real = cppkit.run_sealed

    def recording(argv: list[str], **kwargs: Any) -> Any:
        seen.append(list(argv))
        return real(argv, **kwargs)

    monkeypatch.setattr(cppkit, "run_sealed", recording)
    yield seen


def entrant(tmp_path: Path, name: str, text: str) -> Path:
    """A player's source in its own folder, as an uploaded entrant's would be."""
    source = tmp_path / "bots" / name / f"AI{name}.cc"
    source.parent.mkdir(parents=True)
    source.write_text(text, encoding="utf-8")
    return source


def leaking_players(tmp_path: Path) -> dict[str, Path]:
    """Players whose compile would print a secret: an absolute include of a file in a folder standing
    for the project's var/, a relative include of a rival's source in a sibling bot folder, and an
    include of a header beside the player that is a symlink to that var/ file."""
    var = tmp_path / "var"
    var.mkdir()
    database = var / "botarena.db"
    database.write_text(f"{SECRET} tables;\n", encoding="utf-8")
    rival = entrant(tmp_path, "Rival", f"int strategy = {SECRET};\n")
    assert rival.is_file()
    linked = entrant(tmp_path, "Linked", '#include "notes.hh"\n')
    (linked.parent / "notes.hh").symlink_to(database)  # a header beside it that is the database
    return {
        "var": entrant(tmp_path, "Var", f'#include "{database}"\n'),
        "rival": entrant(tmp_path, "Thief", '#include "../Rival/AIRival.cc"\n'),
        "symlink": linked,
    }


@pytest.mark.parametrize("kind", ["var", "rival", "symlink"])
def test_an_included_host_file_does_not_leak_into_a_sealed_compile_error(
    tmp_path: Path, cache: Path, sealed_compiles: list[list[str]], kind: str
) -> None:
    source = leaking_players(tmp_path)[kind]
    with pytest.raises(BotSpecError) as raised:
        resolve_bot(str(source), GAME, isolation=untrusted())
    message = str(raised.value)
    assert "does not compile" in message and "\n" not in message
    assert "No such file or directory" in message, message
    assert SECRET not in message
    assert sealed_compiles, "the compile did not go through the sandbox"
    with pytest.raises(CppKitError) as direct:
        compile_cached(source, sandbox=SandboxPolicy())
    assert SECRET not in str(direct.value) and SECRET not in direct.value.diagnostics


@pytest.mark.parametrize("kind", ["var", "rival", "symlink"])
def test_the_same_compile_unsealed_does_include_the_file(tmp_path: Path, kind: str) -> None:
    """The attack is real: unsealed (`botarena play`'s trusted default) the secret is in the error."""
    source = leaking_players(tmp_path)[kind]
    with pytest.raises(CppKitError) as raised:
        build_player(source, tmp_path / "out")
    assert SECRET in str(raised.value) + raised.value.diagnostics


def test_a_compile_bomb_is_stopped_by_the_timeout_with_a_one_line_error(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A constexpr loop of ~10^10 steps stays under g++'s own limits and would run for hours."""
    bomb = entrant(
        tmp_path,
        "Bomb",
        "constexpr long spin() {\n"
        "  long s = 0;\n"
        "  for (long i = 0; i < 200000; ++i)\n"
        "    for (long j = 0; j < 200000; ++j) s += i ^ j;\n"
        "  return s;\n"
        "}\n"
        "constexpr long forever = spin();\n"
        "int main() { return int(forever); }\n",
    )
    monkeypatch.setattr(cppkit, "COMPILE_TIMEOUT_S", 2.0)  # the mechanism, not the default's size
    with pytest.raises(BotSpecError) as raised:
        resolve_bot(str(bomb), GAME, isolation=untrusted())
    message = str(raised.value)
    assert "\n" not in message
    assert message == f"{bomb} does not compile: the compiler ran longer than 2 s and was stopped"
    # the verdict is kept (for the next match); nothing half-built (the kit's own objects aside)
    left = sorted(
        path.name
        for path in cache.rglob("*")
        if path.is_file() and not path.parent.name.startswith(cppkit.KIT_OBJECTS_PREFIX)
    )
    assert left == ["AIBomb.failed.json"], left


def test_headers_beside_the_player_are_part_of_its_sealed_build(
    tmp_path: Path, cache: Path, sealed_compiles: list[list[str]]
) -> None:
    source = entrant(
        tmp_path,
        "Helper",
        (PLAYERS / "AIMover.cc")
        .read_text(encoding="utf-8")
        .replace('#include "../game/Player.hh"', '#include "../game/Player.hh"\n#include "helper.hh"'),
    )
    assert '#include "helper.hh"' in source.read_text(encoding="utf-8")
    (source.parent / "helper.hh").write_text("constexpr int helper_value = 7;\n", encoding="utf-8")
    binary = compile_cached(source, sandbox=SandboxPolicy())
    assert binary.is_file() and sealed_compiles


@dataclass(frozen=True)
class SealedPair:
    """A stranger's player and a C++ opponent, both resolved untrusted (compiled in the sandbox)."""

    player: SubprocessBot
    opponent: SubprocessBot
    sealed_compiles: int
    """How many compiles went through the sandbox while the two were resolved."""


@pytest.fixture(scope="module")
def sealed_pair(tmp_path_factory: pytest.TempPathFactory, shared_cpp_cache: Path) -> Iterator[SealedPair]:
    """The two players of the both-seats test, compiled sealed once for both seats (issue 28, item 8):
    the claim is that a sealed build plays in either seat, and a second pair of identical sealed
    compiles would only repeat the first. The cache is fresh, so both really are compiled."""
    folder = tmp_path_factory.mktemp("sealed-pair")
    seen: list[list[str]] = []
    real = cppkit.run_sealed

    def recording(argv: list[str], **kwargs: Any) -> Any:
        seen.append(list(argv))
        return real(argv, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BOTARENA_CACHE_DIR", str(with_kit_objects(folder / "cache", shared_cpp_cache)))
        patch.setattr(cppkit, "run_sealed", recording)
        source = entrant(folder, "Facilities", (PLAYERS / "AIFacilities.cc").read_text(encoding="utf-8"))
        player = resolve_bot(str(source), GAME, isolation=untrusted())
        opponent = resolve_bot(str(kit_dir() / "bots" / "AIDummy.cc"), GAME, isolation=untrusted())
        assert isinstance(player, SubprocessBot) and isinstance(opponent, SubprocessBot)
        yield SealedPair(player, opponent, len(seen))


@pytest.mark.parametrize("seat", [0, 1])
def test_a_player_compiled_sealed_plays_in_both_seats(sealed_pair: SealedPair, seat: int) -> None:
    """Resolved as a tournament resolves strangers' bots, against a sandboxed C++ opponent."""
    player, opponent = sealed_pair.player, sealed_pair.opponent
    assert sealed_pair.sealed_compiles == 2, "both players were compiled in the sandbox"
    assert player.sandbox is not None and opponent.sandbox is not None
    bots: list[Any] = [opponent]
    bots.insert(seat, player)
    run = run_match(GAME, bots, config=GAME.config(overrides=SMALL), seed=5)
    assert run.replay.statuses[seat] == {"OK": 7}, run.replay.logs
    assert run.replay.statuses[1 - seat] == {"OK": 7}, run.replay.logs
    log = run.replay.logs[seat]["text"]
    assert "facilities: 43 checks" in log and "FAIL" not in log, log


def test_trusted_play_still_compiles_unsealed(
    tmp_path: Path, cache: Path, sealed_compiles: list[list[str]]
) -> None:
    source = entrant(tmp_path, "Mover", (PLAYERS / "AIMover.cc").read_text(encoding="utf-8"))
    bot = resolve_bot(str(source), GAME)
    assert isinstance(bot, SubprocessBot) and not sealed_compiles
    assert resolve_module.TRUSTED.sandbox is None


def test_run_sealed_shows_only_the_paths_it_is_given(tmp_path: Path) -> None:
    """The primitive under the sealed compile: read-only paths, one writable folder, nothing else."""
    given, out, var = tmp_path / "given", tmp_path / "out", tmp_path / "var"
    for folder in (given, out, var):
        folder.mkdir()
    (given / "in.txt").write_text("visible\n", encoding="utf-8")
    (var / "botarena.db").write_text(f"{SECRET}\n", encoding="utf-8")
    script = (
        f"cat {given}/in.txt; cat {var}/botarena.db; echo made > {out}/made.txt; "
        f"echo no > {given}/new.txt || echo read-only"
    )
    done = run_sealed(
        ["/bin/sh", "-c", script],
        policy=SandboxPolicy(),
        timeout_s=60,
        read_only=[given],
        writable=[out],
        cwd=str(out),
    )
    assert not done.timed_out and done.returncode == 0, done.output
    assert "visible" in done.output and "read-only" in done.output
    assert SECRET not in done.output and "No such file" in done.output
    assert (out / "made.txt").read_text(encoding="utf-8") == "made\n"
    assert not (given / "new.txt").exists()


def test_a_compile_over_its_memory_limit_is_a_one_line_error(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A memory-hungry compile (here: a normal player under a 40 MiB cap, standing for a template
    bomb) is killed by the cgroup, and the message says so instead of "internal compiler error"."""
    source = entrant(tmp_path, "Hungry", (PLAYERS / "AIMover.cc").read_text(encoding="utf-8"))
    monkeypatch.setattr(cppkit, "COMPILE_MEMORY_MB", 40)
    with pytest.raises(BotSpecError) as raised:
        resolve_bot(str(source), GAME, isolation=untrusted(SandboxPolicy(memory_mb=40)))
    message = str(raised.value)
    assert message == f"{source} does not compile: the compiler went over its 40 MiB memory limit"
