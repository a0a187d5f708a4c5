"""Spec 7.2: the Python player API (names, null objects, F4 warnings) and section 10's demo bot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from botarena.bots.resolve import python_file_factory
from botarena.core.registry import get_game
from botarena.games.domains.api import (
    Direction,
    Matrix,
    Player,
    Position,
    UnitType,
    utils,
)
from botarena.games.domains.engine import DomainsEngine
from botarena.games.domains.rng import BotRandom

GAME = get_game("domains")
EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "domains" / "explorer.py"


def observation(seat: int = 0) -> dict[str, Any]:
    config = GAME.config(overrides={"board_height": 8, "board_width": 8})
    engine = DomainsEngine(config, 5, 2)
    return engine.next_requests()[seat].payload  # type: ignore[no-any-return]


class Probe(Player):
    def play(self) -> None:
        pass


def loaded(seat: int = 0) -> Probe:
    player = Probe()
    player.setup({"me": seat, "bot_seed": 17, "config": {}})
    player.act(observation(seat))
    return player


def test_api_reads_the_observation() -> None:
    p = loaded(1)
    assert (p.rows(), p.cols(), p.round(), p.me()) == (8, 8, 0, 1)
    assert p.units(0) == [0] and p.units(1) == [1]
    assert p.numberOfUnits() == [1, 1, 0, 0] == p.number_of_units()
    assert p.maxNumberOfUnits() == 20
    u = p.unit(1)
    assert (u.id(), u.player(), u.position(), u.energy(), u.upgraded()) == (1, 1, Position(1, 6), 5, False)
    assert u.type() is UnitType.unit
    assert p.unit((1, 6)).id() == 1 and p.unit(Position(1, 6)).id() == 1
    sq = p.square((0, 5))
    assert sq.painted() and sq.painter() == 1 and not sq.drawn() and sq.empty() and not sq.ability()
    assert p.points(0) == 0 and p.posOk((7, 7)) and not p.pos_ok((8, 0))


def test_f4_bad_arguments_return_null_objects_and_warn(capsys: pytest.CaptureFixture[str]) -> None:
    p = loaded()
    assert p.unit(99).id() == -1 and p.unit(99).position() == Position(-1, -1)
    assert p.unit((3, 3)).player() == -1
    assert p.bubble(0).id() == -1 and p.bubble((0, 0)).roundsToPop() == 0
    off = p.square((20, -1))
    assert off.painter() == -1 and off.empty() and off.pos() == Position(20, -1)
    assert p.points(7) == -1 and p.units(9) == []
    assert p.randomNumber(5, 2) == 5
    p.move(99, Direction.up)
    p.move(0, 12)
    p.move(0, Direction.up)
    p.attack(0, Direction.down)
    assert [(o.unitId, int(o.dir)) for o in p._orders] == [(0, 1)]
    err = capsys.readouterr().err
    assert err.count("domains api warning") == 12  # one per bad call (unit(99) and (3, 3) asked twice)


def test_positions_directions_utils_matrix() -> None:
    a = Position(3, 3)
    assert a + Direction.UR == Position(2, 4) and a - Position(1, 1) == Position(2, 2)
    assert a.to(Position(9, 0)) is Direction.DL and a.to(a) is Direction.null  # any distance
    assert Position(1, 9) < Position(2, 0) and len({Position(1, 1), Position(1, 1)}) == 1
    assert utils.decompose(Direction.UR) == (Direction.right, Direction.up)
    assert utils.perpendiculars(Direction.left) == (Direction.up, Direction.down)
    assert utils.invert(Direction.DL) is Direction.UR and utils.invert(Direction.null) is Direction.null
    assert utils.isDiagonal(Direction.DR) and not utils.is_diagonal(Direction.up)
    m: Matrix[int] = Matrix(2, 3, 0)
    m[(1, 2)] = 7
    assert list(m) == [0, 0, 0, 0, 0, 7] and m[Position(1, 2)] == 7 and (m.rows(), m.cols()) == (2, 3)
    with pytest.raises(IndexError):
        m[(2, 0)]


def test_dr4_private_stream_and_errors_in_play() -> None:
    p = loaded()
    expected = BotRandom(17)
    assert [p.randomNumber(0, 9) for _ in range(5)] == [expected.random_number(0, 9) for _ in range(5)]
    assert sorted(p.randomPermutation()) == [0, 1, 2, 3]

    class Broken(Player):
        def play(self) -> None:
            self.move(0, Direction.up)
            raise ValueError("oops")

    bot = Broken()
    bot.setup({"me": 0, "bot_seed": 1})
    reply = bot.act(observation())
    assert reply["orders"] == [] and "ValueError: oops" in reply["error"]


def test_demo_moves_on_even_rounds_only() -> None:
    demo = GAME.starter_bots["demo"]()
    demo.setup({"me": 0, "bot_seed": 3})
    obs = observation()
    first = demo.act(obs)
    assert first["orders"] == [{"unit": 0, "type": "move", "dir": first["orders"][0]["dir"]}]
    assert 1 <= first["orders"][0]["dir"] <= 4
    assert demo.act({**obs, "round": 1}) == {"orders": []}


def test_the_example_bot_loads_and_plays() -> None:
    factory = python_file_factory(EXAMPLE)
    bot = factory()
    bot.setup({"me": 0, "bot_seed": 4})
    reply = bot.act(observation())
    assert len(reply["orders"]) == 1 and reply["orders"][0]["type"] == "move"


def test_a_four_player_replay_records_its_player_count_in_the_keyframes() -> None:
    """The config handed to a match may be the preset's (num_players 2); the engine follows the seat
    count, and its keyframes say how many players the match really has (the viewer reads it)."""
    from botarena.bots.inprocess import PythonBot
    from botarena.runner import run_match
    from botarena.runner.verify import verify_replay

    game = get_game("domains")
    config = game.config(overrides={"number_of_rounds": 8, "board_height": 12, "board_width": 12})
    run = run_match(game, [PythonBot(game.starter_bots["dummy"], "d")] * 4, config=config, seed=3)
    assert all(kf["state"]["num_players"] == 4 for kf in run.replay.keyframes)
    assert len(run.replay.keyframes[-1]["state"]["points"]) == 4
    assert verify_replay(run.replay).identical
