"""`MatchRecord`: one played match as the platform keeps it, from the worker that played it to the store.

One type for what was three (issue 28 item 7): the tournament's task outcome, the store's result
and the protocol `record_results` took were the same nine fields under three names, one of them
`MatchResult` like `core.game.MatchResult` (a game's ranks and scores, which this record contains
as two of its fields). It lives in the runner, below both the tournament that makes it and the
store that records it, and imports nothing: a Dask worker builds one without the store's SQLAlchemy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

# Per seat, the seat's failures in the match (botarena.runner.failures), None when all went well.
SeatFailure = Mapping[str, Any] | None


@dataclass(frozen=True)
class MatchRecord:
    """A finished match: its result in platform terms (per seat, in seat order) and its gzip replay.

    `replay_hash` is set instead of `replay_gz` when the worker wrote the replay to the store's
    shared location itself. `failures`, per seat, is None for a record made without them (the store
    then keeps no failure summary)."""

    key: str
    ranks: Sequence[int]
    scores: Sequence[float]
    statuses: Sequence[Mapping[str, int]]  # per seat: Status name -> how many replies got it
    time_used_ms: Sequence[float]
    steps: int
    duration_s: float
    replay_gz: bytes = field(default=b"", repr=False)
    replay_hash: str | None = None
    failures: Sequence[SeatFailure] | None = None
