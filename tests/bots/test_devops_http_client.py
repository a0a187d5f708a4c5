"""The devops HTTP host's own HTTP/1.1 client against raw local services on 127.0.0.1.

The services here write exact bytes (chunked bodies, `Connection: close`, a body ended by the close,
an idle close of a kept-alive connection, bytes that are not HTTP), which a framework would normalise.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator

import pytest

from botarena.bots.devops_http import DevopsHttpBot
from botarena.core.protocol import MessageType, Reply, Request

IDLE = b'{"type":"IDLE"}'
# (request path, request number on its connection) -> (response bytes, close the connection after)
Script = Callable[[str, int], tuple[bytes, bool]]


class RawService:
    """A keep-alive-capable HTTP/1.1 responder on its own thread that writes what `script` says."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.paths: list[str] = []
        self.connections = 0
        self.tasks: set[asyncio.Task[None]] = set()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.server = asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(10)
        self.port = int(self.server.sockets[0].getsockname()[1])

    async def _start(self) -> asyncio.Server:
        return await asyncio.start_server(self._handle, "127.0.0.1", 0)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        task = asyncio.current_task()
        assert task is not None
        self.tasks.add(task)
        served = 0
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                length = 0
                for line in lines[1:]:
                    name, _, value = line.partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                await reader.readexactly(length)
                path = lines[0].split(" ")[1]
                self.paths.append(path)
                served += 1
                data, close = self.script(path, served)
                writer.write(data)
                await writer.drain()
                if close:
                    break
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()
            self.tasks.discard(task)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _stop(self) -> None:
        self.server.close()
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()


@pytest.fixture
def raw() -> Iterator[Callable[[Script], RawService]]:
    made: list[RawService] = []

    def start(script: Script) -> RawService:
        service = RawService(script)
        made.append(service)
        return service

    yield start
    for service in made:
        service.stop()


def ok(body: bytes = IDLE, extra: bytes = b"") -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n%s\r\n%s" % (len(body), extra, body)


def turn(bot: DevopsHttpBot, units: int, number: int = 1, timeout_ms: int = 1000) -> list[Reply]:
    base = {"call": "base", "input": {"context": {"turnNumber": number}}}
    requests = [Request(0, base, timeout_ms, MessageType.TURN, number, number, 20000)]
    for unit in range(1, units + 1):
        payload = {"call": "unit", "input": {"unit": {"id": unit}}}
        requests.append(Request(0, payload, timeout_ms, MessageType.TURN, number, number, 20000))
    bot.send_batch(requests)
    return bot.receive_batch()


def statuses(replies: list[Reply]) -> set[tuple[str, str | None]]:
    return {(reply.status.value, reply.reason) for reply in replies}


def play(url: str, turns: int, units: int, max_parallel: int = 4) -> list[Reply]:
    bot = DevopsHttpBot(url, max_parallel=max_parallel)
    bot.open("m", 0)
    try:
        replies: list[Reply] = []
        for number in range(1, turns + 1):
            replies += turn(bot, units, number)
        return replies
    finally:
        bot.close()


def test_chunked_replies_and_a_path_prefix(raw: Callable[[Script], RawService]) -> None:
    chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n" + IDLE[:5]
    chunked += b"\r\na\r\n" + IDLE[5:] + b"\r\n0\r\n\r\n"
    service = raw(lambda path, n: (chunked, False))
    replies = play(service.url + "/team1/", 3, 6)
    assert statuses(replies) == {("OK", None)}
    assert all(reply.payload == {"type": "IDLE"} for reply in replies)
    assert service.paths[0] == "/team1/moves/base" and set(service.paths[1:7]) == {"/team1/moves/unit"}
    assert service.connections <= 4  # kept alive across turns


def test_connection_close_and_a_body_ended_by_the_close(raw: Callable[[Script], RawService]) -> None:
    def script(path: str, n: int) -> tuple[bytes, bool]:
        if path.endswith("base"):
            return ok(extra=b"Connection: close\r\n"), True
        return b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + IDLE, True

    service = raw(script)
    replies = play(service.url, 2, 5)
    assert statuses(replies) == {("OK", None)}
    assert service.connections == len(replies)


def test_a_kept_alive_connection_closed_by_the_service_is_not_a_penalty(
    raw: Callable[[Script], RawService],
) -> None:
    # every connection serves two requests, then the service closes it while it is idle
    service = raw(lambda path, n: (ok(), n >= 2))
    replies = play(service.url, 6, 3, max_parallel=2)
    assert statuses(replies) == {("OK", None)}


def test_bytes_that_are_not_http_are_a_transport_error(raw: Callable[[Script], RawService]) -> None:
    service = raw(lambda path, n: (b"hello there\r\n\r\n", False))
    replies = play(service.url, 1, 2)
    assert statuses(replies) == {("CRASHED", "transport")}


def test_a_status_outside_2xx_and_a_late_reply_are_not_read_as_the_next_call(
    raw: Callable[[Script], RawService],
) -> None:
    def script(path: str, n: int) -> tuple[bytes, bool]:
        if path.endswith("base"):
            return b"HTTP/1.1 404 Not Found\r\nContent-Length: 3\r\n\r\nno!", False
        return ok(), False

    service = raw(script)
    replies = play(service.url, 2, 3)
    assert [(r.status.value, r.reason) for r in replies[:4]] == [("CRASHED", "http_status")] + [
        ("OK", None)
    ] * 3


def test_dv52_logs_are_fetched_after_each_turn_and_a_failure_costs_nothing(
    raw: Callable[[Script], RawService],
) -> None:
    from botarena.bots.inprocess import PythonBot
    from botarena.games.devops import GAME
    from botarena.runner import run_match

    def talkative(path: str, n: int) -> tuple[bytes, bool]:
        if path == "/logs":
            lines = b'["moved", "' + b"x" * 1500 + b'", 7]'
            return ok(lines), False
        return ok(), False

    def no_logs(path: str, n: int) -> tuple[bytes, bool]:
        if path == "/logs":
            return b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", False
        return ok(), False

    first, second = raw(talkative), raw(no_logs)
    overrides = {
        "map_width_min": 12,
        "map_width_max": 12,
        "map_height_min": 12,
        "map_height_max": 12,
        "turn_limit": 3,
        "fetch_logs": True,
        "log_lines_max": 2,
    }
    bots = [DevopsHttpBot(first.url), DevopsHttpBot(second.url), PythonBot(GAME.starter_bots["idle"], "idle")]
    run = run_match(GAME, bots, config=GAME.config(overrides=overrides), seed=3)
    assert first.paths.count("/logs") == 3 and second.paths.count("/logs") == 3
    text = run.replay.logs[0]["text"]
    for turn in (1, 2, 3):
        assert f"[turn {turn}] moved\n" in text
        assert f"[turn {turn}] {'x' * 1000}\n" in text  # each line cut to 1000 characters
    assert "[turn 1] 7" not in text  # only the first log_lines_max lines are kept
    assert run.replay.logs[1]["text"].count("logs not fetched: HTTP 404") == 3
    assert all(set(statuses) == {"OK"} for statuses in run.replay.statuses)


def test_no_logs_are_fetched_unless_the_config_asks(raw: Callable[[Script], RawService]) -> None:
    from botarena.bots.inprocess import PythonBot
    from botarena.games.devops import GAME
    from botarena.runner import run_match

    service = raw(lambda path, n: (ok(), False))
    overrides = {"map_width_min": 12, "map_width_max": 12, "map_height_min": 12, "map_height_max": 12}
    bots = [DevopsHttpBot(service.url), PythonBot(GAME.starter_bots["idle"], "idle")]
    run_match(GAME, bots, config=GAME.config(overrides={**overrides, "turn_limit": 2}), seed=3)
    assert "/logs" not in service.paths
