"""Issue 25, item 6's small faults: arguments no file can be named, and bot files that end the process.

- A bot spec or path argument longer than a file name may be (a component over NAME_MAX, a path over
  PATH_MAX) is a one-line error with exit code 2, in every place the command takes one (a bot in
  either seat, a tournament's entrant, --replay, --config, --resume, `replay FILE`), never
  `[Errno 36] File name too long` and never a match played for nothing.
- `play` of a Python file whose import calls `os._exit(7)` (or `sys.exit(3)`), in either seat: one
  line saying the bot ended the process while being imported, exit code 2 (a bot that cannot be
  loaded, as the CLI documents), no replay begun; a killed game whose bot does so on `--resume` keeps
  its journal as it was, and resumes to the end once the bot imports again.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from botarena.cli import main
from botarena.core.replay import read_replay

LONG = "b" * 300  # one component over NAME_MAX (255 bytes)
DEEP = "/".join(["d" * 200] * 25)  # short components, 5000 bytes in all: over PATH_MAX


def one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    code = main(argv)
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert code == 2 and len(lines) == 1, (argv[:3], code, captured.err)
    assert lines[0].startswith("botarena: error: ") and "Errno" not in lines[0], lines[0]
    assert "outcome:" not in captured.out  # refused before any match was played
    return lines[0]


def test_arguments_no_file_can_be_named_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for spec in (LONG, f"{tmp_path}/{LONG}.py", f"{tmp_path}/{LONG}/bot.py", DEEP, f"{DEEP}/bot.py"):
        for seats in ([spec, "zergy"], ["zergy", spec]):  # both seats
            line = one_line_error(capsys, ["play", "drones", *seats, "--seed", "1"])
            assert "unknown bot" in line and "characters): not a starter bot of drones" in line, line
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    line = one_line_error(capsys, ["tournament", "drones", "--bots", f"zergy,adaptive,{LONG}", "--db", db])
    assert "unknown bot" in line
    for name in (LONG, DEEP):
        line = one_line_error(capsys, ["play", "drones", "zergy", "zergy", "--replay", f"{tmp_path}/{name}"])
        assert (
            line.startswith("botarena: error: cannot write the replay to ") and "File name too long" in line
        )
        for argv in (
            ["play", "drones", "zergy", "zergy", "--config", f"{tmp_path}/{name}"],
            ["play", "--resume", f"{tmp_path}/{name}"],
            ["replay", f"{tmp_path}/{name}"],
        ):
            assert "File name too long" in one_line_error(capsys, argv)
    assert not list(tmp_path.glob("*.json.gz"))


EXITS_AT_IMPORT = """import os, sys
from pathlib import Path

if Path({marker!r}).exists():
    {call}


def act(obs):
    if obs["turn"] == 2 and Path({killer!r}).exists():
        os.kill(os.getpid(), 9)  # in-process: what kills a `play` mid-game, for the resume case
    return {{"newProducers": obs["producers"], "newSoldiers": 0, "launchAttack": obs["turn"] % 3 == 0}}
"""


ENDED = "it ended the process while being imported"


def botarena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "botarena", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(("seat", "call"), [(0, "os._exit(7)"), (1, "sys.exit(3)")])
def test_a_bot_that_ends_the_process_while_imported_is_one_line_and_exit_code_2(
    tmp_path: Path, seat: int, call: str
) -> None:
    marker = tmp_path / "exit-at-import"
    marker.touch()
    bot = tmp_path / "bot.py"
    bot.write_text(EXITS_AT_IMPORT.format(marker=str(marker), killer=str(tmp_path / "none"), call=call))
    seats = ["zergy", str(bot)] if seat else [str(bot), "zergy"]
    replay = tmp_path / "game.json.gz"
    played = botarena("play", "drones", *seats, "--seed", "5", "--replay", str(replay), cwd=tmp_path)
    assert played.returncode == 2, (played.returncode, played.stderr)
    assert played.stderr.strip().splitlines() == [
        f"botarena: error: cannot load Python bot {bot}: {ENDED} ({call})"
    ]
    assert "outcome:" not in played.stdout and not replay.exists()  # nothing begun, nothing half-written


@pytest.mark.timeout(300)
def test_a_killed_game_whose_bot_ends_the_process_at_import_keeps_its_journal_and_resumes_later(
    tmp_path: Path,
) -> None:
    marker, killer = tmp_path / "exit-at-import", tmp_path / "kill-at-import"
    bot = tmp_path / "bot.py"
    bot.write_text(EXITS_AT_IMPORT.format(marker=str(marker), killer=str(killer), call="os._exit(7)"))
    replay = tmp_path / "game.json.gz"
    # the bot runs in-process (`play` trusts it) and kills it at its second turn: a journal is left
    killer.touch()
    killed = botarena(
        "play", "drones", str(bot), "zergy", "--seed", "5", "--replay", str(replay), cwd=tmp_path
    )
    assert killed.returncode == -signal.SIGKILL and replay.exists(), killed.stderr
    journal = replay.read_bytes()
    assert read_replay(replay).partial
    os.remove(killer)

    marker.touch()
    refused = botarena("play", "--resume", str(replay), cwd=tmp_path)
    assert refused.returncode == 2 and refused.stderr.strip().splitlines() == [
        f"botarena: error: cannot load Python bot {bot}: {ENDED} (os._exit(7))"
    ]
    assert replay.read_bytes() == journal  # the killed game is still there to resume

    os.remove(marker)
    resumed = botarena("play", "--resume", str(replay), cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert not read_replay(replay).partial and "outcome:" in resumed.stdout
