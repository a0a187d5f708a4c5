"""Shared fixtures for the whole suite."""

from __future__ import annotations

import pytest

from botarena.core.game import GameInfo
from botarena.core.registry import get_game


@pytest.fixture
def drones() -> GameInfo:
    return get_game("drones")
