"""The sandbox around every untrusted bot process: bubblewrap for what it sees, a uid of its own and a
system-call filter for what it may do, cgroups for what it uses.

Run as root (a tournament host, a Dask worker, CI), a sandboxed bot process
(`SubprocessBot(..., sandbox=SandboxPolicy())`) runs as

    bwrap --unshare-{ipc,pid,net,uts,cgroup} --die-with-parent --new-session <a minimal filesystem> \\
        --seccomp FD -- setpriv --reuid=U --regid=U --clear-groups --inh-caps=-all --bounding-set=-all \\
        -- argv

inside a fresh cgroup that limits its whole process tree:

- a uid that owns nothing: U is leased for this sandbox alone (`botarena.bots.sandbox_uids`), with an
  empty capability set of every kind and `no_new_privs`; no user namespace (whose uid 0 would be the
  host's root), so the kernel's own checks by uid refuse it everything of the host's. Not run as root,
  bwrap makes a user namespace instead and the bot is the runner's own uid (docs/security.md);
- a system-call filter (`botarena.bots.seccomp`): no ptrace, mounts, namespaces, keyrings, bpf,
  perf, userfaultfd, kexec, modules, clock changes, personality tricks, io_uring or foreign ABIs;
- no network: a new network namespace with only its own loopback;
- /proc of its own PID namespace only (no host process is visible), with the kernel's knobs
  (/proc/sys, /proc/sysrq-trigger, /proc/irq, ...) read-only and the files that list the host's tasks
  or memory (timer_list, sched_debug, kcore, kmsg) replaced by empty ones;
- a read-only system (/usr and the /lib, /bin symlinks, a handful of /etc files the dynamic loader,
  `alternatives` and the JVM need), the Python interpreter, its site folders and the botarena
  package read-only (for the Python kit), the bot's own files read-only at their own paths, and
  nothing else: not the project's var/, not HOME, not the checkout, not other bots;
- a private, size-capped, writable tmpfs at /tmp, which is also HOME;
- a new PID namespace, `--die-with-parent` and a new session: when the bot's process goes, every
  descendant goes with it, setsid'd double-forked daemons included;
- a cgroup (v2 when the machine has a usable v2 hierarchy, else v1) capping memory, process count and
  CPU of the whole tree. The process joins it between fork and exec, before any bot code runs, and
  `close` kills whatever is left in it and removes it.

`seal` builds one such command (`Seal`: argv, environment, the filter's fd, the uid's lease);
`run_sealed` runs one command the same way to completion (read-only inputs, one writable folder, a
wall-clock timeout): the C++ kit compiles a stranger's player with it.

`check_sandbox` is the probe tournaments, servers and every worker run before their first match: it
starts the real Python kit (and Node.js where a kit uses it) inside the real sandbox and answers in
one line what is missing or hidden. If cgroups cannot be set up for one bot (`Cgroup.create` fails),
the bot falls back to an address-space limit (RLIMIT_AS) and says so in its log.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import IO, TYPE_CHECKING

from botarena.bots import sandbox_uids, seccomp

if TYPE_CHECKING:
    from botarena.bots.subprocess import SubprocessBot

BWRAP_ENV = "BOTARENA_BWRAP"
"""Environment variable naming the bwrap executable to use instead of `bwrap` on PATH."""
CGROUP_PREFIX = "botarena-"
"""Name prefix of the per-bot cgroups this module creates (and removes)."""
V1_CONTROLLERS = ("memory", "pids", "cpu")
"""The cgroup v1 controllers a sandbox needs; the freezer is used too when it is there."""
CPU_PERIOD_US = 100_000
KILL_WAIT_S = 5.0
"""Upper bound on waiting for a killed cgroup to empty (it normally takes a few milliseconds)."""
SYSTEM_BIN = "/usr/sbin:/usr/bin:/sbin:/bin"
"""Where `setpriv` is looked for: it must be inside the sandbox's read-only system."""

_ETC_FILES = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",  # /usr/bin/java and friends are symlinks through here
    "/etc/localtime",
)
"""The few /etc entries a bot's runtime needs; passwd, hosts, the rest of /etc stay hidden."""

PROC_READ_ONLY = ("sys", "sysrq-trigger", "irq", "bus", "fs", "acpi", "driver", "tty", "pressure", "mtrr")
"""/proc entries through which the kernel can be changed: bound read-only over the sandbox's /proc
(bubblewrap's own cover of /proc/sys is skipped when it cannot write there itself)."""
PROC_HIDDEN = ("kcore", "kmsg", "timer_list", "timer_stats", "sched_debug", "latency_stats")
"""/proc files that show the host's tasks or memory: /dev/null takes their place."""

_ROOT_NAMESPACES = ("--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup")
"""Every namespace but the user one: as root, a user namespace's uid 0 would be the host's root."""
# Only what setpriv needs to switch to the sandbox's uid and empty the bounding set; it drops these too.
_ROOT_CAPS = (
    "--cap-drop",
    "ALL",
    "--cap-add",
    "CAP_SETUID",
    "--cap-add",
    "CAP_SETGID",
    "--cap-add",
    "CAP_SETPCAP",
)
_SETPRIV_DROP = ("--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs")


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


def find_setpriv() -> str | None:
    """util-linux's setpriv in the system folders (the sandbox shows those), or None."""
    return shutil.which("setpriv", path=SYSTEM_BIN)


@dataclass(frozen=True)
class PythonPaths:
    """What the Python kit needs inside the sandbox."""

    roots: tuple[Path, ...]
    """Bound read-only: the interpreter's prefixes, its site folders, the botarena package."""
    pythonpath: tuple[str, ...]
    """PYTHONPATH inside: the package's parent, then site folders the interpreter would not find by
    itself there (a user site: HOME is /tmp inside)."""
    interpreter: tuple[Path, ...]
    """sys.executable and every link it resolves through (what must be visible to exec it)."""


def _site_folder(entry: str) -> bool:
    """A sys.path entry that holds installed distributions (a wheel's, pip's, Debian's)."""
    return Path(entry).name in ("site-packages", "dist-packages") and os.path.isdir(entry)


def _link_chain(path: Path) -> tuple[Path, ...]:
    """`path` and each path its symlinks lead to, in order (at most 40 hops, as the kernel allows)."""
    chain = [path]
    while path.is_symlink() and len(chain) <= 40:
        target = Path(os.readlink(path))
        path = Path(os.path.normpath(target if target.is_absolute() else path.parent / target))
        chain.append(path)
    return tuple(chain)


@lru_cache(maxsize=1)
def python_paths() -> PythonPaths:
    """The interpreter's prefixes (sys.prefix, base, exec, and the resolved executable's), every
    existing site folder on sys.path (a venv's, a user site under ~/.local, a system dist-packages, an
    installed wheel's) and zip on it, and the botarena package folder.

    Nothing else of sys.path: an editable install points into a checkout, and only its botarena
    package folder is bound, never the checkout around it (which holds var/ and everything else);
    other folders on PYTHONPATH are the runner's, not the kit's.
    """
    import botarena

    package = Path(botarena.__file__).resolve().parent
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    prefixes.add(str(Path(sys.executable).resolve().parent.parent))
    prefix_paths = [Path(prefix) for prefix in prefixes if prefix and prefix != "/"]
    sites = [Path(entry) for entry in sys.path if entry and _site_folder(entry)]
    zips = [Path(entry) for entry in sys.path if entry.endswith(".zip") and os.path.isfile(entry)]
    roots = {*prefix_paths, *sites, *zips, package}
    outside = [str(site) for site in sites if not _covered(site, prefix_paths)]
    pythonpath = tuple(dict.fromkeys([str(package.parent), *outside]))
    return PythonPaths(tuple(sorted(roots)), pythonpath, _link_chain(Path(sys.executable)))


def package_parent() -> str:
    """The folder holding the botarena package (first on PYTHONPATH inside the sandbox)."""
    import botarena

    return str(Path(botarena.__file__).resolve().parent.parent)


@lru_cache(maxsize=1)
def _system_mounts() -> tuple[str, ...]:
    """bwrap arguments for the read-only system: /usr, the merged-/usr symlinks, a minimal /etc."""
    args = ["--ro-bind", "/usr", "/usr"]
    for top in _system_tops():
        if top.is_symlink():
            args += ["--symlink", os.readlink(top), str(top)]
        elif top.is_dir():
            args += ["--ro-bind", str(top), str(top)]
    etc = list(_ETC_FILES) + [str(path) for path in sorted(Path("/etc").glob("java-*"))]
    args += ["--dir", "/etc"]  # 0755: bwrap would make it 0700, and a bot could not look inside
    for entry in etc:
        if os.path.lexists(entry):
            args += ["--ro-bind", entry, entry]
    return tuple(args)


def _system_tops() -> list[Path]:
    """The /bin, /lib... entries at the top of the machine's tree (symlinks into /usr or folders)."""
    names = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
    return [Path("/") / name for name in names if os.path.lexists(Path("/") / name)]


@lru_cache(maxsize=1)
def _proc_covers() -> tuple[str, ...]:
    """bwrap arguments that make /proc's kernel knobs read-only and blank its host-wide task lists."""
    args: list[str] = []
    for name in PROC_READ_ONLY:
        if os.path.lexists(f"/proc/{name}"):
            args += ["--ro-bind", f"/proc/{name}", f"/proc/{name}"]
    for name in PROC_HIDDEN:
        if os.path.lexists(f"/proc/{name}"):
            args += ["--ro-bind", "/dev/null", f"/proc/{name}"]
    return tuple(args)


def _under_tmp(path: Path) -> bool:
    return len(path.parts) > 2 and path.parts[1] == "tmp"


def _covered(path: Path, roots: Iterable[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


def visible_roots() -> list[Path]:
    """Every folder or file the sandbox shows of the machine, bot files aside."""
    return [Path("/usr"), *_system_tops(), *python_paths().roots]


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
        "PYTHONPATH": os.pathsep.join(python_paths().pythonpath),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    if env is not None:
        for key, value in env.items():
            if key not in ("PATH", "PYTHONPATH", "HOME", "TMPDIR"):
                clean[key] = value
    return clean


@dataclass
class Seal:
    """One command ready to run sealed: start it with `argv`, `env` and `pass_fds` (the filter's fd),
    then call `spawned()`; call `release()` once every process of it is gone (it gives the uid back)."""

    argv: list[str]
    env: dict[str, str]
    pass_fds: tuple[int, ...]
    uid: int
    """The uid the command runs as (a leased one as root, else the runner's own)."""
    lease: sandbox_uids.UidLease | None = field(default=None, repr=False)

    def spawned(self) -> None:
        """Close this process's copy of the filter's fd (the child has its own)."""
        fds, self.pass_fds = self.pass_fds, ()
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)

    def release(self) -> None:
        self.spawned()
        if self.lease is not None:
            self.lease.release()
            self.lease = None


def seal(
    argv: Sequence[str],
    *,
    policy: SandboxPolicy,
    bot_files: Sequence[str | os.PathLike[str]] = (),
    cwd: str | None = None,
    writable: Sequence[str | os.PathLike[str]] = (),
    env: Mapping[str, str] | None = None,
    bwrap: str | None = None,
) -> Seal:
    """`argv` sealed, with `bot_files` bound read-only (see `bwrap_argv`), as a `Seal`.

    Raises SandboxUnavailable (one line) when a piece is missing (bwrap, libseccomp, setpriv, a free
    uid) or when the sandbox's uid could not read one of `bot_files`: it never runs anything unsealed.
    """
    exe = bwrap or find_bwrap()
    if exe is None:
        raise SandboxUnavailable(_MISSING_BWRAP)
    try:
        seccomp.program()
    except seccomp.SeccompUnavailable as exc:
        raise SandboxUnavailable(f"{exc}; or pass --unsandboxed") from None
    lease = _lease() if sandbox_uids.dedicated_uids() else None
    uid = os.getuid() if lease is None else lease.uid
    fd = -1
    try:
        if lease is not None:
            for path in bot_files:
                _check_readable(Path(os.path.abspath(Path(cwd or os.getcwd()) / Path(path))), uid)
        fd = seccomp.program_fd()
        command = bwrap_argv(
            argv,
            policy=policy,
            bot_files=bot_files,
            cwd=cwd,
            bwrap=exe,
            writable=writable,
            seccomp_fd=fd,
            uid=None if lease is None else lease.uid,
        )
    except BaseException:
        if fd >= 0:
            os.close(fd)
        if lease is not None:
            lease.release()
        raise
    return Seal(command, sandbox_env(env), (fd,), uid, lease)


def _lease() -> sandbox_uids.UidLease:
    if find_setpriv() is None:
        raise SandboxUnavailable(
            "setpriv (util-linux) not found in /usr/bin: it switches a bot to its own uid; "
            "apt-get install util-linux, or pass --unsandboxed"
        )
    try:
        return sandbox_uids.lease_uid()
    except sandbox_uids.UidUnavailable as exc:
        raise SandboxUnavailable(f"{exc}; or pass --unsandboxed") from None


def _check_readable(path: Path, uid: int) -> None:
    """SandboxUnavailable unless a bot running as `uid` (not the owner, in no group) can read `path`."""
    try:
        info = path.stat()
    except OSError:
        return  # a path that does not exist is not bound: the bot finds nothing there, as outside
    need = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(info.st_mode) else 0)
    if info.st_uid != uid and info.st_mode & need != need:
        raise SandboxUnavailable(
            f"the sandbox cannot read {path} (mode {stat.S_IMODE(info.st_mode):04o}, owner uid "
            f"{info.st_uid}): a sandboxed bot runs as a uid of its own; make its files readable by all "
            "(chmod -R a+rX), or play it with `play --sandbox` or in a tournament, which pack it"
        )


def bwrap_argv(
    argv: Sequence[str],
    *,
    policy: SandboxPolicy,
    seccomp_fd: int,
    uid: int | None,
    bot_files: Sequence[str | os.PathLike[str]] = (),
    cwd: str | None = None,
    bwrap: str | None = None,
    writable: Sequence[str | os.PathLike[str]] = (),
) -> list[str]:
    """The bwrap command line that runs `argv` sealed, with `bot_files` bound read-only, the filter
    read from `seccomp_fd` and, with `uid`, as that uid (run as root; None: in a user namespace, as
    the runner). Use `seal`, which leases the uid and makes the fd.

    The working directory inside is `cwd` (default: the runner's), so the command's relative paths to
    the bot's files resolve as outside; it is an empty read-only folder unless it is one of the bot's
    own, and /tmp when the bot has no files. Relative `bot_files` are taken from there too.
    `writable` are existing folders bound read-write (a build's output folder; bots get none).
    """
    exe = bwrap or find_bwrap()
    if exe is None:
        raise SandboxUnavailable(_MISSING_BWRAP)
    base = Path(cwd or os.getcwd())
    args = [exe]
    if uid is None:
        args += ["--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    else:
        args += [*_ROOT_NAMESPACES, "--die-with-parent", "--new-session", *_ROOT_CAPS]
    args += _system_mounts()  # the machine's layout: computed once
    args += ["--perms", "1777", "--size", str(policy.tmp_mb << 20), "--tmpfs", "/tmp"]
    args += ["--proc", "/proc", *_proc_covers(), "--dev", "/dev"]
    files = _bot_paths(bot_files, base)
    rw = [Path(os.path.abspath(base / Path(item))) for item in writable]
    for path in rw:
        if not path.is_dir() or path in (Path("/"), Path("/tmp")) or _covered(path, [Path("/usr")]):
            raise ValueError(f"a writable sandbox folder must be an existing folder of its own: {path}")
    read_only = [root for root in python_paths().roots if not _covered(root, [Path("/usr")])] + files
    folders = [path for path in read_only if path.is_dir()]
    # A path inside another read-only folder is there already (the same files); writable ones never are.
    read_only = [p for p in dict.fromkeys(read_only) if not any(p != f and f in p.parents for f in folders)]
    own = [path if path.is_dir() else path.parent for path in [*files, *rw]]
    workdir = Path(os.path.abspath(cwd or os.getcwd()))
    if not _covered(workdir, own) and not files:
        workdir = Path("/tmp")
    empty_workdir = workdir != Path("/tmp") and not _covered(workdir, own)
    binds = [("--ro-bind", path) for path in read_only] + [("--bind", path) for path in rw]
    bound = {path for _, path in binds}
    # Paths under /tmp would sit on the writable tmpfs: the folder at /tmp/<first part> around them
    # gets a read-only tmpfs of its own (unless it is bound itself), so the folders around the bot's
    # files (or a venv under /tmp) are read-only as everywhere else. It is mounted first, then
    # everything inside it, then it is made read-only.
    inside = [path for path in [*bound, *([workdir] if empty_workdir else [])] if _under_tmp(path)]
    sealed = sorted({Path("/tmp", path.parts[2]) for path in inside if len(path.parts) > 3} - bound)
    for top in sealed:
        args += ["--tmpfs", str(top)]
    # Shallow before deep, so a bind inside a bound folder lands on top of it; each parent made first
    # with --dir (mode 0755: bwrap would make a bind's missing parents 0700, closed to the bot's uid).
    for flag, path in sorted(binds, key=lambda bind: len(bind[1].parts)):
        if path.parent not in (Path("/"), Path("/tmp")):
            args += ["--dir", str(path.parent)]
        args += [flag, str(path), str(path)]
    if empty_workdir:
        # an empty read-only folder, from which the command's relative paths still resolve
        args += ["--dir", str(workdir)]
    for top in sealed:
        args += ["--remount-ro", str(top)]
    args += ["--remount-ro", "/", "--chdir", str(workdir), "--seccomp", str(seccomp_fd), "--"]
    if uid is not None:
        setpriv = find_setpriv()
        if setpriv is None:
            raise SandboxUnavailable("setpriv (util-linux) not found in /usr/bin; or pass --unsandboxed")
        args += [setpriv, f"--reuid={uid}", f"--regid={uid}", *_SETPRIV_DROP, "--"]
    return args + list(argv)


def _bot_paths(bot_files: Sequence[str | os.PathLike[str]], base: Path) -> list[Path]:
    """The bot's own existing files and folders, absolute (system ones and / or /tmp left out)."""
    found = []
    for item in bot_files:
        path = Path(os.path.abspath(base / Path(item)))
        if os.path.exists(path) and not _covered(path, [Path("/usr")]) and path not in _NEVER_BOUND:
            found.append(path)
    return found


_NEVER_BOUND = (Path("/"), Path("/tmp"))
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


def _hand_over(folders: Sequence[Path], uid: int) -> None:
    """Make the writable folders the sandbox's uid's for the run (their contents stay as they are)."""
    for folder in folders:
        os.chown(folder, uid, uid)


def _take_back(folders: Sequence[Path]) -> None:
    """Give the writable folders and everything made in them back to the runner, once the sandbox is
    gone: ownership without following links (a link the sandbox left points anywhere), and no
    set-uid or set-gid bit on anything it made."""
    owner, group = os.getuid(), os.getgid()
    for folder in folders:
        for here, dirs, files in os.walk(folder):  # never into linked folders
            for name in [*dirs, *files, ""]:
                path = os.path.join(here, name) if name else here
                with contextlib.suppress(FileNotFoundError):
                    os.chown(path, owner, group, follow_symlinks=False)
                    mode = os.lstat(path).st_mode
                    if not stat.S_ISLNK(mode) and mode & (stat.S_ISUID | stat.S_ISGID):
                        os.chmod(path, stat.S_IMODE(mode) & ~(stat.S_ISUID | stat.S_ISGID))


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
    """Run `argv` sealed as a bot is (the same bwrap filesystem, uid, filter and a cgroup with
    `policy`'s limits) and wait for it: `read_only` paths are visible read-only, `writable` folders
    read-write, nothing else of the machine but the read-only system. After `timeout_s` seconds the
    whole tree is killed. `max_file_mb` caps the size of any file it writes (RLIMIT_FSIZE): a writable
    folder is on the host's disk, which the cgroup does not cap. Run as root, the writable folders
    belong to the sandbox's uid while it runs, and everything in them to the runner afterwards.

    Raises SandboxUnavailable when bwrap or cgroups are missing (never runs it unsealed).
    """
    check_sandbox(policy)
    sealed = seal(argv, policy=policy, bot_files=read_only, cwd=cwd, writable=writable, env=env)
    folders = [Path(os.path.abspath(Path(cwd or os.getcwd()) / Path(item))) for item in writable]
    kept = bytearray()
    timed_out = False
    try:
        group = Cgroup.create(policy)
    except OSError:
        sealed.release()
        raise
    try:
        if sealed.lease is not None:
            _hand_over(folders, sealed.uid)
        process = subprocess.Popen(  # the preexec only writes to cgroup.procs
            sealed.argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            preexec_fn=group.preexec(_file_limit(max_file_mb)),
            env=sealed.env,
            pass_fds=sealed.pass_fds,
        )
        sealed.spawned()
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
        if sealed.lease is not None:
            _take_back(folders)
        sealed.release()
    text = kept.decode("utf-8", "replace")
    return SealedRun(returncode, text, timed_out, note)


# -- the up-front check: the probe ------------------------------------------------------------------
PROBE_TIMEOUT_S = 30.0
"""How long the probe's bots may take to start and answer (a loaded CI box takes well under 1 s)."""
_PROBE_PY = "def act(payload):\n    return {}\n"
_PROBE_JS = "export default function () {\n  return {};\n}\n"


def check_sandbox(policy: SandboxPolicy | None = None) -> None:
    """Raise SandboxUnavailable (one line naming the missing piece) unless bots can be sandboxed here.

    The probe: bwrap, libseccomp and (as root) setpriv and a free sandbox uid are there, a cgroup with
    the policy's limits can be created, and the real Python kit (`python -m botarena.kit`, the
    interpreter that runs botarena) starts inside the real sandbox and answers a start request, and so
    does the Node.js adapter when node is installed. A failure names what the sandbox hides or cannot
    read ("the sandbox hides /tmp/x/.venv/bin/python: ..."). The answer is cached per policy.
    """
    problem = _sandbox_problem(policy or SandboxPolicy())
    if problem:
        raise SandboxUnavailable(problem)


@lru_cache(maxsize=8)
def _sandbox_problem(policy: SandboxPolicy) -> str:
    bwrap = find_bwrap()
    if bwrap is None:
        return _MISSING_BWRAP
    try:
        seccomp.program()
        if sandbox_uids.dedicated_uids():
            _lease().release()
    except seccomp.SeccompUnavailable as exc:
        return f"{exc}; or pass --unsandboxed"
    except SandboxUnavailable as exc:
        return str(exc)
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
    group.kill()
    group.remove()
    with tempfile.TemporaryDirectory(prefix="botarena-probe-") as scratch:
        folder = Path(scratch) / "probe"
        folder.mkdir(mode=0o755)
        os.chmod(folder, 0o755)  # whatever the umask: the sandbox's uid reads it
        return _probes(policy, folder)


def _probe_file(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    os.chmod(path, 0o644)
    return path


@dataclass
class _Probe:
    """One runtime started inside the real sandbox (a SubprocessBot, its start request sent)."""

    what: str
    bot: SubprocessBot
    needed: list[Path]
    """What must be visible and readable for it to start: the diagnosis looks for these first."""
    files: list[Path]

    @classmethod
    def start(
        cls, what: str, argv: list[str], policy: SandboxPolicy, needed: list[Path], files: list[Path]
    ) -> _Probe:
        from botarena.bots.subprocess import SubprocessBot
        from botarena.core.protocol import MessageType, Request

        bot = SubprocessBot(argv, name="probe", sandbox=policy, bot_files=files, memory_limit_mb=None)
        bot.open("sandbox-probe", 0)
        bot.send(Request(0, {}, int(PROBE_TIMEOUT_S * 1000), MessageType.START), 1, PROBE_TIMEOUT_S)
        return cls(what, bot, needed, files)

    def finish(self) -> str:
        """'' if it answered the start request, else the one-line reason."""
        from botarena.core.status import Status

        try:
            reply = self.bot.receive()
        finally:
            log = self.bot.close().text
        if reply.status is Status.OK:
            return ""
        return _diagnose(
            self.what, self.needed, log or f"{reply.status.value} {reply.reason or ''}", self.files
        )

    def abandon(self) -> None:
        self.bot.close()


def _probes(policy: SandboxPolicy, folder: Path) -> str:
    """Start the Python kit and (when node is installed) the Node.js adapter sealed, side by side, and
    wait for both: '' if both answered, else the first one's reason."""
    started: list[_Probe] = []
    try:
        started.append(_python_probe(policy, folder))
        node = _node_probe(policy, folder)
        if node is not None:
            started.append(node)
    except BaseException:
        for probe in started:
            probe.abandon()
        raise
    problems = [probe.finish() for probe in started]  # every one closed, whatever the first said
    return next((problem for problem in problems if problem), "")


def _python_probe(policy: SandboxPolicy, folder: Path) -> _Probe:
    bot = _probe_file(folder, "bot.py", _PROBE_PY)
    argv = [sys.executable, "-m", "botarena.kit", str(bot)]
    needed = [*python_paths().interpreter, Path(package_parent()) / "botarena" / "kit.py"]
    return _Probe.start("the Python kit", argv, policy, needed, [bot])


def _node_probe(policy: SandboxPolicy, folder: Path) -> _Probe | None:
    """None where node is missing or too old: its bots fail on their own, saying so."""
    from botarena.bots.node import NodeUnavailableError, check_node, find_adapter, node_command

    try:
        check_node()
        adapter = find_adapter()
    except (NodeUnavailableError, FileNotFoundError):
        return None
    bot = _probe_file(folder, "probe.mjs", _PROBE_JS)
    argv = node_command(bot)
    needed = [*_link_chain(Path(argv[0])), adapter]
    return _Probe.start("the Node.js adapter", argv, policy, needed, [bot, adapter.parent])


_HIDDEN_IN_LOG = re.compile(
    r"(?:execvp?|failed to execute|can't open file) '?(?P<path>/[^':\s]+)'?: (?:\[Errno 2\] )?No such file"
)
_CLOSED_IN_LOG = re.compile(r"Permission denied: '(?P<path>/[^']+)'|(?P<exe>/\S+): Permission denied")


def _diagnose(what: str, needed: Sequence[Path], log: str, files: Sequence[Path]) -> str:
    """One line for a probe that failed: the first needed path the sandbox hides or cannot read (it
    shows the system, the Python roots and the probe bot's `files`), else the path the failed start
    itself names as missing or closed, then the process's last word."""
    detail = _last_word(log)
    tail = f"{what} cannot start there ({detail}); or pass --unsandboxed"
    roots = [*visible_roots(), *files]
    for path in needed:
        if not _covered(path, roots):
            return f"the sandbox hides {path}: {tail}"
    if sandbox_uids.dedicated_uids():
        for path in needed:
            closed = _closed_to_others(path, roots)
            if closed is not None:
                mode = stat.S_IMODE(closed.stat().st_mode)
                return (
                    f"the sandbox's uid cannot read {closed} (mode {mode:04o}): {what} cannot start "
                    f"there ({detail}); make it readable by all (chmod -R a+rX), or pass --unsandboxed"
                )
    hidden = _HIDDEN_IN_LOG.search(log)
    if hidden:
        return f"the sandbox hides {hidden['path']}: {tail}"
    if "No module named 'botarena" in log or "No module named botarena" in log:
        return f"the sandbox hides the botarena package ({package_parent()}/botarena): {tail}"
    closed_seen = _CLOSED_IN_LOG.search(log)
    if closed_seen:
        return f"the sandbox's uid cannot read {closed_seen['path'] or closed_seen['exe']}: {tail}"
    return f"{what} does not start in the sandbox: {detail}; or pass --unsandboxed"


def _closed_to_others(path: Path, roots: Sequence[Path]) -> Path | None:
    """The first folder from the bound root down to `path` (or `path` itself) that a uid which owns
    nothing cannot enter or read, or None."""
    root = next((r for r in roots if path == r or r in path.parents), None)
    if root is None:
        return None
    steps = [root, *(parent for parent in reversed(path.parents) if root in parent.parents), path]
    for step in dict.fromkeys(steps):
        try:
            mode = step.lstat().st_mode
        except OSError:
            return None
        if stat.S_ISLNK(mode):
            continue
        runs = stat.S_ISDIR(mode) or mode & stat.S_IXUSR  # a folder to enter, a program to run
        need = stat.S_IROTH | (stat.S_IXOTH if runs else 0)
        if mode & need != need:
            return step
    return None


def _last_word(log: str) -> str:
    """The line of a failed start's log that says most: bwrap's or setpriv's complaint, else the last
    line of the process's own output (a traceback's exception), else the runner's note."""
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    for line in lines:
        if line.startswith(("bwrap:", "setpriv:")):
            return line[:300]
    own = [line for line in lines if not line.startswith("[botarena]")]
    if own:
        return own[-1][:300]
    return (lines[-1] if lines else "no output")[:300]


def reset_cache() -> None:
    """Forget cached answers (for tests that change what the machine offers)."""
    _sandbox_problem.cache_clear()
    cgroup_layout.cache_clear()
    python_paths.cache_clear()
    _swept.clear()
