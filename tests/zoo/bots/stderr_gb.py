"""Hostile: writes 1 GiB to stderr (8 MiB before its first answer, the rest from a thread while it
plays), otherwise honest (OK on every exchange; the log is capped, the runner's memory unchanged)."""

import sys
import threading

from _wire import honest, serve

BLOCK = b"stderr flood " * (1 << 16)  # ~832 KiB
TOTAL = 1 << 30
FIRST = 8 << 20


def flood(limit):
    written = 0
    while written < limit:
        sys.stderr.buffer.write(BLOCK)
        written += len(BLOCK)
    sys.stderr.flush()
    return written


first = flood(FIRST)
threading.Thread(target=flood, args=(TOTAL - first,), daemon=True).start()
serve(honest)
