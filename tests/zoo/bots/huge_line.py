"""Hostile: answers every request with one 100 MB line (INVALID line_too_long, never buffered)."""

import json
import sys

SIZE = 100 * 1000 * 1000
out = sys.stdout.buffer
filler = b"x" * SIZE
for line in sys.stdin.buffer:
    request_id = json.loads(line)["id"]
    out.write(b'{"id": %d, "payload": {"newProducers": 1, "pad": "' % request_id)
    out.write(filler)
    out.write(b'"}}\n')
    out.flush()
