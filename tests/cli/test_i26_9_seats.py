"""Issue 26, item 9: the CLI names seats as every viewer does, "seat N · name" with N 0-based."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import botarena
from botarena.commands.replay import print_partial as _print_partial


def test_i26_9_partial_summary_lists_seats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with ThreadPoolExecutor(1) as pool:  # SIGALRM preemption belongs to a worker thread under pytest
        match = pool.submit(
            botarena.play, "drones", ["zergy", "adaptive"], seed=5, config={"rounds": 1, "turn_limit": 3}
        ).result()
    _print_partial(tmp_path / "r.json.gz", match.replay)
    first = capsys.readouterr().out.splitlines()[0]
    assert first == "drones · seed 5 · players seat 0 · zergy, seat 1 · adaptive"
