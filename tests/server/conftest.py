"""Fixtures for the organizer's server: a real Store on a temporary SQLite file holding real
tournaments, the app under a real uvicorn on 127.0.0.1, and small HTTP and SSE clients."""

from __future__ import annotations

import http.client
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from waiting import wait_until

pytest.importorskip("fastapi", reason="the server extra (fastapi) is not installed")
pytest.importorskip("uvicorn", reason="the server extra (uvicorn) is not installed")

from botarena.server.app import create_app
from botarena.server.live import LiveHub
from botarena.server.spectators import SpectatorGate, SpectatorPolicy
from botarena.server.viewer import bind_socket
from botarena.store import Store
from botarena.tournament.service import Entrant, TournamentPlan, create_tournament, run_tournament

ENTRANTS = ("zergy", "adaptive", "pacifist")

# No proxy, even if the environment names one: these requests go to 127.0.0.1.
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


# ------------------------------------------------------------------------------------- data


def play_tournament(
    store: Store, name: str, fmt: str = "drones-2018", entrants: tuple[str, ...] = ENTRANTS
) -> int:
    """Create and run (inline, in a worker thread: the bots' timer signal is for non-main threads
    only under pytest-timeout) a tournament of drones starter bots; returns its id."""
    plan = TournamentPlan(
        name=name, game="drones", format=fmt, entrants=[Entrant(n, n) for n in entrants], seed=5
    )
    tournament = create_tournament(store, plan)
    with ThreadPoolExecutor(1) as pool:
        summary = pool.submit(run_tournament, store, tournament.id, None).result(timeout=120)
    assert summary.status == "finished", summary
    return tournament.id


@dataclass
class Arena:
    store: Store
    finished: int  # a finished drones-2018 tournament of ENTRANTS
    round_robin: int  # a finished round robin of two of them


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    root = tmp_path_factory.mktemp("arena")
    store = Store.open(f"sqlite:///{root / 'arena.db'}", replay_dir=root / "replays")
    try:
        finished = play_tournament(store, "cup")
        round_robin = play_tournament(store, "duel", "round-robin", ENTRANTS[:2])
        yield Arena(store, finished, round_robin)
    finally:
        store.close()


# ------------------------------------------------------------------------------------- server


class Server:
    """The app under uvicorn in a daemon thread, on a free port of 127.0.0.1 (lifespan on)."""

    def __init__(self, app: Any, hub: LiveHub) -> None:
        import uvicorn

        self.app = app
        self.hub = hub
        self.sock = bind_socket("127.0.0.1", 0)
        self.port = self.sock.getsockname()[1]
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=3))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def gate(self) -> SpectatorGate:
        """The spectator gate in front of the hub: what tournaments publish to."""
        gate: SpectatorGate = self.app.state.spectators
        return gate

    def start(self) -> Server:
        self.thread.start()
        wait_until(lambda: self.server.started or not self.thread.is_alive(), "the server listening")
        if not self.server.started:
            raise RuntimeError("the server did not start (its thread ended)")
        return self

    def stop(self) -> None:
        self.hub.close()  # end the SSE streams, or uvicorn waits for them
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()


@pytest.fixture
def start_server() -> Iterator[Callable[..., Server]]:
    """start_server(store, hub=None, live_policy=None, **create_app_kwargs) -> a started Server,
    stopped at teardown. `live_policy`: the spectator gate's (default: create_app's, `after`)."""
    servers: list[Server] = []

    def start(
        store: Any, hub: LiveHub | None = None, live_policy: SpectatorPolicy | None = None, **kwargs: Any
    ) -> Server:
        hub = hub if hub is not None else LiveHub()
        if live_policy is not None:
            organizer = LiveHub(public=False) if kwargs.get("organizer_key") else None
            kwargs["spectators"] = SpectatorGate(hub, live_policy, organizer=organizer)
        server = Server(create_app(store, hub, **kwargs), hub).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


LIVE_TOKEN = "s3cret-live-token-0123456789"
"""The live-ingest token of the servers the live tests start."""


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """A fresh SQLite store under tmp_path (a module's own `store` fixture wins over this one)."""
    store = Store.open(f"sqlite:///{tmp_path / 'arena.db'}", replay_dir=tmp_path / "replays")
    yield store
    store.close()


@pytest.fixture
def ingest(start_server: Callable[..., Server], store: Store) -> Server:
    """A started server over `store` that takes live events with `LIVE_TOKEN`, its matches open (the
    door is what these tests try; what the spectator policy holds back is test_live_policy.py's)."""
    return start_server(store, live_token=LIVE_TOKEN, live_policy=SpectatorPolicy.open())


# ------------------------------------------------------------------------------------- clients


def get(url: str, *, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """(status, headers with lower-case names, raw body); redirects are not followed."""

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), NoRedirect)
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with opener.open(request, timeout=10) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read()


def get_json(url: str) -> tuple[int, Any]:
    status, _, body = get(url)
    return status, json.loads(body)


@dataclass
class SseEvent:
    event: str  # "comment" for a `:` line
    data: str


class SseStream:
    """A minimal text/event-stream reader over http.client (bounded in time by the socket timeout)."""

    def __init__(self, base_url: str, path: str, timeout: float = 10.0) -> None:
        host, port = base_url.removeprefix("http://").split(":")
        self.conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
        self.conn.request("GET", path, headers={"Accept": "text/event-stream"})
        self.response = self.conn.getresponse()
        self.status = self.response.status
        self.headers = {k.lower(): v for k, v in self.response.getheaders()}

    def events(self) -> Iterator[SseEvent]:
        event, data = "message", []
        while True:
            raw = self.response.readline()  # (chunked transfer decoded)
            if not raw:
                return
            line = raw.decode().rstrip("\r\n")
            if line.startswith(":"):
                yield SseEvent("comment", line[1:].strip())
            elif line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].lstrip())
            elif line == "":
                if data:
                    yield SseEvent(event, "\n".join(data))
                event, data = "message", []

    def read_all(self) -> list[SseEvent]:
        return list(self.events())

    def close(self) -> None:
        self.conn.close()


@pytest.fixture
def sse() -> Iterator[Callable[[str, str], SseStream]]:
    streams: list[SseStream] = []

    def open_(base_url: str, path: str) -> SseStream:
        stream = SseStream(base_url, path)
        streams.append(stream)
        return stream

    yield open_
    for stream in streams:
        stream.close()
