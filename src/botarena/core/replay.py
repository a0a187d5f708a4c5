"""The replay format: the truth about a match (DESIGN principle 2).

A replay is gzip-compressed JSON (orjson), versioned by `format` and `format_version`:

    game, rules (rules-version id), preset, config (every key), seed,
    players   [{seat, name, kind, meta?}],
    start     {replies: [...], verdicts: [...]},
    steps     [{replies: [...], verdicts: [...], record: {...}}]   one per batch of requests,
    end       {replies: [...], verdicts: [...]},
    result    {ranks, scores, details},
    keyframes [{step, state}]                                       every N steps, and the last,
    logs      [{seat, text, dropped_bytes, marks?}]                 capped bot logs; `marks`, when
                                       the bot printed: [step, UTF-8 offset] where each step's output
                                       starts (0: the start exchange),
    time_used_ms [per seat], statuses [{OK: n, ...} per seat], created_by,
    late      [{after_step, reply}]   answers that came after their request timed out, each with
                                       the step it was handed to the engine after (0: before the
                                       first step); only for games with late replies, and written
                                       only when there is one, so other replays are unchanged.
    resumes   [{after_step, replies, created_by}]   a game resumed after its host was killed
                                       (`botarena play --resume`): where it went on live, and the
                                       restarted bots' replies to their start request; only when there is one.
    partial   true                     only in a replay read from a journal (`botarena.core.journal`):
                                       the game had not finished; it holds its steps up to the last
                                       complete one, and no end, result, logs or totals.

A reply is `{seat, status, payload, reason?, warnings?, ms}`: what the transport saw. A verdict is
`[status, reason]` (plus detail and warnings when present): the engine's final judgement.
"""

from __future__ import annotations

import gc
import gzip
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import orjson

from botarena.core.protocol import Reply, Verdict

REPLAY_FORMAT = "botarena.replay"
REPLAY_FORMAT_VERSION = 1


class ReplayError(ValueError):
    """A file that is not a readable botarena replay."""


def verdict_json(verdict: Verdict) -> list[Any]:
    """Compact form of a verdict: [status, reason] or [status, reason, detail, warnings]."""
    # (exchange_entry inlines this for the runner's loop; keep the two in step)
    if verdict.detail is None and not verdict.warnings:
        return [verdict.status._value_, verdict.reason]
    return [verdict.status._value_, verdict.reason, verdict.detail, verdict.warnings]


_NO_RECORD: Any = object()
_reply_json = Reply.to_json


def exchange_entry(
    replies: Sequence[Reply],
    verdicts: Sequence[Verdict],
    record: Any = _NO_RECORD,
    statuses: list[dict[str, int]] | None = None,
) -> dict[str, Any]:
    """The replay's entry for one exchange: `{replies, verdicts}` for the start and the end, plus
    `record` for a step. With `statuses` (one tally per seat), each verdict is counted in its seat's.

    The one place a step is written: the runner, the RL session, the DatsPulse server and resume all
    build their entries here. The runner calls it once per step, so verdict_json is inlined."""
    verdicts_json: list[list[Any]] = []
    for verdict in verdicts:
        key = verdict.status._value_
        if statuses is not None:
            tally = statuses[verdict.seat]
            tally[key] = tally.get(key, 0) + 1
        if verdict.detail is None and not verdict.warnings:
            verdicts_json.append([key, verdict.reason])
        else:
            verdicts_json.append([key, verdict.reason, verdict.detail, verdict.warnings])
    entry: dict[str, Any] = {"replies": [_reply_json(r) for r in replies], "verdicts": verdicts_json}
    if record is not _NO_RECORD:
        entry["record"] = record
    return entry


def resume_entry(after_step: int, replies: Sequence[Reply], created_by: str) -> dict[str, Any]:
    """A `resumes` entry: where a killed game went on, and its restarted bots' start replies."""
    return {"after_step": after_step, "replies": [_reply_json(r) for r in replies], "created_by": created_by}


def tally_verdicts(statuses: list[dict[str, int]], verdicts: Iterable[Verdict]) -> None:
    """Count each verdict's status in its seat's tally."""
    for verdict in verdicts:
        tally = statuses[verdict.seat]
        key = verdict.status._value_
        tally[key] = tally.get(key, 0) + 1


def recorded_statuses(exchanges: Iterable[dict[str, Any]], seats: int) -> list[dict[str, int]]:
    """Each seat's tally of the verdict statuses of recorded exchanges (a verdict belongs to the seat
    of its reply: a per-call game has many verdicts of one seat in an exchange)."""
    statuses: list[dict[str, int]] = [{} for _ in range(seats)]
    for exchange in exchanges:
        for reply, verdict in zip(
            exchange.get("replies") or (), exchange.get("verdicts") or (), strict=False
        ):
            seat = reply.get("seat") if isinstance(reply, dict) else None
            if isinstance(seat, int) and 0 <= seat < seats and verdict:
                tally = statuses[seat]
                tally[str(verdict[0])] = tally.get(str(verdict[0]), 0) + 1
    return statuses


@dataclass
class Replay:
    """A match, completely. See the module docstring for the meaning of each field."""

    game: str
    rules: str
    preset: str
    config: dict[str, Any]
    seed: int
    players: list[dict[str, Any]]
    start: dict[str, Any] = field(default_factory=dict)
    steps: list[dict[str, Any]] = field(default_factory=list)
    end: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] = field(default_factory=dict)
    keyframes: list[dict[str, Any]] = field(default_factory=list)
    logs: list[dict[str, Any]] = field(default_factory=list)
    time_used_ms: list[float] = field(default_factory=list)
    statuses: list[dict[str, int]] = field(default_factory=list)
    match_id: str = ""
    created_by: str = ""
    late: list[dict[str, Any]] = field(default_factory=list)
    resumes: list[dict[str, Any]] = field(default_factory=list)
    partial: bool = False

    def _fields(self) -> dict[str, Any]:
        """The format marker and every field, sharing the replay's own objects (no copy)."""
        data: dict[str, Any] = {"format": REPLAY_FORMAT, "format_version": REPLAY_FORMAT_VERSION}
        for name in _FIELD_NAMES:
            data[name] = getattr(self, name)
        for name in _WRITTEN_WHEN_SET:  # absent unless used, so other replays are unchanged
            if not data[name]:
                del data[name]
        return data

    def save(self, path: str | Path) -> Path:
        """Write the replay to `path` as gzip JSON, as `botarena play --replay` does (`botarena view`
        and `botarena replay --verify` read it); returns the path written."""
        return write_replay(self, path)

    def to_json(self) -> dict[str, Any]:
        """A deep, JSON-able copy of the replay (changing it does not change the replay)."""
        return orjson.loads(self.dumps())  # type: ignore[no-any-return]

    def dumps(self) -> bytes:
        """Uncompressed JSON bytes. (orjson walks the replay itself: no intermediate copy, which for
        a long match is a hundred times faster than `dataclasses.asdict`.)"""
        return orjson.dumps(self._fields())

    @classmethod
    def from_json(cls, data: Any) -> Replay:
        if not isinstance(data, dict) or data.get("format") != REPLAY_FORMAT:
            raise ReplayError("not a botarena replay (missing format marker)")
        version = data.get("format_version")
        if version != REPLAY_FORMAT_VERSION:
            raise ReplayError(f"unsupported replay format version {version!r} (this botarena reads 1)")
        names = {f for f in cls.__dataclass_fields__}
        try:
            return cls(**{k: v for k, v in data.items() if k in names})
        except TypeError as exc:
            raise ReplayError(f"malformed replay: {exc}") from None


_FIELD_NAMES = tuple(f.name for f in fields(Replay))
_WRITTEN_WHEN_SET = ("late", "resumes", "partial")
JOURNAL_VERSION = 1
JOURNAL_MARK = b'{"journal":'


def write_replay(replay: Replay, path: str | Path) -> Path:
    """Write `replay` as gzip JSON (atomically: a temporary file, then a rename)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_bytes(gzip.compress(replay.dumps(), compresslevel=6, mtime=0))
    tmp.replace(target)
    return target


def read_replay(path: str | Path) -> Replay:
    """Read a replay file (gzip or plain JSON), or the journal of a game still running or killed
    (then `partial` is set). Raises ReplayError with a one-line reason."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ReplayError(f"cannot read {path}: {exc.strerror or exc}") from None
    return parse_replay(raw, str(path))


def parse_replay(raw: bytes, where: str = "replay") -> Replay:
    """A replay (or a journal) from the bytes of a replay file, gzip or plain JSON; `where` names
    them in the one-line ReplayError."""
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            prefix = decompress_prefix(raw)  # a journal whose end a kill cut off reads up to there
            if is_journal(prefix):
                return parse_journal(prefix, where).replay
            raise ReplayError(f"{where}: corrupt gzip data ({exc})") from None
    if is_journal(raw):
        return parse_journal(raw, where).replay
    # A long replay is millions of containers: with the collector on, the parse triggers full
    # collections over everything parsed so far (3-4x the parse itself, benchmarks/overhead.py).
    # orjson holds the GIL throughout, so switching it off here affects no other thread.
    collecting = gc.isenabled()
    gc.disable()
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ReplayError(f"{where}: not valid JSON ({exc})") from None
    finally:
        if collecting:
            gc.enable()
    return Replay.from_json(data)


# -- journals (botarena.core.journal writes them) -------------------------------------------------
@dataclass
class Journal:
    """What a journal file holds up to its last complete step."""

    replay: Replay
    resume: dict[str, Any] | None
    external: list[dict[str, Any]] = field(default_factory=list)


def is_journal(text: bytes) -> bool:
    """Whether decompressed file content is a journal (rather than a complete replay)."""
    return text[: len(JOURNAL_MARK)] == JOURNAL_MARK


def decompress_prefix(raw: bytes) -> bytes:
    """As much of a gzip file as decompresses, even when its end was cut off by a kill."""
    inflater = zlib.decompressobj(31)
    try:
        return inflater.decompress(raw)
    except zlib.error:
        # a torn last block: keep what came before it (decompress in pieces to find that prefix)
        inflater, out = zlib.decompressobj(31), bytearray()
        for offset in range(0, len(raw), 4096):
            try:
                out += inflater.decompress(raw[offset : offset + 4096])
            except zlib.error:
                break
        return bytes(out)


def parse_journal(text: bytes, where: str = "journal") -> Journal:
    """The Journal that decompressed journal content holds up to its last complete step."""
    lines = text.split(b"\n")
    lines.pop()  # the part after the last newline: empty, or a line the kill cut short
    try:
        first = orjson.loads(lines[0]) if lines else None
    except orjson.JSONDecodeError:
        first = None
    if not isinstance(first, dict) or "header" not in first:
        raise ReplayError(f"{where}: the journal's header is missing or cut short")
    if first.get("journal") != JOURNAL_VERSION:
        raise ReplayError(f"{where}: unsupported journal version {first.get('journal')!r}")
    header = first["header"]
    if not isinstance(header, dict):
        raise ReplayError(f"{where}: the journal's header is not an object")
    damaged = _damaged_header_fields(header)
    if damaged:
        raise ReplayError(f"{where}: the journal's header is damaged ({', '.join(damaged)})")
    if not isinstance(first.get("resume", {}), dict | None):
        raise ReplayError(f"{where}: the journal's resume section is not an object")
    data = {"format": REPLAY_FORMAT, "format_version": REPLAY_FORMAT_VERSION, **header, "partial": True}
    replay = Replay.from_json(data)
    journal = Journal(replay, first.get("resume"))
    for line in lines[1:]:
        try:
            entry = orjson.loads(line)
        except orjson.JSONDecodeError:
            break  # the torn end of a flush: nothing after it is complete
        if not _take(journal, entry):
            raise ReplayError(f"{where}: unreadable journal line {line[:60]!r}")
    _trim_to_steps(replay)
    return journal


_HEADER_TYPES: dict[str, type | tuple[type, ...]] = {
    "game": str,
    "rules": str,
    "preset": str,
    "config": dict,
    "seed": int,
    "players": list,
    "match_id": str,
    "created_by": str,
}


def _damaged_header_fields(header: dict[str, Any]) -> list[str]:
    """The header fields a journal's reader cannot use (missing, or not of their JSON type), so
    that a damaged file is refused in one line rather than failing deep in a re-run."""
    damaged = [
        name
        for name, kind in _HEADER_TYPES.items()
        if not isinstance(header.get(name), kind) or isinstance(header.get(name), bool)
    ]
    players = header.get("players")
    if isinstance(players, list) and not all(isinstance(player, dict) for player in players):
        damaged.append("players")
    return damaged


def _after_step_of(entry: Any, key: str) -> bool:
    """Whether `entry` is an object whose `key` is a step number (keyframes, late replies, resumes)."""
    return isinstance(entry, dict) and type(entry.get(key)) is int


def _take(journal: Journal, entry: Any) -> bool:
    """Add one journal line to `journal`; False if it is not a journal line of a known kind and
    shape (each kind's value is an object; a step comes with its number, in order)."""
    replay = journal.replay
    if not isinstance(entry, dict):
        return False
    if "step" in entry:
        if entry.get("n") != len(replay.steps) + 1 or not isinstance(entry["step"], dict):
            return False
        replay.steps.append(entry["step"])
    elif "keyframe" in entry:
        if not _after_step_of(entry["keyframe"], "step"):
            return False
        replay.keyframes.append(entry["keyframe"])
    elif "late" in entry:
        if not _after_step_of(entry["late"], "after_step"):
            return False
        replay.late.append(entry["late"])
    elif "start" in entry:
        if not isinstance(entry["start"], dict):
            return False
        replay.start = entry["start"]
    elif "resumed" in entry:
        if not _after_step_of(entry["resumed"], "after_step"):
            return False
        replay.resumes.append(entry["resumed"])
    elif "external" in entry:
        if not isinstance(entry["external"], dict):
            return False
        journal.external.append(entry["external"])
    else:
        return False
    return True


def _trim_to_steps(replay: Replay) -> None:
    """Keep only what belongs to the recorded steps (a keyframe or resume can follow its step's
    line, and a late reply precedes the step it was handed over before)."""
    count = len(replay.steps)
    replay.keyframes = [frame for frame in replay.keyframes if frame.get("step", 0) <= count]
    replay.late = [entry for entry in replay.late if entry.get("after_step", 0) <= count]
    replay.resumes = [entry for entry in replay.resumes if entry.get("after_step", 0) <= count]
