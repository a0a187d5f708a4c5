"""Lockstep matches through the platform runner (spec §7.5): in-process and subprocess bots (the generic
JSON-lines protocol), the §5 statuses end to end, replays that re-run exactly, the CLI's `play`,
`replay --verify` and `tournament`."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import pytest

from botarena.bots.inprocess import PythonBot
from botarena.bots.subprocess import SubprocessBot
from botarena.cli import main
from botarena.core.replay import read_replay, write_replay
from botarena.games.datspulse import GAME
from botarena.games.datspulse.bots import Forager
from botarena.runner import run_match
from botarena.runner.verify import verify_replay

#: Long enough for a subprocess bot on a busy CI machine; the sleeper below outlasts it on purpose.
TURN_MS = 2000
SHORT = {"turns": 6, "map_radius": 16, "turn_timeout_ms": TURN_MS}

KIT_BOT = """
from botarena.games.datspulse.bots import Forager

def create_bot():
    return Forager()
"""

# A raw protocol bot (no kit): garbage at turn 0, an error payload at turn 1, then it exits.
RAW_BOT = r"""
import json, sys
for line in sys.stdin:
    request = json.loads(line)
    if request["type"] == "turn" and request["turn"] == 0:
        print("this is not json", flush=True)
        continue
    if request["type"] == "turn" and request["turn"] == 1:
        print(json.dumps({"id": request["id"], "payload": {"error": "act: ValueError: boom"}}), flush=True)
        continue
    if request["type"] == "turn":
        sys.exit(3)
    print(json.dumps({"id": request["id"], "payload": {}}), flush=True)
"""


class Sleeper(Forager):
    """A forager that oversleeps its deadline at turn 1 (preempted: TIMEOUT, and asked again next turn)."""

    def act(self, arena: Any) -> dict[str, Any]:
        if arena.get("turnNo") == 1:
            time.sleep(30)
        return super().act(arena)


def verdicts_of(replay: Any, seat: int) -> list[tuple[str, str | None]]:
    return [(step["verdicts"][seat][0], step["verdicts"][seat][1]) for step in replay.steps]


def test_dp75_in_process_and_subprocess_bots_play_with_every_status_recorded(tmp_path: Path) -> None:
    kit_file = tmp_path / "kit_forager.py"
    kit_file.write_text(KIT_BOT, encoding="utf-8")
    raw_file = tmp_path / "raw_bot.py"
    raw_file.write_text(RAW_BOT, encoding="utf-8")
    bots = [
        PythonBot(GAME.starter_bots["forager"], "forager"),
        SubprocessBot([sys.executable, "-m", "botarena.kit", str(kit_file)], name="kit-forager"),
        SubprocessBot([sys.executable, str(raw_file)], name="raw"),
        PythonBot(Sleeper, "sleeper"),
    ]
    run = run_match(GAME, bots, config=GAME.config(overrides=SHORT), seed=5)
    replay = run.replay
    assert len(replay.steps) == 6
    assert [v[0] for v in replay.start["verdicts"]] == ["OK"] * 4
    assert verdicts_of(replay, 0) == [("OK", None)] * 6
    assert verdicts_of(replay, 1) == [("OK", None)] * 6  # the same bot over the JSON-lines protocol
    assert verdicts_of(replay, 2) == [
        ("INVALID", "invalid_body"),
        ("CRASHED", "exception"),
        *[("CRASHED", "process_exited")] * 4,
    ]
    assert verdicts_of(replay, 3) == [("OK", None), ("TIMEOUT", "deadline"), *[("OK", None)] * 4]
    # the in-process and the subprocess forager saw the same game from their seats: both scored, and
    # the match went on whatever seats 2 and 3 did
    assert [p["name"] for p in replay.players] == ["forager", "kit-forager", "raw", "sleeper"]
    assert [t["name"] for t in replay.keyframes[0]["state"]["frame"]["teams"]] == [
        "forager", "kit-forager", "raw", "sleeper"
    ]  # fmt: skip
    back = read_replay(write_replay(replay, tmp_path / "match.json.gz"))
    report = verify_replay(back)
    assert report.identical, str(report)
    assert report.steps_checked == 6


def test_dp95_the_same_seed_and_bots_give_the_same_game() -> None:
    config = GAME.config(overrides={"turns": 15, "map_radius": 16, "turn_timeout_ms": 10_000})

    def play(seed: int) -> Any:
        bots = [PythonBot(GAME.starter_bots[name], name) for name in ("raider", "forager", "random_walker")]
        return run_match(GAME, bots, config=config, seed=seed).replay

    one, two = play(21), play(21)
    assert [s["record"] for s in one.steps] == [s["record"] for s in two.steps]
    assert [[r["payload"] for r in s["replies"]] for s in one.steps] == [
        [r["payload"] for r in s["replies"]] for s in two.steps
    ]
    assert one.result == two.result
    other = play(22)
    assert [s["record"] for s in other.steps] != [s["record"] for s in one.steps]


def test_dp75_cli_play_writes_a_replay_that_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replay_file = tmp_path / "dp.json.gz"
    code = main(
        [
            "play", "datspulse", "forager", "raider", "random_walker", "--seed", "3",
            "--set", "turns=10", "--set", "map_radius=16", "--replay", str(replay_file),
        ]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert "datspulse" in out and "seed 3" in out and "forager" in out
    replay = read_replay(replay_file)
    assert replay.game == "datspulse" and replay.seed == 3 and len(replay.steps) == 10
    assert main(["replay", str(replay_file), "--verify"]) == 0
    assert "identical: 10 steps re-run" in capsys.readouterr().out


def test_dp63_cli_tournament_of_three_starter_bots(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`botarena tournament datspulse --bots forager,raider,random_walker --players 3`: every match of
    three teams is played and ranked (places are the match ranks)."""
    db = f"sqlite:///{tmp_path / 't.db'}"
    code = main(
        [
            "tournament", "datspulse", "--bots", "forager,raider,random_walker", "--players", "3",
            "--workers", "0", "--no-progress", "--db", db, "--name", "dp-cup",
            "--set", "turns=8", "--set", "map_radius=16",
        ]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert "0 failed" in out
    for name in ("forager", "raider", "random_walker"):
        assert name in out
    from botarena.store import Store

    store = Store.open(db, replay_dir=tmp_path / "replays")
    try:
        tournament = store.find_tournament("dp-cup")
        assert tournament is not None
        matches = store.list_matches(tournament.id)
        assert matches and all(m.status == "finished" for m in matches)
        for match in matches:
            assert len(match.seats) == 3 and sorted(match.ranks)[0] == 1
    finally:
        store.close()
