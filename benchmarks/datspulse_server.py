"""DatsPulse real-time server under load (issue 6): 50 teams on 2-second turns, each polling
`/api/arena` and posting `/api/move` (real one-step paths for its ants) at its 3 requests per second.

The server is the real command (`botarena datspulse serve`) in a subprocess on 127.0.0.1, with a
temporary config file and SQLite store; the teams are aiohttp clients in this process. The load runs
for `--duration` seconds of the running round (the lobby before it is not measured). Prints p50/p99
latency per endpoint (target p99 <= 50 ms), the count of 5xx replies (target 0) and of 429s, every
transition's lag behind its scheduled instant (max, p99, from the server's /api/datspulse/series), and
the server's resident memory (at start, peak). Bounded in time; stops the server with Ctrl-C (SIGINT)
and reports its exit code.

    .venv/bin/python benchmarks/datspulse_server.py [--duration 60] [--teams 50] [--turn-seconds 2.0]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import aiohttp
import orjson

from botarena.games.datspulse.hexgrid import neighbours

LOBBY_SECONDS = 4.0


def write_config(folder: Path, teams: int, turn_seconds: float, duration: float) -> Path:
    turns = math.ceil(duration / turn_seconds) + 10  # the round outlasts the measurement
    lines = [
        'preset = "test"',
        "seed = 1",
        "[game]",
        f"turns = {turns}",
        f"turn_seconds = {turn_seconds}",
        f"lobby_seconds = {LOBBY_SECONDS}",
        "break_seconds = 60",
        "max_teams = 100",
    ]
    for i in range(teams):
        lines += ["[[teams]]", f'name = "team-{i:02d}"', f'token = "bench-token-{i:02d}"']
    path = folder / "server.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def rss_mib(pid: int) -> float:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return math.nan
    found = re.search(r"VmRSS:\s+(\d+) kB", text)
    return int(found.group(1)) / 1024 if found else math.nan


def start_server(config: Path, db: Path) -> tuple[subprocess.Popen[str], str]:
    command = [sys.executable, "-m", "botarena", "datspulse", "serve", "--config", str(config)]
    command += ["--port", "0", "--db", f"sqlite:///{db}"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert server.stdout is not None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = server.stdout.readline()
        if not line:
            break
        if line.startswith("API:"):
            return server, line.split()[-1]
    server.kill()
    raise SystemExit(f"the server did not start: {server.stderr.read() if server.stderr else ''}")


class Load:
    def __init__(self, api: str, teams: int, duration: float) -> None:
        self.api = api
        self.teams = teams
        self.duration = duration
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.statuses: dict[int, int] = defaultdict(int)
        self.started = asyncio.Event()
        self.stop_at = math.inf
        self.unmeasured_max = 0.0  # the lobby and the round's start (map generation) are not measured

    async def request(
        self, session: aiohttp.ClientSession, token: str, method: str, path: str, body: Any = None
    ) -> tuple[int, Any]:
        measured = self.started.is_set()  # only requests sent once the round runs
        began = time.perf_counter()
        async with session.request(
            method,
            self.api + path,
            headers={"X-Auth-Token": token},
            data=None if body is None else orjson.dumps(body),
        ) as response:
            raw = await response.read()
        elapsed = time.perf_counter() - began
        if measured:
            self.latency[path].append(elapsed)
            self.statuses[response.status] += 1
        else:
            self.unmeasured_max = max(self.unmeasured_max, elapsed)
        return response.status, orjson.loads(raw) if raw else None

    async def team(self, session: aiohttp.ClientSession, index: int) -> None:
        token = f"bench-token-{index:02d}"
        rng = random.Random(index)
        await self.request(session, token, "POST", "/register")
        await asyncio.sleep(rng.random() * 0.33)  # spread the teams over the second
        view: Any = None
        while time.monotonic() < self.stop_at:
            status, view = await self.request(session, token, "GET", "/arena")
            if status == 200 and view["home"] and not self.started.is_set():
                self.started.set()
                self.stop_at = time.monotonic() + self.duration
            await asyncio.sleep(1 / 3)
            if status == 200 and view["home"]:
                tiles = {(t["q"], t["r"]) for t in view["map"] if t["type"] != 5}
                moves = []
                for ant in view["ants"]:
                    steps = [h for h in neighbours(ant["q"], ant["r"]) if h in tiles]
                    if ant["health"] > 0 and steps:
                        q, r = rng.choice(steps)
                        moves.append({"ant": ant["id"], "path": [{"q": q, "r": r}]})
                await self.request(session, token, "POST", "/move", {"moves": moves})
                await asyncio.sleep(1 / 3)

    async def run(self) -> None:
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=connector, trust_env=False) as session:
            await asyncio.gather(*(self.team(session, i) for i in range(self.teams)))


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]


def report(
    args: Any, load: Load, series: Any, wall_s: float, rss_start: float, peak: list[float], code: int
) -> None:
    teams, turn_s = args.teams, args.turn_seconds
    print(
        f"DatsPulse server: {teams} teams, {turn_s} s turns, "
        f"{args.duration:.0f} s measured ({wall_s:.0f} s in all)"
    )
    for path in ("/arena", "/move", "/register"):
        values = load.latency.get(path)
        if values:
            p50, p99 = percentile(values, 50) * 1000, percentile(values, 99) * 1000
            worst = max(values) * 1000
            print(
                f"  {path:<10} {len(values):>6} requests  p50 {p50:7.2f} ms"
                f"  p99 {p99:7.2f} ms  max {worst:7.2f} ms"
            )
    print(
        f"  (not measured: the lobby and the round's start; slowest reply there {load.unmeasured_max:.2f} s)"
    )
    five = sum(n for status, n in load.statuses.items() if status >= 500)
    by_status = dict(sorted(load.statuses.items()))
    print(f"  replies by status: {by_status}  5xx: {five}  429: {load.statuses.get(429, 0)}")
    current = (series or {}).get("current") or {}
    timing = current.get("transitions") or {}
    lags = timing.get("lagsMs") or []
    if lags:
        print(
            f"  transitions: {len(lags)}  lag behind schedule: max {max(lags):.2f} ms"
            f"  p99 {percentile(lags, 99):.2f} ms  median {percentile(lags, 50):.2f} ms"
            f"  (longest transition {timing.get('durationMaxMs')} ms)"
        )
        durations = timing.get("durationsMs") or []
        if durations:
            print(
                f"  transition duration (under the game lock): median {percentile(durations, 50):.2f} ms"
                f"  p99 {percentile(durations, 99):.2f} ms"
            )
    print(f"  server RSS: start {rss_start:.1f} MiB, peak {max(p for p in peak if p == p):.1f} MiB")
    print(f"  server exit code after Ctrl-C: {code}")
    load_avg = os.getloadavg()
    print(f"  machine load average (1, 5, 15 min): {load_avg[0]:.1f} {load_avg[1]:.1f} {load_avg[2]:.1f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of running round to measure")
    parser.add_argument("--teams", type=int, default=50)
    parser.add_argument("--turn-seconds", type=float, default=2.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        config = write_config(Path(folder), args.teams, args.turn_seconds, args.duration)
        server, api = start_server(config, Path(folder) / "bench.db")
        rss_start = rss_mib(server.pid)
        peak = [rss_start]
        load = Load(api, args.teams, args.duration)

        async def watch_memory() -> None:
            while server.poll() is None:
                peak.append(rss_mib(server.pid))
                await asyncio.sleep(0.5)

        async def both() -> None:
            watcher = asyncio.create_task(watch_memory())
            try:
                await asyncio.wait_for(load.run(), timeout=args.duration + LOBBY_SECONDS + 60)
            finally:
                watcher.cancel()

        began = time.monotonic()
        try:
            asyncio.run(both())
            with aiohttp_get(api + "/datspulse/series") as status:
                series = status
        finally:
            server.send_signal(signal.SIGINT)
            try:
                code = server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                code = -9
        report(args, load, series, time.monotonic() - began, rss_start, peak, code)
    return 0


class aiohttp_get:
    """A tiny synchronous GET of a JSON document (the organiser's status), via urllib."""

    def __init__(self, url: str) -> None:
        self.url = url

    def __enter__(self) -> Any:
        import urllib.request

        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(self.url, timeout=10) as response:
            return orjson.loads(response.read())

    def __exit__(self, *exc: object) -> None:
        return None


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
