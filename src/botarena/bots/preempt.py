"""Preemptive time limits for Python code running in this process (DESIGN principle 4).

In the main thread an interval timer (`setitimer(ITIMER_REAL)`) raises `BotTimeout` inside the bot's
call when its time is up: two system calls per call, measured in benchmarks/overhead.py. In other
threads (a server's worker, a thread pool) signals cannot be used, so a watchdog thread injects
`BotTimeout` into the calling thread with `PyThreadState_SetAsyncExc`. Both interrupt pure-Python
code and sleeps; neither can interrupt a long call inside C code that never returns to the
interpreter, which is then reported as a timeout when it returns.
"""

from __future__ import annotations

import ctypes
import signal
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


class BotTimeout(BaseException):
    """Raised inside a bot's call when its deadline passes. A BaseException, so `except Exception`
    in bot code does not swallow it."""


class _SignalTimer:
    """SIGALRM-based preemption; only usable from the main thread."""

    def __init__(self) -> None:
        self.armed = False
        self.installed = False

    def _on_alarm(self, signum: int, frame: Any) -> None:
        if self.armed:
            self.armed = False
            raise BotTimeout()

    def call(self, fn: Callable[[Any], T], arg: Any, timeout_s: float) -> T:
        if not self.installed:
            signal.signal(signal.SIGALRM, self._on_alarm)
            self.installed = True
        self.armed = True
        signal.setitimer(signal.ITIMER_REAL, max(timeout_s, 1e-6))
        try:
            return fn(arg)
        finally:
            # Clear the flag first: an alarm that lands after this line is ignored by the handler.
            self.armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)


class _Watchdog:
    """One daemon thread that injects BotTimeout into threads that overstay their deadline."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._deadlines: dict[int, tuple[float, int]] = {}  # thread id -> (deadline, token)
        self._token = 0
        self._thread: threading.Thread | None = None

    def _run(self) -> None:
        with self._cond:
            while True:
                now = time.monotonic()
                expired = [tid for tid, (deadline, _) in self._deadlines.items() if deadline <= now]
                for tid in expired:
                    del self._deadlines[tid]
                    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(tid), ctypes.py_object(BotTimeout))
                wait = min((d for d, _ in self._deadlines.values()), default=now + 3600) - now
                self._cond.wait(timeout=max(wait, 0.0005))

    def call(self, fn: Callable[[Any], T], arg: Any, timeout_s: float) -> T:
        tid = threading.get_ident()
        with self._cond:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="botarena-watchdog", daemon=True)
                self._thread.start()
            self._token += 1
            token = self._token
            self._deadlines[tid] = (time.monotonic() + timeout_s, token)
            self._cond.notify()
        try:
            return fn(arg)
        finally:
            with self._cond:
                entry = self._deadlines.get(tid)
                if entry is not None and entry[1] == token:
                    del self._deadlines[tid]
                else:
                    # The watchdog already fired; if the exception is still pending, cancel it.
                    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(tid), None)


_signal_timer = _SignalTimer()
_watchdog = _Watchdog()


def call_with_timeout(fn: Callable[[Any], T], arg: Any, timeout_s: float) -> T:
    """Call `fn(arg)`, raising BotTimeout in it if it runs longer than `timeout_s` seconds."""
    if threading.current_thread() is threading.main_thread():
        return _signal_timer.call(fn, arg, timeout_s)
    return _watchdog.call(fn, arg, timeout_s)
