"""HTTP bots for the hostile zoo, each on its own loop-thread aiohttp server on 127.0.0.1.

`HonestHttp` is the honest HTTP opponent. `HostileHttp(mode)` attacks the runner's HTTP binding:

    never_answers   holds every request open and never responds
    drip            answers the start, then trickles a turn's response a byte at a time, forever
    huge_body       answers every request with a 100 MB body (streamed, so this test process stays small)
    redirect        answers every request with a 307 to another local port (a listener that must see nothing)
    close_mid       starts every response, then closes the connection in the middle of the body

The attacks wait on their own `released` event, which `stop()` sets, so the server shuts down at once.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from aiohttp import web

from bots.aiohttp_server import LoopServer

HTTP_MODES = ("never_answers", "drip", "huge_body", "redirect", "close_mid")
HUGE_BODY_BYTES = 100 * 1000 * 1000
DRIP_PAUSE_S = 0.05
"""The drip bot's pause between two bytes: its own pacing, not a synchronisation of the test."""


def honest_payload(envelope: dict[str, Any]) -> dict[str, Any]:
    """What the honest bots play (tests/zoo/bots/_wire.py): one producer a turn, never an attack."""
    return {"newProducers": 1} if envelope.get("type") == "turn" else {}


class HonestHttp(LoopServer):
    """An honest HTTP bot: answers every request at once."""

    async def handle(self, request: web.Request) -> web.StreamResponse:
        envelope = await request.json()
        return web.json_response({"id": envelope["id"], "payload": honest_payload(envelope)})


class HostileHttp(LoopServer):
    """A hostile HTTP bot; `mode` is one of HTTP_MODES, `redirect_port` the 307's target."""

    def __init__(self, mode: str, redirect_port: int = 0) -> None:
        if mode not in HTTP_MODES:
            raise ValueError(f"unknown HTTP attack {mode!r}")
        self.mode = mode
        self.redirect_port = redirect_port
        self.released = asyncio.Event()
        super().__init__()

    async def handle(self, request: web.Request) -> web.StreamResponse:
        envelope = await request.json()
        if self.mode == "never_answers":
            await self.released.wait()
            raise web.HTTPServiceUnavailable()
        if self.mode == "redirect":
            raise web.HTTPTemporaryRedirect(
                f"http://127.0.0.1:{self.redirect_port}/{request.match_info['kind']}"
            )
        if self.mode == "drip" and envelope["type"] != "turn":
            return web.json_response({"id": envelope["id"], "payload": honest_payload(envelope)})
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        if self.mode == "huge_body":
            response.content_length = HUGE_BODY_BYTES
        await response.prepare(request)
        head = json.dumps({"id": envelope["id"], "payload": {"newProducers": 1, "pad": ""}})[:-3]
        await response.write(head.encode())
        if self.mode == "close_mid":
            assert request.transport is not None
            request.transport.close()
            return response
        if self.mode == "huge_body":
            await self._stream_huge(response, HUGE_BODY_BYTES - len(head))
            return response
        await self._drip(response)
        return response

    async def _stream_huge(self, response: web.StreamResponse, size: int) -> None:
        block = b"x" * (1 << 20)
        sent = 0
        try:
            while sent < size and not self.released.is_set():
                chunk = block[: size - sent]
                await response.write(chunk)
                sent += len(chunk)
        except (ConnectionError, RuntimeError):
            return  # the runner hung up after the size cap: the attack is over

    async def _drip(self, response: web.StreamResponse) -> None:
        try:
            while not self.released.is_set():
                await response.write(b" ")
                await asyncio.sleep(DRIP_PAUSE_S)
        except (ConnectionError, RuntimeError):
            return

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.released.set)
        super().stop()
