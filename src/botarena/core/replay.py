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

A reply is `{seat, status, payload, reason?, warnings?, ms}`: what the transport saw. A verdict is
`[status, reason]` (plus detail and warnings when present): the engine's final judgement.
"""

from __future__ import annotations

import gc
import gzip
import zlib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import orjson

from botarena.core.protocol import Verdict

REPLAY_FORMAT = "botarena.replay"
REPLAY_FORMAT_VERSION = 1


class ReplayError(ValueError):
    """A file that is not a readable botarena replay."""


def verdict_json(verdict: Verdict) -> list[Any]:
    """Compact form of a verdict: [status, reason] or [status, reason, detail, warnings]."""
    # (runner/match.py inlines this in its loop; keep the two in step)
    if verdict.detail is None and not verdict.warnings:
        return [verdict.status._value_, verdict.reason]
    return [verdict.status._value_, verdict.reason, verdict.detail, verdict.warnings]


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

    def _fields(self) -> dict[str, Any]:
        """The format marker and every field, sharing the replay's own objects (no copy)."""
        data: dict[str, Any] = {"format": REPLAY_FORMAT, "format_version": REPLAY_FORMAT_VERSION}
        for name in _FIELD_NAMES:
            data[name] = getattr(self, name)
        if not self.late:  # only games with late replies write it (older readers ignore it anyway)
            del data["late"]
        return data

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


def write_replay(replay: Replay, path: str | Path) -> Path:
    """Write `replay` as gzip JSON (atomically: a temporary file, then a rename)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_bytes(gzip.compress(replay.dumps(), compresslevel=6, mtime=0))
    tmp.replace(target)
    return target


def read_replay(path: str | Path) -> Replay:
    """Read a replay file (gzip or plain JSON). Raises ReplayError with a one-line reason."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ReplayError(f"cannot read {path}: {exc.strerror or exc}") from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise ReplayError(f"{path}: corrupt gzip data ({exc})") from None
    # A long replay is millions of containers: with the collector on, the parse triggers full
    # collections over everything parsed so far (3-4x the parse itself, benchmarks/overhead.py).
    # orjson holds the GIL throughout, so switching it off here affects no other thread.
    collecting = gc.isenabled()
    gc.disable()
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ReplayError(f"{path}: not valid JSON ({exc})") from None
    finally:
        if collecting:
            gc.enable()
    return Replay.from_json(data)
