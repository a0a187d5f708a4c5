"""The spectator gate's own guarantees, each by the input that would break it (no server: the gate,
its public hub and the organizer's, fed live events as a tournament or live ingest would).

- a header holding later state (a resumed match's keyframes, late replies, resumes) shows none of
  it before its step is public;
- a held match that the bounds drop (too many, idle, too large) never leaks: its later events
  are dropped, not handed to the public hub;
- a retried match is held again from its start, and its earlier attempt's public stream is no
  longer served;
- `organizer`: nothing public, not even after the end; an unknown game is held as a hidden one;
- bad events never raise; a resent batch is not shown twice;
- a held stream says who plays and how far, then follows the match in the same stream.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

from botarena.server.live import LiveHub
from botarena.server.spectators import (
    HELD,
    LivePolicy,
    PolicyError,
    SpectatorGate,
    SpectatorPolicy,
)

AFTER = SpectatorPolicy()
DELAYED = SpectatorPolicy(LivePolicy.DELAYED, 2)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def header(key: str, game: str = "drones", **replay: Any) -> dict[str, Any]:
    base = {
        "game": game,
        "seed": 77,
        "players": [{"seat": 0, "name": "alpha"}, {"seat": 1, "name": "beta"}],
        "keyframes": [{"step": 0, "state": {"secret": "map"}}],
    }
    return {"type": "header", "key": key, "tournament_id": 3, "match": key, "replay": {**base, **replay}}


def steps(key: str, first: int, count: int) -> dict[str, Any]:
    return {
        "type": "steps",
        "key": key,
        "first": first,
        "steps": [{"record": {"turn": i + 1}} for i in range(first, first + count)],
    }


def end(key: str) -> dict[str, Any]:
    return {"type": "end", "key": key, "match_id": None, "fields": {"seed": 77, "result": {"ranks": [0, 1]}}}


def shown(hub: LiveHub, key: str) -> list[tuple[str, Any]]:
    """Everything a subscriber of the public hub gets of `key` now: (event, data)."""

    async def read() -> list[tuple[str, Any]]:
        events = hub.subscribe(key, heartbeat_s=0.01)
        if events is None:
            return []
        got = []
        async for event in events:
            if event.event == "ping":
                break
            got.append((event.event, json.loads(event.data)))
        await events.aclose()
        return got

    return asyncio.run(read())


def turns(events: list[tuple[str, Any]]) -> list[int]:
    return [s["record"]["turn"] for kind, data in events if kind == "steps" for s in data["steps"]]


@pytest.fixture
def hubs() -> Iterator[tuple[LiveHub, LiveHub]]:
    public, organizer = LiveHub(), LiveHub(public=False)
    yield public, organizer
    public.close()
    organizer.close()


def test_a_header_shows_no_keyframe_late_reply_or_resume_newer_than_its_shown_step(
    hubs: tuple[LiveHub, LiveHub],
) -> None:
    """A resumed match's header holds the whole state at steps 2, 4, 6 and what came after step 5:
    delayed by 2 with 5 steps played, the public gets steps 1-3, and of the header only step 0's
    and step 2's keyframes (the organizer gets it all)."""
    public, organizer = hubs
    gate = SpectatorGate(public, DELAYED, organizer=organizer)
    frames = [{"step": s, "state": {"units": f"at {s}"}} for s in (0, 2, 4, 6)]
    later = {"late": [{"after_step": 5, "reply": {}}], "resumes": [{"after_step": 4, "replies": []}]}
    gate.publish(header("t3/m", keyframes=[*frames, {"state": "no step number"}], **later))
    gate.publish(steps("t3/m", 0, 5))
    events = shown(public, "t3/m")
    kind, head = events[0]
    assert kind == "header" and head["spectators"] == {"policy": "delayed", "delay": 2}
    assert [k["step"] for k in head["replay"]["keyframes"]] == [0, 2]
    assert head["replay"]["late"] == [] and head["replay"]["resumes"] == []
    assert head["replay"]["seed"] is None  # (the public hub's rule: no seed while it is played)
    assert turns(events) == [1, 2, 3]
    mine = shown(organizer, "t3/m")
    assert len(mine[0][1]["replay"]["keyframes"]) == 5 and turns(mine) == [1, 2, 3, 4, 5]


def test_a_held_match_the_bounds_drop_never_leaks(hubs: tuple[LiveHub, LiveHub]) -> None:
    """Too many held matches, one idle too long: each is dropped, and its later steps and end are
    dropped too, never handed to the public hub, which still holds what it showed of it (delayed):
    a subscriber there would read them as they are played."""
    _, organizer = hubs
    clock = Clock()
    public = LiveHub(max_matches=2, idle_timeout_s=60.0, clock=clock)
    gate = SpectatorGate(public, DELAYED, organizer=organizer, clock=clock)
    gate.publish(header("t1/a"))
    gate.publish(steps("t1/a", 0, 3))  # step 1 is shown
    for name in ("t1/b", "t1/c"):  # the third held match drops the one idle longest: t1/a
        clock.now += 1
        gate.publish(header(name))
    assert {m["key"] for m in gate.live_matches()} == {"t1/a", "t1/b", "t1/c"}  # (a: the hub's)
    gate.publish(steps("t1/a", 3, 5))
    gate.publish(end("t1/a"))
    assert turns(shown(public, "t1/a")) == [1] and public.get("t1/a").finished is False  # type: ignore[union-attr]
    assert gate.dropped_events == 2
    clock.now += 61  # t1/b and t1/c idle past the timeout (their tournament was killed)
    assert "t1/b" not in gate and "t1/c" not in gate and gate.held_bytes == 0
    gate.publish(steps("t1/b", 0, 3))
    assert "t1/b" not in public and gate.dropped_events == 3
    assert turns(shown(organizer, "t1/a")) == [1, 2, 3, 4, 5, 6, 7, 8]  # (the organizer's: all)
    public.close()


def test_held_steps_beyond_the_memory_bound_go_first_and_nothing_newer_shows(
    hubs: tuple[LiveHub, LiveHub],
) -> None:
    public = LiveHub(max_bytes=200)
    gate = SpectatorGate(public, AFTER)
    gate.publish(header("t2/m"))
    for first in range(0, 40, 4):
        gate.publish(steps("t2/m", first, 4))  # ~100 bytes a batch: at most two are kept
    assert "t2/m" not in public
    (entry,) = gate.live_matches()
    assert entry["held"] and entry["played"] == 40
    gate.publish(end("t2/m"))
    events = shown(public, "t2/m")
    assert turns(events) == list(range(33, 41))  # the newest held steps
    assert next(data["first"] for kind, data in events if kind == "steps") == 32  # (the gap shows)
    assert [kind for kind, _ in events][-1] == "end" and gate.held_bytes == 0
    public.close()


def test_headers_too_big_or_too_many_to_hold_are_dropped_and_never_leak() -> None:
    """A header over the cap is not held (its steps never reach the public hub); held headers over
    the total bound drop the held match idle longest."""
    clock = Clock()
    public = LiveHub(max_total_bytes=1000, clock=clock)
    gate = SpectatorGate(public, AFTER, clock=clock, max_header_bytes=1000)
    gate.publish(header("t9/huge", pad="x" * 2000))
    gate.publish(steps("t9/huge", 0, 2))
    gate.publish(end("t9/huge"))
    assert "t9/huge" not in gate and "t9/huge" not in public and gate.dropped_events == 3
    for n in range(8):  # 215 bytes each: four fit in 1000
        clock.now += 1
        gate.publish(header(f"t9/m{n}"))
    assert 0 < gate.held_bytes <= 1000
    assert {m["key"] for m in gate.live_matches()} == {"t9/m4", "t9/m5", "t9/m6", "t9/m7"}
    gate.publish(steps("t9/m0", 0, 1))
    assert "t9/m0" not in public
    public.close()


def test_a_retried_match_is_held_again_and_its_earlier_stream_is_no_longer_served(
    hubs: tuple[LiveHub, LiveHub],
) -> None:
    """A delayed match shown up to step 3 is retried (its worker died): the same key starts from
    its header again. Its earlier attempt's public stream (the same seed: the same hidden start)
    is shadowed by the held retry, on the live list and on its stream."""
    public, _ = hubs
    gate = SpectatorGate(public, DELAYED)
    gate.publish(header("t4/m"))
    gate.publish(steps("t4/m", 0, 5))
    assert turns(shown(public, "t4/m")) == [1, 2, 3]
    gate.publish(header("t4/m"))  # the retry
    (entry,) = gate.live_matches()
    assert entry["held"] is True and entry["played"] == 0 and entry["steps"] == 0

    async def first_event() -> tuple[str, Any]:
        events = gate.subscribe("t4/m", heartbeat_s=0.01)
        assert events is not None
        event = await events.__anext__()
        await events.aclose()
        return event.event, json.loads(event.data)

    kind, data = asyncio.run(first_event())
    assert kind == HELD and data["played"] == 0
    gate.publish(steps("t4/m", 0, 3))
    assert turns(shown(public, "t4/m")) == [1]  # the retry's own header replaced the old attempt


def test_organizer_policy_is_never_public(hubs: tuple[LiveHub, LiveHub]) -> None:
    """Listed as running (its players, its progress), its stream never opens; once the match is
    over, the held stream's last notice says so, with its replay's URL (public, as every finished
    match's), and nothing of it is in the public hub."""
    public, organizer = hubs
    gate = SpectatorGate(public, SpectatorPolicy.parse("organizer"), organizer=organizer)
    gate.publish(header("t5/m"))
    gate.publish(steps("t5/m", 0, 4))
    (entry,) = gate.live_matches()
    assert entry["held"] and entry["policy"] == "organizer" and entry["played"] == 4

    async def follow() -> list[Any]:
        events = gate.subscribe("t5/m", heartbeat_s=5.0)
        assert events is not None
        got = []
        async for event in events:
            got.append(json.loads(event.data))
            if len(got) == 1:
                gate.publish({**end("t5/m"), "match_id": 12})
        return got

    first, last = asyncio.run(follow())
    assert first["played"] == 4 and "over" not in first
    assert last["over"] is True and last["replay_url"] == "/api/matches/12/replay"
    assert "t5/m" not in public and gate.live_matches() == [] and gate.held_bytes == 0
    assert turns(shown(organizer, "t5/m")) == [1, 2, 3, 4]
    assert [m["key"] for m in gate.live_matches(organizer=True)] == ["t5/m"]


def test_which_matches_are_held(hubs: tuple[LiveHub, LiveHub]) -> None:
    """Hidden-information and unknown games are held; full-information games and a source with an
    open policy of its own (the demo, `play --live`) are not."""
    public, _ = hubs
    gate = SpectatorGate(public)
    for key, game in (("t6/hidden", "devops"), ("t6/unknown", "no-such-game"), ("t6/full", "rps")):
        gate.publish(header(key, game))
        gate.publish(steps(key, 0, 2))
    gate.sink(SpectatorPolicy.open())(header("t6/demo", "craftingquest"))
    held = {m["key"]: m["held"] for m in gate.live_matches()}
    assert held == {"t6/hidden": True, "t6/unknown": True, "t6/full": False, "t6/demo": False}
    assert "t6/hidden" not in public and "t6/unknown" not in public
    assert turns(shown(public, "t6/full")) == [1, 2]


def test_bad_events_never_raise_and_a_resent_batch_shows_once(hubs: tuple[LiveHub, LiveHub]) -> None:
    public, _ = hubs
    gate = SpectatorGate(public, DELAYED)
    for bad in (
        None,
        [],
        {"type": "header"},
        {"type": "header", "key": "t7/x", "replay": "not an object"},
        {"type": "steps", "key": "t7/never-seen", "first": 0, "steps": [{}]},
        {"type": "nonsense", "key": "t7/x"},
    ):
        gate.publish(bad)  # type: ignore[arg-type]
    assert len(public) == 0 and gate.live_matches() == []
    gate.publish(header("t7/m"))
    for bad_steps in ({"first": -1, "steps": []}, {"first": 0, "steps": "x"}, {"first": True, "steps": []}):
        gate.publish({"type": "steps", "key": "t7/m", **bad_steps})
    gate.publish(steps("t7/m", 0, 4))
    gate.publish(steps("t7/m", 2, 4))  # steps 3-4 again, then 5-6
    gate.publish(end("t7/m"))
    assert turns(shown(public, "t7/m")) == [1, 2, 3, 4, 5, 6] and gate.held_bytes == 0


def test_a_held_stream_tells_the_progress_then_follows_the_match() -> None:
    """One subscription: "held" notices (who plays, steps played: never a step), then, once the
    match ends, its header, steps and end; `close()` ends a held stream."""
    public = LiveHub()
    gate = SpectatorGate(public, AFTER)
    gate.publish(header("t8/m"))

    async def follow() -> list[tuple[str, Any]]:
        events = gate.subscribe("t8/m", heartbeat_s=5.0)
        assert events is not None
        got: list[tuple[str, Any]] = []
        async for event in events:
            got.append((event.event, json.loads(event.data)))
            if len(got) == 1:  # the first notice: the match goes on, then ends
                gate.publish(steps("t8/m", 0, 2))
            elif len(got) == 2:
                gate.publish(steps("t8/m", 2, 1))
                gate.publish(end("t8/m"))
        return got

    got = asyncio.run(follow())
    kinds = [kind for kind, _ in got]
    assert kinds[:2] == [HELD, HELD] and kinds[-1] == "end" and "header" in kinds
    assert [data["played"] for kind, data in got if kind == HELD] == [0, 2][: kinds.count(HELD)]
    assert set(got[0][1]) == {"key", "tournament_id", "match", "game", "players", "policy", "delay", "played"}
    assert got[0][1]["players"] == ["alpha", "beta"]
    assert turns(got) == [1, 2, 3]

    gate.publish(header("t8/n"))

    async def closed() -> list[str]:
        events = gate.subscribe("t8/n", heartbeat_s=5.0)
        assert events is not None
        kinds = []
        async for event in events:
            kinds.append(event.event)
            gate.close()
        return kinds

    assert asyncio.run(closed()) == [HELD]
    public.close()


def test_a_policy_is_named_by_the_arena_words() -> None:
    assert SpectatorPolicy.parse("delayed", 5).visible(7, over=False) == 2
    assert SpectatorPolicy.parse("delayed", 5).visible(4, over=False) is None
    assert SpectatorPolicy.parse("after").visible(9, over=False) is None
    assert SpectatorPolicy.parse("after").visible(9, over=True) == 9
    assert SpectatorPolicy.parse("organizer").visible(9, over=True) is None
    assert SpectatorPolicy.parse("open").visible(9, over=False) == 9
    for mode, delay, message in (
        ("after-round", None, "unknown live policy 'after-round' (expected one of after, delayed"),
        ("delayed", 0, "the live delay must be 1 to 100000 steps"),
    ):
        with pytest.raises(PolicyError, match=message[:40].replace("(", r"\(")):
            SpectatorPolicy.parse(mode, delay)
