"""Devops HTTP host overhead per turn (issue 5, 7b): 20 remote factions x 50 units = 1,020 HTTP calls
per turn to instant local services, for 200 turns. Prints the median and p99 wall time per turn and
the calls that did not come back OK (target: p99 <= 250 ms, zero spurious timeouts).

The services run in `--procs` child processes: a minimal asyncio HTTP/1.1 keep-alive responder,
one port per faction, answering IDLE at once (an aiohttp server itself needs ~0.4 s of this
machine's CPU for 1,020 requests, which would measure the services, not the host). Each turn sends
every faction's batch (a real base input and real unit inputs from a devops engine) through
`DevopsHttpBot` exactly as the runner does: every batch goes out, then all are collected.

    .venv/bin/python benchmarks/devops_http_host.py [--turns 200] [--factions 20] [--units 50]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from typing import Any

from botarena.bots.devops_http import DevopsHttpBot
from botarena.core.protocol import MessageType, Request
from botarena.games.devops import GAME
from botarena.games.devops.engine import DevopsEngine

SERVICE = r"""
import asyncio, sys
REPLY = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 15\r\n"
         b"Connection: keep-alive\r\n\r\n" b'{"type":"IDLE"}')
class Answer(asyncio.Protocol):
    # a minimal keep-alive HTTP/1.1 responder: answers every request (headers + Content-Length body)
    def connection_made(self, transport):
        self.transport, self.buffer = transport, b""
    def data_received(self, data):
        self.buffer += data
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.buffer[:end].lower()
            at = head.find(b"content-length:")
            length = int(head[at + 15:].split(b"\r\n", 1)[0]) if at >= 0 else 0
            if len(self.buffer) < end + 4 + length:
                return
            self.buffer = self.buffer[end + 4 + length:]
            self.transport.write(REPLY)
async def main(count):
    loop = asyncio.get_running_loop()
    servers = [await loop.create_server(Answer, "127.0.0.1", 0, backlog=1024) for _ in range(count)]
    print(" ".join(str(s.sockets[0].getsockname()[1]) for s in servers), flush=True)
    await asyncio.Event().wait()
try:
    import uvloop  # the services' own cost is not what is measured: keep it small where possible
    uvloop.run(main(int(sys.argv[1])))
except ImportError:
    asyncio.run(main(int(sys.argv[1])))
"""


def sample_inputs() -> tuple[Any, Any]:
    config = GAME.config(overrides={"starting_units": ["PIONEER"]})
    engine = DevopsEngine(config, 1, 2)
    requests = engine.next_requests()
    return requests[0].payload, requests[1].payload


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--factions", type=int, default=20)
    parser.add_argument("--units", type=int, default=50)
    parser.add_argument("--procs", type=int, default=1)
    args = parser.parse_args()
    base, unit = sample_inputs()
    n = args.factions
    per = [n // args.procs + (1 if i < n % args.procs else 0) for i in range(args.procs)]
    procs = [
        subprocess.Popen([sys.executable, "-c", SERVICE, str(k)], stdout=subprocess.PIPE, text=True)
        for k in per
    ]
    ports: list[int] = []
    try:
        for proc in procs:
            assert proc.stdout is not None
            ports += [int(p) for p in proc.stdout.readline().split()]
        bots = [DevopsHttpBot(f"http://127.0.0.1:{port}", max_parallel=16) for port in ports]
        for seat, bot in enumerate(bots):
            bot.open("bench", seat)
        times: list[float] = []
        failures: dict[str, int] = {}
        calls = 0
        for turn in range(1, args.turns + 1):
            batches = []
            for seat in range(n):
                chain = (turn, seat)
                # the host only serializes a payload: sharing one object per call kind keeps this loop
                # (not timed, but a deep copy per call costs more CPU than the timed turn) off the cores
                reqs = [Request(seat, base, 1000, MessageType.TURN, turn, chain, 20000)]
                reqs += [
                    Request(seat, unit, 1000, MessageType.TURN, turn, chain, 20000) for _ in range(args.units)
                ]
                batches.append(reqs)
            started = time.perf_counter()
            for bot, reqs in zip(bots, batches, strict=True):
                bot.send_batch(reqs)
            for bot in bots:
                for reply in bot.receive_batch():
                    calls += 1
                    if reply.status.value != "OK":
                        key = f"{reply.status.value}:{reply.reason}"
                        failures[key] = failures.get(key, 0) + 1
            times.append((time.perf_counter() - started) * 1000.0)
        for bot in bots:
            bot.close()
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
    times.sort()
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    print(
        f"{n} factions x {args.units + 1} calls = {n * (args.units + 1)} calls/turn, {args.turns} turns, "
        f"{args.procs} service process(es): median {statistics.median(times):.1f} ms, p99 {p99:.1f} ms, "
        f"max {times[-1]:.1f} ms per turn; {calls} calls, not OK: {failures or 0}"
    )


if __name__ == "__main__":
    main()
