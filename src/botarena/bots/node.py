"""JavaScript bots run through a game's Node adapter kit; today GameOfDrones' 2018 bots (`drones-js`).

`node_bot("path/to/bot.js")` is a subprocess bot whose process is

    node --max-old-space-size=<heap_mb> <botarena>/kits/drones-js/adapter.mjs <absolute path/to/bot.js>

one per match (spec 7.3). The adapter loads the module with a dynamic `import()` of its file URL.
Node 20.19 and newer load a typeless `.js` file that uses `export` (no package.json, or one without
"type") as an ES module by module-syntax detection, which is on by default there, so no
`--experimental-detect-module` flag is passed. A bot folder whose package.json says
`"type": "commonjs"` opts out of detection, and such an ESM bot fails to load (its start is CRASHED,
with Node's SyntaxError in the bot's log).

The address-space limit of other subprocess bots is off for Node (V8 reserves far more address
space than it uses); V8's own heap limit takes its place.
"""

from __future__ import annotations

import importlib.resources
import os
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from botarena.bots.base import Bot
    from botarena.bots.sandbox import SandboxPolicy

MIN_NODE = (20, 19, 0)
"""The oldest Node.js that loads typeless ESM `.js` bots without flags (spec 7.3)."""
NODE_ENV = "BOTARENA_NODE"
"""Environment variable naming the node executable to use instead of `node` on PATH."""
DEFAULT_HEAP_MB = 1024
DEFAULT_KIT = "drones-js"
ADAPTER_FILE = "adapter.mjs"


class NodeUnavailableError(OSError):
    """Node.js is missing or too old to run 2018 JavaScript bots; the message says what to do."""


def find_node() -> str | None:
    """The node executable: $BOTARENA_NODE if set, else `node` on PATH; None if there is none."""
    configured = os.environ.get(NODE_ENV)
    if configured:
        return shutil.which(configured) or (configured if os.path.isfile(configured) else None)
    return shutil.which("node")


@lru_cache(maxsize=8)
def _version_of(node: str) -> tuple[int, int, int] | None:
    try:
        done = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.fullmatch(r"v?(\d+)\.(\d+)\.(\d+)\S*", done.stdout.strip())
    if done.returncode != 0 or match is None:
        return None
    major, minor, patch = (int(part) for part in match.groups())
    return major, minor, patch


def node_version(node: str | None = None) -> tuple[int, int, int] | None:
    """The (major, minor, patch) of `node` (default: `find_node()`), or None if it cannot be run."""
    node = node or find_node()
    if node is None:
        return None
    return _version_of(node)


def check_node(node: str | None = None) -> str:
    """The node executable to use; raises NodeUnavailableError if it is missing or older than 20.19."""
    node = node or find_node()
    wanted = ".".join(map(str, MIN_NODE))
    if node is None:
        configured = os.environ.get(NODE_ENV)
        where = f"{NODE_ENV}={configured} is not an executable" if configured else "`node` is not on PATH"
        raise NodeUnavailableError(
            f"Node.js {wanted} or newer is needed to run JavaScript bots, and {where} "
            f"(install Node.js, or set {NODE_ENV} to the node executable)"
        )
    version = _version_of(node)
    if version is None:
        raise NodeUnavailableError(f"cannot run {node} --version; Node.js {wanted} or newer is needed")
    if version < MIN_NODE:
        found = ".".join(map(str, version))
        raise NodeUnavailableError(
            f"Node.js {found} at {node} is too old: JavaScript bots need {wanted} or newer "
            "(older versions do not load typeless ES module .js files)"
        )
    return node


def find_adapter(kit: str = DEFAULT_KIT) -> Path:
    """adapter.mjs of a kit in the installed wheel (`botarena/_kits/<kit>`), or in the source checkout."""
    parts = (kit, ADAPTER_FILE)
    installed = importlib.resources.files("botarena").joinpath("_kits", *parts)
    if installed.is_file():
        return Path(str(installed))
    for folder in Path(__file__).resolve().parents:
        candidate = folder.joinpath("kits", *parts)
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(
        f"the JavaScript adapter kits/{kit}/{ADAPTER_FILE} is missing from this installation"
    )


def node_command(
    path: str | os.PathLike[str],
    *,
    node: str | None = None,
    heap_mb: int | None = DEFAULT_HEAP_MB,
    node_flags: Sequence[str] = (),
    kit: str = DEFAULT_KIT,
) -> list[str]:
    """The argv that runs the bot at `path` through the kit's adapter (checks node's version)."""
    flags = list(node_flags)
    if heap_mb is not None:
        flags.append(f"--max-old-space-size={int(heap_mb)}")
    return [check_node(node), *flags, str(find_adapter(kit)), os.path.abspath(path)]


def node_bot(
    path: str | os.PathLike[str],
    *,
    name: str | None = None,
    node: str | None = None,
    env: Mapping[str, str] | None = None,
    heap_mb: int | None = DEFAULT_HEAP_MB,
    node_flags: Sequence[str] = (),
    stderr_cap_bytes: int = 64 * 1024,
    kit: str = DEFAULT_KIT,
    sandbox: SandboxPolicy | None = None,
) -> Bot:
    """A bot that runs the 2018 GameOfDrones JavaScript module at `path` through the Node adapter.

    With `sandbox`, the adapter runs sealed (botarena.bots.sandbox): the bot file and the kit's
    folder are bound read-only, and memory is capped by the cgroup as well as by V8's heap limit.

    One adapter process per match. `env` replaces the process environment (None: the runner's,
    without the platform's secrets). A missing or broken bot file is not an error here: its start
    exchange is CRASHED (`bot_error`), with the reason in the bot's log. Raises NodeUnavailableError
    if node is missing or too old.
    """
    from botarena.bots.subprocess import SubprocessBot  # the transport layer, only when a bot is made

    argv = node_command(path, node=node, heap_mb=heap_mb, node_flags=node_flags, kit=kit)
    return SubprocessBot(
        argv,
        name=name or Path(path).stem,
        env=env,
        memory_limit_mb=None,
        stderr_cap_bytes=stderr_cap_bytes,
        kind="node",
        sandbox=sandbox,
        bot_files=[os.path.abspath(path), str(find_adapter(kit).parent)],
    )
