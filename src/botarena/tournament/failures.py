"""Who failed in a tournament (issue 26, item 2): per entrant, the matches in which it never started,
crashed, timed out or was invalid, with the first reason.

A worker sums up each seat of a match it played from the match's verdicts (`seat_failures`, over the
replay it has in memory); the store keeps that summary with the seat's result (`match_players.failure`),
so leaderboards, the CLI and the server count failures from the store without reading a replay
(`FailureTally`). A seat's summary is None when every verdict it got was OK.

A seat *never started* when its answer to the start request was not OK (a command that does not run,
a file that does not load, a setup that raised or timed out). A bot that starts and then fails every
turn did start: it counts as crashed (or timed out, or invalid) in that match.

Results recorded before this summary existed (store revision 0002) have only the status counts: their
failures are counted by kind from those, without a reason (`first` names no status then).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from botarena.core.replay import Replay
from botarena.runner.failures import seat_verdicts, verdict_detail
from botarena.store.rows import MatchRow

FailureKind = Literal["never_started", "crashed", "timeout", "invalid"]
KINDS: tuple[FailureKind, ...] = ("never_started", "crashed", "timeout", "invalid")
LABELS: dict[FailureKind, str] = {
    "never_started": "never started",
    "crashed": "crashed",
    "timeout": "timed out",
    "invalid": "invalid",
}
_KIND_OF_STATUS: dict[str, FailureKind] = {"CRASHED": "crashed", "TIMEOUT": "timeout", "INVALID": "invalid"}


def seat_failures(replay: Replay) -> list[dict[str, Any] | None]:
    """Per seat of `replay`: None when all its verdicts were OK, else {"kinds": [...], "status",
    "reason", "detail", "where"} with the kinds of failure it had and its first non-OK verdict.

    A verdict's seat is its reply's `seat` (games asked per call or per action within a turn
    have several verdicts per seat in one exchange, so its index is no seat)."""
    seats = len(replay.players)
    first: dict[int, dict[str, Any]] = {}
    kinds: dict[int, set[FailureKind]] = {}
    for where, seat, verdict, reply in seat_verdicts(replay):
        if verdict[0] == "OK" or not 0 <= seat < seats:
            continue
        found = kinds.setdefault(seat, set())
        kind = _KIND_OF_STATUS.get(str(verdict[0]))
        if kind is not None:
            found.add(kind)
        if where == "start":
            found.add("never_started")
        first.setdefault(
            seat,
            {
                "status": str(verdict[0]),
                "reason": verdict[1] if len(verdict) > 1 else None,
                "detail": verdict_detail(verdict, reply) or None,
                "where": where,
            },
        )
    return [
        {"kinds": [k for k in KINDS if k in kinds[seat]], **first[seat]} if seat in first else None
        for seat in range(seats)
    ]


def kinds_of_statuses(statuses: Mapping[str, int]) -> list[FailureKind]:
    """The kinds of failure a seat's status counts show (for results recorded without a summary)."""
    return [kind for status, kind in _KIND_OF_STATUS.items() if statuses.get(status, 0) > 0]


@dataclass
class EntrantFailures:
    """One entrant's failures over the matches it played: how many matches of each kind (a match
    counts once per kind, and may count in several), how many had any, and the first one."""

    name: str
    played: int = 0
    failed: int = 0
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    first: dict[str, Any] | None = None  # {status, reason, detail, where, match, match_id}
    _first_at: tuple[bool, int, str] | None = field(default=None, repr=False)

    @property
    def dead(self) -> bool:
        """Whether it never started in any match it played (and played one)."""
        return self.played > 0 and self.counts["never_started"] == self.played

    def offer_first(self, failure: Mapping[str, Any], round_: int, key: str, match_id: int | None) -> None:
        """Keep `failure` (of match `key`) as the first failure unless an earlier one is kept: one
        with its reason beats one recorded without (before revision 0003), then the earlier round."""
        at = (failure.get("status") is None, round_, key)
        if self._first_at is not None and at >= self._first_at:
            return
        self._first_at = at
        self.first = {
            "status": failure.get("status"),
            "reason": failure.get("reason"),
            "detail": failure.get("detail"),
            "where": failure.get("where"),
            "match": key,
            "match_id": match_id,
        }

    def counts_text(self) -> str:
        """e.g. "crashed 3/3, timed out 1/3"."""
        return ", ".join(
            f"{LABELS[kind]} {self.counts[kind]}/{self.played}" for kind in KINDS if self.counts[kind]
        )

    def first_text(self) -> str:
        """e.g. "CRASHED (bot_error) at step 1: ZeroDivisionError: ... (match r1-m2)"."""
        first = self.first
        if first is None:
            return ""
        if first.get("status") is None:  # recorded before failures were: only the counts are known
            return f"no reason recorded (match {first['match']})"
        reason = f" ({first['reason']})" if first.get("reason") else ""
        detail = f": {first['detail']}" if first.get("detail") else ""
        return f"{first['status']}{reason} at {first['where']}{detail} (match {first['match']})"

    def line(self) -> str:
        """One line: "crashed 3/3: CRASHED (bot_error) at step 1: ZeroDivisionError: ... (match r1-m2)"."""
        first = self.first_text()
        return f"{self.counts_text()}: {first}" if first else self.counts_text()

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "played": self.played,
            "failed": self.failed,
            "counts": dict(self.counts),
            "first": self.first,
            "dead": self.dead,
            "line": self.line(),
        }


class FailureTally:
    """Entrants' failures, added one finished match at a time (the coordinator's running count) or
    from the store's rows at once (`from_rows`). The first failure is the first in the canonical
    match order (round, key), whatever order the matches finished in; one with its reason comes
    before any recorded without (results from before revision 0003)."""

    def __init__(self, names: Iterable[str]) -> None:
        self.entrants: dict[str, EntrantFailures] = {name: EntrantFailures(name) for name in names}

    def add(
        self,
        key: str,
        round_: int,
        seats: Sequence[str],
        failures: Sequence[Mapping[str, Any] | None] | None,
        statuses: Sequence[Mapping[str, int]] | None = None,
        match_id: int | None = None,
    ) -> None:
        """Count one finished match: `failures` per seat (`seat_failures`); for a seat without one
        whose `statuses` show failures (recorded without the summary) the kinds come from those."""
        seen: dict[str, tuple[set[str], Mapping[str, Any] | None]] = {}
        for seat, name in enumerate(seats):
            failure = failures[seat] if failures is not None and seat < len(failures) else None
            if not failure and statuses is not None and seat < len(statuses):
                # no summary: a result from before revision 0003 (NULL), or a recorder that gives
                # none; a seat with one is all OK, so its statuses agree
                kinds = kinds_of_statuses(statuses[seat])
                failure = {"kinds": kinds, "status": None} if kinds else None
            found, first = seen.setdefault(name, (set(), None))
            if failure:
                found.update(failure.get("kinds") or [])
                seen[name] = (found, first or failure)
        for name, (found, first) in seen.items():
            entrant = self.entrants.setdefault(name, EntrantFailures(name))
            entrant.played += 1
            if not found:
                continue
            entrant.failed += 1
            for kind in found:
                if kind in entrant.counts:
                    entrant.counts[kind] += 1
            # a failure with its reason is preferred to one recorded without (before revision 0003)
            if first is not None:
                entrant.offer_first(first, round_, key, match_id)

    @classmethod
    def from_rows(cls, names: Iterable[str], rows: Iterable[MatchRow]) -> FailureTally:
        """The tally of the finished ones of `rows` (the store's MatchRows)."""
        tally = cls(names)
        for row in rows:
            if row.status == "finished":
                tally.add(row.key, row.round, row.seats, row.failures, row.statuses, row.id)
        return tally

    def failing(self) -> list[EntrantFailures]:
        """The entrants with a failure, in registration order."""
        return [e for e in self.entrants.values() if e.failed]

    def dead(self) -> list[EntrantFailures]:
        """The entrants that never started in any match they played."""
        return [e for e in self.entrants.values() if e.dead]
