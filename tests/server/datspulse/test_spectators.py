"""Spectators of a running round see nothing a team could not see (spec §4, fog of war; issue 12,
item 6). The round is driven deterministically on a fake clock (each transition is made to happen by
moving the clock and advancing the series, then the recorder is flushed): no sleeps.

- after-round (the default): nothing of the running round's state on the public live list or
  stream, not even its header (which holds the whole map): the list shows it held, with its teams
  and the turns played, and its stream says so; after it ends, the whole round and its replay.
- delayed: turn t is public once turn t + D has been played; the header (the map, turn 0) once turn
  D has; no later keyframe (the live state) leaks through the header.
- the organizer key opens the full live stream at once; a team's token does not.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest

from botarena.store import Store

from .conftest import DpServer, make_settings

ROUND = "antprotocol-test-1"
KEY = f"datspulse/{ROUND}"
ORGANIZER_KEY = "organizer-key-for-the-tests-0001"
TURNS = 6
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def settings(mode: str | None = None, delay: int | None = None) -> Any:
    spectators: dict[str, Any] = {"organizer_key": ORGANIZER_KEY}
    if mode is not None:
        spectators["mode"] = mode
    if delay is not None:
        spectators["delay_turns"] = delay
    return make_settings(
        spectators=spectators,
        lobby_seconds=10.0,
        turns=TURNS,
        turn_seconds=2.0,
        break_seconds=1000.0,
        rate_limit_per_second=100,
    )


def start_round(
    start_dp: Callable[..., DpServer], store: Store, mode: str | None, delay: int | None = None
) -> tuple[DpServer, Clock]:
    clock = Clock()
    server = start_dp(settings(mode, delay), store, register=("alpha", "beta"), clock=clock)
    series = server.series
    with series.lock:
        live = series.current
        assert live is not None
        clock.now = live.start_at
        series.advance(clock())  # the lobby ends: the round starts (turn 0)
        assert series.phase.value == "running"
    assert server.dp.recorder.flush()
    return server, clock


def play_turn(server: DpServer, clock: Clock) -> int:
    """Make the next transition happen and be recorded and published; returns the new turn."""
    series = server.series
    with series.lock:
        live = series.current
        assert live is not None
        clock.now = live.due(live.round.turn_no + 1)
        series.advance(clock())
        turn = int(live.round.turn_no)
    series.record_steps()
    assert server.dp.recorder.flush()
    return turn


def get(server: DpServer, path: str) -> tuple[int, Any]:
    try:
        with _opener.open(server.url + path, timeout=10) as reply:
            return reply.status, reply.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def public_listing(server: DpServer) -> list[dict[str, Any]]:
    status, body = get(server, "/api/live")
    assert status == 200
    return [m for m in json.loads(body) if m["key"] == KEY]


HELD_NOTICE = {"key", "tournament_id", "match", "game", "players", "policy", "delay", "played", "progress"}


def assert_nothing_public(server: DpServer, sse: Any, played: int) -> None:
    """The round is listed as held, with its teams and the turns played; its stream gives only that."""
    (entry,) = public_listing(server)
    assert entry["held"] and entry["steps"] == 0 and entry["played"] == played
    assert entry["players"] == ["alpha", "beta"] and not entry["finished"]
    stream = sse(server.url, entry["events_url"])
    notice = next(e for e in stream.events() if e.event != "comment")
    stream.close()
    assert notice.event == "held" and set(json.loads(notice.data)) == HELD_NOTICE
    assert json.loads(notice.data)["played"] == played
    # issue 26 item 7: its clock, in the list and the notice alike (the schedule is public, §7.2)
    progress = entry["progress"]
    assert json.loads(notice.data)["progress"] == progress
    assert set(progress) == {"turn", "turns", "next_turn_at", "ends_at"}
    assert (progress["turn"], progress["turns"]) == (played, TURNS)
    assert progress["ends_at"] - progress["next_turn_at"] == pytest.approx(2.0 * (TURNS - played - 1))
    assert KEY not in server.hub  # (nothing held that a later subscriber could get)


def organizer_header(server: DpServer, sse: Any, key: str = ORGANIZER_KEY) -> Any:
    stream = sse(server.url, f"/api/datspulse/live/{ROUND}/events?key={key}")
    assert stream.status == 200
    first = next(e for e in stream.events() if e.event != "comment")
    stream.close()
    assert first.event == "header"
    return json.loads(first.data)


def team_units(header: Any) -> set[int]:
    frame = header["replay"]["keyframes"][0]["state"]["frame"]
    return {unit["team"] for unit in frame["units"]}


def test_after_round_default_shows_nothing_until_the_end_then_the_replay(
    start_dp: Callable[..., DpServer], store: Store, sse: Any
) -> None:
    server, clock = start_round(start_dp, store, mode=None)  # the default policy
    assert server.dp.settings.spectators.mode.value == "after-round"
    assert_nothing_public(server, sse, 0)
    for _ in range(TURNS - 1):
        turn = play_turn(server, clock)
        assert_nothing_public(server, sse, turn)  # (at turn 32 the old stream showed 92 foreign units)
    # meanwhile the organiser sees every team's units
    assert team_units(organizer_header(server, sse)) == {0, 1}
    assert play_turn(server, clock) == TURNS  # the round ends
    (entry,) = public_listing(server)
    events = sse(server.url, entry["events_url"]).read_all()
    kinds = [e.event for e in events if e.event != "comment"]
    assert kinds[0] == "header" and kinds[-1] == "end"
    steps = [s for e in events if e.event == "steps" for s in json.loads(e.data)["steps"]]
    assert [s["record"]["turnNo"] for s in steps] == list(range(1, TURNS + 1))
    end = json.loads(events[-1].data)
    status, replay = get(server, end["replay_url"])
    assert status == 200 and replay  # the round's replay is viewable


def test_delayed_shows_turn_t_only_once_turn_t_plus_delay_was_played(
    start_dp: Callable[..., DpServer], store: Store, sse: Any
) -> None:
    delay = 3
    server, clock = start_round(start_dp, store, mode="delayed", delay=delay)
    for turn in range(1, TURNS):
        assert play_turn(server, clock) == turn
        if turn < delay:
            assert_nothing_public(server, sse, turn)
            continue
        (entry,) = public_listing(server)
        assert entry["steps"] == turn - delay and not entry["finished"]
    stream = sse(server.url, f"/api/live/{KEY}/events")  # (a live stream: read only its first events)
    events = (e for e in stream.events() if e.event != "comment")
    assert next(events).event == "header"
    steps = json.loads(next(events).data)
    assert [s["record"]["turnNo"] for s in steps["steps"]] == list(range(1, TURNS - delay))
    stream.close()


def test_delayed_header_holds_no_keyframe_newer_than_the_delay(
    start_dp: Callable[..., DpServer], store: Store, sse: Any
) -> None:
    server, clock = start_round(start_dp, store, mode="delayed", delay=2)
    server.dp.series.current.driver.keyframe_every = 1  # a keyframe (the full state) every turn
    for _ in range(4):
        play_turn(server, clock)
    (entry,) = public_listing(server)
    stream = sse(server.url, entry["events_url"])
    header = json.loads(next(e for e in stream.events() if e.event == "header").data)
    stream.close()
    # published at turn 2 (the delay), when the replay already held the full states of turns 1, 2
    assert [k["step"] for k in header["replay"]["keyframes"]] == [0]
    assert [k["step"] for k in server.dp.series.current.driver.replay.keyframes][:3] == [0, 1, 2]


@pytest.mark.parametrize("key", ["", "tok-alpha", "organizer-key-for-the-tests-0002"])
def test_organizer_stream_needs_the_organizer_key(
    start_dp: Callable[..., DpServer], store: Store, key: str
) -> None:
    server, clock = start_round(start_dp, store, mode=None)
    play_turn(server, clock)
    status, body = get(server, f"/api/datspulse/live/{ROUND}/events?key={key}")
    assert status == 401 and json.loads(body) == {"code": 5, "message": "invalid or missing organizer key"}
    request = urllib.request.Request(
        f"{server.url}/api/datspulse/live/no-such-round/events", headers={"X-Organizer-Key": ORGANIZER_KEY}
    )
    with pytest.raises(urllib.error.HTTPError) as missing:
        _opener.open(request, timeout=10)
    assert missing.value.code == 404


def test_organizer_key_streams_the_whole_round_as_it_is_played(
    start_dp: Callable[..., DpServer], store: Store, sse: Any
) -> None:
    server, clock = start_round(start_dp, store, mode=None)
    header = organizer_header(server, sse)  # at turn 0, with every team's units
    assert team_units(header) == {0, 1} and header["replay"]["players"][1]["name"] == "beta"
    for _ in range(TURNS):
        play_turn(server, clock)
    events = sse(server.url, f"/api/datspulse/live/{ROUND}/events?key={ORGANIZER_KEY}").read_all()
    steps = [s for e in events if e.event == "steps" for s in json.loads(e.data)["steps"]]
    assert [s["record"]["turnNo"] for s in steps] == list(range(1, TURNS + 1))
    assert [e.event for e in events if e.event != "comment"][-1] == "end"


def test_open_mode_streams_at_once(start_dp: Callable[..., DpServer], store: Store) -> None:
    server, _ = start_round(start_dp, store, mode="open")
    (entry,) = public_listing(server)  # (the organiser's explicit choice: teams can watch)
    assert entry["steps"] == 0 and entry["players"] == ["alpha", "beta"]
