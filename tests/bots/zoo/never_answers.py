"""Zoo: reads every request and never answers any (TIMEOUT on every exchange)."""

import sys

for _line in sys.stdin:
    pass
