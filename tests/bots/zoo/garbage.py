"""Zoo: answers every request with a line that is not JSON (INVALID bad_json)."""

import sys

for _line in sys.stdin:
    sys.stdout.write("I am a bot, not a JSON printer {\n")
    sys.stdout.flush()
