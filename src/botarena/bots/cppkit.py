"""Building C++ players against the Domains kit (`kits/domains-cpp`, spec 7.3): the bots layer's
compiler for that kit (a game package never runs a process; `CPP_BUILDERS` keys it by kit, the
`GameInfo.kits.cpp` a game names).

    python -m botarena.bots.cppkit AIMyBot.cc -o mybot
    botarena play domains AIMyBot.cc dummy          (compiles it first, cached by content)

`build_player` runs `g++ -std=c++17 -O2 -I <kit>/game -I <kit>/bots <kit>/game/*.cc <sources> -o <out>`
on copies of the sources in a scratch folder, so that the original include line
`#include "../game/Player.hh"` finds the kit even when the player's file sits in a checkout of the
original (whose own `../game/` would otherwise win: a quoted include looks next to the file first).
The player's own folder is still searched last (`-idirafter`), for its own headers. Diagnostics name
the player's real file, and a compile error is reported at the player's own file and line.

The kit's own sources (`game/*.cc`, the same for every player) are compiled once per content into
object files (`kit_objects`: keyed by the kit's files, the compiler and its flags), which every later
player build links instead of compiling them again: a player's build is then its own file and a link
(about a fifth of a whole compile). They are the platform's code, never a stranger's, so they are
built unsealed even for a sealed player build, which sees them read-only.

`compile_cached` keeps what a build gives by content (`content_key`: the source, the headers beside
it, the kit, the compiler and its flags): the executable, or the verdict that the source does not
compile (the compiler's errors, or the limits of a sealed compile: a timeout, the memory cap), so a
player that does not compile costs one compile, not one per match, and every later match gets the
same one-line error at once. A failure that says nothing about the source (no compiler, no sandbox,
the sandbox failing to start) is never kept.

A stranger's player (`sandbox=` the bots' policy: tournaments, the server, `play --sandbox`) is
compiled sealed as its executable will run (`botarena.bots.sandbox.run_sealed`): the compiler sees the
read-only system, the kit and copies of the player's source and of the headers beside it, writes only
to an output folder, runs under cgroup limits (`compile_policy`) and is stopped after a timeout. So
`#include "/path/to/var/botarena.db"` finds nothing to put in its error message, and a template or
constexpr bomb costs the host at most the timeout.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.resources
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from botarena.bots.sandbox import SandboxPolicy, SandboxUnavailable, run_sealed
from botarena.core.credentials import bot_environment

KIT = "domains-cpp"
CXX_ENV_DEFAULT = "g++"
CACHE_ENV = "BOTARENA_CACHE_DIR"
"""Overrides where compiled players are cached (default: $XDG_CACHE_HOME/botarena, ~/.cache/botarena)."""
_FLAGS = ("-std=c++17", "-O2")
HEADER_SUFFIXES = (".hh", ".h", ".hpp")
"""The player's own headers: those beside its source are part of its build (and of its cache key)."""
COMPILE_TIMEOUT_S = 120.0
"""Wall-clock limit of a sealed compile (a stranger's source): a template or constexpr bomb is stopped."""
COMPILE_MEMORY_MB = 2048
"""Memory limit of a sealed compile (cc1plus at -O2 needs more than a bot's default)."""
COMPILE_TMP_MB = 512
"""Size of a sealed compile's /tmp, where g++ keeps its intermediate files."""
COMPILE_FILE_MB = 256
"""Largest file a sealed compile may write (the executable; the kit's players are ~1 MB)."""
_DIAGNOSTIC = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+):\s+(?P<rest>.*)$")


class CppKitError(RuntimeError):
    """The kit or a compiler is missing, or the player does not compile (the message says which).

    `diagnostics` holds the compiler's whole output (paths naming the player's real files).
    `verdict` is True when the error is a verdict on the source that another build of the same
    content under the same limits would repeat (the compiler's errors, a sealed compile's timeout or
    memory cap), False when it is not (a missing compiler, a sandbox that failed to start)."""

    def __init__(self, message: str, diagnostics: str = "", *, verdict: bool = False) -> None:
        super().__init__(message)
        self.diagnostics = diagnostics
        self.verdict = verdict


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
    kit_objects: Sequence[Path] | None = None,
) -> list[str]:
    """The g++ command line for `sources`; `extra_dirs` are searched after the kit (`-idirafter`).
    The kit's `game/*.cc` are compiled with them, or linked as `kit_objects` (`kit_objects()`)."""
    kit = kit_dir()
    game = kit / "game"
    after = [arg for folder in extra_dirs for arg in ("-idirafter", str(folder))]
    kit_inputs = kit_objects if kit_objects is not None else sorted(game.glob("*.cc"))
    return [
        *_kit_compiler(compiler),
        *after,
        *(str(path) for path in kit_inputs),
        *(str(Path(source)) for source in sources),
        "-o",
        str(output),
    ]


def _kit_compiler(compiler: str) -> list[str]:
    """The compiler, its flags and the kit's include folders: what every compile of the kit shares."""
    kit = kit_dir()
    return [compiler, *_FLAGS, "-fdiagnostics-color=never", "-I", str(kit / "game"), "-I", str(kit / "bots")]


KIT_OBJECTS_PREFIX = "kit-objects-"
"""`kit_objects` keeps the kit's objects in `<cache>/kit-objects-<key>/`."""


def kit_objects_key(compiler: str = CXX_ENV_DEFAULT) -> str:
    """A hash of everything the kit's objects depend on: every file of its game/ folder (the headers
    its sources include), the flags and the compiler's version."""
    digest = hashlib.sha256()
    digest.update(" ".join((*_FLAGS, compiler_version(compiler))).encode())
    for path in sorted((kit_dir() / "game").iterdir()):
        if path.is_file():
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:24]


def kit_objects(compiler: str = CXX_ENV_DEFAULT, cache: Path | None = None) -> list[Path]:
    """The kit's `game/*.cc` compiled to object files, once per content (`kit_objects_key`), kept in
    `cache` (default `cache_dir()`). Each is built beside its final name and renamed, so a concurrent
    build or a reader never sees half a file. Raises CppKitError (never a verdict on a player) when
    the kit does not compile, and OSError when the cache cannot be written."""
    folder = (cache or cache_dir()) / f"{KIT_OBJECTS_PREFIX}{kit_objects_key(compiler)}"
    sources = sorted((kit_dir() / "game").glob("*.cc"))
    objects = [folder / f"{source.stem}.o" for source in sources]
    missing = [(source, obj) for source, obj in zip(sources, objects, strict=True) if not obj.is_file()]
    if missing:
        folder.mkdir(parents=True, exist_ok=True)
    for source, obj in missing:
        partial = folder / f".{obj.name}.{os.getpid()}.partial"
        environment = {**bot_environment(), "LC_ALL": "C"}
        try:
            command = [*_kit_compiler(compiler), "-c", str(source), "-o", str(partial)]
            done = subprocess.run(command, capture_output=True, text=True, check=False, env=environment)
            if done.returncode != 0:
                raise CppKitError(f"the C++ kit's {source.name} does not compile", done.stderr)
            os.replace(partial, obj)
        finally:
            partial.unlink(missing_ok=True)
    return objects


def _as_list(sources: Sequence[str | Path] | str | Path) -> list[Path]:
    if isinstance(sources, str | Path):
        return [Path(sources)]
    return [Path(source) for source in sources]


def build_player(
    sources: Sequence[str | Path] | str | Path,
    output: str | Path,
    compiler: str = CXX_ENV_DEFAULT,
    *,
    sandbox: SandboxPolicy | None = None,
    timeout_s: float | None = None,
    cache: Path | None = None,
) -> Path:
    """Compile player source file(s) with the kit into the executable `output`.

    With `sandbox` (the bots' policy: the player is a stranger's) the compiler runs sealed, under
    `compile_policy(sandbox)` and stopped after `timeout_s` seconds (default COMPILE_TIMEOUT_S);
    without, it runs as the user, as a `make` would. The kit's objects come from `kit_objects(compiler,
    cache)`; where that cache cannot be written, the kit's sources are compiled with the player.
    Raises CppKitError with a one-line message; for a compile error it starts with the player's own
    `file:line:col` (also when g++ first reports the error inside a kit or standard header)."""
    paths = _as_list(sources)
    found = shutil.which(compiler)
    if found is None:
        raise CppKitError(f"no C++ compiler {compiler!r} on PATH (the kit needs g++ with C++17)")
    for path in paths:
        if not path.is_file():
            raise CppKitError(f"no such C++ source file: {path}")
    names = " ".join(map(str, paths))
    try:
        objects: list[Path] | None = kit_objects(found, cache)
    except OSError:  # no cache to keep them in (read-only home): the kit is compiled with the player
        objects = None
    with tempfile.TemporaryDirectory(prefix="botarena-cpp-") as scratch:
        # Each source is copied into its own folder src<i>/ which has no ../game next to it.
        copies: dict[str, Path] = {}
        for i, path in enumerate(paths):
            copied = Path(scratch) / f"src{i}" / path.name
            copied.parent.mkdir()
            shutil.copyfile(path, copied)
            copies[str(copied)] = path
        folders = list(dict.fromkeys(path.resolve().parent for path in paths))
        if sandbox is None:
            command = build_command(list(copies), output, compiler, extra_dirs=folders, kit_objects=objects)
            # plain ASCII quotes in the messages; no secret (a source can #include /proc/self/environ)
            environment = {**bot_environment(), "LC_ALL": "C"}
            done = subprocess.run(command, capture_output=True, text=True, check=False, env=environment)
            returncode, diagnostics = done.returncode, done.stderr
        else:
            returncode, diagnostics = _compile_sealed(
                Path(scratch), copies, folders, output, found, sandbox, timeout_s, names, objects
            )
        for copy_name, original in copies.items():
            diagnostics = diagnostics.replace(copy_name, str(original))
        for i, folder in enumerate(folders):
            diagnostics = diagnostics.replace(f"{scratch}/hdr{i}/", f"{folder}/")
    if returncode != 0:
        where = first_error(diagnostics, [str(path) for path in paths]) or (
            f"the compiler exited with status {returncode} and said nothing"
        )
        raise CppKitError(
            f"{names} does not compile: {where}", diagnostics, verdict=is_compiler_verdict(diagnostics)
        )
    return Path(output)


def is_compiler_verdict(diagnostics: str) -> bool:
    """True when the output holds the compiler's (or the linker's) own error about the source, not
    the failure of something around it (the sandbox, a killed process): only then is the failure
    the source's, and worth keeping."""
    for line in diagnostics.splitlines():
        parsed = _DIAGNOSTIC.match(line.strip())
        if parsed is not None and parsed["rest"].startswith(("error:", "fatal error:")):
            return True
        if "undefined reference" in line or "ld returned" in line:
            return True
    return False


def limits_tag(sandbox: SandboxPolicy | None, timeout_s: float | None) -> str:
    """The conditions a compile runs under, as a kept failure names them: "unsealed", or sealed with
    its limits (a sealed compile sees fewer files and may be stopped: its verdict is its own)."""
    if sandbox is None:
        return "unsealed"
    limit = COMPILE_TIMEOUT_S if timeout_s is None else timeout_s
    return f"sealed: {limit:g} s, {compile_policy(sandbox).memory_mb} MiB"


def compile_policy(bots: SandboxPolicy) -> SandboxPolicy:
    """The compiler's sandbox limits: the bots' CPU share, room for cc1plus and its temporary files."""
    return SandboxPolicy(
        memory_mb=max(bots.memory_mb, COMPILE_MEMORY_MB),
        pids=max(bots.pids, 32),
        cpu_cores=bots.cpu_cores,
        tmp_mb=max(bots.tmp_mb, COMPILE_TMP_MB),
    )


def _compile_sealed(
    scratch: Path,
    copies: dict[str, Path],
    folders: Sequence[Path],
    output: str | Path,
    compiler: str,
    sandbox: SandboxPolicy,
    timeout_s: float | None,
    names: str,
    objects: Sequence[Path] | None,
) -> tuple[int, str]:
    """Run the compile inside the sandbox; (exit status, diagnostics), or CppKitError on a timeout.

    It sees the read-only system, the kit's game/ and bots/ (and the folder of its compiled
    `objects`), the copied sources, copies of the headers beside them (hdr<i>/, searched last as the
    player's own folder is unsealed) and one writable folder for the executable, which is then moved
    to `output`. Nothing else: not the player's real folder (other bots may sit there), not the
    project's var/, not HOME."""
    headers: list[Path] = []
    for i, folder in enumerate(folders):
        copied = scratch / f"hdr{i}"
        copied.mkdir()
        for header in sorted(folder.iterdir()):
            # a symlink out of the folder (`x.hh -> /path/var/botarena.db`) would carry a host file in
            if header.suffix in HEADER_SUFFIXES and header.is_file() and header.resolve().parent == folder:
                shutil.copyfile(header, copied / header.name)
        headers.append(copied)
    out = scratch / "out"
    out.mkdir()
    built = out / Path(output).name
    command = build_command(list(copies), built, compiler, extra_dirs=headers, kit_objects=objects)
    limit = COMPILE_TIMEOUT_S if timeout_s is None else timeout_s
    kit = kit_dir()
    kit_folders = [kit / "game", kit / "bots", *dict.fromkeys(obj.parent for obj in objects or ())]
    visible = [*kit_folders, *(Path(name).parent for name in copies), *headers]
    policy = compile_policy(sandbox)
    try:
        done = run_sealed(
            command,
            policy=policy,
            timeout_s=limit,
            read_only=[path for path in visible if path.is_dir()],
            writable=[out],
            cwd=str(out),
            env={"LC_ALL": "C"},  # plain ASCII quotes in the messages
            max_file_mb=COMPILE_FILE_MB,
        )
    except SandboxUnavailable as exc:
        raise CppKitError(f"{names} cannot be compiled sealed: {exc}") from None
    if done.timed_out:
        raise CppKitError(
            f"{names} does not compile: the compiler ran longer than {limit:g} s and was stopped",
            done.output,
            verdict=True,
        )
    if done.returncode != 0 and done.memory_note:  # cc1plus was killed: say why, not "internal error"
        raise CppKitError(
            f"{names} does not compile: the compiler went over its {policy.memory_mb} MiB memory limit",
            done.output,
            verdict=True,
        )
    if done.returncode == 0:
        shutil.move(built, output)
    return done.returncode, done.output


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


@functools.lru_cache(maxsize=16)
def _compiler_version(compiler: str, stamp: tuple[int, int]) -> str:
    """The first line of `compiler --version`, asked once per compiler file (`stamp`: its mtime
    and size, so that a compiler upgraded in place is asked again)."""
    version = subprocess.run([compiler, "--version"], capture_output=True, text=True, check=False)
    return version.stdout.splitlines()[0] if version.stdout else ""


def compiler_version(compiler: str) -> str:
    found = shutil.which(compiler) or compiler
    try:
        info = os.stat(found)
    except OSError:
        return _compiler_version.__wrapped__(found, (0, 0))
    return _compiler_version(found, (info.st_mtime_ns, info.st_size))


def content_key(source: Path, compiler: str = CXX_ENV_DEFAULT) -> str:
    """A hash of everything the binary depends on: the player's file and the headers beside it,
    every file of the kit's game/ folder, the flags and the compiler's version."""
    digest = hashlib.sha256()
    digest.update(" ".join((*_FLAGS, compiler_version(compiler))).encode())
    beside = sorted(p for p in source.resolve().parent.iterdir() if p.suffix in HEADER_SUFFIXES)
    kit_files = sorted((kit_dir() / "game").iterdir())
    for path in [source.resolve(), *beside, *kit_files]:
        if path.is_file():
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:24]


def compile_cached(
    source: str | Path,
    compiler: str = CXX_ENV_DEFAULT,
    cache: Path | None = None,
    *,
    sandbox: SandboxPolicy | None = None,
    timeout_s: float | None = None,
) -> Path:
    """The executable built from `source`, compiled once per content (see `content_key`) and kept in
    `cache` (default `cache_dir()`); raises CppKitError as `build_player` does.

    A source that does not compile is kept as such too (`<stem>.failed.json` beside where its
    executable would be): the next call under the same conditions (unsealed, or sealed with the
    same limits: `limits_tag`) raises the same CppKitError without running the compiler.

    `sandbox` and `timeout_s` are `build_player`'s. The key does not say whether the build was
    sealed: the same compiler and flags make the same executable either way."""
    path = Path(source)
    if shutil.which(compiler) is None:
        raise CppKitError(f"no C++ compiler {compiler!r} on PATH (the kit needs g++ with C++17)")
    if not path.is_file():
        raise CppKitError(f"no such C++ source file: {path}")
    folder = (cache or cache_dir()) / content_key(path, compiler)
    binary = folder / path.stem
    if binary.is_file() and os.access(binary, os.X_OK):
        return binary
    failure = folder / f"{path.stem}{FAILURE_SUFFIX}"
    conditions = limits_tag(sandbox, timeout_s)
    known = _known_failure(failure, path, conditions)
    if known is not None:
        raise known
    folder.mkdir(parents=True, exist_ok=True)
    # Build beside the final name and rename: a concurrent build or a reader never sees half a file.
    partial = folder / f".{path.stem}.{os.getpid()}.partial"
    try:
        build_player(path, partial, compiler, sandbox=sandbox, timeout_s=timeout_s, cache=cache)
        os.replace(partial, binary)
    except CppKitError as exc:
        if exc.verdict:
            _keep_failure(failure, path, exc, conditions)
        raise
    finally:
        partial.unlink(missing_ok=True)
    return binary


FAILURE_SUFFIX = ".failed.json"
_SOURCE_MARK = "\x00source\x00"  # the player's path in a kept failure (another path may share its content)


def _keep_failure(record: Path, source: Path, error: CppKitError, conditions: str) -> None:
    """Write the failure `error` of `source` under `conditions` to `record` (whole or not at all;
    one record per content: the last conditions tried)."""
    named = str(source)
    data = {
        "message": str(error).replace(named, _SOURCE_MARK),
        "diagnostics": error.diagnostics.replace(named, _SOURCE_MARK),
        "conditions": conditions,
    }
    partial = record.with_name(f".{record.name}.{os.getpid()}.partial")
    try:
        partial.write_text(json.dumps(data), encoding="utf-8")
        os.replace(partial, record)
    except OSError:  # a cache that cannot be written costs a compile next time, nothing more
        partial.unlink(missing_ok=True)


def _known_failure(record: Path, source: Path, conditions: str) -> CppKitError | None:
    """The CppKitError kept in `record` for `source`, if it was found under `conditions`."""
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
        message, diagnostics, kept = data["message"], data["diagnostics"], data["conditions"]
    except (OSError, ValueError, KeyError, TypeError):  # none kept (or unreadable: compile again)
        return None
    if kept != conditions or not isinstance(message, str) or not isinstance(diagnostics, str):
        return None
    named = str(source)
    message, diagnostics = message.replace(_SOURCE_MARK, named), diagnostics.replace(_SOURCE_MARK, named)
    return CppKitError(message, diagnostics, verdict=True)


CPP_BUILDERS: dict[str, Callable[..., Path]] = {KIT: compile_cached}
"""Kit name (`GameInfo.kits.cpp`) -> the function that compiles a player's C++ source into a cached
executable (called as `builder(path)` or `builder(path, sandbox=policy)`): how
`botarena.bots.resolve` runs a .cc bot file."""


def main(argv: list[str] | None = None) -> int:
    """`python -m botarena.bots.cppkit SOURCE.cc... -o OUTPUT`: compile a player and print OUTPUT
    (`botarena.bots.cppkit_cli`, a typer app: imported only here, so users of the kit never pay
    for typer). Returns 0 when built, 1 on a compile error, 2 on a usage mistake."""
    from botarena.bots.cppkit_cli import main as run

    return run(argv)


if __name__ == "__main__":
    raise SystemExit(main())
