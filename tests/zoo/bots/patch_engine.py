"""Hostile entrant (a Python file, for `python -m botarena.kit` or in-process loading): when imported
it patches the GameOfDrones rules so that this bot wins every clash, and replaces the `act` of every
other bot object it can find through `gc` with one that returns a broken move. Run as an untrusted
entrant it is a sandboxed kit subprocess: the patches only change its own process."""

import contextlib
import gc

from botarena.games.drones import rules

SIGNATURE = "PATCHED-BY-ENTRANT"


def _rigged_resolve(state, config, trigger, rng):
    return rules.PLAYER_NAMES[0], SIGNATURE


def _broken_act(payload):
    return {"newProducers": -1, "error": SIGNATURE}


def _rig():
    rules.resolve_clash = _rigged_resolve
    for thing in gc.get_objects():
        act = getattr(type(thing), "act", None) if not isinstance(thing, type) else None
        if callable(act) and type(thing).__module__ != __name__:
            with contextlib.suppress(AttributeError, TypeError):
                thing.act = _broken_act


_rig()


def act(payload):
    return {"newProducers": 1}
