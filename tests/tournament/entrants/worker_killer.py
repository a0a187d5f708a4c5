"""A hostile entrant (issue 12, item 4): on its second turn it signals its parent, the pool worker that
runs its match when it is not sandboxed, with the signal named in its file name's suffix (SIGKILL
for worker_killer.py, SIGTERM for a copy named worker_killer_term.py)."""

import os
import signal
from pathlib import Path

SIG = signal.SIGTERM if Path(__file__).stem.endswith("_term") else signal.SIGKILL


def act(obs):
    if obs["turn"] == 2:
        os.kill(os.getppid(), SIG)
    return {"newProducers": obs["producers"], "newSoldiers": 0, "launchAttack": False}
