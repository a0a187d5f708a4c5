"""The sandbox around every untrusted bot process: bubblewrap for what it sees, cgroups for what it uses.

A sandboxed bot process (`SubprocessBot(..., sandbox=SandboxPolicy())`) runs as

    bwrap --unshare-all --die-with-parent --new-session --cap-drop ALL <a minimal filesystem> -- argv

inside a fresh cgroup that limits its whole process tree:

- no network: a new network namespace with only its own loopback;
- a read-only system (/usr and the /lib, /bin symlinks, a handful of /etc files the dynamic loader,
  `alternatives` and the JVM need), the Python interpreter and the botarena package read-only (for
  the Python kit), the bot's own files read-only at their own paths, and nothing else: not the
  project's var/, not HOME, not the checkout, not other bots;
- a private, size-capped, writable tmpfs at /tmp, which is also HOME;
- a new PID namespace, `--die-with-parent` and a new session: when the bot's process goes, every
  descendant goes with it, setsid'd double-forked daemons included;
- a cgroup (v2 when the machine has a usable v2 hierarchy, else v1) capping memory, process count and
  CPU of the whole tree. The process joins it between fork and exec, before any bot code runs, and
  `close` kills whatever is left in it and removes it.

`run_sealed` runs one command the same way to completion (read-only inputs, one writable folder, a
wall-clock timeout): the C++ kit compiles a stranger's player with it.

If cgroups cannot be set up for one bot (`Cgroup.create` fails), the bot falls back to an address-space
limit (RLIMIT_AS) and says so in its log; `check_sandbox` refuses such a machine up front, which is
what tournaments and the server call.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import IO

BWRAP_ENV = "BOTARENA_BWRAP"
"""Environment variable naming the bwrap executable to use instead of `bwrap` on PATH."""
CGROUP_PREFIX = "botarena-"
"""Name prefix of the per-bot cgroups this module creates (and removes)."""
V1_CONTROLLERS = ("memory", "pids", "cpu")
"""The cgroup v1 controllers a sandbox needs; the freezer is used too when it is there."""
CPU_PERIOD_US = 100_000
KILL_WAIT_S = 5.0
"""Upper bound on waiting for a killed cgroup to empty (it normally takes a few milliseconds)."""

_ETC_FILES = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",  # /usr/bin/java and friends are symlinks through here
    "/etc/localtime",
)
"""The few /etc entries a bot's runtime needs; passwd, hosts, the rest of /etc stay hidden."""


@dataclass(frozen=True)
class SandboxPolicy:
    """Limits for one bot's whole process tree."""

    memory_mb: int = 1024
    """cgroup memory limit of the whole tree (swap included where the kernel accounts it)."""
    pids: int = 64
    """cgroup limit on processes and threads of the whole tree."""
    cpu_cores: float = 1.0
    """cgroup CPU quota of the whole tree, in cores."""
    tmp_mb: int = 64
    """Size of the private writable /tmp (also HOME)."""

    def __post_init__(self) -> None:
        if self.memory_mb < 16 or self.pids < 4 or self.cpu_cores <= 0 or self.tmp_mb < 1:
            raise ValueError(f"sandbox limits out of range: {self}")


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot be set up on this machine; str(exc) is one line naming the missing piece."""


# -- bubblewrap -------------------------------------------------------------------------------------
def find_bwrap() -> str | None:
    """The bwrap executable: $BOTARENA_BWRAP if set, else `bwrap` on PATH; None if there is none."""
    configured = os.environ.get(BWRAP_ENV)
    if configured:
        return shutil.which(configured)
    return shutil.which("bwrap")


@lru_cache(maxsize=1)
def _python_roots() -> tuple[Path, ...]:
    """What the Python kit needs to run inside the sandbox: the interpreter's prefixes and botarena.

    An editable install points into a checkout: only its botarena package folder is bound, never
    the checkout around it (which holds var/ and everything else).
    """
    import botarena

    roots = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix), Path(sys.base_exec_prefix)}
    roots.add(Path(sys.executable).resolve().parent.parent)
    roots.add(Path(botarena.__file__).resolve().parent)
    return tuple(sorted(roots))


def package_parent() -> str:
    """The folder holding the botarena package (PYTHONPATH inside the sandbox)."""
    import botarena

    return str(Path(botarena.__file__).resolve().parent.parent)


@lru_cache(maxsize=1)
def _system_mounts() -> tuple[str, ...]:
    """bwrap arguments for the read-only system: /usr, the merged-/usr symlinks, a minimal /etc."""
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        top = Path("/") / name
        if top.is_symlink():
            args += ["--symlink", os.readlink(top), str(top)]
        elif top.is_dir():
            args += ["--ro-bind", str(top), str(top)]
    etc = list(_ETC_FILES) + [str(path) for path in sorted(Path("/etc").glob("java-*"))]
    for entry in etc:
        if os.path.lexists(entry):
            args += ["--ro-bind", entry, entry]
    return tuple(args)


def _under_tmp(path: Path) -> bool:
    return len(path.parts) > 2 and path.parts[1] == "tmp"


def _covered(path: Path, roots: Iterable[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


def sandbox_env(env: Mapping[str, str] | None) -> dict[str, str]:
    """The environment inside the sandbox: a clean one (nothing of the runner's leaks in) plus `env`.

    `env` is the bot's own environment when one was given; the runner's environment is never passed
    through, since it may hold credentials (database URLs, tokens).
    """
    bin_dirs = [str(Path(sys.executable).parent), "/usr/local/bin", "/usr/bin", "/bin"]
    clean = {
        "PATH": ":".join(dict.fromkeys(bin_dirs)),
        "HOME": "/tmp",
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "PYTHONPATH": package_parent(),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    if env is not None:
        for key, value in env.items():
            if key not in ("PATH", "PYTHONPATH", "HOME", "TMPDIR"):
                clean[key] = value
    return clean


def bwrap_argv(
    argv: Sequence[str],
    *,
    policy: SandboxPolicy,
    bot_files: Sequence[str | os.PathLike[str]] = (),
    cwd: str | None = None,
    bwrap: str | None = None,
    writable: Sequence[str | os.PathLike[str]] = (),
) -> list[str]:
    """The bwrap command line that runs `argv` sealed, with `bot_files` bound read-only.

    The working directory inside is `cwd` (default: the runner's), so the command's relative paths to
    the bot's files resolve as outside; it is an empty read-only folder unless it is one of the bot's
    own, and /tmp when the bot has no files. Relative `bot_files` are taken from there too.
    `writable` are existing folders bound read-write (a build's output folder; bots get none).
    """
    exe = bwrap or find_bwrap()
    if exe is None:
        raise SandboxUnavailable(_MISSING_BWRAP)
    base = Path(cwd or os.getcwd())
    args = [exe, "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    args += _system_mounts()  # the machine's layout: computed once
    # /tmp first: bot files that live under /tmp are bound over it afterwards, not hidden by it.
    args += ["--size", str(policy.tmp_mb << 20), "--tmpfs", "/tmp"]
    args += ["--proc", "/proc", "--dev", "/dev"]
    bound: list[Path] = []
    for root in _python_roots():
        if root.is_dir() and not _covered(root, [Path("/usr")]) and not _covered(root, bound):
            args += ["--ro-bind", str(root), str(root)]
            bound.append(root)
    files: list[Path] = []
    for item in bot_files:
        path = Path(os.path.abspath(base / Path(item)))
        if (
            os.path.exists(path)
            and not _covered(path, [Path("/usr")])
            and path not in (Path("/"), Path("/tmp"))
        ):
            files.append(path)
    rw = [Path(os.path.abspath(base / Path(item))) for item in writable]
    for path in rw:
        if not path.is_dir() or path in (Path("/"), Path("/tmp")) or _covered(path, [Path("/usr")]):
            raise ValueError(f"a writable sandbox folder must be an existing folder of its own: {path}")
    own = [path if path.is_dir() else path.parent for path in [*files, *rw]]
    workdir = os.path.abspath(cwd or os.getcwd())
    if not _covered(Path(workdir), own) and not files:
        workdir = "/tmp"
    # Paths under /tmp would sit on the writable tmpfs: each gets a read-only tmpfs of its own
    # (at /tmp/<first part>), so the folders around the bot's files are read-only as everywhere else.
    sealed = sorted(
        {Path("/tmp", path.parts[2]) for path in [*files, *rw, Path(workdir)] if _under_tmp(path)}
    )
    for top in sealed:
        args += ["--tmpfs", str(top)]
    for path in files:
        args += ["--ro-bind", str(path), str(path)]
    for path in rw:  # before the remounts below: its mount point is made while the tmpfs is writable
        args += ["--bind", str(path), str(path)]
    if workdir != "/tmp" and not _covered(Path(workdir), own):
        # an empty read-only folder, from which the command's relative paths still resolve
        args += ["--dir", workdir]
    for top in sealed:
        args += ["--remount-ro", str(top)]
    args += ["--remount-ro", "/", "--chdir", workdir, "--"]
    return args + list(argv)


_MISSING_BWRAP = "bubblewrap (bwrap) not found: apt-get install bubblewrap, or pass --unsandboxed"


# -- cgroups ----------------------------------------------------------------------------------------
def _mounts() -> list[tuple[str, str, list[str]]]:
    """(mount point, fs type, options) of every cgroup mount."""
    found = []
    try:
        with open("/proc/self/mounts", encoding="utf-8") as mounts:
            for line in mounts:
                fields = line.split()
                if len(fields) >= 4 and fields[2] in ("cgroup", "cgroup2"):
                    found.append((fields[1].replace("\\040", " "), fields[2], fields[3].split(",")))
    except OSError:
        pass
    return found


def _own_cgroups() -> dict[str, str]:
    """This process's cgroup path per v1 controller name, and under "" its v2 path."""
    paths: dict[str, str] = {}
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as lines:
            for line in lines:
                _hier, controllers, path = line.rstrip("\n").split(":", 2)
                for controller in controllers.split(","):
                    paths[controller] = path
    except (OSError, ValueError):
        pass
    return paths


def _base(mount: str, own: str | None) -> Path:
    """Where to create bot cgroups: beside this process (below its own cgroup), else the mount's root."""
    if own:
        candidate = Path(mount) / own.lstrip("/")
        if candidate.is_dir() and os.access(candidate, os.W_OK):
            return candidate
    return Path(mount)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return ""


def _write(path: Path, value: str) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(value)


@dataclass(frozen=True)
class CgroupLayout:
    """Where bot cgroups go on this machine: v2 (one folder) or v1 (one folder per controller)."""

    version: int
    bases: dict[str, Path]
    """controller name -> the folder new cgroups are made in (v2: the single key "unified")."""


def _v2_layout() -> CgroupLayout | None:
    own = _own_cgroups().get("")
    for mount, fstype, _options in _mounts():
        if fstype != "cgroup2":
            continue
        base = _base(mount, own)
        wanted = {"memory", "pids", "cpu"}
        if not wanted <= set(_read(base / "cgroup.controllers").split()):
            continue
        enabled = set(_read(base / "cgroup.subtree_control").split())
        if not wanted <= enabled and not _enable_v2(base, wanted):
            continue
        return CgroupLayout(2, {"unified": base})
    return None


def _enable_v2(base: Path, wanted: set[str]) -> bool:
    """Enable `wanted` controllers for the children of `base`; whether they are enabled now.

    v2 allows that only in a cgroup without processes of its own. When the only process in `base` is
    this one (a runner started in a delegated cgroup, e.g. `systemd-run --scope -p Delegate=yes`),
    it moves itself into a leaf (`botarena-runner-<pid>`) first; processes it starts later are born
    there. Anything else in `base` is left alone, and v2 is not used.
    """
    control = " ".join(f"+{name}" for name in sorted(wanted))
    try:
        _write(base / "cgroup.subtree_control", control)
        return True
    except OSError as exc:
        if exc.errno != errno.EBUSY:
            return False
    if _read(base / "cgroup.procs").split() != [str(os.getpid())]:
        return False
    leaf = base / f"{CGROUP_PREFIX}runner-{os.getpid()}"
    try:
        leaf.mkdir(exist_ok=True)
        _write(leaf / "cgroup.procs", "0")
        _write(base / "cgroup.subtree_control", control)
    except OSError:
        return False
    return True


def _v1_layout() -> CgroupLayout | None:
    own = _own_cgroups()
    bases: dict[str, Path] = {}
    for mount, fstype, options in _mounts():
        if fstype != "cgroup":
            continue
        for controller in (*V1_CONTROLLERS, "freezer"):
            if controller in options and controller not in bases:
                base = _base(mount, own.get(controller))
                if os.access(base, os.W_OK):
                    bases[controller] = base
    if not all(controller in bases for controller in V1_CONTROLLERS):
        return None
    return CgroupLayout(1, bases)


@lru_cache(maxsize=1)
def cgroup_layout() -> CgroupLayout | None:
    """The machine's usable cgroup layout: v2 if usable, else v1; None if neither is writable."""
    return _v2_layout() or _v1_layout()


_counter = itertools.count(1)


class Cgroup:
    """One bot's cgroup(s): created with the policy's limits, joined before exec, killed and removed."""

    def __init__(self, layout: CgroupLayout, dirs: dict[str, Path]) -> None:
        self.layout = layout
        self.dirs = dirs

    @classmethod
    def create(cls, policy: SandboxPolicy, layout: CgroupLayout | None = None) -> Cgroup:
        """A new cgroup with `policy`'s limits; raises OSError if it cannot be made."""
        layout = layout or cgroup_layout()
        if layout is None:
            raise OSError(errno.ENOTSUP, "no writable cgroup hierarchy (v2 or v1 memory, pids, cpu)")
        _sweep_once(layout)
        name = f"{CGROUP_PREFIX}{os.getpid()}-{next(_counter)}-{os.urandom(3).hex()}"
        group = cls(layout, {})
        try:
            for controller, base in layout.bases.items():
                folder = base / name
                folder.mkdir()
                group.dirs[controller] = folder
            group._limit(policy)
        except OSError:
            group.remove()
            raise
        return group

    def _limit(self, policy: SandboxPolicy) -> None:
        memory = policy.memory_mb << 20
        quota = max(1000, int(policy.cpu_cores * CPU_PERIOD_US))
        if self.layout.version == 2:
            folder = self.dirs["unified"]
            _write(folder / "memory.max", str(memory))
            with contextlib.suppress(OSError):  # no swap accounting on this kernel: nothing to cap
                _write(folder / "memory.swap.max", "0")
            _write(folder / "pids.max", str(policy.pids))
            _write(folder / "cpu.max", f"{quota} {CPU_PERIOD_US}")
            return
        _write(self.dirs["memory"] / "memory.limit_in_bytes", str(memory))
        with contextlib.suppress(OSError):  # memsw exists only with swap accounting on
            _write(self.dirs["memory"] / "memory.memsw.limit_in_bytes", str(memory))
        _write(self.dirs["pids"] / "pids.max", str(policy.pids))
        _write(self.dirs["cpu"] / "cpu.cfs_period_us", str(CPU_PERIOD_US))
        _write(self.dirs["cpu"] / "cpu.cfs_quota_us", str(quota))

    @property
    def procs_files(self) -> list[str]:
        """The cgroup.procs files a new process writes itself into."""
        return [str(folder / "cgroup.procs") for folder in self.dirs.values()]

    def preexec(self, extra: Callable[[], None] | None = None) -> Callable[[], None]:
        """The child-side step between fork and exec: join every cgroup (writing "0" means "me").

        Only os.open/os.write/os.close: no imports, no allocation to speak of.
        """
        files = [os.fsencode(path) for path in self.procs_files]
        open_, write, close, flags = os.open, os.write, os.close, os.O_WRONLY

        def join() -> None:
            for path in files:
                fd = open_(path, flags)
                try:
                    write(fd, b"0")
                finally:
                    close(fd)
            if extra is not None:
                extra()

        return join

    def pids(self) -> list[int]:
        """The processes in the cgroup now."""
        folder = self.dirs.get("unified") or self.dirs.get("pids") or next(iter(self.dirs.values()))
        return [int(pid) for pid in _read(folder / "cgroup.procs").split()]

    def kill(self) -> None:
        """Kill every process in the cgroup and wait (bounded) until it is empty."""
        if not self.dirs:
            return
        if self.layout.version == 2:
            with contextlib.suppress(OSError):
                _write(self.dirs["unified"] / "cgroup.kill", "1")
        freezer = self.dirs.get("freezer")
        if freezer is not None and self.pids():
            with contextlib.suppress(OSError):  # frozen, nothing can fork while it is being killed
                _write(freezer / "freezer.state", "FROZEN")
        deadline = time.monotonic() + KILL_WAIT_S
        pause = 0.0005
        while True:
            left = self.pids()
            if not left:
                break
            for pid in left:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            if freezer is not None:
                with contextlib.suppress(OSError):  # SIGKILL is delivered once the tasks thaw
                    _write(freezer / "freezer.state", "THAWED")
            if time.monotonic() > deadline:
                break
            time.sleep(pause)
            pause = min(pause * 2, 0.01)

    def remove(self) -> None:
        """Remove the cgroup folders (after `kill`); bounded retries while the kernel releases them."""
        deadline = time.monotonic() + KILL_WAIT_S
        for controller, folder in list(self.dirs.items()):
            pause = 0.0005
            while True:
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError as exc:
                    if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                        break
                    time.sleep(pause)
                    pause = min(pause * 2, 0.01)
            del self.dirs[controller]

    def memory_events(self) -> str:
        """A short note on whether the memory limit was hit (for the bot's log), or ''."""
        if self.layout.version == 2:
            folder = self.dirs.get("unified")
            if folder is None:
                return ""
            return _oom_kill_note(_read(folder / "memory.events"))
        folder = self.dirs.get("memory")
        if folder is None:
            return ""
        note = _oom_kill_note(_read(folder / "memory.oom_control"))
        if note:
            return note
        failures = _read(folder / "memory.failcnt").strip()
        return f"memory limit hit {failures} time(s)" if failures not in ("", "0") else ""


def _oom_kill_note(counters: str) -> str:
    """The note for an `oom_kill N` line of a cgroup's memory counters (v2 memory.events, v1
    memory.oom_control) when N > 0, else ''."""
    for line in counters.splitlines():
        name, _, count = line.partition(" ")
        if name == "oom_kill" and count.strip() not in ("", "0"):
            return f"memory limit hit: {count.strip()} process(es) killed"
    return ""


def _creator_alive(name: str) -> bool:
    """Whether the runner process that made cgroup `name` (botarena-<pid>-...) still runs."""
    try:
        pid = int(name[len(CGROUP_PREFIX) :].split("-", 1)[0])
    except ValueError:
        return True  # not ours to judge
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


_swept: set[tuple[tuple[str, Path], ...]] = set()


def _sweep_once(layout: CgroupLayout) -> None:
    """Remove bot cgroups left behind by runners that were killed before they could close their bots.

    Their bots died with them (die-with-parent); what remains is the empty folders (or, at worst,
    stragglers, which are killed first). Done once per process and layout.
    """
    key = tuple(sorted(layout.bases.items()))
    if key in _swept:
        return
    _swept.add(key)
    for controller, base in layout.bases.items():
        try:
            entries = [entry for entry in base.iterdir() if entry.name.startswith(CGROUP_PREFIX)]
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir() and not _creator_alive(entry.name):
                stale = Cgroup(layout, {controller: entry})
                stale.kill()
                stale.remove()


# -- one sealed command, run to completion ----------------------------------------------------------
SEALED_OUTPUT_CAP = 1 << 20
"""At most this many bytes of a sealed command's output are kept (the rest is read and dropped)."""


@dataclass(frozen=True)
class SealedRun:
    """How a command run by `run_sealed` ended."""

    returncode: int
    """Its exit status (negative: killed by that signal; meaningless when `timed_out`)."""
    output: str
    """Its stdout and stderr together, at most SEALED_OUTPUT_CAP bytes of it, decoded leniently."""
    timed_out: bool
    """It was still running after the timeout, and was killed with everything it started."""
    memory_note: str = ""
    """The cgroup's note when the memory limit was hit (see `Cgroup.memory_events`), else ''."""


def _drain(stream: IO[bytes], kept: bytearray) -> None:
    """Read `stream` to its end, keeping its first SEALED_OUTPUT_CAP bytes in `kept`."""
    while chunk := stream.read(65536):
        room = SEALED_OUTPUT_CAP - len(kept)
        if room > 0:
            kept += chunk[:room]


def _file_limit(max_file_mb: int | None) -> Callable[[], None] | None:
    """The child-side step that sets RLIMIT_FSIZE, or None for no limit."""
    if max_file_mb is None:
        return None
    limit = max_file_mb << 20
    setrlimit, which = resource.setrlimit, resource.RLIMIT_FSIZE
    return lambda: setrlimit(which, (limit, limit))


def run_sealed(
    argv: Sequence[str],
    *,
    policy: SandboxPolicy,
    timeout_s: float,
    read_only: Sequence[str | os.PathLike[str]] = (),
    writable: Sequence[str | os.PathLike[str]] = (),
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
    max_file_mb: int | None = None,
) -> SealedRun:
    """Run `argv` sealed as a bot is (the same bwrap filesystem, a cgroup with `policy`'s limits) and
    wait for it: `read_only` paths are visible read-only, `writable` folders read-write, nothing else
    of the machine but the read-only system. After `timeout_s` seconds the whole tree is killed.
    `max_file_mb` caps the size of any file it writes (RLIMIT_FSIZE): a writable folder is on the
    host's disk, which the cgroup does not cap.

    Raises SandboxUnavailable when bwrap or cgroups are missing (never runs it unsealed).
    """
    check_sandbox(policy)
    command = bwrap_argv(argv, policy=policy, bot_files=read_only, cwd=cwd, writable=writable)
    group = Cgroup.create(policy)
    kept = bytearray()
    timed_out = False
    try:
        process = subprocess.Popen(  # the preexec only writes to cgroup.procs
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            preexec_fn=group.preexec(_file_limit(max_file_mb)),
            env=sandbox_env(env),
        )
        assert process.stdout is not None
        reader = threading.Thread(target=_drain, args=(process.stdout, kept), daemon=True)
        reader.start()
        try:
            returncode = process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            group.kill()  # the whole tree, so that the pipe's last writer goes too
            process.kill()
            returncode = process.wait()
        group.kill()  # anything it left behind (a daemon it started) holds the pipe open
        reader.join()
        process.stdout.close()
        note = group.memory_events()
    finally:
        group.kill()
        group.remove()
    text = kept.decode("utf-8", "replace")
    return SealedRun(returncode, text, timed_out, note)


# -- the up-front check ---------------------------------------------------------------------------------
def check_sandbox(policy: SandboxPolicy | None = None) -> None:
    """Raise SandboxUnavailable (one line naming the missing piece) unless bots can be sandboxed here.

    Checks that bwrap exists and can build the sandbox, and that a cgroup with the policy's limits
    can be created and joined; the answer is cached per policy.
    """
    problem = _sandbox_problem(policy or SandboxPolicy())
    if problem:
        raise SandboxUnavailable(problem)


@lru_cache(maxsize=8)
def _sandbox_problem(policy: SandboxPolicy) -> str:
    bwrap = find_bwrap()
    if bwrap is None:
        return _MISSING_BWRAP
    if cgroup_layout() is None:
        return (
            "no usable cgroups for the bots' memory/pids/CPU limits (need cgroup v2 with memory, pids "
            "and cpu delegated, or writable v1 memory, pids and cpu controllers; run as root), "
            "or pass --unsandboxed"
        )
    try:
        group = Cgroup.create(policy)
    except OSError as exc:
        return f"cannot create a cgroup for a bot: {exc}; or pass --unsandboxed"
    try:
        argv = bwrap_argv(["/bin/sh", "-c", "exit 0"], policy=policy, bwrap=bwrap)
        done = subprocess.run(  # the preexec only writes to cgroup.procs
            argv,
            capture_output=True,
            timeout=30,
            check=False,
            preexec_fn=group.preexec(),
            env=sandbox_env(None),
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bubblewrap cannot start a sandbox: {exc}; or pass --unsandboxed"
    finally:
        group.kill()
        group.remove()
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        first = detail[0] if detail else f"exit status {done.returncode}"
        return f"bubblewrap cannot build the sandbox here: {first}; or pass --unsandboxed"
    return ""


def reset_cache() -> None:
    """Forget cached answers (for tests that change what the machine offers)."""
    _sandbox_problem.cache_clear()
    cgroup_layout.cache_clear()
    _swept.clear()
