"""The match loop itself: arguments, observers, the replay it records."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from botarena.bots.inprocess import PythonBot
from botarena.core.game import GameInfo
from botarena.runner import run_match


def pair(game: GameInfo, a: str = "randomonium", b: str = "adaptive") -> list[PythonBot]:
    return [PythonBot(game.starter_bots[a], a), PythonBot(game.starter_bots[b], b)]


def test_wrong_number_of_players(drones: GameInfo) -> None:
    with pytest.raises(ValueError, match="drones needs 2 players, got 1"):
        run_match(drones, pair(drones)[:1])


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5])
def test_bad_seed(drones: GameInfo, seed: Any) -> None:
    with pytest.raises(ValueError, match="match seed"):
        run_match(drones, pair(drones), seed=seed)


def test_on_step_sees_every_step(drones: GameInfo) -> None:
    seen: list[tuple[int, dict[str, Any]]] = []
    run = run_match(drones, pair(drones), seed=4, on_step=lambda i, record, engine: seen.append((i, record)))
    assert [i for i, _ in seen] == list(range(1, len(run.replay.steps) + 1))
    assert [r for _, r in seen] == [step["record"] for step in run.replay.steps]


def test_replay_header_and_tallies(drones: GameInfo) -> None:
    run = run_match(drones, pair(drones), seed=4, match_id="m-1", preset="bravolt2018")
    replay = run.replay
    assert replay.match_id == "m-1" and replay.preset == "bravolt2018"
    assert replay.config["rules"] == "bravolt2018"
    assert replay.created_by.startswith("botarena ")
    for seat in (0, 1):
        counted = sum(replay.statuses[seat].values())
        assert counted == 1 + len(replay.steps)  # the start exchange and every turn
        assert replay.time_used_ms[seat] >= 0.0
    assert replay.result == run.result.to_json()
    every = drones.keyframe_every
    assert [k["step"] for k in replay.keyframes] == sorted(
        {0, *range(every, len(replay.steps) + 1, every), len(replay.steps)}
    )


def test_match_ids_are_unique_by_default(drones: GameInfo) -> None:
    ids = {run_match(drones, pair(drones), seed=1).replay.match_id for _ in range(3)}
    assert len(ids) == 3


def test_keyframes_every_n_steps(drones: GameInfo) -> None:
    config = drones.config(overrides={"rounds": 30, "turn_limit": 10})
    replay = run_match(drones, pair(drones, "pacifist", "pacifist"), config=config, seed=1).replay
    assert len(replay.steps) == 300
    assert [k["step"] for k in replay.keyframes] == [0, 100, 200, 300]


def idle() -> Any:
    return lambda obs: {}


def long_match(game: GameInfo, on_step: Any = None) -> Any:
    config = game.config(overrides={"rounds": 41, "turn_limit": 50})  # 2,050 steps
    return run_match(game, [PythonBot(idle), PythonBot(idle)], config=config, seed=1, on_step=on_step)


def test_long_matches_freeze_the_replay_for_the_collector_and_unfreeze_it(drones: GameInfo) -> None:
    counts: dict[int, int] = {}

    def watch(index: int, record: Any, engine: Any) -> None:
        if index in (1999, 2001):
            counts[index] = gc.get_freeze_count()

    assert gc.get_freeze_count() == 0
    run = long_match(drones, watch)
    assert len(run.replay.steps) == 2050
    assert counts[1999] == 0 and counts[2001] > 0
    assert gc.get_freeze_count() == 0  # all unfrozen at the end


def test_a_process_that_froze_itself_is_left_alone(drones: GameInfo) -> None:
    gc.freeze()
    try:
        before = gc.get_freeze_count()
        assert before > 0
        long_match(drones)
        assert gc.get_freeze_count() <= before  # (frozen objects freed meanwhile count down)
    finally:
        gc.unfreeze()


def test_on_begin_sees_the_header_before_the_first_step(drones: GameInfo) -> None:
    seen: list[tuple[str, int]] = []

    def begin(replay: Any) -> None:
        assert replay.start["replies"] and [k["step"] for k in replay.keyframes] == [0]
        seen.append(("begin", len(replay.steps)))

    run = run_match(
        drones, pair(drones), seed=4, on_begin=begin, on_step=lambda i, r, e: seen.append(("step", i))
    )
    assert seen[0] == ("begin", 0)
    assert seen[1:] == [("step", i) for i in range(1, len(run.replay.steps) + 1)]


def test_the_replay_records_the_config_the_engine_plays() -> None:
    from botarena.core.registry import get_game

    domains = get_game("domains")  # its engine takes num_players from the seat count
    config = domains.config(overrides={"number_of_rounds": 3})
    assert config.num_players == 2
    bots = [PythonBot(domains.starter_bots["demo"], f"demo{i}") for i in range(3)]
    run = run_match(domains, bots, config=config, seed=2)
    assert run.replay.config["num_players"] == 3
