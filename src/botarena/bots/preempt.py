"""Preemptive time limits for Python code running in this process (DESIGN principle 4).

Two mechanisms, chosen by the calling thread (costs measured in benchmarks/overhead.py):

- In the main thread an interval timer (`setitimer(ITIMER_REAL)`) raises `BotTimeout` inside the
  bot's call when its time is up. It interrupts pure-Python code and sleeps (`time.sleep`, blocking
  reads: the signal handler runs when the system call returns EINTR). A *lazy* call (what the runner's
  in-process bots use) leaves the timer running after the call returns instead of disarming it: the
  next call re-arms it, so a call costs one system call instead of two, and `disarm()` (called when a
  bot closes) stops it. An alarm that lands while no call is armed, or before the armed call's
  deadline, is stale and ignored.
- In any other thread (a server's worker, a thread pool) signals cannot be used, so a watchdog thread
  injects `BotTimeout` into the calling thread with `PyThreadState_SetAsyncExc`. That interrupts
  pure-Python code only: a sleep or any other blocking C call runs to its end first, and the call is
  then a timeout.

Neither can interrupt a long call inside C code that never returns to the interpreter; the caller
reports such a call as a timeout when it returns. Both keep firing (every `REFIRE_S`) until the call
returns, so a bot that swallows one `BotTimeout` (a bare `except:`) is hit again.

Another SIGALRM user in the main thread (pytest-timeout's `signal` method, for one) keeps working: its
handler is replaced only while this module's timer is in use, alarms that are not ours are passed on
to it, and a timer of its that was pending when a bot call started is re-armed when the call ends
(it is postponed by at most that call's limit).
"""

from __future__ import annotations

import ctypes
import importlib
import os
import signal
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

REFIRE_S = 0.05
MIN_TIMEOUT_S = 1e-6
_NEVER = float("inf")

# signal.getsignal wraps the C function to map ints to enums, which costs more than the whole timer;
# the raw function returns the same handler object.
_raw_getsignal: Callable[[int], Any] = importlib.import_module("_signal").getsignal
_setitimer = signal.setitimer
_ITIMER_REAL = signal.ITIMER_REAL
_SIGALRM = signal.SIGALRM
_perf_counter = time.perf_counter


class BotTimeout(BaseException):
    """Raised inside a bot's call when its deadline passes. A BaseException, so `except Exception`
    in bot code does not swallow it."""


class _SignalTimer:
    """SIGALRM-based preemption; only usable from the main thread."""

    def __init__(self) -> None:
        self.armed = False  # a call is running and may be interrupted
        self.deadline = 0.0  # perf_counter time of the armed call's deadline
        self.pending = False  # a lazily left timer of ours may still be running
        self.foreign: Any = None  # the SIGALRM handler we replaced; alarms not ours go to it
        self.foreign_due = 0.0  # perf_counter time a foreign timer was due, 0.0 if none
        self.foreign_interval = 0.0
        self.handler = self._on_alarm  # one bound method, so `is` finds it installed

    def _on_alarm(self, signum: int, frame: Any) -> None:
        if self.armed:
            if _perf_counter() >= self.deadline:
                raise BotTimeout()
            return  # a stale alarm of the lazy timer, delivered just after the re-arm
        if self.pending:  # our lazily left timer ran out between calls: stop it, nothing else
            self.pending = False
            _setitimer(_ITIMER_REAL, 0)
            return
        foreign = self.foreign
        if callable(foreign):
            foreign(signum, frame)

    def _install(self) -> None:
        self.foreign = signal.signal(_SIGALRM, self.handler)
        self.pending = False

    def call(self, fn: Callable[[Any], T], arg: Any, timeout_s: float, lazy: bool = False) -> T:
        if _raw_getsignal(_SIGALRM) is not self.handler:
            self._install()
        if timeout_s < MIN_TIMEOUT_S:
            timeout_s = MIN_TIMEOUT_S
        self.deadline = _perf_counter() + timeout_s
        old_delay, old_interval = _setitimer(_ITIMER_REAL, timeout_s, REFIRE_S)
        if old_delay > 0.0 and not self.pending:  # someone else's timer: re-armed after the call
            self.foreign_due = self.deadline - timeout_s + old_delay
            self.foreign_interval = old_interval
        self.armed = True
        try:
            result = fn(arg)
        except BaseException:
            self.armed = False
            self._stop()
            raise
        # Nothing between the return above and this store lets a signal handler run, so an alarm
        # handled from here on is ignored as stale instead of escaping the call.
        self.armed = False
        if self.foreign_due:
            self._restore_foreign()
        elif lazy:
            self.pending = True
        else:
            self.pending = False
            _setitimer(_ITIMER_REAL, 0)
        return result

    def _stop(self) -> None:
        if self.foreign_due:
            self._restore_foreign()
        else:
            self.pending = False
            _setitimer(_ITIMER_REAL, 0)

    def _restore_foreign(self) -> None:
        delay = max(self.foreign_due - _perf_counter(), MIN_TIMEOUT_S)
        self.foreign_due = 0.0
        self.pending = False
        _setitimer(_ITIMER_REAL, delay, self.foreign_interval)

    def disarm(self) -> None:
        if self.pending:
            self.pending = False
            _setitimer(_ITIMER_REAL, 0)


class _Watchdog:
    """One daemon thread that injects BotTimeout into threads that overstay their deadline.

    Registering a call takes the lock and only wakes the watchdog when the new deadline is earlier
    than the one it sleeps towards, so back-to-back calls cost two short lock holds, not a thread
    switch each.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._deadlines: dict[int, float] = {}  # thread id -> monotonic deadline
        self._fired: set[int] = set()
        self._wake_at = float("inf")
        self._thread: threading.Thread | None = None

    def _start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="botarena-watchdog", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        cond, deadlines = self._cond, self._deadlines
        with cond:
            while True:
                now = time.monotonic()
                for tid, deadline in list(deadlines.items()):
                    if deadline <= now:  # (a finished call's deadline is _NEVER)
                        ctypes.pythonapi.PyThreadState_SetAsyncExc(
                            ctypes.c_ulong(tid), ctypes.py_object(BotTimeout)
                        )
                        self._fired.add(tid)
                        deadlines[tid] = now + REFIRE_S  # again, until the call returns
                self._wake_at = min(deadlines.values(), default=float("inf"))
                cond.wait(min(self._wake_at - now, 3600.0))

    def call(self, fn: Callable[[Any], T], arg: Any, timeout_s: float, lazy: bool = False) -> T:
        """`lazy` is accepted for the same signature as the timer's, and means nothing here."""
        tid = threading.get_ident()
        deadline = time.monotonic() + timeout_s
        deadlines = self._deadlines
        with self._cond:
            if self._thread is None:
                self._start()
            deadlines[tid] = deadline
            if deadline < self._wake_at:
                self._wake_at = deadline
                self._cond.notify()
        try:
            result = fn(arg)
        except BaseException:
            deadlines[tid] = _NEVER
            self._leave(tid)
            raise
        # A plain store right after the return (no point where an async exception can land):
        # from here on the watchdog leaves this thread alone.
        deadlines[tid] = _NEVER
        self._leave(tid)
        return result

    def expire(self, tid: int) -> None:
        """Interrupt thread `tid`'s current call now, and again every REFIRE_S until it returns (a
        no-op if that thread has no call under the watchdog)."""
        with self._cond:
            if self._deadlines.get(tid, _NEVER) != _NEVER:
                self._deadlines[tid] = self._wake_at = time.monotonic()
                self._cond.notify()

    def _leave(self, tid: int) -> None:
        with self._cond:
            self._deadlines.pop(tid, None)
            if tid in self._fired:
                self._fired.discard(tid)
                # The watchdog fired; if the exception is still pending, cancel it.
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(tid), None)

    def after_fork(self) -> None:
        """In a forked child the watchdog thread is gone: start afresh on first use."""
        self._cond = threading.Condition(threading.Lock())
        self._deadlines = {}
        self._fired = set()
        self._wake_at = float("inf")
        self._thread = None


_signal_timer = _SignalTimer()
_watchdog = _Watchdog()
_main_ident = threading.main_thread().ident


def _after_fork_in_child() -> None:
    global _main_ident
    _main_ident = threading.main_thread().ident
    _signal_timer.pending = False
    _watchdog.after_fork()


os.register_at_fork(after_in_child=_after_fork_in_child)


def call_with_timeout(fn: Callable[[Any], T], arg: Any, timeout_s: float, lazy: bool = False) -> T:
    """Call `fn(arg)`, raising BotTimeout in it if it runs longer than `timeout_s` seconds.

    `lazy` (main thread only) leaves the interval timer running after the call, for a caller that
    makes another call soon and calls `disarm()` when done.
    """
    if threading.get_ident() == _main_ident:
        return _signal_timer.call(fn, arg, timeout_s, lazy)
    return _watchdog.call(fn, arg, timeout_s)


def disarm() -> None:
    """Stop a timer left running by lazy calls (a no-op if there is none, or off the main thread)."""
    if threading.get_ident() == _main_ident:
        _signal_timer.disarm()


TimedCall = Callable[[Callable[[Any], Any], Any, float, bool], Any]


def mechanism_for_this_thread() -> TimedCall:
    """The preempting call to use from the calling thread: `(fn, arg, timeout_s, lazy) -> fn(arg)`.

    For callers that make many calls from one thread and want to skip the choice each time (the
    in-process bot caches it with the thread's id)."""
    if threading.get_ident() == _main_ident:
        return _signal_timer.call
    return _watchdog.call


def signal_call(fn: Callable[[Any], T], arg: Any, timeout_s: float, lazy: bool = False) -> T:
    """The interval-timer mechanism itself (main thread only); see `call_with_timeout`."""
    return _signal_timer.call(fn, arg, timeout_s, lazy)


def watchdog_call(fn: Callable[[Any], T], arg: Any, timeout_s: float) -> T:
    """The watchdog mechanism itself (any thread); see `call_with_timeout`."""
    return _watchdog.call(fn, arg, timeout_s)


def interrupt(thread_id: int) -> None:
    """Raise BotTimeout now in the call that thread `thread_id` runs under `watchdog_call`, and again
    every REFIRE_S until it returns; nothing if it runs none. For a call that has outlived its use
    (an in-process bot's call still running when its match ends)."""
    _watchdog.expire(thread_id)
