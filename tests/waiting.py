"""Waiting for something another thread or process does, without depending on the machine's speed
(issue 28, item 8).

A test that waits on a real signal (a `threading.Event`, a pipe, `process.wait`) should do that. Where
the only signal is a state to look at (a server's `started` flag, a row in its store, a counter), the
test looks through `wait_until`: one bound for the whole suite, generous enough for a loaded 2-core
box (a bound, never a duration the test relies on: it returns the moment the condition holds), and a
failure that names what did not happen and what was last seen, instead of a bare `assert` after an
ad-hoc loop that counted sleeps.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

WAIT_S = 60.0
"""How long anything may take on the slowest machine the suite runs on; only a failure waits this long."""

_PAUSE_S = 0.02  # between two looks: short, so a condition that holds is seen at once


class NeverHappened(AssertionError):
    """What a test waited for did not happen within the bound (an AssertionError: a test failure)."""


def wait_until(
    look: Callable[[], T | None],
    what: str,
    timeout: float = WAIT_S,
    *,
    seen: Callable[[], object] | None = None,
    pause: float = _PAUSE_S,
) -> T:
    """Look (`look()`) until it returns something true, and return that; raise NeverHappened naming
    `what` (and the last state `seen()` describes, when given) if `timeout` seconds pass first.

    `look` may return the thing waited for (a row, a reply) rather than a bool, so the caller gets
    what it saw without looking twice."""
    deadline = time.monotonic() + timeout
    while True:
        found = look()
        if found:
            return found
        if time.monotonic() >= deadline:
            state = f"; last seen: {seen()!r}" if seen is not None else ""
            raise NeverHappened(f"{what} did not happen within {timeout:g} s{state}")
        time.sleep(pause)
