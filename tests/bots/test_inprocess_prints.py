"""What an in-process bot prints goes to its log, never to the terminal (issue 15, item 6): a bot's
debug prints cannot garble `play`'s table or a tournament's progress bar. Output is routed by thread,
so what other threads print at the same moment still reaches the real stream."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from botarena.bots.inprocess import PythonBot
from botarena.core.protocol import MessageType, Request

PRINTER = """
import sys
print("made a printer")
def act(obs):
    print("DEBUG turn", obs["turn"])
    print("WARN to stderr", file=sys.stderr)
    return {"newProducers": obs["producers"], "newSoldiers": 0, "launchAttack": False}
"""


@pytest.mark.parametrize("seat", [0, 1])
def test_a_printing_bot_does_not_print_into_play_output(tmp_path: Path, seat: int) -> None:
    bot = tmp_path / "printer.py"
    bot.write_text(PRINTER)
    seats = ["pacifist", str(bot)] if seat else [str(bot), "pacifist"]
    replay = tmp_path / "r.json.gz"
    proc = subprocess.run(
        [sys.executable, "-m", "botarena", "play", "drones", *seats, "--seed", "3", "--replay", str(replay)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "DEBUG" not in proc.stdout and "WARN" not in proc.stderr and "WARN" not in proc.stdout
    logs = json.loads(gzip.decompress(replay.read_bytes()))["logs"]
    log = next(entry["text"] for entry in logs if entry["seat"] == seat)
    assert "DEBUG turn 1\n" in log and "WARN to stderr\n" in log
    assert all("DEBUG" not in entry["text"] for entry in logs if entry["seat"] != seat)


def test_prints_of_other_threads_during_a_bots_call_reach_the_real_stream(
    capsys: pytest.CaptureFixture[str],
) -> None:
    inside, other_printed = threading.Event(), threading.Event()

    def act(payload: Any) -> dict[str, Any]:
        inside.set()
        assert other_printed.wait(60)
        print("from the bot")
        return {}

    def other_thread() -> None:
        assert inside.wait(60)
        print("from the main program")
        other_printed.set()

    bot = PythonBot(lambda: act, name="b")
    bot.open("m", 0)
    helper = threading.Thread(target=other_thread)
    helper.start()
    reply = bot.ask(Request(0, {"turn": 1}, 10_000, MessageType.TURN), 10.0)
    helper.join(60)
    log = bot.close().text
    assert reply.status.value == "OK"
    out = capsys.readouterr().out
    assert "from the main program" in out and "from the bot" not in out
    assert "from the bot" in log and "from the main program" not in log


def test_prints_outside_any_bot_call_are_untouched(capsys: pytest.CaptureFixture[str]) -> None:
    bot = PythonBot(lambda: lambda payload: {}, name="quiet")
    bot.open("m", 0)
    print("the program's own line")
    bot.close()
    assert "the program's own line" in capsys.readouterr().out
