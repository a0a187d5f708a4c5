"""Hostile: on turn 1 connects to a TCP listener on 127.0.0.1 (the port is in its context) and sends
its marker. Without a network it cannot: the listener receives nothing."""

import socket

from _wire import context, honest, marker, note, serve


def call_home():
    try:
        with socket.create_connection(("127.0.0.1", context()["port"]), timeout=1.0) as conn:
            conn.sendall(marker().encode())
        note("connected")
    except OSError as exc:
        note(f"no connection: {exc}")


def answer(envelope):
    if envelope["type"] == "turn" and envelope["turn"] == 1:
        call_home()
    return honest(envelope)


serve(answer)
