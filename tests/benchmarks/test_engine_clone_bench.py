"""Smoke test of benchmarks/engine_clone.py (issue 17, item 3): the script runs end to end with tiny
arguments and prints a row per game and config, so it cannot rot. No figure is checked against a time."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from botarena.core.registry import game_ids

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "engine_clone.py"


def test_engine_clone_benchmark_runs_with_tiny_arguments() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--steps", "2", "--seconds", "0.001"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    row = r"^(\S+)\s+(default|test)\s+\d+\.\d+\s+\d+\.\d+\s+\d+\.\d+x$"
    rows = re.findall(row, done.stdout, re.MULTILINE)
    assert sorted(rows) == sorted((game, config) for game in game_ids() for config in ("default", "test"))
