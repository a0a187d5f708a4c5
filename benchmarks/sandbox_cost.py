"""What the bot sandbox costs (botarena.bots.sandbox): process start and round trip, with vs without.

For two bots, each run plain and sealed (bubblewrap + a cgroup with the default SandboxPolicy):

1. a trivial command bot: a minimal Python loop echoing `{"id": .., "payload": {}}` (stdlib only);
2. a Python kit bot: `python -m botarena.kit bot.py` serving `act(payload) -> {}`, as a tournament
   runs an entrant's .py file.

It prints, per bot and mode, the process start (from `open`, which spawns, to the reply of the
`start` request, so interpreter start and the cgroup's creation are in it) as p50/p99 over
`--starts` processes, the `open`+`close` cost of the sandbox's cgroup alone, the p50/p99 of a
`turn` round trip over `--turns` exchanges with one process, and what the up-front probe
(`check_sandbox`, cached per process and policy) costs cold, over `--probes` runs.

    .venv/bin/python benchmarks/sandbox_cost.py [--starts 30] [--turns 5000] [--probes 5]

It runs on older versions of botarena as well (`PYTHONPATH=<other checkout>/src`), to compare.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial

from botarena.bots import sandbox
from botarena.bots.sandbox import Cgroup, SandboxPolicy, check_sandbox
from botarena.bots.subprocess import SubprocessBot
from botarena.core.protocol import MessageType, Request
from botarena.core.status import Status

TRIVIAL_BOT = """\
import json, os, sys
readline = sys.stdin.buffer.readline
while line := readline():
    os.write(1, b'{"id":%d,"payload":{}}\\n' % json.loads(line)["id"])
"""

KIT_BOT = """\
def act(payload):
    return {}
"""

OBSERVATION = {"round": 3, "turn": 4, "producers": 3, "soldiers": 5, "roundWins": 1, "roundLosses": 1}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def start_times(make: Callable[[], SubprocessBot], starts: int) -> list[float]:
    """Milliseconds from `open` (spawn) to the start reply, one fresh process each."""
    times = []
    for _ in range(starts):
        bot = make()
        began = time.perf_counter()
        bot.open("bench", 0)
        try:
            bot.send(Request(0, {}, 30_000, MessageType.START), 1, 30.0)
            reply = bot.receive()
            times.append((time.perf_counter() - began) * 1000.0)
            if reply.status is not Status.OK:
                raise SystemExit(f"{bot.name}: start failed: {reply} {bot.close().text}")
        finally:
            bot.close()
    return times


def round_trips(bot: SubprocessBot, turns: int) -> list[float]:
    """Microseconds per turn exchange with one process (after a start and a warm-up)."""
    bot.open("bench", 0)
    try:
        bot.send(Request(0, {}, 30_000, MessageType.START), 1, 30.0)
        if bot.receive().status is not Status.OK:
            raise SystemExit(f"{bot.name}: start failed: {bot.close().text}")
        request = Request(0, OBSERVATION, 1000, MessageType.TURN, 4)
        warmup = min(500, turns // 10)
        times = []
        clock = time.perf_counter
        for request_id in range(2, turns + warmup + 2):
            began = clock()
            bot.send(request, request_id, 1.0)
            reply = bot.receive()
            elapsed = clock() - began
            if reply.status is not Status.OK:
                raise SystemExit(f"{bot.name}: turn {request_id}: {reply}")
            if request_id >= warmup + 2:
                times.append(elapsed * 1e6)
        return times
    finally:
        bot.close()


def cgroup_cost(policy: SandboxPolicy, count: int) -> list[float]:
    """Milliseconds to create a bot cgroup with its limits, and kill/remove it (empty)."""
    times = []
    for _ in range(count):
        began = time.perf_counter()
        group = Cgroup.create(policy)
        group.kill()
        group.remove()
        times.append((time.perf_counter() - began) * 1000.0)
    return times


def probe_cost(policy: SandboxPolicy, count: int) -> list[float]:
    """Milliseconds of one cold `check_sandbox` (its cache cleared first)."""
    times = []
    for _ in range(count):
        sandbox.reset_cache()
        began = time.perf_counter()
        check_sandbox(policy)
        times.append((time.perf_counter() - began) * 1000.0)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--starts", type=int, default=30)
    parser.add_argument("--turns", type=int, default=5000)
    parser.add_argument("--probes", type=int, default=5)
    args = parser.parse_args()
    check_sandbox()
    policy = SandboxPolicy()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load}; "
        f"{args.starts} starts and {args.turns} turns per row; sandbox = bwrap + cgroup, {policy}"
    )
    groups = cgroup_cost(policy, args.starts)
    print(
        f"cgroup create + limits + kill + remove alone: p50 {percentile(groups, 0.5):.2f} ms, "
        f"p99 {percentile(groups, 0.99):.2f} ms"
    )
    probes = probe_cost(policy, args.probes)
    print(
        f"check_sandbox (the probe), cold: p50 {percentile(probes, 0.5):.0f} ms, "
        f"max {max(probes):.0f} ms over {args.probes}"
    )
    with tempfile.TemporaryDirectory() as folder:
        trivial = os.path.join(folder, "trivial", "bot.py")
        kit = os.path.join(folder, "kit", "bot.py")
        for path, source in ((trivial, TRIVIAL_BOT), (kit, KIT_BOT)):
            os.makedirs(os.path.dirname(path))
            with open(path, "w") as handle:
                handle.write(source)
        argvs = {
            "trivial command bot": [sys.executable, trivial],
            "python kit bot": [sys.executable, "-m", "botarena.kit", kit],
        }
        print(f"{'bot':<22}{'sandbox':<9}{'start p50':>11}{'start p99':>11}{'rtt p50':>11}{'rtt p99':>11}")
        for label, argv in argvs.items():
            for sealed in (False, True):
                sandbox = policy if sealed else None
                make = partial(SubprocessBot, argv, name="bench", sandbox=sandbox, bot_files=[argv[-1]])

                starts = start_times(make, args.starts)
                rtts = round_trips(make(), args.turns)
                print(
                    f"{label:<22}{'on' if sealed else 'off':<9}"
                    f"{percentile(starts, 0.5):>8.1f} ms{percentile(starts, 0.99):>8.1f} ms"
                    f"{percentile(rtts, 0.5):>8.1f} us{percentile(rtts, 0.99):>8.1f} us"
                )


if __name__ == "__main__":
    main()
