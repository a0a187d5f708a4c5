"""Fixtures for the DatsPulse server: the real app under a real uvicorn on 127.0.0.1 (the organiser's
app with the DatsPulse API), a real Store on a temporary SQLite file, and an aiohttp client."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from waiting import wait_until

pytest.importorskip("fastapi", reason="the server extra (fastapi) is not installed")
pytest.importorskip("uvicorn", reason="the server extra (uvicorn) is not installed")
aiohttp = pytest.importorskip("aiohttp", reason="aiohttp is not installed")

from botarena.server.datspulse.server import DatsPulseServer  # noqa: E402 - after importorskip: skipped without the extra
from botarena.server.datspulse.settings import ServerSettings, parse_settings  # noqa: E402 - after importorskip: skipped without the extra
from botarena.server.httpconfig import ServerLimits, server_config  # noqa: E402 - after importorskip: skipped without the extra
from botarena.server.live import LiveHub  # noqa: E402 - after importorskip: skipped without the extra
from botarena.server.viewer import bind_socket  # noqa: E402 - after importorskip: skipped without the extra
from botarena.store import Store  # noqa: E402 - after importorskip: skipped without the extra

TEAMS = {"tok-alpha": "alpha", "tok-beta": "beta", "tok-gamma": "gamma"}


def make_settings(
    preset: str = "ci",
    teams: dict[str, str] | None = None,
    seed: int = 7,
    spectators: dict[str, Any] | None = None,
    **game: Any,
) -> ServerSettings:
    teams = TEAMS if teams is None else teams
    data: dict[str, Any] = {
        "preset": preset,
        "seed": seed,
        "game": game,
        "teams": [{"name": name, "token": token} for token, name in teams.items()],
    }
    if spectators is not None:
        data["spectators"] = spectators
    return parse_settings(data, source="test")


class ManualClock:
    """A series clock that moves only when a test sets `now` (so a phase lasts as long as its checks)."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class DpServer:
    """A DatsPulseServer under uvicorn in a daemon thread, on a free port of 127.0.0.1."""

    def __init__(
        self, settings: ServerSettings, store: Store | None, limits: ServerLimits | None = None, **kwargs: Any
    ) -> None:
        from botarena.server.guard import ArenaServer

        self.hub = LiveHub()
        self.dp = DatsPulseServer(settings, store=store, hub=self.hub, **kwargs)
        self.series = self.dp.series
        self.sock = bind_socket("127.0.0.1", 0)
        self.port = self.sock.getsockname()[1]
        # the servers' own uvicorn setup (the guarded h11 protocol), as `botarena datspulse serve`
        config = server_config(self.dp.app(), limits=limits, log_level="warning", timeout_graceful_shutdown=3)
        self.server = ArenaServer(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api(self) -> str:
        return f"{self.url}/api"

    def start(self, register: tuple[str, ...] = ()) -> DpServer:
        """Serve, open the first lobby, and register `register` (team names) in it at once, in
        process, so that a loaded machine cannot make them miss a short lobby."""
        self.thread.start()
        wait_until(
            lambda: self.server.started or not self.thread.is_alive(), "the DatsPulse server listening"
        )
        if not self.server.started:
            raise RuntimeError("the server did not start")
        self.dp.start()
        with self.series.lock:
            self.series.advance(self.series.clock())
            for name in register:
                self.series.register(name, self.series.clock())
        return self

    def stop(self) -> None:
        self.dp.stop()
        self.hub.close()
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()

    def wait_phase(self, *phases: str, polls: int = 400, every_s: float = 0.025) -> str:
        """Wait (a counted loop) until the series is in one of `phases`; returns the phase."""
        for _ in range(polls):
            with self.series.lock:
                phase = self.series.phase.value
            if phase in phases:
                return phase
            time.sleep(every_s)
        raise AssertionError(f"the series stayed {phase}, not {phases}")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(f"sqlite:///{tmp_path / 'dp.db'}", replay_dir=tmp_path / "replays")
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture
def start_dp() -> Iterator[Callable[..., DpServer]]:
    """start_dp(settings, store=None, limits=None, **DatsPulseServer kwargs) -> a started DpServer."""
    servers: list[DpServer] = []

    def start(
        settings: ServerSettings,
        store: Store | None = None,
        register: tuple[str, ...] = (),
        limits: ServerLimits | None = None,
        **kwargs: Any,
    ) -> DpServer:
        server = DpServer(settings, store, limits, **kwargs).start(register)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


class Client:
    """One team's HTTP client (aiohttp); `call` returns (status, headers, parsed JSON or raw text)."""

    def __init__(self, session: Any, api: str, token: str | None) -> None:
        self.session = session
        self.api = api
        self.token = token

    async def call(
        self, method: str, path: str, *, json_body: Any = None, data: bytes | None = None
    ) -> tuple[int, dict[str, str], Any]:
        headers = {"X-Auth-Token": self.token} if self.token is not None else {}
        kwargs: dict[str, Any] = {"headers": headers}
        if json_body is not None:
            kwargs["json"] = json_body
        if data is not None:
            kwargs["data"] = data
            headers["Content-Type"] = "application/json"
        async with self.session.request(method, self.api + path, **kwargs) as response:
            raw = await response.read()
            try:
                body: Any = __import__("orjson").loads(raw)
            except Exception:
                body = raw.decode(errors="replace")
            return response.status, dict(response.headers), body


def run(coro_factory: Callable[[Any], Any]) -> Any:
    """Run `coro_factory(session)` with a fresh aiohttp session (no proxies from the environment)."""

    async def main() -> Any:
        timeout = aiohttp.ClientTimeout(total=20)
        async with aiohttp.ClientSession(timeout=timeout, trust_env=False) as session:
            return await coro_factory(session)

    return asyncio.run(main())
