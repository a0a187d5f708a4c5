"""A C++ player that does not compile costs one compile, not one per match (issue 25, item 5: ~9.7 s
of g++ in every match of such a player).

`cppkit.compile_cached` keeps a failure by the same content key as a success; every match resolves
its bots again (`resolve_bot`), so the second match of a broken player must fail at once, with the
same one-line error, without running the compiler. The compiler runs are counted:

- unsealed (`botarena play`), through a stand-in `g++` first on PATH that counts its compiles and
  answers like g++ (an error line for a source that calls `nonsense()`, an executable otherwise, a
  crash without a diagnostic for one that asks for it): a real compile error costs ~10 s here;
- sealed (tournaments, the server), through the real g++ in the real sandbox, with the compile
  timeout standing for the limits that stopped it: the sandbox's runs are counted.

A failure that says nothing about the source (the compiler crashing without a diagnostic) is not
kept, and a verdict reached under some limits is not reused under others.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from botarena.bots import cppkit
from botarena.bots.cppkit import CppKitError, compile_cached
from botarena.bots.resolve import BotSpecError, resolve_bot, untrusted
from botarena.bots.sandbox import SandboxPolicy, SandboxUnavailable, check_sandbox
from botarena.core.registry import get_game
from cppbuilds import with_kit_objects

GAME = get_game("domains")
BROKEN = '#include "../game/Player.hh"\nstruct X : public Player { void play() { nonsense(); } };\n'
SLOW = (
    "constexpr long spin() {\n"
    "  long s = 0;\n"
    "  for (long i = 0; i < 200000; ++i)\n"
    "    for (long j = 0; j < 200000; ++j) s += i ^ j;\n"
    "  return s;\n"
    "}\n"
    "constexpr long forever = spin();\n"
    "int main() { return int(forever); }\n"
)
"""A source that compiles, but only after hours (test_domains_cpp_sandboxed_compile's bomb)."""
FAKE_GXX = """#!{python}
# A stand-in g++: counts its compiles, answers as g++ would (see the module docstring).
import pathlib, shutil, sys
args = sys.argv[1:]
if args == ["--version"]:
    print("g++ (stand-in for the tests) 13.0")
    sys.exit(0)
if "-c" in args:  # the kit's own objects (cppkit.kit_objects): counted apart from the players'
    with open({count!r}, "a") as count:
        count.write("kit " + pathlib.Path(args[args.index("-c") + 1]).name + "\\n")
    pathlib.Path(args[args.index("-o") + 1]).write_bytes(b"")
    sys.exit(0)
with open({count!r}, "a") as count:
    inputs = [pathlib.Path(arg).name for arg in args if arg.endswith((".cc", ".o"))]
    count.write("compile " + " ".join(inputs) + "\\n")
source = next(arg for arg in args if "AI" in arg and arg.endswith(".cc"))
text = pathlib.Path(source).read_text()
if "crash" in text:
    sys.exit(139)  # killed, nothing said: not a verdict on the source
if "nonsense" in text:
    sys.stderr.write(source + ":2:49: error: 'nonsense' was not declared in this scope\\n")
    sys.exit(1)
shutil.copy("/bin/true", args[args.index("-o") + 1])
"""


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_cpp_cache: Path) -> Path:
    """A fresh build cache (with the kit's own objects, compiled once per run: tests/cppbuilds.py)."""
    folder = with_kit_objects(tmp_path / "cache", shared_cpp_cache)
    monkeypatch.setenv("BOTARENA_CACHE_DIR", str(folder))
    return folder


@pytest.fixture
def compiles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The stand-in g++ first on PATH; yields the file it counts its compiles in."""
    folder = tmp_path / "bin"
    folder.mkdir()
    count = tmp_path / "compiles.txt"
    count.write_text("")
    fake = folder / "g++"
    fake.write_text(FAKE_GXX.format(python=sys.executable, count=str(count)))
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")
    cppkit._compiler_version.cache_clear()
    yield count
    cppkit._compiler_version.cache_clear()


def runs(count: Path) -> int:
    """How many times a player was compiled."""
    return len(compiled(count))


def compiled(count: Path, kind: str = "compile") -> list[str]:
    """The compiler's runs of `kind` ("compile": a player's, "kit": one of the kit's objects), each
    as the names of its .cc and .o inputs."""
    return [line.split(" ", 1)[1] for line in count.read_text().splitlines() if line.split(" ", 1)[0] == kind]


def player(tmp_path: Path, team: str, text: str) -> Path:
    source = tmp_path / "bots" / team / "AIPlayer.cc"
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text(text, encoding="utf-8")
    return source


def refusal(source: Path, **isolation: Any) -> str:
    with pytest.raises(BotSpecError) as raised:
        resolve_bot(str(source), GAME, **isolation)
    message = str(raised.value)
    assert "\n" not in message
    return message


def test_a_player_that_does_not_compile_fails_at_once_in_every_later_match(
    tmp_path: Path, cache: Path, compiles: Path
) -> None:
    broken = player(tmp_path, "alpha", BROKEN)
    first = refusal(broken)  # the first match: one compile
    assert (
        first == f"{broken} does not compile: {broken}:2:49: error: 'nonsense' was not declared in this scope"
    )
    assert runs(compiles) == 1
    for _ in range(3):  # the next matches: the same one-line error, no compiler run
        assert refusal(broken) == first
    assert runs(compiles) == 1
    twin = player(tmp_path, "beta", BROKEN)  # another team's identical upload: its own path named
    assert refusal(twin) == first.replace(str(broken), str(twin))
    assert runs(compiles) == 1
    broken.write_text(BROKEN.replace("nonsense();", "// fixed"), encoding="utf-8")  # new content
    assert resolve_bot(str(broken), GAME).name  # compiled again, and it plays
    assert runs(compiles) == 2


def test_a_failure_that_is_not_the_sources_is_not_kept(tmp_path: Path, cache: Path, compiles: Path) -> None:
    crashing = player(tmp_path, "alpha", BROKEN.replace("nonsense();", "/* crash */"))
    for attempt in (1, 2):
        with pytest.raises(
            CppKitError, match="does not compile: the compiler exited with status 139 and said"
        ):
            compile_cached(crashing)
        assert runs(compiles) == attempt  # tried again: a crash says nothing about the source
    assert not any(cache.rglob("*.failed.json"))


def test_the_kits_own_sources_are_compiled_once_per_content(
    tmp_path: Path, cache: Path, compiles: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every player links the kit's objects, compiled once per content of the kit (and compiler)."""
    kit = tmp_path / "kit"
    shutil.copytree(cppkit.kit_dir(), kit)
    monkeypatch.setattr(cppkit, "kit_dir", lambda: kit)
    seeded = {path.parent.name for path in cache.rglob("Kit.o")}
    good = BROKEN.replace("nonsense();", "// fine")
    for team in ("alpha", "beta"):
        compile_cached(player(tmp_path, team, good.replace("fine", team)))
    assert compiled(compiles, "kit") == ["Kit.cc"]  # once, for both players
    assert compiled(compiles) == ["Kit.o AIPlayer.cc", "Kit.o AIPlayer.cc"]  # linked, not compiled
    (kit / "game" / "Kit.cc").write_text((kit / "game" / "Kit.cc").read_text() + "\n// edited\n")
    compile_cached(player(tmp_path, "gamma", good.replace("fine", "gamma")))
    assert compiled(compiles, "kit") == ["Kit.cc", "Kit.cc"]  # another kit: its own objects
    objects = {path.parent.name for path in cache.rglob("Kit.o")} - seeded  # the run's real-g++ objects
    assert len(objects) == 2 and all(name.startswith(cppkit.KIT_OBJECTS_PREFIX) for name in objects)


def test_a_kit_that_does_not_compile_is_one_line_and_not_the_players_verdict(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit = tmp_path / "kit"
    shutil.copytree(cppkit.kit_dir(), kit)
    (kit / "game" / "Kit.cc").write_text("this is not C++\n")
    monkeypatch.setattr(cppkit, "kit_dir", lambda: kit)
    source = player(tmp_path, "alpha", BROKEN.replace("nonsense();", "// fine"))
    with pytest.raises(CppKitError, match=r"^the C\+\+ kit's Kit\.cc does not compile$") as raised:
        compile_cached(source)
    assert "Kit.cc" in raised.value.diagnostics and not raised.value.verdict
    assert not any(cache.rglob("*.failed.json"))  # the player is not held to the kit's failure


@pytest.fixture
def sandbox_ready() -> None:
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    try:
        check_sandbox()
    except SandboxUnavailable as exc:
        if os.environ.get("BOTARENA_REQUIRE_SANDBOX") == "1":
            pytest.fail(f"the sandbox is unavailable: {exc}", pytrace=False)
        pytest.skip(str(exc))


def test_a_sealed_verdict_is_kept_for_the_same_limits_only(
    tmp_path: Path, cache: Path, sandbox_ready: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    sealed: list[list[str]] = []
    real = cppkit.run_sealed

    def counting(argv: list[str], **kwargs: Any) -> Any:
        sealed.append(list(argv))
        return real(argv, **kwargs)

    monkeypatch.setattr(cppkit, "run_sealed", counting)
    # a constexpr loop of ~10^10 steps: any limit of a second or less stops it, on any machine
    monkeypatch.setattr(cppkit, "COMPILE_TIMEOUT_S", 0.3)
    source = player(tmp_path, "gamma", SLOW)
    stranger = untrusted(SandboxPolicy())
    stopped = f"{source} does not compile: the compiler ran longer than 0.3 s and was stopped"
    assert refusal(source, isolation=stranger) == stopped
    assert refusal(source, isolation=stranger) == stopped  # the next match: at once
    assert len(sealed) == 1
    monkeypatch.setattr(cppkit, "COMPILE_TIMEOUT_S", 0.4)  # other limits: compiled again
    assert refusal(source, isolation=stranger).endswith("longer than 0.4 s and was stopped")
    assert len(sealed) == 2
