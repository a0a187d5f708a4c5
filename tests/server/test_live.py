"""LiveHub: publishers in real threads, subscribers in an event loop, the bounds."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any

import pytest

from botarena.server.live import PIECE_BYTES, LiveEvent, LiveHub, sse_bytes


def header(key: str, *, tournament_id: int = 3, players: tuple[str, ...] = ("a", "b")) -> dict[str, Any]:
    replay = {
        "format": "botarena.replay",
        "format_version": 1,
        "game": "drones",
        "players": [{"seat": i, "name": n} for i, n in enumerate(players)],
        "steps": [],
        "keyframes": [{"step": 0, "state": {}}],
    }
    return {
        "type": "header",
        "key": key,
        "tournament_id": tournament_id,
        "match": key.split("/")[-1],
        "replay": replay,
    }


def steps(key: str, first: int, count: int) -> dict[str, Any]:
    return {
        "type": "steps",
        "key": key,
        "first": first,
        "steps": [{"record": {"i": first + i}} for i in range(count)],
    }


def end(key: str, match_id: int | None = 17) -> dict[str, Any]:
    return {"type": "end", "key": key, "match_id": match_id, "fields": {"result": {"ranks": [0, 1]}}}


def run_async(coroutine: Any) -> Any:
    """`asyncio.run` in a thread of its own: after the browser tests, the session's Playwright keeps
    an event loop running in the main thread, where `asyncio.run` refuses to start another."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = asyncio.run(coroutine)
        except BaseException as exc:
            outcome["error"] = exc

    thread = threading.Thread(target=target, name="test-event-loop")
    thread.start()
    thread.join(60)
    assert not thread.is_alive(), "the event loop did not finish within a minute"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


async def collect(
    hub: LiveHub, key: str, *, heartbeat_s: float | None = None, limit: float = 10.0
) -> list[LiveEvent]:
    stream = hub.subscribe(key, heartbeat_s=heartbeat_s)
    assert stream is not None, f"no live match {key}"
    out: list[LiveEvent] = []

    async def run() -> None:
        async for event in stream:
            out.append(event)

    await asyncio.wait_for(run(), limit)
    return out


def step_indices(events: list[LiveEvent]) -> list[int]:
    """Every step's index, checking each "steps" event's `first` against its records."""
    indices: list[int] = []
    for event in events:
        if event.event == "steps":
            data = json.loads(event.data)
            got = [s["record"]["i"] for s in data["steps"]]
            assert got == list(range(data["first"], data["first"] + len(got)))
            indices += got
    return indices


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


# ------------------------------------------------------------------------------------- catching up


def test_a_late_subscriber_gets_everything_so_far_then_the_end() -> None:
    hub = LiveHub()
    key = "t3/r01-m002"
    hub.publish(header(key))
    for first in range(0, 30, 3):
        hub.publish(steps(key, first, 3))
    hub.publish(end(key))
    events = run_async(collect(hub, key))
    assert [e.event for e in events] == ["header", "steps", "end"]  # the ten batches merged into one
    head = json.loads(events[0].data)
    assert head["key"] == key and head["tournament_id"] == 3 and head["match"] == "r01-m002"
    assert head["replay"]["steps"] == [] and head["replay"]["players"][1]["name"] == "b"
    assert step_indices(events) == list(range(30))
    tail = json.loads(events[-1].data)
    assert tail == {
        "key": key,
        "match_id": 17,
        "replay_url": "/api/matches/17/replay",
        "fields": {"result": {"ranks": [0, 1]}},
    }


def test_unknown_key_has_no_subscription() -> None:
    hub = LiveHub()
    assert hub.subscribe("t1/nope") is None
    hub.publish(steps("t1/nope", 0, 2))  # steps before a header: nothing to attach them to
    assert hub.dropped_events == 1
    assert len(hub) == 0


def test_publishers_in_threads_and_subscribers_see_every_step_in_order() -> None:
    hub = LiveHub()
    keys = [f"t1/r01-m{i:03d}" for i in range(4)]
    for key in keys:
        hub.publish(header(key))
    start = threading.Event()

    def feed(key: str) -> None:
        start.wait(5)
        for first in range(0, 200, 4):
            hub.publish(steps(key, first, 4))
            if first % 40 == 0:
                time.sleep(0.002)  # let the subscribers sleep and be woken in between
        hub.publish(end(key, match_id=None))

    async def main() -> list[list[LiveEvent]]:
        tasks = [asyncio.create_task(collect(hub, key)) for key in keys for _ in range(2)]
        await asyncio.sleep(0.01)  # the subscribers are waiting before anything is published
        threads = [threading.Thread(target=feed, args=(key,)) for key in keys]
        for thread in threads:
            thread.start()
        start.set()
        results = await asyncio.gather(*tasks)
        for thread in threads:
            thread.join(5)
        return results

    for events in run_async(main()):
        assert events[0].event == "header" and events[-1].event == "end"
        assert json.loads(events[-1].data)["replay_url"] is None
        assert step_indices(events) == list(range(200))


def test_heartbeat_while_nothing_happens() -> None:
    hub = LiveHub()
    key = "t1/r01-m001"
    hub.publish(header(key))

    def later() -> None:
        time.sleep(0.3)
        hub.publish(steps(key, 0, 1))
        hub.publish(end(key))

    thread = threading.Thread(target=later)
    thread.start()
    events = run_async(collect(hub, key, heartbeat_s=0.05))
    thread.join(5)
    names = [e.event for e in events]
    assert names[0] == "header" and names[-2:] == ["steps", "end"]
    assert "ping" in names[1:-2]
    assert all(e.data == b"" for e in events if e.event == "ping")


def test_overlapping_batches_are_trimmed_and_gaps_are_visible() -> None:
    hub = LiveHub()
    key = "t1/k"
    hub.publish(header(key))
    hub.publish(steps(key, 0, 5))
    hub.publish(steps(key, 3, 5))  # 3, 4 again: only 5..7 are new
    hub.publish(steps(key, 2, 2))  # nothing new
    hub.publish(end(key))
    assert step_indices(run_async(collect(hub, key))) == list(range(8))
    info = hub.get(key)
    assert info is not None and info.steps == 8 and info.finished and info.match_id == 17


def test_a_stream_goes_out_in_views_of_the_hubs_bytes_never_whole_copies() -> None:
    """A subscriber that does not read holds one piece, not a copy of what it is behind on: the SSE
    bytes are views of the hub's chunks, at most PIECE_BYTES each."""
    hub = LiveHub()
    key = "t1/big"
    hub.publish(header(key))
    pad = "x" * 1000
    for first in range(0, 3000, 500):  # ~3 MB of steps in six chunks
        hub.publish(
            {
                "type": "steps",
                "key": key,
                "first": first,
                "steps": [{"i": first + i, "pad": pad} for i in range(500)],
            }
        )
    hub.publish(end(key))

    async def main() -> list[Any]:
        stream = hub.subscribe(key)
        assert stream is not None
        return [piece async for piece in sse_bytes(stream)]

    pieces = run_async(main())
    assert max(len(piece) for piece in pieces) <= PIECE_BYTES
    views = [piece for piece in pieces if isinstance(piece, memoryview)]
    # the steps go out as views (only each chunk's last bytes, under a piece, are joined to the next)
    assert sum(len(view) for view in views) > 2_400_000
    with hub._lock:
        chunks = {id(chunk.steps_json) for chunk in hub._matches[key].chunks}
    assert {id(view.obj) for view in views} <= chunks  # of the hub's own bytes
    text = b"".join(bytes(piece) for piece in pieces).decode()
    payloads = [line[6:] for line in text.split("\n") if line.startswith("data: ")]
    steps = [s["i"] for p in payloads for s in json.loads(p).get("steps", [])]
    assert steps == list(range(3000))  # and the stream reads as before


def test_integers_beyond_64_bits_still_go_out() -> None:
    hub = LiveHub()
    key = "t1/big"
    hub.publish(header(key))
    hub.publish({"type": "steps", "key": key, "first": 0, "steps": [{"record": {"i": 0, "n": 2**70}}]})
    hub.publish(end(key))
    events = run_async(collect(hub, key))
    assert json.loads(events[1].data)["steps"][0]["record"]["n"] == 2**70


def test_malformed_events_are_counted_never_raised() -> None:
    hub = LiveHub()
    bad: list[Any] = [
        None,
        "header",
        {"type": "header"},
        {"type": "header", "key": "t1/x", "replay": "not a dict"},
        {"type": "what", "key": "t1/x"},
        {"type": "steps", "key": "t1/x", "first": -1, "steps": []},
        {"type": "steps", "key": "t1/x", "first": True, "steps": []},
        {"type": "end", "key": "t1/x"},
    ]
    for event in bad:
        hub.publish(event)
    assert hub.dropped_events == len(bad)
    hub.publish(header("t1/x"))
    hub.publish({"type": "steps", "key": "t1/x", "first": 0, "steps": "nope"})
    hub.publish(end("t1/x"))
    hub.publish(end("t1/x"))  # a second end is ignored
    hub.publish(steps("t1/x", 0, 1))  # and so are steps after it
    assert hub.dropped_events == len(bad) + 3
    assert [m.key for m in hub.live_matches()] == ["t1/x"]


# ------------------------------------------------------------------------------------- listing


def test_live_matches_lists_running_first() -> None:
    hub = LiveHub()
    hub.publish(header("t1/a", players=("zergy", "adaptive")))
    hub.publish(steps("t1/a", 0, 4))
    hub.publish(end("t1/a", match_id=5))
    hub.publish(header("t2/b", tournament_id=2))
    hub.publish(steps("t2/b", 0, 2))
    listed = hub.live_matches()
    assert [m.key for m in listed] == ["t2/b", "t1/a"]
    running, done = listed
    assert (running.finished, running.steps, running.tournament_id, running.match) == (False, 2, 2, "b")
    assert (done.finished, done.steps, done.match_id, done.game) == (True, 4, 5, "drones")
    assert done.players == ["zergy", "adaptive"]
    assert done.result == {"ranks": [0, 1]}
    assert done.to_json()["key"] == "t1/a"
    assert "t2/b" in hub and "t9/z" not in hub


# ------------------------------------------------------------------------------------- bounds


def test_finished_matches_expire_and_are_bounded_in_count() -> None:
    clock = FakeClock()
    hub = LiveHub(keep_finished_s=120, max_finished=2, clock=clock)
    for i in range(3):
        hub.publish(header(f"t1/m{i}"))
        hub.publish(end(f"t1/m{i}"))
        clock.now += 1
    assert sorted(m.key for m in hub.live_matches()) == ["t1/m1", "t1/m2"]  # the oldest went first
    hub.publish(header("t1/running"))
    clock.now += 118.5  # m1 finished 120.5 s ago, m2 119.5 s ago
    assert sorted(m.key for m in hub.live_matches()) == ["t1/m2", "t1/running"]
    clock.now += 1
    assert [m.key for m in hub.live_matches()] == ["t1/running"]


def test_idle_matches_are_dropped_and_the_count_is_bounded() -> None:
    clock = FakeClock()
    hub = LiveHub(idle_timeout_s=600, max_matches=3, clock=clock)
    hub.publish(header("t1/killed"))
    clock.now += 599
    hub.publish(header("t1/fresh"))
    clock.now += 2
    assert [m.key for m in hub.live_matches()] == ["t1/fresh"]
    for i in range(4):
        hub.publish(header(f"t1/n{i}"))
        clock.now += 1
    assert sorted(m.key for m in hub.live_matches()) == ["t1/n1", "t1/n2", "t1/n3"]


def test_steps_beyond_the_bound_drop_the_oldest_chunks() -> None:
    hub = LiveHub(max_steps=10)
    key = "t1/long"
    hub.publish(header(key))
    for first in range(0, 30, 4):
        hub.publish(steps(key, first, 4))
    hub.publish(end(key))
    indices = step_indices(run_async(collect(hub, key)))
    assert indices == list(range(24, 32))  # chunks of 4 go while over 10 steps: two are left
    info = hub.get(key)
    assert info is not None and info.steps == 32


def test_total_bytes_bound_drops_finished_matches_then_trims_the_largest() -> None:
    one = len(json.dumps([{"record": {"i": 0}}], separators=(",", ":")))
    probe = LiveHub()  # a header and an end count in the total too: room for them and 25 steps
    probe.publish(header("t1/live"))
    head = probe.total_bytes
    probe.publish(end("t1/live"))
    hub = LiveHub(max_total_bytes=probe.total_bytes + one * 25)
    assert probe.total_bytes - head > 0
    hub.publish(header("t1/done"))
    for i in range(10):
        hub.publish(steps("t1/done", i, 1))
    hub.publish(end("t1/done"))
    hub.publish(header("t1/live"))
    for i in range(20):
        hub.publish(steps("t1/live", i, 1))
    assert "t1/done" not in hub  # finished matches go first
    for i in range(20, 30):
        hub.publish(steps("t1/live", i, 1))
    hub.publish(end("t1/live"))
    indices = step_indices(run_async(collect(hub, "t1/live")))
    assert indices[-1] == 29 and 20 <= len(indices) <= 25


def test_a_retried_match_ends_the_old_subscription() -> None:
    hub = LiveHub()
    key = "t1/retry"
    hub.publish(header(key))
    hub.publish(steps(key, 0, 3))

    async def main() -> tuple[list[LiveEvent], list[LiveEvent]]:
        old = asyncio.create_task(collect(hub, key))
        await asyncio.sleep(0.05)
        hub.publish(header(key))  # the match starts again (a retry after a worker died)
        first = await old
        hub.publish(steps(key, 0, 2))
        hub.publish(end(key))
        return first, await collect(hub, key)

    first, second = run_async(main())
    assert [e.event for e in first] == ["header", "steps"]  # stopped without an end: the client reconnects
    assert step_indices(second) == [0, 1]


def test_close_ends_every_subscription_and_refuses_new_events() -> None:
    hub = LiveHub()
    hub.publish(header("t1/a"))

    async def main() -> list[LiveEvent]:
        task = asyncio.create_task(collect(hub, "t1/a"))
        await asyncio.sleep(0.05)
        threading.Thread(target=hub.close).start()
        return await task

    assert [e.event for e in run_async(main())] == ["header"]
    hub.publish(header("t1/b"))
    assert len(hub) == 0 and hub.subscribe("t1/b") is None


def test_a_cancelled_subscriber_leaves_no_waiter() -> None:
    hub = LiveHub()
    key = "t1/a"
    hub.publish(header(key))

    async def main() -> None:
        stream = hub.subscribe(key)
        assert stream is not None

        async def read() -> None:
            async for _ in stream:
                pass

        task = asyncio.create_task(read())
        await asyncio.sleep(0.05)
        assert len(hub._matches[key].waiters) == 1
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    run_async(main())
    assert hub._matches[key].waiters == set()
    hub.publish(steps(key, 0, 1))  # waking nobody is fine


def test_bad_bounds_are_rejected() -> None:
    with pytest.raises(ValueError, match="positive"):
        LiveHub(max_steps=0)
