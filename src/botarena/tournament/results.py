"""A finished match as tournaments see it, and their canonical order: shared by formats and ratings."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class FinishedMatch:
    """A match's outcome: 1-based `ranks` per seat (shared on ties), or None if the match failed."""

    key: str
    round: int
    seats: tuple[str, ...]
    ranks: tuple[int, ...] | None
    scores: tuple[float, ...] | None


def canonical(finished: Mapping[str, FinishedMatch] | Iterable[FinishedMatch]) -> list[FinishedMatch]:
    """Finished matches in the canonical order (round, key), whatever order they arrived in."""
    matches = finished.values() if isinstance(finished, Mapping) else finished
    return sorted(matches, key=lambda m: (m.round, m.key))
