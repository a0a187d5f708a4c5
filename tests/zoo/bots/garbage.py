"""Hostile: answers every request with a line that is not JSON (INVALID bad_json)."""

import sys

for _line in sys.stdin:
    sys.stdout.write("}{ not json, but a turn might parse it as a move: newSoldiers=99\n")
    sys.stdout.flush()
