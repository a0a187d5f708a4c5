"""The transports' side of late replies (Bot.keep_late_replies, owe, poll_late), for Crafting Quest's
late and owed answers (CQ-33, CQ-34, spec 7.2 and 7.3): subprocess, in-process and HTTP bots.

Bounded waits are counted loops; no timing assertions.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from aiohttp import web

from botarena.bots.base import Bot
from botarena.bots.http import HttpBot
from botarena.bots.inprocess import PythonBot
from botarena.bots.subprocess import LATE_REPLY
from botarena.core.protocol import ANSWER_OWED, DISCONNECTED, MessageType, Reply, Request
from botarena.core.status import Reason, Status

from .aiohttp_server import LoopServer
from .conftest import BotMaker

TURN = Request(0, {"type": "turn_start"}, 100, MessageType.TURN, 1)
END = Request(0, {"type": "game_over"}, 5000, MessageType.END)
START = Request(0, {"type": "setup"}, 5000, MessageType.START)


def wait_late(bot: Bot, polls: int = 300, pause_s: float = 0.02) -> Reply | None:
    """Poll for the owed answer, at most `polls` times."""
    for _ in range(polls):
        reply = bot.poll_late()
        if reply is not None:
            return reply
        time.sleep(pause_s)
    return None


def opened(bot: Bot, keep: bool = True) -> Bot:
    bot.keep_late_replies(keep)
    bot.open("m", 0)
    return bot


def answer(payload: dict[str, Any]) -> str:
    return '{"id": $ID, "payload": ' + str(payload).replace("'", '"') + "}"


# -- subprocess bots ------------------------------------------------------------------------------
def test_cq33_subprocess_answer_after_the_deadline_is_kept_for_poll_late(scripted: BotMaker) -> None:
    bot = opened(scripted([[answer({})], [["sleep", 0.4], answer({"action": "add"})], [answer({"end": 1})]]))
    assert bot.poll_late() is None  # nothing owed yet
    bot.send(START, 1, 5.0)
    assert bot.receive().status is Status.OK
    bot.send(TURN, 2, 0.1)
    timed_out = bot.receive()
    assert (timed_out.status, timed_out.reason) == (Status.TIMEOUT, Reason.DEADLINE)
    late = wait_late(bot)
    assert late is not None
    assert (late.status, late.payload) == (Status.OK, {"action": "add"})
    assert late.time_ms >= timed_out.time_ms  # counted from the sending of the owed request
    assert bot.poll_late() is None  # delivered once
    bot.send(END, 3, 5.0)
    end = bot.receive()
    assert (end.status, end.payload, end.warnings) == (Status.OK, {"end": 1}, [])


def test_cq31_owe_leaves_a_request_open_without_waiting(scripted: BotMaker) -> None:
    """`await_reply=False`: the request is written, nobody waits, the answer comes via poll_late."""
    bot = opened(scripted([[answer({"after": "result"})]]))
    bot.send(TURN, 1, 0.1)
    bot.owe()
    late = wait_late(bot)
    assert late is not None and (late.status, late.payload) == (Status.OK, {"after": "result"})


def test_spec54_an_unreadable_late_line_is_invalid(scripted: BotMaker) -> None:
    bot = opened(scripted([[["sleep", 0.3], "not json at all"]]))
    bot.send(TURN, 1, 0.05)
    assert bot.receive().status is Status.TIMEOUT
    late = wait_late(bot)
    assert late is not None and (late.status, late.reason) == (Status.INVALID, Reason.BAD_JSON)


def test_cq34_subprocess_exit_while_owing_is_crashed(scripted: BotMaker) -> None:
    bot = opened(scripted([[["sleep", 0.3], ["exit", 3]]]))
    bot.send(TURN, 1, 0.05)
    assert bot.receive().status is Status.TIMEOUT
    late = wait_late(bot)
    assert late is not None and (late.status, late.reason) == (Status.CRASHED, Reason.PROCESS_EXITED)
    assert not bot.alive


def test_spec72_end_reply_is_told_from_the_owed_answer_by_id(scripted: BotMaker) -> None:
    """The owed answer, written after `end` was sent, is discarded by its id; no late reply after."""
    bot = opened(scripted([[["sleep", 0.5], answer({"owed": 1})], [answer({"end": 1})]]))
    bot.send(TURN, 1, 0.05)
    assert bot.receive().status is Status.TIMEOUT
    bot.send(END, 2, 5.0)
    end = bot.receive()
    assert (end.status, end.payload) == (Status.OK, {"end": 1})
    assert [w["code"] for w in end.warnings] == [LATE_REPLY]
    assert bot.poll_late() is None


def test_without_late_replies_a_timed_out_answer_is_dropped_as_before(scripted: BotMaker) -> None:
    """Engines that do not opt in: nothing is owed, the late line is discarded at the next receive."""
    bot = opened(scripted([[["sleep", 0.3], answer({"old": 1})], [answer({"new": 1})]]), keep=False)
    bot.send(TURN, 1, 0.05)
    assert bot.receive().status is Status.TIMEOUT
    time.sleep(0.4)
    assert bot.poll_late() is None
    bot.send(TURN, 2, 5.0)
    reply = bot.receive()
    assert reply.payload == {"new": 1}
    assert [w["code"] for w in reply.warnings] == [LATE_REPLY]


# -- in-process bots ------------------------------------------------------------------------------
class Slow:
    """Sleeps `seconds` in act (or raises), and says which thread it ran on."""

    def __init__(self, seconds: float, release: threading.Event | None = None, fail: bool = False) -> None:
        self.seconds = seconds
        self.release = release
        self.fail = fail

    def act(self, payload: Any) -> Any:
        if self.release is not None:
            self.release.wait()
        else:
            time.sleep(self.seconds)
        if self.fail:
            raise ValueError("late and broken")
        return {"thread": threading.current_thread().name}

    def end(self, payload: Any) -> Any:
        return {"end": True}


def test_spec73_in_process_call_goes_on_in_a_worker_and_answers_late() -> None:
    bot = opened(PythonBot(lambda: Slow(0.3), "slow"))
    bot.send(TURN, 1, 0.05)
    timed_out = bot.receive()
    assert (timed_out.status, timed_out.reason) == (Status.TIMEOUT, Reason.DEADLINE)
    late = wait_late(bot)
    assert late is not None and late.status is Status.OK
    assert late.payload["thread"].startswith("bot-worker")
    assert late.time_ms >= timed_out.time_ms
    bot.send(END, 2, 5.0)
    assert bot.receive().payload == {"end": True}
    bot.close()


def test_spec73_in_process_answer_in_time_through_the_worker() -> None:
    bot = opened(PythonBot(lambda: Slow(0.0), "quick"))
    bot.send(TURN, 1, 5.0)
    reply = bot.receive()
    assert reply.status is Status.OK and reply.payload["thread"].startswith("bot-worker")
    bot.close()


def test_spec73_a_late_exception_is_crashed_bot_error() -> None:
    bot = opened(PythonBot(lambda: Slow(0.3, fail=True), "broken"))
    bot.send(TURN, 1, 0.05)
    assert bot.receive().status is Status.TIMEOUT
    late = wait_late(bot)
    assert late is not None and (late.status, late.reason) == (Status.CRASHED, Reason.BOT_ERROR)
    assert late.warnings[0]["detail"] == "ValueError: late and broken"
    assert "late and broken" in bot.close().text


def test_spec73_end_while_the_owed_call_runs_does_not_wait() -> None:
    release = threading.Event()
    bot = opened(PythonBot(lambda: Slow(0.0, release), "stuck"))
    try:
        bot.send(TURN, 1, 0.05)
        assert bot.receive().status is Status.TIMEOUT
        bot.send(END, 2, 60.0)
        end = bot.receive()
        assert (end.status, end.reason) == (Status.TIMEOUT, ANSWER_OWED)
        assert bot.poll_late() is None  # nothing after the end
    finally:
        bot.close()
        release.set()


class Spinner:
    """Loops for ever in pure Python, swallowing every `Exception`."""

    def act(self, payload: Any) -> Any:
        while True:
            try:
                while True:
                    pass
            except Exception:
                pass


def test_spec73_a_call_still_running_at_the_end_is_dropped() -> None:
    """Closing the bot interrupts a pure-Python call that outlived its match (again and again, so a
    bot that swallows `Exception` is stopped too), and its worker thread ends."""
    bot = opened(PythonBot(Spinner, "spinner"))
    bot.send(TURN, 1, 0.05)
    assert bot.receive().status is Status.TIMEOUT
    worker = bot._worker
    assert worker is not None and worker.thread.is_alive()
    bot.close()
    worker.thread.join(10.0)
    assert not worker.thread.is_alive()


def test_spec73_in_process_owe() -> None:
    bot = opened(PythonBot(lambda: Slow(0.0), "quick"))
    bot.send(TURN, 1, 5.0)
    bot.owe()
    late = wait_late(bot)
    assert late is not None and late.status is Status.OK
    bot.close()


def test_in_process_without_late_replies_is_preempted_in_the_calling_thread() -> None:
    """Engines that do not opt in keep the preemptive in-thread call (DESIGN principle 4)."""
    bot = opened(PythonBot(lambda: Slow(0.0), "quick"), keep=False)
    bot.send(TURN, 1, 5.0)
    assert bot.receive().payload == {"thread": threading.current_thread().name}
    bot.close()


# -- HTTP bots ------------------------------------------------------------------------------------
class LateServer(LoopServer):
    """/slow answers after 0.3 s; /slow-error fails with HTTP 500 after 0.3 s."""

    async def handle(self, request: web.Request) -> web.StreamResponse:
        envelope = await request.json()
        if envelope["type"] == "turn":
            await asyncio.sleep(0.3)
        if request.match_info["kind"] == "slow-error" and envelope["type"] == "turn":
            return web.Response(status=500, text="boom")
        return web.json_response({"id": envelope["id"], "payload": {"type": envelope["type"]}})


@pytest.fixture(scope="module")
def late_server() -> Iterator[LateServer]:
    server = LateServer()
    yield server
    server.stop()


@pytest.fixture
def http_bot(late_server: LateServer) -> Iterator[Callable[[str], HttpBot]]:
    made: list[HttpBot] = []

    def make(kind: str) -> HttpBot:
        bot = HttpBot(late_server.url(kind))
        made.append(bot)
        return bot

    yield make
    for bot in made:
        bot.close()


def test_spec73_http_request_goes_on_in_the_background_and_answers_late(http_bot: Any) -> None:
    bot = opened(http_bot("slow"))
    bot.send(TURN, 1, 0.05)
    assert bot.receive().status is Status.TIMEOUT
    late = wait_late(bot)
    assert late is not None and (late.status, late.payload) == (Status.OK, {"type": "turn"})
    bot.send(END, 2, 5.0)
    assert bot.receive().payload == {"type": "end"}


def test_spec73_http_late_failure_is_a_disconnect(http_bot: Any) -> None:
    bot = opened(http_bot("slow-error"))
    bot.send(TURN, 1, 0.05)
    assert bot.receive().status is Status.TIMEOUT
    late = wait_late(bot)
    assert late is not None and (late.status, late.reason) == (Status.CRASHED, DISCONNECTED)
    assert not bot.alive


def test_spec73_http_end_while_owing_drops_the_owed_request(http_bot: Any) -> None:
    bot = opened(http_bot("slow"))
    bot.send(TURN, 1, 0.05)
    assert bot.receive().status is Status.TIMEOUT
    bot.send(END, 2, 5.0)
    assert bot.receive().payload == {"type": "end"}
    assert bot.poll_late() is None
