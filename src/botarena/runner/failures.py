"""Per-seat failure reports of a finished match (issue 26, item 1): what went wrong for each seat,
where first, and what of its replies was lost, read from the replay alone.

A recorded exchange holds `replies` and `verdicts`, the verdict at index i judging the reply at
index i. The seat of a verdict is that reply's `seat`, never the verdict's index: games that ask one
request per seat (Domains, GameOfDrones, DatsPulse) list one verdict per seat in seat order, but a
Devops step holds one verdict per call (a faction's base and each of its units) and a Crafting Quest
step holds the one action of whoever's turn it is.

    for report in seat_reports(replay):
        print("\\n".join(report.lines()))
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from botarena.core.replay import Replay
from botarena.core.status import DROPPED_ENTRY, UNKNOWN_KEY, Status

LOG_TAIL_LINES = 5
"""How many of a seat's last log lines a report keeps."""

LOST = {DROPPED_ENTRY: "orders dropped", UNKNOWN_KEY: "unknown keys ignored"}
"""The warning codes that say a part of a reply was not used, and how a report names them, the worst
first: an order dropped is lost, while an unknown key may only be a misspelt optional field."""

_LOST_ORDER = {code: rank for rank, code in enumerate(LOST)}

DETAIL_CHARS = 240
"""A detail or log line longer than this is cut in a report (the replay keeps it whole)."""

_OK = Status.OK.value


@dataclass(frozen=True)
class FirstOf:
    """How often one status (or warning code) came up for a seat, and its first instance."""

    code: str
    """The status (`TIMEOUT`, `INVALID`, `CRASHED`) or the warning code."""
    count: int
    reason: str | None
    """The verdict's reason code (None for a warning)."""
    where: str
    """`start`, `step N` (1-based, as `botarena replay` counts) or `end`."""
    detail: str
    """The verdict's detail, else its first warning's, else the reply's (may be empty)."""

    def described(self) -> str:
        """`CRASHED (bot_error) at step 3: ValueError: ...`"""
        reason = f" ({self.reason})" if self.reason else ""
        return f"{self.code}{reason} at {self.where}{_colon(self.detail)}"


@dataclass(frozen=True)
class SeatReport:
    """What one seat's bot got wrong in one match: only seats with something to say get one."""

    seat: int
    """0-based, as in the replay."""
    name: str
    """The bot's display name in the replay."""
    counts: Mapping[str, int]
    """Non-OK verdicts by status, in the order each status first came up: {"TIMEOUT": 17}."""
    firsts: tuple[FirstOf, ...]
    """The first verdict of each status in `counts`, in the same order."""
    never_played: bool
    """No OK answer to any step though some answer was not OK (answering `start`/`end` alone is
    not playing, nor is an OK with a reason): the match went on without this bot."""
    losses: tuple[FirstOf, ...] = ()
    """Warnings that say what of its replies was not used (`LOST`), counted, with the first, in
    `LOST`'s order."""
    log_tail: tuple[str, ...] = field(default_factory=tuple)
    """The last lines of the bot's log (stderr, an in-process bot's prints and tracebacks)."""

    @property
    def first(self) -> FirstOf | None:
        """The first non-OK verdict of the match for this seat."""
        return self.firsts[0] if self.firsts else None

    def headline(self) -> str:
        """One line: status counts, then the first failure (status, reason, where, detail), or the
        first loss when every verdict was OK."""
        if not self.firsts:
            return _loss_text(self.losses[0]) if self.losses else "no failures"
        counts = " ".join(f"{status}:{n}" for status, n in self.counts.items())
        never = "never played: " if self.never_played else ""
        return f"{never}{self.firsts[0].described()} [{counts}]"

    def lines(self, bot: str | None = None, indent: str = "    ") -> list[str]:
        """The report as text: `seat N (bot) <headline>`, then one indented line for the first of
        each other status and for each loss, then the log tail. `bot` replaces the display name
        (the CLI gives "name, spec")."""
        out = [f"seat {self.seat} ({bot or self.name}) {self.headline()}"]
        out += [f"{indent}the first {first.described()}" for first in self.firsts[1:]]
        losses = self.losses if self.firsts else self.losses[1:]
        out += [f"{indent}{_loss_text(loss)}" for loss in losses]
        out += [f"{indent}{line}" for line in self.log_tail]
        return out


def seat_reports(replay: Replay, tail_lines: int = LOG_TAIL_LINES) -> list[SeatReport]:
    """A report for each seat of `replay` that had a non-OK verdict or lost part of a reply, in
    seat order. Reads only plain replay fields, so a partial or hand-edited replay gives a report
    of what it holds rather than an error."""
    seats = len(getattr(replay, "players", None) or [])
    tallies = [_Tally() for _ in range(seats)]
    for where, seat, verdict, reply in seat_verdicts(replay):
        if 0 <= seat < seats:
            tallies[seat].add(where, verdict, reply)
    logs = _logs(replay)
    reports = []
    for seat, tally in enumerate(tallies):
        if not tally.firsts and not tally.losses:
            continue
        firsts = tally.finished(tally.firsts)
        player = replay.players[seat] if isinstance(replay.players[seat], Mapping) else {}
        reports.append(
            SeatReport(
                seat=seat,
                name=str(player.get("name", f"seat{seat}")),
                counts={first.code: first.count for first in firsts},
                firsts=firsts,
                never_played=bool(firsts) and not tally.played,
                losses=tuple(sorted(tally.finished(tally.losses), key=lambda loss: _LOST_ORDER[loss.code])),
                log_tail=_tail(logs.get(seat, ""), tail_lines),
            )
        )
    return reports


def exchanges(replay: Replay) -> list[tuple[str, Mapping[str, Any]]]:
    """Every recorded exchange of a replay with where it happened: start, step 1..n, end."""
    steps = [(f"step {i}", step) for i, step in enumerate(getattr(replay, "steps", None) or [], start=1)]
    found = [("start", getattr(replay, "start", None)), *steps, ("end", getattr(replay, "end", None))]
    return [(where, exchange) for where, exchange in found if isinstance(exchange, Mapping)]


def seat_verdicts(replay: Replay) -> Iterator[tuple[str, int, list[Any], Mapping[str, Any]]]:
    """(where, seat, verdict, reply) of every verdict, the seat taken from the verdict's reply."""
    for where, exchange in exchanges(replay):
        replies = exchange.get("replies") or []
        for index, verdict in enumerate(exchange.get("verdicts") or []):
            if not isinstance(verdict, list) or not verdict:
                continue
            reply = replies[index] if index < len(replies) and isinstance(replies[index], Mapping) else {}
            seat = reply.get("seat", index)  # a replay without replies: one verdict per seat
            if isinstance(seat, int) and not isinstance(seat, bool):
                yield where, seat, verdict, reply


class _Tally:
    """One seat's counts while the replay is read: {code: [count, reason, where, detail]}."""

    def __init__(self) -> None:
        self.firsts: dict[str, list[Any]] = {}
        self.losses: dict[str, list[Any]] = {}
        self.played = False

    def add(self, where: str, verdict: list[Any], reply: Mapping[str, Any]) -> None:
        status = str(verdict[0])
        warnings = _warnings(verdict, reply)
        if status == _OK:
            # answering `start` or `end` alone is not playing, nor is an OK that says the answer was
            # not taken (Crafting Quest's question sent after the turn closed: `action_limit`)
            self.played = self.played or (where.startswith("step") and _opt_str(verdict, 1) is None)
        else:
            _count(self.firsts, status, _opt_str(verdict, 1), where, _detail(verdict, warnings))
        for warning in warnings:
            code = warning.get("code")
            if code in LOST:
                _count(self.losses, code, None, where, str(warning.get("detail") or ""))

    @staticmethod
    def finished(found: dict[str, list[Any]]) -> tuple[FirstOf, ...]:
        return tuple(FirstOf(code, *entry) for code, entry in found.items())


def _count(found: dict[str, list[Any]], code: str, reason: str | None, where: str, detail: str) -> None:
    entry = found.get(code)
    if entry is None:
        found[code] = [1, reason, where, detail]
    else:
        entry[0] += 1


def _warnings(verdict: list[Any], reply: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The verdict's warnings, else (a verdict that copied none) the reply's."""
    found = verdict[3] if len(verdict) > 3 and verdict[3] else reply.get("warnings") or []
    return [w for w in found if isinstance(w, Mapping)] if isinstance(found, list) else []


def _detail(verdict: list[Any], warnings: Sequence[Mapping[str, Any]]) -> str:
    """A verdict's detail, else its first warning's (an in-process bot's exception), else ""."""
    detail = _opt_str(verdict, 2)
    if detail is None and warnings:
        detail = str(warnings[0].get("detail") or warnings[0].get("code") or "")
    return _cut(detail or "")


def verdict_detail(verdict: list[Any], reply: Mapping[str, Any]) -> str:
    """A recorded verdict's detail as a report shows it (cut to DETAIL_CHARS; "" when it has none)."""
    return _detail(verdict, _warnings(verdict, reply))


def _opt_str(verdict: list[Any], index: int) -> str | None:
    value = verdict[index] if len(verdict) > index else None
    return None if value is None or value == "" else str(value)


def _loss_text(loss: FirstOf) -> str:
    """`162 orders dropped (DROPPED_ENTRY), the first at step 1: entry 0: ...`"""
    what = LOST.get(loss.code, loss.code)
    return f"{loss.count} {what} ({loss.code}), the first at {loss.where}{_colon(loss.detail)}"


def _logs(replay: Replay) -> dict[int, str]:
    found: dict[int, str] = {}
    for index, entry in enumerate(getattr(replay, "logs", None) or []):
        if isinstance(entry, Mapping) and isinstance(entry.get("text"), str):
            seat = entry.get("seat", index)
            found[seat if isinstance(seat, int) else index] = entry["text"]
    return found


def _tail(text: str, lines: int) -> tuple[str, ...]:
    if lines <= 0:
        return ()
    return tuple(_cut(line) for line in text.rstrip("\n").splitlines()[-lines:])


def _cut(text: str) -> str:
    return text if len(text) <= DETAIL_CHARS else text[: DETAIL_CHARS - 3] + "..."


def _colon(detail: str) -> str:
    return f": {detail}" if detail else ""
