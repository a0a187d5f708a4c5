"""Devops through the generic JSON-lines protocol (spec 7.2): a subprocess bot gets its base call and
then one unit call per unit, strictly one at a time, and drones/domains-style single requests are
unchanged (the runner's sequential path for seats with several requests in one batch)."""

from __future__ import annotations

import sys
from pathlib import Path

from botarena.bots.inprocess import PythonBot
from botarena.bots.subprocess import SubprocessBot
from botarena.games.devops import GAME
from botarena.runner import run_match

BOT = r"""
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    payload = {}
    if msg["type"] == "turn":
        call = msg["payload"]["call"]
        payload = {"type": "RECEIVE_INCOME"} if call == "base" else {"type": "IDLE"}
        sys.stderr.write(call + "\n")
    print(json.dumps({"id": msg["id"], "payload": payload}), flush=True)
"""


def test_subprocess_faction_gets_its_calls_one_at_a_time(tmp_path: Path) -> None:
    script = tmp_path / "bot.py"
    script.write_text(BOT)
    bots = [
        SubprocessBot([sys.executable, str(script)], name="lines"),
        PythonBot(GAME.starter_bots["banker"], "b"),
    ]
    config = GAME.config("smoke", {"turn_limit": 5, "starting_units": ["PIONEER"] * 3})
    run = run_match(GAME, bots, config=config, seed=2)
    assert run.replay.statuses[0] == {"OK": 1 + 5 * 4}  # start, then 5 turns x (base + 3 units)
    calls = [c for step in run.replay.steps for c in step["record"]["calls"] if c["faction"] == 1]
    assert [c["move"]["type"] for c in calls[:4]] == ["RECEIVE_INCOME", "IDLE", "IDLE", "IDLE"]
    assert run.replay.logs[0]["text"].split()[:4] == ["base", "unit", "unit", "unit"]
