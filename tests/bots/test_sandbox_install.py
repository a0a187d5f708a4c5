"""Issue 25, item 2: the sandbox works wherever botarena is installed, and its probe says when it cannot.

- From an interpreter whose prefix is under /tmp (a venv made there, botarena copied into its
  site-packages as a wheel would put it), from one under another root (a venv in /var/tmp, botarena
  from the checkout's src/ on PYTHONPATH, as an editable install), and from the system Python with
  botarena in a user site (PYTHONUSERBASE): `check_sandbox()` run by that interpreter starts its own
  Python kit inside the real sandbox and passes, and what the sandbox shows of Python is that
  interpreter's prefixes and site folders and the package folder, never the checkout around it.
- The probe fails in one line naming the path the sandbox hides (an interpreter it does not show) or
  the piece that is missing (libseccomp); a bot file the sandbox's uid cannot read is refused in one
  line, never run.
- Sandbox uids: each sandbox leases its own, one another runner holds is skipped, and a writable
  folder (a sealed compile's output) comes back to the runner with no link followed and no set-uid bit.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from botarena.bots import sandbox as sandbox_module
from botarena.bots import sandbox_uids, seccomp
from botarena.bots.resolve import resolve_bot, untrusted
from botarena.bots.sandbox import SandboxPolicy, SandboxUnavailable, check_sandbox, run_sealed
from botarena.core.game import GameInfo
from botarena.runner import run_match

from .test_sandbox import CONFIG, log_of, sandbox_ready  # noqa: F401 - the module's skip/fail fixture

PACKAGE = Path(sandbox_module.__file__).resolve().parents[1]
CHECKOUT = PACKAGE.parents[1]
PROBE = """
import json, sys
from botarena.bots import sandbox
sandbox.check_sandbox()  # the probe: this interpreter's own kit, inside the real sandbox
paths = sandbox.python_paths()
print(json.dumps({"roots": [str(p) for p in paths.roots], "package": sandbox.package_parent()}))
"""


def site_folder(prefix: Path) -> Path:
    return prefix / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"


def make_venv(where: Path) -> Path:
    """A venv without pip at `where`, seeing this interpreter's dependencies through a .pth file."""
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(where)], check=True, capture_output=True)
    deps = [path for path in sys.path if path.endswith(("site-packages", "dist-packages"))]
    (site_folder(where) / "botarena-test-deps.pth").write_text("\n".join(deps) + "\n")
    return where / "bin" / "python"


def copy_package(into: Path) -> None:
    shutil.copytree(PACKAGE, into / "botarena", ignore=shutil.ignore_patterns("__pycache__"))


def probe_with(python: Path | str, env: dict[str, str]) -> dict[str, object]:
    """Run the probe under `python`; its report of what the sandbox shows."""
    clean = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    done = subprocess.run(
        [str(python), "-c", PROBE], env={**clean, **env}, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def never_the_checkout(report: dict[str, object], package: Path) -> None:
    roots = [Path(str(root)) for root in report["roots"]]  # type: ignore[attr-defined]
    assert Path(str(report["package"])) / "botarena" == package
    assert package in roots or any(root in package.parents for root in roots)
    for root in roots:
        assert root != CHECKOUT and root not in CHECKOUT.parents, f"{root} shows the checkout"


def test_a_venv_under_tmp_with_botarena_installed_in_it(tmp_path: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="botarena-venv-", dir="/tmp") as folder:
        python = make_venv(Path(folder) / "venv")
        copy_package(site_folder(Path(folder) / "venv"))
        report = probe_with(python, {})
        never_the_checkout(report, site_folder(Path(folder) / "venv") / "botarena")
        assert str(Path(folder) / "venv") in report["roots"]  # type: ignore[operator]


def test_a_venv_under_another_root_with_botarena_from_a_checkout(tmp_path: Path) -> None:
    other = Path("/var/tmp")
    if not os.access(other, os.W_OK):
        pytest.skip(f"{other} is not writable here")
    with tempfile.TemporaryDirectory(prefix="botarena-venv-", dir=other) as folder:
        python = make_venv(Path(folder) / "venv")
        report = probe_with(python, {"PYTHONPATH": str(PACKAGE.parent)})  # an editable install's src/
        never_the_checkout(report, PACKAGE)


def test_the_system_python_with_botarena_in_a_user_site(tmp_path: Path) -> None:
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    system = Path("/usr/bin") / version
    if not system.is_file() or Path(sys.base_prefix) == Path("/usr"):
        pytest.skip(f"no other {version} than this one in /usr/bin")
    userbase = tmp_path / "userbase"
    user_site = userbase / "lib" / version / "site-packages"
    user_site.mkdir(parents=True)
    copy_package(user_site)
    deps = [path for path in sys.path if path.endswith(("site-packages", "dist-packages"))]
    (user_site / "botarena-test-deps.pth").write_text("\n".join(deps) + "\n")
    report = probe_with(system, {"PYTHONUSERBASE": str(userbase)})
    never_the_checkout(report, user_site / "botarena")
    assert str(user_site) in report["roots"]  # type: ignore[operator]


@pytest.fixture
def fresh_probe() -> Iterator[None]:
    sandbox_module.reset_cache()
    yield
    sandbox_module.reset_cache()


@pytest.mark.usefixtures("fresh_probe")
def test_the_probe_names_the_interpreter_the_sandbox_hides(monkeypatch: pytest.MonkeyPatch) -> None:
    real = sandbox_module.python_paths()
    hidden = sandbox_module.PythonPaths((PACKAGE,), real.pythonpath, real.interpreter)
    monkeypatch.setattr(sandbox_module, "python_paths", lambda: hidden)
    shown = [Path("/usr"), PACKAGE]
    first_hidden = next(
        path for path in real.interpreter if not any(p == path or p in path.parents for p in shown)
    )
    with pytest.raises(SandboxUnavailable) as caught:
        check_sandbox()
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"the sandbox hides {first_hidden}: the Python kit cannot start there (")
    assert message.endswith("; or pass --unsandboxed")


@pytest.mark.usefixtures("fresh_probe")
def test_the_probe_names_what_the_failed_start_found_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    """A sandbox that should show the interpreter but does not (its bind lost): the probe reads the
    path from the failed start itself."""
    prefix = Path(sys.prefix)
    if prefix == Path("/usr") or Path("/usr") in prefix.parents:
        pytest.skip("the interpreter is part of the system the sandbox always shows")
    real = sandbox_module.bwrap_argv

    def without_the_prefix(*args: Any, **kwargs: Any) -> list[str]:
        argv = real(*args, **kwargs)
        at = next(
            i for i in range(len(argv) - 2) if argv[i : i + 3] == ["--ro-bind", str(prefix), str(prefix)]
        )
        return argv[:at] + argv[at + 3 :]

    monkeypatch.setattr(sandbox_module, "bwrap_argv", without_the_prefix)
    with pytest.raises(SandboxUnavailable) as caught:
        check_sandbox()
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"the sandbox hides {sys.executable}: the Python kit cannot start there (")


@pytest.mark.usefixtures("fresh_probe")
def test_the_probe_refuses_without_libseccomp(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(seccomp, "LIBRARY", "libseccomp-botarena-missing.so.2")
    seccomp.program.cache_clear()
    try:
        with pytest.raises(SandboxUnavailable) as caught:
            check_sandbox()
    finally:
        monkeypatch.undo()
        seccomp.program.cache_clear()
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("libseccomp (libseccomp-botarena-missing.so.2) is missing")
    assert "apt-get install libseccomp2" in message and message.endswith("or pass --unsandboxed")


root_only = pytest.mark.skipif(os.geteuid() != 0, reason="sandbox uids are leased by a root runner only")


@root_only
def test_a_bot_file_the_sandboxs_uid_cannot_read_is_refused_in_one_line(
    drones: GameInfo, tmp_path: Path
) -> None:
    secret = tmp_path / "entrants" / "closed" / "bot.py"
    secret.parent.mkdir(parents=True)
    secret.write_text("def act(payload):\n    return {}\n")
    secret.chmod(0o600)
    bot = resolve_bot(str(secret), drones, isolation=untrusted())
    zergy = resolve_bot("zergy", drones)
    run = run_match(drones, [bot, zergy], config=drones.config("default", CONFIG), seed=1)
    assert run.replay.start["verdicts"][0][0] == "CRASHED"
    notes = [line for line in log_of(run, 0).splitlines() if "could not start" in line]
    assert len(notes) == 1 and f"the sandbox cannot read {secret} (mode 0600, owner uid 0)" in notes[0]


@root_only
def test_each_sandbox_leases_a_uid_of_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(sandbox_uids.LOCKS_ENV, str(tmp_path / "locks"))
    monkeypatch.setenv(sandbox_uids.UIDS_ENV, "2000100000:3")
    (tmp_path / "locks").mkdir(mode=0o700)
    # Another runner (here: a child process) holds the first uid.
    other = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT);"
         " fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); sys.stdin.read()",
         str(tmp_path / "locks" / "2000100000")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert other.stdout is not None and other.stdout.readline() == "held\n"
        first, second = sandbox_uids.lease_uid(), sandbox_uids.lease_uid()
        assert (first.uid, second.uid) == (2000100001, 2000100002)
        with pytest.raises(sandbox_uids.UidUnavailable, match="all 3 sandbox uids"):
            sandbox_uids.lease_uid()
        first.release()
        again = sandbox_uids.lease_uid()
        assert again.uid == 2000100001
        again.release()
        second.release()
    finally:
        other.communicate("")
    fd = os.open(tmp_path / "locks" / "2000100000", os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # the other runner's lease went with it
    os.close(fd)


@root_only
def test_a_sealed_commands_writable_folder_comes_back_to_the_runner(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    shadow = Path("/etc/shadow")
    before = shadow.stat() if shadow.exists() else None
    script = f"id -u > {out}/uid; echo x > {out}/suid; chmod 4755 {out}/suid; ln -s {shadow} {out}/link"
    done = run_sealed(
        ["/bin/sh", "-c", script], policy=SandboxPolicy(), timeout_s=60, writable=[out], cwd=str(out)
    )
    assert done.returncode == 0, done.output
    sandbox_uid = int((out / "uid").read_text())
    assert sandbox_uid in sandbox_uids.uid_range()  # it wrote there as its own uid
    for path in (out, out / "uid", out / "suid", out / "link"):
        info = path.lstat()
        assert (info.st_uid, info.st_gid) == (os.getuid(), os.getgid()), path
    assert not (out / "suid").stat().st_mode & 0o6000  # no set-uid bit made by the sandbox survives
    if before is not None:
        after = shadow.stat()
        assert (after.st_uid, after.st_gid) == (before.st_uid, before.st_gid)  # the link was not followed


def test_the_sandbox_shows_python_as_installed_and_never_the_checkout() -> None:
    """Here too: the running interpreter's prefixes and site folders, the package folder alone."""
    paths = sandbox_module.python_paths()
    roots = set(paths.roots)
    assert Path(sys.prefix) in roots or Path(sys.prefix) == Path("/")
    assert Path(sysconfig.get_paths()["purelib"]) in roots or any(
        root in Path(sysconfig.get_paths()["purelib"]).parents for root in roots
    )
    assert all(root != CHECKOUT and root not in CHECKOUT.parents for root in roots)
