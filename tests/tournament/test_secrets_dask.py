"""Secrets never on a command line, never in a task (issue 25, item 1), on the machines of
docs/deploy.md: a Dask scheduler, a Dask worker, `botarena serve` and the coordinator, over
PostgreSQL, with a live URL; then the same tournament on a coordinator's local pool.

The store's password and the live token are only ever in environments: the worker's
(`BOTARENA_DB`, `BOTARENA_LIVE_TOKEN`), the server's (`BOTARENA_DB`, and the token in a 0600 file
named by `BOTARENA_LIVE_TOKEN_FILE`) and the coordinator's; the scheduler has none. The database
role is made for the test with a random password (the CI role's own is in every command line's
`botarena`). Searched for the password and the token, and absent:

- every task that reaches the executor, pickled (the coordinator's executor is wrapped);
- every task the scheduler holds, pickled where it holds it (a scheduler plugin, preloaded);
- the scheduler's whole writable memory at the end (what a reader of the scheduler would find);
- the command line of every process on the machine, sampled throughout (the bots' included);
- the replays, whose entrant prints its whole environment on the worker.

And the matches still work: the entrant's artifact is fetched from the database by the worker
(with the password of its own environment; a local pool's with the one its initializer got), and
every match is streamed live to the server (with the worker's own token).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import subprocess
import sys
import textwrap
import threading
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from multiprocessing import forkserver
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson
import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import URL, make_url

from botarena.cli import main
from botarena.core.credentials import bot_environment
from botarena.store import Store
from botarena.tournament import executor as executor_module
from waiting import wait_until

distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed")
pytest.importorskip("aiohttp", reason="the http extra (aiohttp) is not installed")

REQUIRE_POSTGRES = "BOTARENA_REQUIRE_POSTGRES"
SHORT = ["--set", "rounds=1", "--set", "turn_limit=3", "--set", "setup_timeout_ms=60000"]
ENTRANT = textwrap.dedent(
    """\
    #!/usr/bin/env python3
    # An entrant that prints its whole environment into its log, then builds a producer a turn.
    # {tag}: a new artifact, so that every run fetches it
    import json, os, sys
    with open("{cmdlines}", "ab") as report:  # its own command line, whatever the sampler catches
        report.write(open("/proc/self/cmdline", "rb").read() + b"\\n")
    sys.stderr.write("ENV-DUMP " + json.dumps(dict(os.environ)) + "\\n")
    sys.stderr.flush()
    for line in sys.stdin:
        envelope = json.loads(line)
        payload = {{"newProducers": 1}} if envelope["type"] == "turn" else {{}}
        sys.stdout.write(json.dumps({{"id": envelope["id"], "payload": payload}}) + "\\n")
        sys.stdout.flush()
    """
)
KEEP_TASKS = textwrap.dedent(
    """
    # Preloaded by the test's scheduler: keeps every task it is given, pickled as it holds it.
    import pickle

    from distributed.diagnostics.plugin import SchedulerPlugin


    class KeepTasks(SchedulerPlugin):
        name = "botarena-keep-tasks"

        def __init__(self):
            self.blobs = []

        def update_graph(self, scheduler, *, tasks, **kwargs):
            for key in tasks:
                state = scheduler.tasks.get(key)
                if state is not None:
                    try:
                        self.blobs.append(pickle.dumps(state.run_spec))
                    except Exception:  # whatever cannot be pickled is kept as its repr
                        self.blobs.append(repr(state.run_spec).encode())


    def dask_setup(scheduler):
        scheduler.add_plugin(KeepTasks())
    """
)


def _unavailable(reason: str) -> None:
    if os.environ.get(REQUIRE_POSTGRES) == "1":
        pytest.fail(f"{REQUIRE_POSTGRES}=1 but {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture
def secret_store(postgres_database: URL | None) -> Iterator[str]:
    """The URL (password included) of a new role with a random password, in a schema of its own."""
    if postgres_database is None or str(postgres_database.database).startswith("!unreachable"):
        _unavailable("no PostgreSQL (BOTARENA_TEST_POSTGRES_URL)")
    assert postgres_database is not None
    tag = secrets.token_hex(6)
    role, schema, password = f"botarena_s_{tag}", f"s_{tag}", f"pw-{secrets.token_hex(16)}"
    admin = create_engine(postgres_database, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f"CREATE ROLE \"{role}\" LOGIN PASSWORD '{password}'"))
    except Exception as exc:  # no CREATEROLE: scripts/ci-postgres.sh grants it
        admin.dispose()
        reason = str(getattr(exc, "orig", exc)).strip().splitlines()[0]
        _unavailable(f"the test role cannot create a role with a password of its own: {reason}")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
            conn.execute(text(f'GRANT USAGE, CREATE ON SCHEMA "{schema}" TO "{role}"'))
        url = postgres_database.set(username=role, password=password).update_query_dict(
            {"options": f"-csearch_path={schema}"}
        )
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
            conn.execute(text(f'DROP ROLE IF EXISTS "{role}"'))
        admin.dispose()


class CommandLines:
    """Samples the command line of every process on the machine until stopped (a bounded poll: each
    sweep is a few milliseconds); keeps those that hold a needle, and how many processes it saw."""

    def __init__(self, needles: list[str]) -> None:
        self.needles = [needle.encode() for needle in needles]
        self.hits: dict[int, str] = {}
        self.seen: dict[int, str] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="cmdline-sampler", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            self.sweep()
            self.stop.wait(0.02)

    def sweep(self) -> None:
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    argv = handle.read()
            except OSError:
                continue  # gone meanwhile
            shown = argv.replace(b"\0", b" ").decode(errors="replace")[:300]
            self.seen[int(entry)] = shown
            if any(needle in argv for needle in self.needles):
                self.hits[int(entry)] = shown

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=10)
        self.sweep()


class RecordingExecutor(Executor):
    """An executor that pickles every call submitted to it (what travels to the workers), then
    hands it on; everything else is the wrapped executor's (a Dask client's, a pool's)."""

    def __init__(self, inner: Executor) -> None:
        self.inner = inner
        self.sent: list[bytes] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        import cloudpickle

        self.sent.append(cloudpickle.dumps((fn, args, kwargs)))
        return self.inner.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if isinstance(self.inner, distributed.cfexecutor.ClientExecutor):
            self.inner.shutdown(wait=wait)
        else:
            self.inner.shutdown(wait=wait, cancel_futures=cancel_futures)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def writable_memory_holds(pid: int, needles: list[bytes]) -> list[str]:
    """The needles found in the writable memory of process `pid` (heap, stacks, anonymous maps)."""
    found: set[bytes] = set()
    overlap = max(len(needle) for needle in needles)
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:
        for line in maps:
            fields = line.split()
            if not fields[1].startswith("rw") or (len(fields) > 5 and fields[5] in ("[vvar]", "[vsyscall]")):
                continue
            start, end = (int(part, 16) for part in fields[0].split("-"))
            tail = b""
            for offset in range(start, end, 1 << 24):
                try:
                    chunk = os.pread(mem.fileno(), min(1 << 24, end - offset), offset)
                except OSError:
                    break  # a guard page or a region gone meanwhile
                window = tail + chunk
                found.update(needle for needle in needles if needle in window)
                tail = window[-overlap:]
    return sorted(needle.decode() for needle in found)


def start(command: list[str], env: dict[str, str], cwd: Path, log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(command, env=env, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)


def wait_for(condition: Callable[[], Any], what: str, processes: list[subprocess.Popen[bytes]]) -> Any:
    """`condition`'s first true answer (up to two minutes); fails at once if one of `processes` died."""

    def look() -> Any:
        found = condition()
        dead = [p.args for p in processes if p.poll() is not None]
        assert found or not dead, f"{dead} exited while waiting for {what}"
        return found

    return wait_until(look, what, 120, pause=0.05)


def scheduler_address(file: Path) -> str | None:
    try:
        return str(json.loads(file.read_text())["address"])
    except (OSError, ValueError, KeyError):  # not written yet, or half written
        return None


def server_url(log: Path) -> str | None:
    """The server's base URL, from the arena page's URL that `botarena serve` prints when ready."""
    lines = log.read_text(errors="replace").splitlines() if log.exists() else []
    page = next((line.strip() for line in lines if line.startswith("http://")), None)
    return f"http://{urlsplit(page).netloc}" if page else None


def get_json(url: str) -> Any:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=10) as response:
        return json.loads(response.read())


@dataclass
class Deployment:
    """The machines of docs/deploy.md on this one: a scheduler, a server, a worker (processes)."""

    scheduler: str
    live_url: str
    worker_cache: Path
    processes: list[subprocess.Popen[bytes]]


@contextlib.contextmanager
def deployed(store_url: str, token: str, root: Path) -> Iterator[Deployment]:
    """Start them, each with what its environment holds (the scheduler: no secret at all)."""
    clean = bot_environment()  # this environment without any secret (PGPASSWORD included)
    (root / "preload.py").write_text(KEEP_TASKS)
    file = root / "scheduler.json"
    token_file = root / "live-token"
    token_file.write_text(token + "\n")
    token_file.chmod(0o600)
    worker_dir, cache = root / "worker", root / "worker-cache"
    worker_dir.mkdir()
    dask = [sys.executable, "-m", "dask"]
    processes = [
        start(
            [*dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--scheduler-file", str(file), "--preload", str(root / "preload.py")],
            dict(clean), root, root / "scheduler.log",
        ),
        start(
            [sys.executable, "-m", "botarena", "serve", "--port", "0", "--unsandboxed"],
            {**clean, "BOTARENA_DB": store_url, "BOTARENA_LIVE_TOKEN_FILE": str(token_file)},
            root, root / "serve.log",
        ),
        start(
            [*dask, "worker", "--scheduler-file", str(file), "--nthreads", "1", "--no-nanny",
             "--no-dashboard", "--preload", "botarena.tournament.executor"],  # imported while waiting
            {**clean, "BOTARENA_DB": store_url, "BOTARENA_LIVE_TOKEN": token,
             "BOTARENA_CACHE_DIR": str(cache)},
            worker_dir, root / "worker.log",
        ),
    ]  # fmt: skip
    try:
        address = wait_for(lambda: scheduler_address(file), "scheduler address", processes)
        live = wait_for(lambda: server_url(root / "serve.log"), "server URL", processes)
        yield Deployment(address, live, cache, processes)
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=20)
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)


def recording_executors(monkeypatch: pytest.MonkeyPatch) -> list[RecordingExecutor]:
    """Every executor the coordinator makes (Dask's, a local pool), wrapped to record its tasks."""
    recorded: list[RecordingExecutor] = []
    real_dask, real_make = executor_module.dask_executor, executor_module.make_executor

    def recording_dask(address: str, **kwargs: Any) -> Executor:
        recorded.append(RecordingExecutor(real_dask(address, **kwargs)))
        return recorded[-1]

    def recording_make(workers: int, dask: str | None = None, **kwargs: Any) -> Executor:
        made = real_make(workers, dask, **kwargs)
        if not isinstance(made, RecordingExecutor):
            recorded.append(made := RecordingExecutor(made))
        return made

    monkeypatch.setattr(executor_module, "dask_executor", recording_dask)
    monkeypatch.setattr(executor_module, "make_executor", recording_make)
    return recorded


def check_played(store_url: str, deployment: Deployment, needles: list[str]) -> None:
    """Both tournaments' match was played and recorded, the Dask worker fetched the entrant's
    artifact, the server got both matches live, and the entrant's log (its whole environment, as a
    worker gave it) holds no secret, nor does anything else of the replays."""
    with Store.open(store_url) as store:
        tournaments = {t.name: t for t in store.list_tournaments()}
        assert set(tournaments) == {"on-dask", "on-pool"}
        matches = {name: store.list_matches(t.id) for name, t in tournaments.items()}
        for name, rows in matches.items():
            assert [m.status for m in rows] == ["finished"], (name, rows)
        replays = {name: store.load_replay(str(rows[0].replay_hash)) for name, rows in matches.items()}
        digest = next(e.artifact for e in tournaments["on-dask"].entrants if e.name == "dumper")
    assert digest and (deployment.worker_cache / "artifacts" / digest).is_dir()
    listed = {m["key"]: m for m in get_json(f"{deployment.live_url}/api/live")}
    for name, rows in matches.items():
        shown = listed.get(f"t{tournaments[name].id}/{rows[0].key}")
        assert shown and shown["finished"] and shown["steps"] == rows[0].steps > 0, (name, shown)
    for name, replay in replays.items():
        seat = [p["name"] for p in replay.players].index("dumper")
        assert set(replay.statuses[seat]) == {"OK"}, (name, replay.statuses)
        log = replay.logs[seat]["text"]
        assert "ENV-DUMP " in log  # it printed its environment: the Dask worker's, without the secrets
        assert ("BOTARENA_CACHE_DIR" in log) == (name == "on-dask"), log[:300]
        dump = orjson.dumps(replay.to_json())
        assert not [n for n in needles if n.encode() in dump], f"{name}: a secret reached the replay"


@pytest.mark.timeout(600)
def test_secrets_reach_no_task_no_command_line_and_no_scheduler(
    secret_store: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    password, token = str(make_url(secret_store).password), f"live-token-{secrets.token_hex(16)}"
    needles = [password, token]
    forkserver.ensure_running()  # a local pool's workers fork from it: it must not have the secrets
    cmdlines = CommandLines(needles)
    try:
        with deployed(secret_store, token, tmp_path) as deployment:
            client = distributed.Client(deployment.scheduler, timeout=60, set_as_default=False)
            try:
                client.wait_for_workers(1, timeout=120)
                # the coordinator: the secrets in its environment only
                monkeypatch.setenv("BOTARENA_DB", secret_store)
                monkeypatch.setenv("BOTARENA_LIVE_TOKEN", token)
                monkeypatch.delenv("PGPASSWORD", raising=False)
                recorded = recording_executors(monkeypatch)
                entrant = tmp_path / "entrants" / "env-dumper"
                reported = tmp_path / "entrant-command-lines"
                entrant.parent.mkdir()
                entrant.write_text(ENTRANT.format(tag=secrets.token_hex(8), cmdlines=reported))
                entrant.chmod(0o755)
                args = ["tournament", "drones", "--bots", f"zergy,dumper={entrant}", "--unsandboxed",
                        "--live-url", deployment.live_url, "--no-progress", *SHORT]  # fmt: skip
                assert main([*args, "--dask", deployment.scheduler, "--name", "on-dask"]) == 0
                assert main([*args, "--workers", "1", "--name", "on-pool"]) == 0
                kept: list[bytes] = client.run_on_scheduler(
                    lambda dask_scheduler: dask_scheduler.plugins["botarena-keep-tasks"].blobs
                )
            finally:
                client.close()
            cmdlines.close()
            check_played(secret_store, deployment, needles)
            scheduler_pid = deployment.processes[0].pid
            # what travelled: the tasks name the store (without its password) and the live URL
            assert len(recorded) == 2 and all(r.sent for r in recorded)
            sent = [blob for r in recorded for blob in r.sent]
            bare = str(make_url(secret_store).username).encode()  # the role's name: the store's URL is there
            assert all(bare in blob and deployment.live_url.encode() in blob for blob in sent)
            assert not [n for n in needles for blob in sent if n.encode() in blob], "a secret in a task"
            assert kept and all(bare in blob for blob in kept), "the scheduler kept no task"
            assert not [n for n in needles for blob in kept if n.encode() in blob], (
                "a secret in the scheduler"
            )
            # the sampler saw the worker, each entrant process reported its own command line (one
            # that lives a few milliseconds escapes a sampler on a loaded box), and no secret on any
            assert any("dask worker" in line for line in cmdlines.seen.values())
            own = reported.read_bytes().splitlines()
            assert own and all(b"env-dumper" in line for line in own), own
            assert not [n for n in needles for line in own if n.encode() in line], (
                "a secret on an entrant's command line"
            )
            assert not cmdlines.hits, f"a secret on a command line: {cmdlines.hits}"
            try:
                held = writable_memory_holds(scheduler_pid, [bare, *(n.encode() for n in needles)])
            except PermissionError as exc:
                pytest.skip(f"the scheduler's memory cannot be read here ({exc}); all the rest was checked")
            assert held == [bare.decode()], f"the scheduler's memory holds {held}"  # its tasks, no secret
    finally:
        cmdlines.close()
