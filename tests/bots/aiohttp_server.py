"""A tiny aiohttp server on 127.0.0.1 for the HTTP bot tests: `POST /{kind}` goes to `handle`."""

from __future__ import annotations

import asyncio
import threading
from abc import ABC, abstractmethod

from aiohttp import web

from botarena.bots.subprocess import block_thread_signals


class LoopServer(ABC):
    """An aiohttp app on its own event-loop thread, on a free port; subclasses define `handle`."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        self.runner = asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(10)
        self.port = self.runner.addresses[0][1]

    def _run(self) -> None:
        block_thread_signals()  # as the platform's own threads do: SIGALRM is the main thread's
        self.loop.run_forever()

    async def _start(self) -> web.AppRunner:
        app = web.Application()
        app.router.add_post("/{kind}", self.handle)
        runner = web.AppRunner(app)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        return runner

    @abstractmethod
    async def handle(self, request: web.Request) -> web.StreamResponse:
        """The reply to `POST /{kind}`."""

    def url(self, kind: str) -> str:
        return f"http://127.0.0.1:{self.port}/{kind}"

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
