"""`Engine.clone()` against `copy.deepcopy(engine)`, per game: milliseconds per copy (issue 17, item 3).

Each game's engine is played a few steps into a match by its random bot (driven directly: no runner),
on the game's default preset (its biggest usual state) and on its small test config, then copied
over and over for a while; each figure is the best of three such runs, as ms per copy. The last
column is how many times faster `clone` is: what sharing the game's immutable tables saves.

    .venv/bin/python benchmarks/engine_clone.py [--steps 5] [--seconds 0.3]
"""

from __future__ import annotations

import argparse
import copy
import time
from collections.abc import Callable
from typing import Any

from botarena.core.game import Engine, GameInfo
from botarena.core.protocol import NOT_AWAITED, Reply
from botarena.core.registry import all_games
from botarena.core.status import Status


def played(game: GameInfo, overrides: dict[str, Any], steps: int, seed: int = 7) -> Engine:
    """An engine `steps` batches into a match of the game's random bots (late answers at once)."""
    seats = game.min_players
    engine = game.new_engine(game.config("default", overrides or None), seed, seats)
    engine.set_player_names([f"seat{seat}" for seat in range(seats)])
    bots = [game.random_bot() for _ in range(seats)]
    start = engine.start_requests()
    engine.apply_start([Reply(r.seat, Status.OK, _call(bots[r.seat], "setup", r.payload)) for r in start])
    owed: list[Reply] = []
    for _ in range(steps):
        for reply in owed:
            engine.late_reply(reply)
        owed = []
        requests = engine.next_requests()
        if not requests:
            break
        replies = []
        for request in requests:
            answer = _call(bots[request.seat], "act", request.payload)
            if request.await_reply:
                replies.append(Reply(request.seat, Status.OK, answer))
            else:
                replies.append(Reply(request.seat, Status.TIMEOUT, None, NOT_AWAITED))
                owed.append(Reply(request.seat, Status.OK, answer))
        engine.apply(replies)
    return engine


def _call(bot: Any, name: str, payload: Any) -> Any:
    method = getattr(bot, name, None)
    if method is None:
        return bot(payload) if name == "act" and callable(bot) else {}
    return method(payload)


def ms_per_call(function: Callable[[], Any], seconds: float) -> float:
    """Best of three runs of `seconds` each: milliseconds per call."""
    best = float("inf")
    for _ in range(3):
        calls, began = 0, time.perf_counter()
        while True:
            function()
            calls += 1
            elapsed = time.perf_counter() - began
            if elapsed >= seconds:
                break
        best = min(best, elapsed / calls * 1000.0)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5, help="batches played before copying")
    parser.add_argument("--seconds", type=float, default=0.3, help="length of each timed run")
    args = parser.parse_args()
    print(f"{'game':14} {'config':8} {'deepcopy ms':>12} {'clone ms':>10} {'faster':>8}")
    for game in all_games():
        for label, overrides in (("default", {}), ("test", dict(game.test_overrides))):
            engine = played(game, overrides, args.steps)
            deep = ms_per_call(lambda engine=engine: copy.deepcopy(engine), args.seconds)
            clone = ms_per_call(engine.clone, args.seconds)
            print(f"{game.id:14} {label:8} {deep:12.3f} {clone:10.3f} {deep / clone:7.1f}x")


if __name__ == "__main__":
    main()
