"""Smoke test of benchmarks/arena_api.py (goal G5): at a tiny size the script builds its store, serves the
app, lands results, runs its read loop and an upload, and prints every figure. No time is checked."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "arena_api.py"
ROUTES = (
    "leaderboard, first page",
    "leaderboard, middle page",
    "team page: versions",
    "team page: own matches",
    "team page: pairs",
    "match list, cursor",
    "upload POST",
)


def test_g5_arena_api_benchmark_prints_its_figures_at_a_tiny_size() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    args = ["--teams", "4", "--matches", "60", "--requests", "3", "--seconds", "30"]
    args += ["--uploads", "1", "--upload-mib", "0.25", "--rate", "5"]
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300, cwd=ROOT, env=env
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert re.search(r"built on sqlite in [\d.]+ s: teams 4, versions 12, matches 60, match_players 120", out)
    assert re.search(
        r"while \d+ results landed in [\d.]+ s \([\d.]+/s, target 5/s; load average [\d.]+ on \d+ cores\)",
        out,
    )
    for label in ROUTES:
        found = re.search(
            rf"^  {re.escape(label)}.*p50 +[\d.]+ ms +p99 +[\d.]+ ms .* n=(\d+)"
            r"  server CPU +[\d.]+ ms/request$",
            out,
            re.M,
        )
        assert found is not None, f"{label!r} missing from:\n{out}"
        assert int(found.group(1)) == (1 if label == "upload POST" else 3)
