"""The Node adapter for 2018 GameOfDrones bots: matches/s and turns/s (spec 7.3).

1. Matches/s: full `run_match` calls with both seats played by JavaScript kit bots through the
   adapter (`node_bot`), default config (10 rounds of 10 turns), replays recorded. Every match starts
   two fresh node processes, so process start and module loading are included: that is what a
   tournament of JavaScript bots pays.
2. Turns/s through the runner: one long match (`--rounds`, default 2000) between two JS bots, where
   the process start is amortised; a turn is one step, i.e. one request to each of the two bots.
3. Turns/s of the adapter alone: one adapter process fed `--lines` turn requests on a pipe at once,
   timed from the first write to the last reply (no runner, no engine): the adapter's own cost per
   request (JSON parse, hooks, normalisation, JSON stringify, one write).

    .venv/bin/python benchmarks/node_adapter.py [--matches 20] [--rounds 2000] [--lines 200000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from botarena.bots.node import check_node, find_adapter, node_bot, node_version
from botarena.core.registry import get_game
from botarena.runner import run_match

BOTS = Path(__file__).resolve().parents[1] / "kits" / "drones-js" / "bots"
PAIRINGS = [("zergy.js", "pacifist.js"), ("randomonium.js", "adaptive-defender.js")]


def bench_matches(pair: tuple[str, str], matches: int, rounds: int | None = None) -> tuple[int, float]:
    """(turns, elapsed) of `matches` full matches between two JS bots."""
    game = get_game("drones")
    config = game.config("default", None if rounds is None else {"rounds": rounds})
    bots = [node_bot(BOTS / name) for name in pair]
    turns = 0
    started = time.perf_counter()
    for seed in range(matches):
        run = run_match(game, bots, config=config, seed=seed)
        start = run.replay.start["verdicts"]
        if any(verdict[0] != "OK" for verdict in start):
            sys.exit(f"a bot did not start: {start}")
        turns += len(run.replay.steps)
    return turns, time.perf_counter() - started


def bench_adapter(lines: int) -> tuple[int, float]:
    """(replies, elapsed) of one adapter process answering `lines` turn requests."""
    node = check_node()
    start = {"type": "start", "id": 0, "payload": {"rules": "seed", "rounds": 1, "drawAllowed": True,
                                                    "playerSeed": 7, "bot_seed": 7}}  # fmt: skip
    requests = [json.dumps(start)]
    for i in range(1, lines + 1):
        turn = 1 + (i - 1) % 10
        payload = {"round": 1 + (i - 1) // 10, "rounds": lines // 10, "turn": turn, "turnLimit": 10,
                   "defenderBonus": 1, "producers": turn, "soldiers": 0, "roundWins": 0, "roundLosses": 0,
                   "roundDraws": 0, "previousRound": None}  # fmt: skip
        envelope = {"type": "turn", "id": i, "match": "bench", "seat": 0, "turn": turn, "deadline_ms": 1000,
                    "payload": payload}  # fmt: skip
        requests.append(json.dumps(envelope))
    data = ("\n".join(requests) + "\n").encode()
    proc = subprocess.Popen(
        [node, str(find_adapter()), str(BOTS / "randomonium.js")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    # Wait for the start reply, so process start and module loading are not counted.
    proc.stdin.write(data[: data.index(b"\n") + 1])
    proc.stdin.flush()
    proc.stdout.readline()
    started = time.perf_counter()
    out, _ = proc.communicate(data[data.index(b"\n") + 1 :])
    elapsed = time.perf_counter() - started
    replies = out.count(b"\n")
    if replies != lines:
        sys.exit(f"adapter answered {replies} of {lines} requests")
    return replies, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20, help="matches per pairing (default 20)")
    parser.add_argument("--rounds", type=int, default=2000, help="rounds of the long match (default 2000)")
    parser.add_argument("--lines", type=int, default=200_000, help="requests for the adapter alone")
    args = parser.parse_args()
    version = ".".join(map(str, node_version() or ()))
    print(f"node {version} ({check_node()}), adapter {find_adapter()}")

    print(f"\n1. matches/s, default config, {args.matches} matches per pairing, process start included")
    for pair in PAIRINGS:
        turns, elapsed = bench_matches(pair, args.matches)
        print(
            f"   {pair[0]:>15} vs {pair[1]:<21} {args.matches / elapsed:7.2f} matches/s"
            f"   ({elapsed / args.matches * 1000:6.1f} ms/match, {turns / elapsed:8.0f} turns/s)"
        )

    print(f"\n2. turns/s through the runner, one {args.rounds}-round match (start amortised)")
    for pair in PAIRINGS:
        turns, elapsed = bench_matches(pair, 1, rounds=args.rounds)
        print(
            f"   {pair[0]:>15} vs {pair[1]:<21} {turns / elapsed:9.0f} turns/s"
            f"   ({elapsed / turns * 1e6:6.1f} us/turn, {turns} turns, two bots each)"
        )

    replies, elapsed = bench_adapter(args.lines)
    print(f"\n3. the adapter alone: {replies} turn requests piped to randomonium.js")
    print(f"   {replies / elapsed:9.0f} requests/s   ({elapsed / replies * 1e6:6.2f} us/request)")


if __name__ == "__main__":
    main()
