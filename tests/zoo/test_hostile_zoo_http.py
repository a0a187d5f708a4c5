"""The hostile zoo's matrix against the honest HTTP opponent (the other half of test_hostile_zoo.py,
whose docstring says what every case checks; a file of its own so that the two halves can run on
the two xdist workers at once)."""

from __future__ import annotations

from typing import Any

import pytest

from botarena.bots.sandbox import SandboxPolicy

from .attacks import Attack
from .conftest import Baseline
from .test_hostile_zoo import cases, play_hostile_case


@pytest.mark.parametrize(("attack", "seat", "opponent"), cases(("http",)))
def test_hostile_bot(
    attack: Attack,
    seat: int,
    opponent: str,
    tmp_path: Any,
    sandbox_policy: SandboxPolicy | str,
    quiet_baseline: Baseline,
    zoo_row: dict[str, Any],
    request: pytest.FixtureRequest,
) -> None:
    play_hostile_case(attack, seat, opponent, tmp_path, sandbox_policy, quiet_baseline, zoo_row, request)
