"""`botarena serve --demo` (what `make run` starts): the server comes up on SQLite, prints its URL,
plays a round robin of every registered game's starter bots, shows them in its API, goes on with the
next cycle (so a second `make run` still has matches to watch), and stops cleanly on Ctrl-C, its
worker processes with it."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from cli_in_process import botarena_in_process

from botarena.core.registry import game_ids
from waiting import wait_until


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as response:  # raises for 4xx/5xx
        return bytes(response.read())


def get_json(url: str) -> Any:
    return json.loads(get(url))


SHORT_DEMO = {
    "datspulse.turns=20": ("datspulse", "turns", 20),
    "devops.turn_limit=40": ("devops", "turn_limit", 40),
    "domains.number_of_rounds=40": ("domains", "number_of_rounds", 40),
    "craftingquest.rounds=10": ("craftingquest", "rounds", 10),
}
"""`--demo-set` items that cut the demo's longest matches, and what each tournament's config must say."""


@pytest.mark.timeout(240)
def test_serve_demo_plays_every_game_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    command = [
        sys.executable,
        "-m",
        "botarena",
        "serve",
        "--demo",
        "--port",
        "0",
        "--db",
        db,
        "--pace-ms",
        "0",
        "--demo-keep",
        "2",
        # short matches: the claims are about the cycle (every game, the API, the next cycle, the
        # stop), not the games' lengths; --demo-set is what a user on a slow machine would give too
        *[f"--demo-set={item}" for item in SHORT_DEMO],
    ]
    process = subprocess.Popen(
        command,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline() for _ in range(2)]
        url = lines[1].strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/arena.html"), lines
        base = url.removesuffix("/arena.html")
        assert b"<html" in get(url)
        banner = [process.stdout.readline() for _ in range(3)]  # the live policy, its note, the demo
        assert any("keeping the last 2 cycles" in line for line in banner), banner

        def first_cycle() -> list[dict[str, Any]]:
            return [t for t in get_json(f"{base}/api/tournaments") if t["name"].endswith("-1")]

        def first_cycle_finished() -> list[dict[str, Any]] | None:
            found = first_cycle()
            done = len(found) == len(game_ids()) and all(t["status"] == "finished" for t in found)
            return found if done else None

        # a look every tenth of a second: the server is busy playing, the API answers in between
        tournaments = wait_until(
            first_cycle_finished, "the demo's first cycle finishing", 180, seen=first_cycle, pause=0.1
        )

        def names() -> set[str]:
            return {t["name"] for t in get_json(f"{base}/api/tournaments")}

        # the next cycle starts (seed 2): there is always something live
        wait_until(
            lambda: any(name.endswith("-2") for name in names()), "a second demo cycle", seen=names, pause=0.1
        )
        assert sorted(t["game"] for t in tournaments) == game_ids()
        shortened = {game: (key, value) for game, key, value in SHORT_DEMO.values()}
        for tournament in tournaments:
            detail = get_json(f"{base}/api/tournaments/{tournament['id']}")
            if tournament["game"] in shortened:  # --demo-set reached the tournament, over the game's own
                key, value = shortened[tournament["game"]]
                assert detail["tournament"]["config"][key] == value, detail["tournament"]
            board = detail["leaderboard"]
            assert sum(row["played"] for row in board["rows"]) > 0, tournament["name"]
            matches = get_json(f"{base}/api/tournaments/{tournament['id']}/matches")["matches"]
            request = urllib.request.Request(
                base + matches[0]["replay_url"], headers={"Accept-Encoding": "gzip"}
            )
            with urllib.request.urlopen(request, timeout=10) as response:
                raw = response.read()
            replay = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
            assert replay["game"] == tournament["game"]
        os.kill(process.pid, signal.SIGINT)
        assert process.wait(timeout=120) == 0  # a bound: a loaded box stops its matches slowly
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    stderr = process.stderr.read() if process.stderr else ""
    assert "Traceback" not in stderr, stderr

    # no worker process outlives the server (they share its session); the forkserver and the
    # resource tracker notice their parent's exit and end within moments
    def session_left() -> str:
        found = subprocess.run(["pgrep", "-a", "-s", str(process.pid)], capture_output=True, text=True)
        return found.stdout.strip()

    wait_until(lambda: not session_left(), "every process of the server's session ending", seen=session_left)


def test_serve_demo_refuses_to_keep_no_cycle(tmp_path: Path) -> None:
    """--demo-keep counts the cycle being played: 0 would delete it under its own matches."""
    # in this process: a refusal of the arguments is not about the process
    done = botarena_in_process("serve", "--demo", "--demo-keep", "0", "--port", "0", cwd=tmp_path)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "--demo-keep must be 1 or more (the cycle being played counts), got 0" in done.stderr
    assert not (tmp_path / "var").exists()  # refused before the store was opened


@pytest.mark.parametrize(
    ("item", "said"),
    [
        ("nogame.turns=3", "expected GAME.KEY=VALUE with GAME one of craftingquest, datspulse"),
        ("datspulse=3", "expected GAME.KEY=VALUE"),
        ("datspulse.nokey=3", "--demo-set datspulse: unknown config key 'nokey'"),
        ("datspulse.turns=0", "--demo-set datspulse: config key 'turns'"),
        ("turns", "--demo-set: expected key=value, got 'turns'"),
    ],
)
def test_serve_demo_set_refuses_what_no_game_config_takes(tmp_path: Path, item: str, said: str) -> None:
    """--demo-set is checked against the game's config before the store opens: one line, no demo
    left to fail in the log."""
    done = botarena_in_process("serve", "--demo", "--demo-set", item, "--port", "0", cwd=tmp_path)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert said in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not (tmp_path / "var").exists()  # refused before the store was opened


def test_serve_demo_exits_anyway_when_something_holds_it_after_the_stop() -> None:
    """The watchdog of `serve --demo`: once stopped, a process that something holds up (here a
    thread that never ends, as an exit handler waiting for a stuck worker would) still exits, with
    every thread's stack on stderr to show what held it."""
    script = (
        "import threading\n"
        "from botarena.commands.serve import _exit_anyway_after\n"
        "stop = threading.Event()\n"
        "_exit_anyway_after(stop, 0.2)\n"
        "stop.set()\n"
        "threading.Thread(target=threading.Event().wait, name='stuck-worker').start()\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0
    assert "still running 0 s after the stop; exiting" in done.stderr
    assert "Thread 0x" in done.stderr  # faulthandler: one stack per thread
