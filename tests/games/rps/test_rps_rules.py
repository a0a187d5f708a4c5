"""Rock-paper-scissors (`botarena.games.rps`): the rules RPS-1 to RPS-7 of its package docstring."""

from __future__ import annotations

import copy
import pickle
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from botarena.bots.base import Bot
from botarena.bots.inprocess import PythonBot
from botarena.bots.subprocess import SubprocessBot
from botarena.core.config import ConfigError
from botarena.core.protocol import MessageType, Reply
from botarena.core.registry import get_game
from botarena.core.replay import Replay
from botarena.core.rng import bot_seed
from botarena.core.status import Status
from botarena.games.rps.actions import parse_move
from botarena.games.rps.engine import RpsEngine
from botarena.games.rps.rules import ranks, round_winner
from botarena.games.rps.text import keyframe_text
from botarena.runner import run_match
from botarena.runner.verify import verify_replay
from botarena.testing import check_game

GAME = get_game("rps")


def engine(rounds: int = 3, seed: int = 5) -> RpsEngine:
    made = GAME.new_engine(GAME.config(overrides={"rounds": rounds}), seed, 2)
    assert isinstance(made, RpsEngine)
    return made


def ok(seat: int, payload: Any) -> Reply:
    return Reply(seat, Status.OK, payload)


def moves(first: Any, second: Any) -> list[Reply]:
    return [ok(0, {"move": first}), ok(1, {"move": second})]


def play(bots: list[Bot], rounds: int = 9, seed: int = 1) -> Replay:
    """A match in a worker thread (in-process bots' SIGALRM preemption belongs off pytest's thread)."""
    config = GAME.config(overrides={"rounds": rounds})
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(run_match, GAME, bots, config=config, seed=seed).result().replay


def test_rps_1_config_default_nine_rounds_and_range() -> None:
    assert GAME.config().rounds == 9
    assert GAME.config("long").rounds == 99
    with pytest.raises(ConfigError):
        GAME.config(overrides={"rounds": 0})
    with pytest.raises(ConfigError):
        GAME.config(overrides={"round": 3})


def test_rps_1_the_match_ends_after_its_rounds() -> None:
    game = engine(rounds=3)
    game.apply_start([ok(0, {}), ok(1, {})])
    for _ in range(3):
        assert len(game.next_requests()) == 2
        game.apply(moves("rock", "rock"))
    assert game.next_requests() == []


def test_rps_2_start_carries_seat_rounds_and_own_bot_seed() -> None:
    game = engine(rounds=4, seed=77)
    starts = game.start_requests()
    assert [r.type for r in starts] == [MessageType.START] * 2
    for seat, request in enumerate(starts):
        assert request.payload == {"seat": seat, "rounds": 4, "bot_seed": bot_seed(77, "rps", seat)}
    # the start reply is not read: whatever it is, its verdict is the transport's
    verdicts = game.apply_start([ok(0, "anything"), Reply(1, Status.TIMEOUT, reason="deadline")])
    assert [v.status for v in verdicts] == [Status.OK, Status.TIMEOUT]


def test_rps_3_turn_payload_round_scores_and_last_moves() -> None:
    game = engine()
    game.apply_start([ok(0, {}), ok(1, {})])
    first = game.next_requests()
    assert [r.payload for r in first] == [
        {"seat": 0, "round": 1, "scores": [0, 0], "last_moves": None},
        {"seat": 1, "round": 1, "scores": [0, 0], "last_moves": None},
    ]
    game.apply([ok(0, {"move": "paper"}), ok(1, "junk")])
    second = game.next_requests()
    assert second[1].payload == {"seat": 1, "round": 2, "scores": [1, 0], "last_moves": ["paper", None]}


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ("rock", "not_object"),
        (None, "not_object"),
        ({}, "bad_field"),
        ({"move": "Rock"}, "bad_field"),
        ({"move": ["rock"]}, "bad_field"),
    ],
)
def test_rps_4_a_reply_that_is_no_move_is_invalid_and_forfeits(payload: Any, reason: str) -> None:
    move, verdict = parse_move(ok(1, payload))
    assert move is None
    assert (verdict.status, verdict.reason, verdict.seat) == (Status.INVALID, reason, 1)
    assert verdict.detail


def test_rps_4_timeouts_and_crashes_forfeit_with_their_status() -> None:
    move, verdict = parse_move(Reply(0, Status.CRASHED, reason="bot_error"))
    assert move is None and (verdict.status, verdict.reason) == (Status.CRASHED, "bot_error")


@pytest.mark.parametrize(
    ("first", "second", "winner"),
    [
        ("rock", "scissors", 0),
        ("scissors", "paper", 0),
        ("paper", "rock", 0),
        ("scissors", "rock", 1),
        ("paper", "scissors", 1),
        ("rock", "paper", 1),
        ("rock", "rock", None),
        ("paper", "paper", None),
        ("scissors", "scissors", None),
        ("rock", None, 0),
        (None, "paper", 1),
        (None, None, None),
    ],
)
def test_rps_5_who_wins_a_round(first: str | None, second: str | None, winner: int | None) -> None:
    assert round_winner([first, second]) == winner


def test_rps_5_the_winner_scores_a_point_in_the_record() -> None:
    game = engine()
    game.apply_start([ok(0, {}), ok(1, {})])
    game.next_requests()
    step = game.apply(moves("rock", "paper"))
    assert step.record == {"round": 1, "moves": ["rock", "paper"], "winner": 1, "scores": [0, 1]}
    assert [v.status for v in step.verdicts] == [Status.OK, Status.OK]


def test_rps_6_ranks_by_points_and_ties_share_rank_one() -> None:
    assert ranks([3, 1]) == [1, 2]
    assert ranks([0, 2]) == [2, 1]
    assert ranks([2, 2]) == [1, 1]


def test_rps_6_rps_7_a_whole_match_result_and_end_payloads() -> None:
    starters = GAME.starter_bots
    replay = play([PythonBot(starters["cycler"], "cycler"), PythonBot(starters["copycat"], "copycat")])
    # cycler plays what beats copycat's copy of cycler's last move from round 2 on; round 1 draws
    assert replay.result == {"ranks": [1, 2], "scores": [8.0, 0.0], "details": {"points": [8, 0]}}
    assert verify_replay(replay).identical


def test_rps_7_end_requests_carry_final_scores_and_ranks() -> None:
    game = engine(rounds=1)
    game.apply_start([ok(0, {}), ok(1, {})])
    game.next_requests()
    game.apply(moves("scissors", "paper"))
    assert game.next_requests() == []
    ends = game.end_requests()
    assert [r.type for r in ends] == [MessageType.END] * 2
    assert ends[1].payload == {"seat": 1, "scores": [1, 0], "ranks": [1, 2]}


GARBAGE_BOT = (
    "import sys, json\n"
    "for line in sys.stdin:\n"
    "    request = json.loads(line)\n"
    "    reply = {'move': 'lizard'} if request['type'] == 'turn' else {}\n"
    "    print(json.dumps({'id': request['id'], 'payload': reply}), flush=True)\n"
)


@pytest.mark.parametrize("bad_seat", [0, 1])
def test_rps_4_a_subprocess_bot_replying_no_move_forfeits_every_round_in_either_seat(bad_seat: int) -> None:
    bad = SubprocessBot([sys.executable, "-c", GARBAGE_BOT], name="lizard")
    good = PythonBot(GAME.starter_bots["rock"], "rock")
    bots: list[Bot] = [bad, good] if bad_seat == 0 else [good, bad]
    replay = play(bots, rounds=3)
    for step in replay.steps:
        assert step["verdicts"][bad_seat][:2] == ["INVALID", "bad_field"]
        assert step["verdicts"][1 - bad_seat] == ["OK", None]
        assert step["record"]["moves"][bad_seat] is None
    assert replay.result["ranks"][1 - bad_seat] == 1
    assert replay.result["details"]["points"][1 - bad_seat] == 3


def test_engine_deep_copies_and_pickles_mid_game_and_plays_on_identically() -> None:
    game = engine(rounds=5)
    game.apply_start([ok(0, {}), ok(1, {})])
    for pair in (("rock", "paper"), ("paper", "paper")):
        game.next_requests()
        game.apply(moves(*pair))
    clones = [copy.deepcopy(game), pickle.loads(pickle.dumps(game))]
    rest = [("scissors", "paper"), ("rock", None), ("paper", "rock")]
    played = []
    for one in [game, *clones]:
        records = []
        for first, second in rest:
            one.next_requests()
            records.append(one.apply(moves(first, second)).record)
        assert one.next_requests() == []
        played.append((records, one.result().to_json(), one.keyframe()))
    assert played[0][0][-1]["scores"] == [3, 1]
    assert played[1] == played[0] and played[2] == played[0]


def test_keyframe_text_draws_a_keyframe() -> None:
    assert keyframe_text({"played": 0, "rounds": 9, "scores": [0, 0], "last_moves": None}) == (
        "Round 0/9  score 0-0  last: none yet"
    )
    assert keyframe_text({"played": 3, "rounds": 9, "scores": [2, 1], "last_moves": ["rock", None]}) == (
        "Round 3/9  score 2-1  last: rock vs -"
    )


def test_rps_passes_botarena_testing() -> None:
    check_game(GAME)
