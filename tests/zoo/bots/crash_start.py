"""Hostile: dies before reading anything (CRASHED process_exited on every exchange)."""

import sys

sys.stderr.write("crashing at start\n")
sys.exit(7)
