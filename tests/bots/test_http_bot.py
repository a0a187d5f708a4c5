"""HttpBot, the generic protocol's HTTP binding, against a tiny aiohttp server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import signal
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from aiohttp import web

from botarena.bots.http import HTTP_ERROR, HttpBot, shared_loop
from botarena.bots.inprocess import PythonBot
from botarena.core.game import GameInfo
from botarena.core.protocol import MessageType, Request
from botarena.core.status import Reason, Status
from botarena.runner import MatchRun, run_match

from .aiohttp_server import LoopServer

FAST = {"turn_timeout_ms": 100, "setup_timeout_ms": 1000, "rounds": 2, "turn_limit": 4}


class Server(LoopServer):
    """The test routes; `peers[path]` records the client ports per route."""

    def __init__(self) -> None:
        self.peers: dict[str, set[Any]] = {}
        super().__init__()

    async def handle(self, request: web.Request) -> web.StreamResponse:
        kind = request.match_info["kind"]
        self.peers.setdefault(kind, set()).add(
            request.transport.get_extra_info("peername") if request.transport else None
        )
        envelope = await request.json()
        reply = {"id": envelope["id"], "payload": {"newProducers": 1} if envelope["type"] == "turn" else {}}
        if kind == "slow" or (kind == "flaky" and envelope["type"] == "turn" and envelope["turn"] == 2):
            await asyncio.sleep(0.3)
        elif kind == "error":
            return web.Response(status=500, text="boom")
        elif kind == "garbage":
            return web.Response(text="hello, I am not JSON")
        elif kind == "wrong-id":
            reply["id"] = envelope["id"] + 1000
        elif kind == "no-payload":
            del reply["payload"]
        return web.json_response(reply)


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    running = Server()
    yield running
    running.stop()


def play(drones: GameInfo, bot: HttpBot) -> MatchRun:
    config = drones.config("default", FAST)
    run = run_match(drones, [bot, PythonBot(drones.starter_bots["zergy"])], config=config, seed=3)
    assert run.replay.steps and run.replay.result is not None
    assert {tuple(step["verdicts"][1][:2]) for step in run.replay.steps} == {("OK", None)}
    return run


def verdicts(run: MatchRun) -> set[tuple[str, str | None]]:
    return {(step["verdicts"][0][0], step["verdicts"][0][1]) for step in run.replay.steps}


def test_well_behaved_http_bot_plays_on_one_kept_alive_connection(drones: GameInfo, server: Server) -> None:
    run = play(drones, HttpBot(server.url("ok"), name="web"))
    assert run.replay.start["verdicts"][0][0] == "OK"
    assert verdicts(run) == {("OK", None)}
    assert run.replay.end["verdicts"][0][0] == "OK"
    assert len(server.peers["ok"]) == 1
    assert run.replay.players[0] == {"seat": 0, "name": "web", "kind": "http", "url": server.url("ok")}


def test_slow_http_bot_times_out(drones: GameInfo, server: Server) -> None:
    run = play(drones, HttpBot(server.url("slow")))
    assert verdicts(run) == {("TIMEOUT", Reason.DEADLINE)}


def test_a_late_http_response_is_never_taken_for_the_next(drones: GameInfo, server: Server) -> None:
    run = play(drones, HttpBot(server.url("flaky")))
    for step in run.replay.steps:
        expected = ["TIMEOUT", Reason.DEADLINE] if step["record"]["turn"] == 2 else ["OK", None]
        assert step["verdicts"][0][:2] == expected


def test_http_500_is_crashed_http_error(drones: GameInfo, server: Server) -> None:
    run = play(drones, HttpBot(server.url("error")))
    assert verdicts(run) == {("CRASHED", HTTP_ERROR)}
    assert run.replay.steps[0]["replies"][0]["warnings"][0]["detail"].startswith("HTTP 500")


def test_http_garbage_is_invalid_bad_json(drones: GameInfo, server: Server) -> None:
    run = play(drones, HttpBot(server.url("garbage")))
    assert verdicts(run) == {("INVALID", Reason.BAD_JSON)}


@pytest.mark.parametrize("kind", ["wrong-id", "no-payload"])
def test_http_bad_envelope(drones: GameInfo, server: Server, kind: str) -> None:
    run = play(drones, HttpBot(server.url(kind)))
    assert verdicts(run) == {("INVALID", Reason.BAD_ENVELOPE)}


def test_connection_refused_is_crashed_http_error(drones: GameInfo) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    run = play(drones, HttpBot(f"http://127.0.0.1:{port}/bot"))
    assert verdicts(run) == {("CRASHED", HTTP_ERROR)}


def test_send_receive_directly(server: Server) -> None:
    bot = HttpBot(server.url("ok"))
    bot.open("m", 0)
    bot.send(Request(0, {}, 1000, MessageType.START), 7, 1.0)
    reply = bot.receive()
    assert (reply.status, reply.payload) == (Status.OK, {})
    assert reply.time_ms > 0
    assert bot.close().text == ""


def test_the_shared_loop_thread_leaves_timer_signals_to_the_main_thread() -> None:
    shared_loop()
    thread = next(t for t in threading.enumerate() if t.name == "botarena-http")
    with open(f"/proc/self/task/{thread.native_id}/status") as handle:
        blocked = int(next(line for line in handle if line.startswith("SigBlk:")).split()[1], 16)
    assert blocked & (1 << (signal.SIGALRM - 1))
    assert blocked & (1 << (signal.SIGINT - 1))
