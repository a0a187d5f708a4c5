"""Hostile: reads every request and never answers any (TIMEOUT deadline on every exchange)."""

import sys

for _line in sys.stdin:
    pass
