"""Resuming a round from its journal, in process on a hand-driven clock (test_resume.py kills a real
server): a round goes on from its last recorded step and verifies as one game; a round whose
journal is missing, damaged, from another config or whose steps do not re-run is marked failed as
before, with one log line saying why."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from botarena.core.journal import ReplayJournal, read_journal
from botarena.core.replay import read_replay
from botarena.runner.verify import verify_replay
from botarena.server.datspulse.recorder import STOPPED_REASON
from botarena.server.datspulse.server import DatsPulseServer
from botarena.server.datspulse.settings import ServerSettings
from botarena.store import Store

from .conftest import make_settings

TURNS = 6
REALM = "antprotocol-test-1"


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class NoFinish:
    """The series' events, but the round's end never reaches the recorder (a kill just after the
    last transition, before its result is stored)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def round_finished(self, live: Any) -> None:
        pass


def _settings(**game: Any) -> ServerSettings:
    options: dict[str, Any] = {"lobby_seconds": 1, "turns": TURNS, "turn_seconds": 1.0}
    options.update(break_seconds=1000, min_teams=2, **game)
    return make_settings(**options)


@pytest.fixture
def servers() -> Iterator[list[DatsPulseServer]]:
    made: list[DatsPulseServer] = []
    yield made
    for server in made:
        server.recorder.close()
        server.series.gc.release()


def _server(
    settings: ServerSettings, store: Store, clock: Clock, made: list[DatsPulseServer]
) -> DatsPulseServer:
    server = DatsPulseServer(settings, store=store, clock=clock)
    made.append(server)
    with server.series.lock:
        server.series.start(clock())
    return server


def _play(server: DatsPulseServer, clock: Clock, transitions: int) -> None:
    """Run `transitions` transitions on the clock (each recorded), then let the recorder catch up."""
    series = server.series
    for _ in range(transitions):
        clock.now += series.turn_seconds
        with series.lock:
            series.advance(clock())
        series.record_steps()
    assert server.recorder.flush()


def _start_round(series: Any, clock: Clock) -> None:
    """Register both teams and let the lobby pass: round 1 starts."""
    with series.lock:
        series.advance(clock())
        for name in ("alpha", "beta"):
            series.register(name, clock())
        clock.now += series.lobby_seconds
        series.advance(clock())


def _killed_after(steps: int, store: Store, clock: Clock, made: list[DatsPulseServer]) -> Path:
    """A server that played `steps` transitions of round 1 and was then abandoned, as a kill would
    leave it (its journal flushed, its match running in the store); returns the journal's path."""
    server = _server(_settings(), store, clock, made)
    series = server.series
    _start_round(series, clock)
    assert series.phase.value == "running"
    if steps == TURNS:
        series.events = NoFinish(series.events)
    _play(server, clock, steps)
    server.recorder.close()  # its thread is done: nothing more reaches the store or the journal
    journal = store.replays.root.parent / "journals" / "antprotocol-test" / f"{REALM}.json.gz"
    assert len(read_replay(journal).steps) == steps
    return journal


def _stored_replay(store: Store) -> Any:
    tournament = store.find_tournament("antprotocol-test")
    assert tournament is not None
    match = store.find_match(tournament.id, REALM)
    assert match is not None and match.status == "finished", match
    return read_replay(store.replay_path(match.replay_hash or ""))


@pytest.mark.parametrize("steps", [0, 1, 3, TURNS])
def test_dp75_resumed_round_goes_on_from_its_last_recorded_step_and_verifies(
    steps: int, store: Store, servers: list[DatsPulseServer]
) -> None:
    clock = Clock()
    journal = _killed_after(steps, store, clock, servers)
    recorded = read_replay(journal)
    clock.now += 500.0  # the restart comes much later: the clock is rebased, no turn is skipped
    server = _server(_settings(), store, clock, servers)
    series = server.series
    if steps < TURNS:
        live = series.current
        assert live is not None and live.resumed_after == steps and live.round.turn_no == steps
        assert series.phase.value == "running" and live.teams == ["alpha", "beta"]
        with series.lock:  # registrations restored: the teams' requests go on as before
            assert series.register("beta", clock())["realm"] == REALM
            assert series.arena("alpha", clock())["turnNo"] == steps
            assert series.next_deadline() == pytest.approx(clock() + series.turn_seconds)
        _play(server, clock, TURNS - steps)
    assert series.phase.value == "break"
    assert server.recorder.flush()
    replay = _stored_replay(store)
    report = verify_replay(replay)
    assert report.identical and not report.partial, str(report)
    assert len(replay.steps) == TURNS and replay.steps[:steps] == recorded.steps
    assert [r["after_step"] for r in replay.resumes] == [steps]
    assert not journal.exists()


def _damage_missing(journal: Path) -> None:
    journal.unlink()


def _damage_garbage(journal: Path) -> None:
    journal.write_bytes(b"\x1f\x8b not a journal at all")


def _damage_step(journal: Path) -> None:
    """A recorded step changed (its record no longer what its replies give)."""
    read = read_journal(journal)
    read.replay.steps[1]["record"]["turnNo"] = 99
    rewritten = ReplayJournal(journal, resume=read.resume)
    rewritten.begin(read.replay)
    rewritten.close()


def _damage_header(journal: Path) -> None:
    """A journal of another round (its resume header names other teams)."""
    read = read_journal(journal)
    assert read.resume is not None
    rewritten = ReplayJournal(journal, resume={**read.resume, "teams": ["beta", "alpha"]})
    rewritten.begin(read.replay)
    rewritten.close()


@pytest.mark.parametrize(
    ("damage", "why", "game"),
    [
        (_damage_missing, "no journal at", {}),
        (_damage_garbage, "not a replay journal", {}),
        (_damage_step, "its steps do not re-run (differs at step 2", {}),
        (_damage_header, "its journal's teams is ['beta', 'alpha']", {}),
        (None, "the game config changed", {"food_spawn_chance": 0.25}),
    ],
)
def test_dp75_round_that_cannot_be_resumed_is_marked_failed_as_before(
    damage: Any,
    why: str,
    game: dict[str, Any],
    store: Store,
    servers: list[DatsPulseServer],
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Clock()
    journal = _killed_after(3, store, clock, servers)
    if damage is not None:
        damage(journal)
    with caplog.at_level(logging.WARNING, logger="botarena.server.datspulse.recorder"):
        server = _server(_settings(**game), store, clock, servers)
    lines = [r.getMessage() for r in caplog.records if "cannot be resumed" in r.getMessage()]
    assert len(lines) == 1 and why in lines[0], lines
    assert lines[0].startswith(f"round {REALM} cannot be resumed, it is marked failed: ")
    assert server.series.phase.value == "waiting" and server.series.next_number == 2
    tournament = store.find_tournament("antprotocol-test")
    assert tournament is not None
    match = store.find_match(tournament.id, REALM)
    assert match is not None and match.status == "failed" and match.error == STOPPED_REASON


def test_dp75_a_journal_that_cannot_be_written_does_not_stop_the_round(
    store: Store, servers: list[DatsPulseServer], capfd: pytest.CaptureFixture[str]
) -> None:
    journals = store.replays.root.parent / "journals"
    journals.mkdir()
    (journals / "antprotocol-test").write_text("a file where the series' journal folder goes")
    clock = Clock()
    server = _server(_settings(), store, clock, servers)
    series = server.series
    _start_round(series, clock)
    _play(server, clock, TURNS)
    assert series.phase.value == "break"
    assert "cannot write the replay journal" in capfd.readouterr().err
    report = verify_replay(_stored_replay(store))
    assert report.identical and not report.partial, str(report)
