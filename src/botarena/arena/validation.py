"""Judging a new version by its validation matches (`specs/arena.md`, Validation).

A version plays a few sealed matches against a starter before any rated match. It passes when every
match finished and, **on its own seats only** (an opponent's trouble is never held against it): no
`CRASHED`, no `INVALID`, `TIMEOUT` on at most max(1, 1 %) of its turns, and a re-run of one replay
(`runner.verify.verify_replay`) is identical. Otherwise it is rejected with one code, the first error in
one line, the head and tail of its own log, and the replay the team can fetch and re-run.

A URL entry whose service was never reached (every call of its own seats refused, reset, failed to
resolve or timed out: nothing ever answered) is rejected `unreachable` with the host error in one
line, not `crashed_at_start` or `timeout`: the team is told to fix its service, and the verdict is
final (a rejected version is never tried again).

The judge reads replays only; the coordinator plays the matches, runs the verification and tells a
platform failure (retried, never a rejection) apart from a version that could not be set up.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from botarena.arena.vocabulary import Format, ValidationRejection
from botarena.core.replay import Replay
from botarena.core.status import Status
from botarena.runner.failures import seat_verdicts, verdict_detail

TRANSPORT_WARNINGS = frozenset({"HTTP_ERROR", "TRANSPORT"})
"""The warning codes of an HTTP call that reached no service (bots/http.py, bots/devops_http.py): a
refused, reset or unresolvable connection, as opposed to an answer with an HTTP error status."""

LOG_HEAD_BYTES = 16 * 1024
LOG_TAIL_BYTES = 48 * 1024
"""A rejected version's own log as the team sees it: the first 16 KiB and the last 48 KiB (64 KiB)."""

FIRST_ERROR_CHARS = 300

WORLD_VALIDATION_SEATS = 4
"""The most seats of a validation match in a `world` competition: the version and up to 3 starters."""


def validation_seats(players: int, match_format: Format, min_players: int = 2) -> int:
    """The seats of a validation match: the version and `seats - 1` starters. A `pairs` match's own
    size; in a `world`, the world's size up to WORLD_VALIDATION_SEATS (never under the game's least).
    A world made with `--world` alone has the game's most players (DatsPulse 100, Devops 64): the
    validation still plays the version among several others, but not beside 99 starters in each of
    100 games (one per seat order), which would keep every upload waiting for an hour."""
    if match_format != Format.WORLD:
        return players
    return max(min_players, min(players, WORLD_VALIDATION_SEATS))


@dataclass(frozen=True)
class ValidationGame:
    """One validation match as the coordinator saw it: its replay, the seats the new version held in it,
    and, when the match could not be played because of the version (an entry that does not build, a
    URL that does not answer), that error in one line."""

    replay: Replay | None
    seats: tuple[int, ...]
    setup_error: str | None = None
    unreachable: bool = False
    """The setup error is a URL entry's host that could not be reached (`unreachable`, not `setup`)."""


@dataclass(frozen=True)
class ValidationVerdict:
    passed: bool
    code: ValidationRejection | None = None
    first_error: str = ""
    """One line: where and what, e.g. `CRASHED (bot_error) at step 3 of game 1: ValueError: ...`."""
    log: str = ""
    """The version's own log from the failing game, cut to LOG_HEAD_BYTES + LOG_TAIL_BYTES."""
    game: int | None = None
    """The index of the game the verdict comes from (its replay is the one to show)."""


PASSED = ValidationVerdict(passed=True)


def timeout_allowance(turns: int, fraction: float) -> int:
    """How many TIMEOUT verdicts a version may have over `turns` of its own: max(1, fraction of them)."""
    return max(1, int(turns * fraction))


def judge(
    games: Sequence[ValidationGame],
    *,
    max_timeout_fraction: float = 0.01,
    verify_mismatch: str | None = None,
    url_entry: bool = False,
) -> ValidationVerdict:
    """The verdict on a version from its validation games. `verify_mismatch` is the re-run's first
    difference (None when the re-run was identical or not run); `url_entry`: the version is a URL
    entry, rejected `unreachable` when its service never answered (module docstring)."""
    if not games:
        raise ValueError("a validation needs at least one game")
    if url_entry:
        never = _never_reached(games)
        if never is not None:
            return never
    for index, game in enumerate(games):
        failure = _setup_failure(index, game) or _seat_failure(index, game)
        if failure:
            return failure
    timeouts, turns = _timeouts(games)
    allowed = timeout_allowance(turns, max_timeout_fraction)
    if timeouts > allowed:
        index, where, detail = _first_timeout(games)
        return _rejected(
            ValidationRejection.TIMEOUT,
            f"TIMEOUT on {timeouts} of {turns} turns (allowed {allowed}), "
            f"the first at {where} of game {index + 1}{_colon(detail)}",
            games,
            index,
        )
    if verify_mismatch is not None:
        return _rejected(ValidationRejection.VERIFY_MISMATCH, f"re-run differs: {verify_mismatch}", games, 0)
    return PASSED


def _setup_failure(index: int, game: ValidationGame) -> ValidationVerdict | None:
    if game.setup_error is None:
        return None
    code = ValidationRejection.UNREACHABLE if game.unreachable else ValidationRejection.SETUP
    return _rejected(code, game.setup_error, [game], 0, game=index)


def _never_reached(games: Sequence[ValidationGame]) -> ValidationVerdict | None:
    """`unreachable` when every played game's every verdict on the version's own seats is a call
    that reached nothing (TRANSPORT_WARNINGS, or TIMEOUT), with the first such host error."""
    first: tuple[int, str] | None = None
    for index, game in enumerate(games):
        if game.replay is None:
            continue
        for where, seat, verdict, reply in seat_verdicts(game.replay):
            if seat not in game.seats:
                continue
            if not _unanswered(verdict, reply):
                return None
            if first is None:
                detail = _colon(verdict_detail(verdict, reply))
                first = index, f"{verdict[0]} at {where} of game {index + 1}{detail}"
    if first is None:
        return None
    index, line = first
    return _rejected(
        ValidationRejection.UNREACHABLE, f"the service was never reached: {line}", games, index, game=index
    )


def _unanswered(verdict: list[object], reply: Mapping[str, object]) -> bool:
    status = str(verdict[0])
    if status == Status.TIMEOUT.value:
        return True
    if status != Status.CRASHED.value:
        return False
    found = verdict[3] if len(verdict) > 3 and verdict[3] else reply.get("warnings")
    codes = {w.get("code") for w in found if isinstance(w, Mapping)} if isinstance(found, list) else set()
    return bool(codes & TRANSPORT_WARNINGS)


def _seat_failure(index: int, game: ValidationGame) -> ValidationVerdict | None:
    """The first CRASHED or INVALID verdict of the version's own seats, or an unfinished game."""
    replay = game.replay
    if replay is None:
        return _rejected(ValidationRejection.SETUP, f"game {index + 1} was not played", [game], 0, game=index)
    for where, seat, verdict, reply in seat_verdicts(replay):
        if seat not in game.seats:
            continue
        status = str(verdict[0])
        if status == Status.CRASHED.value:
            code = ValidationRejection.CRASHED_AT_START if where == "start" else ValidationRejection.CRASHED
        elif status == Status.INVALID.value:
            code = ValidationRejection.INVALID_REPLY
        else:
            continue
        reason = f" ({verdict[1]})" if len(verdict) > 1 and verdict[1] else ""
        line = f"{status}{reason} at {where} of game {index + 1}{_colon(verdict_detail(verdict, reply))}"
        return _rejected(code, line, [game], 0, game=index)
    if replay.end is None or not replay.result:
        return _rejected(
            ValidationRejection.CRASHED, f"game {index + 1} did not finish", [game], 0, game=index
        )
    return None


def _timeouts(games: Sequence[ValidationGame]) -> tuple[int, int]:
    """(TIMEOUT verdicts, turns) of the version's own seats over every game's steps."""
    timeouts = turns = 0
    for game in games:
        assert game.replay is not None  # every game was played: _seat_failure checked it
        for where, seat, verdict, _reply in seat_verdicts(game.replay):
            if seat in game.seats and where.startswith("step"):
                turns += 1
                timeouts += str(verdict[0]) == Status.TIMEOUT.value
    return timeouts, turns


def _first_timeout(games: Sequence[ValidationGame]) -> tuple[int, str, str]:
    for index, game in enumerate(games):
        assert game.replay is not None
        for where, seat, verdict, reply in seat_verdicts(game.replay):
            if seat in game.seats and str(verdict[0]) == Status.TIMEOUT.value:
                return index, where, verdict_detail(verdict, reply)
    raise AssertionError("no TIMEOUT verdict")  # only called when there are some


def _rejected(
    code: ValidationRejection,
    line: str,
    games: Sequence[ValidationGame],
    at: int,
    *,
    game: int | None = None,
) -> ValidationVerdict:
    chosen = games[at]
    return ValidationVerdict(
        passed=False,
        code=code,
        first_error=_one_line(line),
        log=own_log(chosen.replay, chosen.seats) if chosen.replay else "",
        game=at if game is None else game,
    )


def own_log(replay: Replay, seats: Sequence[int]) -> str:
    """The version's own seats' logs in `replay`, head and tail kept: never another seat's."""
    texts = []
    for index, entry in enumerate(replay.logs or []):
        seat = entry.get("seat", index) if isinstance(entry, dict) else None
        if seat in seats and isinstance(entry.get("text"), str):
            texts.append(entry["text"])
    return cut_log("\n".join(texts))


def cut_log(text: str) -> str:
    """`text` within LOG_HEAD_BYTES + LOG_TAIL_BYTES (UTF-8), the middle replaced by a marker line."""
    data = text.encode()
    if len(data) <= LOG_HEAD_BYTES + LOG_TAIL_BYTES:
        return text
    head = data[:LOG_HEAD_BYTES].decode(errors="ignore")
    tail = data[-LOG_TAIL_BYTES:].decode(errors="ignore")
    skipped = len(data) - LOG_HEAD_BYTES - LOG_TAIL_BYTES
    return f"{head}\n[... {skipped} bytes left out ...]\n{tail}"


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= FIRST_ERROR_CHARS else line[: FIRST_ERROR_CHARS - 3] + "..."


def _colon(detail: str) -> str:
    return f": {detail}" if detail else ""
