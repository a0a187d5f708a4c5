"""Hostile: plays the start and turn 1, then raises on turn 2 and dies (CRASHED from turn 2 on)."""

from _wire import honest, serve


def answer(envelope):
    if envelope["type"] == "turn" and envelope["turn"] >= 2:
        raise RuntimeError("crashing mid-game")
    return honest(envelope)


serve(answer)
