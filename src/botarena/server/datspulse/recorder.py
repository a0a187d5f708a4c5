"""Where finished rounds go: the store (a series is a tournament, a round a match) and live viewers.

The series calls `SeriesRecorder`'s event methods with its game lock held, so they only put a job on
a queue; one thread does the slow work in order: the store's writes (the match with its seats and
seed when the round starts, its result and replay when it ends, the reason when it is cancelled) and
the live events of `botarena.server.live` (header, steps, end, exactly as a tournament's
`LiveStreamer` sends them, so the arena page lists the round and the viewer follows it).

A running round is secret (spec §4, fog of war; §7.4 as amended): the `live` sink is the server's
`SpectatorGate` (`botarena.server.spectators`), which gives the organiser's key-protected stream
every event at once and the public only what the spectator policy allows (after-round: nothing of
the round until it ends, then all of it; delayed: turn t once turn t + D has been played, the map
once turn D has; open: everything at once). Each transition's step is sent as it is recorded, so
the gate counts the turns played by the steps it has.

A store failure is logged and the series goes on (DESIGN principle 3); `close()` drains the queue, so
Ctrl-C loses nothing that was recorded.

Store layout: the tournament is named after the series (`series_name`), with format
`datspulse-test` or `datspulse-final`, the teams of the config file as entrants and the series seed;
each round is the match keyed by the round's name (`antprotocol-test-7`), `round` = its number,
seats = its teams in index order, seed = its match seed; ranks are the round places (§6.2), scores
the round scores, and the replay's result details hold every team's `{index, name, score, place,
points, unitsLost}`. Restarting the server with the same series name carries on that tournament:
round numbers continue, and a round that a killed server left running goes on from its journal
(`resume.py`; written here, on this thread, after every transition), or is marked failed when it
cannot (no journal, a damaged one, another version or config), with one log line saying why. A
round under way when the server is stopped on purpose (Ctrl-C) is marked failed. A lobby nobody
registered for is a match with status `empty` (issue 26): no round was played, none failed.
"""

from __future__ import annotations

import gzip
import logging
import math
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from botarena.core.config import config_to_dict
from botarena.server.datspulse.resume import (
    ResumedRound,
    ResumeRefused,
    journal_dir,
    journal_path,
    rebuild_round,
    resume_header,
)
from botarena.server.datspulse.series import LiveRound, PastRound, RoundStatus

log = logging.getLogger(__name__)

LiveSink = Callable[[dict[str, Any]], None]
STOPPED_REASON = "the server stopped during this round"


@dataclass(frozen=True)
class RoundSpec:
    """What `Store.add_matches` needs of a round."""

    key: str
    round: int
    seats: Sequence[str]
    seed: int


@dataclass(frozen=True)
class Resumed:
    """Where a series stands in the store when the server starts."""

    tournament_id: int | None
    seed: int
    first_number: int
    history: list[PastRound]
    round: ResumedRound | None = None  # the round a killed server left running, rebuilt to go on


def round_duration(live: LiveRound) -> float:
    """A finished round's stored `duration_s`: the wall-clock time it took as played, from turn 0's
    publication to the end of its last transition (about `turns` x `turn_seconds`), not the sum of
    the transitions' compute times. The latter is the fallback for a round without an end time."""
    played = live.played_s
    return played if played is not None else math.fsum(live.durations_s)


def live_key(round_name: str) -> str:
    """The live-event key of a round (`/api/live/datspulse/<name>/events`)."""
    return f"datspulse/{round_name}"


class SeriesRecorder:
    """SeriesEvents that record rounds in a Store and stream them to live sinks (all optional)."""

    def __init__(
        self,
        store: Any = None,
        live: LiveSink | None = None,
        *,
        final_rounds: int = 0,
        journals: Path | None = None,
    ) -> None:
        """`journals`: the folder of the running rounds' journals (None: none are written)."""
        self.store = store
        self.journals_root = journals
        self.journals: Path | None = None  # this series' folder in it (open_series)
        self.series_name = ""
        self.preset = ""
        self._journals: dict[str, Any] = {}  # round name -> its ReplayJournal while it runs
        self.live = live
        self.tournament_id: int | None = None
        self.final_rounds = final_rounds
        self.standings: list[dict[str, Any]] | None = None
        self.recorded: list[str] = []  # names of the rounds whose results are in the store
        self.failures = 0
        self._past_results: list[list[dict[str, Any]]] = []
        self._results: list[list[dict[str, Any]]] = []
        self._streamers: dict[str, Any] = {}  # round name -> its LiveStreamer
        self._match_ids: dict[str, int] = {}
        self._queue: queue.Queue[tuple[str, Any] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="datspulse-recorder", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------------------ start-up

    def open_series(self, *, name: str, config: Any, preset: str, seed: int, teams: Sequence[str]) -> Resumed:
        """Find (or create) the series' tournament; returns the seed and numbering to carry on with."""
        store = self.store
        self.series_name, self.preset = name, preset
        if store is None:
            return Resumed(None, seed, 1, [])
        if self.journals_root is not None:
            self.journals = journal_dir(self.journals_root, name)
        found = store.find_tournament(name)
        if found is not None and found.game == "datspulse":
            self.tournament_id = found.id
            return self._resume(found, config)
        entrants = [
            (team, store.register_bot("datspulse", team, f"datspulse-team:{team}").id) for team in teams
        ]
        row = store.create_tournament(
            name=name,
            game="datspulse",
            format=f"datspulse-{config.series}",
            preset=preset,
            config=config_to_dict(config),
            seed=seed,
            options={"mode": "realtime"},
            entrants=entrants,
        )
        store.set_tournament_status(row.id, "running")
        self.tournament_id = row.id
        return Resumed(row.id, seed, 1, [])

    def _resume(self, tournament: Any, config: Any) -> Resumed:
        store = self.store
        history: list[PastRound] = []
        last = 0
        rows = store.list_matches(tournament.id, limit=100_000)
        running = [row for row in rows if row.status == "running"]
        latest = max(running, key=lambda row: int(row.round), default=None)
        resumed = self._resume_round(latest, config) if latest is not None else None
        for row in rows:
            if row.status == "running" and (resumed is None or row.key != resumed.name):
                store.record_failure(tournament.id, row.key, STOPPED_REASON)
            elif row.status == "finished":
                self._drop_journal(row.key)  # (killed between storing the result and deleting it)
            last = max(last, int(row.round))
            start = row.created_at.timestamp() - float(config.lobby_seconds)
            end = (row.finished_at or row.created_at).timestamp()
            history.append(PastRound(int(row.round), row.key, start, end))
            if row.status == "finished" and row.replay_hash:
                results = self._stored_results(row.replay_hash)
                if results is not None:
                    self._past_results.append(results)
        self._update_standings()
        log.info("series %s resumed after round %d", tournament.name, last)
        return Resumed(tournament.id, int(tournament.seed), last + 1, history, resumed)

    def _resume_round(self, row: Any, config: Any) -> ResumedRound | None:
        """The round a killed server left running (`row`), rebuilt from its journal; None (with one
        log line saying why) when it cannot be, and then it is marked failed."""
        if self.journals is None:
            return None
        path = journal_path(self.journals, row.key)
        try:
            return rebuild_round(
                path,
                series=self.series_name,
                name=row.key,
                number=int(row.round),
                teams=[str(seat) for seat in row.seats],
                seed=int(row.seed),
                config=config,
            )
        except ResumeRefused as exc:
            log.warning("round %s cannot be resumed, it is marked failed: %s", row.key, exc)
        except Exception as exc:  # a bug must not keep the server from starting: as before, failed
            log.exception("round %s cannot be resumed, it is marked failed: %s", row.key, exc)
        return None

    def _stored_results(self, digest: str) -> list[dict[str, Any]] | None:
        from botarena.core.replay import ReplayError
        from botarena.store import StoreError

        try:
            details = self.store.load_replay(digest).result.get("details") or {}
        except (ReplayError, StoreError, OSError, ValueError) as exc:
            log.warning("cannot read the results of a recorded round: %s", exc)
            return None
        results = details.get("results")
        return list(results) if isinstance(results, list) else None

    # ------------------------------------------------------------------------------ SeriesEvents

    def round_started(self, live: LiveRound) -> None:
        self._queue.put(("start", live))

    def round_stepped(self, live: LiveRound, step: int) -> None:
        self._queue.put(("step", (live, step)))

    def round_finished(self, live: LiveRound) -> None:
        self._queue.put(("finish", live))

    def round_cancelled(self, live: LiveRound) -> None:
        self._queue.put(("cancel", live))

    def series_finished(self) -> None:
        self._queue.put(("series", None))

    # ------------------------------------------------------------------------------ the thread

    def close(self, timeout_s: float = 30.0) -> None:
        """Finish every queued job (the store's writes included), then stop the thread."""
        self._queue.put(None)
        self._thread.join(timeout_s)

    def flush(self, timeout_s: float = 10.0) -> bool:
        """Wait until every job queued so far is done (tests); False on timeout."""
        done = threading.Event()
        self._queue.put(("flush", done))
        return done.wait(timeout_s)

    def _run(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            kind, data = job
            try:
                getattr(self, f"_on_{kind}")(data)
            except Exception:  # a store or viewer failure never stops the series
                self.failures += 1
                log.exception("DatsPulse recorder: %s failed", kind)

    def _on_flush(self, done: threading.Event) -> None:
        done.set()

    def _on_start(self, live: LiveRound) -> None:
        if self.store is not None and self.tournament_id is not None:
            spec = RoundSpec(live.name, live.number, list(live.teams), live.seed)
            self.store.add_matches(self.tournament_id, [spec])
            self.store.mark_running(self.tournament_id, live.name)
            row = self.store.find_match(self.tournament_id, live.name)
            if row is not None:
                self._match_ids[live.name] = row.id
        replay = getattr(live.driver, "replay", None)
        if replay is None:
            return
        try:
            self._begin_journal(live, replay)
        except Exception:  # the round and its live viewers go on without a journal
            log.exception("round %s: cannot start its journal", live.name)
        if self.live is None:
            return
        from botarena.tournament.executor import LiveStreamer

        streamer = LiveStreamer(
            live_key(live.name),
            lambda event: self._publish(live, event),
            tournament_id=self.tournament_id,
            match=live.name,
            match_id=self._match_ids.get(live.name),
            flush_s=0.0,  # every turn as it is recorded: the spectator policy counts them
        )
        streamer.begin(replay)
        self._streamers[live.name] = streamer

    def _publish(self, live: LiveRound, event: dict[str, Any]) -> None:
        """Hand a round's live event to the live sink with the round's clock (`progress`): the public
        list shows a held round's turn, its next turn and its end, and nothing of its state."""
        assert self.live is not None
        steps = event.get("steps")
        turn = int(event.get("first") or 0) + len(steps) if isinstance(steps, list) else 0
        if event.get("type") == "header":
            turn = live.resumed_after or 0
        if event.get("type") != "end":
            event = {**event, "progress": live.progress(turn)}
        self.live(event)

    def _begin_journal(self, live: LiveRound, replay: Any) -> None:
        """Start the round's journal. A resumed round's is written beside the old one and then
        renamed over it, so that a kill meanwhile still finds the old one whole."""
        from botarena.core.journal import ReplayJournal

        if self.journals is None or self.store is None:
            return
        final = journal_path(self.journals, live.name)
        header = resume_header(
            series=self.series_name,
            number=live.number,
            name=live.name,
            teams=list(live.teams),
            seed=live.seed,
            preset=self.preset,
        )
        resumed = live.resumed_after is not None
        path = final.with_name(final.name + ".new") if resumed else final
        # flushed after every step: a turn lasts seconds, and a kill then loses at most one step
        journal = ReplayJournal(path, resume=header, flush_every_s=0.0)
        journal.begin(replay)
        if resumed and journal.failed is None:
            try:
                path.replace(final)
                journal.path = final
            except OSError as exc:
                log.warning("round %s: cannot replace its journal: %s", live.name, exc)
        self._journals[live.name] = journal

    def _drop_journal(self, round_name: str) -> None:
        """Delete a round's journal once its complete replay is in the store."""
        journal = self._journals.pop(round_name, None)
        if journal is not None:
            journal.close()
        if self.journals is not None:
            try:
                journal_path(self.journals, round_name).unlink(missing_ok=True)
            except OSError as exc:
                log.warning("round %s: cannot delete its journal: %s", round_name, exc)

    def _close_journal(self, round_name: str) -> None:
        """Close a round's journal and keep the file (the round did not end with a stored result)."""
        journal = self._journals.pop(round_name, None)
        if journal is not None:
            journal.close()

    def _on_step(self, data: tuple[LiveRound, int]) -> None:
        live, step = data
        journal = self._journals.get(live.name)
        if journal is not None:
            try:
                journal.sync()
            except Exception:  # (it reports its own OSErrors): the round goes on without it
                self._journals.pop(live.name, None)
                log.exception("round %s: its journal stops", live.name)
        streamer = self._streamers.get(live.name)
        if streamer is not None:
            streamer.step(step, {}, live.driver.engine)

    def _on_finish(self, live: LiveRound) -> None:
        replay = getattr(live.driver, "replay", None)
        results = live.results or []
        if self.final_rounds:
            self._results.append(results)
        if self.store is not None and self.tournament_id is not None and replay is not None and results:
            by_index = sorted(results, key=lambda row: int(row["index"]))
            self.store.record_result(
                self.tournament_id,
                live.name,
                ranks=[int(row["place"]) for row in by_index],
                scores=[float(row["score"]) for row in by_index],
                statuses=replay.statuses,
                time_used_ms=replay.time_used_ms,
                steps=len(replay.steps),
                duration_s=round_duration(live),
                replay_gz=gzip.compress(replay.dumps(), compresslevel=6, mtime=0),
            )
            self.recorded.append(live.name)
            self._drop_journal(live.name)
        else:
            self._close_journal(live.name)
        self._update_standings()
        self._end_stream(live.name, replay)

    def _on_cancel(self, live: LiveRound) -> None:
        if self.store is not None and self.tournament_id is not None:
            spec = RoundSpec(live.name, live.number, list(live.teams), live.seed)
            self.store.add_matches(self.tournament_id, [spec])
            if live.status is RoundStatus.EMPTY:  # nobody registered: no round, and no failure either
                self.store.record_empty(self.tournament_id, live.name, str(live.cancel_reason))
            else:
                self.store.record_failure(self.tournament_id, live.name, f"cancelled: {live.cancel_reason}")
        self._close_journal(live.name)
        self._end_stream(live.name, getattr(live.driver, "replay", None))

    def _end_stream(self, round_name: str, replay: Any) -> None:
        """Close the round's live stream, if it has one, with its replay (None: the round has none)."""
        streamer = self._streamers.pop(round_name, None)
        if streamer is not None and replay is not None:
            streamer.end(replay)

    def _on_series(self, _data: None) -> None:
        self._update_standings()
        if self.store is not None and self.tournament_id is not None:
            self.store.set_tournament_status(self.tournament_id, "finished")

    def _update_standings(self) -> None:
        """§6.3 over every final round recorded so far, earlier runs of the series included."""
        if self.final_rounds == 0:
            return
        from botarena.games.datspulse.standings import standings

        rounds = [r for r in [*self._past_results, *self._results] if r]
        self.standings = standings(rounds) if rounds else []

    def stop_round(self, live: LiveRound | None) -> None:
        """The server stops during `live`: its match is marked failed (called after the series stopped)."""
        if live is None:
            return
        self._queue.put(("stopped", live))

    def _on_stopped(self, live: LiveRound) -> None:
        if self.store is not None and self.tournament_id is not None:
            turn = live.round.turn_no if live.round is not None else 0
            self.store.record_failure(self.tournament_id, live.name, f"{STOPPED_REASON} (turn {turn})")
        self._close_journal(live.name)  # (kept: what was played of the round, for the organiser)
        self._end_stream(live.name, getattr(live.driver, "replay", None))
