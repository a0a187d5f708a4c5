"""Misbehaving in-process bots and fake transports for the runner tests."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from botarena.bots.base import Bot
from botarena.core.protocol import MessageType, Reply, Request
from botarena.core.status import Reason, Status

Payload = dict[str, Any]
BAD_TURN = 2


def build(obs: Payload) -> Payload:
    """A legal, harmless action: everything into producers, no attack."""
    return {"newProducers": obs["producers"], "newSoldiers": 0, "launchAttack": False}


class Looper:
    """Loops forever in pure Python on turn 2."""

    def act(self, obs: Payload) -> Payload:
        if obs["turn"] == BAD_TURN:
            while True:
                pass
        return build(obs)


class Sleeper:
    """Sleeps far past any deadline on turn 2."""

    def __init__(self, seconds: float = 30.0) -> None:
        self.seconds = seconds

    def act(self, obs: Payload) -> Payload:
        if obs["turn"] == BAD_TURN:
            time.sleep(self.seconds)
        return build(obs)


class ShortSleeper(Sleeper):
    """Sleeps 0.3 s on turn 2: past a 50 ms limit, short enough where a sleep cannot be cut."""

    def __init__(self) -> None:
        super().__init__(0.3)


class Catcher:
    """Loops forever on turn 2 and swallows every `Exception` it sees."""

    def __init__(self) -> None:
        self.swallowed = 0

    def act(self, obs: Payload) -> Payload:
        if obs["turn"] == BAD_TURN:
            while True:
                try:
                    while True:
                        pass
                except Exception:
                    self.swallowed += 1
        return build(obs)


class Swallower:
    """On turn 2 swallows the first interruption with a bare `except:`, then loops again."""

    def act(self, obs: Payload) -> Payload:
        if obs["turn"] == BAD_TURN:
            try:
                while True:
                    pass
            except BaseException:
                pass
            while True:
                pass
        return build(obs)


class Raiser:
    """Raises on turn 2."""

    def act(self, obs: Payload) -> Payload:
        if obs["turn"] == BAD_TURN:
            raise RuntimeError("boom on turn 2")
        return build(obs)


class SlowSetup:
    """Loops forever in `setup`, then plays normally."""

    def setup(self, start: Payload) -> Payload:
        while True:
            pass

    def act(self, obs: Payload) -> Payload:
        return build(obs)


class BadEnd:
    """Raises in `end`."""

    def act(self, obs: Payload) -> Payload:
        return build(obs)

    def end(self, result: Payload) -> Payload:
        raise ValueError("no end for me")


class SteadySleeper:
    """Sleeps `seconds` on every turn (for the overage bank)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def act(self, obs: Payload) -> Payload:
        time.sleep(self.seconds)
        return build(obs)


class FakeBot(Bot):
    """A scripted transport: each turn reply takes the next of `times_ms` (no real time passes).

    It behaves as a real transport would: a reply later than the allowance it was given is a
    TIMEOUT charged at the allowance. `alive_for` makes the bot die (like an exited process)
    after that many requests.
    """

    kind = "fake"

    def __init__(self, times_ms: Iterable[float] = (), alive_for: int | None = None) -> None:
        self.times = iter(times_ms)
        self.alive_for = alive_for
        self.sent: list[tuple[MessageType, float]] = []
        self.request: Request | None = None
        self.timeout_s = 0.0
        self.closed = False

    @property
    def alive(self) -> bool:
        return self.alive_for is None or len(self.sent) < self.alive_for

    def send(self, request: Request, request_id: int, timeout_s: float) -> None:
        assert self.alive, "a dead bot must not be asked"
        self.request = request
        self.timeout_s = timeout_s
        self.sent.append((request.type, timeout_s))

    def receive(self) -> Reply:
        request = self.request
        assert request is not None
        if request.type is not MessageType.TURN:
            return Reply(request.seat, Status.OK, {}, None, 0.0)
        used = next(self.times, 0.0)
        limit = self.timeout_s * 1000.0
        if used > limit:
            return Reply(request.seat, Status.TIMEOUT, None, Reason.DEADLINE, limit)
        return Reply(request.seat, Status.OK, build(request.payload), None, used)

    @property
    def turn_allowances_ms(self) -> list[float]:
        return [round(t * 1000.0, 6) for kind, t in self.sent if kind is MessageType.TURN]


def in_thread(fn: Callable[[], Any], timeout: float = 60.0) -> Any:
    """Run `fn` in a fresh (non-main) thread, so preemption takes the watchdog path."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=target, name="runner-test")
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), "the match did not finish"
    if "error" in box:
        raise box["error"]
    return box["value"]
