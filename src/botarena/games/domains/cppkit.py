"""Building C++ players against the Domains kit (`kits/domains-cpp`, spec 7.3).

    python -m botarena.games.domains.cppkit AIMyBot.cc -o mybot
    botarena play domains ./mybot dummy

`build_player` runs `g++ -std=c++17 -O2 -I <kit>/game -I <kit>/bots <kit>/game/*.cc <sources> -o <out>`.
"""

from __future__ import annotations

import argparse
import importlib.resources
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

KIT = "domains-cpp"
CXX_ENV_DEFAULT = "g++"


class CppKitError(RuntimeError):
    """The kit or a compiler is missing, or the player does not compile (the message says which)."""


def kit_dir() -> Path:
    """The kit folder: `botarena/_kits/domains-cpp` in a wheel, or `kits/domains-cpp` in a checkout."""
    installed = importlib.resources.files("botarena").joinpath("_kits", KIT, "game", "Player.hh")
    if installed.is_file():
        return Path(str(installed)).parent.parent
    for folder in Path(__file__).resolve().parents:
        candidate = folder / "kits" / KIT
        if (candidate / "game" / "Player.hh").is_file():
            return candidate
    raise CppKitError(f"the C++ kit kits/{KIT} is missing from this installation")


def build_command(
    sources: Sequence[str | Path], output: str | Path, compiler: str = CXX_ENV_DEFAULT
) -> list[str]:
    kit = kit_dir()
    game = kit / "game"
    return [
        compiler,
        "-std=c++17",
        "-O2",
        "-I",
        str(game),
        "-I",
        str(kit / "bots"),
        *sorted(str(path) for path in game.glob("*.cc")),
        *(str(Path(source)) for source in sources),
        "-o",
        str(output),
    ]


def build_player(
    sources: Sequence[str | Path] | str | Path, output: str | Path, compiler: str = CXX_ENV_DEFAULT
) -> Path:
    """Compile player source file(s) with the kit into the executable `output`."""
    if isinstance(sources, str | Path):
        sources = [sources]
    if shutil.which(compiler) is None:
        raise CppKitError(f"no C++ compiler {compiler!r} on PATH (the kit needs g++ with C++17)")
    command = build_command(sources, output, compiler)
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        first = next(
            (line for line in done.stderr.splitlines() if "error" in line), done.stderr.strip()[:300]
        )
        raise CppKitError(f"{' '.join(map(str, sources))} does not compile: {first}")
    return Path(output)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m botarena.games.domains.cppkit")
    parser.add_argument("sources", nargs="+", help="the player's .cc files")
    parser.add_argument("-o", "--output", required=True, help="the executable to write")
    args = parser.parse_args(argv)
    try:
        build_player(args.sources, args.output)
    except CppKitError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(args.output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
