"""The misbehaving zoo (DESIGN principle 3): real subprocess bots that time out, crash, print garbage,
flood stderr and hog memory, each playing a whole GameOfDrones match through `run_match` against a
well-behaved in-process starter bot. Every match must complete with a result, the bad bot gets its
status on every exchange, and the opponent's turns stay OK.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from botarena.bots.inprocess import PythonBot
from botarena.bots.subprocess import SubprocessBot
from botarena.core.game import GameInfo
from botarena.core.status import Reason, Status
from botarena.runner import MatchRun, run_match

Zoo = Callable[..., SubprocessBot]

FAST = {"turn_timeout_ms": 100, "rounds": 3, "turn_limit": 5}


def play(
    drones: GameInfo, bad: SubprocessBot, overrides: dict[str, Any] | None = None, **kw: Any
) -> MatchRun:
    config = drones.config("default", {**FAST, **(overrides or {})})
    good = PythonBot(drones.starter_bots["zergy"], name="zergy")
    run = run_match(drones, [bad, good], config=config, seed=11, **kw)
    assert run.result is not None and run.replay.result is not None
    assert run.replay.steps, "the match was played"
    return run


def turn_verdicts(run: MatchRun, seat: int) -> list[tuple[str, str | None]]:
    return [(step["verdicts"][seat][0], step["verdicts"][seat][1]) for step in run.replay.steps]


def assert_opponent_fine(run: MatchRun) -> None:
    assert set(turn_verdicts(run, 1)) == {(Status.OK.value, None)}
    assert run.replay.start["verdicts"][1][0] == Status.OK.value
    assert set(run.replay.statuses[1]) == {Status.OK.value}


def rss_kib() -> int:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS in /proc/self/status")


def test_never_answers_is_timeout_every_turn(drones: GameInfo, zoo: Zoo) -> None:
    run = play(drones, zoo("never_answers"), {"setup_timeout_ms": 300})
    assert run.replay.start["verdicts"][0][:2] == [Status.TIMEOUT.value, Reason.DEADLINE]
    assert set(turn_verdicts(run, 0)) == {(Status.TIMEOUT.value, Reason.DEADLINE)}
    assert run.replay.end["verdicts"][0][:2] == [Status.TIMEOUT.value, Reason.DEADLINE]
    assert set(run.replay.statuses[0]) == {Status.TIMEOUT.value}
    assert run.replay.statuses[0][Status.TIMEOUT.value] >= len(run.replay.steps) + 1  # start + turns
    assert_opponent_fine(run)
    assert run.result.details["outcome"]


def test_exits_midmatch_is_crashed_for_the_rest(drones: GameInfo, zoo: Zoo) -> None:
    run = play(drones, zoo("exits_midmatch"))
    verdicts = turn_verdicts(run, 0)
    assert verdicts[:2] == [(Status.OK.value, None)] * 2
    assert set(verdicts[2:]) == {(Status.CRASHED.value, Reason.PROCESS_EXITED)}  # GD-26
    assert run.replay.end["verdicts"][0][:2] == [Status.CRASHED.value, Reason.PROCESS_EXITED]
    assert_opponent_fine(run)


def test_garbage_is_invalid_bad_json(drones: GameInfo, zoo: Zoo) -> None:
    run = play(drones, zoo("garbage"))
    assert run.replay.start["verdicts"][0][:2] == [Status.INVALID.value, Reason.BAD_JSON]
    assert set(turn_verdicts(run, 0)) == {(Status.INVALID.value, Reason.BAD_JSON)}
    assert_opponent_fine(run)


def test_stderr_flood_is_capped_and_memory_stays_bounded(drones: GameInfo, zoo: Zoo) -> None:
    peak = [rss_kib()]
    before = peak[0]

    def sample(index: int, record: dict[str, Any], engine: Any) -> None:
        peak.append(rss_kib())

    run = play(drones, zoo("stderr_flood", stderr_cap_bytes=64 * 1024), on_step=sample)
    peak.append(rss_kib())
    assert set(turn_verdicts(run, 0)) == {(Status.OK.value, None)}
    assert_opponent_fine(run)
    log = run.replay.logs[0]
    assert log["text"].startswith("flood flood")
    assert len(log["text"].encode()) <= 64 * 1024
    flooded = (30 + len(run.replay.steps) + 1) * len(("flood " * 170 + "\n").encode()) * 1024
    assert log["dropped_bytes"] == flooded - 64 * 1024  # tens of MiB went through, all counted
    assert flooded > 30 << 20
    # A bound well under the flood: a runner that kept the bot's stderr would break it.
    assert max(peak) - before < 16 * 1024, "the runner's memory grew with the bot's stderr"


def test_memory_hog_is_stopped_by_the_limit(drones: GameInfo, zoo: Zoo) -> None:
    before = rss_kib()
    run = play(drones, zoo("memory_hog", memory_limit_mb=512))
    verdicts = turn_verdicts(run, 0)
    assert verdicts[0] == (Status.OK.value, None)
    assert set(verdicts[1:]) == {(Status.CRASHED.value, Reason.PROCESS_EXITED)}
    assert "MemoryError" in run.replay.logs[0]["text"]
    assert "no memory limit" not in run.replay.logs[0]["text"]
    assert_opponent_fine(run)
    assert rss_kib() - before < 100 * 1024


def test_memory_hog_under_the_default_limit(drones: GameInfo, zoo: Zoo) -> None:
    run = play(drones, zoo("memory_hog"), {"rounds": 1, "turn_limit": 3})
    assert turn_verdicts(run, 0)[1] == (Status.CRASHED.value, Reason.PROCESS_EXITED)
    assert "MemoryError" in run.replay.logs[0]["text"]


def test_bots_are_listed_with_their_command(drones: GameInfo, zoo: Zoo) -> None:
    run = play(drones, zoo("garbage"), {"rounds": 1, "turn_limit": 1})
    player = run.replay.players[0]
    assert player["kind"] == "subprocess" and player["name"] == "garbage"
    assert player["command"].endswith("zoo/garbage.py")
