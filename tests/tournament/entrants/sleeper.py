"""An entrant that records its pid in the `pids` folder next to it, then never answers `start` (the
coordinator-kill test gives it a long setup timeout): a bot process that is sure to be running."""

import os
import time
from pathlib import Path


class Bot:
    def setup(self, start):
        (Path(__file__).parent / "pids" / str(os.getpid())).touch()
        while True:
            time.sleep(3600)

    def act(self, obs):
        return {"newProducers": obs["producers"]}
