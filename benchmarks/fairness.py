"""Fair clocks (DESIGN principle 7): an instant bot's TIMEOUTs next to a saboteur, and the runner's cost.

1. GameOfDrones (3 rounds of 3 turns, 1 s per turn): an instant bot next to a saboteur that sleeps
   1.1 s on the last turn of every round (the issue's attack), in both seat orders, for each pair of
   transports available here: subprocess (Python), HTTP (aiohttp) and JavaScript (the Node kit).
   The instant bot's TIMEOUT count must be 0; the saboteur's is one per round.
2. The runner's time per turn for a batch of two trivial subprocess bots (one long match through
   `run_match`, replay recorded): the path the selector changed. Compare with the same script run on
   an older tree (PYTHONPATH=...). benchmarks/overhead.py covers all-in-process batches.

    .venv/bin/python benchmarks/fairness.py [--turns 20000]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from botarena.bots.base import Bot
from botarena.bots.subprocess import SubprocessBot
from botarena.core.registry import get_game
from botarena.runner import run_match

DRONES = get_game("drones")
KIT_BOTS = Path(__file__).resolve().parents[1] / "kits" / "drones-js" / "bots"

PY_BOT = r"""
import json, os, sys, time
sleepy = sys.argv[1] == "sleepy"
for line in sys.stdin:
    request = json.loads(line)
    payload = {}
    if request["type"] == "turn":
        obs = request["payload"]
        if sleepy and obs["turn"] == obs["turnLimit"]:
            time.sleep(1.1)
        payload = {"newProducers": obs["producers"], "newSoldiers": 0, "launchAttack": False}
    os.write(1, (json.dumps({"id": request["id"], "payload": payload}) + "\n").encode())
"""

SLEEPY_JS = """
class Sleepy {
  constructor() { this.turns = 10; this.turn = 0; }
  onRoundStart(rules) { this.turns = rules.turns; this.turn = 0; }
  playTurn(state) {
    this.turn += 1;
    if (this.turn === this.turns) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1100);
    return { newProducers: state.producers, newSoldiers: 0, launchAttack: false };
  }
}
export default function () { return new Sleepy(); }
"""


class _HttpInstant:
    """An instant HTTP bot on its own loop thread."""

    def __init__(self) -> None:
        from aiohttp import web

        async def handle(request: web.Request) -> web.Response:
            envelope = await request.json()
            payload: dict[str, Any] = {}
            if envelope["type"] == "turn":
                obs = envelope["payload"]
                payload = {"newProducers": obs["producers"], "newSoldiers": 0, "launchAttack": False}
            return web.json_response({"id": envelope["id"], "payload": payload})

        async def start() -> Any:
            app = web.Application()
            app.router.add_post("/", handle)
            runner = web.AppRunner(app)
            await runner.setup()
            await web.TCPSite(runner, "127.0.0.1", 0).start()
            return runner

        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        self.runner = asyncio.run_coroutine_threadsafe(start(), self.loop).result(10)
        self.url = f"http://127.0.0.1:{self.runner.addresses[0][1]}/"


def _round_turns_note() -> str:
    return "3 rounds x 3 turns, turn_timeout_ms 1000; saboteur sleeps 1.1 s on the last turn of each round"


def fairness(workdir: Path) -> None:
    from botarena.bots.http import HttpBot
    from botarena.bots.node import MIN_NODE, find_node, node_bot, node_version

    script = workdir / "bot.py"
    script.write_text(PY_BOT)
    sleepy_js = workdir / "sleepy.js"
    sleepy_js.write_text(SLEEPY_JS)
    node = find_node()
    has_node = node is not None and (node_version(node) or (0, 0, 0)) >= MIN_NODE
    http = _HttpInstant()
    config = DRONES.config(overrides={"rounds": 3, "turn_limit": 3, "turn_timeout_ms": 1000})

    def py(mode: str) -> Bot:
        return SubprocessBot([sys.executable, str(script), mode], name=f"py-{mode}")

    instants: dict[str, Any] = {
        "subprocess": lambda: py("instant"),
        "http": lambda: HttpBot(http.url, name="http-instant"),
    }
    saboteurs: dict[str, Any] = {"subprocess": lambda: py("sleepy")}
    if has_node:
        instants["javascript"] = lambda: node_bot(KIT_BOTS / "pacifist.js", name="pacifist")
        saboteurs["javascript"] = lambda: node_bot(sleepy_js, name="sleepy")
    print(f"1. instant bot's TIMEOUTs next to a saboteur ({_round_turns_note()})")
    if not has_node:
        print("   (Node.js >= 20.19 not found: the JavaScript rows are left out)")
    for instant_kind, make_instant in instants.items():
        for saboteur_kind, make_saboteur in saboteurs.items():
            for instant_seat in (0, 1):
                bots = [make_instant(), make_saboteur()]
                if instant_seat == 1:
                    bots.reverse()
                run = run_match(DRONES, bots, config=config, seed=7)
                mine = run.replay.statuses[instant_seat].get("TIMEOUT", 0)
                theirs = run.replay.statuses[1 - instant_seat].get("TIMEOUT", 0)
                print(
                    f"   instant {instant_kind:<10} seat {instant_seat} vs saboteur {saboteur_kind:<10}:"
                    f" instant TIMEOUTs {mine}  (saboteur TIMEOUTs {theirs})"
                )


def overhead(workdir: Path, turns: int) -> None:
    script = workdir / "bot.py"
    rounds = max(1, turns // 50)
    config = DRONES.config(overrides={"rounds": rounds, "turn_limit": 50})
    best = float("inf")
    played = 0
    for _ in range(3):
        bots: list[Bot] = [
            SubprocessBot([sys.executable, str(script), "instant"], name="a"),
            SubprocessBot([sys.executable, str(script), "instant"], name="b"),
        ]
        started = time.perf_counter()
        run = run_match(DRONES, bots, config=config, seed=1)
        elapsed = time.perf_counter() - started
        played = len(run.replay.steps)
        best = min(best, elapsed / played * 1e6)
    print("2. runner time per turn, two trivial subprocess bots, one long match (best of 3)")
    print(f"   {best:8.1f} us/turn  [{played:,} turns]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=20_000, help="turns of the overhead match")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        fairness(workdir)
        overhead(workdir, args.turns)


if __name__ == "__main__":
    main()
