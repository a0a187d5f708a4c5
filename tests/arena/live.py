"""The real app under uvicorn on 127.0.0.1 over a SQLite store, with an open competition and a team
(`live_arena`): what `botarena submit`/`fetch` and the team client talk to in their tests."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import uvicorn

from botarena.arena.competitions import add_team, check_setup, create_competition
from botarena.arena.tokens import IssuedToken
from botarena.server.app import create_app
from botarena.server.arena import close_arena_streams
from botarena.server.viewer import bind_socket
from botarena.store import Store
from botarena.store.arena import ArenaStore, CompetitionRow, TeamRow
from botarena.store.arena_versions import ArenaVersions
from waiting import wait_until


@dataclass
class LiveArena:
    url: str
    store: Store
    arena: ArenaStore
    competition: CompetitionRow
    team: TeamRow
    token: IssuedToken

    @property
    def versions(self) -> ArenaVersions:
        return ArenaVersions(self.arena)

    def env(self, token: str | None = None) -> dict[str, str]:
        return {
            "BOTARENA_ARENA_TOKEN": token or self.token.text,
            "BOTARENA_ARENA_SERVER": self.url,
            "PATH": "/usr/bin:/bin",
        }


@pytest.fixture
def live_arena(tmp_path: Path) -> Iterator[LiveArena]:
    store = Store.open(f"sqlite:///{tmp_path / 'arena.db'}", replay_dir=tmp_path / "replays")
    arena = ArenaStore(store)
    competition, _ = create_competition(arena, "e2e", check_setup("drones"), actor="test")
    arena.update_competition(competition.id, actor="test", phase="open")
    team, token = add_team(arena, competition.id, "alpha", actor="test")
    app = create_app(store)
    sock = bind_socket("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, log_level="critical"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    wait_until(lambda: server.started or not thread.is_alive(), "the arena server listening")
    try:
        yield LiveArena(f"http://127.0.0.1:{sock.getsockname()[1]}", store, arena, competition, team, token)
    finally:
        close_arena_streams(app)  # (as `serve` does: an open stream must not hold the shutdown)
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
        store.close()
