"""Smoke test of benchmarks/arena_upload.py (goal G5's checker share): the script runs end to end with
tiny arguments and prints its rows, so it cannot rot. No figure is checked against a time."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "arena_upload.py"


def test_arena_upload_benchmark_runs_with_tiny_arguments(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    args = ["--mib", "1", "--entries", "20", "--repeat", "1", "--scratch", str(tmp_path)]
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300, cwd=ROOT, env=env
    )
    assert done.returncode == 0, done.stderr
    rows = re.findall(r"^  (check|unpack|pack|check\+unpack\+pack)\s+median", done.stdout, re.MULTILINE)
    assert rows == ["check", "unpack", "pack", "check+unpack+pack"] * 3
    assert "20 files" in done.stdout
