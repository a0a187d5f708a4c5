"""A built wheel, installed in a fresh venv outside the checkout, is a working botarena (issue 15,
item 4): the `botarena` command plays a match, the web viewer's files and server are installed, and
the bot kits (the drones JavaScript adapter, the Domains C++ kit) are found inside the installation.

Building the wheel fetches the build backend (hatchling) and installing it fetches the dependencies,
from the package index or pip's cache: set BOTARENA_SKIP_WHEEL_TEST=1 on a machine without either.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from waiting import wait_until

CHECKOUT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    os.environ.get("BOTARENA_SKIP_WHEEL_TEST") == "1", reason="BOTARENA_SKIP_WHEEL_TEST=1"
)

JS_BOT = """export default function () {
  return {
    playTurn(state) {
      return { newProducers: state.producers, newSoldiers: 0, launchAttack: false };
    },
  };
}
"""


def clean_env() -> dict[str, str]:
    """This environment without what would make the venv import the checkout."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}


def run(argv: list[str], cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    env = clean_env()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    assert done.returncode == 0, f"{argv}\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin folder of a fresh venv with the wheel built from this checkout installed."""
    root = tmp_path_factory.mktemp("wheel")
    dist = root / "dist"
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(dist), str(CHECKOUT)], root)
    wheels = sorted(dist.glob("botarena-*.whl"))
    assert len(wheels) == 1, wheels
    venv = root / "venv"
    # Issue 28, item 8: the venv gets no pip of its own (ensurepip is seconds, and no test uses it);
    # this interpreter's pip installs into it (`--python`), without byte-compiling every dependency
    # up front (scipy alone is thousands of files): the venv's python compiles what it imports.
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)], root)
    install = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install"]
    run([*install, "--quiet", "--no-compile", "--disable-pip-version-check", str(wheels[0])], root)
    return venv / "bin"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A working folder that is not inside the checkout."""
    assert CHECKOUT not in tmp_path.parents
    return tmp_path


def test_the_installed_command_plays_a_match(installed: Path, outside: Path) -> None:
    games = run([str(installed / "botarena"), "games"], outside).stdout
    for game in ("drones", "domains", "devops", "datspulse", "craftingquest"):
        assert game in games
    played = run([str(installed / "botarena"), "play", "drones", "pacifist", "zergy", "--seed", "3"], outside)
    assert "drones · seed 3" in played.stdout and "outcome:" in played.stdout


def test_the_installed_package_is_not_the_checkout(installed: Path, outside: Path) -> None:
    where = run([str(installed / "python"), "-c", "import botarena; print(botarena.__file__)"], outside)
    path = Path(where.stdout.strip())
    assert installed.parent in path.parents and CHECKOUT not in path.parents


def test_the_viewer_and_kits_are_installed(installed: Path, outside: Path) -> None:
    probe = (
        "from botarena.server.viewer import web_root\n"
        "from botarena.server.app import create_app\n"
        "from botarena.bots.node import find_adapter\n"
        "from botarena.bots.cppkit import kit_dir\n"
        "root = web_root()\n"
        "assert (root / 'index.html').is_file() and (root / 'renderers' / 'drones.js').is_file(), root\n"
        "print(root)\n"
        "print(find_adapter('drones-js'))\n"
        "print(kit_dir())\n"
    )
    lines = run([str(installed / "python"), "-c", probe], outside).stdout.split()
    for line in lines:
        assert installed.parent in Path(line).parents, line
    assert Path(lines[1]).is_file() and (Path(lines[2]) / "game" / "Player.hh").is_file()


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed (apt-get install nodejs)")
def test_the_installed_command_runs_a_2018_javascript_bot(installed: Path, outside: Path) -> None:
    (outside / "mine.js").write_text(JS_BOT)
    command = [str(installed / "botarena"), "play", "drones", "mine.js", "pacifist", "--seed", "4"]
    played = run(command, outside)
    assert "CRASHED" not in played.stdout and "INVALID" not in played.stdout, played.stdout


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_for_logs(url: str, service: subprocess.Popen[str], deadline_s: float = 60) -> None:
    """Wait until the service's `GET /logs` answers, failing at once if the service exits."""

    def answers() -> bool:
        assert service.poll() is None, f"the service exited: {service.communicate()[1][-2000:]}"
        try:
            with urllib.request.urlopen(f"{url}/logs", timeout=2):
                return True
        except OSError:
            return False

    wait_until(answers, f"{url}/logs answering", deadline_s)


def test_the_installed_command_plays_an_http_bot(installed: Path, outside: Path) -> None:
    """The README's `botarena play devops http://127.0.0.1:8081 starter` after a plain install (issue 26,
    item 3): the HTTP client is a core dependency, the service is the installed starter service."""
    url = f"http://127.0.0.1:{_free_port()}"
    service = subprocess.Popen(
        [str(installed / "botarena"), "devops-service", "--port", url.rsplit(":", 1)[1]],
        cwd=outside,
        env=clean_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for_logs(url, service)
        command = ["play", "devops", url, "starter", "--preset", "smoke", "--seed", "1"]
        played = run([str(installed / "botarena"), *command], outside, timeout=300).stdout
    finally:
        service.terminate()
        service.communicate(timeout=30)
    seat0 = next(line for line in played.splitlines() if url in line)
    assert "OK:" in seat0 and not any(bad in seat0 for bad in ("CRASHED", "TIMEOUT", "INVALID")), played
