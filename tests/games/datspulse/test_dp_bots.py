"""The starter bots of spec §10: what each promises, and how they fare against each other."""

from __future__ import annotations

from typing import Any

import pytest

from botarena.bots.inprocess import PythonBot
from botarena.games.datspulse import GAME
from botarena.games.datspulse.bots import STARTERS, Forager, Raider, RandomWalker
from botarena.games.datspulse.bots.common import SeededBot
from botarena.games.datspulse.engine import Round
from botarena.games.datspulse.hexgrid import distance, neighbours
from botarena.runner import run_match

#: A generous turn limit: a preempted turn on a busy machine would change the game these tests check.
SMALL = {"map_radius": 16, "turn_timeout_ms": 10_000}
SPEED = {0: 5, 1: 4, 2: 7}


def play(names: tuple[str, ...], seed: int, **overrides: Any) -> Any:
    config = GAME.config(overrides={**SMALL, **overrides})
    bots = [PythonBot(STARTERS[name], name) for name in names]
    return run_match(GAME, bots, config=config, seed=seed).replay


def drive(
    bot: SeededBot, turns: int, seed: int = 4, teams: int = 2
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Seat 0 is `bot`, the others stand still; returns (arena, moves body) per turn."""
    config = GAME.config(overrides={**SMALL, "turns": turns})
    round_ = Round.create(config, seed, [f"t{i}" for i in range(teams)])
    bot.setup({"bot_seed": 99, "teams": teams, "config": config.lockstep_dict()})
    seen = []
    while not round_.finished:
        arena = round_.arena(0, 1.0)
        body = bot.act({**arena, "errors": []})
        assert round_.submit(0, body) == []  # never a rejected command (§5)
        seen.append((arena, body))
        round_.transition()
    return seen


def warnings_of(replay: Any, seat: int) -> list[Any]:
    return [
        w
        for step in replay.steps
        for w in (step["verdicts"][seat][3] if len(step["verdicts"][seat]) > 2 else [])
    ]


def test_dp10_forager_clearly_beats_the_random_walker() -> None:
    for seed in (1, 2, 3):
        replay = play(("forager", "random_walker"), seed, turns=60)
        forager, walker = replay.result["scores"]
        assert forager > 0
        assert forager >= 3 * walker + 200, (seed, forager, walker)
        assert replay.result["ranks"] == [1, 2]


def test_dp77_raider_steals_nectar_when_it_meets_an_anthill() -> None:
    """§10.3 in a seeded game on a small map: the raider finds the forager's anthill and raids it (DP-77)."""
    replay = play(("raider", "forager"), 0, turns=30, map_radius=12)
    thefts = [
        event["message"]
        for step in replay.steps
        for event in step["record"]["events"]
        if event["team"] == 0 and ": ant " in event["message"] and " stole " in event["message"]
    ]
    losses = [
        event["message"]
        for step in replay.steps
        for event in step["record"]["events"]
        if event["team"] == 1 and "enemy ant stole" in event["message"]
    ]
    assert thefts and len(thefts) == len(losses)
    assert all("Nectar from enemy anthill at" in text for text in thefts)


def test_dp5_forager_and_raider_send_only_commands_the_server_accepts() -> None:
    """Their paths use known tiles, adjacent steps and at most `speed` hexes: no `errors` at all."""
    replay = play(("forager", "raider", "random_walker"), 6, turns=40)
    assert warnings_of(replay, 0) == []
    assert warnings_of(replay, 1) == []
    assert {status for step in replay.steps for status, *_ in step["verdicts"]} == {"OK"}


@pytest.mark.parametrize("make", [Forager, Raider, RandomWalker], ids=["forager", "raider", "random_walker"])
def test_dp60_paths_start_next_to_the_ant_and_fit_its_speed(make: type[SeededBot]) -> None:
    for arena, body in drive(make(), 25):
        ants = {ant["id"]: ant for ant in arena["ants"]}
        tiles = {(t["q"], t["r"]) for t in arena["map"]}
        for move in body["moves"]:
            ant = ants[move["ant"]]
            assert ant["health"] > 0  # corpses take no orders (DP-24)
            path = [(step["q"], step["r"]) for step in move["path"]]
            start = (ant["q"], ant["r"])
            assert 1 <= len(path) <= SPEED[ant["type"]]
            assert start not in path  # §10.1: it never sends the start hex
            for before, after in zip([start, *path], path, strict=False):
                assert after in neighbours(*before)
            assert path[0] in tiles  # a neighbour is within every unit's view: it exists


@pytest.mark.parametrize("make", [Forager, Raider], ids=["forager", "raider"])
def test_dp79_forager_keeps_the_spot_clear(make: type[SeededBot]) -> None:
    """§10.2 "Spot": no path ends on the spot, and whatever stands on it is sent off."""
    for arena, body in drive(make(), 25):
        spot = (arena["spot"]["q"], arena["spot"]["r"])
        moved = {move["ant"]: move["path"] for move in body["moves"]}
        for path in moved.values():
            assert (path[-1]["q"], path[-1]["r"]) != spot
        for ant in arena["ants"]:
            if ant["health"] > 0 and (ant["q"], ant["r"]) == spot:
                assert ant["id"] in moved


def test_dp95_bot_randomness_comes_from_bot_seed() -> None:
    config = GAME.config(overrides=SMALL)
    round_ = Round.create(config, 8, ["a"])
    arena = {**round_.arena(0, 1.0), "errors": []}

    def moves(seed: int) -> Any:
        bot = RandomWalker()
        bot.setup({"bot_seed": seed, "teams": 1, "config": config.lockstep_dict()})
        return [bot.act(arena) for _ in range(5)]

    assert moves(1) == moves(1)
    assert moves(1) != moves(2)


def test_dp10_bots_play_without_a_start_payload_and_ignore_the_lobby_arena() -> None:
    """Over HTTP there is no `start` (§10): spec defaults and seed 0; the lobby arena gets no moves."""
    lobby = {"ants": [], "enemies": [], "map": [], "food": [], "turnNo": 0, "nextTurnIn": 0, "home": [],
             "score": 0, "spot": {"q": 0, "r": 0}}  # fmt: skip
    round_ = Round.create(GAME.config(overrides=SMALL), 8, ["a"])
    for make in (Forager, Raider, RandomWalker):
        bot = make()
        assert bot.act(lobby) == {"moves": []}
        body = bot.act(round_.arena(0, 2.0))
        assert round_.submit(0, body) == []
        spot = (round_.arena(0, 2.0)["spot"]["q"], round_.arena(0, 2.0)["spot"]["r"])
        assert all(distance((m["path"][0]["q"], m["path"][0]["r"]), spot) <= 2 for m in body["moves"])
