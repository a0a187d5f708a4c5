"""Issue 28, item 8: a zoo failure names its cause. The context every `assert_sealed` message carries
holds both seats' statuses exchange by exchange and the end of each bot's log, so a bot that crashed
(or was refused) says so in the failure itself, not only in a replay nobody kept."""

from __future__ import annotations

import sys

from botarena.bots.inprocess import PythonBot
from botarena.bots.subprocess import SubprocessBot
from botarena.core.game import GameInfo
from botarena.runner import run_match

from .arena import FAST, LOG_TAIL_CHARS, failure_context, log_tail

# Writes a long log, its last line the cause, and dies before answering anything.
CRASHER = "import sys\nsys.stderr.write('noise\\n' * 2000 + 'the cause: out of cheese\\n')\nsys.exit(3)"


def test_i28_8_the_context_names_both_seats_statuses_and_the_crashed_bots_log_tail(drones: GameInfo) -> None:
    crasher = SubprocessBot([sys.executable, "-c", CRASHER], name="crasher")
    quiet = PythonBot(drones.starter_bots["zergy"], "zergy")
    run = run_match(drones, [quiet, crasher], config=drones.config("default", FAST), seed=12)

    context = failure_context(run, hostile_seat=1)

    lines = context.splitlines()
    assert lines[0].startswith("seat 1 (hostile) statuses: CRASHED")  # the hostile seat first
    assert "the cause: out of cheese" in context  # the last line of its log
    assert any(line.startswith("seat 0 (opponent) statuses: OK") for line in lines)
    tail = log_tail(run, 1)
    assert tail.startswith("...") and len(tail) == LOG_TAIL_CHARS + 3  # the end, not all 12 kB of it
    assert log_tail(run, 0) == "(its log is empty)"
