"""Replays as each caller sees them (specs/arena.md: "P gets the replay with every seat's logs removed;
T gets its own seats' logs; O all"; G8: canaries in a team's stderr reach nobody else). The matches are
real drones matches with a subprocess bot that prints a canary to stderr, crashes or prints garbage,
in either seat."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import pytest

from botarena.arena.visibility import replay_for
from botarena.bots.inprocess import PythonBot
from botarena.bots.resolve import resolve_bot
from botarena.core.registry import get_game
from botarena.runner import run_match

GAME = get_game("drones")
CONFIG = GAME.config(overrides={"rounds": 1})
CANARY = "STDERR-CANARY-a41c"

BOTS = {
    "crashes": f"import sys\nprint({CANARY!r}, file=sys.stderr, flush=True)\nsys.stdin.readline()\n"
    f"raise RuntimeError({CANARY!r})\n",
    "garbage": f"import sys\nfor line in sys.stdin:\n    print({CANARY!r}, file=sys.stderr, flush=True)\n"
    "    print('not json', flush=True)\n",
}


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("kind", sorted(BOTS))
def test_g8_a_teams_stderr_reaches_only_its_own_and_the_organizers_view(
    kind: str, seat: int, tmp_path: Path
) -> None:
    path = tmp_path / f"{kind}.py"
    path.write_text(BOTS[kind], encoding="utf-8")
    team = resolve_bot(f"cmd:{sys.executable} {path}", GAME)
    other = PythonBot(GAME.starter_bots["adaptive"], name="starter")
    bots = [team, other] if seat == 0 else [other, team]
    replay = run_match(GAME, bots, config=CONFIG, seed=4).replay.to_json()
    assert CANARY in orjson.dumps(replay).decode()  # the canary is there to be hidden

    public = orjson.dumps(replay_for(replay, ())).decode()
    rival = orjson.dumps(replay_for(replay, (1 - seat,))).decode()
    own = replay_for(replay, (seat,))
    assert CANARY not in public and CANARY not in rival
    assert CANARY in own["logs"][seat]["text"]
    assert CANARY in orjson.dumps(replay_for(replay, None)).decode()
    assert [entry["seat"] for entry in replay_for(replay, ())["logs"]] == [0, 1]
    assert replay_for(replay, ())["steps"] == replay["steps"]  # the game itself stays public


def test_replay_for_leaves_a_replay_without_logs_as_it_is() -> None:
    assert replay_for({"game": "drones"}, ()) == {"game": "drones"}
