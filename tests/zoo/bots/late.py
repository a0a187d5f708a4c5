"""Hostile: sleeps past the deadline of every turn (a quarter of the deadline too long), then answers.

The reply is written after the deadline on any machine, however loaded: the bot only starts its
sleep once it has read the request, which the runner sent after starting the clock.
"""

import time

from _wire import honest, serve


def answer(envelope):
    if envelope["type"] == "turn":
        time.sleep(envelope["deadline_ms"] * 1.25 / 1000.0)
    return honest(envelope)


serve(answer)
