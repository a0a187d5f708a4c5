"""The bot sandbox (issue 12 item 2, DESIGN principle 7): each attack a hostile entrant tried is stopped.

Every hostile bot is a real Python entrant file resolved as a tournament resolves it
(`resolve_bot(..., isolation=untrusted())`: a sandboxed `botarena.kit` subprocess) and plays a whole
GameOfDrones match through `run_match` against a quiet sandboxed subprocess rival, in both seats.
Each test asserts that the match completes, the rival's statuses are all OK, and that the attack
failed: no secret in the replay, the rival's file unchanged, no connection received, no process
left, the runner's memory bounded.

The tests skip where bubblewrap or cgroups are missing, except in CI (.ci/run sets
BOTARENA_REQUIRE_SANDBOX=1), where a missing sandbox fails them.
"""

from __future__ import annotations

import os
import select
import shutil
import socket
import subprocess
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from botarena.bots import sandbox as sandbox_module
from botarena.bots.base import Bot
from botarena.bots.resolve import resolve_bot, untrusted
from botarena.bots.sandbox import SandboxPolicy, SandboxUnavailable, check_sandbox
from botarena.bots.subprocess import SubprocessBot
from botarena.cli import main
from botarena.core.game import GameInfo
from botarena.core.registry import get_game
from botarena.core.status import Status
from botarena.runner import MatchRun, run_match

REQUIRE_ENV = "BOTARENA_REQUIRE_SANDBOX"
SECRET = "S3CRET-c0ffee-7e57"
# Generous limits: the sandboxed start of a Python interpreter on a loaded CI box must not TIMEOUT.
CONFIG = {"setup_timeout_ms": 30_000, "turn_timeout_ms": 5_000, "rounds": 2, "turn_limit": 3}
SEATS = [0, 1]
SLEEPER = "import time\nwhile True: time.sleep(60)"
"""A process that would live forever: what daemons and fork-bomb children run."""
READY_SLEEPER = "import os, sys, time\nos.write(int(sys.argv[2]), b'x')\nwhile True: time.sleep(60)"
"""SLEEPER that first writes to the pipe fd in argv[2]: it says so only once it runs under its token."""

QUIET = f"""
# the rival's source: {SECRET}
def act(payload):
    return {{}}
"""


@pytest.fixture(scope="module", autouse=True)
def sandbox_ready() -> None:
    """Skip without a sandbox locally; fail in CI, where .ci/run installs bubblewrap."""
    try:
        check_sandbox()
    except SandboxUnavailable as exc:
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{REQUIRE_ENV}=1 but the sandbox is unavailable: {exc}", pytrace=False)
        pytest.skip(str(exc))


@dataclass
class Arena:
    """A fake organizer's machine: a project folder with var/botarena.db, a HOME, two entrants."""

    root: Path
    project: Path
    db: Path
    home_secret: Path
    rival: Path

    def entrant(self, name: str, source: str) -> Path:
        folder = self.root / "entrants" / name
        folder.mkdir(parents=True)
        path = folder / "bot.py"
        path.write_text(textwrap.dedent(source))
        return path


@pytest.fixture
def arena(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Arena:
    project = tmp_path / "project"
    (project / "var").mkdir(parents=True)
    db = project / "var" / "botarena.db"
    db.write_text(f"database {SECRET}")
    home = tmp_path / "home"
    home.mkdir()
    home_secret = home / ".secret"
    home_secret.write_text(SECRET)
    monkeypatch.chdir(project)
    monkeypatch.setenv("HOME", str(home))
    made = Arena(tmp_path, project, db, home_secret, tmp_path)
    made.rival = made.entrant("rival", QUIET)
    return made


def play(drones: GameInfo, hostile: Path, rival: Path, seat: int, watch: str = "") -> MatchRun:
    """One match, the hostile entrant in `seat`, both sandboxed; the rival must stay all OK.

    With `watch`, the host pids whose command line holds it are counted at each step into `seen`.
    """
    isolation = untrusted()
    bots: list[Bot] = [resolve_bot(str(rival), drones, isolation=isolation)]
    bots.insert(seat, resolve_bot(str(hostile), drones, isolation=isolation))
    seen.clear()

    def count(index: int, record: object, engine: object) -> None:
        seen.append(len(processes_with(watch)))

    config = drones.config("default", CONFIG)
    run = run_match(drones, bots, config=config, seed=5, on_step=count if watch else None)
    rival = run.replay.statuses[1 - seat] if run.replay.statuses else {}
    assert set(rival) == {Status.OK.value}, f"the rival is affected: {run.replay.statuses}, {run.replay.logs}"
    assert run.result is not None and run.replay.steps, "the match completes"
    return run


seen: list[int] = []
"""Processes counted by `play(..., watch=...)` at each step of the last match."""


def log_of(run: MatchRun, seat: int) -> str:
    return str(run.replay.logs[seat]["text"])


def processes_with(token: str) -> list[int]:
    """Host pids whose command line contains `token` (the sandbox's own pids are namespaced)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                cmdline = handle.read()
        except OSError:
            continue
        if token.encode() in cmdline:
            found.append(int(entry))
    return found


@pytest.mark.parametrize("seat", SEATS)
def test_reading_rival_database_home_and_passwd_fails(drones: GameInfo, arena: Arena, seat: int) -> None:
    targets = [str(arena.rival), str(arena.db), "var/botarena.db", str(arena.home_secret), "/etc/passwd"]
    hostile = arena.entrant(
        "reader",
        f"""
        import os, sys
        TARGETS = {targets!r}

        def setup(payload):
            for path in TARGETS:
                try:
                    with open(path) as handle:
                        print("READ", path, handle.read(), file=sys.stderr)
                except OSError as exc:
                    print("DENIED", path, type(exc).__name__, file=sys.stderr)
            print("HOME", os.environ.get("HOME"), os.listdir(os.path.expanduser("~")), file=sys.stderr)
            return {{}}

        def act(payload):
            return {{"leak": open(TARGETS[0]).read()}} if os.path.exists(TARGETS[0]) else {{}}
        """,
    )
    run = play(drones, hostile, arena.rival, seat)
    log = log_of(run, seat)
    for path in targets:
        assert f"DENIED {path} FileNotFoundError" in log
    assert "HOME /tmp [" in log  # a private home: the tmpfs (holding only the path to its own file)
    assert SECRET not in run.replay.dumps().decode()
    assert set(run.replay.statuses[seat]) == {Status.OK.value}


@pytest.mark.parametrize("seat", SEATS)
def test_writing_outside_and_appending_to_rival_fail(drones: GameInfo, arena: Arena, seat: int) -> None:
    before = arena.rival.read_bytes()
    own = arena.root / "entrants" / "writer"
    targets = [str(arena.rival), str(own / "bot.py"), str(own / "new.txt"), str(arena.project / "x")]
    hostile = arena.entrant(
        "writer",
        f"""
        import sys
        TARGETS = {targets!r}

        def setup(payload):
            for path in TARGETS:
                try:
                    with open(path, "a") as handle:
                        handle.write("def act(payload):\\n    raise SystemExit\\n")
                    print("WROTE", path, file=sys.stderr)
                except OSError as exc:
                    print("DENIED", path, type(exc).__name__, file=sys.stderr)
            with open("/tmp/scratch", "w") as handle:  # its private /tmp is writable
                handle.write("ok")
            print("TMP", open("/tmp/scratch").read(), file=sys.stderr)
            return {{}}

        def act(payload):
            return {{}}
        """,
    )
    run = play(drones, hostile, arena.rival, seat)
    log = log_of(run, seat)
    assert "WROTE" not in log
    assert all(f"DENIED {path}" in log for path in targets)
    assert "TMP ok" in log
    assert arena.rival.read_bytes() == before
    assert not (own / "new.txt").exists() and not (arena.project / "x").exists()


@pytest.mark.parametrize("seat", SEATS)
def test_tcp_connect_to_local_listener_receives_nothing(drones: GameInfo, arena: Arena, seat: int) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        port = listener.getsockname()[1]
        hostile = arena.entrant(
            "caller",
            f"""
            import socket, sys

            def setup(payload):
                for host in ("127.0.0.1", "localhost", "10.0.2.2"):
                    try:
                        socket.create_connection((host, {port}), timeout=2).sendall(b"hello")
                        print("CONNECTED", host, file=sys.stderr)
                    except OSError as exc:
                        print("REFUSED", host, type(exc).__name__, file=sys.stderr)
                return {{}}

            def act(payload):
                return {{}}
            """,
        )
        run = play(drones, hostile, arena.rival, seat)
        # A completed connection would sit in the backlog and make the listener readable.
        readable, _, _ = select.select([listener], [], [], 0)
    assert readable == []
    log = log_of(run, seat)
    assert "CONNECTED" not in log and log.count("REFUSED") == 3


@pytest.mark.parametrize("seat", SEATS)
def test_setsid_double_fork_daemon_does_not_outlive_the_match(
    drones: GameInfo, arena: Arena, seat: int
) -> None:
    token = f"daemon-token-{os.getpid()}-{seat}"
    hostile = arena.entrant(
        "daemon",
        f"""
        import os, sys, time

        def setup(payload):
            ready_r, ready_w = os.pipe()
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    os.set_inheritable(ready_w, True)
                    argv = [sys.executable, "-c", {READY_SLEEPER!r}, "{token}", str(ready_w)]
                    os.execv(sys.executable, argv)
                os._exit(0)
            os.read(ready_r, 1)  # the daemon runs (exec'd, under its token) before the bot answers
            print("DAEMON STARTED", file=sys.stderr)
            return {{}}

        def act(payload):
            return {{}}
        """,
    )
    run = play(drones, hostile, arena.rival, seat, watch=token)
    assert "DAEMON STARTED" in log_of(run, seat)
    assert seen and min(seen) == 1  # the daemon ran all match long
    assert processes_with(token) == []


@pytest.mark.parametrize("seat", SEATS)
def test_fork_bomb_is_stopped_by_the_pids_limit(drones: GameInfo, arena: Arena, seat: int) -> None:
    hostile = arena.entrant(
        "bomb",
        """
        import os, sys, time

        def breed():
            # Every child forks children of its own, then stays forever; it never returns to the kit.
            for _ in range(2):
                try:
                    if os.fork() == 0:
                        breed()
                except OSError:
                    break
            while True:
                time.sleep(60)

        def setup(payload):
            made = 0
            while True:
                try:
                    pid = os.fork()
                except OSError as exc:
                    print("FORK FAILED after", made, type(exc).__name__, file=sys.stderr)
                    return {}
                if pid == 0:
                    breed()
                made += 1

        def act(payload):
            return {}
        """,
    )
    run = play(drones, hostile, arena.rival, seat, watch=str(hostile))
    log = log_of(run, seat)
    assert "FORK FAILED after" in log
    assert seen and SandboxPolicy().pids // 2 < min(seen) <= SandboxPolicy().pids  # the bomb went off
    made = int(log.split("FORK FAILED after", 1)[1].split()[0])
    assert made < SandboxPolicy().pids
    assert set(run.replay.statuses[seat]) == {Status.OK.value}  # the bot itself plays on
    assert processes_with(str(hostile)) == []  # forks keep the kit's command line, bot path included


def rss_kib() -> int:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS in /proc/self/status")


@pytest.mark.parametrize("seat", SEATS)
def test_4gb_allocation_is_stopped_by_the_memory_limit(drones: GameInfo, arena: Arena, seat: int) -> None:
    hostile = arena.entrant(
        "hog",
        """
        def act(payload):
            hog = b"x" * (4 << 30)  # touched, not just reserved
            return {"size": len(hog)}
        """,
    )
    before = rss_kib()
    run = play(drones, hostile, arena.rival, seat)
    assert run.replay.statuses[seat].get(Status.CRASHED.value, 0) >= 1
    assert Status.OK.value not in {step["verdicts"][seat][0] for step in run.replay.steps}
    assert "memory limit hit" in log_of(run, seat)
    assert rss_kib() - before < 256 * 1024  # the runner's memory is bounded


@pytest.mark.parametrize("sealed", [True, False], ids=["sandboxed", "unsandboxed"])
def test_jvm_bot_starts_with_the_default_limits(drones: GameInfo, arena: Arena, sealed: bool) -> None:
    java = shutil.which("java")
    if java is None:
        pytest.skip("no java on PATH")
    folder = arena.root / "entrants" / "java"
    folder.mkdir(parents=True)
    source = folder / "Bot.java"
    source.write_text(
        textwrap.dedent(
            """
            import java.io.*;
            import java.util.regex.*;
            public class Bot {
                public static void main(String[] args) throws IOException {
                    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
                    Pattern id = Pattern.compile("\\"id\\":(\\\\d+)");
                    System.err.println("java " + System.getProperty("java.version"));
                    for (String line; (line = in.readLine()) != null; ) {
                        Matcher m = id.matcher(line);
                        m.find();
                        System.out.println("{\\"id\\":" + m.group(1) + ",\\"payload\\":{}}");
                        System.out.flush();
                    }
                }
            }
            """
        )
    )
    # Unsandboxed, a `java` command is exempt from RLIMIT_AS (the JVM reserves far more than it uses).
    isolation = untrusted(SandboxPolicy() if sealed else None)
    bot = resolve_bot(f"cmd:{java} {source}", drones, isolation=isolation)
    rival = resolve_bot(str(arena.rival), drones, isolation=untrusted())
    run = run_match(drones, [bot, rival], config=drones.config("default", CONFIG), seed=5)
    assert set(run.replay.statuses[0]) == {Status.OK.value}, log_of(run, 0)
    assert "java " in log_of(run, 0)


def test_java_version_runs_inside_the_default_sandbox() -> None:
    java = shutil.which("java")
    if java is None:
        pytest.skip("no java on PATH")
    policy = SandboxPolicy()
    group = sandbox_module.Cgroup.create(policy)
    sealed = sandbox_module.seal([java, "-version"], policy=policy)
    try:
        done = subprocess.run(
            sealed.argv,
            capture_output=True,
            check=False,
            preexec_fn=group.preexec(),
            env=sealed.env,
            pass_fds=sealed.pass_fds,
        )
    finally:
        group.kill()
        group.remove()
        sealed.release()
    assert done.returncode == 0, done.stderr.decode()
    assert b"version" in done.stderr


@pytest.mark.parametrize("seat", SEATS)
def test_node_adapter_bot_plays_in_the_sandbox(drones: GameInfo, arena: Arena, seat: int) -> None:
    from botarena.bots.node import NodeUnavailableError, check_node, find_adapter

    try:
        check_node()
    except NodeUnavailableError as exc:
        pytest.skip(str(exc))
    js = find_adapter().parent / "bots" / "greedy.js"
    bot = resolve_bot(str(js), drones, isolation=untrusted())
    assert bot.describe()["sandbox"]
    run = play(drones, js, arena.rival, seat)
    assert set(run.replay.statuses[seat]) == {Status.OK.value}, log_of(run, seat)


def test_devops_subprocess_bot_runs_sandboxed(arena: Arena) -> None:
    """The Devops game's local subprocess bots get the same sandbox (spec 7.2 calls, one at a time)."""
    devops = get_game("devops")
    bot_file = arena.entrant(
        "faction",
        """
        import os
        def act(payload):
            assert not os.path.exists("var/botarena.db")
            return {"type": "RECEIVE_INCOME"} if payload["call"] == "base" else {"type": "IDLE"}
        """,
    )
    bots = [
        resolve_bot(str(bot_file), devops, isolation=untrusted()),
        resolve_bot("banker", devops, isolation=untrusted()),
    ]
    config = devops.config("smoke", {"turn_limit": 3, "starting_units": ["PIONEER"] * 2})
    run = run_match(devops, bots, config=config, seed=2)
    assert run.replay.statuses[0] == {Status.OK.value: 1 + 3 * 3}, log_of(run, 0)


def test_untrusted_python_file_is_a_kit_subprocess_and_starters_stay_in_process(drones: GameInfo) -> None:
    bot = resolve_bot(str(Path(__file__).parent / "zoo" / "kit_bot.py"), drones, isolation=untrusted())
    assert isinstance(bot, SubprocessBot) and bot.sandbox == SandboxPolicy()
    assert bot.argv[1:3] == ["-m", "botarena.kit"]
    assert not isinstance(resolve_bot("zergy", drones, isolation=untrusted()), SubprocessBot)


def test_cgroup_is_removed_on_close(drones: GameInfo, arena: Arena) -> None:
    bot = resolve_bot(str(arena.rival), drones, isolation=untrusted())
    assert isinstance(bot, SubprocessBot)
    bot.open("m", 0)
    group = bot._cgroup
    assert group is not None and group.pids()
    folders = list(group.dirs.values())
    assert all(folder.is_dir() for folder in folders)
    bot.close()
    assert not any(folder.exists() for folder in folders)


# -- refusal when the sandbox is missing ------------------------------------------------------------
@pytest.fixture
def no_bwrap(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(sandbox_module, "find_bwrap", lambda: None)
    sandbox_module.reset_cache()
    yield
    monkeypatch.undo()
    sandbox_module.reset_cache()


@pytest.mark.usefixtures("no_bwrap")
def test_missing_bwrap_is_refused_in_one_line() -> None:
    with pytest.raises(SandboxUnavailable) as caught:
        check_sandbox()
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("bubblewrap (bwrap) not found") and "--unsandboxed" in message


@pytest.mark.usefixtures("no_bwrap")
def test_tournament_refuses_without_sandbox(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 't.db'}"
    code = main(["tournament", "drones", "-b", "zergy", "-b", "adaptive", "--db", db, "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip().splitlines() == [
        "botarena: error: bubblewrap (bwrap) not found: apt-get install bubblewrap, or pass --unsandboxed"
    ]
    assert not (tmp_path / "t.db").exists()  # refused before anything was created


@pytest.mark.usefixtures("no_bwrap")
def test_sandboxed_bot_without_bwrap_never_runs_unsealed(drones: GameInfo, arena: Arena) -> None:
    bot = resolve_bot(str(arena.rival), drones, isolation=untrusted())
    run = run_match(drones, [bot, resolve_bot("zergy", drones)], config=drones.config("default", CONFIG))
    assert run.replay.start["verdicts"][0][0] == Status.CRASHED.value
    assert "bubblewrap (bwrap) not found" in log_of(run, 0)


@pytest.mark.parametrize("seat", SEATS)
def test_compiled_cpp_kit_player_plays_in_the_sandbox(
    tmp_path: Path, seat: int, shared_cpp_cache: Path
) -> None:
    """A Domains player built with the C++ kit (kits/domains-cpp) runs sealed like any command bot."""
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    from botarena.bots.cppkit import kit_dir
    from cppbuilds import build_once, copy_into

    domains = get_game("domains")
    # compiled once per run (tests/cppbuilds.py), each entrant a copy in a folder of its own
    demo = copy_into(
        build_once(kit_dir() / "bots" / "AIDemo.cc", shared_cpp_cache), tmp_path / "demo", "demo"
    )
    dummy = copy_into(
        build_once(kit_dir() / "bots" / "AIDummy.cc", shared_cpp_cache), tmp_path / "dummy", "dummy"
    )
    bots = [resolve_bot(str(dummy), domains, isolation=untrusted())]
    bots.insert(seat, resolve_bot(str(demo), domains, isolation=untrusted()))
    assert all(isinstance(bot, SubprocessBot) and bot.sandbox is not None for bot in bots)
    config = domains.config(overrides={"number_of_rounds": 10, "board_height": 10, "board_width": 10})
    run = run_match(domains, bots, config=config, seed=3)
    assert run.replay.statuses == [{Status.OK.value: 11}, {Status.OK.value: 11}], run.replay.logs


def test_isolation_is_picklable_for_tournament_workers() -> None:
    import pickle

    from botarena.bots.resolve import TRUSTED, Isolation

    for isolation in (TRUSTED, untrusted(), untrusted(None), Isolation(sandbox=SandboxPolicy(pids=32))):
        assert pickle.loads(pickle.dumps(isolation)) == isolation


# -- cgroup v2 and the reported fallback ------------------------------------------------------------
def fake_v2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, controllers: str) -> Path:
    """A folder that looks like a cgroup2 mount with `controllers` available below this process."""
    mount = tmp_path / "cgroup2"
    own = mount / "job"
    own.mkdir(parents=True)
    (own / "cgroup.controllers").write_text(controllers + "\n")
    (own / "cgroup.subtree_control").write_text(controllers + "\n")
    monkeypatch.setattr(sandbox_module, "_mounts", lambda: [(str(mount), "cgroup2", ["rw"])])
    monkeypatch.setattr(sandbox_module, "_own_cgroups", lambda: {"": "/job"})
    return own


def test_v2_cgroup_gets_the_policy_limits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    own = fake_v2(tmp_path, monkeypatch, "cpuset cpu io memory pids")
    layout = sandbox_module._v2_layout()
    assert layout is not None and layout.version == 2 and layout.bases == {"unified": own}
    group = sandbox_module.Cgroup.create(SandboxPolicy(memory_mb=256, pids=32, cpu_cores=0.5), layout)
    folder = group.dirs["unified"]
    assert folder.parent == own and folder.name.startswith("botarena-")
    assert (folder / "memory.max").read_text() == str(256 << 20)
    assert (folder / "memory.swap.max").read_text() == "0"
    assert (folder / "pids.max").read_text() == "32"
    assert (folder / "cpu.max").read_text() == "50000 100000"
    assert group.procs_files == [str(folder / "cgroup.procs")]
    group.kill()
    assert (folder / "cgroup.kill").read_text() == "1"  # v2 kills the whole tree in one write


def test_v2_without_the_controllers_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_v2(tmp_path, monkeypatch, "")  # like this machine's empty unified hierarchy
    assert sandbox_module._v2_layout() is None


def test_cgroup_failure_falls_back_to_rlimit_as_and_says_so(
    drones: GameInfo, arena: Arena, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> sandbox_module.Cgroup:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(sandbox_module.Cgroup, "create", refuse)
    bot = resolve_bot(str(arena.rival), drones, isolation=untrusted())
    run = run_match(drones, [bot, resolve_bot("zergy", drones)], config=drones.config("default", CONFIG))
    assert set(run.replay.statuses[0]) == {Status.OK.value}
    assert "sandbox warning" in log_of(run, 0) and "RLIMIT_AS" in log_of(run, 0)
    assert "RLIMIT_AS" in bot.describe()["sandbox"]


def test_play_sandbox_flag_seals_a_python_file(arena: Arena, capsys: pytest.CaptureFixture[str]) -> None:
    spy = arena.entrant(
        "spy",
        f"""
        def act(payload):
            try:
                return {{"leak": open({str(arena.db)!r}).read()}}
            except OSError:
                return {{}}
        """,
    )
    replay = arena.root / "play.json.gz"
    code = main(["play", "drones", str(spy), "zergy", "--sandbox", "--seed", "3", "--replay", str(replay)])
    assert code == 0, capsys.readouterr().err
    from botarena.core.replay import read_replay

    recorded = read_replay(replay)
    assert SECRET not in recorded.dumps().decode()
    assert set(recorded.statuses[0]) == {Status.OK.value}


def test_cgroups_of_a_killed_runner_are_swept() -> None:
    """A runner killed before closing its bots leaves empty cgroups; the next runner removes them."""
    layout = sandbox_module.cgroup_layout()
    assert layout is not None
    dead = subprocess.Popen(["true"])
    dead.wait()  # a pid that no longer runs
    stale = [base / f"botarena-{dead.pid}-1-abcdef" for base in layout.bases.values()]
    for folder in stale:
        folder.mkdir()
    sandbox_module.reset_cache()
    group = sandbox_module.Cgroup.create(SandboxPolicy(), layout)
    group.kill()
    group.remove()
    assert not any(folder.exists() for folder in stale)


def test_v2_runner_alone_in_its_cgroup_moves_to_a_leaf(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v2's no-internal-process rule: a runner alone in a delegated cgroup steps into a leaf first."""
    own = fake_v2(tmp_path, monkeypatch, "cpu memory pids")
    (own / "cgroup.subtree_control").write_text("\n")
    (own / "cgroup.procs").write_text(f"{os.getpid()}\n")
    real_write = sandbox_module._write
    refused: list[Path] = []

    def write(path: Path, value: str) -> None:
        if path.name == "cgroup.subtree_control" and not refused:
            refused.append(path)
            raise OSError(16, "Device or resource busy")  # EBUSY: the cgroup has a process
        real_write(path, value)

    monkeypatch.setattr(sandbox_module, "_write", write)
    layout = sandbox_module._v2_layout()
    assert layout is not None and layout.bases == {"unified": own}
    leaf = own / f"botarena-runner-{os.getpid()}"
    assert (leaf / "cgroup.procs").read_text() == "0"
    assert (own / "cgroup.subtree_control").read_text() == "+cpu +memory +pids"


def test_v2_cgroup_shared_with_other_processes_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    own = fake_v2(tmp_path, monkeypatch, "cpu memory pids")
    (own / "cgroup.subtree_control").write_text("\n")
    (own / "cgroup.procs").write_text(f"1\n{os.getpid()}\n")

    def busy(path: Path, value: str) -> None:
        raise OSError(16, "Device or resource busy")

    monkeypatch.setattr(sandbox_module, "_write", busy)
    assert sandbox_module._v2_layout() is None
    assert not any(entry.name.startswith("botarena-") for entry in own.iterdir())
