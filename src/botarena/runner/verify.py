"""Re-running a replay (DESIGN principle 2): feed the recorded replies to a fresh engine and prove
that every verdict, step record, keyframe and the result come out identical, or name the first
difference."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from botarena.core.game import Engine
from botarena.core.protocol import Reply
from botarena.core.registry import get_game
from botarena.core.replay import Replay, verdict_json


@dataclass
class VerifyReport:
    """`identical`, or the first difference in words (`where` and `detail`)."""

    identical: bool
    steps_checked: int
    where: str = ""
    detail: str = ""

    def __str__(self) -> str:
        if self.identical:
            return f"identical: {self.steps_checked} steps re-run, every record and the result match"
        return f"differs at {self.where}: {self.detail}"


class _Mismatch(Exception):
    def __init__(self, where: str, detail: str) -> None:
        super().__init__(where, detail)
        self.where = where
        self.detail = detail


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
    found = first_difference(_canon(expected), _canon(actual), what)
    if found:
        raise _Mismatch(where, found)


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
        raise _Mismatch(where, f"unreadable reply in the replay ({exc})") from None


def _late_by_step(replay: Replay) -> dict[int, list[Reply]]:
    """The recorded late replies (games with `Engine.late_replies`), by the step they followed."""
    late: dict[int, list[Reply]] = {}
    for entry in replay.late:
        where = "late replies"
        try:
            after = int(entry["after_step"])
            late.setdefault(after, []).extend(_replies([entry["reply"]], where))
        except (KeyError, TypeError, ValueError) as exc:
            raise _Mismatch(where, f"unreadable late reply in the replay ({exc})") from None
    return late


def _feed_late(engine: Engine, late: dict[int, list[Reply]], after_step: int) -> None:
    """Hand the engine the late replies the match handed it after `after_step`, in the same order."""
    for reply in late.get(after_step, ()):
        engine.late_reply(reply)


def _rerun_steps(engine: Engine, replay: Replay) -> int:
    keyframes = {frame["step"]: frame["state"] for frame in replay.keyframes}
    late = _late_by_step(replay)
    stray = sorted(step for step in late if not 0 <= step <= len(replay.steps))
    if stray:
        raise _Mismatch(
            "late replies", f"a late reply after step {stray[0]}, but the replay has {len(replay.steps)}"
        )
    if 0 in keyframes:
        _check("keyframe at step 0", keyframes[0], engine.keyframe())
    # a game whose steps take inputs from outside the bots (devops bonus codes) re-takes them from
    # each step's recorded record before that step's requests
    for index, recorded in enumerate(replay.steps, start=1):
        where = _step_label(index, recorded.get("record"))
        engine.restore_external_inputs(recorded.get("record"))
        _feed_late(engine, late, index - 1)
        requests = engine.next_requests()
        if not requests:
            raise _Mismatch(where, "the re-run game is over, but the replay has more steps")
        replies = _replies(recorded.get("replies", []), where)
        if [r.seat for r in requests] != [r.seat for r in replies]:
            asked, answered = [r.seat for r in requests], [r.seat for r in replies]
            raise _Mismatch(where, f"the engine asks seats {asked}, the replay answers {answered}")
        step = engine.apply(replies)
        # The record first: it shows the effect of a difference (`requested`, `applied`, counts).
        _check(where, recorded.get("record"), step.record, "record")
        _check(where, recorded.get("verdicts"), [verdict_json(v) for v in step.verdicts], "verdicts")
        if index in keyframes:
            _check(f"keyframe at step {index}", keyframes[index], engine.keyframe())
    _feed_late(engine, late, len(replay.steps))
    if engine.next_requests():
        raise _Mismatch(f"step {len(replay.steps) + 1}", "the replay ends before the re-run game is over")
    return len(replay.steps)


def verify_replay(replay: Replay) -> VerifyReport:
    """Re-run `replay` through its game's engine and compare everything it recorded."""
    game = get_game(replay.game)
    if replay.rules != game.rules_version:
        detail = f"rules {replay.rules!r}, this botarena has {game.rules_version!r}"
        return VerifyReport(False, 0, "header", detail)
    config = game.config("default", replay.config)
    engine = game.new_engine(config, replay.seed, len(replay.players))
    # as run_match does: games whose records show the players' names
    engine.set_player_names([str(player.get("name", "")) for player in replay.players])
    steps = 0
    try:
        engine.start_requests()
        start = replay.start or {}
        verdicts = engine.apply_start(_replies(start.get("replies", []), "start"))
        _check("start", start.get("verdicts"), [verdict_json(v) for v in verdicts], "verdicts")
        steps = _rerun_steps(engine, replay)
        _check("result", replay.result, engine.result().to_json(), "result")
    except _Mismatch as mismatch:
        return VerifyReport(False, steps, mismatch.where, mismatch.detail)
    return VerifyReport(True, steps)
