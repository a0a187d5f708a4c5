"""The DatsPulse real-time server assembled: series, API, conductor thread, recorder, web app.

    server = DatsPulseServer(settings, store=store, hub=hub)
    app = server.app()             # the organiser's app (viewer, live SSE, store) + the DatsPulse API
    server.start(); ...; server.stop()

`run(...)` serves it with uvicorn until Ctrl-C (what `botarena datspulse serve` calls). The conductor
thread sleeps until the series' next due instant and then advances it under the game lock; request
handlers advance it too (§7.3), so whichever comes first runs a due transition and nobody sees a
stale turn. The conductor then records the transition's replay step without the lock.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from botarena.server.datspulse.api import DatsPulseApi
from botarena.server.datspulse.recorder import SeriesRecorder
from botarena.server.datspulse.resume import journals_root
from botarena.server.datspulse.series import DriverFactory, Phase, RoundFactory, Series, create_round
from botarena.server.datspulse.settings import ServerSettings

log = logging.getLogger(__name__)

MAX_SERIES_SEED = 2**63 - 1
IDLE_POLL_S = 1.0
#: How long after a transition its replay step is written: at most this, and at most this share of
#: the time left before the next transition.
RECORD_DELAY_S = 0.2
RECORD_DELAY_SHARE = 0.25


class Conductor:
    """The thread that runs the series' clock: it advances the series at each due instant."""

    def __init__(self, series: Series) -> None:
        self.series = series
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self._run, name="datspulse-conductor", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self, timeout_s: float = 10.0) -> None:
        self.stop_event.set()
        if self.thread.is_alive():
            self.thread.join(timeout_s)

    def _record(self, deadline: float | None) -> None:
        """Write the replay step of a transition just run (here or by a request handler), without
        the game lock. Not at once: the requests that queued behind the transition are served first,
        rather than sharing the GIL with ~20 ms of recording (50 teams); it is done well before the
        next transition, which would otherwise record it first, under the lock."""
        series = self.series
        if not series.has_unrecorded():
            return
        if deadline is not None:
            room = deadline - series.clock()
            self.stop_event.wait(max(0.0, min(RECORD_DELAY_S, room * RECORD_DELAY_SHARE)))
        series.record_steps()

    def _run(self) -> None:
        series, stop = self.series, self.stop_event
        while not stop.is_set():
            try:
                with series.lock:
                    series.advance(series.clock())
                    deadline = series.next_deadline()
                self._record(deadline)
            except Exception:  # never let the clock die: log, wait a little, try again
                log.exception("DatsPulse conductor: advance failed")
                deadline = None
            delay = IDLE_POLL_S if deadline is None else deadline - series.clock()
            if delay > 0:
                stop.wait(min(delay, IDLE_POLL_S))


class DatsPulseServer:
    """Everything of one server run (see the module docstring)."""

    def __init__(
        self,
        settings: ServerSettings,
        *,
        store: Any = None,
        hub: Any = None,
        round_factory: RoundFactory = create_round,
        driver_factory: DriverFactory | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        self.store = store
        config = settings.config
        self.hub = hub
        # The organiser's own hub: every round as it is played, behind the organizer key. The public
        # `hub` gets what the spectator policy allows (spec §4: a running round is secret): the
        # gate in front of both (botarena.server.spectators) sees to it.
        self.organizer_hub: Any = None
        self.spectators: Any = None
        if hub is not None:
            from botarena.server.live import LiveHub
            from botarena.server.spectators import SpectatorGate

            self.organizer_hub = LiveHub(public=False)  # (the public hub keeps the seeds out)
            self.spectators = SpectatorGate(hub, settings.spectators.policy, organizer=self.organizer_hub)
        final_rounds = int(config.final_rounds) if config.series == "final" else 0
        self.recorder = SeriesRecorder(
            store,
            self.spectators.publish if self.spectators is not None else None,
            final_rounds=final_rounds,
            journals=_journals_root(store),
        )
        seed = settings.seed if settings.seed is not None else secrets.randbelow(MAX_SERIES_SEED)
        resumed = self.recorder.open_series(
            name=settings.series_name,
            config=config,
            preset=settings.preset,
            seed=seed,
            teams=list(settings.teams.values()),
        )
        self.series = Series(
            config,
            seed=resumed.seed,
            preset=settings.preset,
            events=self.recorder,
            clock=clock,
            first_number=resumed.first_number,
            history=resumed.history,
            round_factory=round_factory,
            driver_factory=driver_factory,
            gc_pacing=True,
            name=settings.series_name,
        )
        if resumed.round is not None:  # the round a killed server left running goes on (resume.py)
            self.series.resume_round(resumed.round)
        self.api = DatsPulseApi(
            self.series,
            settings.teams,
            status_extra=self._extra_status,
            organizer_key=settings.spectators.organizer_key,
            organizer_hub=self.organizer_hub,
        )
        self.conductor = Conductor(self.series)
        self._stopped = False

    def _extra_status(self) -> dict[str, Any]:
        return {
            "seriesName": self.settings.series_name,
            "standings": self.recorder.standings,
            "recorded": list(self.recorder.recorded),
        }

    def app(self, **create_app_options: Any) -> Any:
        """The organiser's FastAPI app (`botarena.server.app`) with the DatsPulse API under /api; the
        organizer key also shows the running series' seeds on its JSON routes."""
        from botarena.server.app import create_app

        create_app_options.setdefault("organizer_key", self.settings.spectators.organizer_key)
        create_app_options.setdefault("spectators", self.spectators)
        return create_app(self.store, self.hub, routers=[self.api.router()], **create_app_options)

    def start(self) -> None:
        with self.series.lock:
            self.series.start(self.series.clock())
        self.conductor.start()

    def stop(self) -> None:
        """Stop the clock, mark a round under way as stopped, and finish every store write."""
        if self._stopped:
            return
        self._stopped = True
        self.conductor.stop()
        self.series.record_steps()  # the replay keeps every transition that ran
        with self.series.lock:
            current = self.series.current
            running = current if self.series.phase is Phase.RUNNING else None
            self.series.gc.release()  # (the round's objects may go once it is recorded)
        self.recorder.stop_round(running)
        self.recorder.close()
        if self.spectators is not None:
            self.spectators.close()  # (and the organiser's hub)


def _journals_root(store: Any) -> Path | None:
    """Where running rounds' journals go: `journals/` beside the store's replay folder (None without
    a store: nothing to resume into). Replays in the database: `./var/journals` on this machine."""
    replays = getattr(store, "replays", None)
    if replays is None:
        return None
    root = getattr(replays, "root", None)
    return journals_root(Path(root) if root is not None else Path("var") / "replays")


def run(
    settings: ServerSettings,
    *,
    store: Any,
    host: str = "127.0.0.1",
    port: int = 8000,
    on_ready: Callable[[str, str], None] | None = None,
) -> DatsPulseServer:
    """Serve until Ctrl-C or SIGTERM. `on_ready(api_base_url, viewer_url)` is called once listening."""
    from botarena.server.app import serve
    from botarena.server.live import LiveHub

    hub = LiveHub()
    server = DatsPulseServer(settings, store=store, hub=hub)
    stop = threading.Event()

    def ready(viewer_url: str) -> None:
        base = viewer_url.split("/arena.html", 1)[0] + "/api"
        server.start()
        if on_ready is not None:
            on_ready(base, viewer_url)
        stop.wait()  # the server is shutting down: end the organiser's streams too, or it waits for them
        if server.spectators is not None:
            server.spectators.close()

    try:
        serve(
            store,
            host=host,
            port=port,
            hub=hub,
            on_ready=ready,
            stop=stop,
            routers=[server.api.router()],
            organizer_key=settings.spectators.organizer_key,
            spectators=server.spectators,
        )
    finally:
        server.stop()
    return server
