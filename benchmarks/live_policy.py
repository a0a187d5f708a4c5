"""What the spectator policy costs the server (issue 25, item 4): a match's live events published
to a bare public hub, and through a spectator gate that lets it through (`open`), holds it until
its end (`after`) or shows it some steps behind (`delayed`).

For each hidden-information game it plays one match (starter bots, the game's test preset) and
records its live events as the tournament's `LiveStreamer` makes them, one "steps" event per step
(the most events a match can make); then publishes them `--repeat` times into each configuration
and prints the best microseconds per event, the time of the end event (which, held, releases the
whole match into the hub), and the most bytes the gate held, next to the match's replay size.

    .venv/bin/python benchmarks/live_policy.py [--repeat 5] [--delay 30]
"""

from __future__ import annotations

import argparse
import threading
import time
from typing import Any

import orjson

from botarena.bots.resolve import TRUSTED, resolve_bot
from botarena.core.game import Information
from botarena.core.registry import all_games
from botarena.runner.match import run_match
from botarena.server.live import LiveHub
from botarena.server.spectators import LivePolicy, SpectatorGate, SpectatorPolicy
from botarena.tournament.executor import LiveStreamer


def match_events(game: Any) -> tuple[list[dict[str, Any]], int]:
    """One match's live events (a "steps" event per step) and its replay's JSON size."""
    events: list[dict[str, Any]] = []
    players = game.demo.players or max(2, game.min_players)
    names = sorted(game.starter_bots)[:players]
    streamer = LiveStreamer("t1/m", events.append, tournament_id=1, flush_s=0.0)
    out: dict[str, Any] = {}

    def play() -> None:  # (in a thread: in-process bots are preempted by a timer signal for threads)
        bots = [resolve_bot(name, game, isolation=TRUSTED) for name in names]
        config = game.config("default", dict(game.test_overrides))
        observers = {"on_begin": streamer.begin, "on_step": streamer.step}
        out["run"] = run_match(game, bots, config=config, seed=7, **observers)
        streamer.end(out["run"].replay)

    thread = threading.Thread(target=play)
    thread.start()
    thread.join()
    return events, len(orjson.dumps(out["run"].replay.to_json()))


def publish_all(events: list[dict[str, Any]], policy: SpectatorPolicy | None) -> tuple[float, float, int]:
    """(µs per event before the end, ms of the end event, most bytes held) into a fresh hub."""
    hub = LiveHub()
    gate = SpectatorGate(hub, policy) if policy is not None else None
    publish = gate.publish if gate is not None else hub.publish
    held = 0
    started = time.perf_counter()
    for event in events[:-1]:
        publish(event)
        if gate is not None and event["type"] == "steps":
            held = max(held, gate.held_bytes)
    middle = time.perf_counter()
    publish(events[-1])
    ended = time.perf_counter()
    assert hub.get("t1/m") is not None and hub.get("t1/m").finished  # type: ignore[union-attr]
    hub.close()
    return (middle - started) / (len(events) - 1) * 1e6, (ended - middle) * 1e3, held


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--delay", type=int, default=30)
    args = parser.parse_args()
    setups: list[tuple[str, SpectatorPolicy | None]] = [
        ("hub alone", None),
        ("gate, open", SpectatorPolicy.open()),
        ("gate, after", SpectatorPolicy()),
        (f"gate, delayed {args.delay}", SpectatorPolicy(LivePolicy.DELAYED, args.delay)),
    ]
    for game in all_games():
        if game.information is not Information.HIDDEN:
            continue
        events, size = match_events(game)
        steps = sum(len(e["steps"]) for e in events if e["type"] == "steps")
        print(f"{game.id}: {steps} steps, {len(events)} events, replay {size / 1e3:,.0f} kB")
        for name, policy in setups:
            runs = [publish_all(events, policy) for _ in range(args.repeat)]
            per_event = min(r[0] for r in runs)
            end_ms = min(r[1] for r in runs)
            held = max(r[2] for r in runs)
            print(
                f"  {name:<18} {per_event:8.1f} µs/event   end {end_ms:7.2f} ms   held {held / 1e3:8,.0f} kB"
            )


if __name__ == "__main__":
    main()
