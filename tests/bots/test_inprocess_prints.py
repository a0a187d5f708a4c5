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


def _parts(log: dict[str, Any]) -> dict[int, str]:
    """A log's text cut by its marks: step -> what was printed while the runner was at it."""
    data = log["text"].encode()
    marks = log.get("marks", [])
    parts: dict[int, str] = {}
    for i, (step, offset) in enumerate(marks):
        end = marks[i + 1][1] if i + 1 < len(marks) else len(data)
        parts[step] = parts.get(step, "") + data[offset:end].decode()
    return parts


COUNTER = """
import sys
print("ready", file=sys.stderr, flush=True)
calls = 0
def act(obs):
    global calls
    calls += 1
    print(f"call {calls} é", file=sys.stderr, flush=True)
    return {"newProducers": obs["producers"], "newSoldiers": 0, "launchAttack": False}
"""


class _Counter:
    def setup(self, payload: Any) -> dict[str, Any]:
        print("ready")
        self.calls = 0
        return {}

    def act(self, obs: Any) -> dict[str, Any]:
        self.calls += 1
        print(f"call {self.calls} é")
        return {"newProducers": obs["producers"], "newSoldiers": 0, "launchAttack": False}


def _line_steps(log: dict[str, Any]) -> dict[str, int]:
    """Each line of a log -> the step of the mark its first byte falls under."""
    data = log["text"].encode()
    marks = log.get("marks", [])
    found, start = {}, 0
    for line in data.split(b"\n")[:-1]:
        step = max(s for s, offset in marks if offset <= start)
        found[line.decode()] = step
        start += len(line) + 1
    return found


def test_an_in_process_bots_log_is_marked_with_the_step_of_each_print() -> None:
    from botarena.core.registry import get_game
    from botarena.runner import run_match

    game = get_game("drones")
    bots = [PythonBot(_Counter, name="counter"), PythonBot(game.starter_bots["pacifist"], name="quiet")]
    run = run_match(game, bots, seed=1)
    parts = _parts(run.replay.logs[0])
    assert parts[0] == "ready\n"  # printed in the start exchange
    for step in range(1, len(run.replay.steps) + 1):
        assert parts[step] == f"call {step} é\n"
    assert "marks" not in run.replay.logs[1]  # pacifist printed nothing


@pytest.mark.parametrize("seat", [0, 1])
def test_a_processs_stderr_is_marked_never_before_its_step(tmp_path: Path, seat: int) -> None:
    """A process's stderr is read by its own thread, so its marks may lag; they never lead."""
    from botarena.bots.resolve import resolve_bot
    from botarena.core.registry import get_game
    from botarena.runner import run_match

    bot = tmp_path / "counter.py"
    bot.write_text(COUNTER)
    game = get_game("drones")
    kit = resolve_bot(f"cmd:{sys.executable} -m botarena.kit {bot}", game)
    players = [kit, resolve_bot("pacifist", game)] if seat == 0 else [resolve_bot("pacifist", game), kit]
    run = run_match(game, players, config=game.config(overrides={"rounds": 2}), seed=1)
    log = run.replay.logs[seat]
    steps = [step for step, _ in log["marks"]]
    offsets = [offset for _, offset in log["marks"]]
    assert steps == sorted(set(steps)) and offsets == sorted(offsets) and offsets[0] == 0
    written_at = _line_steps(log)
    assert written_at.pop("ready") >= 0
    assert sorted(written_at) == sorted(f"call {n} é" for n in range(1, len(run.replay.steps) + 1))
    for line, step in written_at.items():
        assert step >= int(line.split()[1])  # call n is written during step n, and read then or later
