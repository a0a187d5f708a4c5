"""A scripted fake bot for protocol tests: what it writes for each request is given on argv.

argv[1] is a JSON list; item n is the list of actions for the n-th request read (1-based order):
  "text"          write text + "\n" after replacing $ID (this request's id), $PREV (the previous
                  request's id) and $ENV (the whole envelope, as JSON)
  ["raw", text]   write text as is (no newline added, no replacement)
  ["big", n, ch]  write n copies of the character ch (no newline)
  ["sleep", s]    sleep s seconds
  ["exit", code]  exit at once
  ["err", text]   write text to stderr
  ["spawn"]       start a `sleep 60` grandchild in the same process group; reply with its pid
  ["noterm"]      ignore SIGTERM from now on
Requests beyond the list get nothing. Before reading, ["sleep", s] in argv[2] (optional) delays start.
"""

import json
import os
import signal
import subprocess
import sys
import time

script = json.loads(sys.argv[1])
if len(sys.argv) > 2:
    time.sleep(float(sys.argv[2]))
out = sys.stdout.buffer
previous = None
for number, line in enumerate(sys.stdin.buffer):
    envelope = json.loads(line)
    rid = envelope["id"]
    actions = script[number] if number < len(script) else []
    for action in actions:
        if isinstance(action, str):
            text = action.replace("$ID", str(rid)).replace("$PREV", str(previous))
            text = text.replace("$ENV", json.dumps(envelope))
            out.write(text.encode() + b"\n")
        elif action[0] == "raw":
            out.write(action[1].encode())
        elif action[0] == "big":
            out.write(action[2].encode() * action[1])
        elif action[0] == "sleep":
            out.flush()
            time.sleep(action[1])
        elif action[0] == "exit":
            out.flush()
            os._exit(action[1])
        elif action[0] == "err":
            sys.stderr.write(action[1])
            sys.stderr.flush()
        elif action[0] == "spawn":
            child = subprocess.Popen(["sleep", "60"])
            out.write(json.dumps({"id": rid, "payload": {"child": child.pid}}).encode() + b"\n")
        elif action[0] == "noterm":
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
    out.flush()
    previous = rid
