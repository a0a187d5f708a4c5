"""The `adaptive` starter's moves, with a gate for the resume-kill test: with a `starts` folder next to
this file, each match's bot claims the next start number there, and the one that claims `GATE_AT`
(when a `gate` fifo is there too) marks `blocked` and waits in its start exchange for a writer to
open the fifo, which never comes: the test kills the tournament while this match is sure to be running
(the test gives the start exchange a long timeout). Its moves never depend on any of this."""

import os
from pathlib import Path

from botarena.games.drones.bots.examples import AdaptiveDefender

GATE_AT = 4
HERE = Path(__file__).parent


def _claim_start() -> int:
    n = 1
    while True:
        try:
            os.close(os.open(HERE / "starts" / str(n), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            return n
        except FileExistsError:
            n += 1


class Bot(AdaptiveDefender):
    def setup(self, start):
        if (HERE / "starts").is_dir() and _claim_start() == GATE_AT and (HERE / "gate").exists():
            (HERE / "blocked").touch()
            with open(HERE / "gate") as fifo:  # blocks until the test has killed the tournament
                fifo.read()
        return super().setup(start)
