"""`botarena play` says loudly when a bot cannot start or crashes (issue 15, item 1).

Each failing seat gets one line on stderr (seat, bot as given, status, reason, where, detail) and the
last lines of its log; `play` exits 1 when a seat never played a turn. Paths are taken as given, the
kit runs with botarena's own interpreter, and a JSON-lines bot saved as a drones `.js` file is told
how to name it. Every case runs in both seats, through `botarena.cli.main` in this process (what the
`botarena` script calls: same exit code, same stderr) in the case's folder and environment; the
kit's interpreter is the one case about the process, so it starts a real `botarena play`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_in_process import botarena_in_process

KIT_BOT = """
def act(obs):
    return {"newProducers": obs["producers"], "newSoldiers": 0, "launchAttack": False}
"""


def play(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return botarena_in_process("play", *args, cwd=cwd, env=env)


def play_process(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`botarena play ARGS` as a real process, for a claim about the process itself."""
    return subprocess.run(
        [sys.executable, "-m", "botarena", "play", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def seats(bot: str, other: str, seat: int) -> list[str]:
    return [other, bot] if seat else [bot, other]


def executable(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(0o755)
    return path


@pytest.mark.parametrize("seat", [0, 1])
def test_a_relative_path_runs_that_file_not_a_namesake_on_path(tmp_path: Path, seat: int) -> None:
    executable(tmp_path / "mybot", "#!/bin/sh\necho 'this is ./mybot' >&2\nexit 3\n")
    elsewhere = tmp_path / "bin"
    elsewhere.mkdir()
    executable(elsewhere / "mybot", "#!/bin/sh\necho 'the one on PATH' >&2\nexit 4\n")
    env = {**os.environ, "PATH": f"{elsewhere}{os.pathsep}{os.environ['PATH']}"}
    args = [*seats("./mybot", "dummy", seat), "--seed", "1", "--set", "number_of_rounds=3"]
    proc = play("domains", *args, cwd=tmp_path, env=env)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.splitlines()
    assert lines[0] == (
        f"botarena: seat {seat} (mybot, ./mybot) never played: CRASHED (process_exited) at start [CRASHED:5]"
    )
    assert "    this is ./mybot" in lines
    assert "the one on PATH" not in proc.stderr


@pytest.mark.parametrize("seat", [0, 1])
def test_a_crashing_command_bot_is_named_with_its_last_stderr_lines(tmp_path: Path, seat: int) -> None:
    lines_out = "".join(f"print('log line {i}', file=sys.stderr)\n" for i in range(1, 9))
    (tmp_path / "crash.py").write_text(f"import sys\n{lines_out}raise SystemExit(1)\n")
    spec = f"cmd:{sys.executable} crash.py"
    proc = play("drones", *seats(spec, "pacifist", seat), "--seed", "1", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.splitlines()
    assert lines[0].startswith(
        f"botarena: seat {seat} (crash.py, {spec}) never played: CRASHED (process_exited) at start [CRASHED:"
    )
    assert lines[1:] == [f"    log line {i}" for i in range(4, 9)]  # the last five
    assert "outcome:" in proc.stdout  # the match still has its result


@pytest.mark.parametrize("seat", [0, 1])
def test_an_in_process_bot_that_always_raises_never_played(tmp_path: Path, seat: int) -> None:
    bot = tmp_path / "broken.py"
    bot.write_text("def act(obs):\n    raise ValueError('no idea what to do')\n")
    proc = play("drones", *seats(str(bot), "pacifist", seat), "--seed", "1", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    first = proc.stderr.splitlines()[0]
    assert first.startswith(
        f"botarena: seat {seat} (broken, {bot}) never played: CRASHED (bot_error) at step 1"
    )
    assert "ValueError: no idea what to do" in first


@pytest.mark.parametrize("seat", [0, 1])
def test_an_http_bot_that_is_not_there_never_played(tmp_path: Path, seat: int) -> None:
    import socket

    with socket.socket() as probe:  # a port nothing listens on once this closes
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/bot"
    proc = play("drones", *seats(url, "pacifist", seat), "--seed", "1", "--set", "rounds=1", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    first = proc.stderr.splitlines()[0]
    assert first.startswith(f"botarena: seat {seat} (") and "never played: CRASHED" in first, first


def test_a_bot_that_plays_and_then_crashes_is_named_but_play_succeeds(tmp_path: Path) -> None:
    bot = tmp_path / "late.py"
    bot.write_text(
        "def act(obs):\n"
        "    if obs['turn'] == 3:\n"
        "        raise RuntimeError('turn three')\n"
        "    return {'newProducers': obs['producers'], 'newSoldiers': 0, 'launchAttack': False}\n"
    )
    proc = play("drones", str(bot), "pacifist", "--seed", "1", "--set", "rounds=1", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[0].startswith(
        f"botarena: seat 0 (late, {bot}) CRASHED (bot_error) at step 3"
    )


def test_the_kit_command_runs_with_botarenas_interpreter(tmp_path: Path) -> None:
    """The README's `python3 -m botarena.kit my_bot.py` works when the venv is not activated: a
    `python3` first on PATH that has no botarena is not used."""
    (tmp_path / "my_bot.py").write_text(KIT_BOT)
    fake = tmp_path / "bin"
    fake.mkdir()
    executable(fake / "python3", "#!/bin/sh\necho 'the wrong python' >&2\nexit 1\n")
    env = {**os.environ, "PATH": f"{fake}{os.pathsep}{os.environ['PATH']}"}
    proc = play_process(
        "drones", "python3 -m botarena.kit my_bot.py", "pacifist", "--seed", "2", cwd=tmp_path, env=env
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert "OK:" in proc.stdout and "CRASHED" not in proc.stdout


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed (apt-get install nodejs)")
def test_a_json_lines_bot_saved_as_js_is_told_how_to_run(tmp_path: Path) -> None:
    (tmp_path / "bot.js").write_text(
        "const rl = require('readline').createInterface({input: process.stdin});\n"
        "rl.on('line', (l) => console.log(JSON.stringify({id: JSON.parse(l).id, action: {}})));\n"
    )
    proc = play("drones", "bot.js", "pacifist", "--seed", "1", "--set", "rounds=1", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    first = proc.stderr.splitlines()[0]
    assert "never played: CRASHED (bot_error) at start: default export is not a function" in first
    assert "runs as a command: cmd:node " in first


# -- issue 26, item 1: one block per seat, in the right seat, for every game ------------------------

SHORT = {
    "craftingquest": ["rounds=3"],
    "datspulse": ["turns=3"],
    "devops": ["turn_limit=4"],
    "domains": ["number_of_rounds=6"],
    "drones": ["rounds=1"],
}
"""A few turns of each game."""

OTHER = {"craftingquest": "prospector", "datspulse": "forager", "devops": "starter", "domains": "demo"}

RAISES = "def act(observation):\n    raise ValueError('no idea what to do')\n"


def short(game: str) -> list[str]:
    return [arg for pair in SHORT[game] for arg in ("--set", pair)]


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("game", sorted(SHORT))
def test_i26_1_a_crashing_bot_is_reported_in_its_own_seat_in_every_game(
    tmp_path: Path, game: str, seat: int
) -> None:
    """Devops verdicts are per call and Crafting Quest's per action: the seat is each reply's."""
    bot = tmp_path / "broken.py"
    bot.write_text(RAISES)
    args = seats(str(bot), OTHER.get(game, "pacifist"), seat)
    proc = play(game, *args, "--seed", "1", *short(game), cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.splitlines()
    assert lines[0].startswith(f"botarena: seat {seat} (broken, {bot}) never played: CRASHED (")
    assert ": ValueError: no idea what to do [CRASHED:" in lines[0]
    assert lines[-1] == "    ValueError: no idea what to do"  # the traceback's last line
    assert not [line for line in lines if line.startswith("botarena: seat ") and line != lines[0]]


def test_i26_1_crafting_quest_seat_1_fails_first_at_its_first_turn(tmp_path: Path) -> None:
    bot = tmp_path / "broken.py"
    bot.write_text(RAISES)
    proc = play("craftingquest", "prospector", str(bot), "--seed", "1", *short("craftingquest"), cwd=tmp_path)
    assert proc.stderr.splitlines()[0].startswith(
        f"botarena: seat 1 (broken, {bot}) never played: CRASHED (bot_error) at step 2: ValueError"
    )


def test_i26_1_invalid_replies_and_a_crash_are_counted_and_each_explained(tmp_path: Path) -> None:
    bot = tmp_path / "flaky.py"
    bot.write_text(
        "def act(obs):\n"
        "    if obs['turn'] == 5:\n"
        "        raise RuntimeError('turn five')\n"
        "    if obs['turn'] % 2:\n"
        "        return {'newProducers': 'lots', 'newSoldiers': 0, 'launchAttack': False}\n"
        "    return {'newProducers': obs['producers'], 'newSoldiers': 0, 'launchAttack': False}\n"
    )
    proc = play("drones", "pacifist", str(bot), "--seed", "1", "--set", "rounds=1", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr  # it played: the match's result stands
    lines = proc.stderr.splitlines()
    assert lines[0] == (  # odd turns of 10 but the fifth, in the order each status first came up
        f"botarena: seat 1 (flaky, {bot}) INVALID (bad_field) at step 1: "
        "newProducers must be a non-negative integer [INVALID:4 CRASHED:1]"
    )
    assert lines[1] == "    the first CRASHED (bot_error) at step 5: RuntimeError: turn five"
    assert lines[-1] == "    RuntimeError: turn five"


@pytest.mark.parametrize("seat", [0, 1])
def test_i26_1_domains_orders_sent_with_kind_are_named_as_dropped(tmp_path: Path, seat: int) -> None:
    bot = tmp_path / "kinder.py"
    bot.write_text(
        "def act(obs):\n"
        "    mine = [u for u in obs['units'] if u['player'] == obs['me']]\n"
        "    return {'orders': [{'unit': u['id'], 'kind': 'move', 'dir': 1} for u in mine]}\n"
    )
    proc = play("domains", *seats(str(bot), "demo", seat), "--seed", "1", *short("domains"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    first, second = proc.stderr.splitlines()[:2]
    assert first.startswith(f"botarena: seat {seat} (kinder, {bot}) ")
    assert " orders dropped (DROPPED_ENTRY), the first at step 1: entry 0: type is missing" in first
    assert second.endswith(
        " unknown keys ignored (UNKNOWN_KEY), the first at step 1: entry 0: unknown key 'kind' ignored"
    )


@pytest.mark.parametrize("seat", [0, 1])
def test_i26_1_a_devops_service_that_refuses_is_reported_and_the_replay_is_finished(
    tmp_path: Path, seat: int
) -> None:
    """Devops records one verdict per call, more than there are seats: taking a verdict's index for
    its seat ended `play` with an IndexError before the replay was written."""
    import socket

    from botarena.core.replay import read_replay

    with socket.socket() as probe:  # a port nothing listens on once this closes
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}"
    replay = tmp_path / "match.json.gz"
    args = [*seats(url, "starter", seat), "--seed", "1", *short("devops"), "--replay", str(replay)]
    proc = play("devops", *args, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "internal error" not in proc.stderr
    first = proc.stderr.splitlines()[0]
    assert first.startswith(f"botarena: seat {seat} ({url}) never played: CRASHED (transport) at step 1: ")
    assert "ConnectionRefusedError" in first
    written = read_replay(replay)
    assert not written.partial and len(written.steps) == 4 and written.result
