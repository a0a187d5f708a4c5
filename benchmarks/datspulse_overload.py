"""DatsPulse server under overload within the rate limit (issue 12, item 6): 40 honest teams and 10
heavy ones on 2-second turns. An honest team polls `/api/arena` and posts `/api/move` (one-step paths
for its ants) at its 3 requests per second; a heavy team posts, at the same rate, the largest move
body the server's limits allow: as many commands as a request may hold (`unit_limit`, its own
ants' ids), each with a path as long as allowed (the fastest speed + 3, adjacent hexes), padded with
an unknown key up to the body limit (64 KiB).

Goal: honest teams keep p99 <= 50 ms and transitions stay within 100 ms of their scheduled instants.

The server is the real command (`botarena datspulse serve`) in a subprocess on 127.0.0.1 with a
temporary config file and SQLite store; the teams are aiohttp clients in this process. Bounded: the
measurement lasts `--duration` seconds of the running round, the whole run at most that plus 90 s.
Prints the honest teams' p50/p99 latency (all requests and per endpoint), the heavy teams' replies by
status, and every transition's lateness (max, p99) from the server's `/api/datspulse/series`.

    .venv/bin/python benchmarks/datspulse_overload.py [--duration 40] [--honest 40] [--heavy 10]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import math
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import defaultdict
from pathlib import Path
from typing import Any

import aiohttp
import orjson

from botarena.games.datspulse.config import datspulse_config
from botarena.games.datspulse.hexgrid import neighbours
from botarena.server.datspulse.wire import MoveLimits

# The server's start-up and the percentile are the plain benchmark's (this folder is on sys.path
# when a script in it runs).
from datspulse_server import LOBBY_SECONDS, percentile, start_server, write_config


def heavy_body(view: dict[str, Any], limits: MoveLimits) -> bytes:
    """The largest move body the limits allow, built from the team's own ants."""
    ants = [a for a in view["ants"] if a["health"] > 0] or view["ants"]
    moves = []
    for index in range(limits.commands):
        ant = ants[index % len(ants)] if ants else {"id": "x", "q": 0, "r": 0}
        q, r = ant["q"], ant["r"]
        path = []
        for _ in range(limits.path):  # a walk of adjacent hexes, every element checked
            q, r = neighbours(q, r)[index % 6]
            path.append({"q": q, "r": r})
        moves.append({"ant": ant["id"], "path": path})
    body = orjson.dumps({"moves": moves})
    room = limits.body_bytes - len(body) - 16
    if room > 0:  # the rest of the allowance: an unknown key (§5: ignored, but parsed)
        pad = orjson.dumps(list(range(room // 6)))[:room]
        pad = pad[: pad.rfind(b",")] + b"]" if len(pad) >= room else pad
        body = body[:-1] + b',"pad":' + pad + b"}"
    body += b" " * (limits.body_bytes - len(body))  # (trailing whitespace: still JSON)
    assert len(body) <= limits.body_bytes, len(body)
    return body


class Load:
    def __init__(self, api: str, honest: int, heavy: int, duration: float, limits: MoveLimits) -> None:
        self.api = api
        self.honest = honest
        self.heavy = heavy
        self.duration = duration
        self.limits = limits
        self.latency: dict[str, list[float]] = defaultdict(list)  # honest teams only
        self.honest_status: dict[int, int] = defaultdict(int)
        self.heavy_status: dict[int, int] = defaultdict(int)
        self.heavy_bytes = 0
        self.started = asyncio.Event()
        self.stop_at = math.inf

    async def request(
        self,
        session: aiohttp.ClientSession,
        token: str,
        method: str,
        path: str,
        data: bytes | None,
        heavy: bool,
    ) -> tuple[int, Any]:
        measured = self.started.is_set()
        began = time.perf_counter()
        async with session.request(
            method, self.api + path, headers={"X-Auth-Token": token}, data=data
        ) as reply:
            raw = await reply.read()
        elapsed = time.perf_counter() - began
        if measured:
            if heavy:
                self.heavy_status[reply.status] += 1
            else:
                self.latency[path].append(elapsed)
                self.honest_status[reply.status] += 1
        return reply.status, orjson.loads(raw) if raw else None

    def _begin(self, view: Any) -> None:
        if view and view.get("home") and not self.started.is_set():
            self.started.set()
            self.stop_at = time.monotonic() + self.duration

    async def team(self, session: aiohttp.ClientSession, index: int, heavy: bool) -> None:
        token = f"bench-token-{index:02d}"
        rng = random.Random(index)
        await self.request(session, token, "POST", "/register", None, heavy)
        await asyncio.sleep(rng.random() * 0.33)  # spread the teams over the second
        view: Any = None
        body = b""
        built_for: tuple[Any, ...] | None = None
        while time.monotonic() < self.stop_at:
            status, view = await self.request(session, token, "GET", "/arena", None, heavy)
            self._begin(view if status == 200 else None)
            await asyncio.sleep(1 / 3)
            if status != 200 or not view["home"]:
                continue
            if heavy:  # (built again only when the team's ants change: the clients share the machine)
                ants = tuple((a["id"], a["q"], a["r"], a["health"] > 0) for a in view["ants"])
                if ants != built_for:
                    body, built_for = heavy_body(view, self.limits), ants
                self.heavy_bytes = max(self.heavy_bytes, len(body))
                for _ in range(2):  # two heavy moves for every arena: 3 requests per second
                    await self.request(session, token, "POST", "/move", body, heavy)
                    await asyncio.sleep(1 / 3)
                continue
            tiles = {(t["q"], t["r"]) for t in view["map"] if t["type"] != 5}
            moves = []
            for ant in view["ants"]:
                steps = [h for h in neighbours(ant["q"], ant["r"]) if h in tiles]
                if ant["health"] > 0 and steps:
                    q, r = rng.choice(steps)
                    moves.append({"ant": ant["id"], "path": [{"q": q, "r": r}]})
            await self.request(session, token, "POST", "/move", orjson.dumps({"moves": moves}), heavy)
            await asyncio.sleep(1 / 3)

    async def run(self) -> None:
        # The client's own pauses count in every latency it measures: its heap (aiohttp, botarena,
        # numpy) is frozen once, so the collector's full passes (30+ ms on a loaded 2-core machine)
        # scan only what the run itself allocates.
        gc.collect()
        gc.freeze()
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=connector, trust_env=False) as session:
            teams = [self.team(session, i, i >= self.honest) for i in range(self.honest + self.heavy)]
            await asyncio.gather(*teams)


def series_status(api: str) -> Any:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(api + "/datspulse/series", timeout=10) as reply:
        return orjson.loads(reply.read())


def report(args: Any, load: Load, series: Any, code: int) -> None:
    print(
        f"DatsPulse overload: {args.honest} honest + {args.heavy} heavy teams, {args.turn_seconds} s turns, "
        f"{args.duration:.0f} s measured; heavy body {load.heavy_bytes} bytes, "
        f"{load.limits.commands} commands x {load.limits.path} hexes"
    )
    every = [v for values in load.latency.values() for v in values]
    if every:
        print(
            f"  honest, all requests: {len(every)}  p50 {percentile(every, 50) * 1000:.2f} ms"
            f"  p99 {percentile(every, 99) * 1000:.2f} ms  max {max(every) * 1000:.2f} ms"
            "  (goal p99 <= 50 ms)"
        )
    for path in ("/arena", "/move"):
        values = load.latency.get(path)
        if values:
            print(
                f"  honest {path:<7} {len(values):>6}  p50 {percentile(values, 50) * 1000:7.2f} ms"
                f"  p99 {percentile(values, 99) * 1000:7.2f} ms"
            )
    print(f"  honest replies by status: {dict(sorted(load.honest_status.items()))}")
    print(f"  heavy replies by status:  {dict(sorted(load.heavy_status.items()))}")
    timing = ((series or {}).get("current") or {}).get("transitions") or {}
    lags = timing.get("lagsMs") or []
    if lags:
        print(
            f"  transitions: {len(lags)}  lateness: max {max(lags):.2f} ms  p99 {percentile(lags, 99):.2f} ms"
            f"  (goal <= 100 ms; longest transition {timing.get('durationMaxMs')} ms)"
        )
    requests = (series or {}).get("requests") or {}
    print(f"  server counters: {requests}")
    print(f"  server exit code after Ctrl-C: {code}")
    load_avg = os.getloadavg()
    print(f"  machine load average (1, 5, 15 min): {load_avg[0]:.1f} {load_avg[1]:.1f} {load_avg[2]:.1f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=40.0, help="seconds of running round to measure")
    parser.add_argument("--honest", type=int, default=40)
    parser.add_argument("--heavy", type=int, default=10)
    parser.add_argument("--turn-seconds", type=float, default=2.0)
    args = parser.parse_args()
    limits = MoveLimits.from_config(datspulse_config("test", {}))
    teams = args.honest + args.heavy
    with tempfile.TemporaryDirectory() as folder:
        config = write_config(Path(folder), teams, args.turn_seconds, args.duration)
        server, api = start_server(config, Path(folder) / "bench.db")
        load = Load(api, args.honest, args.heavy, args.duration, limits)
        series: Any = None
        try:
            asyncio.run(asyncio.wait_for(load.run(), timeout=args.duration + LOBBY_SECONDS + 90))
            series = series_status(api)
        finally:
            server.send_signal(signal.SIGINT)
            try:
                code = server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                code = -9
        report(args, load, series, code)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
