"""Spec 7.3 and issue 13 ("original C++ players compile unchanged"): the kit's headers behave as the
original's (Matrix<bool> hands out real bool&, iterators are random access, copies are deep), compile
errors point at the player's own line, `botarena play domains AIMyBot.cc` compiles (cached by content)
and plays, sandboxed too, and every AI*.cc of an original checkout compiles and plays (local check)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from botarena.bots.cppkit import CppKitError, build_player, compile_cached
from botarena.bots.resolve import BotSpecError, resolve_bot, untrusted
from botarena.bots.sandbox import SandboxUnavailable, check_sandbox
from botarena.bots.subprocess import SubprocessBot
from botarena.cli import main
from botarena.core.registry import get_game
from botarena.core.replay import read_replay
from botarena.runner import run_match
from cppbuilds import with_kit_objects

PLAYERS = Path(__file__).parent / "domains_cpp_players"
ORIGINAL_ENV = "BOTARENA_DOMAINS_ORIGINAL"
"""A checkout of DarkJaslo/Domains (spec section 0's [original], commit f8a713f) for the local check."""
pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
GAME = get_game("domains")
SMALL = {"number_of_rounds": 6, "board_height": 14, "board_width": 14}


def small_match(bots: list[SubprocessBot | object], seed: int = 3) -> object:
    return run_match(GAME, bots, config=GAME.config(overrides=SMALL), seed=seed)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory, shared_cpp_cache: Path) -> Iterator[Path]:
    """One build cache for the module: a player with the same content is compiled once (the kit's
    own objects, once per run: tests/cppbuilds.py)."""
    folder = with_kit_objects(tmp_path_factory.mktemp("cache"), shared_cpp_cache)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BOTARENA_CACHE_DIR", str(folder))
        yield folder


@pytest.mark.parametrize("seat", [0, 1])
def test_every_facility_of_the_headers_behaves_as_the_originals(cache: Path, seat: int) -> None:
    """7.3's table, incl. Matrix<bool> bound to bool& (the original AITemplate.cc does this), range-for
    with auto&&, iterator arithmetic, std::sort over a Matrix, deep copies and out_of_range."""
    binary = compile_cached(PLAYERS / "AIFacilities.cc")
    bots: list[object] = [resolve_bot("dummy", GAME)]
    bots.insert(seat, SubprocessBot([str(binary)], name="facilities"))
    run = small_match(bots)
    replay = run.replay  # type: ignore[attr-defined]
    assert replay.statuses[seat] == {"OK": 7}
    log = replay.logs[seat]["text"]
    assert "facilities: 43 checks" in log, log
    assert "FAIL" not in log, log


def test_a_compile_error_names_the_players_own_line(tmp_path: Path) -> None:
    broken = tmp_path / "AIBroken.cc"
    broken.write_text(
        '#include "../game/Player.hh"\n'
        "struct Broken : public Player {\n"
        "  static Player* factory() { return new Broken; }\n"
        "  void play() { nonsense(); }\n"
        "};\n"
        "REGISTER_PLAYER(Broken);\n"
    )
    with pytest.raises(CppKitError) as caught:
        build_player(broken, tmp_path / "broken")
    message = str(caught.value)
    assert "\n" not in message
    assert f"{broken}:4:17: error: 'nonsense' was not declared" in message


def test_an_error_inside_a_kit_header_is_reported_at_the_line_that_caused_it(tmp_path: Path) -> None:
    """g++ reports this one in the standard library, reached from the kit's Matrix copy constructor;
    the message starts at the player's line and names the header in brackets."""
    broken = tmp_path / "AICopy.cc"
    broken.write_text(
        '#include "../game/Player.hh"\n'
        "#include <memory>\n"
        "struct Copy : public Player {\n"
        "  static Player* factory() { return new Copy; }\n"
        "  void play() {\n"
        "    Matrix<std::unique_ptr<int>> owners(2, 2);\n"
        "    Matrix<std::unique_ptr<int>> again(owners);\n"
        "  }\n"
        "};\n"
        "REGISTER_PLAYER(Copy);\n"
    )
    with pytest.raises(CppKitError) as caught:
        build_player(broken, tmp_path / "copy")
    message = str(caught.value)
    assert message.startswith(f"{broken} does not compile: {broken}:7:")
    assert "error: use of deleted function" in message and "(reported in " in message
    assert f"{broken}:7:" in caught.value.diagnostics  # the full output names the real file too


def test_a_player_beside_another_game_folder_still_gets_the_kit(tmp_path: Path) -> None:
    """A quoted include looks next to the file first: in a checkout of the original, ../game/ is the
    original's own headers. The kit compiles a copy, so its headers win; the player's own headers
    beside it are still found."""
    (tmp_path / "game").mkdir()
    (tmp_path / "game" / "Player.hh").write_text("#error this is not the kit\n")
    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "Helper.hh").write_text("inline int helperValue() { return 42; }\n")
    source = bots / "AIHelped.cc"
    source.write_text(
        (PLAYERS / "AIMover.cc")
        .read_text()
        .replace('#include "../game/Player.hh"', '#include "../game/Player.hh"\n#include "Helper.hh"')
        .replace("++calls;", "calls += helperValue() - 41;")
    )
    binary = build_player(source, tmp_path / "helped")
    run = small_match([SubprocessBot([str(binary)], name="helped"), resolve_bot("dummy", GAME)])
    assert run.replay.statuses[0] == {"OK": 7}  # type: ignore[attr-defined]


def test_compile_cached_builds_once_per_content(tmp_path: Path, cache: Path) -> None:
    source = tmp_path / "AIMover.cc"
    shutil.copyfile(PLAYERS / "AIMover.cc", source)
    first = compile_cached(source)
    assert first.is_file() and first.parent.parent == cache / "domains-cpp" and first.name == "AIMover"
    stamp = first.stat().st_mtime_ns
    assert compile_cached(source) == first and first.stat().st_mtime_ns == stamp  # not rebuilt
    source.write_text(source.read_text() + "\n// edited\n")
    second = compile_cached(source)
    assert second != first and second.is_file()  # new content, new binary


def test_botarena_play_compiles_a_cc_file(
    tmp_path: Path, cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replay = tmp_path / "r.json.gz"
    args = [
        "play",
        "domains",
        str(PLAYERS / "AIFacilities.cc"),
        "dummy",
        "--seed",
        "4",
        "--replay",
        str(replay),
    ]
    sets = [f"--set={key}={value}" for key, value in SMALL.items()]
    assert main([*args, *sets]) == 0
    data = read_replay(replay)
    assert data.statuses[0] == {"OK": 7}
    assert "facilities: 43 checks" in data.logs[0]["text"]
    assert list((cache / "domains-cpp").glob("*/AIFacilities"))  # built into the cache
    capsys.readouterr()


def test_botarena_play_reports_a_compile_error_in_one_line(
    tmp_path: Path, cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "AIBroken.cc"
    broken.write_text('#include "../game/Player.hh"\nint oops = undeclared;\n')
    assert main(["play", "domains", str(broken), "dummy", "--seed", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert f"{broken}:2:12: error: 'undeclared' was not declared" in err


def test_a_cc_file_for_a_game_without_a_cpp_kit_is_a_clear_error(tmp_path: Path) -> None:
    source = tmp_path / "AIMover.cc"
    shutil.copyfile(PLAYERS / "AIMover.cc", source)
    with pytest.raises(BotSpecError, match="drones has no C\\+\\+ kit"):
        resolve_bot(str(source), get_game("drones"))


@pytest.mark.parametrize("seat", [0, 1])
def test_a_compiled_cc_player_plays_sandboxed(tmp_path: Path, cache: Path, seat: int) -> None:
    """Resolved as a tournament resolves strangers' bots: the cached binary is the bot's file."""
    try:
        check_sandbox()
    except SandboxUnavailable as exc:
        if os.environ.get("BOTARENA_REQUIRE_SANDBOX") == "1":
            pytest.fail(f"the sandbox is unavailable: {exc}", pytrace=False)
        pytest.skip(str(exc))
    source = tmp_path / "entrant" / "AIFacilities.cc"
    source.parent.mkdir()
    shutil.copyfile(PLAYERS / "AIFacilities.cc", source)
    bot = resolve_bot(str(source), GAME, isolation=untrusted())
    assert isinstance(bot, SubprocessBot) and bot.sandbox is not None
    binary = compile_cached(source)
    assert str(binary) in bot.bot_files
    bots: list[object] = [resolve_bot("dummy", GAME)]
    bots.insert(seat, bot)
    run = small_match(bots)
    replay = run.replay  # type: ignore[attr-defined]
    assert replay.statuses[seat] == {"OK": 7}, replay.logs
    assert "facilities: 43 checks" in replay.logs[seat]["text"]


def original_players() -> list[Path]:
    checkout = os.environ.get(ORIGINAL_ENV)
    if not checkout:
        return []
    return sorted(Path(checkout).glob("src/bots/AI*.cc"))


@pytest.mark.skipif(
    not os.environ.get(ORIGINAL_ENV),
    reason=f"local check: set {ORIGINAL_ENV} to a checkout of DarkJaslo/Domains (its players are not "
    "part of this project and are not fetched in CI)",
)
def test_every_original_player_compiles_unchanged_and_plays(tmp_path: Path, cache: Path) -> None:
    players = original_players()
    assert players, f"{ORIGINAL_ENV} names no checkout with src/bots/AI*.cc"
    failures = []
    for source in players:
        try:
            binary = compile_cached(source)  # from inside the checkout: its own ../game must not win
        except CppKitError as exc:
            failures.append(str(exc))
            continue
        run = small_match([SubprocessBot([str(binary)], name=source.stem), resolve_bot("dummy", GAME)])
        replay = run.replay  # type: ignore[attr-defined]
        if replay.statuses[0] != {"OK": 7}:
            failures.append(f"{source.name}: statuses {replay.statuses[0]}: {replay.logs[0]['text'][-300:]}")
    assert not failures, "\n".join(failures)
