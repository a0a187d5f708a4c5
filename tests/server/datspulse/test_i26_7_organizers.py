"""DatsPulse for organizers (issue 26, item 7): a running round is listed as running, with its teams,
turn and clock, and nothing of its content (spec §4, fog of war); its links answer; a lobby nobody
registered for is an `empty` round, not a failure; round names come from the series' name.

Rounds are driven on a fake clock (the series is advanced by hand, the recorder flushed): no sleeps."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from botarena.server.datspulse.series import round_prefix
from botarena.server.datspulse.settings import parse_settings
from botarena.store import Store

from .conftest import TEAMS, DpServer
from .test_spectators import KEY, ROUND, TURNS, Clock, get, play_turn, start_round

#: What the public list may say of a held round: who plays and its clock, no state.
LISTED = {
    "key", "tournament_id", "match", "game", "players", "steps", "state", "finished", "match_id",
    "result", "started_at", "updated_at", "policy", "delay", "played", "held", "progress",
    "events_url", "replay_url",
}  # fmt: skip


def api(server: DpServer, path: str) -> Any:
    status, body = get(server, path)
    assert status == 200, (path, status, body[:300])
    return json.loads(body)


def test_i26_7_running_round_listed_with_teams_turn_and_clock_and_no_content(
    start_dp: Callable[..., DpServer], store: Store, sse: Any
) -> None:
    """Issue 26 item 7, spec §4: while a round runs, the arena page's list (`/api/live?state=running`)
    shows it running with its teams, its turn and its clock, and nothing else; the tournament's match
    row links its live view, which answers (a held notice, not a 404) until the round ends."""
    server, clock = start_round(start_dp, store, mode=None)
    assert play_turn(server, clock) == 1 and play_turn(server, clock) == 2
    (entry,) = [m for m in api(server, "/api/live?state=running") if m["key"] == KEY]
    assert set(entry) == LISTED  # (no replay, map, frame or seed: those are in no key)
    assert entry["state"] == "running" and entry["held"] and entry["players"] == ["alpha", "beta"]
    progress = entry["progress"]
    assert (progress["turn"], progress["turns"], entry["played"]) == (2, TURNS, 2)
    with server.series.lock:
        live = server.series.current
        assert live is not None
        due, end = live.due(3), live.end_at
    wall = server.series.wall_of
    assert progress["next_turn_at"] == pytest.approx(wall(due))
    assert progress["ends_at"] == pytest.approx(wall(end))
    # the tournament page's row of the round links the same held stream, and it answers
    (tournament,) = api(server, "/api/tournaments")
    (row,) = api(server, f"/api/tournaments/{tournament['id']}/matches")["matches"]
    assert row["key"] == ROUND and row["status"] == "running"
    assert row["live_url"] == entry["events_url"] and row["live_key"] == KEY
    assert row["seed"] is None and "seed" in row["hidden"]
    stream = sse(server.url, row["live_url"])
    assert stream.status == 200
    notice = next(e for e in stream.events() if e.event != "comment")
    stream.close()
    assert notice.event == "held"
    held = json.loads(notice.data)
    assert held["progress"] == progress and "replay" not in held
    single = api(server, f"/api/matches/{row['id']}")
    assert single["live_url"] == entry["events_url"] and single["replay_url"] is None
    # once it is over: the full replay, as for any finished match
    for _ in range(TURNS - 2):
        play_turn(server, clock)
    (row,) = api(server, f"/api/tournaments/{tournament['id']}/matches")["matches"]
    assert row["status"] == "finished" and row["live_url"] is None
    status, replay = get(server, row["replay_url"])
    assert status == 200 and replay


def empty_lobby_server(start_dp: Callable[..., DpServer], store: Store) -> tuple[DpServer, Clock]:
    """A server whose first lobby ends with nobody registered (the round is over at once)."""
    from .test_spectators import settings

    clock = Clock()
    server = start_dp(settings(), store, clock=clock)
    series = server.series
    with series.lock:
        live = series.current
        assert live is not None and live.teams == []
        clock.now = live.start_at
        series.advance(clock())
    assert server.dp.recorder.flush()
    return server, clock


def test_i26_7_empty_lobby_is_its_own_status_not_a_failed_round(
    start_dp: Callable[..., DpServer], store: Store
) -> None:
    """Issue 26 item 7: a lobby nobody registered for is an `empty` round in the series' view, the
    store, the tournament's match list and its counts; it is not counted as failed."""
    server, _clock = empty_lobby_server(start_dp, store)
    (first,) = api(server, "/api/datspulse/series")["rounds"]
    assert (first["name"], first["status"]) == (ROUND, "empty")
    assert first["cancelReason"] == "nobody registered"
    tournament = store.find_tournament("antprotocol-test")
    assert tournament is not None
    counts = store.count_matches(tournament.id)
    assert counts["empty"] == 1 and counts["failed"] == 0
    (listed,) = api(server, "/api/tournaments")
    assert listed["matches"]["empty"] == 1 and listed["matches"]["failed"] == 0
    assert listed["matches"]["total"] == 1
    (row,) = api(server, f"/api/tournaments/{tournament.id}/matches?status=empty")["matches"]
    assert row["key"] == ROUND and row["error"] == "nobody registered" and row["live_url"] is None


def test_i26_7_a_lobby_with_too_few_teams_is_still_a_cancelled_round() -> None:
    """Issue 26 item 7: only a lobby with nobody in it is empty; one with teams, fewer than
    `min_teams`, is cancelled as before (a round that should have been played and was not)."""
    from .test_series import Clock as SeriesClock
    from .test_series import make_series

    clock = SeriesClock()
    series = make_series(clock, min_teams=2)
    series.start(clock.now)
    series.advance(clock.now)
    series.register("alpha", clock.now)
    clock.now += 10.0
    series.advance(clock.now)
    assert series.rounds[0].status.value == "cancelled"
    assert "1 teams registered, min_teams is 2" in (series.rounds[0].cancel_reason or "")


def test_i26_7_round_names_come_from_the_series_name(start_dp: Callable[..., DpServer], store: Store) -> None:
    """Issue 26 item 7: a series called `Spring Cup 2025` plays `Spring-Cup-2025-1`, ... (one URL path
    segment and file name each), registrations say so, the store keys its rounds so; without a
    series name the default stays `antprotocol-test-N`."""
    data = {
        "preset": "ci",
        "seed": 7,
        "series_name": "Spring Cup 2025",
        "game": {"lobby_seconds": 10.0, "break_seconds": 1000.0, "rate_limit_per_second": 100},
        "teams": [{"name": name, "token": token} for token, name in TEAMS.items()],
    }
    clock = Clock()
    server = start_dp(parse_settings(data, source="test"), store, register=("alpha",), clock=clock)
    with server.series.lock:
        registered = server.series.register("beta", clock())
        assert registered["realm"] == "Spring-Cup-2025-1"
        assert server.series.upcoming().startswith("[Spring-Cup-2025-2 ")
        rounds = server.series.rounds_listing(clock())["rounds"]  # (GET /api/rounds)
    assert [r["name"] for r in rounds] == ["Spring-Cup-2025-3", "Spring-Cup-2025-2", "Spring-Cup-2025-1"]
    assert server.dp.recorder.flush()
    tournament = store.find_tournament("Spring Cup 2025")
    assert tournament is not None
    with server.series.lock:
        live = server.series.current
        assert live is not None
        clock.now = live.start_at
        server.series.advance(clock())
    assert server.dp.recorder.flush()
    (row,) = store.list_matches(tournament.id)
    assert row.key == "Spring-Cup-2025-1" and row.status == "running"


@pytest.mark.parametrize(
    ("series", "prefix"),
    [
        ("antprotocol-test", "antprotocol-test"),
        ("Spring Cup 2025", "Spring-Cup-2025"),
        ("cup/../2025 ?#", "cup-..-2025"),
        ("../..", "round"),
        ("финал", "round"),
    ],
)
def test_i26_7_round_prefix_is_one_safe_path_segment(series: str, prefix: str) -> None:
    assert round_prefix(series) == prefix
