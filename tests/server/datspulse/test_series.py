"""The round lifecycle as a state machine (spec §7.3) on a fake clock: the first lobby at
`first_lobby_at`, transitions at round_start + k x turn_seconds without drift (a late `advance`
catches up every due transition at once), "no stale turns" at the exact instant, `nextTurnIn`
rounding, a test series looping, a final series going IDLE, a crashing transition ending its round."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from botarena.core.config import ConfigError
from botarena.games.datspulse.config import datspulse_config
from botarena.server.datspulse.recorder import SeriesRecorder, round_duration
from botarena.server.datspulse.series import PlainDriver, Series
from botarena.server.datspulse.wire import PublicError, rfc3339

from .fakes import FakeRound

WALL0 = 1_752_258_000.0  # 2025-07-11T18:20:00Z


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def mono(self) -> float:
        return self.now

    def wall(self) -> float:
        return WALL0 + (self.now - 100.0)

    def wall_ns(self) -> int:
        return int(self.wall() * 1e9)


def make_series(clock: Clock, **overrides: Any) -> Series:
    config = datspulse_config(
        "ci", {"lobby_seconds": 10.0, "turns": 5, "turn_seconds": 2.0, "break_seconds": 4.0, **overrides}
    )
    return Series(
        config,
        seed=3,
        clock=clock.mono,
        wall=clock.wall,
        wall_ns=clock.wall_ns,
        round_factory=lambda c, seed, names, n: FakeRound(c, seed, names),
        driver_factory=lambda round_, live: PlainDriver(round_),
    )


def test_dp73_first_lobby_opens_at_first_lobby_at() -> None:
    clock = Clock()
    series = make_series(clock, first_lobby_at="2025-07-11T18:21:40Z")  # 100 s after start
    series.start(clock.now)
    series.advance(clock.now)
    assert series.phase.value == "waiting"
    with pytest.raises(PublicError) as caught:
        series.register("alpha", clock.now)
    assert caught.value.code == 1
    assert caught.value.message.endswith(
        "next rounds: [antprotocol-test-1 2025-07-11T18:21:40Z, antprotocol-test-2 2025-07-11T18:22:04Z]"
    )
    series.advance(199.999)
    assert series.phase.value == "waiting"
    series.advance(200.0)
    assert series.phase.value == "lobby" and series.current is not None
    assert rfc3339(series.wall_of(series.current.lobby_at)) == "2025-07-11T18:21:40Z"


def test_dp73_transitions_on_schedule_without_drift_and_no_stale_turns() -> None:
    clock = Clock()
    series = make_series(clock)
    series.start(clock.now)
    series.advance(clock.now)
    reply = series.register("alpha", clock.now)
    assert reply["lobbyEndsIn"] == 10 and reply["nextTurn"] == 10
    clock.now = 110.0  # the lobby's end: turn 0
    series.advance(clock.now)
    live = series.current
    assert live is not None and series.phase.value == "running" and live.round.turn_no == 0
    assert series.arena("alpha", clock.now)["nextTurnIn"] == 2
    clock.now = 110.0 + 2.0 * 2.5  # a late advance catches up every due transition, none more
    series.advance(clock.now)
    assert live.round.turn_no == 2 and live.lags_s == [3.0, 1.0]
    assert series.arena("alpha", clock.now)["nextTurnIn"] == 1  # due at 116: 1 s, not drifted
    clock.now = 116.0  # exactly at the instant: the transition runs first (no stale turn)
    series.advance(clock.now)
    view = series.arena("alpha", clock.now)
    assert view["turnNo"] == 3 and view["nextTurnIn"] == 2
    clock.now = 117.9996
    assert series.arena("alpha", clock.now)["nextTurnIn"] == 0.001  # rounded up, never 0 while running
    clock.now = 120.0
    series.advance(clock.now)
    assert series.phase.value == "break" and live.round.turn_no == 5
    assert series.arena("alpha", clock.now)["nextTurnIn"] == 0
    assert series.register.__name__ and series.break_end == 124.0
    clock.now = 124.0
    series.advance(clock.now)  # a test series loops
    assert series.phase.value == "lobby" and series.current is not None
    assert series.current.name == "antprotocol-test-2" and series.current.lobby_at == 124.0


def test_dp73_final_series_goes_idle_after_its_rounds() -> None:
    clock = Clock()
    series = make_series(clock, series="final", final_rounds=2)
    series.start(clock.now)
    for number in (1, 2):
        series.advance(clock.now)
        series.register("alpha", clock.now)
        clock.now += 10.0 + 5 * 2.0 + 4.0  # lobby, turns, break
        series.advance(clock.now)
        assert series.rounds[number - 1].status.value == "finished"
    assert series.phase.value == "idle"
    assert series.arena("alpha", clock.now)["turnNo"] == 5  # the last round's teams keep its final state
    with pytest.raises(PublicError) as caught:
        series.arena("beta", clock.now)
    assert caught.value.code == 1 and caught.value.message.endswith("next rounds: []")
    listing = series.rounds_listing(clock.now)
    assert [(r["name"], r["status"]) for r in listing["rounds"]] == [
        ("antprotocol-final-2", "finished"),
        ("antprotocol-final-1", "finished"),
    ]


def test_dp73_a_crashing_transition_ends_its_round_and_the_series_goes_on() -> None:
    clock = Clock()
    series = make_series(clock)
    series.start(clock.now)
    series.advance(clock.now)
    series.register("alpha", clock.now)
    clock.now = 110.0
    series.advance(clock.now)
    live = series.current
    assert live is not None

    def boom() -> dict[int, list[str]]:
        raise RuntimeError("injected")

    live.round.transition = boom
    clock.now = 112.0
    series.advance(clock.now)
    assert live.status.value == "cancelled" and "transition 1 failed" in (live.cancel_reason or "")
    assert series.phase.value == "break"
    clock.now = 114.0
    series.advance(clock.now)
    assert series.phase.value == "lobby" and series.current is not live


def test_dp73_a_map_that_cannot_be_generated_cancels_the_round() -> None:
    clock = Clock()
    series = make_series(clock)

    def no_map(config: Any, seed: int, names: Any, number: int) -> Any:
        raise ConfigError("map too small for 2 teams")

    series.round_factory = no_map
    series.start(clock.now)
    series.advance(clock.now)
    series.register("alpha", clock.now)
    series.register("beta", clock.now)
    clock.now = 110.0
    series.advance(clock.now)
    live = series.rounds[0]
    assert live.status.value == "cancelled" and series.phase.value == "break"
    assert live.cancel_reason == "the map cannot be generated: map too small for 2 teams"
    assert series.break_end == 114.0  # straight to BREAK from the lobby's end


def test_dp72_logs_keep_the_last_log_limit_entries() -> None:
    clock = Clock()
    series = make_series(clock, turns=15, log_limit=10)
    series.start(clock.now)
    series.advance(clock.now)
    series.register("alpha", clock.now)
    assert series.logs("alpha") == []  # §7.2: in the lobby
    clock.now = 110.0 + 15 * 2.0
    series.advance(clock.now)
    logs = series.logs("alpha")
    assert len(logs) == 10  # FakeRound writes one line per transition: the oldest 5 were dropped
    assert [entry["message"] for entry in logs] == [f"turn {t}: new ant spawned Worker" for t in range(6, 16)]
    assert all(entry["time"].endswith("Z") for entry in logs)


def test_dp73_a_server_late_by_more_than_a_lobby_opens_the_next_lobby_now() -> None:
    clock = Clock()
    series = make_series(clock)
    series.start(clock.now)
    series.advance(clock.now)  # round 1's lobby, nobody registers: empty at 110, break to 114
    clock.now = 1000.0  # e.g. the machine was suspended
    series.advance(clock.now)
    assert [r.status.value for r in series.rounds] == ["empty", "lobby"]
    assert series.current is not None and series.current.lobby_at == 1000.0


class RecordingStore:
    """The one store call a finished round makes, captured (the recorder's store side)."""

    def __init__(self) -> None:
        self.results: list[dict[str, Any]] = []

    def record_result(self, tournament_id: int, key: str, **fields: Any) -> None:
        self.results.append({"tournament_id": tournament_id, "key": key, **fields})


def test_a_real_time_round_is_stored_with_the_time_it_took_as_played() -> None:
    """A 160 s round (80 turns of 2 s) is stored with duration_s 160, from turn 0 to its last
    transition, however little compute its transitions took (they take none on this fake clock)."""
    clock = Clock()
    series = make_series(clock, turns=80, turn_seconds=2.0)
    series.start(clock.now)
    series.advance(clock.now)
    series.register("alpha", clock.now)
    clock.now = 110.0  # the lobby's end: turn 0 (the lobby is not part of the round as played)
    series.advance(clock.now)
    live = series.current
    assert live is not None and live.played_s is None  # not finished yet
    for k in range(1, 81):
        clock.now = 110.0 + 2.0 * k
        series.advance(clock.now)
    assert live.status.value == "finished" and live.round.turn_no == 80
    assert live.played_s == pytest.approx(160.0) and sum(live.durations_s) == 0.0
    assert round_duration(live) == pytest.approx(160.0)

    # what the recorder hands the store for it
    store = RecordingStore()
    recorder = SeriesRecorder(store)
    try:
        recorder.tournament_id = 7
        replay = SimpleNamespace(statuses=[], time_used_ms=[], steps=[None] * 80, dumps=lambda: b"{}")
        live.driver = SimpleNamespace(replay=replay)
        live.results = [{"index": 0, "name": "alpha", "score": 0, "place": 1, "points": 0, "unitsLost": 0}]
        recorder._on_finish(live)
    finally:
        recorder.close()
    assert [r["duration_s"] for r in store.results] == [pytest.approx(160.0)]


def test_a_late_round_counts_its_real_end() -> None:
    """A round whose last transition ran late (the server was busy) lasted until that transition."""
    clock = Clock()
    series = make_series(clock, turns=5, turn_seconds=2.0)
    series.start(clock.now)
    series.advance(clock.now)
    series.register("alpha", clock.now)
    clock.now = 110.0
    series.advance(clock.now)
    live = series.current
    assert live is not None
    clock.now = 123.5  # every transition due, run at once 3.5 s after the last one's instant
    series.advance(clock.now)
    assert live.status.value == "finished" and live.played_s == pytest.approx(13.5)
