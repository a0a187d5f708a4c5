"""Bots in any language: a child process speaking the generic JSON-lines protocol (docs/protocol.md).

One `SubprocessBot` runs one process per match. The hot path (one request, one reply) is three
system calls on the runner's thread: `write` of the envelope, `poll` with the time left, `read` of
the reply; replies are parsed with orjson. Nothing the bot does can block or grow the runner:

- stdout is read non-blocking against an absolute deadline; a line over `max_line_bytes` is
  answered `INVALID line_too_long` and the rest of it is thrown away as it arrives, never buffered;
- stdin is written non-blocking too, so a bot that never reads cannot stall the runner once the
  pipe is full (what is left is written while waiting for the reply, and later);
- stderr is drained by a daemon thread into a capped buffer (head kept, the rest counted);
- the process runs in its own session (so its own process group), under an address-space limit,
  and is killed as a group on `close`, always reaped.
"""

from __future__ import annotations

import contextlib
import errno
import os
import resource
import select
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from botarena.bots.base import Bot, BotLog, LogMarks
from botarena.core.protocol import MessageType, Reply, Request
from botarena.core.status import Reason, Status, Warning

if TYPE_CHECKING:
    from botarena.bots.sandbox import Cgroup, SandboxPolicy, Seal

_READ_CHUNK = 1 << 16
_POLL_IN = select.POLLIN | select.POLLPRI | select.POLLHUP | select.POLLERR
_POLL_OUT = select.POLLOUT | select.POLLHUP | select.POLLERR
EOF_GRACE_S = 0.25
"""How long a bot may take to exit by itself once its stdin is closed, before SIGTERM."""
TERM_GRACE_S = 0.1
"""How long between SIGTERM and SIGKILL to the bot's process group."""
LATE_REPLY = "LATE_REPLY_DISCARDED"
"""Warning code on a reply that was preceded by replies to earlier requests (discarded)."""


def _limits(memory_limit_mb: int) -> Callable[[], None]:
    """The child-side setup run between fork and exec: address-space cap and no core dumps.

    It only calls setrlimit (no imports, no allocation to speak of), which keeps preexec_fn safe
    enough with the runner's other threads.
    """
    address_space = memory_limit_mb * (1 << 20)
    setrlimit = resource.setrlimit
    rlimit_as, rlimit_core = resource.RLIMIT_AS, resource.RLIMIT_CORE

    def apply() -> None:
        setrlimit(rlimit_as, (address_space, address_space))
        setrlimit(rlimit_core, (0, 0))

    return apply


def _no_core_dumps() -> None:
    """Child-side: no core dumps (a crashing sandboxed bot must not fill its /tmp or the disk)."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


_death_signal: int | None = None


def die_with_parent(sig: int = signal.SIGKILL) -> None:
    """Bot processes started from now on in this process get `sig` when the thread that started them
    ends (PR_SET_PDEATHSIG), e.g. when their tournament pool worker is killed. For processes whose
    matches run on a thread that lives as long as its match (a pool worker's main thread)."""
    global _death_signal
    _death_signal = int(sig)


def _with_death_signal(preexec: Callable[[], None] | None) -> Callable[[], None] | None:
    """`preexec` preceded by PR_SET_PDEATHSIG when `die_with_parent` was called (else as it is)."""
    sig = _death_signal
    if sig is None:
        return preexec
    import ctypes

    prctl = ctypes.CDLL(None).prctl  # looked up here: the child between fork and exec only calls it
    parent = os.getpid()
    getppid, kill, getpid = os.getppid, os.kill, os.getpid

    def apply() -> None:
        prctl(1, sig, 0, 0, 0)  # PR_SET_PDEATHSIG
        if getppid() != parent:  # the parent died before the call above: nothing would signal us
            kill(getpid(), sig)
        if preexec is not None:
            preexec()

    return apply


_THREAD_BLOCKED_SIGNALS = {signal.SIGALRM, signal.SIGVTALRM, signal.SIGPROF, signal.SIGINT, signal.SIGTERM}


def block_thread_signals() -> None:
    """Block asynchronous signals in the calling helper thread, so the kernel routes them elsewhere.

    Python runs signal handlers in the main thread only, and the in-process bots' preemption relies
    on SIGALRM interrupting the main thread's blocking system call (botarena.bots.preempt); a timer
    signal taken by a helper thread would interrupt nothing. Call it first thing in every helper
    thread the transports start (threads started from it inherit the mask).
    """
    signal.pthread_sigmask(signal.SIG_BLOCK, _THREAD_BLOCKED_SIGNALS)


def _exited(pid: int) -> bool:
    """Whether child `pid` has exited, without reaping it (WNOWAIT)."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True  # already reaped


def _wait_exit(pid: int, timeout_s: float) -> bool:
    """Wait up to `timeout_s` for child `pid` to exit, without reaping it; whether it did."""
    deadline = time.monotonic() + timeout_s
    pause = 0.0005
    while not _exited(pid):
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        time.sleep(min(pause, left))
        pause = min(pause * 2, 0.01)
    return True


class _StderrDrain(threading.Thread):
    """Reads a bot's stderr until EOF, keeping the first `cap` bytes and counting the rest.

    It polls with a short timeout so that `stop()` ends it even if some escaped grandchild keeps
    the pipe open.
    """

    def __init__(self, fd: int, cap: int, marks: LogMarks) -> None:
        super().__init__(name=f"bot-stderr-{fd}", daemon=True)
        self.fd = fd
        self.cap = cap
        self.head = bytearray()
        self.dropped = 0
        self.marks = marks
        self._stop_flag = False

    def run(self) -> None:
        block_thread_signals()
        poller = select.poll()
        poller.register(self.fd, _POLL_IN)
        fd, cap, head = self.fd, self.cap, self.head
        try:
            while not self._stop_flag:
                if not poller.poll(100):
                    continue
                chunk = os.read(fd, _READ_CHUNK)
                if not chunk:
                    return
                room = cap - len(head)
                if room > 0:
                    self.marks.note(len(head))
                if room >= len(chunk):
                    head += chunk
                else:
                    if room > 0:
                        head += chunk[:room]
                    self.dropped += len(chunk) - max(room, 0)
        except OSError:
            return

    def stop(self) -> None:
        self._stop_flag = True


class SubprocessBot(Bot):
    """A bot process started from `argv`, one per match, spoken to in JSON lines on stdin/stdout.

    `memory_limit_mb` caps the address space (RLIMIT_AS) of the process; `None` disables it (Node
    and the JVM reserve far more address space than they use). The deadline of the `start`
    request counts from process spawn, so it covers interpreter start and module loading
    (`setup_timeout_ms`); its `time_ms` is measured from spawn as well.

    `sandbox` runs the process sealed with that policy's limits (then `memory_limit_mb` is unused:
    memory is capped by the cgroup, for the whole tree); `bot_files` are the bot's own files or
    folders, bound read-only inside the sandbox.

    `env` is the bot's environment; by default an unsandboxed bot gets the runner's without the
    platform's secrets (`botarena.core.credentials.bot_environment`), a sandboxed one a clean one.
    """

    kind = "subprocess"
    # Per-request reading state (set in `send`; class defaults keep `open`/`_reset` untouched).
    _read_at = 0.0  # when the newest data was read off stdout (time.perf_counter)
    _late_lines = 0  # lines answering earlier requests, dropped while this request was awaited
    _held: tuple[Status, Any, str | None, float] | None = None  # a past-deadline reply kept as owed

    def __init__(
        self,
        argv: Sequence[str],
        *,
        name: str | None = None,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        memory_limit_mb: int | None = 1024,
        stderr_cap_bytes: int = 64 * 1024,
        max_line_bytes: int = 1 << 20,
        kind: str = "subprocess",
        sandbox: SandboxPolicy | None = None,
        bot_files: Sequence[str | Path] = (),
    ) -> None:
        if not argv:
            raise ValueError("SubprocessBot needs a command (argv is empty)")
        self.argv = [str(arg) for arg in argv]
        self.name = name or os.path.basename(self.argv[-1]) or self.argv[0]
        self.cwd = cwd
        self.env = dict(env) if env is not None else None
        self.memory_limit_mb = memory_limit_mb
        self.stderr_cap_bytes = stderr_cap_bytes
        self.max_line_bytes = max_line_bytes
        self.kind = kind
        self.sandbox = sandbox
        self.bot_files = [str(path) for path in bot_files]
        self._sandbox_note = ""  # how the sandbox was set up, for describe()
        self._cgroup: Cgroup | None = None
        self._seal: Seal | None = None  # the sealed command's filter fd and uid lease, while it runs
        self._reset()

    def _reset(self) -> None:
        self._proc: subprocess.Popen[bytes] | None = None
        self._drain: _StderrDrain | None = None
        self._in_fd = -1
        self._out_fd = -1
        self._poll_in: Any = None
        self._poll_out: Any = None
        self._spawned_at = 0.0
        self._dead = True
        self._eof = False
        self._stdin_open = False
        self._outbox = bytearray()
        self._buf = bytearray()
        self._scanned = 0  # bytes of _buf already searched for a newline
        self._discarding = False  # inside an over-long line: drop input up to the next newline
        self._notes: list[str] = []
        self._pending: Request | None = None
        self._pending_id = 0
        self._sent_at = 0.0
        self._deadline = 0.0
        self._unsent = False
        self._owed_id = 0  # late replies kept: the id of the open request whose answer is owed
        self._owed_sent_at = 0.0

    # -- lifecycle -------------------------------------------------------------------------------
    def open(self, match_id: str, seat: int) -> None:
        super().open(match_id, seat)
        if self._proc is not None:
            self.close()
        self._reset()
        plan = self._spawn_plan()
        if plan is None:
            return  # the start request finds no process: CRASHED, with the reason in the log
        argv, env, cwd, preexec = plan
        preexec = _with_death_signal(preexec)
        pass_fds = self._seal.pass_fds if self._seal is not None else ()
        self._spawned_at = time.perf_counter()
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
                env=env,
                start_new_session=True,  # own session and process group: killed as a group
                # None lets subprocess use vfork/posix_spawn: much cheaper for a big runner.
                preexec_fn=preexec,
                bufsize=0,
                close_fds=True,
                pass_fds=pass_fds,
            )
        except (OSError, ValueError, subprocess.SubprocessError) as exc:
            self._notes.append(f"[botarena] could not start {shlex.join(self.argv)}: {exc}\n")
            self._release_cgroup()
            return
        finally:
            if self._seal is not None:
                self._seal.spawned()
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        self._proc = proc
        self._dead = False
        self._stdin_open = True
        self._in_fd = proc.stdin.fileno()
        self._out_fd = proc.stdout.fileno()
        os.set_blocking(self._in_fd, False)
        os.set_blocking(self._out_fd, False)
        self._poll_in = select.poll()
        self._poll_in.register(self._out_fd, _POLL_IN)
        self._poll_out = select.poll()
        self._poll_out.register(self._out_fd, _POLL_IN)
        self._poll_out.register(self._in_fd, _POLL_OUT)
        self._drain = _StderrDrain(proc.stderr.fileno(), self.stderr_cap_bytes, LogMarks(self.log_clock))
        self._drain.start()

    def _spawn_plan(
        self,
    ) -> tuple[list[str], Mapping[str, str] | None, str | None, Callable[[], None] | None] | None:
        """(argv, env, cwd, preexec) of the process to start: as given, or sealed in the sandbox.

        None when the sandbox is asked for and bwrap is missing: an untrusted bot never runs unsealed.
        """
        policy = self.sandbox
        if policy is None:
            from botarena.core.credentials import bot_environment

            preexec = None if self.memory_limit_mb is None else _limits(self.memory_limit_mb)
            # the runner's environment without the platform's secrets (the sandbox's is a clean one)
            env = self.env if self.env is not None else bot_environment()
            return self.argv, env, self.cwd, preexec
        from botarena.bots.sandbox import Cgroup, SandboxUnavailable, seal

        try:
            sealed = seal(self.argv, policy=policy, bot_files=self.bot_files, cwd=self.cwd, env=self.env)
        except SandboxUnavailable as exc:
            self._notes.append(f"[botarena] could not start {shlex.join(self.argv)}: {exc}\n")
            return None
        self._seal = sealed
        argv = sealed.argv
        try:
            self._cgroup = Cgroup.create(policy)
        except OSError as exc:
            # Reported fallback: the address space of each process is capped, nothing else is.
            self._sandbox_note = (
                f"bwrap; cgroups unavailable ({exc}): RLIMIT_AS {policy.memory_mb} MiB per process"
            )
            self._notes.append(f"[botarena] sandbox warning: {self._sandbox_note}, no pids/CPU limits\n")
            return argv, sealed.env, None, _limits(policy.memory_mb)
        version = self._cgroup.layout.version
        self._sandbox_note = (
            f"bwrap + cgroup v{version}: {policy.memory_mb} MiB, {policy.pids} pids, "
            f"{policy.cpu_cores:g} CPU, /tmp {policy.tmp_mb} MiB; "
            f"{'a uid of its own' if sealed.lease is not None else 'the runner uid'}, seccomp"
        )
        return argv, sealed.env, None, self._cgroup.preexec(_no_core_dumps)

    def _release_cgroup(self) -> None:
        """Kill whatever is left in the bot's cgroup and remove it; note a memory limit hit in the log.
        Then the sandbox's uid is given back: nothing runs as it any more."""
        group = self._cgroup
        sealed, self._seal = self._seal, None
        if group is None:
            if sealed is not None:
                sealed.release()
            return
        self._cgroup = None
        group.kill()
        note = group.memory_events()
        if note:
            self._notes.append(f"[botarena] sandbox: {note}\n")
        group.remove()
        if sealed is not None:
            sealed.release()

    @property
    def alive(self) -> bool:
        if self._dead:
            return False
        proc = self._proc
        if proc is None or _exited(proc.pid):
            self._dead = True
            return False
        return True

    @property
    def pid(self) -> int | None:
        """The bot's process id (also its process group id), while it has one."""
        return None if self._proc is None else self._proc.pid

    def close(self) -> BotLog:
        proc = self._proc
        drain = self._drain
        if proc is not None:
            self._close_stdin()
            # The leader is never reaped before the group is killed: while it is an unreaped zombie
            # its pid, which is the group id, cannot be reused by some other process group.
            if not _wait_exit(proc.pid, EOF_GRACE_S):
                self._signal_group(proc.pid, signal.SIGTERM)
                _wait_exit(proc.pid, TERM_GRACE_S)
            # Always, even if the leader is gone: its children may still be in the group.
            self._signal_group(proc.pid, signal.SIGKILL)
            proc.wait()
            self._release_cgroup()  # the whole tree, whatever session or group it made for itself
            stderr = proc.stderr
            if drain is not None:
                drain.join(0.5)  # EOF follows the kill at once, unless an escaped process holds it
                drain.stop()
                drain.join(1.0)
                if drain.is_alive():
                    stderr = None  # never close an fd a thread may still read: it could be reused
            for stream in (proc.stdout, stderr):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
        self._proc = None
        self._dead = True
        head = b"" if drain is None else bytes(drain.head)
        dropped = 0 if drain is None else drain.dropped
        marks = [] if drain is None else drain.marks.marks
        text = head.decode("utf-8", "replace") + "".join(self._notes)
        self._notes = []
        self._drain = None
        return BotLog(text, dropped, marks)

    @staticmethod
    def _signal_group(pgid: int, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, sig)

    def _close_stdin(self) -> None:
        proc = self._proc
        if proc is None or not self._stdin_open:
            return
        self._stdin_open = False
        self._outbox.clear()
        if proc.stdin is not None:
            with contextlib.suppress(OSError):
                proc.stdin.close()

    def describe(self) -> dict[str, str]:
        described = {"name": self.name, "kind": self.kind, "command": shlex.join(self.argv)}
        if self.sandbox is not None:
            described["sandbox"] = self._sandbox_note or "bwrap + cgroups"
        return described

    # -- one exchange ----------------------------------------------------------------------------
    def send(self, request: Request, request_id: int, timeout_s: float) -> None:
        now = time.perf_counter()
        start = request.type is MessageType.START
        self._pending = request
        self._pending_id = request_id
        self._owed_id = 0  # only `end` is sent while owing: the owed answer is now dropped by id
        self._held = None
        self._late_lines = 0
        # The start request's clock started when the process was spawned (setup_timeout_ms).
        self._sent_at = self._spawned_at if start else now
        self._deadline = self._sent_at + timeout_s
        self._unsent = self._dead
        if self._dead or not self._stdin_open:
            return
        self._outbox += encode_request(request, request_id, self.match_id, self.seat, timeout_s)
        self._outbox += b"\n"
        self._flush()

    def _flush(self) -> None:
        """Write as much of the outbox as the pipe takes now, never blocking."""
        outbox = self._outbox
        while outbox:
            try:
                written = os.write(self._in_fd, outbox)
            except BlockingIOError:
                return
            except OSError as exc:
                # EPIPE: the bot closed its stdin or exited; it can never read a request again.
                if exc.errno not in (errno.EPIPE, errno.EBADF, errno.EINVAL):
                    self._notes.append(f"[botarena] write to bot failed: {exc}\n")
                self._close_stdin()
                return
            del outbox[:written]

    # -- fair clocks: awaited with the other seats (Bot.wait_fds), stamped on arrival ------------
    def wait_fds(self) -> tuple[tuple[int, int], ...]:
        if self._unsent or self._eof:
            return ()  # settled at once by `receive`
        if self._outbox and self._stdin_open:
            return ((self._out_fd, _POLL_IN), (self._in_fd, _POLL_OUT))
        return ((self._out_fd, _POLL_IN),)

    def due(self) -> float:
        return self._deadline

    def poll_reply(self) -> Reply | None:
        """Settle the request in flight if its reply is here (read first, then the deadline is
        checked: a reply already waiting is never judged by the time it is looked at)."""
        request = self._pending
        assert request is not None, "poll_reply() without send()"
        if self._unsent:  # the process was already gone when the request was due
            self._pending = None
            return Reply(request.seat, Status.CRASHED, None, Reason.PROCESS_EXITED, self._elapsed_ms())
        if self._outbox and self._stdin_open:
            self._flush()
        if not self._eof:
            self._read_available()
        reply = self._take_reply(request.seat)
        if reply is not None:
            self._pending = None
            return reply
        if self._eof:
            self._pending = None
            self._dead = True
            return Reply(request.seat, Status.CRASHED, None, Reason.PROCESS_EXITED, self._elapsed_ms())
        now = time.perf_counter()
        if now >= self._deadline:
            self._pending = None
            if self.late_replies_kept:
                self._owe(self._pending_id)
            elapsed = (now - self._sent_at) * 1000.0
            return Reply(request.seat, Status.TIMEOUT, None, Reason.DEADLINE, elapsed, self._late_warning())
        return None

    def receive(self) -> Reply:
        assert self._pending is not None, "receive() without send()"
        while True:
            self._wait_ready()
            reply = self.poll_reply()
            if reply is not None:
                return reply

    def _take_reply(self, seat: int) -> Reply | None:
        """The pending request's reply if a complete line for it is buffered, stamped with the time
        it was read off the pipe (`_read_at`); lines answering earlier requests are counted and
        dropped. A reply that arrived after the deadline is TIMEOUT, its time recorded as it was;
        with late replies kept it becomes the owed answer (`poll_late`)."""
        verdict = self._next_line()
        while verdict is not None:
            line_status, reply_id, payload, reason = verdict
            if reply_id is not None and reply_id != self._pending_id:
                self._late_lines += 1  # a reply to an earlier request that came too late: discarded
                verdict = self._next_line()
                continue
            arrived = self._read_at
            elapsed = (arrived - self._sent_at) * 1000.0
            warnings = self._late_warning()
            if arrived > self._deadline:
                if self.late_replies_kept:
                    self._owe(self._pending_id)
                    self._held = (line_status, payload, reason, arrived)
                return Reply(seat, Status.TIMEOUT, None, Reason.DEADLINE, elapsed, warnings)
            return Reply(seat, line_status, payload, reason, elapsed, warnings)
        return None

    def _late_warning(self) -> list[Warning]:
        late, self._late_lines = self._late_lines, 0
        if not late:
            return []
        return [{"code": LATE_REPLY, "detail": f"{late} late reply line(s) discarded"}]

    # -- late replies (Bot.keep_late_replies) ----------------------------------------------------
    def _owe(self, request_id: int) -> None:
        self._owed_id = request_id
        self._owed_sent_at = self._sent_at

    def owe(self) -> None:
        request = self._pending
        assert request is not None, "owe() without send()"
        self._pending = None
        if not self._unsent:
            self._owe(self._pending_id)

    def poll_late(self) -> Reply | None:
        """The owed answer if its line has been written: one `poll` system call when it has not.

        A line with another id (an answer older still) is skipped; an unreadable line is taken as
        the owed answer (INVALID), as `receive` would take it. Its time runs to when it was read
        off the pipe (or, for a reply that came just past its deadline, when `poll_reply` read it).
        """
        owed_id = self._owed_id
        if not owed_id:
            return None
        held, self._held = self._held, None
        if held is not None:
            line_status, payload, reason, arrived = held
            self._owed_id = 0
            return Reply(self.seat, line_status, payload, reason, (arrived - self._owed_sent_at) * 1000.0)
        if self._outbox and self._stdin_open:
            self._flush()
        if not self._eof and self._poll_in.poll(0):
            self._read_available()
        verdict = self._next_line()
        while verdict is not None:
            line_status, reply_id, payload, reason = verdict
            if reply_id is None or reply_id == owed_id:
                self._owed_id = 0
                return Reply(self.seat, line_status, payload, reason, self._owed_ms(self._read_at))
            verdict = self._next_line()
        if self._eof:
            self._dead = True
            self._owed_id = 0
            return Reply(self.seat, Status.CRASHED, None, Reason.PROCESS_EXITED, self._owed_ms())
        return None

    def _owed_ms(self, at: float | None = None) -> float:
        return ((time.perf_counter() if at is None else at) - self._owed_sent_at) * 1000.0

    def _elapsed_ms(self) -> float:
        return (time.perf_counter() - self._sent_at) * 1000.0

    def _wait_ready(self) -> None:
        """Wait until stdout has something or the deadline passes (flushing the outbox meanwhile)."""
        if self._unsent or self._eof or self._poll_in is None:
            return
        while True:
            timeout_ms = max(0.0, (self._deadline - time.perf_counter()) * 1000.0)
            if not (self._outbox and self._stdin_open):
                self._poll_in.poll(timeout_ms)
                return
            events = self._poll_out.poll(timeout_ms)
            if not events:
                return
            for fd, _mask in events:
                if fd != self._in_fd:
                    return
            self._flush()

    def _read_available(self) -> None:
        """Read what stdout holds now into the line buffer, dropping the tail of an over-long line."""
        fd = self._out_fd
        buf = self._buf
        limit = self.max_line_bytes
        while True:
            try:
                chunk = os.read(fd, _READ_CHUNK)
            except BlockingIOError:
                return
            except OSError:
                self._eof = True
                return
            if not chunk:
                self._eof = True
                return
            self._read_at = time.perf_counter()  # the arrival stamp of what this read brought
            if self._discarding:
                newline = chunk.find(b"\n")
                if newline < 0:
                    return  # dropped; back to the caller, which watches the deadline
                self._discarding = False
                chunk = chunk[newline + 1 :]
            buf += chunk
            if len(buf) > limit or len(chunk) < _READ_CHUNK:
                # Enough to judge an over-long line; or the pipe is (very likely) empty now, and
                # skipping the read that would say EAGAIN saves a system call per reply.
                return

    def _next_line(self) -> tuple[Status, Any, Any, str | None] | None:
        """Take the next complete line from the buffer and judge it; None if there is none yet.

        Returns (status, reply id or None, payload, reason), see `_judge_line`. Blank lines are skipped.
        """
        buf = self._buf
        limit = self.max_line_bytes
        while True:
            newline = buf.find(b"\n", self._scanned)
            if newline < 0:
                if len(buf) > limit:
                    # Too long and not finished: answer now, drop what we hold and the rest later.
                    buf.clear()
                    self._scanned = 0
                    self._discarding = True
                    return (Status.INVALID, None, None, Reason.LINE_TOO_LONG)
                self._scanned = len(buf)
                return None
            line = buf[:newline]
            del buf[: newline + 1]
            self._scanned = 0
            if len(line) > limit:
                return (Status.INVALID, None, None, Reason.LINE_TOO_LONG)
            if not line.strip():
                continue
            return judge_reply_line(line)


def encode_request(request: Request, request_id: int, match_id: str, seat: int, timeout_s: float) -> bytes:
    """The request envelope of docs/protocol.md, as JSON (without the newline)."""
    return orjson.dumps(
        {
            "type": request.type.value,
            "id": request_id,
            "match": match_id,
            "seat": seat,
            "turn": request.turn,
            "deadline_ms": max(0, int(timeout_s * 1000.0)),
            "payload": request.payload,
        },
        option=orjson.OPT_SERIALIZE_NUMPY,
    )


def judge_reply_line(line: bytes | bytearray) -> tuple[Status, Any, Any, str | None]:
    """Judge one line: (OK, id, payload, None), or INVALID with the reason (and the id if readable).

    A line with a readable id that is not the pending request's is discarded by the caller as late,
    whatever else is wrong with it.
    """
    try:
        message = orjson.loads(line)
    except orjson.JSONDecodeError:
        return (Status.INVALID, None, None, Reason.BAD_JSON)
    if type(message) is not dict:
        return (Status.INVALID, None, None, Reason.BAD_JSON)
    reply_id = message.get("id")
    if type(reply_id) is float and reply_id.is_integer():
        reply_id = int(reply_id)  # the platform's integer rule: 3.0 is 3
    if type(reply_id) is not int:
        return (Status.INVALID, None, None, Reason.BAD_ENVELOPE)
    if "payload" not in message:
        return (Status.INVALID, reply_id, None, Reason.BAD_ENVELOPE)
    return (Status.OK, reply_id, message["payload"], None)
