"""`botarena play --live`: the match is played in the thread of the organizer's server
(`botarena.server.app.serve`) on 127.0.0.1 and streamed to its `LiveHub` through the tournament's
`LiveStreamer`, so the viewer at the printed URL follows it as it is played.

Imported only for --live: the server's modules it needs are imported at its top, so a missing
`server` extra is one line before the match starts."""

from __future__ import annotations

import dataclasses
import secrets
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from botarena.server.app import ARENA_PAGE, live_events_url, serve
from botarena.server.live import LiveHub, LockedEngine, live_routes_of
from botarena.server.spectators import SpectatorGate, SpectatorPolicy
from botarena.store import Store
from botarena.tournament.executor import LiveStreamer


class _Stopped(Exception):
    """The live server stopped (Ctrl-C) while its match was being played."""


def play_live(
    game: Any,
    players: list[Any],
    config: Any,
    port: int,
    linger_s: float,
    *,
    play: Callable[..., Any],
    on_done: Callable[[Any], None],
    journal: Any = None,
    external: Sequence[dict[str, Any]] = (),
) -> Any:
    """Play the match live (the config's `turn_interval_ms` paces it) and return its `MatchRun`.

    `play(game, on_begin, on_step)` plays the match (new or resumed) with those observers.
    `on_done(run)` gets the finished match at once; the server then serves `linger_s` seconds more.
    A game's live routes get `journal` (where they write the inputs they accept) and `external` (a
    resumed game's earlier inputs)."""
    live = _LiveMatch(game, players, config, linger_s, play=play, on_done=on_done)
    live.add_game_routes(journal, external)
    live.serve(port)
    return live.result()


class _LiveMatch:
    """The state one live match shares between the server's thread that plays it and the caller."""

    def __init__(
        self,
        game: Any,
        players: list[Any],
        config: Any,
        linger_s: float,
        *,
        play: Callable[..., Any],
        on_done: Callable[[Any], None],
    ) -> None:
        self.game, self.players, self.config, self.linger_s = game, players, config, linger_s
        self.play, self.on_done = play, on_done
        self.hub = LiveHub()
        self.gate = SpectatorGate(self.hub, SpectatorPolicy.open())  # the participant's own match, live
        self.stop = threading.Event()
        # the key and the name are public (the live list, the stream's URL): never the seed
        self.key = f"play/{game.id}-{secrets.token_hex(4)}"
        self.outcome: dict[str, Any] = {}
        self.routes: Any = None
        self.router: Any = None

    def add_game_routes(self, journal: Any, external: Sequence[dict[str, Any]]) -> None:
        """A game may serve routes of its own for the running match (devops: spec 7.5 bonus codes);
        they run on the server's threads, so the engine's phases then hold the routes' lock."""
        self.routes = SimpleNamespace(
            engine=None,
            config=self.config,
            players=self.players,
            organizer_key=secrets.token_urlsafe(16),
            lock=threading.RLock(),
            journal=journal,  # the routes write what they accept from outside the bots (devops codes)
            external=list(external),  # and a resumed game's routes restore it
        )
        make_routes = live_routes_of(self.game)
        self.router = make_routes(self.routes) if make_routes is not None else None
        if self.router is None:
            return
        make_engine, routes = self.game.new_engine, self.routes

        def new_engine(*args: Any) -> Any:
            routes.engine = LockedEngine(make_engine(*args), routes.lock)
            return routes.engine

        self.game = dataclasses.replace(self.game, new_engine=new_engine)

    def serve(self, port: int) -> None:
        """Serve until the match is over and the linger is spent (or Ctrl-C), from a scratch store."""
        with tempfile.TemporaryDirectory(prefix="botarena-live-") as folder:
            store = Store.open(f"sqlite:///{Path(folder) / 'live.db'}", replay_dir=Path(folder) / "replays")
            try:
                serve(
                    store,
                    host="127.0.0.1",
                    port=port,
                    hub=self.hub,
                    on_ready=self.on_ready,
                    stop=self.stop,
                    routers=[self.router] if self.router is not None else [],
                    spectators=self.gate,
                )
            finally:
                store.close()

    def on_ready(self, url: str) -> None:
        """Runs in the server's thread once it listens: play, report, linger, then stop it."""
        try:
            run = self._played(url)
            self.outcome["run"] = run
            self.on_done(run)  # the result now, not after the linger
        except BaseException as exc:  # reported by the main thread once the server has stopped
            self.outcome["error"] = exc
            self.stop.set()
            return
        if self.linger_s > 0 and not self.stop.is_set():
            print(f"match over; still serving for {self.linger_s:g} s (Ctrl-C stops)", flush=True)
            self.stop.wait(self.linger_s)
        self.stop.set()

    def _played(self, url: str) -> Any:
        """The match, streamed step by step; the watch URL is printed once the stream has begun."""
        base = url[: -len(ARENA_PAGE)] if url.endswith(ARENA_PAGE) else url.rstrip("/")
        names = ", ".join(bot.name for bot in self.players)
        streamer = LiveStreamer(self.key, self.gate.publish, match=f"{self.game.id}: {names}")

        def begin(replay: Any) -> None:
            streamer.begin(replay)  # the URL works from now on: print it only now
            print(f"watch live: {base}/index.html?live={live_events_url(self.key)}", flush=True)
            if self.router is not None:
                print(
                    f"game routes under {base}/api (organizer key: {self.routes.organizer_key})", flush=True
                )

        def step(index: int, record: dict[str, Any], engine: Any) -> None:
            if self.stop.is_set():
                raise _Stopped
            streamer.step(index, record, engine)

        run = self.play(self.game, begin, step)
        streamer.end(run.replay)
        return run

    def result(self) -> Any:
        """The finished match's run; Ctrl-C (or a stop before it ended) is KeyboardInterrupt, and an
        error of the match is raised here, in the caller's thread."""
        error = self.outcome.get("error")
        if isinstance(error, _Stopped) or ("run" not in self.outcome and error is None):
            raise KeyboardInterrupt
        if error is not None:
            raise error
        return self.outcome["run"]
