"""The match seed never reaches a bot (DESIGN, *Platform vocabulary*; issue 25, item 4): it decides
what the rules hide, and every other seat's bot seed.

`run_match` without a match id made one of the seed (`drones-<seed>-<hex>`), and it went to every
wire bot in its envelope's `match` field. Here bots of every transport (in-process, subprocess,
HTTP), each in both seats, record everything they are sent in three short drones matches with a
secret seed; no number in it (a JSON integer, or a run of digits or hex digits in a string) may be
the seed.
"""

from __future__ import annotations

import json
import re
import secrets
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from botarena.bots.http import HttpBot
from botarena.bots.inprocess import PythonBot
from botarena.bots.subprocess import SubprocessBot
from botarena.core.game import GameInfo
from botarena.runner import run_match

from .aiohttp_server import LoopServer

FAST = {"turn_timeout_ms": 1000, "setup_timeout_ms": 5000, "rounds": 1, "turn_limit": 3}
RECORDER = """
import json, sys
log = open(sys.argv[1], "a")
for line in sys.stdin:
    log.write(line); log.flush()
    envelope = json.loads(line)
    print(json.dumps({"id": envelope["id"], "payload": {}}), flush=True)
"""


class Recorder(LoopServer):
    """An HTTP bot that records every envelope it is sent."""

    def __init__(self) -> None:
        self.seen: list[Any] = []
        self.lock = threading.Lock()
        super().__init__()

    async def handle(self, request: web.Request) -> web.StreamResponse:
        envelope = await request.json()
        with self.lock:
            self.seen.append(envelope)
        return web.json_response({"id": envelope["id"], "payload": {}})


class Listener:
    """An in-process bot that records every payload it is given."""

    def __init__(self, seen: list[Any]) -> None:
        self.seen = seen

    def setup(self, payload: Any) -> Any:
        self.seen.append(payload)
        return {}

    def act(self, payload: Any) -> Any:
        self.seen.append(payload)
        return {}

    def end(self, payload: Any) -> Any:
        self.seen.append(payload)
        return {}


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    server = Recorder()
    yield server
    server.stop()


def numbers(value: Any) -> set[int]:
    """Every integer in `value`: JSON integers, and runs of digits (or of 8-16 hex digits) in strings."""
    if isinstance(value, bool) or value is None:
        return set()
    if isinstance(value, int):
        return {value}
    if isinstance(value, str):
        found = {int(run) for run in re.findall(r"\d+", value)}
        return found | {int(run, 16) for run in re.findall(r"[0-9a-fA-F]{8,16}", value)}
    if isinstance(value, dict):
        return set().union(*(numbers(k) | numbers(v) for k, v in value.items()))
    if isinstance(value, list):
        return set().union(*(numbers(item) for item in value))
    return set()


def test_no_bot_of_any_transport_in_either_seat_is_sent_the_match_seed(
    drones: GameInfo, recorder: Recorder, tmp_path: Path
) -> None:
    script = tmp_path / "recorder.py"
    script.write_text(RECORDER, encoding="utf-8")
    wire_log = tmp_path / "wire.jsonl"
    heard: list[Any] = []

    def bot(kind: str) -> Any:
        if kind == "subprocess":
            return SubprocessBot([sys.executable, str(script), str(wire_log)], name="sub")
        if kind == "http":
            return HttpBot(recorder.url("bot"), name="web")
        return PythonBot(lambda: Listener(heard), name="inproc")

    seed = 2**40 + secrets.randbelow(2**62)  # (well beyond the 32-bit bot seeds)
    config = drones.config("default", FAST)
    for seats in (("subprocess", "http"), ("http", "inprocess"), ("inprocess", "subprocess")):
        run = run_match(drones, [bot(kind) for kind in seats], config=config, seed=seed)
        assert run.replay.seed == seed and run.replay.steps
    wire = [json.loads(line) for line in wire_log.read_text(encoding="utf-8").splitlines()]
    sent = {"subprocess": wire, "http": list(recorder.seen), "in-process": heard}
    for kind, messages in sent.items():
        assert len(messages) >= 2 * 3, kind  # two matches each: start, turns, end
        assert seed not in numbers(messages), f"the {kind} bot was sent the match seed"
    assert {m["match"] for m in wire} and all(str(seed) not in m["match"] for m in wire)
