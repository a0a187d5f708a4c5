"""Round trip of one `turn` exchange with a subprocess bot over the generic JSON-lines protocol.

Measures, in microseconds (p50, p99, mean, max), the wall time of `SubprocessBot.send` followed by
`SubprocessBot.receive` for N turn requests (a small GameOfDrones-sized observation as payload):
that is envelope encoding, the write to the bot's stdin, the bot reading, parsing and answering,
the poll/read of its stdout and the parse of the reply. Two bots:

1. a trivial Python bot: a minimal loop reading stdin lines and echoing `{"id": .., "payload": {}}`
   (stdlib json, unbuffered `os.write`; nothing else in the process);
2. the same trivial bot through the kit: `python -m botarena.kit` serving `act(payload) -> {}`.

Target (DESIGN principle 7): p99 <= 200 us with the trivial Python bot.

    .venv/bin/python benchmarks/subprocess_roundtrip.py [--turns 20000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

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

OBSERVATION = {
    "round": 3,
    "rounds": 10,
    "turn": 4,
    "turnLimit": 10,
    "defenderBonus": 1,
    "producers": 3,
    "soldiers": 5,
    "roundWins": 1,
    "roundLosses": 1,
    "roundDraws": 0,
    "previousRound": {
        "outcome": "WIN",
        "turnsPlayed": 6,
        "you": {"producers": 4, "soldiers": 2, "launchedAttack": True},
        "them": {"producers": 1, "soldiers": 0, "launchedAttack": False},
    },
}


def measure(bot: SubprocessBot, turns: int) -> list[float]:
    """Round-trip times in microseconds of `turns` turn exchanges (after a start and a warm-up)."""
    bot.open("bench", 0)
    try:
        bot.send(Request(0, {}, 10_000, MessageType.START), 1, 10.0)
        reply = bot.receive()
        if reply.status is not Status.OK:
            raise SystemExit(f"{bot.name}: start failed: {reply}")
        times: list[float] = []
        clock = time.perf_counter
        request = Request(0, OBSERVATION, 1000, MessageType.TURN, 4)
        warmup = min(1000, turns // 10)
        for request_id in range(2, turns + warmup + 2):
            started = clock()
            bot.send(request, request_id, 1.0)
            reply = bot.receive()
            elapsed = clock() - started
            if reply.status is not Status.OK:
                raise SystemExit(f"{bot.name}: turn {request_id}: {reply}")
            if request_id >= warmup + 2:
                times.append(elapsed * 1e6)
        return times
    finally:
        bot.close()


def report(label: str, times: list[float]) -> None:
    ordered = sorted(times)
    p50 = ordered[len(ordered) // 2]
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    verdict = "meets" if p99 <= 200.0 else "MISSES"
    print(
        f"{label:<34} n={len(ordered):>6}  p50 {p50:7.1f} us  p99 {p99:7.1f} us  "
        f"mean {statistics.fmean(ordered):7.1f} us  max {ordered[-1]:8.1f} us  ({verdict} p99 <= 200 us)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=20_000)
    args = parser.parse_args()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load} "
        f"(p99 is scheduling-bound: read it against the load), {args.turns} turns per bot"
    )
    with tempfile.TemporaryDirectory() as folder:
        trivial = os.path.join(folder, "trivial_bot.py")
        with open(trivial, "w") as handle:
            handle.write(TRIVIAL_BOT)
        kit_bot = os.path.join(folder, "kit_bot.py")
        with open(kit_bot, "w") as handle:
            handle.write(KIT_BOT)
        bots = [
            ("trivial Python bot (stdlib json)", SubprocessBot([sys.executable, trivial], name="trivial")),
            (
                "kit: python -m botarena.kit",
                SubprocessBot([sys.executable, "-m", "botarena.kit", kit_bot], name="kit"),
            ),
        ]
        for label, bot in bots:
            report(label, measure(bot, args.turns))


if __name__ == "__main__":
    main()
