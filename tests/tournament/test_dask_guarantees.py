"""Issue 18, item 5: what a tournament guarantees on a local process pool holds on a Dask cluster too.

- Exactly-once results and resumption: a `botarena tournament --dask ADDRESS` process SIGKILLed
  mid-tournament (the `gate` entrant holds one match until the kill; the test waits on the store, never
  on a clock) is resumed with `--resume` on the same cluster: every match recorded once, the results
  those of an inline run of the same tournament.
- Failed-worker isolation: an unsandboxed entrant that SIGKILLs the Dask worker running its match
  costs Dask a worker (its nanny starts a new one) and the coordinator a `KilledWorker`; the match is
  run again alone (as after a broken pool), then recorded failed with that reason; the other matches
  are played and the tournament ends. Sandboxed, the same entrant only crashes itself.
- The sandbox on every worker: a hostile entrant (reads host files, writes outside its folder, opens
  connections, forks until it cannot) plays in both seats against an in-process starter, a sandboxed
  subprocess entrant and an HTTP bot, on Dask workers: every attack fails as in the pool, the rivals
  are unaffected, nothing is left running.
- Workers that cannot play take no matches (issue 25): among three workers, one without bubblewrap
  takes none of 30 matches (each is played once, on the other two; none fails) and is logged once
  with its reason; on a cluster where no worker can sandbox the tournament stops at once with that
  reason, nothing recorded as failed and no entrant run unsealed, and `--resume` on a cluster that can
  plays it all. A worker whose artifact cache turns out full (simulated on that worker) costs one try
  of one match: its matches are played on the other workers, and it takes no more.

The cluster's scheduler gives up on a task at the first worker it kills
(`distributed.scheduler.allowed-failures` 0; 3 by default), so that the killer costs seconds; the
coordinator's answer to `KilledWorker` does not depend on that count.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from tournament_entrants import gate_bot, recorded_before_the_kill, sandbox_ready

from botarena.bots.resolve import untrusted
from botarena.bots.sandbox import SandboxPolicy
from botarena.cli import main
from botarena.core.status import Status
from botarena.store import Store, StoreError
from botarena.tournament.executor import (
    MatchTaskError,
    close_executor,
    dask_client,
    dask_executor,
    is_worker_loss,
)
from botarena.tournament.service import (
    SOLO_BREAKS,
    Entrant,
    TournamentPlan,
    create_tournament,
    run_tournament,
)

distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")

ENTRANTS = Path(__file__).parent / "entrants"
SHORT = {"rounds": 3, "turn_limit": 6}
# Generous limits: a sandboxed interpreter's start on a loaded CI box must not TIMEOUT.
SANDBOXED = {"setup_timeout_ms": 30_000, "turn_timeout_ms": 5_000, "rounds": 2, "turn_limit": 3}
SECRET = "S3CRET-d45k-7e57"


def new_cluster(**kw: Any) -> Any:
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        return distributed.LocalCluster(
            n_workers=kw.pop("n_workers", 2),
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            scheduler_kwargs={"dashboard": False},  # no web server to bind
            host="127.0.0.1",
            **kw,
        )


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """One Dask cluster for the module: a scheduler and 2 worker processes (each under a nanny)."""
    with new_cluster() as running:
        yield running


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(f"sqlite:///{tmp_path / 'arena.db'}", replay_dir=tmp_path / "replays")
    yield opened
    opened.close()


def on_dask(store: Store, cluster: Any, plan: TournamentPlan, **kw: Any) -> Any:
    """Create `plan` and run it on `cluster` as `botarena tournament --dask ADDRESS` does."""
    tournament = create_tournament(store, plan, isolation=kw.get("isolation"))
    executor = dask_executor(cluster.scheduler_address)
    try:
        return run_tournament(store, tournament.id, executor, **kw)
    finally:
        close_executor(executor)


def rows_of(store: Store, name: str) -> list[Any]:
    tournament = store.find_tournament(name)
    assert tournament is not None
    return store.list_matches(tournament.id)


# -- exactly once after a kill, and resumption ---------------------------------------------------------

STARTERS = "randomonium,tactician,zergy"
CYCLES = 2
MATCHES = 12  # 4 entrants, every pair twice


def botarena(*args: str) -> list[str]:
    return [sys.executable, "-m", "botarena", *args]


def tournament_args(name: str, gate: Path, *where: str) -> list[str]:
    # the store comes from BOTARENA_DB (a password never goes on a command line);
    # unsandboxed: the gate entrant counts its matches in its own folder; its held start exchange
    # gets two minutes, so that it is still held when the test kills the coordinator
    return [
        "tournament", "drones", "--bots", f"{STARTERS},gate={gate}", "--cycles", str(CYCLES),
        "--seed", "42", *where, "--name", name, "--no-progress", "--unsandboxed",
        "--set", "setup_timeout_ms=120000", "--set", "rounds=3", "--set", "turn_limit=6",
    ]  # fmt: skip


def wait_for_finished(db: str, name: str, count: int, process: subprocess.Popen[bytes], held: Path) -> None:
    """Wait (a bounded poll of the store) until `count` results are recorded and the gate holds a match."""
    for _ in range(6000):  # up to five minutes, in twentieths of a second
        assert process.poll() is None, "the tournament ended before it could be killed"
        if held.exists():
            try:
                opened = Store.open(db, migrate=False)
            except StoreError:  # the coordinator has not created its tables yet
                opened = None
            if opened is not None:
                try:
                    tournament = opened.find_tournament(name)
                    if (
                        tournament is not None
                        and opened.count_matches(tournament.id).get("finished", 0) >= count
                    ):
                        return
                finally:
                    opened.close()
        time.sleep(0.05)
    raise AssertionError(f"no {count} finished matches and a held one within five minutes")


def release_gate(fifo: Path) -> None:
    """Let the held match go on (its coordinator is dead: its result goes nowhere), freeing its worker."""
    with contextlib.suppress(OSError):  # ENXIO: nobody holds the gate (any more)
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


def outcomes(store: Store, name: str) -> dict[str, tuple[Any, ...]]:
    return {r.key: (r.status, tuple(r.seats), r.seed, r.ranks, r.scores) for r in rows_of(store, name)}


@pytest.fixture(scope="module")
def inline_reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Any, ...]]:
    """The outcomes of the killed tournament played inline, once for the module, in this process.

    Both store parametrizations compare with it: an inline run's results depend on the plan and its
    seed, never on the store (tests/tournament/test_service.py checks that on both), so one run
    serves both, and `botarena.cli.main` spares the run a second interpreter's start."""
    folder = tmp_path_factory.mktemp("inline-reference")
    plain = gate_bot(folder / "plain", armed=False)
    db = f"sqlite:///{folder / 'arena.db'}"
    with contextlib.chdir(folder):  # the command's default replay folder is ./var/replays
        code = main([*tournament_args("reference", plain, "--workers", "0"), "--db", db])
    assert code == 0, "the inline reference run failed"
    store = Store.open(db)
    try:
        return outcomes(store, "reference")
    finally:
        store.close()


@pytest.mark.timeout(600)
def test_a_sigkilled_dask_coordinator_resumes_exactly_once(
    db_url: str,
    tmp_path: Path,
    cluster: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    inline_reference: dict[str, tuple[Any, ...]],
) -> None:
    db = db_url  # SQLite and PostgreSQL (tests/conftest.py)
    monkeypatch.chdir(tmp_path)  # the commands' default replay folder is ./var/replays on PostgreSQL
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "BOTARENA_DB": db}
    address = cluster.scheduler_address
    gate = gate_bot(tmp_path / "armed", armed=True)
    # the coordinator killed is a process of its own: the test is about what a SIGKILL leaves
    process = subprocess.Popen(
        botarena(*tournament_args("killed", gate, "--dask", address)), cwd=tmp_path, env=env,
        start_new_session=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_for_finished(db, "killed", 3, process, gate.parent / "blocked")
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        release_gate(gate.parent / "gate")
    assert process.returncode == -signal.SIGKILL

    before = recorded_before_the_kill(db, "killed", MATCHES)

    # the resume is not about its process: it runs in this one (the store from BOTARENA_DB, as above)
    monkeypatch.setenv("BOTARENA_DB", db)
    capsys.readouterr()
    resume = ["--resume", "killed", "--dask", address, "--no-progress", "--unsandboxed"]
    code = main(["tournament", *resume])
    resumed = capsys.readouterr()
    assert code == 0, resumed.err
    assert "resuming tournament" in resumed.out
    assert f"{MATCHES - len(before)} matches played now" in resumed.out

    store = Store.open(db)
    try:
        after = rows_of(store, "killed")
        assert store.find_tournament("killed").status == "finished"  # type: ignore[union-attr]
        assert len(after) == MATCHES and len({r.key for r in after}) == MATCHES
        assert all(r.status == "finished" for r in after)
        for row in after:
            if row.key in before:
                assert row == before[row.key]  # recorded before the kill: kept exactly as it was
        assert all(store.replays.exists(r.replay_hash) for r in after)
        assert outcomes(store, "killed") == inline_reference  # = the inline run
    finally:
        store.close()


# -- failed-worker isolation ---------------------------------------------------------------------------


def test_a_lost_worker_is_told_from_a_failed_task() -> None:
    from distributed.scheduler import KilledWorker

    assert is_worker_loss(KilledWorker("play_task-1", "tcp://127.0.0.1:1", allowed_failures=0))
    assert is_worker_loss(BrokenProcessPool("a worker died"))
    assert not is_worker_loss(RuntimeError("KilledWorker"))  # by its type, never its message
    assert not is_worker_loss(MatchTaskError("t1: unknown bot"))


def killer_plan(killer: Path) -> TournamentPlan:
    entrants = [Entrant("adaptive", "adaptive"), Entrant("zergy", "zergy"), Entrant("killer", str(killer))]
    return TournamentPlan(
        name="t", game="drones", format="round-robin", entrants=entrants, seed=9, overrides=SHORT
    )


@pytest.fixture
def own_cluster() -> Iterator[Any]:
    """A cluster for one test, whose workers it kills: how fast its nannies bring them back on a
    loaded machine (or whether the cluster's spec replaces a nanny instead) is Dask's business, and
    the module's other tests must not depend on it."""
    with new_cluster() as running:
        yield running


@pytest.mark.timeout(600)
def test_an_entrant_that_kills_its_dask_worker_fails_alone_and_the_tournament_ends(
    store: Store, tmp_path: Path, own_cluster: Any
) -> None:
    cluster = own_cluster
    killer = tmp_path / "worker_killer.py"  # SIGKILLs its parent (unsandboxed: the Dask worker)
    shutil.copy(ENTRANTS / "worker_killer.py", killer)
    unsandboxed = untrusted(sandbox=None)
    replaced: list[str] = []

    def factory() -> Executor:  # what the CLI passes with --dask; a cluster must never be "replaced"
        replaced.append("called")
        return dask_executor(cluster.scheduler_address)

    summary = on_dask(store, cluster, killer_plan(killer), isolation=unsandboxed, executor_factory=factory)
    assert replaced == []
    assert summary.status == "finished" and summary.played == 1 and summary.failed == 2
    rows = {tuple(sorted(r.seats)): r for r in rows_of(store, "t")}
    assert rows[("adaptive", "zergy")].status == "finished"
    for pair in (("adaptive", "killer"), ("killer", "zergy")):
        row = rows[pair]
        # once among the others, then alone SOLO_BREAKS times: it, and nothing else, killed the worker
        assert row.status == "failed" and row.attempts == 1 + SOLO_BREAKS, row
        assert (row.error or "").startswith("KilledWorker"), row
    client = distributed.Client(cluster.scheduler_address, set_as_default=False, timeout=60)
    try:  # the tournament left the cluster up: its scheduler still answers (how many of its
        # nannies Dask restarted or replaced by now, on a loaded box, is Dask's business)
        assert client.scheduler_info()["type"] == "Scheduler"
    finally:
        client.close()


@pytest.mark.timeout(600)
def test_sandboxed_the_worker_killer_only_crashes_itself_on_dask(
    store: Store, tmp_path: Path, cluster: Any
) -> None:
    sandbox_ready()
    killer = tmp_path / "worker_killer.py"
    shutil.copy(ENTRANTS / "worker_killer.py", killer)
    summary = on_dask(store, cluster, killer_plan(killer))  # the default: untrusted and sandboxed
    assert summary.status == "finished" and summary.played == 3 and summary.failed == 0
    for row in rows_of(store, "t"):
        assert row.status == "finished" and row.attempts == 1
        if "killer" in row.seats:
            assert row.ranks is not None and row.ranks[row.seats.index("killer")] == 2  # it lost


# -- the sandbox on every worker -----------------------------------------------------------------------

QUIET = f"""
# the rival's source: {SECRET}
def act(payload):
    return {{}}
"""

HOSTILE = """
import os, socket, sys, time

READ = {read!r}
WRITE = {write!r}
PORTS = {ports!r}


def attack():
    for path in READ:
        try:
            with open(path) as handle:
                print("READ", path, handle.read(), file=sys.stderr)
        except OSError as exc:
            print("DENIED", path, type(exc).__name__, file=sys.stderr)
    for path in WRITE:
        try:
            with open(path, "a") as handle:
                handle.write("def act(payload):\\n    raise SystemExit\\n")
            print("WROTE", path, file=sys.stderr)
        except OSError as exc:
            print("DENIED", path, type(exc).__name__, file=sys.stderr)
    for port in PORTS:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=2).sendall(b"hello")
            print("CONNECTED", port, file=sys.stderr)
        except OSError as exc:
            print("REFUSED", port, type(exc).__name__, file=sys.stderr)
    made = 0
    while True:  # children that would live forever, until the process limit says no
        try:
            pid = os.fork()
        except OSError as exc:
            print("FORK FAILED after", made, type(exc).__name__, file=sys.stderr)
            return
        if pid == 0:
            while True:
                time.sleep(60)
        made += 1


def setup(payload):
    attack()
    return {{}}


def act(payload):
    return {{}}
"""


class HttpOpponent(ThreadingHTTPServer):
    """A quiet bot behind the generic HTTP binding: every request answered with an empty payload."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _QuietHandler)
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/"

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


class _QuietHandler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        envelope = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        body = json.dumps({"id": envelope.get("id"), "payload": {}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return


def processes_with(token: str) -> list[int]:
    """Host pids whose command line contains `token` (a sandbox's own pids are namespaced)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    if token.encode() in handle.read():
                        found.append(int(entry))
            except OSError:
                continue
    return found


@pytest.mark.timeout(600)
def test_hostile_entrants_on_dask_workers_are_stopped_in_both_seats_against_every_transport(
    store: Store, tmp_path: Path, cluster: Any
) -> None:
    sandbox_ready()
    secret = tmp_path / "organizer" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text(SECRET)
    rival = tmp_path / "entrants" / "quiet" / "bot.py"
    rival.parent.mkdir(parents=True)
    rival.write_text(QUIET)
    rival_source = rival.read_bytes()
    hostile = tmp_path / "entrants" / "hostile" / "bot.py"
    hostile.parent.mkdir()
    read = [str(rival), str(secret), str(tmp_path / "arena.db"), "/etc/passwd"]
    write = [str(rival), str(hostile), str(hostile.parent / "new.txt"), str(secret.parent / "x")]
    http = HttpOpponent()
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        ports = [listener.getsockname()[1], http.server_address[1]]
        hostile.write_text(textwrap.dedent(HOSTILE.format(read=read, write=write, ports=ports)))
        plan = TournamentPlan(
            name="t", game="drones", format="round-robin", seed=5, overrides=SANDBOXED,
            options={"cycles": 2},  # the second cycle swaps every pair's seats
            entrants=[
                Entrant("hostile", str(hostile)), Entrant("zergy", "zergy"),  # in-process starter
                Entrant("quiet", str(rival)), Entrant("http", http.url),  # sandboxed subprocess, HTTP
            ],
        )  # fmt: skip
        summary = on_dask(store, cluster, plan)
        readable, _, _ = select.select([listener], [], [], 0)  # a connection would sit in the backlog
    finally:
        listener.close()
        http.stop()
    assert summary.status == "finished" and summary.failed == 0
    assert readable == []
    seats_met: set[tuple[str, int]] = set()
    for row in rows_of(store, "t"):
        assert row.status == "finished", row
        replay = store.load_replay(row.replay_hash)
        assert SECRET not in replay.dumps().decode()
        if "hostile" not in row.seats:
            continue
        seat = row.seats.index("hostile")
        rival_seat = 1 - seat
        seats_met.add((row.seats[rival_seat], seat))
        assert set(replay.statuses[rival_seat]) == {Status.OK.value}, row  # the rival plays on unharmed
        assert set(replay.statuses[seat]) == {Status.OK.value}, row  # and so does the attacker
        log = str(replay.logs[seat]["text"])
        assert all(f"DENIED {path} FileNotFoundError" in log for path in read), log
        assert all(f"DENIED {path}" in log for path in write), log
        assert "READ" not in log and "WROTE" not in log and "CONNECTED" not in log
        assert log.count("REFUSED") == len(ports)
        made = int(log.split("FORK FAILED after", 1)[1].split()[0])
        assert made < SandboxPolicy().pids  # the pids limit of its cgroup stopped the forks
    assert seats_met == {(rival, seat) for rival in ("zergy", "quiet", "http") for seat in (0, 1)}
    assert rival.read_bytes() == rival_source
    assert not (hostile.parent / "new.txt").exists() and not (secret.parent / "x").exists()
    assert processes_with(str(hostile)) == []  # its forks (which keep its command line) are gone


def break_bwrap() -> int:
    """On a worker: no bubblewrap from now on (as if started with BOTARENA_BWRAP naming none)."""
    from botarena.bots.sandbox import reset_cache

    os.environ["BOTARENA_BWRAP"] = "/nonexistent/bwrap"
    reset_cache()
    return os.getpid()


@pytest.fixture(scope="module")
def three() -> Iterator[Any]:
    """A cluster of three workers, for the tests of workers that cannot play (one of them is made
    unable to sandbox; the module's `cluster` loses and restarts workers in other tests)."""
    with new_cluster(n_workers=3) as running, distributed.Client(running, set_as_default=False) as client:
        client.wait_for_workers(3, timeout=120)
        yield running


@pytest.mark.timeout(600)
def test_a_worker_that_cannot_sandbox_takes_no_match_and_the_other_two_play_them_all(
    store: Store, three: Any, caplog: pytest.LogCaptureFixture
) -> None:
    sandbox_ready()
    starters = ("adaptive", "pacifist", "randomonium", "tactician", "zergy")
    plan = TournamentPlan(
        name="t", game="drones", format="round-robin", seed=4, overrides={"rounds": 2, "turn_limit": 3},
        entrants=[Entrant(s, s) for s in starters] + [Entrant("zergy-2", "zergy")],
        options={"cycles": 2},  # 15 pairs, twice: 30 short sandboxed matches
    )  # fmt: skip
    with distributed.Client(three.scheduler_address, set_as_default=False) as client:
        broken = sorted(client.scheduler_info()["workers"])[0]
        client.run(break_bwrap, workers=[broken])
        caplog.set_level("WARNING", logger="botarena.tournament")
        summary = on_dask(store, three, plan)
    assert (summary.status, summary.played, summary.failed, summary.unplayed) == ("finished", 30, 0, 0)
    rows = rows_of(store, "t")
    # a match sent to the broken worker would have failed there first: every one was played once
    assert len(rows) == 30 and all(r.status == "finished" and r.attempts == 1 for r in rows)
    refusals = [r.getMessage() for r in caplog.records if "takes no matches" in r.getMessage()]
    assert len(refusals) == 1 and broken in refusals[0], refusals  # logged once, with its reason
    assert "cannot sandbox bots: bubblewrap (bwrap) not found" in refusals[0]


@pytest.mark.timeout(600)
def test_with_no_worker_that_can_sandbox_the_tournament_stops_with_the_reason_and_resumes_elsewhere(
    store: Store, tmp_path: Path, cluster: Any
) -> None:
    sandbox_ready()  # the coordinator's machine can sandbox; the broken cluster's one worker cannot
    marker = tmp_path / "ran-unsealed"
    bot = tmp_path / "entrants" / "bot.py"
    bot.parent.mkdir()
    bot.write_text(f"open({str(marker)!r}, 'w').close()\n\ndef act(payload):\n    return {{}}\n")
    plan = TournamentPlan(
        name="t", game="drones", format="round-robin", seed=3, overrides=SANDBOXED,
        entrants=[Entrant("bot", str(bot)), Entrant("zergy", "zergy"), Entrant("adaptive", "adaptive")],
    )  # fmt: skip
    with new_cluster(n_workers=1, env={"BOTARENA_BWRAP": "no-such-bwrap"}) as broken:
        summary = on_dask(store, broken, plan)
    assert (summary.status, summary.played, summary.failed, summary.unplayed) == ("stopped", 0, 0, 3)
    assert summary.reason is not None
    assert summary.reason.startswith("no Dask worker can play this tournament's matches: the worker on ")
    assert "cannot sandbox bots: bubblewrap (bwrap) not found" in summary.reason
    assert "--unsandboxed" not in summary.reason  # advice for the organizer's own machine only
    for row in rows_of(store, "t"):
        assert row.status in ("scheduled", "running") and row.error is None, row  # nothing failed
    assert not marker.exists()

    tournament = store.find_tournament("t")
    assert tournament is not None
    executor = dask_executor(cluster.scheduler_address)  # `--resume` on a cluster whose workers can
    try:
        resumed = run_tournament(store, tournament.id, executor)
    finally:
        close_executor(executor)
    assert (resumed.status, resumed.played, resumed.failed) == ("finished", 3, 0)
    assert all(row.status == "finished" for row in rows_of(store, "t"))
    assert not marker.exists()  # sandboxed, the bot could not write it either


def fill_the_first_cache(claim: str, cache: str) -> None:
    """On a worker: the first worker of the cluster to unpack an artifact (it claims the file
    `claim`) finds its cache's disk full, then and every time after; the others unpack as before
    (into `cache`, for this test only)."""
    import errno

    from botarena.bots import artifacts

    artifacts.SAVED_CACHE_ENV = os.environ.get("BOTARENA_CACHE_DIR")  # type: ignore[attr-defined]
    os.environ["BOTARENA_CACHE_DIR"] = cache

    real = artifacts.ArtifactCache._unpack
    full: list[int] = []

    def unpack(self: Any, data: bytes, digest: str, target: Path) -> None:
        if not full:
            try:
                os.close(os.open(claim, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:  # another worker claimed it: this one has room
                return real(self, data, digest, target)
        full.append(1)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    artifacts.ArtifactCache._real_unpack = real  # type: ignore[attr-defined]
    artifacts.ArtifactCache._unpack = unpack  # type: ignore[method-assign]
    artifacts.FULL_UNPACKS = full  # type: ignore[attr-defined]


def mend_the_cache() -> int:
    """On a worker: undo `fill_the_first_cache`; how many unpacks found the disk full here."""
    from botarena.bots import artifacts

    artifacts.ArtifactCache._unpack = artifacts.ArtifactCache._real_unpack  # type: ignore[attr-defined]
    saved = artifacts.SAVED_CACHE_ENV  # type: ignore[attr-defined]
    if saved is None:
        os.environ.pop("BOTARENA_CACHE_DIR", None)
    else:
        os.environ["BOTARENA_CACHE_DIR"] = saved
    return len(artifacts.FULL_UNPACKS)  # type: ignore[attr-defined]


class RouteSpy(Executor):
    """A Dask executor that records the scheduling keywords of every task (the gate's routing)."""

    def __init__(self, inner: Executor) -> None:
        self.inner = inner
        self.client = dask_client(inner)  # still a Dask executor to the coordinator
        self.routes: list[dict[str, Any]] = []

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        self.routes.append(dict(kwargs))
        return self.inner.submit(fn, *args, **kwargs)


@pytest.mark.timeout(600)
def test_a_worker_whose_cache_is_full_takes_no_more_matches_and_the_others_play_them(
    store: Store, tmp_path: Path, three: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from botarena.tournament import service

    monkeypatch.setattr(service, "BATCH_TARGET_S", 1e-9)  # one match per task: each try is one task
    bot = tmp_path / "fresh.py"  # content of its own: no worker has it cached yet
    bot.write_text(f"# {os.urandom(8).hex()}\n" + (ENTRANTS / "quiet.py").read_text())
    plan = TournamentPlan(
        name="t", game="drones", format="round-robin", seed=2, overrides=SHORT, options={"cycles": 2},
        entrants=[Entrant("fresh", str(bot)), Entrant("zergy", "zergy"), Entrant("adaptive", "adaptive")],
    )  # fmt: skip
    client = distributed.Client(three.scheduler_address, set_as_default=False)
    try:
        client.run(fill_the_first_cache, str(tmp_path / "claimed"), str(tmp_path / "cache"))
        tournament = create_tournament(store, plan, isolation=untrusted(sandbox=None))
        executor = RouteSpy(dask_executor(three.scheduler_address))
        try:  # unsandboxed: the cache is the point here
            summary = run_tournament(  # one task at a time: the full worker gets one before it is left out
                store, tournament.id, executor, isolation=untrusted(sandbox=None), max_in_flight=1
            )
        finally:
            close_executor(executor.inner)
            full_unpacks = client.run(mend_the_cache)
    finally:
        client.close()
    assert (summary.status, summary.played, summary.failed, summary.unplayed) == ("finished", 6, 0, 0)
    (full,) = [worker for worker, count in full_unpacks.items() if count]  # exactly one worker was full
    assert full_unpacks[full] == 1  # it failed one match, and was given no other
    rows = rows_of(store, "t")
    assert all(row.status == "finished" for row in rows) and sum(row.attempts for row in rows) == 6 + 1
    others = sorted(set(full_unpacks) - {full})
    sent_elsewhere = [route for route in executor.routes if route]
    assert sent_elsewhere and all(
        route == {"workers": others, "allow_other_workers": False} for route in sent_elsewhere
    )
    before = len(executor.routes) - len(sent_elsewhere)
    assert executor.routes[:before] == [{}] * before  # unrestricted until the fault, then never the full one
