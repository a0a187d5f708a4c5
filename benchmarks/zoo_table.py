"""The hostile zoo's table (issue 12, item 7): attack, outcome, verdict.

Runs the zoo (`pytest tests/zoo`, every hostile bot in both seats against a subprocess and an HTTP
opponent, sandboxed) and prints one Markdown line per attack: the status the hostile seat got, what
stopped the attack, and whether every case passed ("sealed"). It is a test run, not a timing: the
table is written by tests/zoo/conftest.py when BOTARENA_ZOO_TABLE names a file.

    .venv/bin/python benchmarks/zoo_table.py [pytest args, e.g. -k http]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(args: list[str]) -> int:
    with tempfile.TemporaryDirectory() as folder:
        table = Path(folder) / "zoo.md"
        env = {**os.environ, "BOTARENA_ZOO_TABLE": str(table)}
        src = str(ROOT / "src")
        env["PYTHONPATH"] = os.pathsep.join([src, env["PYTHONPATH"]]) if env.get("PYTHONPATH") else src
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/zoo", *args]
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
        summary = [line for line in done.stdout.splitlines() if line.strip()][-1:] or ["(no pytest output)"]
        if not table.exists():
            print(done.stdout[-3000:], done.stderr[-3000:], sep="\n")
            print("no zoo table was written", file=sys.stderr)
            return 1
        print(table.read_text(), end="")
        print(f"\npytest: {summary[0]}")
        return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
