"""A replay written as the game is played, so that a killed host loses at most the step in flight.

While a match runs, its replay file holds a *journal*: one gzip stream of JSON lines, written with a
sync flush at every keyframe and at least every `flush_every_s` seconds, so that whatever a SIGKILL
leaves on disk decompresses up to its last flush. The lines, in the order things happened:

    {"journal": 1, "header": {game, rules, preset, config, seed, players, match_id, created_by},
     "resume": {...}}                       how to start the same game again (`botarena play` writes
                                            its bot specs and their files' digests), or absent
    {"start": {replies, verdicts}}          the start exchange
    {"keyframe": {step, state}}
    {"late": {after_step, reply}}           (before the step it precedes)
    {"step": {replies, verdicts, record}, "n": k}
    {"resumed": {after_step, replies, created_by}}   where a resumed game went on live
    {"external": {...}}                     an input from outside the bots (Devops bonus codes), as it
                                            happened; a resumed game restores its side effects

When the game ends, the complete replay (`botarena.core.replay`) replaces the journal atomically.

`read_journal` takes what a journal holds up to its last complete step: a `Replay` with
`partial=True` (steps 1..n, keyframes and late replies up to n), the header's `resume` section and
the external events. `read_replay` reads journals too, so `replay`, `--verify` and the viewer open a
killed game's file and say it is partial.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
import zlib
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from botarena.core.replay import (
    JOURNAL_VERSION,
    Journal,
    Replay,
    ReplayError,
    decompress_prefix,
    is_journal,
    parse_journal,
)

FLUSH_EVERY_S = 2.0
_HEADER_FIELDS = ("game", "rules", "preset", "config", "seed", "players", "match_id", "created_by")


class ReplayJournal:
    """Writes a running match's replay to `path` as a journal (see the module docstring).

    Give `begin` the replay once its start exchange and first keyframe are in it (or, resuming, once
    it holds every re-run step), then `sync` after each step: everything appended to the replay since
    (late replies, steps, keyframes) is written, and flushed when a keyframe was among it or
    `flush_every_s` has passed; a thread of the journal's own flushes what is still unflushed
    `flush_every_s` later, so a step is on disk within that time even while the next one is slow.
    `external(event)` writes and flushes an outside input at once.
    A write that fails (a full disk) is reported once on stderr and stops the journal; the match
    goes on, since losing the game to protect its backup would be backwards.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        resume: dict[str, Any] | None = None,
        external: list[dict[str, Any]] | None = None,
        flush_every_s: float = FLUSH_EVERY_S,
    ) -> None:
        self.path = Path(path)
        # every outside input so far (a resumed game's, then new ones): `begin` writes them again
        self._carried: list[dict[str, Any]] = list(external or ())
        self.resume = resume
        self.flush_every_s = flush_every_s
        self._file: BinaryIO | None = None
        self._zip: Any = None
        self._written = {"steps": 0, "keyframes": 0, "late": 0, "resumes": 0}
        self._last_flush = 0.0
        self._replay: Replay | None = None
        self.failed: str | None = None
        # `external` is called from a live server's threads while the match thread syncs, and a
        # thread of the journal's own flushes what a slow step leaves unflushed
        self._lock = threading.RLock()
        self._dirty = False
        self._closed = threading.Event()
        self._pacer: threading.Thread | None = None

    def observers(self, on_begin: Any = None, on_step: Any = None) -> tuple[Any, Any]:
        """`run_match`/`resume_match` observers that keep this journal up to date, then call the
        given ones (the journal first, so a live viewer's failure cannot cost it a step)."""

        def begin(replay: Replay) -> None:
            self.begin(replay)
            if on_begin is not None:
                on_begin(replay)

        def step(index: int, record: Any, engine: Any) -> None:
            self.sync()
            if on_step is not None:
                on_step(index, record, engine)

        return begin, step

    # -- writing -----------------------------------------------------------------------------------
    def begin(self, replay: Replay) -> None:
        """Start the journal with everything `replay` holds already. It is written to a temporary
        file that replaces `path` once flushed, so a kill meanwhile leaves the previous file (a
        resumed game's journal) whole."""
        with self._lock:
            self._begin(replay)
        if self._file is not None and self._pacer is None:
            self._pacer = threading.Thread(target=self._flush_when_due, name="journal-flush", daemon=True)
            self._pacer.start()

    def _begin(self, replay: Replay) -> None:
        self._replay = replay
        self._written = dict.fromkeys(self._written, 0)
        fresh = self.path.with_name(self.path.name + ".tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(fresh, "wb")  # noqa: SIM115 - kept open for the whole match
            self._zip = zlib.compressobj(1, zlib.DEFLATED, 31)  # gzip; level 1: it is rewritten at the end
            header: dict[str, Any] = {"journal": JOURNAL_VERSION, "header": _header(replay)}
            if self.resume is not None:
                header["resume"] = self.resume
            self._write(header)
            self._write({"start": replay.start})
            for event in self._carried:
                self._write({"external": event})
            self._sync(force=True)
            if self._file is not None:
                os.replace(fresh, self.path)  # the open file is now the journal at `path`
        except OSError as exc:
            self._fail(exc)

    def _flush_when_due(self) -> None:
        """Flush what a slow step left written but unflushed, every `flush_every_s` (a step can
        take long: a Devops turn waits up to 20 s for slow services)."""
        while not self._closed.wait(max(self.flush_every_s, 0.1)):
            with self._lock:
                if self._file is None:
                    return
                if self._dirty:
                    try:
                        self._flush(time.monotonic())
                    except OSError as exc:
                        self._fail(exc)

    def sync(self, force: bool = False) -> None:
        """Write what the replay gained since the last call; flush if a keyframe came or it is time."""
        with self._lock:
            self._sync(force)

    def _sync(self, force: bool) -> None:
        replay = self._replay
        if self._file is None or replay is None:
            return
        written = self._written
        try:
            keyframe = self._write_new("resumes", replay.resumes, "resumed")
            self._write_new("late", replay.late, "late")
            steps = replay.steps
            for index in range(written["steps"], len(steps)):
                self._write({"step": steps[index], "n": index + 1})
            written["steps"] = len(steps)
            keyframe |= self._write_new("keyframes", replay.keyframes, "keyframe")
            now = time.monotonic()
            if force or keyframe or now - self._last_flush >= self.flush_every_s:
                self._flush(now)
        except OSError as exc:
            self._fail(exc)

    def external(self, event: dict[str, Any]) -> None:
        """Record an outside input now (it must survive a kill that comes before the next step)."""
        with self._lock:
            self._carried.append(event)
            if self._file is None:
                return
            try:
                self._write({"external": event})
                self._flush(time.monotonic())
            except OSError as exc:
                self._fail(exc)

    def close(self) -> None:
        """Close the file as it stands (still a journal: the game can be resumed from it)."""
        self._closed.set()
        with self._lock:
            self._close()

    def _close(self) -> None:
        if self._file is None:
            return
        try:
            self._sync(force=True)
            if self._file is not None:
                self._file.write(self._zip.flush(zlib.Z_FINISH))
                self._file.close()
        except OSError as exc:
            self._fail(exc)
        self._file = None

    def _write_new(self, name: str, items: list[Any], kind: str) -> bool:
        start = self._written[name]
        for item in items[start:]:
            self._write({kind: item})
        self._written[name] = len(items)
        return len(items) > start

    def _write(self, line: dict[str, Any]) -> None:
        assert self._file is not None
        self._file.write(self._zip.compress(orjson.dumps(line) + b"\n"))
        self._dirty = True

    def _flush(self, now: float) -> None:
        assert self._file is not None
        self._file.write(self._zip.flush(zlib.Z_SYNC_FLUSH))
        self._file.flush()
        self._last_flush = now
        self._dirty = False

    def _fail(self, exc: OSError) -> None:
        self.failed = f"cannot write the replay journal {self.path}: {exc.strerror or exc}"
        print(f"botarena: {self.failed}; the match goes on without it", file=sys.stderr)
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
        self._file = None


def _header(replay: Replay) -> dict[str, Any]:
    return {name: getattr(replay, name) for name in _HEADER_FIELDS}


def read_journal(path: str | Path) -> Journal:
    """Read a journal file (raises ReplayError with a one-line reason if it is not one)."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ReplayError(f"cannot read {path}: {exc.strerror or exc}") from None
    text = decompress_prefix(raw) if raw[:2] == b"\x1f\x8b" else raw
    if not is_journal(text):
        raise ReplayError(f"{path}: not a replay journal (a finished game's replay, or not a replay)")
    return parse_journal(text, str(path))
