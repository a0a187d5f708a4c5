"""The hostile zoo's harness: one GameOfDrones match between a hostile bot and an honest opponent, in
an arena of its own (a rival's folder, a database with a secret, TCP listeners), and every check that
the attack failed.

Every bot runs as an organizer would run a stranger's code: subprocess bots sandboxed (when the sandbox
is available) with their own folder as their only files, a Python entrant through
`resolve_bot(..., isolation=untrusted(...))`. Deadlines never race the machine: honest bots answer at
once within a generous limit (`FAST`), hostile ones block until killed or answer after their deadline
by construction.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import socket
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from botarena.bots.base import Bot
from botarena.bots.http import HttpBot
from botarena.bots.inprocess import PythonBot
from botarena.bots.resolve import resolve_bot, untrusted
from botarena.bots.sandbox import SandboxPolicy
from botarena.bots.subprocess import SubprocessBot
from botarena.core.game import GameInfo
from botarena.runner import MatchRun, run_match

from .http_bots import HonestHttp, HostileHttp

BOTS = Path(__file__).parent / "bots"
FAST = {"turn_timeout_ms": 2000, "setup_timeout_ms": 5000, "rounds": 1, "turn_limit": 2}
"""Short matches (two turns, so an attack on turn 1 is seen on turn 2) with limits an honest bot meets
on any machine: it answers in milliseconds. Hostile bots never answer in time, whatever the load."""
TURNS = FAST["rounds"] * FAST["turn_limit"]
SEED = 12
OPPONENTS = ("subprocess", "http")
STDERR_CAP = 64 * 1024
RSS_BOUND_KIB = 64 * 1024
"""The runner's memory may not grow by more than this during a match (the attacks are 100 MB-4 GiB)."""
PROCESS_GONE_S = 5.0
"""How long a hostile bot's processes may outlive its match (the issue: "a few seconds")."""

Verdict = tuple[str, str | None]
OK: Verdict = ("OK", None)


def rss_kib() -> int:
    """This process's resident memory."""
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS in /proc/self/status")


def processes_with(marker: str) -> list[str]:
    """'pid: argv' of every live process whose argv carries `marker` (zombies have no argv)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                argv = handle.read()
        except OSError:
            continue  # gone meanwhile
        if marker.encode() in argv:
            text = argv.replace(b"\0", b" ").decode(errors="replace")
            found.append(f"{entry}: {text[:200]}")
    return found


def wait_no_processes(marker: str, within_s: float = PROCESS_GONE_S) -> list[str]:
    """The processes carrying `marker` that are still alive `within_s` after the call (an event wait:
    it returns as soon as none is left)."""
    deadline = time.monotonic() + within_s
    while True:
        left = processes_with(marker)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.02)


class Listener:
    """A TCP socket listening on 127.0.0.1 that nothing should ever connect to.

    Connections complete in the kernel's backlog without an `accept`, so counting them after the match
    (non-blocking accepts) sees every connection made during it, whatever the timing.
    """

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.sock.setblocking(False)
        self.port: int = self.sock.getsockname()[1]
        self.connections = 0

    def count(self) -> int:
        while True:
            try:
                conn, _ = self.sock.accept()
            except BlockingIOError:
                return self.connections
            conn.close()
            self.connections += 1

    def close(self) -> None:
        self.sock.close()


@dataclass(frozen=True)
class Expect:
    """The hostile seat's verdicts: the start's, each turn's (the last one repeats), the end's."""

    start: Verdict
    turns: tuple[Verdict, ...]
    end: Verdict

    def sequence(self, turns: int) -> list[Verdict]:
        return [self.start, *(self.turns[min(i, len(self.turns) - 1)] for i in range(turns)), self.end]


def every(verdict: Verdict) -> Expect:
    return Expect(verdict, (verdict,), verdict)


def turns_only(verdict: Verdict) -> Expect:
    return Expect(OK, (verdict,), OK)


@dataclass
class Arena:
    """One match's surroundings: the folders, the secrets, the listeners, and what became of them."""

    root: Path
    game: GameInfo
    marker: str = field(default_factory=lambda: f"zoo-{uuid.uuid4().hex}")
    policy: SandboxPolicy | None = None
    host_marker: Path | None = None
    """The file a breakout's core_pattern script would write on the host (default: in the arena)."""

    def __post_init__(self) -> None:
        token = uuid.uuid4().hex
        self.secret_rival = f"RIVAL-SECRET-{token}"
        self.secret_db = f"DB-SECRET-{token}"
        self.hostile_dir = self.root / "entrants" / self.marker  # the marker is in every argv
        self.rival_dir = self.root / "entrants" / "rival"
        self.db = self.root / "var" / "botarena.db"
        self.planted = self.root / "entrants" / "planted.py"
        if self.host_marker is None:
            self.host_marker = self.root / "core-pattern-ran"
        for folder in (self.hostile_dir, self.rival_dir, self.db.parent):
            folder.mkdir(parents=True)
        shutil.copy(BOTS / "_wire.py", self.rival_dir)
        self.rival = self.rival_dir / "honest.py"
        self.rival.write_text((BOTS / "honest.py").read_text() + f"# {self.secret_rival}\n")
        self.db.write_bytes(b"SQLite format 3\0" + f"password={self.secret_db}\n".encode() * 8)
        self.listener = Listener()
        self.redirect_target = Listener()
        self.servers: list[HonestHttp | HostileHttp] = []
        self.watched: dict[Path, str] = {}
        self.hostile_seat = 0

    # -- the bots ---------------------------------------------------------------------------------
    def _sandbox(self, folder: Path) -> dict[str, Any]:
        if self.policy is None:
            return {}
        return {"sandbox": self.policy, "bot_files": [str(folder)]}

    def context(self) -> dict[str, Any]:
        return {
            "port": self.listener.port,
            "paths": [str(self.rival), str(self.db)],
            "rival": str(self.rival),
            "db": str(self.db),
            "new_file": str(self.planted),
            "host_marker": str(self.host_marker),
            "coordinator_pid": os.getpid(),
        }

    def hostile_process(self, bot: str) -> SubprocessBot:
        shutil.copy(BOTS / "_wire.py", self.hostile_dir)
        path = self.hostile_dir / f"{bot}.py"
        shutil.copy(BOTS / f"{bot}.py", path)
        argv = [sys.executable, str(path), self.marker, orjson.dumps(self.context()).decode()]
        return SubprocessBot(
            argv,
            name=bot,
            cwd=str(self.hostile_dir),
            stderr_cap_bytes=STDERR_CAP,
            **self._sandbox(self.hostile_dir),
        )

    def hostile_entrant(self, bot: str) -> Bot:
        """A Python entrant file, resolved as a tournament resolves a stranger's spec."""
        path = self.hostile_dir / f"{bot}.py"
        shutil.copy(BOTS / f"{bot}.py", path)
        return resolve_bot(str(path), self.game, isolation=untrusted(self.policy))

    def hostile_http(self, mode: str) -> HttpBot:
        server = HostileHttp(mode, redirect_port=self.redirect_target.port)
        self.servers.append(server)
        return HttpBot(server.url("bot"), name=f"http-{mode}")

    def opponent(self, kind: str) -> Bot:
        if kind == "subprocess":
            argv = [sys.executable, str(self.rival)]
            return SubprocessBot(
                argv, name="honest", cwd=str(self.rival_dir), **self._sandbox(self.rival_dir)
            )
        if kind == "http":
            server = HonestHttp()
            self.servers.append(server)
            return HttpBot(server.url("bot"), name="honest-http")
        if kind == "inprocess":
            return PythonBot(self.game.starter_bots["zergy"], name="zergy")
        raise ValueError(f"unknown opponent kind {kind!r}")

    # -- the match --------------------------------------------------------------------------------
    def play(self, hostile: Bot, opponent: Bot, seat: int) -> tuple[MatchRun, int]:
        """The match with `hostile` in `seat`; returns it and the runner's peak RSS growth (KiB)."""
        self.watched = {path: digest(path) for path in self.files_to_watch()}
        self.hostile_seat = seat
        bots = [hostile, opponent] if seat == 0 else [opponent, hostile]
        config = self.game.config("default", FAST)
        before = rss_kib()
        peak = [before]

        def sample(index: int, record: dict[str, Any], engine: Any) -> None:
            peak.append(rss_kib())

        run = run_match(self.game, bots, config=config, seed=SEED, on_step=sample)
        peak.append(rss_kib())
        return run, max(peak) - before

    def files_to_watch(self) -> list[Path]:
        return [self.rival, self.db, *sorted(self.hostile_dir.iterdir())]

    def changed_files(self) -> list[str]:
        changed = [str(path) for path, before in self.watched.items() if digest(path) != before]
        if self.planted.exists():
            changed.append(f"{self.planted} (created)")
        return changed

    def close(self) -> None:
        for server in self.servers:
            with contextlib.suppress(Exception):
                server.stop()
        self.listener.close()
        self.redirect_target.close()
        kill_marked(self.marker)


@dataclass(frozen=True)
class Played:
    """A hostile match and what it left, observed right after it ended (whenever the checks run):
    the runner's RSS growth, the connections each listener got, the files changed, and the bot's
    processes still alive `PROCESS_GONE_S` after the match."""

    run: MatchRun
    growth_kib: int
    connections: int
    redirected: int
    changed: list[str]
    left: list[str]


def play_and_observe(arena: Arena, hostile: Bot, opponent: Bot, seat: int) -> Played:
    """`Arena.play`, then everything the zoo checks about the arena, taken at once: a case played
    ahead of its test (several at a time, tests/zoo/conftest.py `waited_cases`) is judged on what
    its match left when it ended, exactly as one played in its test."""
    run, growth = arena.play(hostile, opponent, seat)
    connections = arena.listener.count()
    redirected = arena.redirect_target.count()
    changed = arena.changed_files()
    return Played(run, growth, connections, redirected, changed, wait_no_processes(arena.marker))


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else "<missing>"


def kill_marked(marker: str) -> None:
    """Cleanup after a failed test: kill what an attack left behind (found by its marker only)."""
    for line in processes_with(marker):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(int(line.split(":", 1)[0]), 9)


def verdicts(run: MatchRun, seat: int) -> list[Verdict]:
    """The seat's verdicts in order: start, every turn, end."""
    replay = run.replay
    rows = [replay.start["verdicts"][seat], *(step["verdicts"][seat] for step in replay.steps)]
    rows.append(replay.end["verdicts"][seat])
    return [(row[0], row[1]) for row in rows]


def summarize(sequence: list[Verdict]) -> str:
    """'TIMEOUT deadline on every exchange', or the exchanges one by one."""
    words = [status if reason is None else f"{status} {reason}" for status, reason in sequence]
    if len(set(words)) == 1:
        return f"{words[0]} on every exchange"
    labels = ["start", *(f"turn {i}" for i in range(1, len(words) - 1)), "end"]
    return ", ".join(f"{label} {word}" for label, word in zip(labels, words, strict=True))


LOG_TAIL_CHARS = 1500
"""How much of a bot's log a failure shows: its last lines, where a crash or a refusal is told."""


def log_tail(run: MatchRun, seat: int) -> str:
    """The end of what the seat's bot wrote to stderr (the replay's capped log), or a note saying
    it wrote nothing."""
    text = next((str(log.get("text", "")) for log in run.replay.logs if log.get("seat") == seat), "")
    if not text:
        return "(its log is empty)"
    return text if len(text) <= LOG_TAIL_CHARS else "..." + text[-LOG_TAIL_CHARS:]


def statuses_so_far(run: MatchRun, seat: int) -> str:
    """`summarize` of the seat's verdicts, also for a match that stopped before its end exchange
    (whose verdicts then are the start's and the steps' only)."""
    replay = run.replay
    exchanges = [replay.start, *replay.steps, *([replay.end] if replay.end else [])]
    try:
        rows = [exchange["verdicts"][seat] for exchange in exchanges]
    except (KeyError, IndexError, TypeError) as missing:
        return f"(no verdicts recorded: {missing!r})"
    ended = "" if replay.end else " (no end exchange)"
    if not rows:
        return "(no exchange recorded)"
    labels = ["start", *(f"turn {i}" for i in range(1, len(rows)))]
    words = [status if reason is None else f"{status} {reason}" for status, reason in (r[:2] for r in rows)]
    if len(set(words)) == 1:
        return f"{words[0]} on every exchange{ended}"
    return ", ".join(f"{label} {word}" for label, word in zip(labels, words, strict=True)) + ended


def failure_context(run: MatchRun, hostile_seat: int) -> str:
    """What a failed check shows besides its own message (issue 28, item 8: a failure names its
    cause): both seats' statuses exchange by exchange and the end of each bot's log."""
    lines = []
    for seat in (hostile_seat, 1 - hostile_seat):
        role = "hostile" if seat == hostile_seat else "opponent"
        lines.append(f"seat {seat} ({role}) statuses: {statuses_so_far(run, seat)}")
        lines.append(f"seat {seat} ({role}) log tail:\n{log_tail(run, seat)}")
    return "\n".join(lines)


CHECKOUT = Path(__file__).resolve().parents[2]
"""Where the arena goes: the checkout, where the organizer's ./var/botarena.db would be. Not /tmp,
which the sandbox replaces with a private one anyway: secrets there would prove nothing."""


@contextlib.contextmanager
def arena_for(
    fallback: Path, game: GameInfo, policy: SandboxPolicy | None, host_marker: Path | None = None
) -> Iterator[Arena]:
    """An arena in a fresh folder of the checkout (or under `fallback` if the checkout is read-only),
    removed afterwards."""
    try:
        root = Path(tempfile.mkdtemp(prefix=".zoo-arena-", dir=CHECKOUT))
    except OSError:
        root = Path(tempfile.mkdtemp(prefix="zoo-arena-", dir=fallback))
    arena = Arena(root, game, policy=policy, host_marker=host_marker)
    try:
        yield arena
    finally:
        arena.close()
        shutil.rmtree(root, ignore_errors=True)


Check = Callable[[Arena, MatchRun], str]
"""An attack's own assertions on top of the common ones; returns the evidence for the table."""
