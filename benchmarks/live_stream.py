"""What streaming a match live to a server costs the match (issue 18, item 3).

Plays the same default drones match (starter bots, in-process, through `play_task`) with its live
events going nowhere, to a list, to a server's `POST /api/live/ingest` through `HttpLiveSink`, and
to a server that is down; prints the best ms per match of each and the sink's counts. Then posts a
long match's steps in batches straight to the ingest route and prints events/s and MB/s.

    .venv/bin/python benchmarks/live_stream.py [--matches 20] [--batches 200]
"""

from __future__ import annotations

import argparse
import socket
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import orjson

from botarena.server.app import create_app
from botarena.server.live import LiveHub
from botarena.server.viewer import bind_socket
from botarena.store import Store
from botarena.tournament.executor import MatchTask, play_task
from botarena.tournament.live_http import HttpLiveSink

TOKEN = "benchmark-live-token-0123456789"


def task(i: int) -> MatchTask:
    return MatchTask(
        tournament_id=1,
        key=f"m{i:04d}",
        game="drones",
        preset="default",
        overrides={},
        seed=i,
        seats=("zergy", "adaptive"),
        specs=("zergy", "adaptive"),
    )


def per_match_ms(sink: Any, matches: int) -> float:
    best = float("inf")
    for i in range(matches):
        started = time.perf_counter()
        play_task(task(i), sink)
        best = min(best, time.perf_counter() - started)
    return best * 1000


def start_server(store: Store) -> tuple[Any, str]:
    import uvicorn

    sock = bind_socket("127.0.0.1", 0)
    server = uvicorn.Server(
        uvicorn.Config(create_app(store, LiveHub(), live_token=TOKEN), log_level="warning")
    )
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    return server, f"http://127.0.0.1:{sock.getsockname()[1]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--batches", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        store = Store.open(f"sqlite:///{Path(folder) / 'b.db'}", replay_dir=Path(folder) / "replays")
        server, url = start_server(store)
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            down = f"http://127.0.0.1:{sock.getsockname()[1]}"
        events: list[Any] = []
        live = HttpLiveSink(url, TOKEN)
        dead = HttpLiveSink(down, TOKEN)
        print(f"default drones match, zergy vs adaptive, best of {args.matches} (ms per match):")
        for name, sink in (("no live sink", None), ("a list", events.append), ("HttpLiveSink", live),
                           ("HttpLiveSink, server down", dead)):  # fmt: skip
            print(f"  {name:<28} {per_match_ms(sink, args.matches):8.2f}")
        live.flush(30)
        dead.flush(30)
        print(f"  HttpLiveSink stats:          {live.stats()}")
        print(f"  HttpLiveSink (down) stats:   {dead.stats()}")

        # ingest throughput: steps batches of a long match, posted back to back by one sink
        steps = [s for e in events if e["type"] == "steps" for s in e["steps"]][:10]
        header = next(e for e in events if e["type"] == "header")
        sink = HttpLiveSink(url, TOKEN, max_queue=args.batches + 10)
        sink({**header, "key": "t1/long"})
        size = 0
        started = time.perf_counter()
        for b in range(args.batches):
            event = {"type": "steps", "key": "t1/long", "first": b * len(steps), "steps": steps}
            size += len(orjson.dumps(event))
            sink(event)
        sink.flush(120)
        seconds = time.perf_counter() - started
        stats = sink.stats()
        print(
            f"ingest: {stats['sent']} events of {len(steps)} steps in {stats['requests']} requests,"
            f" {stats['sent'] / seconds:,.0f} events/s, {size / seconds / 1e6:.1f} MB/s,"
            f" dropped {stats['dropped']}"
        )
        for s in (live, dead, sink):
            s.close()
        server.should_exit = True
        store.close()


if __name__ == "__main__":
    main()
