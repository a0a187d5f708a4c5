"""The arena's words (`specs/arena.md`): competition phases, version states, match kinds and the
reasons a match was made, and every code a rejection carries. Each is a `StrEnum`, so the store and the
API carry the same strings the spec names."""

from __future__ import annotations

from enum import StrEnum

from botarena.bots.urls import UrlRejection as UrlRejection  # the URL checks live with the HTTP bots


class Phase(StrEnum):
    """A competition's phase: uploads are taken only while `open`; `paused` stops scheduling but lets
    running matches finish; `frozen` closes uploads."""

    DRAFT = "draft"
    OPEN = "open"
    PAUSED = "paused"
    FROZEN = "frozen"
    CLOSED = "closed"


# The phase changes an organizer may make; `frozen` -> `open` only with `force` (see `phase_change_allowed`).
_PHASE_CHANGES: dict[Phase, frozenset[Phase]] = {
    Phase.DRAFT: frozenset({Phase.OPEN, Phase.CLOSED}),
    Phase.OPEN: frozenset({Phase.PAUSED, Phase.FROZEN, Phase.CLOSED}),
    Phase.PAUSED: frozenset({Phase.OPEN, Phase.FROZEN, Phase.CLOSED}),
    Phase.FROZEN: frozenset({Phase.CLOSED}),
    Phase.CLOSED: frozenset(),
}


def phase_change_allowed(current: Phase, new: Phase, *, force: bool = False) -> bool:
    """Whether an organizer may move a competition from `current` to `new` (the same phase is a no-op
    and allowed). Reopening a frozen competition needs `force`; a closed one never reopens."""
    if new == current:
        return True
    if current == Phase.FROZEN and new == Phase.OPEN:
        return force
    return new in _PHASE_CHANGES[current]


class Format(StrEnum):
    """`pairs`: rated matches of a few seats chosen by the scheduler; `world`: one N-player match of
    every ready team (the Devops course, DatsPulse lockstep, 3-4 player Domains)."""

    PAIRS = "pairs"
    WORLD = "world"


class Role(StrEnum):
    ANONYMOUS = "anonymous"
    TEAM = "team"
    ORGANIZER = "organizer"


class VersionKind(StrEnum):
    UPLOAD = "upload"
    URL = "url"


class VersionState(StrEnum):
    """`received -> validating -> ready | rejected -> active -> retired`, plus `superseded` (a newer
    upload replaced it in the validation queue), `paused` (a crash streak) and `disabled` (the
    organizer)."""

    RECEIVED = "received"
    VALIDATING = "validating"
    READY = "ready"
    REJECTED = "rejected"
    ACTIVE = "active"
    RETIRED = "retired"
    SUPERSEDED = "superseded"
    PAUSED = "paused"
    DISABLED = "disabled"


# The states a version can still leave on its own way to playing: a newer upload supersedes these.
QUEUED_STATES = frozenset({VersionState.RECEIVED, VersionState.VALIDATING})


class MatchKind(StrEnum):
    RATED = "rated"
    VALIDATION = "validation"
    SCRIMMAGE = "scrimmage"
    FINAL = "final"


class MatchReason(StrEnum):
    """Why the scheduler made a match, shown on its page."""

    VALIDATION = "validation"
    PLACEMENT = "placement"
    DEFICIT = "deficit"
    WORLD = "world"
    RETRY = "retry"


class ArchiveRejection(StrEnum):
    """The 422 codes of an upload refused on its bytes (spec: Uploads and the archive checks)."""

    NOT_ARCHIVE = "not_archive"
    ABSOLUTE_PATH = "absolute_path"
    DOTDOT = "dotdot"
    BACKSLASH = "backslash"
    NUL_OR_BAD_UTF8 = "nul_or_bad_utf8"
    SYMLINK = "symlink"
    HARDLINK = "hardlink"
    DEVICE_OR_FIFO = "device_or_fifo"
    ENCRYPTED = "encrypted"
    DUPLICATE_NAME = "duplicate_name"
    NAME_MISMATCH = "name_mismatch"
    TOO_MANY_ENTRIES = "too_many_entries"
    TOO_BIG = "too_big"
    RATIO = "ratio"
    NESTED_TOO_DEEP = "nested_too_deep"
    NO_ENTRY = "no_entry"
    NATIVE_NOT_ALLOWED = "native_not_allowed"


class ValidationRejection(StrEnum):
    """Why a version failed its validation matches (judged on its own seats only)."""

    CRASHED_AT_START = "crashed_at_start"
    CRASHED = "crashed"
    TIMEOUT = "timeout"
    INVALID_REPLY = "invalid_reply"
    SETUP = "setup"
    VERIFY_MISMATCH = "verify_mismatch"
    UNREACHABLE = "unreachable"


class PauseReason(StrEnum):
    CRASH_STREAK = "crash_streak"
