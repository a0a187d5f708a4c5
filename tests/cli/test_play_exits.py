"""`botarena play` with an in-process bot that exits (issue 12, item 3): `sys.exit()`, `os._exit(0)`
or a BaseException in the bot's call make it CRASHED, the match completes, its result is printed and
`play` names the crash on stderr; a real Ctrl-C still stops the match. In-process means trusted (see
docs/security.md): these are a participant's accidents, not a sandbox."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from cli_in_process import botarena_in_process

from waiting import wait_until

ATTACKS = {
    "sys_exit": "import sys\n        sys.exit()",
    "os_exit": "import os\n        os._exit(0)",
    "keyboard_interrupt": "raise KeyboardInterrupt",
    "base_exception": "raise BaseException('boom')",
}
EXPECTED = {
    "sys_exit": "CRASHED (process_exited) at step 2: SystemExit",
    "os_exit": "CRASHED (process_exited) at step 2: os._exit(0)",
    "keyboard_interrupt": "CRASHED (bot_error) at step 2: KeyboardInterrupt",
    "base_exception": "CRASHED (bot_error) at step 2: BaseException: boom",
}
BOT = """
def act(obs):
    if obs["turn"] == 2:
        {attack}
    return {{"newProducers": obs["producers"], "newSoldiers": 0, "launchAttack": False}}
"""


def botarena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "botarena", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_play_completes_and_names_the_bot_that_exited(tmp_path: Path, attack: str, seat: int) -> None:
    bot = tmp_path / f"{attack}.py"
    bot.write_text(BOT.format(attack=ATTACKS[attack]))
    seats = ["zergy", str(bot)] if seat else [str(bot), "zergy"]
    replay = tmp_path / "r.json.gz"
    args = ["play", "drones", *seats, "--seed", "5", "--set", "rounds=2", "--replay", str(replay)]
    proc = botarena(*args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr  # the match completed: its result is the output
    assert "outcome:" in proc.stdout and f"replay written to {replay}" in proc.stdout
    lines = proc.stderr.strip().splitlines()
    first = f"botarena: seat {seat} ({attack}, {bot}) {EXPECTED[attack]}"
    assert re.fullmatch(rf"{re.escape(first)} \[CRASHED:\d+\]", lines[0]), (
        lines
    )  # then its counts (issue 26 item 1)
    assert all(line.startswith("    ") for line in lines[1:])  # then the last lines of its log
    # and the replay of the match tells the truth
    # (in this process: the check of the replay is not about a process)
    verified = botarena_in_process("replay", str(replay), "--verify", cwd=tmp_path)
    assert verified.returncode == 0 and verified.stdout.startswith("identical"), verified.stdout


def test_a_real_ctrl_c_during_a_bots_call_stops_play(tmp_path: Path) -> None:
    marker = tmp_path / "in-call"
    bot = tmp_path / "slow.py"
    bot.write_text(
        "import pathlib, time\n"
        "def act(obs):\n"
        f"    pathlib.Path({str(marker)!r}).touch()\n"
        "    time.sleep(600)\n"
    )
    args = ["play", "drones", str(bot), "zergy", "--set", "turn_timeout_ms=60000"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "botarena", *args],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wait_until(  # the bot is in its call once the marker exists
            lambda: marker.exists() or proc.poll() is not None, "the bot entering its call", 600, pause=0.1
        )
        assert marker.exists(), proc.communicate()
        os.kill(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err  # interrupted: not the bot's crash, and no result
    assert "outcome:" not in out and "CRASHED" not in err
