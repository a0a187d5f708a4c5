"""Issue 16: `resume_match` goes on with a match a killed host left as a journal. For every game, a
match stopped after a recorded step is resumed with fresh bots and its finished replay verifies as
one whole game with every recorded step unchanged; a partial replay that does not re-run is refused
before any bot starts; late replies (CQ-33) and accepted Devops bonus codes (spec 7.5) are restored."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from botarena.bots.base import Bot
from botarena.bots.inprocess import PythonBot
from botarena.bots.subprocess import SubprocessBot
from botarena.core.game import GameInfo
from botarena.core.journal import ReplayJournal, read_journal
from botarena.core.registry import all_games, get_game
from botarena.core.replay import Replay, read_replay
from botarena.runner import ResumeError, resume_match, run_match
from botarena.runner.verify import verify_replay

from .test_late_answers import SleepsOnce
from .test_late_answers_toy import Adder, toy

__all__ = ["toy"]  # a fixture used here

STOP_AT = 3


class Stop(Exception):
    """Ends a match from its observer, the way a kill would: the journal is left as it is."""


def starters(game: GameInfo, seats: int = 2) -> list[Bot]:
    names = list(game.starter_bots)
    return [PythonBot(game.starter_bots[names[s % len(names)]], names[s % len(names)]) for s in range(seats)]


def stopped(game: GameInfo, bots: list[Bot], path: Path, stop_at: int, **kwargs: Any) -> Replay:
    """Play with a journal flushed every step and stop after step `stop_at`; the partial replay."""
    journal = ReplayJournal(path, flush_every_s=0.0)
    begin, step = journal.observers()

    def on_step(index: int, record: Any, engine: Any) -> None:
        step(index, record, engine)
        if index == stop_at:
            raise Stop

    with pytest.raises(Stop):
        run_match(game, bots, seed=21, on_begin=begin, on_step=on_step, **kwargs)
    return read_replay(path)


def assert_one_whole_game(partial: Replay, final: Replay) -> None:
    assert not final.partial and final.result["ranks"]
    report = verify_replay(final)
    assert report.identical and report.steps_checked == len(final.steps), report
    assert final.steps[: len(partial.steps)] == partial.steps  # no recorded step changed
    assert final.keyframes[: len(partial.keyframes)] == partial.keyframes
    assert final.resumes[-1]["after_step"] == len(partial.steps)
    counted = [0] * len(final.players)
    for exchange in (final.start, *final.steps):
        for reply in exchange["replies"]:
            counted[reply["seat"]] += 1
    assert [sum(tally.values()) for tally in final.statuses] == counted


@pytest.mark.parametrize("game_id", sorted(game.id for game in all_games()))
def test_every_game_resumes_after_a_stop_and_verifies_as_one_game(game_id: str, tmp_path: Path) -> None:
    game = get_game(game_id)
    seats = max(2, game.min_players)
    config = game.config("default", game.test_overrides)  # whole games, kept quick
    partial = stopped(game, starters(game, seats), tmp_path / "game.json.gz", STOP_AT, config=config)
    assert partial.partial and len(partial.steps) == STOP_AT
    final = resume_match(partial, starters(game, seats)).replay
    assert_one_whole_game(partial, final)
    assert len(final.resumes) == 1 and all(r["status"] == "OK" for r in final.resumes[0]["replies"])


KIT_BOT = """from botarena.games.drones.bots import STARTERS

create_bot = STARTERS["zergy"]
"""


@pytest.mark.parametrize("seat", [0, 1])
def test_drones_resumes_with_a_restarted_subprocess_bot_in_either_seat(seat: int, tmp_path: Path) -> None:
    game = get_game("drones")
    script = tmp_path / "zergy_kit.py"
    script.write_text(KIT_BOT)

    def bots() -> list[Bot]:
        process = SubprocessBot([sys.executable, "-m", "botarena.kit", str(script)], name="kit")
        other = PythonBot(game.starter_bots["adaptive"], "adaptive")
        return [process, other] if seat == 0 else [other, process]

    partial = stopped(game, bots(), tmp_path / "game.json.gz", 8)
    final = resume_match(partial, bots()).replay
    assert_one_whole_game(partial, final)
    assert final.resumes[0]["replies"][seat]["status"] == "OK"  # the new process answered its start
    assert set(final.statuses[seat]) == {"OK"}


class Opened(Bot):
    """Records whether the runner ever opened it."""

    opened = False

    def open(self, match_id: str, seat: int) -> None:
        Opened.opened = True

    def send(self, request: Any, request_id: int, timeout_s: float) -> None:
        raise AssertionError("never asked")

    def receive(self) -> Any:
        raise AssertionError("never asked")


def test_a_partial_replay_that_does_not_rerun_is_refused_before_any_bot_starts(tmp_path: Path) -> None:
    game = get_game("drones")
    partial = stopped(game, starters(game), tmp_path / "game.json.gz", 5)
    edited = Replay.from_json(partial.to_json())
    edited.partial = True
    reply = edited.steps[1]["replies"][0]
    reply["payload"] = {**reply["payload"], "launchAttack": not reply["payload"].get("launchAttack")}
    with pytest.raises(ResumeError, match=r"does not re-run: differs at step 2"):
        resume_match(edited, [Opened(), Opened()])
    with pytest.raises(ResumeError, match="the game has 2 seats, 3 bots were given"):
        resume_match(partial, [Opened(), Opened(), Opened()])
    assert not Opened.opened


def cut(replay: Replay, steps: int) -> Replay:
    """What a journal cut after step `steps` reads as (`parse_journal` keeps exactly this)."""
    partial = Replay.from_json(replay.to_json())
    partial.steps = partial.steps[:steps]
    partial.keyframes = [frame for frame in partial.keyframes if frame["step"] <= steps]
    partial.late = [entry for entry in partial.late if entry["after_step"] <= steps]
    partial.end, partial.result, partial.logs, partial.statuses, partial.time_used_ms = {}, {}, [], [], []
    partial.partial = True
    return partial


def test_cq33_a_recorded_late_reply_is_given_back_to_the_resumed_engine(toy: GameInfo) -> None:
    bots: list[Bot] = [PythonBot(SleepsOnce), PythonBot(lambda: Adder(1, 0.04))]
    full = run_match(toy, bots, config=toy.config(overrides={"rounds": 12}), seed=5).replay
    assert len(full.late) == 1
    after = full.late[0]["after_step"]
    for steps in (after, after + 1):  # a kill just after the late reply was handed over, and later
        partial = cut(full, steps)
        assert len(partial.late) == 1
        final = resume_match(partial, [PythonBot(lambda: Adder(1, 0.0)), PythonBot(lambda: Adder(1, 0.0))])
        assert_one_whole_game(partial, final.replay)
        assert final.replay.late == full.late


def test_dv_7_5_a_code_redeemed_before_the_kill_activates_after_the_resume(tmp_path: Path) -> None:
    """Spec 7.5: a redemption the server accepted in turn 5 (activating in turn 6) whose turn 6 was
    never recorded is given back to the resumed engine from the journal's external events, and the
    code book knows the code was issued and redeemed."""
    from botarena.server.devops.codes import LiveCodes

    base = get_game("devops")
    config = base.config("smoke", {"bonus_codes_enabled": True, "turn_limit": 12})
    path = tmp_path / "game.json.gz"
    journal = ReplayJournal(path, flush_every_s=0.0)
    match = SimpleNamespace(engine=None, config=config, players=[], organizer_key="org", journal=journal)
    match.team_keys = {1: "k1", 2: "k2"}

    def capture(*args: Any) -> Any:
        match.engine = base.new_engine(*args)
        return match.engine

    game = dataclasses.replace(base, new_engine=capture)
    codes = LiveCodes(match)
    begin, step = journal.observers()

    def on_step(index: int, record: Any, engine: Any) -> None:
        step(index, record, engine)
        if index == 5:
            code = codes.issue(engine.game_id, {"factionId": 2, "type": "RUSH_ATTACK"}, "org")
            answer = codes.redeem(engine.game_id, {"factionId": 2, "code": code["code"]}, "k2")
            assert answer["activatesAtTurn"] == 6
            raise Stop

    with pytest.raises(Stop):
        run_match(game, starters(base), config=config, seed=3, on_begin=begin, on_step=on_step)
    saved = read_journal(path)
    assert [event["kind"] for event in saved.external] == ["code_issued", "code_redeemed"]
    partial = saved.replay
    assert len(partial.steps) == 5 and "redemptions" not in str(partial.steps)
    final = resume_match(partial, starters(base), external=saved.external).replay
    assert_one_whole_game(partial, final)
    taken = final.steps[5]["record"].get("redemptions")
    assert taken == [
        {"faction": 2, "type": "RUSH_ATTACK", "validUntilTurn": 5 + config.bonus_code_valid_turns}
    ]
    restored = LiveCodes(SimpleNamespace(**{**vars(match), "external": saved.external, "journal": None}))
    assert [code.redeemed for code in restored.book.codes.values()] == [True]
