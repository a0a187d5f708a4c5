"""Turn a command-line bot spec into a Bot: a starter bot's name, a Python file, a JavaScript file
(for games with a JS adapter), an http(s) URL, or a command line.

    zergy                   a starter bot of the game, in-process
    path/to/bot.py          a Python file, in-process: `create_bot()`, a `Bot` class, or an `act` function
    path/to/bot.js          a 2018-style JavaScript bot through the game's Node adapter (drones)
    path/to/AIMyBot.cc      a C++ player, compiled with the game's C++ kit (domains; cached by content)
    path/to/mybot/          a folder: its entry is the first of FOLDER_ENTRIES (bot.py, main.py, bot.js,
                            main.js, or an executable run or bot); the whole folder is the bot's
    http://127.0.0.1:8080   an HTTP bot (the generic binding)
    "python3 my_bot.py"     any command line speaking the generic JSON-lines protocol
    cmd:./my_bot            the same, explicitly

How far the bots are trusted is the caller's `Isolation`: `botarena play` trusts them (TRUSTED: a .py
file runs in-process), tournaments and the server do not (`untrusted()`: a .py file runs as a
subprocess through the Python kit, and every bot process runs in the sandbox). Starter bots are the
game's own code and always run in-process.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from botarena.bots.base import Bot
from botarena.bots.inprocess import BotExit, PythonBot, exit_guarded
from botarena.bots.sandbox import SandboxPolicy
from botarena.core.game import GameInfo
from botarena.core.registry import LayerHook
from botarena.kit import module_bot_factory

UrlBotFactory = Callable[[str], Bot]
"""What reaches an http(s) URL through a game's own HTTP contract (`GameInfo.url_bot`)."""

URL_BOTS: LayerHook[UrlBotFactory] = LayerHook(lambda game: game.url_bot)
"""Each game's URL-bot factory: `URL_BOTS.register(game_id, factory)` gives one to a game that does
not declare `GameInfo.url_bot`."""
register_url_bot = URL_BOTS.register


def url_bot_factory(game: GameInfo[Any]) -> UrlBotFactory | None:
    """How `game` reaches a URL bot: registered here, else its own `GameInfo.url_bot`; None means
    the generic `HttpBot` (the generic binding of the JSON-lines protocol)."""
    return URL_BOTS.of(game)


@dataclass(frozen=True)
class Isolation:
    """How far to trust the bots a spec names (picklable: it travels to tournament workers)."""

    python_in_process: bool = True
    """A .py entrant file runs in-process (trusted: only for `play`); else as a kit subprocess."""
    sandbox: SandboxPolicy | None = None
    """Every bot process runs sandboxed with this policy (None: unsandboxed)."""


TRUSTED = Isolation()
"""`botarena play`'s default: the person at the keyboard runs their own code."""


def untrusted(sandbox: SandboxPolicy | None = SandboxPolicy()) -> Isolation:  # noqa: B008 - a frozen dataclass, safe to share
    """Isolation for strangers' code: .py files as kit subprocesses, sandboxed with `sandbox` if given."""
    return Isolation(python_in_process=False, sandbox=sandbox)


class BotSpecError(ValueError):
    """A bot spec that names nothing playable; the message says what was tried."""


def _load_module(path: Path) -> ModuleType:
    name = f"botarena_user_bot_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise BotSpecError(f"cannot load Python bot {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        with exit_guarded():  # module-level code that ends the process ends only the import
            spec.loader.exec_module(module)
    except SystemExit as exc:  # sys.exit(), or os._exit() (BotExit) while guarded
        how = f"os._exit({exc.code})" if isinstance(exc, BotExit) else f"sys.exit({exc.code!r})"
        raise BotSpecError(
            f"cannot load Python bot {path}: it ended the process while being imported ({how})"
        ) from None
    except Exception as exc:  # a bot file's own error: report it in one line
        raise BotSpecError(f"cannot load Python bot {path}: {type(exc).__name__}: {exc}") from None
    return module


def python_file_factory(path: Path) -> Callable[[], Any]:
    """The bot factory a Python file defines: `create_bot()`, a `Bot` class, or module-level `act`."""
    module = _load_module(path)
    factory = module_bot_factory(module)
    if factory is not None:
        return factory
    raise BotSpecError(f"{path} defines no create_bot(), Bot class or act() function")


def resolve_bot(spec: str, game: GameInfo[Any], *, isolation: Isolation = TRUSTED) -> Bot:
    """The Bot a spec names for `game` (raises BotSpecError with a one-line reason)."""
    if spec in game.starter_bots:
        return PythonBot(game.starter_bots[spec], name=spec)
    if spec.startswith(("http://", "https://")):
        native = url_bot_factory(game)
        if native is not None:  # the game's own HTTP contract
            return native(spec)
        from botarena.bots.http import HttpBot

        return HttpBot(spec)
    if spec.startswith("cmd:"):
        return _command_bot(spec[4:], isolation)
    path = Path(spec)
    if is_dir(spec):
        return _folder_bot(path.absolute(), game, spec, isolation)
    if is_file(spec) and path.suffix.lower() in CPP_SUFFIXES:
        return _command_bot(shlex.quote(str(_compile_cpp(path, game, spec, isolation))), isolation)
    if is_file(spec):
        suffix = _file_kind(path, game, spec)
        if suffix == ".py":
            if not isolation.python_in_process:
                return _python_kit_bot(path, isolation)
            return PythonBot(python_file_factory(path), name=path.stem)
        if suffix == ".js":
            from botarena.bots.node import node_bot

            return node_bot(path, kit=str(game.kits.js), sandbox=isolation.sandbox)
        # the path as given: `str(Path("./mybot"))` is "mybot", which exec would look up on PATH
        return _command_bot(shlex.quote(str(path.absolute())), isolation)
    _check_command_spec(spec, game)
    return _command_bot(spec, isolation)


def check_spec(spec: str, game: GameInfo[Any], *, isolation: Isolation = TRUSTED) -> None:
    """Validate a spec without importing or running any entrant code (raises BotSpecError).

    For a .py file under TRUSTED isolation this only checks that the file exists: loading it would
    run it. The sandbox itself is checked by `botarena.bots.sandbox.check_sandbox`.
    """
    if spec in game.starter_bots or spec.startswith(("http://", "https://")):
        return
    if spec.startswith("cmd:"):
        split_command(spec[4:])
        return
    path = Path(spec)
    if is_file(spec) and path.suffix.lower() in CPP_SUFFIXES:
        _cpp_builder(game, spec)
        return
    if is_dir(spec) or is_file(spec):
        entry = folder_entry(path) if is_dir(spec) else path
        if _file_kind(entry, game, spec) == ".js":
            from botarena.bots.node import NodeUnavailableError, check_node

            try:
                check_node()
            except NodeUnavailableError as exc:
                raise BotSpecError(str(exc)) from None
        return
    _check_command_spec(spec, game)
    split_command(spec)


FOLDER_ENTRIES = ("bot.py", "main.py", "bot.js", "main.js", "run", "bot")
"""A folder bot's entry: the first of these that exists (`run` and `bot` must be executable)."""


def folder_entry(folder: Path) -> Path:
    """The file a folder bot starts from (BotSpecError listing what was looked for if none)."""
    for name in FOLDER_ENTRIES:
        candidate = folder / name
        if is_file(candidate) and (candidate.suffix in (".py", ".js") or os.access(candidate, os.X_OK)):
            return candidate
    raise BotSpecError(
        f"{folder} is a folder with no bot in it: looked for {', '.join(FOLDER_ENTRIES[:4])} "
        "or an executable run or bot"
    )


def _folder_bot(folder: Path, game: GameInfo[Any], spec: str, isolation: Isolation) -> Bot:
    """A folder bot: its entry runs as a process with the whole folder visible (bound read-only in
    the sandbox, its working directory), so it can import or read its other files."""
    from botarena.bots.subprocess import SubprocessBot

    entry = folder_entry(folder)
    kind = _file_kind(entry, game, spec)
    if kind == ".py":
        # Always its own interpreter, trusted or not: two folder bots in one process would share
        # sys.modules, and the second one's `import helper` would get the first one's module.
        argv = [sys.executable, "-m", "botarena.kit", str(entry)]
        return SubprocessBot(
            argv,
            name=folder.name,
            sandbox=isolation.sandbox,
            bot_files=[folder],
            cwd=str(folder),
            kind="python-kit",
        )
    if kind == ".js":
        from botarena.bots.node import node_bot

        bot = node_bot(entry, name=folder.name, kit=str(game.kits.js), sandbox=isolation.sandbox)
        if isinstance(bot, SubprocessBot):
            bot.bot_files.append(str(folder))  # its modules beside the entry, for `import`
        return bot
    return SubprocessBot(
        [str(entry)], name=folder.name, sandbox=isolation.sandbox, bot_files=[folder], cwd=str(folder)
    )


CPP_SUFFIXES = (".cc", ".cpp", ".cxx")
"""A bot file with one of these suffixes is C++ source for the game's C++ kit (`GameInfo.kits.cpp`)."""


def _cpp_builder(game: GameInfo[Any], spec: str) -> Callable[..., Path]:
    """The function that compiles a player's source for the game's C++ kit into a cached executable."""
    from botarena.bots.cppkit import CPP_BUILDERS

    builder = CPP_BUILDERS.get(game.kits.cpp) if game.kits.cpp is not None else None
    if builder is None:
        raise BotSpecError(f"{game.id} has no C++ kit; compile {spec} yourself and give the executable")
    return builder


def _compile_cpp(path: Path, game: GameInfo[Any], spec: str, isolation: Isolation) -> Path:
    """Compile (or find in the cache) a C++ player; a compile error is a one-line BotSpecError.

    Under a sandbox the compiler runs sealed too (`sandbox=` the bots' policy): a stranger's source
    could otherwise `#include` the host's files into its error message, or exhaust the host."""
    builder = _cpp_builder(game, spec)
    try:
        if isolation.sandbox is not None:
            return builder(path, sandbox=isolation.sandbox)
        return builder(path)
    except RuntimeError as exc:  # the kit's CppKitError: already one line, at the player's own line
        raise BotSpecError(str(exc)) from None


def _file_kind(path: Path, game: GameInfo[Any], spec: str) -> str:
    """ ".py", ".js" or "exe" for a bot file, or BotSpecError saying why it is none of them."""
    suffix = path.suffix.lower()
    if suffix == ".py":
        return ".py"
    if suffix in (".js", ".mjs"):
        if game.kits.js is None:
            raise BotSpecError(f"{game.id} has no JavaScript adapter; run {spec} as a command instead")
        return ".js"
    if os.access(path, os.X_OK):
        return "exe"
    raise BotSpecError(f"{spec} is not a .py or .js bot and not executable")


def _check_command_spec(spec: str, game: GameInfo[Any]) -> None:
    """A spec that is not a file must at least look like a command line."""
    if not any(ch.isspace() for ch in spec):
        starters = ", ".join(sorted(game.starter_bots))
        raise BotSpecError(
            f"unknown bot {shown_spec(spec)}: not a starter bot of {game.id} ({starters}), "
            "a file, a folder, a URL or a command line"
        )


def is_file(path: str | os.PathLike[str]) -> bool:
    """Whether `path` is a file. A person's argument may be no possible file name at all (a name
    over NAME_MAX, a path over PATH_MAX): that is no file, where `Path.is_file` would raise
    `[Errno 36] File name too long`."""
    return os.path.isfile(path)


def is_dir(path: str | os.PathLike[str]) -> bool:
    """Whether `path` is a folder (False, never an error, for a name no file can have: see is_file)."""
    return os.path.isdir(path)


SHOWN_SPEC_CHARS = 120


def shown_spec(spec: str) -> str:
    """`spec` quoted for a one-line message, its middle cut when it is longer than SHOWN_SPEC_CHARS."""
    if len(spec) <= SHOWN_SPEC_CHARS:
        return repr(spec)
    keep = SHOWN_SPEC_CHARS // 2
    return f"{spec[:keep]!r}...{spec[-keep:]!r} ({len(spec)} characters)"


def _python_kit_bot(path: Path, isolation: Isolation) -> Bot:
    """An entrant's Python file as a subprocess through the kit: it never shares the engine's process."""
    from botarena.bots.subprocess import SubprocessBot

    source = path.resolve()
    return SubprocessBot(
        [sys.executable, "-m", "botarena.kit", str(source)],
        name=path.stem,
        sandbox=isolation.sandbox,
        bot_files=[source],
        kind="python-kit",
    )


def split_command(command: str) -> list[str]:
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise BotSpecError(f"cannot parse command {command!r}: {exc}") from None
    if not argv:
        raise BotSpecError("empty command line")
    return argv


def command_files(argv: list[str]) -> list[Path]:
    """The files and folders a command line names (its program and path arguments): the bot's own files.

    System paths (under /usr) are left out: the sandbox shows the system read-only anyway.
    """
    found: list[Path] = []
    for arg in argv:
        for candidate in (arg, *arg.split("=", 1)[1:], *arg.split(":")):  # -cp a:b, --file=x
            if not candidate or candidate.startswith("-"):
                continue
            path = Path(candidate).absolute()
            system = path == Path("/") or str(path).startswith("/usr/")
            if os.path.exists(path) and not system and path not in found:
                found.append(path)
    return found


RESERVING_RUNTIMES = frozenset({"java", "node", "nodejs", "dotnet"})
"""Runtimes that reserve far more address space than they use: no RLIMIT_AS for them (unsandboxed;
sandboxed, memory is the cgroup's business for every bot)."""


def _with_own_interpreter(argv: list[str]) -> list[str]:
    """`python3 -m botarena.kit bot.py` runs with the interpreter that runs botarena: a `python3` on
    PATH outside the venv has no botarena (the kit's README command must work unactivated)."""
    if len(argv) >= 3 and argv[1:3] == ["-m", "botarena.kit"] and PYTHON_NAME.fullmatch(Path(argv[0]).name):
        return [sys.executable, *argv[1:]]
    return argv


PYTHON_NAME = re.compile(r"python(3(\.\d+)?)?")
"""Interpreter names that `_with_own_interpreter` replaces."""


def _command_bot(command: str, isolation: Isolation = TRUSTED) -> Bot:
    from botarena.bots.subprocess import SubprocessBot

    argv = _with_own_interpreter(split_command(command))
    sandbox = isolation.sandbox
    files = command_files(argv) if sandbox is not None else []
    name = Path(argv[-1] if len(argv) > 1 else argv[0]).name
    memory = None if Path(argv[0]).name in RESERVING_RUNTIMES else 1024
    return SubprocessBot(argv, name=name, sandbox=sandbox, bot_files=files, memory_limit_mb=memory)
