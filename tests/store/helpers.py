"""Builders for the store tests."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from botarena.store import Store

StoreFactory = Callable[..., Store]


def spec(key: str, round: int = 1, seats: tuple[str, ...] = ("a", "b"), seed: int = 7) -> SimpleNamespace:
    """A MatchSpec-like object (the store reads .key .round .seats .seed)."""
    return SimpleNamespace(key=key, round=round, seats=seats, seed=seed)


def result(seats: int = 2, replay: bytes = b"replay", **overrides: Any) -> dict[str, Any]:
    """record_result keyword arguments for a match with `seats` players (seat 0 wins)."""
    fields: dict[str, Any] = {
        "ranks": list(range(seats)),
        "scores": [float(seats - i) for i in range(seats)],
        "statuses": [{"OK": 10} for _ in range(seats)],
        "time_used_ms": [1.5 * (i + 1) for i in range(seats)],
        "steps": 10,
        "duration_s": 0.25,
        "replay_gz": gzip.compress(replay, mtime=0),
    }
    fields.update(overrides)
    return fields
