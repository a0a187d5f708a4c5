"""The game's own hidden-information check (observe.hidden_info_check, spec 4.5): it passes on the
real engine, and it catches an engine that leaks the opponent's counts, in either seat."""

from __future__ import annotations

import dataclasses

import pytest
from drones_testkit import GAME

from botarena.core.protocol import Request
from botarena.games.drones.config import DronesConfig
from botarena.games.drones.engine import DronesEngine
from botarena.games.drones.observe import hidden_info_check


def test_the_engine_hides_the_opponent_during_a_round() -> None:
    hidden_info_check(GAME)


def leaky(seat: int) -> type[DronesEngine]:
    """An engine whose turn observation of `seat` shows the other side's soldiers (breaks 4.5)."""

    class Leaky(DronesEngine):
        def next_requests(self) -> list[Request]:
            requests = super().next_requests()
            for request in requests:
                if request.seat == seat:
                    request.payload["theirSoldiers"] = self.state.sides[1 - seat].soldiers
            return requests

    return Leaky


@pytest.mark.parametrize("seat", [0, 1])
def test_the_check_catches_a_leak_in_either_seat(seat: int) -> None:
    game = dataclasses.replace(GAME, new_engine=leaky(seat))
    with pytest.raises(AssertionError, match=f"seat {seat}, round 1 turn 2: the view shows opponent"):
        hidden_info_check(game)


def test_the_check_catches_a_round_result_that_hides_too_much() -> None:
    """4.3: after a round the opponent's final counts do show; a check that can see no difference at
    all would prove nothing, so it says so."""

    class Blind(DronesEngine):
        def next_requests(self) -> list[Request]:
            requests = super().next_requests()
            for request in requests:
                request.payload["previousRound"] = None
            return requests

    def blind(config: DronesConfig, seed: int, players: int = 2) -> DronesEngine:
        return Blind(config, seed, players)

    with pytest.raises(AssertionError, match="round 2 shows nothing"):
        hidden_info_check(dataclasses.replace(GAME, new_engine=blind))
