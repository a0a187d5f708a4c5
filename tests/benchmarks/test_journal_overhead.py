"""Smoke test of benchmarks/journal_overhead.py (issue 16, deliverable 4): the script runs end to end
with tiny arguments and prints every case's table, so it cannot rot. No figure is checked against a
time: only that each variant's row and the final-write lines are there and that journals were written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "journal_overhead.py"
TINY = ["--repeat", "1", "--seeds", "1", "--long-rounds", "2", "--long-turns", "3"]
TINY += ["--devops-turns", "3", "--devops-factions", "2"]
NUMBER = r"-?\d[\d,]*\.\d+"


def test_journal_overhead_runs_with_tiny_arguments() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *TINY], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    cases = [line for line in out.splitlines() if "steps per run" in line]
    assert [line.split(",")[0].split(" (")[0] for line in cases] == [
        "drones default config",
        "drones one long match",
        "devops default preset",
    ], out
    assert out.count("   none ") == 3, out
    assert out.count("   noop on_step ") == 3, out
    journal_rows = re.findall(rf"   journal (\S+)\s+(?:{NUMBER}\s+){{7}}({NUMBER})\s+({NUMBER})", out)
    places = {place for place, _, _ in journal_rows}
    assert len(journal_rows) == 3 * len(places) and places, out
    # every journal held something (its header and steps) and was flushed at least at begin and close
    assert all(float(size) > 0 and float(rate) > 0 for _, size, rate in journal_rows), out
    assert len(re.findall(r"inside the journal \S+ \(wall, best run\): sync " + NUMBER, out)) == 3 * len(
        places
    ), out
    assert len(re.findall(r"final write_replay \S+: " + NUMBER + " ms per match", out)) == 3 * len(places), (
        out
    )
