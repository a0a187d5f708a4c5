"""Hostile: on turn 1 leaves a daemon behind with the classic setsid double fork: the daemon is in
a session of its own, outside the bot's process group, and carries the marker in its argv."""

import os
import sys

from _wire import honest, marker, note, serve

DAEMON = "import time\nwhile True: time.sleep(3600)"


def daemonize():
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", DAEMON, marker(), "daemon"])
        os._exit(0)
    os.waitpid(pid, 0)


def answer(envelope):
    if envelope["type"] == "turn" and envelope["turn"] == 1:
        daemonize()
        note("daemon started")
    return honest(envelope)


serve(answer)
