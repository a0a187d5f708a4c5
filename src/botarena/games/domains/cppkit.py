"""Building C++ players against the Domains kit (`kits/domains-cpp`, spec 7.3).

    python -m botarena.games.domains.cppkit AIMyBot.cc -o mybot
    botarena play domains AIMyBot.cc dummy          (compiles it first, cached by content)

`build_player` runs `g++ -std=c++17 -O2 -I <kit>/game -I <kit>/bots <kit>/game/*.cc <sources> -o <out>`
on copies of the sources in a scratch folder, so that the original include line
`#include "../game/Player.hh"` finds the kit even when the player's file sits in a checkout of the
original (whose own `../game/` would otherwise win: a quoted include looks next to the file first).
The player's own folder is still searched last (`-idirafter`), for its own headers. Diagnostics name
the player's real file, and a compile error is reported at the player's own file and line.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.resources
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

KIT = "domains-cpp"
CXX_ENV_DEFAULT = "g++"
CACHE_ENV = "BOTARENA_CACHE_DIR"
"""Overrides where compiled players are cached (default: $XDG_CACHE_HOME/botarena, ~/.cache/botarena)."""
_FLAGS = ("-std=c++17", "-O2")
_DIAGNOSTIC = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+):\s+(?P<rest>.*)$")


class CppKitError(RuntimeError):
    """The kit or a compiler is missing, or the player does not compile (the message says which).

    `diagnostics` holds the compiler's whole output (paths naming the player's real files)."""

    def __init__(self, message: str, diagnostics: str = "") -> None:
        super().__init__(message)
        self.diagnostics = diagnostics


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
    sources: Sequence[str | Path],
    output: str | Path,
    compiler: str = CXX_ENV_DEFAULT,
    extra_dirs: Sequence[str | Path] = (),
) -> list[str]:
    """The g++ command line for `sources`; `extra_dirs` are searched after the kit (`-idirafter`)."""
    kit = kit_dir()
    game = kit / "game"
    after = [arg for folder in extra_dirs for arg in ("-idirafter", str(folder))]
    return [
        compiler,
        *_FLAGS,
        "-fdiagnostics-color=never",
        "-I",
        str(game),
        "-I",
        str(kit / "bots"),
        *after,
        *sorted(str(path) for path in game.glob("*.cc")),
        *(str(Path(source)) for source in sources),
        "-o",
        str(output),
    ]


def _as_list(sources: Sequence[str | Path] | str | Path) -> list[Path]:
    if isinstance(sources, str | Path):
        return [Path(sources)]
    return [Path(source) for source in sources]


def build_player(
    sources: Sequence[str | Path] | str | Path, output: str | Path, compiler: str = CXX_ENV_DEFAULT
) -> Path:
    """Compile player source file(s) with the kit into the executable `output`.

    Raises CppKitError with a one-line message; for a compile error it starts with the player's own
    `file:line:col` (also when g++ first reports the error inside a kit or standard header)."""
    paths = _as_list(sources)
    if shutil.which(compiler) is None:
        raise CppKitError(f"no C++ compiler {compiler!r} on PATH (the kit needs g++ with C++17)")
    for path in paths:
        if not path.is_file():
            raise CppKitError(f"no such C++ source file: {path}")
    with tempfile.TemporaryDirectory(prefix="botarena-cpp-") as scratch:
        # Each source is copied into its own folder src<i>/ which has no ../game next to it.
        copies: dict[str, Path] = {}
        for i, path in enumerate(paths):
            copied = Path(scratch) / f"src{i}" / path.name
            copied.parent.mkdir()
            shutil.copyfile(path, copied)
            copies[str(copied)] = path
        folders = list(dict.fromkeys(path.resolve().parent for path in paths))
        command = build_command(list(copies), output, compiler, extra_dirs=folders)
        environment = {**os.environ, "LC_ALL": "C"}  # plain ASCII quotes in the messages
        done = subprocess.run(command, capture_output=True, text=True, check=False, env=environment)
        diagnostics = done.stderr
        for copy_name, original in copies.items():
            diagnostics = diagnostics.replace(copy_name, str(original))
    if done.returncode != 0:
        where = first_error(diagnostics, [str(path) for path in paths])
        raise CppKitError(f"{' '.join(map(str, paths))} does not compile: {where}", diagnostics)
    return Path(output)


def first_error(diagnostics: str, sources: Sequence[str]) -> str:
    """The first error of g++'s output in one line, located in the player's own source.

    An error g++ reports inside a header (the kit's Matrix, the standard library) is preceded by
    "required from here" or "In file included from" lines: the last of them that names one of
    `sources` is the player's line that caused it, and the header's own location follows in brackets.
    """
    lines = diagnostics.splitlines()
    own_location = ""
    for line in lines:
        parsed = _DIAGNOSTIC.match(line.strip().removeprefix("from ").rstrip(",:"))
        if parsed is None:
            continue
        location = f"{parsed['file']}:{parsed['line']}:{parsed['col']}"
        rest = parsed["rest"]
        if rest.startswith(("error:", "fatal error:")):
            if parsed["file"] in sources or not own_location:
                return f"{location}: {rest}"
            header = Path(parsed["file"]).name
            return f"{own_location}: {rest} (reported in {header}:{parsed['line']})"
        if parsed["file"] in sources:
            own_location = location
    linker = next((line.strip() for line in lines if "undefined reference" in line), "")
    if linker:
        return linker
    return next((line.strip() for line in lines if "error" in line), diagnostics.strip()[:300])


def cache_dir() -> Path:
    """Where compiled players are kept: $BOTARENA_CACHE_DIR, else $XDG_CACHE_HOME/botarena, else
    ~/.cache/botarena; the kit's builds go in its `domains-cpp/` subfolder."""
    root = os.environ.get(CACHE_ENV) or os.environ.get("XDG_CACHE_HOME")
    base = Path(root) if root else Path.home() / ".cache"
    if not os.environ.get(CACHE_ENV):
        base = base / "botarena"
    return base / KIT


def content_key(source: Path, compiler: str = CXX_ENV_DEFAULT) -> str:
    """A hash of everything the binary depends on: the player's file and the headers beside it,
    every file of the kit's game/ folder, the flags and the compiler's version."""
    digest = hashlib.sha256()
    version = subprocess.run([compiler, "--version"], capture_output=True, text=True, check=False)
    digest.update(" ".join((*_FLAGS, version.stdout.splitlines()[0] if version.stdout else "")).encode())
    beside = sorted(p for p in source.resolve().parent.iterdir() if p.suffix in (".hh", ".h", ".hpp"))
    kit_files = sorted((kit_dir() / "game").iterdir())
    for path in [source.resolve(), *beside, *kit_files]:
        if path.is_file():
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:24]


def compile_cached(source: str | Path, compiler: str = CXX_ENV_DEFAULT, cache: Path | None = None) -> Path:
    """The executable built from `source`, compiled once per content (see `content_key`) and kept in
    `cache` (default `cache_dir()`); raises CppKitError as `build_player` does."""
    path = Path(source)
    if shutil.which(compiler) is None:
        raise CppKitError(f"no C++ compiler {compiler!r} on PATH (the kit needs g++ with C++17)")
    if not path.is_file():
        raise CppKitError(f"no such C++ source file: {path}")
    folder = (cache or cache_dir()) / content_key(path, compiler)
    binary = folder / path.stem
    if binary.is_file() and os.access(binary, os.X_OK):
        return binary
    folder.mkdir(parents=True, exist_ok=True)
    # Build beside the final name and rename: a concurrent build or a reader never sees half a file.
    partial = folder / f".{path.stem}.{os.getpid()}.partial"
    try:
        build_player(path, partial, compiler)
        os.replace(partial, binary)
    finally:
        partial.unlink(missing_ok=True)
    return binary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m botarena.games.domains.cppkit")
    parser.add_argument("sources", nargs="+", help="the player's .cc files")
    parser.add_argument("-o", "--output", required=True, help="the executable to write")
    args = parser.parse_args(argv)
    try:
        build_player(args.sources, args.output)
    except CppKitError as exc:
        print(f"error: {exc}", file=sys.stderr)
        if exc.diagnostics:
            print(exc.diagnostics, file=sys.stderr, end="")
        return 1
    print(args.output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
