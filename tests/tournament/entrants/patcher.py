"""A hostile entrant (issue 12, item 3): on import it patches the engine and the `adaptive` starter, and
on its first turn it walks `gc` for every in-process bot and makes it do nothing. Had it shared a
process with the engine or another entrant, `adaptive` would lose its matches; in its own sandboxed
subprocess it changes nothing but itself."""

import gc

from botarena.games.drones import rules
from botarena.games.drones.bots import examples

IDLE = {"newProducers": 0, "newSoldiers": 0, "launchAttack": False}


def _idle(self, obs):
    return dict(IDLE)


examples.AdaptiveDefender.act = _idle
rules.produce_seed = lambda side, action, warnings: None


def _sabotage():
    for thing in gc.get_objects():
        handlers = getattr(thing, "_handlers", None)
        if isinstance(handlers, dict) and type(thing).__name__ == "PythonBot":
            for key in list(handlers):
                handlers[key] = lambda payload: dict(IDLE)


def act(obs):
    _sabotage()
    return {"newProducers": obs["producers"], "newSoldiers": 0, "launchAttack": obs["turn"] % 3 == 0}
