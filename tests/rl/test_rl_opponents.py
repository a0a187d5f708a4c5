"""The learner's opponents are real botarena bots of every transport kind, held to the match's limits.

A learner that trains against a stranger's bot must get a match that goes on whatever that bot does:
it hangs (TIMEOUT), crashes (CRASHED), writes garbage (INVALID), and its process is gone when the
episode is abandoned or the env closed. Each attack is played in both seats, against in-process,
subprocess and HTTP opponents. GameOfDrones, one round of two turns (GD-7): the learner's scripted
rush (all soldiers, attack on turn 2) wins against any opponent that does not attack, so its rewards
are known: +1 for the round (GD-22) and +1 for the match (GD-25).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from botarena import rl
from botarena.rl.envs import BotarenaGymEnv
from botarena.runner.verify import verify_replay
from botarena.standalone import embedded_replay
from zoo.http_bots import HonestHttp, HostileHttp

ZOO = Path(__file__).resolve().parent.parent / "zoo" / "bots"
QUICK = {"rounds": 1, "turn_limit": 2, "turn_timeout_ms": 400, "setup_timeout_ms": 20000}
"""Honest bots answer in milliseconds; hostile ones never in time, whatever the machine's load (the
learner is never timed: only bots are)."""
SILENT = {**QUICK, "setup_timeout_ms": 1000}
"""For a bot that answers nothing, the start exchange included: no honest start is waited for."""
ALL_SOLDIERS, ALL_SOLDIERS_ATTACK = 8, 9  # drones.rl: 2 * share + attack, share 4/4 of capacity
SEATS = (0, 1)


def zoo_command(name: str) -> str:
    return f"cmd:{sys.executable} {ZOO / name}.py"


def rush(env: BotarenaGymEnv, seed: int = 5) -> tuple[float, dict[str, Any]]:
    """Play the learner's rush to the end: (total reward, last info)."""
    env.reset(seed=seed)
    total, done, turn, info = 0.0, False, 0, {}
    while not done:
        turn += 1
        action = ALL_SOLDIERS_ATTACK if turn == 2 else ALL_SOLDIERS
        _obs, reward, done, _truncated, info = env.step(action)
        total += reward
    return total, info


def opponent_statuses(env: BotarenaGymEnv, seat: int) -> list[str]:
    """The opponent's verdict status on every turn of the match."""
    opponent = 1 - seat
    return [step["verdicts"][opponent][0] for step in env.replay().steps]


@pytest.fixture
def honest_http() -> Iterator[HonestHttp]:
    server = HonestHttp()
    yield server
    server.stop()


@pytest.fixture
def hanging_http() -> Iterator[HostileHttp]:
    server = HostileHttp("never_answers")
    yield server
    server.stop()


class Honest:
    """The zoo's honest bot, in process: one producer a turn, never an attack."""

    def setup(self, payload: Any) -> Any:
        return {}

    def act(self, payload: Any) -> Any:
        return {"newProducers": 1}

    def end(self, payload: Any) -> Any:
        return {}


class Hangs(Honest):
    """Never returns from a turn (the preemptive time limit stops it)."""

    def act(self, payload: Any) -> Any:
        while True:  # spins until the preemptive time limit interrupts it
            pass


class Raises(Honest):
    def act(self, payload: Any) -> Any:
        raise RuntimeError("the opponent's own bug")


@pytest.mark.parametrize("seat", SEATS)
@pytest.mark.parametrize(
    ("opponent", "status"),
    [
        (Honest, "OK"),
        (Hangs, "TIMEOUT"),
        (Raises, "CRASHED"),
        (zoo_command("honest"), "OK"),
        (zoo_command("late"), "TIMEOUT"),
        (zoo_command("garbage"), "INVALID"),
    ],
    ids=[
        "inprocess-honest",
        "inprocess-hangs",
        "inprocess-raises",
        "subprocess-honest",
        "subprocess-late",
        "subprocess-garbage",
    ],
)
def test_gd22_gd25_the_learner_beats_any_passive_opponent_and_its_verdicts_are_recorded(
    seat: int, opponent: Any, status: str
) -> None:
    env = rl.gym_env("drones", opponent, seat=seat, config=QUICK)
    total, info = rush(env)
    # the statuses first: an opponent that answered otherwise than expected explains any result
    statuses = opponent_statuses(env, seat)
    assert statuses == [status, status], (statuses, env.replay().logs)
    assert total == 2.0
    assert info["result"]["ranks"][seat] == 1
    assert verify_replay(env.replay()).identical
    env.close()


@pytest.mark.parametrize("seat", SEATS)
def test_a_subprocess_opponent_that_crashes_mid_match_is_crashed_and_the_match_goes_on(seat: int) -> None:
    env = rl.gym_env("drones", zoo_command("crash_mid"), seat=seat, config=QUICK)
    total, _info = rush(env)
    assert total == 2.0
    assert opponent_statuses(env, seat) == ["OK", "CRASHED"]
    env.close()


@pytest.mark.parametrize("seat", SEATS)
def test_http_opponents_honest_and_hanging(
    seat: int, honest_http: HonestHttp, hanging_http: HostileHttp
) -> None:
    for server, status, config in ((honest_http, "OK", QUICK), (hanging_http, "TIMEOUT", SILENT)):
        env = rl.gym_env("drones", server.url("bot"), seat=seat, config=config)
        total, _info = rush(env)
        assert total == 2.0
        assert opponent_statuses(env, seat) == [status, status]
        env.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/stat").read_text().split()[2] if Path(f"/proc/{pid}/stat").exists() else "X"
    return status != "Z"


@pytest.mark.parametrize("seat", SEATS)
def test_an_abandoned_episode_and_a_closed_env_leave_no_opponent_process(seat: int) -> None:
    env = rl.gym_env("drones", zoo_command("late"), seat=seat, config=QUICK)
    env.reset(seed=1)
    first = env._matches.playing().opponents[1 - seat].pid  # type: ignore[attr-defined]
    env.step(ALL_SOLDIERS)  # mid-match
    env.reset(seed=2)  # abandons the first match
    second = env._matches.playing().opponents[1 - seat].pid  # type: ignore[attr-defined]
    assert first is not None and second is not None and first != second
    assert not _alive(first)
    env.close()
    assert not _alive(second)


def test_bad_arguments_are_refused_with_a_clear_message() -> None:
    with pytest.raises(LookupError, match="unknown game"):
        rl.parallel_env("chess")
    with pytest.raises(ValueError, match="rounds"):
        rl.parallel_env("drones", config={"rounds": -1})
    with pytest.raises(ValueError, match="nope"):
        rl.parallel_env("drones", config={"nope": 1})
    with pytest.raises(ValueError, match="seat 2"):
        rl.gym_env("drones", "zergy", seat=2)
    with pytest.raises(ValueError, match="render_mode"):
        rl.parallel_env("drones", render_mode="human")
    with pytest.raises(ValueError, match="needs 2 players"):
        rl.parallel_env("drones", seats=3)


def test_an_unknown_opponent_spec_is_refused_when_the_env_is_made() -> None:
    with pytest.raises(ValueError, match="no-such-starter-or-file"):
        rl.gym_env("drones", "no-such-starter-or-file", config=QUICK)
    with pytest.raises(ValueError, match="no-such-starter-or-file"):
        rl.parallel_env("drones", opponents={1: "no-such-starter-or-file"})


def test_render_modes_draw_the_state_and_the_viewer_page() -> None:
    env = rl.parallel_env("drones", config=QUICK, render_mode="ansi")
    env.reset(seed=3)
    text = env.render()
    assert isinstance(text, str) and text.strip()
    env = rl.parallel_env("drones", config=QUICK, render_mode="html")
    env.reset(seed=3)
    env.step(dict.fromkeys(env.agents, ALL_SOLDIERS))
    page = env.render()
    assert isinstance(page, str) and page.lstrip().lower().startswith("<!doctype html")
    shown = embedded_replay(page)  # packed since issue 26 item 5: read back, not searched for
    assert shown.game == "drones" and len(shown.steps) == 1
