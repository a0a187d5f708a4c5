"""In-process Python bots: a function or an object with `setup`, `act` and `end`, preempted on time.

A bot is given as a *factory* (a class, or any zero-argument callable returning the bot), so every
match gets a fresh instance. The instance may be:

- an object with `act(payload)` and optionally `setup(payload)` and `end(payload)`;
- a plain function, used as `act`.

`setup` and `end` default to replying `{}`. An exception in the bot's code is `CRASHED` with reason
`bot_error` for that exchange; the bot is still asked again next time.

In-process means trusted: the bot shares the runner's process, memory and interpreter, so nothing
here is a security boundary (tournaments and the server run entrants' files as sandboxed
subprocesses instead, `botarena.bots.resolve.Isolation`). What is caught is what a participant's bot
does by accident: a `BaseException` (`KeyboardInterrupt`, `GeneratorExit`, ...) is `CRASHED` with
reason `bot_error` like any exception, and `sys.exit()` or `os._exit()` called in a bot's call is
taken as the bot's process exiting: `CRASHED` with reason `process_exited`, then and in every later
exchange, while the match goes on. (`os._exit` is replaced, process-wide and only while an in-process
bot is open, by a function that raises `BotExit` in this process and exits as before in a forked
child.) A real Ctrl-C or a tournament worker's SIGTERM (`mark_stopping`) is never taken for the
bot's doing: it stops the match.

What a bot returns is taken as a wire bot's reply would be: it is copied through JSON at once
(orjson; numpy scalars and arrays become numbers and lists, NaN becomes null), so a bot that later
changes the object it returned cannot change the replay. An integer beyond 64 bits reads as the float
a subprocess bot's reply would give, and a value JSON cannot carry at all (a set, an object) is
`INVALID` with reason `bad_json`. Request payloads are handed over as the
engine built them, without a copy: an engine builds fresh payloads and never reads them back (the
conformance suite checks it), and in-process bots are trusted code.

What a bot prints (to stdout or stderr) during its calls goes to its log, like a subprocess bot's
stderr, never to the terminal: a bot's debug prints cannot garble a progress bar or a result table.
The streams are routed by thread (`_RoutedStream`), so output of other threads is untouched.

With late replies kept (games whose engine sets `late_replies`, Crafting Quest CQ-31 to CQ-35 and
spec 7.3) the bot's calls run in a worker thread of its own instead: the runner waits for a call no
longer than its deadline, and a call still running then goes on in the worker. Its answer, when it
returns, is collected by `poll_late`; while it runs the bot owes an answer, and a call still running
when the match closes is dropped (interrupted if it is in Python code, abandoned otherwise).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from typing import Any, NoReturn

import orjson

from botarena.bots import preempt
from botarena.bots.base import Bot, BotLog, LogMarks
from botarena.bots.preempt import BotTimeout
from botarena.bots.subprocess import block_thread_signals
from botarena.core.protocol import ANSWER_OWED, MessageType, Reply, Request
from botarena.core.status import Reason, Status, Warning

LOG_CAP_BYTES = 64 * 1024
_NO_LIMIT_S = 1e9
"""A worker's call has no time limit of its own: the runner stops waiting at the deadline."""

_perf_counter = time.perf_counter
_get_ident = threading.get_ident
_dumps = orjson.dumps
_loads = orjson.loads
_DUMPS_OPTIONS = orjson.OPT_SERIALIZE_NUMPY
_OK = Status.OK
_TIMEOUT = Status.TIMEOUT
_CRASHED = Status.CRASHED
_INVALID = Status.INVALID
_DEADLINE = Reason.DEADLINE
_BOT_ERROR = Reason.BOT_ERROR


class BotExit(SystemExit):
    """What `os._exit(code)` raises instead of exiting while an in-process bot is open."""


_real_exit = os._exit
_guard_lock = threading.Lock()
_guard_users = 0  # in-process bots open in this process: os._exit is replaced while there are any
_guard_pid = 0
_stopping = False


def _guarded_exit(status: int) -> NoReturn:
    if os.getpid() != _guard_pid:  # a forked child (multiprocessing, a bot's fork) exits for real
        _real_exit(status)
    raise BotExit(status)


def _guard_exit() -> None:
    global _guard_users, _guard_pid
    with _guard_lock:
        if _guard_users == 0:
            _guard_pid = os.getpid()
            os._exit = _guarded_exit
        _guard_users += 1


def _unguard_exit() -> None:
    global _guard_users
    with _guard_lock:
        _guard_users -= 1
        if _guard_users == 0:
            os._exit = _real_exit


@contextlib.contextmanager
def exit_guarded() -> Iterator[None]:
    """`os._exit` raises BotExit in this process while the block runs (e.g. a bot file's import:
    its module-level code may call it too), as while an in-process bot is open."""
    _guard_exit()
    try:
        yield
    finally:
        _unguard_exit()


def real_exit(code: int) -> NoReturn:
    """`os._exit` as it was before any in-process bot replaced it (for code that must really exit)."""
    _real_exit(code)


def mark_stopping() -> None:
    """This process is stopping (a signal handler's call): an exception that lands in a bot's call
    from now on is the process's, never the bot's crash, and is passed on."""
    global _stopping
    _stopping = True


def _on_sigint(signum: int, frame: Any) -> None:
    """Python's default SIGINT handler that also marks the process as stopping."""
    mark_stopping()
    raise KeyboardInterrupt


def _watch_ctrl_c() -> None:
    """Tell a real Ctrl-C from a bot's `raise KeyboardInterrupt` (main thread, default handler only)."""
    main = threading.current_thread() is threading.main_thread()
    if main and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_sigint)


def _fatal_reply(seat: int, exc: BaseException, elapsed: float) -> Reply:
    """The reply for a BaseException out of a bot's call (the caller re-raises when stopping)."""
    reason = Reason.PROCESS_EXITED if isinstance(exc, SystemExit) else _BOT_ERROR
    code = "EXIT" if isinstance(exc, SystemExit) else "EXCEPTION"
    what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if isinstance(exc, BotExit):
        what = f"os._exit({exc.code})"
    warning: Warning = {"code": code, "detail": what[:500]}
    return Reply(seat, _CRASHED, None, reason, elapsed, [warning])


def _as_wire_reply(payload: Any) -> Any:
    """What orjson cannot write but a wire bot could send (an integer beyond 64 bits) becomes what the
    subprocess transport would read from that line: the standard library writes the text, orjson
    parses it (so such an integer arrives as a float, exactly as from a subprocess bot)."""
    return _loads(json.dumps(payload, allow_nan=False))


def _empty_reply(payload: Any) -> dict[str, Any]:
    return {}


def _judged(seat: int, payload: Any, elapsed: float) -> Reply:
    """A returned payload as the reply a wire bot's line would give: copied through JSON."""
    try:
        payload = _loads(_dumps(payload, option=_DUMPS_OPTIONS))
    except TypeError as exc:  # orjson.JSONEncodeError is a TypeError
        try:
            payload = _as_wire_reply(payload)
        except (TypeError, ValueError):
            detail: Warning = {"code": "NOT_JSON", "detail": str(exc)[:500]}
            return Reply(seat, _INVALID, None, Reason.BAD_JSON, elapsed, [detail])
    return Reply(seat, _OK, payload, None, elapsed)


_capture: dict[int, Callable[[str], None]] = {}
"""Thread ident -> the log of the bot whose call that thread is running."""


class _RoutedStream:
    """Stands in for sys.stdout or sys.stderr: a write from a thread that runs a bot's call goes to
    that bot's log, any other write to the stream it replaced."""

    def __init__(self, target: Any) -> None:
        self._target = target

    def write(self, text: str) -> int:
        note = _capture.get(_get_ident())
        if note is None:
            return int(self._target.write(text))
        note(text)
        return len(text)

    def flush(self) -> None:
        if _get_ident() not in _capture:
            self._target.flush()

    def __getattr__(self, name: str) -> Any:  # encoding, isatty, fileno, ... of the real stream
        return getattr(self._target, name)


def _route_prints() -> None:
    """Put `_RoutedStream`s in front of sys.stdout and sys.stderr (again if someone replaced them:
    a test's capture, a progress bar's redirection)."""
    if not isinstance(sys.stdout, _RoutedStream):
        sys.stdout = _RoutedStream(sys.stdout)
    if not isinstance(sys.stderr, _RoutedStream):
        sys.stderr = _RoutedStream(sys.stderr)


class _Call:
    """One call handed to a bot's worker thread; `done` is released when it has returned."""

    __slots__ = ("done", "error", "fatal", "finished_at", "handler", "payload", "result", "seat", "sent_at")

    def __init__(self, handler: Callable[[Any], Any], payload: Any, seat: int) -> None:
        self.handler = handler
        self.payload = payload
        self.seat = seat
        self.sent_at = _perf_counter()
        self.done = threading.Lock()
        self.done.acquire()
        self.result: Any = None
        self.error: str | None = None  # "<exception type>: <message>", if the call raised
        self.fatal: BaseException | None = None  # ... a BaseException (sys.exit, os._exit, ...)
        self.finished_at = 0.0

    def reply(self) -> Reply:
        """The finished call's reply, its time counted from hand-over to return."""
        elapsed = (self.finished_at - self.sent_at) * 1000.0
        if self.fatal is not None:
            return _fatal_reply(self.seat, self.fatal, elapsed)
        if self.error is not None:
            warning: Warning = {"code": "EXCEPTION", "detail": self.error}
            return Reply(self.seat, _CRASHED, None, _BOT_ERROR, elapsed, [warning])
        return _judged(self.seat, self.result, elapsed)


class _Worker:
    """The thread that runs one late-reply bot's calls, one at a time, in the order handed over.

    It blocks the timer signals (they belong to the main thread, botarena.bots.preempt) and is a
    daemon: a call that never returns cannot keep the process alive. Each call runs under the
    preemption watchdog with no limit of its own, so that `stop` can interrupt it.
    """

    def __init__(self, name: str, note: Callable[[str], None]) -> None:
        self._calls: queue.SimpleQueue[_Call | None] = queue.SimpleQueue()
        self._note = note
        self.running: _Call | None = None
        self.thread = threading.Thread(target=self._run, name=f"bot-worker-{name}", daemon=True)
        self.thread.start()

    def submit(self, call: _Call) -> None:
        self._calls.put(call)

    def _run(self) -> None:
        _capture[_get_ident()] = self._note  # this thread only ever runs this bot's calls
        try:
            block_thread_signals()
            while (call := self._calls.get()) is not None:
                self.running = call
                try:
                    call.result = preempt.watchdog_call(call.handler, call.payload, _NO_LIMIT_S)
                except BotTimeout:
                    return  # `stop` dropped the call
                except Exception as exc:  # the bot's own failure
                    self._note(traceback.format_exc())
                    call.error = f"{type(exc).__name__}: {exc}"[:500]
                except BaseException as exc:  # `sys.exit()`, `os._exit()`, KeyboardInterrupt, ...
                    self._note(traceback.format_exc())
                    call.fatal = exc
                call.finished_at = _perf_counter()
                self.running = None
                call.done.release()
        except BotTimeout:  # `stop` interrupted the worker between calls: it ends all the same
            return
        finally:
            _capture.pop(_get_ident(), None)

    def stop(self) -> None:
        """End the worker after its current call. A call still running is dropped: interrupted (and
        again until it returns) if it runs Python code, else left to the daemon thread."""
        self._calls.put(None)
        if self.running is not None and self.thread.ident is not None:
            preempt.interrupt(self.thread.ident)


class PythonBot(Bot):
    """A bot that runs in the runner's own process."""

    kind = "python"

    def __init__(self, factory: Callable[[], Any], name: str | None = None) -> None:
        self.factory = factory
        self.name = str(name or getattr(factory, "__name__", "python-bot"))
        self._handlers: dict[MessageType, Callable[[Any], Any]] = {}
        self._pending: Request | None = None
        self._timeout_s = 0.0
        self._log: list[str] = []
        self._log_bytes = 0
        self._log_utf8 = 0  # the log's length in UTF-8 bytes, where the next output starts
        self._marks = LogMarks(None)
        self._dropped = 0
        self._thread = 0  # the thread `_call` was chosen for
        self._call: preempt.TimedCall = preempt.call_with_timeout
        self._worker: _Worker | None = None  # late replies kept: the thread that runs the calls
        self._sent: _Call | None = None  # ... the call handed over by `send`, not yet received
        self._owed: _Call | None = None  # ... a call whose answer is owed
        self._busy_end: Request | None = None  # an `end` sent while the owed call still ran
        self._exited = False  # the bot called sys.exit() or os._exit(): it is gone for this match
        self._guarding = False  # this bot holds the os._exit replacement

    def open(self, match_id: str, seat: int) -> None:
        super().open(match_id, seat)
        self._marks = LogMarks(self.log_clock)
        self._handlers = {}
        self._exited = False
        self._stop_worker()
        if not self._guarding:
            _guard_exit()
            self._guarding = True
        _watch_ctrl_c()
        _route_prints()
        if self.late_replies_kept:
            self._worker = _Worker(self.name, self._note)
        ident = _get_ident()
        _capture[ident] = self._note  # what the factory prints is the bot's too
        try:
            instance = self.factory()
        except Exception:
            self._note(traceback.format_exc())
            instance = None
        finally:
            del _capture[ident]
        if instance is None:
            return
        act = getattr(instance, "act", None)
        if act is None and callable(instance):
            act = instance
        self._handlers = {
            MessageType.START: getattr(instance, "setup", _empty_reply),
            MessageType.TURN: act if act is not None else _empty_reply,
            MessageType.END: getattr(instance, "end", _empty_reply),
        }

    def _note(self, text: str) -> None:
        size = len(text)
        if self._log_bytes + size > LOG_CAP_BYTES:
            self._dropped += size
            return
        self._marks.note(self._log_utf8)
        self._log.append(text)
        self._log_bytes += size
        self._log_utf8 += len(text.encode("utf-8", "replace"))

    def send(self, request: Request, request_id: int, timeout_s: float) -> None:
        self._pending = request
        self._timeout_s = timeout_s
        worker = self._worker
        if worker is None:
            return
        # Late replies kept: the call starts now, in the worker.
        owed, self._owed = self._owed, None  # only `end` is sent while owing: the answer is dropped
        if owed is not None and owed.done.locked():
            self._busy_end = request  # the bot is still in its owed call: it cannot take this one
            return
        handler = self._handlers.get(request.type)
        if handler is not None and not self._exited:
            self._sent = _Call(handler, request.payload, request.seat)
            worker.submit(self._sent)

    def receive(self) -> Reply:
        request = self._pending
        assert request is not None, "receive() without send()"
        self._pending = None
        if self._worker is None:
            return self.ask(request, self._timeout_s)
        return self._receive_from_worker(request)

    def _receive_from_worker(self, request: Request) -> Reply:
        call, self._sent = self._sent, None
        if self._busy_end is request:
            self._busy_end = None
            return Reply(request.seat, _TIMEOUT, None, ANSWER_OWED)
        if self._exited:
            return Reply(request.seat, _CRASHED, None, Reason.PROCESS_EXITED)
        if call is None:  # no handler: the factory failed
            return Reply(request.seat, _CRASHED, None, _BOT_ERROR)
        left = call.sent_at + self._timeout_s - _perf_counter()
        if call.done.acquire(timeout=max(left, 0.0)):
            self._exited = isinstance(call.fatal, SystemExit)
            return call.reply()
        self._owed = call
        return Reply(request.seat, _TIMEOUT, None, _DEADLINE, (_perf_counter() - call.sent_at) * 1000.0)

    def owe(self) -> None:
        assert self._pending is not None, "owe() without send()"
        self._pending = None
        self._owed, self._sent = self._sent, None

    def poll_late(self) -> Reply | None:
        """The owed call's answer once it has returned (its time counts from hand-over to return)."""
        call = self._owed
        if call is None or not call.done.acquire(blocking=False):
            return None
        self._owed = None
        return call.reply()

    def _stop_worker(self) -> None:
        worker, self._worker = self._worker, None
        self._sent = self._owed = self._busy_end = None
        if worker is not None:
            worker.stop()

    def ask(self, request: Request, timeout_s: float) -> Reply:
        """`send` and `receive` in one call: the runner's path for in-process bots."""
        seat = request.seat
        handler = self._handlers.get(request.type)
        if handler is None:
            return Reply(seat, _CRASHED, None, Reason.PROCESS_EXITED if self._exited else _BOT_ERROR)
        ident = _get_ident()
        if ident != self._thread:
            self._thread = ident
            self._call = preempt.mechanism_for_this_thread()
        _capture[ident] = self._note  # its prints go to its log
        started = _perf_counter()
        try:
            payload = self._call(handler, request.payload, timeout_s, True)
        except BotTimeout:
            return Reply(seat, _TIMEOUT, None, _DEADLINE, (_perf_counter() - started) * 1000.0)
        except Exception as exc:
            elapsed = (_perf_counter() - started) * 1000.0
            self._note(traceback.format_exc())
            warning: Warning = {"code": "EXCEPTION", "detail": f"{type(exc).__name__}: {exc}"[:500]}
            return Reply(seat, _CRASHED, None, _BOT_ERROR, elapsed, [warning])
        except BaseException as exc:  # sys.exit(), os._exit(), KeyboardInterrupt, ... from the bot
            if _stopping:  # a real Ctrl-C or a worker's SIGTERM that landed in the bot's call
                raise
            elapsed = (_perf_counter() - started) * 1000.0
            self._note(traceback.format_exc())
            if isinstance(exc, SystemExit):  # the bot is gone, as a process that exited would be
                self._exited = True
                self._handlers = {}
            return _fatal_reply(seat, exc, elapsed)
        finally:
            del _capture[ident]
        elapsed = (_perf_counter() - started) * 1000.0
        if elapsed > timeout_s * 1000.0:  # a C call that ignored the alarm until it returned
            return Reply(seat, _TIMEOUT, None, _DEADLINE, elapsed)
        return _judged(seat, payload, elapsed)

    def close(self) -> BotLog:
        preempt.disarm()
        self._stop_worker()
        if self._guarding:
            self._guarding = False
            _unguard_exit()
        return BotLog("".join(self._log), self._dropped, self._marks.marks)
