"""The per-token rate limit of spec §7.1: a sliding window over accepted requests.

A request arriving at time t is refused when `limit` accepted requests of its token arrived in
(t - window, t]; a refused request is not counted. With the spec's numbers (3 per second, a 2 s
window) that is at most 6 accepted requests in any 2 seconds. A token bucket of the same rate is not
a substitute (§7.1 says why), so the limiter keeps the accepted instants themselves: at most `limit`
of them per token.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable


class SlidingWindowLimiter:
    """At most `limit` accepted requests per key in any sliding `window_s` seconds. Thread-safe."""

    def __init__(
        self, limit: int, window_s: float = 2.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if limit < 1 or window_s <= 0:
            raise ValueError("the rate limit needs limit >= 1 and a positive window")
        self.limit = limit
        self.window_s = window_s
        self.clock = clock
        self._accepted: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def allow(self, key: str, now: float | None = None) -> bool:
        """Count and accept a request of `key` at `now` (default: the clock), or refuse it (False,
        not counted)."""
        at = self.clock() if now is None else now
        with self._lock:
            times = self._accepted.get(key)
            if times is None:
                times = self._accepted[key] = deque()
            horizon = at - self.window_s
            while times and times[0] <= horizon:  # (t - window, t] keeps only the later ones
                times.popleft()
            if len(times) >= self.limit:
                return False
            times.append(at)
            return True
