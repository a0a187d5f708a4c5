"""Issue 26, item 2: `botarena tournament` and `botarena leaderboard` say who failed: the final
summary names each failing entrant with its counts and first reason, the leaderboard has a failures
column and the same lines (and `--json` the data), an entrant that never started in any match gets a
bold warning on stderr, and `--fail-on-dead-entrant` turns that into exit code 1.

The bad entrants sit in both seats (two cycles of a round robin); the crashing one runs as a
subprocess here (tournaments are untrusted by default, `--unsandboxed` only skips the sandbox) and
in-process in tests/tournament/test_i26_2_failures.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import pytest

from botarena.cli import main

CRASHY = "def act(obs):\n    return 1 // 0\n"


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'arena.db'}"


def _tournament(db: str, *bots: str, extra: tuple[str, ...] = ()) -> list[str]:
    args = ["tournament", "drones", "--workers", "0", "--db", db, "--name", "cup", "--seed", "3"]
    return [*args, "--no-progress", "--unsandboxed", "--cycles", "2", "--set", "rounds=2",
            *(b for bot in bots for b in ("--bots", bot)), *extra]  # fmt: skip


def test_i26_2_the_summary_and_leaderboard_name_a_crashing_entrant(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "crashy.py").write_text(CRASHY)
    code = main(_tournament(db, f"bad={tmp_path / 'crashy.py'}", "ok=pacifist"))
    captured = capsys.readouterr()
    assert code == 0, captured.err
    lines = captured.out.splitlines()
    assert "finished: 2 matches played now, 0 failed, 2 recorded in all" in captured.out
    assert lines[1].endswith(", 1 entrant failing:")
    assert lines[2].startswith("  bad: crashed 2/2: CRASHED (bot_error) at step 1: ")
    assert "ZeroDivisionError" in lines[2] and lines[2].endswith("(match r01-m001)")
    assert "never started" not in captured.err  # it started: no dead-entrant warning

    assert main(["leaderboard", "cup", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "failures" in out  # the column
    assert "failures (the first of each entrant):" in out
    assert [line for line in out.splitlines() if line.startswith("  bad: ")] == [lines[2]]
    assert main(["leaderboard", "cup", "--db", db, "--json"]) == 0
    (bad,) = orjson.loads(capsys.readouterr().out)["leaderboard"]["failures"]
    assert (bad["name"], bad["played"], bad["counts"]["crashed"], bad["dead"]) == ("bad", 2, 2, False)
    assert f"  bad: {bad['line']}" == lines[2]


@pytest.mark.parametrize("fail_flag", [False, True])
def test_i26_2_an_entrant_that_never_started_is_a_loud_warning_and_with_the_flag_an_error(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], fail_flag: bool
) -> None:
    (tmp_path / "dead.py").write_text("raise SystemExit(3)\n")
    dead = f"dead=cmd:{sys.executable} {tmp_path / 'dead.py'}"
    extra = ("--fail-on-dead-entrant",) if fail_flag else ()
    code = main(_tournament(db, "ok=pacifist", dead, extra=extra))
    captured = capsys.readouterr()
    assert code == (1 if fail_flag else 0), captured.err
    assert "  dead: never started 2/2, crashed 2/2: CRASHED (process_exited) at start" in captured.out
    warning = [line for line in captured.err.splitlines() if "WARNING" in line]
    assert len(warning) == 1
    assert warning[0].startswith("botarena: WARNING: entrant 'dead' never started in any of its 2 matches:")
    assert "CRASHED (process_exited) at start (match r01-m" in warning[0]
    assert "'ok'" not in captured.err  # only the dead one is warned of


def test_i26_2_the_flag_changes_nothing_when_every_entrant_started(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_tournament(db, "adaptive", "zergy", extra=("--fail-on-dead-entrant",))) == 0
    captured = capsys.readouterr()
    assert "failing" not in captured.out and "WARNING" not in captured.err
