"""`botarena submit` and `botarena fetch` end to end (specs/arena.md, Team CLI): the real app under
uvicorn on 127.0.0.1 over a store, the commands run in this process (tests/cli/cli_in_process.py).
A folder and a file become versions, a bad archive exits 2 with its code and sends nothing, `--wait`
follows the states the test moves through the store (as the coordinator would), a token on the
command line is refused, and `fetch` writes the replay with the team's own log and no other's."""

from __future__ import annotations

import gzip
import json
import re
import sys
import threading
from pathlib import Path
from typing import Any

from botarena.arena.competitions import add_team
from botarena.store.arena_versions import seat_name
from waiting import wait_until

from .forms import move_version, play_match
from .live import LiveArena

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from cli_in_process import botarena_in_process

ALPHA_LOG = "alpha-own-log-CANARY-e2e"
BETA_LOG = "beta-log-CANARY-e2e"


def _bot_folder(root: Path, marker: str) -> Path:
    folder = root / "mybot"
    (folder / "lib").mkdir(parents=True)
    (folder / "bot.py").write_text(f"# {marker}\nfrom lib import brain\n")
    (folder / "lib" / "brain.py").write_text("def act():\n    return 1\n")
    return folder


def test_cli_submit_a_folder_is_a_new_version_with_its_files(live_arena: LiveArena, tmp_path: Path) -> None:
    folder = _bot_folder(tmp_path, "folder")
    done = botarena_in_process("submit", str(folder), "--note", "first", env=live_arena.env(), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert re.match(r"new version 1 \(id \d+\): received$", done.stdout.strip())
    (version,) = live_arena.versions.versions(live_arena.team.id)
    assert (version.note, version.state, version.kind) == ("first", "received", "upload")
    again = botarena_in_process("submit", str(folder), env=live_arena.env(), cwd=tmp_path)
    assert again.returncode == 0 and "already uploaded as version 1" in again.stdout  # the same digest


def test_cli_submit_a_file(live_arena: LiveArena, tmp_path: Path) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text("print('hello')\n")
    done = botarena_in_process("submit", str(bot), env=live_arena.env(), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert live_arena.versions.versions(live_arena.team.id)[0].number == 1


def test_cli_submit_a_bad_archive_exits_2_with_its_code_and_sends_nothing(
    live_arena: LiveArena, tmp_path: Path
) -> None:
    import zipfile

    bad = tmp_path / "bot.zip"
    with zipfile.ZipFile(bad, "w") as archive:
        archive.writestr("../escape.py", "print(1)")
        archive.writestr("bot.py", "print(2)")
    done = botarena_in_process("submit", str(bad), env=live_arena.env(), cwd=tmp_path)
    assert done.returncode == 2 and "(dotdot)" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert live_arena.versions.versions(live_arena.team.id) == []


def test_cli_submit_a_refusal_of_the_server_exits_2_in_one_line(
    live_arena: LiveArena, tmp_path: Path
) -> None:
    live_arena.arena.update_competition(live_arena.competition.id, actor="test", phase="frozen")
    bot = tmp_path / "bot.py"
    bot.write_text("print('late')\n")
    done = botarena_in_process("submit", str(bot), env=live_arena.env(), cwd=tmp_path)
    assert done.returncode == 2 and "409 uploads_closed" in done.stderr
    assert live_arena.token.secret not in done.stderr + done.stdout


def _coordinator(live_arena: LiveArena, steps: list[tuple[str, dict[str, Any]]]) -> threading.Thread:
    """A thread that, once the version exists, moves it through `steps` as the coordinator would (the
    stream polls the row, so it may show an intermediate state or go straight to the last)."""

    def run() -> None:
        versions = live_arena.versions
        wait_until(lambda: versions.versions(live_arena.team.id), "the uploaded version")
        version = versions.versions(live_arena.team.id)[0]
        for state, columns in steps:
            move_version(live_arena.store, version.id, state, **columns)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_cli_submit_wait_follows_the_states_until_ready(live_arena: LiveArena, tmp_path: Path) -> None:
    folder = _bot_folder(tmp_path, "wait-ready")
    mover = _coordinator(live_arena, [("validating", {}), ("ready", {})])
    done = botarena_in_process("submit", str(folder), "--wait", env=live_arena.env(), cwd=tmp_path)
    mover.join(60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "version 1: ready"


def test_cli_submit_wait_a_rejection_exits_1_with_its_reason(live_arena: LiveArena, tmp_path: Path) -> None:
    folder = _bot_folder(tmp_path, "wait-rejected")
    reason = "CRASHED (bot_error) at step 3 of game 1: ValueError: boom"
    mover = _coordinator(
        live_arena, [("validating", {}), ("rejected", {"reason_code": "crashed", "reason": reason})]
    )
    done = botarena_in_process("submit", str(folder), "--wait", env=live_arena.env(), cwd=tmp_path)
    mover.join(60)
    assert done.returncode == 1, done.stderr
    assert done.stdout.strip().splitlines()[-1] == f"version 1: rejected (crashed): {reason}"


def test_cli_submit_a_token_on_the_command_line_is_refused(live_arena: LiveArena, tmp_path: Path) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text("print(1)\n")
    env = {k: v for k, v in live_arena.env().items() if k != "BOTARENA_ARENA_TOKEN"}
    done = botarena_in_process("submit", str(bot), "--token", live_arena.token.text, env=env, cwd=tmp_path)
    assert done.returncode == 2 and "--token must not be given on the command line" in done.stderr
    assert (
        live_arena.token.secret not in done.stderr and live_arena.versions.versions(live_arena.team.id) == []
    )


def test_cli_fetch_writes_the_replay_with_the_teams_own_log(live_arena: LiveArena, tmp_path: Path) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text("print(1)\n")
    assert botarena_in_process("submit", str(bot), env=live_arena.env(), cwd=tmp_path).returncode == 0
    mine = live_arena.versions.versions(live_arena.team.id)[0].id
    beta, beta_token = add_team(live_arena.arena, live_arena.competition.id, "beta", actor="test")
    (tmp_path / "beta.py").write_text("print(2)\n")
    assert (
        botarena_in_process(
            "submit", str(tmp_path / "beta.py"), env=live_arena.env(beta_token.text), cwd=tmp_path
        ).returncode
        == 0
    )
    theirs = live_arena.versions.versions(beta.id)[0].id
    match_id = play_match(
        live_arena.store,
        live_arena.competition.tournament_id,
        "m1",
        [seat_name(mine), seat_name(theirs)],
        [1, 2],
        logs=[ALPHA_LOG, BETA_LOG],
    )
    done = botarena_in_process("fetch", str(match_id), env=live_arena.env(), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    written = tmp_path / f"{match_id}.json.gz"
    assert (
        f"wrote {match_id}.json.gz" in done.stdout
        and f"botarena replay {match_id}.json.gz --verify" in done.stdout
    )
    text = gzip.decompress(written.read_bytes()).decode()
    logs = json.loads(text)["logs"]
    assert logs[0]["text"] == ALPHA_LOG and logs[1]["hidden"] and BETA_LOG not in text
    missing = botarena_in_process("fetch", "999", env=live_arena.env(), cwd=tmp_path)
    assert missing.returncode == 2 and "404" in missing.stderr
