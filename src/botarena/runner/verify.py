"""Re-running a replay (DESIGN principle 2): feed the recorded replies to a fresh engine and prove
that every verdict, step record, keyframe and the result come out identical, or name the first
difference."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from botarena.core.game import Engine, GameInfo, Step
from botarena.core.protocol import Reply, Request
from botarena.core.registry import get_game
from botarena.core.replay import Replay, verdict_json


@dataclass
class VerifyReport:
    """`identical`, or the first difference in words (`where` and `detail`)."""

    identical: bool
    steps_checked: int
    where: str = ""
    detail: str = ""
    partial: bool = False
    """The replay is a journal's: the game did not finish, so there is no result to compare."""

    def __str__(self) -> str:
        if self.identical and self.partial:
            return (
                f"partial replay (the game did not finish): its {self.steps_checked} recorded steps"
                " re-run identical"
            )
        if self.identical:
            return f"identical: {self.steps_checked} steps re-run, every record and the result match"
        return f"differs at {self.where}: {self.detail}"


class RerunMismatch(Exception):
    """Where a re-run first differs from its replay (`where`), and how (`detail`)."""

    def __init__(self, where: str, detail: str) -> None:
        super().__init__(where, detail)
        self.where = where
        self.detail = detail


_SORTED = orjson.OPT_SORT_KEYS


def _canon(value: Any) -> Any:
    return orjson.loads(orjson.dumps(value))


def first_difference(expected: Any, actual: Any, path: str = "") -> str | None:
    """The path and values of the first difference between two JSON values, or None if equal."""
    if type(expected) is not type(actual):
        if isinstance(expected, int | float) and isinstance(actual, int | float) and expected == actual:
            return None
        return f"{path or 'value'}: replay has {_short(expected)}, re-run gives {_short(actual)}"
    if isinstance(expected, dict):
        for key in list(dict.fromkeys([*expected, *actual])):
            if key not in expected or key not in actual:
                return f"{path}.{key}: present in {'re-run' if key in actual else 'replay'} only"
            found = first_difference(expected[key], actual[key], f"{path}.{key}" if path else str(key))
            if found:
                return found
        return None
    if isinstance(expected, list):
        for index, (left, right) in enumerate(zip(expected, actual, strict=False)):
            found = first_difference(left, right, f"{path}[{index}]")
            if found:
                return found
        if len(expected) != len(actual):
            return f"{path}: replay has {len(expected)} items, re-run gives {len(actual)}"
        return None
    if expected != actual:
        return f"{path or 'value'}: replay has {_short(expected)}, re-run gives {_short(actual)}"
    return None


def _short(value: Any) -> str:
    text = orjson.dumps(value).decode()
    return text if len(text) <= 120 else text[:117] + "..."


def _check(where: str, expected: Any, actual: Any, what: str = "") -> None:
    # The usual case first, in C: the same JSON. Only a difference is walked in Python (a DatsPulse
    # record or keyframe of 50 teams is ~10^5 values: the walk would be most of a re-run's time).
    if orjson.dumps(expected, option=_SORTED) == orjson.dumps(actual, option=_SORTED):
        return
    found = first_difference(_canon(expected), _canon(actual), what)
    if found:
        raise RerunMismatch(where, found)


def _step_label(index: int, record: Any) -> str:
    label = f"step {index}"
    if isinstance(record, dict):
        parts = [f"{key} {record[key]}" for key in ("round", "turn") if key in record]
        if parts:
            label += f" ({', '.join(parts)})"
    return label


def _replies(recorded: Any, where: str) -> list[Reply]:
    try:
        return [Reply.from_json(item) for item in recorded]
    except (KeyError, TypeError, ValueError) as exc:
        raise RerunMismatch(where, f"unreadable reply in the replay ({exc})") from None


def _late_by_step(replay: Replay) -> dict[int, list[Reply]]:
    """The recorded late replies (games with `Engine.late_replies`), by the step they followed."""
    late: dict[int, list[Reply]] = {}
    for entry in replay.late:
        where = "late replies"
        try:
            after = int(entry["after_step"])
            late.setdefault(after, []).extend(_replies([entry["reply"]], where))
        except (KeyError, TypeError, ValueError) as exc:
            raise RerunMismatch(where, f"unreadable late reply in the replay ({exc})") from None
    return late


@dataclass
class PendingStep:
    """A recorded step, re-created but not yet applied: the engine's requests and the recorded replies
    (same order, same seats)."""

    index: int
    """1-based, as `replay --verify` and the viewer count steps."""
    where: str
    requests: list[Request]
    replies: list[Reply]
    recorded: dict[str, Any]


class ReplayRerun:
    """A replay's match played again through a fresh engine, exchange by exchange, checking every
    verdict, record and keyframe against the replay as it goes (raises RerunMismatch at the first
    difference).

    The caller drives it: `start_requests()`, `apply_start()`, then for each recorded step
    `next_step()` (the engine's requests, regenerated exactly) and `apply_step()`, then `finish()`.
    `verify_replay` walks it to the end; `botarena replay --feed` stops at a step to send its requests
    to another bot (runner/feed.py).
    """

    def __init__(self, replay: Replay, game: GameInfo[Any] | None = None) -> None:
        game = game or get_game(replay.game)
        if replay.rules != game.rules_version:
            raise RerunMismatch("header", f"rules {replay.rules!r}, this botarena has {game.rules_version!r}")
        self.replay = replay
        self.game = game
        self.engine = new_engine_for(replay, game)
        self.steps_done = 0
        self._keyframes = {frame["step"]: frame["state"] for frame in replay.keyframes}
        self._late = _late_by_step(replay)
        stray = sorted(step for step in self._late if not 0 <= step <= len(replay.steps))
        if stray:
            raise RerunMismatch(
                "late replies", f"a late reply after step {stray[0]}, but the replay has {len(replay.steps)}"
            )
        self._pending: PendingStep | None = None

    def start_requests(self) -> list[Request]:
        """The start exchange's requests, as the engine makes them."""
        return self.engine.start_requests()

    def start_replies(self) -> list[Reply]:
        """The start exchange's recorded replies."""
        return _replies((self.replay.start or {}).get("replies", []), "start")

    def apply_start(self) -> None:
        """Apply the recorded start replies and check their verdicts (after `start_requests`)."""
        verdicts = self.engine.apply_start(self.start_replies())
        _check(
            "start",
            (self.replay.start or {}).get("verdicts"),
            [verdict_json(v) for v in verdicts],
            "verdicts",
        )
        if 0 in self._keyframes:
            _check("keyframe at step 0", self._keyframes[0], self.engine.keyframe())

    def next_step(self) -> PendingStep:
        """Re-create the next recorded step: restore its external inputs (devops bonus codes, from
        its record), hand the engine the late replies the match handed it before it, and regenerate
        its requests."""
        index = self.steps_done + 1
        recorded = self.replay.steps[index - 1]
        where = _step_label(index, recorded.get("record"))
        self.engine.restore_external_inputs(recorded.get("record"))
        self._feed_late(index - 1)
        requests = self.engine.next_requests()
        if not requests:
            raise RerunMismatch(where, "the re-run game is over, but the replay has more steps")
        replies = _replies(recorded.get("replies", []), where)
        if [r.seat for r in requests] != [r.seat for r in replies]:
            asked, answered = [r.seat for r in requests], [r.seat for r in replies]
            raise RerunMismatch(where, f"the engine asks seats {asked}, the replay answers {answered}")
        self._pending = PendingStep(index, where, requests, replies, recorded)
        return self._pending

    def apply_step(self) -> Step:
        """Apply the recorded replies of the step `next_step` re-created and check its record,
        verdicts and keyframe."""
        pending, self._pending = self._pending, None
        if pending is None:
            raise RuntimeError("apply_step() without next_step()")
        step = self.engine.apply(pending.replies)
        # The record first: it shows the effect of a difference (`requested`, `applied`, counts).
        _check(pending.where, pending.recorded.get("record"), step.record, "record")
        _check(
            pending.where,
            pending.recorded.get("verdicts"),
            [verdict_json(v) for v in step.verdicts],
            "verdicts",
        )
        if pending.index in self._keyframes and not self._final_keyframe_after_late(pending.index):
            _check(
                f"keyframe at step {pending.index}", self._keyframes[pending.index], self.engine.keyframe()
            )
        self.steps_done = pending.index
        return step

    def _final_keyframe_after_late(self, index: int) -> bool:
        """Whether the keyframe at step `index` is the match's closing one, taken after the late
        replies handed over after its last step: `runner.match._play` appends it once the game is
        over (unless an interval keyframe is there already), which is after that hand-over."""
        last = len(self.replay.steps)
        return index == last and bool(self._late.get(last)) and index % self.game.keyframe_every != 0

    def finish(self) -> None:
        """After the last step: the game must be over, with the recorded result."""
        last = len(self.replay.steps)
        self._feed_late(last)
        if last in self._keyframes and self._final_keyframe_after_late(last):
            _check(f"keyframe at step {last}", self._keyframes[last], self.engine.keyframe())
        if self.engine.next_requests():
            raise RerunMismatch(
                f"step {len(self.replay.steps) + 1}", "the replay ends before the re-run game is over"
            )
        _check("result", self.replay.result, self.engine.result().to_json(), "result")

    def rerun_recorded(self) -> Iterator[PendingStep]:
        """Re-run the start exchange and every recorded step, checking each; yields each exchange
        once applied (index 0: the start exchange, with its requests and recorded replies)."""
        requests = self.start_requests()
        self.apply_start()
        yield PendingStep(0, "start", requests, self.start_replies(), self.replay.start or {})
        for _ in self.replay.steps:
            pending = self.next_step()
            self.apply_step()
            yield pending

    def catch_up(self) -> None:
        """Hand the engine the late replies recorded after the last re-run step (a partial replay
        that goes on live: `runner.match.resume_match`)."""
        self._feed_late(self.steps_done)

    def _feed_late(self, after_step: int) -> None:
        """Hand the engine the late replies the match handed it after `after_step`, in the same order."""
        for reply in self._late.get(after_step, ()):
            self.engine.late_reply(reply)


def new_engine_for(replay: Replay, game: GameInfo[Any] | None = None) -> Engine[Any]:
    """A fresh engine set up as the replay's match was: its game (`game`, a wrapped copy, or the
    registered one), config, seed, seats and names."""
    game = game or get_game(replay.game)
    config = game.config("default", replay.config)
    engine = game.new_engine(config, replay.seed, len(replay.players))
    # as run_match does: games whose records show the players' names
    engine.set_player_names([str(player.get("name", "")) for player in replay.players])
    return engine


def verify_replay(replay: Replay) -> VerifyReport:
    """Re-run `replay` through its game's engine and compare everything it recorded."""
    try:
        rerun = ReplayRerun(replay)
        for _ in rerun.rerun_recorded():
            pass
        if not replay.partial:
            rerun.finish()
    except RerunMismatch as mismatch:
        # nothing counts as checked once a difference is found
        return VerifyReport(False, 0, mismatch.where, mismatch.detail, replay.partial)
    return VerifyReport(True, len(replay.steps), partial=replay.partial)
