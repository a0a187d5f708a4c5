"""What hostile clients cost the organizer's server (issue 25, item 5): figures for the attacks that
`tests/server/test_servers_under_attack.py` asserts bounds on.

Runs `botarena.server.app.serve` (what `botarena serve --live-token` runs) in a subprocess whose
open-file limit is 1024, and prints, for each attack, what the server holds and how it answers:

1. slowloris: `--slow` connections held open (half silent, half stopped mid-head): the time
   /api/health takes meanwhile, the server's open files, how many connections it closed at once
   (over its bound) and how long until the header timeout closed the rest;
2. readers that never read: `--readers` clients subscribed to a live match with a 4 KiB receive
   window while `--mib` MiB of steps stream: the server's memory before and at its peak, and how
   long until it had dropped them all (a send timeout after their queues filled);
3. a live-token holder posting `--headers` match headers of `--header-mib` MiB, every fourth one
   over the hub's 4 MiB header cap: the server's memory before and after, what the hub took and
   refused (and why), and how many matches it still holds within its 256 MiB bound.

    .venv/bin/python benchmarks/slow_clients.py [--slow 1100] [--readers 150] [--mib 20]
                                                [--headers 128] [--header-mib 3.5]

The server's timeouts are shortened (header 3 s, send 1 s) so that the run takes seconds; its live
hub keeps its defaults (256 MiB in all, 4 MiB per header). The matches are of a full-information
game (rps), which the server's spectator gate passes straight to its public hub.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TOKEN = "benchmark-live-token-0123456789"
SERVER = """
import sys
from botarena.server.app import serve
from botarena.store import Store

store = Store.open(sys.argv[1], replay_dir=sys.argv[2])
serve(store, port=0, live_token=sys.argv[3], on_ready=lambda url: print(url, flush=True))
"""
TCP_CLOSE, TCP_CLOSE_WAIT = 7, 8


class Server:
    def __init__(self, root: Path) -> None:
        env = {**os.environ, "BOTARENA_HTTP_HEADER_TIMEOUT_S": "3", "BOTARENA_HTTP_SEND_TIMEOUT_S": "1"}
        self.process = subprocess.Popen(
            [sys.executable, "-c", SERVER, f"sqlite:///{root / 'a.db'}", str(root / "replays"), TOKEN],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024)),
        )
        assert self.process.stdout is not None
        found = re.search(r":(\d+)/", self.process.stdout.readline())
        assert found is not None, "the server did not start"
        self.port = int(found.group(1))

    def rss_mib(self) -> float:
        found = re.search(r"VmRSS:\s+(\d+) kB", Path(f"/proc/{self.process.pid}/status").read_text())
        return int(found.group(1)) / 1024 if found else 0.0

    def files(self) -> int:
        return len(os.listdir(f"/proc/{self.process.pid}/fd"))

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any, float]:
        started = time.perf_counter()
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            data = json.dumps(body).encode() if body is not None else None
            conn.request(method, path, body=data, headers={"Authorization": f"Bearer {TOKEN}"})
            reply = conn.getresponse()
            raw = reply.read()
            return reply.status, json.loads(raw) if raw else None, time.perf_counter() - started
        finally:
            conn.close()


def gone(conn: socket.socket) -> bool:
    return conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0] in (TCP_CLOSE, TCP_CLOSE_WAIT)


def wait_gone(conns: list[socket.socket], limit_s: float = 60.0) -> float:
    started = time.monotonic()
    while not all(gone(c) for c in conns) and time.monotonic() - started < limit_s:
        time.sleep(0.02)
    return time.monotonic() - started


def slowloris(server: Server, count: int) -> None:
    held = []
    for i in range(count):
        conn = socket.create_connection(("127.0.0.1", server.port), timeout=30)
        if i % 2:
            conn.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\n")
        held.append(conn)
    status, _, took = server.call("GET", "/api/health")
    closed_at_once = sum(gone(c) for c in held)
    print(
        f"slowloris, {count} connections held: health {status} in {took * 1000:.1f} ms; the server holds"
        f" {server.files()} open files (limit 1024); {closed_at_once} closed at once over its bound"
    )
    rest = wait_gone(held)
    print(f"  the rest closed by the 3 s header timeout within {rest:.1f} s")
    for conn in held:
        conn.close()


def never_reading(server: Server, readers: int, mib: int) -> None:
    key = "t1/watched"
    server.call("POST", "/api/live/ingest", [{"type": "header", "key": key, "replay": {"game": "rps"}}])
    before = peak = server.rss_mib()
    hostile = []
    for _ in range(readers):
        conn = socket.socket()
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        conn.connect(("127.0.0.1", server.port))
        conn.sendall(f"GET /api/live/{key}/events HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        hostile.append(conn)
    started = time.monotonic()
    pad = "y" * 1000
    for batch in range(mib):
        steps = [{"i": batch * 1000 + i, "pad": pad} for i in range(1000)]
        server.call(
            "POST", "/api/live/ingest", [{"type": "steps", "key": key, "first": batch * 1000, "steps": steps}]
        )
        peak = max(peak, server.rss_mib())
    status, _, took = server.call("GET", "/api/health")
    dropped_after = wait_gone(hostile) + (time.monotonic() - started)
    print(
        f"{readers} readers that never read, {mib} MiB streamed: the server's memory {before:.0f} MiB,"
        f" peak {peak:.0f} MiB (+{peak - before:.0f}); health {status} in {took * 1000:.1f} ms;"
        f" all dropped {dropped_after:.1f} s after the stream began"
    )
    for conn in hostile:
        conn.close()


def header_flood(server: Server, headers: int, header_mib: float) -> None:
    before = server.rss_mib()
    refused = accepted = 0
    reasons: set[str] = set()
    for n in range(headers):  # one header a request; every fourth over the hub's 4 MiB header cap
        size = int((4.5 if n % 4 == 3 else header_mib) * (1 << 20))
        event = {"type": "header", "key": f"t2/flood-{n}", "replay": {"game": "rps", "pad": "x" * size}}
        _, answer, _ = server.call("POST", "/api/live/ingest", [event])
        accepted += answer["accepted"]
        refused += answer.get("refused", 0)
        reasons.update(re.sub(r"'.*?'|\d+", "N", r) for r in answer.get("refusals", []))
    _, listing, _ = server.call("GET", "/api/live")
    print(
        f"{headers} headers of {header_mib:g} MiB (every fourth 4.5 MiB) from a token holder: the server's"
        f" memory {before:.0f} MiB, then {server.rss_mib():.0f} MiB; {accepted} taken, {refused} refused,"
        f" {len(listing)} held ({'; '.join(sorted(reasons)) or 'no reason given'})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slow", type=int, default=1100)
    parser.add_argument("--readers", type=int, default=150)
    parser.add_argument("--mib", type=int, default=20)
    parser.add_argument("--headers", type=int, default=128)
    parser.add_argument("--header-mib", type=float, default=3.5)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, args.slow + 400)), hard))
    with tempfile.TemporaryDirectory(prefix="botarena-slow-clients-") as root:
        server = Server(Path(root))
        try:
            slowloris(server, args.slow)
            never_reading(server, args.readers, args.mib)
            header_flood(server, args.headers, args.header_mib)
        finally:
            server.process.terminate()
            server.process.wait(30)


if __name__ == "__main__":
    main()
