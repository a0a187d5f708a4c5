"""DatsPulse's RL encoding (`botarena.rl.games.datspulse`): where the §4 arena lands in the arrays,
which moves the mask allows, which moves body an action makes (every one passes §5's checks, masked
or not), the score-delta step rewards, and a Gymnasium learner against an in-process starter and
against a JSON-lines subprocess bot."""

from __future__ import annotations

import itertools
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from botarena import rl
from botarena.bots.resolve import resolve_bot
from botarena.core.game import Step
from botarena.core.protocol import Request
from botarena.core.registry import get_game
from botarena.core.replay import Replay
from botarena.games.datspulse.hexgrid import adjacent, distance
from botarena.rl.encoding import FlatMaskMultiDiscrete
from botarena.rl.games.datspulse import (
    ANT_FEATURES,
    CHANNELS,
    CHOICES,
    SCALARS,
    DatsPulseEncoding,
    grid_radius,
)
from botarena.runner import run_match

from .rl_testkit import play_masked

GAME = get_game("datspulse")
SMALL = {"turns": 8, "map_hexes_per_team": 300}
"""Two teams on the smallest automatic map (R = 15, DP-4) for a few turns."""


@pytest.fixture(autouse=True)
def _quiet_space_warnings() -> Iterator[None]:
    # Gymnasium warns about unbounded Box spaces (health, amounts and scores are raw numbers, documented)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def _encoding(**overrides: Any) -> DatsPulseEncoding:
    return DatsPulseEncoding(
        GAME.config("default", {"map_min_radius": 8, "map_radius": 10, "unit_limit": 4, **overrides}), 2
    )


def _tile(q: int, r: int, kind: int) -> dict[str, int]:
    return {"q": q, "r": r, "cost": 1, "type": kind}


def _ant(
    ident: str, q: int, r: int, kind: int, health: int, food: tuple[int, int] = (0, 0)
) -> dict[str, Any]:
    return {
        "q": q,
        "r": r,
        "type": kind,
        "health": health,
        "id": ident,
        "food": {"type": food[0], "amount": food[1]},
    }


def _arena() -> dict[str, Any]:
    """Team A of Board E (§9; spot (-5,6)) at turn 7 on a radius-10 map."""
    return {
        "ants": [
            _ant("w1", 0, 0, 0, 130, (2, 8)),
            _ant("dead", 1, 1, 1, 0),  # a corpse (DP-24): no slot
            _ant("s1", 10, 0, 1, 150),
            _ant("x1", -5, 6, 2, 80),
        ],
        "enemies": [
            {"q": 1, "r": -1, "type": 1, "health": 100, "food": {"type": 1, "amount": 2}, "attack": 70}
        ],
        "map": [
            _tile(0, -1, 3),  # dirt, NE of (0,0)
            _tile(1, -1, 2),
            _tile(-1, 0, 4),  # acid, W of (0,0)
            _tile(0, 0, 2),
            _tile(1, 0, 2),
            _tile(2, 0, 2),
            _tile(3, 0, 5),  # stone
            _tile(9, 0, 2),
            _tile(10, 0, 2),
            _tile(-1, 1, 1),  # an enemy anthill hex, SW of (0,0)
            _tile(-5, 5, 1),
            _tile(-6, 5, 1),
            _tile(-5, 6, 1),
        ],
        "food": [{"q": 2, "r": 0, "type": 1, "amount": 5}, {"q": -5, "r": 5, "type": 3, "amount": 3}],
        "turnNo": 7,
        "nextTurnIn": 1.0,
        "home": [{"q": -5, "r": 6}, {"q": -5, "r": 5}, {"q": -6, "r": 5}],
        "score": 150,
        "spot": {"q": -5, "r": 6},
        "errors": ["ant zzz is dead"],
    }


def _requests(arena: dict[str, Any]) -> list[Request]:
    return [Request(0, arena, 1000, turn=arena["turnNo"])]


def test_the_grid_is_sized_from_the_config_and_the_seat_count() -> None:
    """DP-4: R is map_radius, or automatic from the team count; planes are (C, 2R+1, 2R+1)."""
    assert grid_radius(GAME.config("default", {}), 1) == 29
    assert grid_radius(GAME.config("default", {}), 4) == 57
    assert grid_radius(GAME.config("default", {"map_radius": 16}), 8) == 16
    encoding = DatsPulseEncoding(GAME.config("default", {"map_hexes_per_team": 300}), 2)
    space = encoding.observation_space
    assert space["map"].shape == (CHANNELS, 31, 31) and space["map"].dtype == np.float32
    assert space["ants"].shape == (100, ANT_FEATURES) and space["scalars"].shape == (SCALARS,)
    assert isinstance(encoding.action_space, FlatMaskMultiDiscrete)
    assert list(encoding.action_space.nvec) == [CHOICES] * 100  # unit_limit slots (DP-23)
    assert _encoding(unit_limit=1).slots == 3  # the three starting units (DP-50) always fit


def test_arena_fields_land_where_the_docstring_says() -> None:
    encoding = _encoding()
    observation = encoding.observe(0, _requests(_arena()))
    assert observation in encoding.observation_space
    planes, ants, scalars = observation["map"], observation["ants"], observation["scalars"]
    assert planes[0].sum() == 331  # the radius-10 disc, 3R(R+1)+1 hexes (DP-4)
    assert planes[1].sum() == 13  # the visible tiles
    # axial cells (DP-3): (q, r) -> [z + R, x + R], x = q - (r - (r & 1)) // 2
    assert planes[6, 10, 13] == 1  # stone at (3,0)
    assert planes[4, 9, 11] == 1  # dirt at (0,-1): x = 1, z = -1
    assert planes[5, 10, 9] == 1  # acid at (-1,0)
    assert planes[2].sum() == 4  # the four visible anthill hexes
    assert planes[7].sum() == 3 and planes[7, 16, 2] == planes[7, 15, 3] == planes[7, 15, 2] == 1
    assert planes[8].sum() == 1 and planes[8, 16, 2] == 1  # the spot (-5,6): x = -8, z = 6
    assert planes[9, 10, 12] == 5  # the apple pile at (2,0)
    assert planes[11, 15, 3] == 3  # the nectar store at (-5,5): x = -7, z = 5
    assert planes[12, 10, 10] == 130 and planes[13, 10, 20] == 150 and planes[14, 16, 2] == 80
    assert planes[13, 11, 10] == 0  # the corpse at (1,1) is not drawn
    assert planes[16, 9, 12] == 100 and planes[18, 9, 12] == 2  # the enemy soldier at (1,-1), carrying 2
    assert planes[[15, 17]].sum() == 0
    # slots: living ants in spawn order, the corpse skipped
    np.testing.assert_array_equal(ants[0], [1, 10, 10, 1, 0, 0, 130, 0, 1, 0, 8])
    np.testing.assert_array_equal(ants[1], [1, 10, 20, 0, 1, 0, 150, 0, 0, 0, 0])
    np.testing.assert_array_equal(ants[2], [1, 16, 2, 0, 0, 1, 80, 0, 0, 0, 0])
    assert not ants[3].any()
    np.testing.assert_array_equal(scalars, [7, 300, 150, 3, 1, 1, 1, 2])


def test_a_seat_without_a_request_observes_zeros_and_may_only_stay() -> None:
    encoding = _encoding()
    observation = encoding.observe(0, [])
    assert observation in encoding.observation_space
    assert not any(array.any() for array in observation.values())
    mask = encoding.action_mask(0, []).reshape(4, CHOICES)
    assert mask[:, 0].all() and not mask[:, 1:].any()


def test_the_mask_allows_moves_onto_the_map_and_never_into_known_blocking_hexes() -> None:
    """Directions E, NE, NW, W, SW, SE (DP-2); stone and another team's anthill block (DP-75)."""
    encoding = _encoding()
    mask = encoding.action_mask(0, _requests(_arena()))
    assert mask.dtype == np.int8 and mask.shape == (4 * CHOICES,)
    mask = mask.reshape(4, CHOICES)
    assert mask[:, 0].all()  # stay
    np.testing.assert_array_equal(mask[:, 1:7], mask[:, 7:])  # a run is legal where its first step is
    # w1 at (0,0): SW (-1,1) is an enemy anthill hex; dirt, acid and the unseen NW stay legal
    np.testing.assert_array_equal(mask[0, 1:7], [1, 1, 1, 1, 0, 1])
    # s1 at (10,0) on the rim: E (11,0), NE (10,-1) and SE (10,1) are off the map (DP-4)
    np.testing.assert_array_equal(mask[1, 1:7], [0, 0, 1, 1, 1, 0])
    # x1 on the spot: its own anthill's hexes are open to it (DP-11)
    np.testing.assert_array_equal(mask[2, 1:7], [1, 1, 1, 1, 1, 1])
    assert not mask[3, 1:].any()  # an empty slot


def test_actions_make_the_moves_body_of_section_5() -> None:
    encoding = _encoding()
    arena = _arena()
    action = np.array([7, 1, 8, 5])  # w1 run E, s1 step E, x1 run NE, empty slot step SW
    body = encoding.act(0, _requests(arena), action)
    assert body == [
        {
            "moves": [
                {"ant": "w1", "path": [{"q": 1, "r": 0}, {"q": 2, "r": 0}]},  # stops before the stone
                # s1's step E would leave the map: no command (it stays)
                {
                    "ant": "x1",  # 7 hexes (scout speed), through its own anthill hex (-5,5)
                    "path": [
                        {"q": -5, "r": 5},
                        {"q": -4, "r": 4},
                        {"q": -4, "r": 3},
                        {"q": -3, "r": 2},
                        {"q": -3, "r": 1},
                        {"q": -2, "r": 0},
                        {"q": -2, "r": -1},
                    ],
                },
            ]
        }
    ]
    action = np.array([5, 10, 0, 0])  # w1 step SW (unmasked: into the enemy anthill), s1 run W
    moves = encoding.act(0, _requests(arena), action)[0]["moves"]
    assert moves == [
        {"ant": "w1", "path": [{"q": -1, "r": 1}]},  # sent as chosen: DP-75 stops it, §5 accepts it
        {"ant": "s1", "path": [{"q": q, "r": 0} for q in (9, 8, 7, 6)]},  # soldier speed 4
    ]
    assert encoding.act(0, _requests(arena), np.zeros(4, dtype=np.int64)) == [{"moves": []}]


def test_every_run_is_a_chain_of_adjacent_hexes_on_the_map() -> None:
    """§5's checks: each hex adjacent to the previous one (DP-2), on the map, at most speed long."""
    encoding = _encoding(map_radius=8)
    arena = _arena()
    arena["map"] = [tile for tile in arena["map"] if distance((tile["q"], tile["r"]), (0, 0)) <= 8]
    for q, r in [(0, 0), (3, -7), (-4, 8), (8, 0), (-2, -3)]:
        arena["ants"] = [_ant("s", q, r, 2, 80)]
        for choice in range(1, CHOICES):
            moves = encoding.act(0, _requests(arena), np.array([choice, 0, 0, 0]))[0]["moves"]
            hexes = [(q, r)] + [(h["q"], h["r"]) for h in (moves[0]["path"] if moves else [])]
            assert len(hexes) - 1 <= 7
            assert all(adjacent(a, b) for a, b in itertools.pairwise(hexes))
            assert all(distance(h, (0, 0)) <= 8 for h in hexes)


def _all_verdicts(replay: Replay) -> list[list[Any]]:
    return [verdict for step in replay.steps for verdict in step["verdicts"]]


@pytest.mark.parametrize("masked", [True, False])
def test_random_games_never_draw_a_rejected_command(masked: bool) -> None:
    """Masked or not, every reply is an OK moves body with no §5 rejection (no MOVE_REJECTED)."""
    env = rl.parallel_env("datspulse", seats=2, config={**SMALL, "turns": 25})
    for seed in (1, 2):
        observations, infos = env.reset(seed=seed)
        spaces = {agent: env.action_space(agent) for agent in env.agents}
        for space in spaces.values():
            space.seed(seed)
        steps = 0
        while env.agents:
            for agent, observation in observations.items():
                assert observation in env.observation_space(agent)
            actions = {
                agent: spaces[agent].sample(infos[agent]["action_mask"] if masked else None)
                for agent in env.agents
            }
            observations, _rewards, _terminations, _truncations, infos = env.step(actions)
            steps += 1
        assert steps == 25  # one step per turn, no early end (§6.1)
        verdicts = _all_verdicts(env.replay())
        assert len(verdicts) == 50
        assert all(verdict == ["OK", None] for verdict in verdicts), verdicts
    env.close()


def test_step_rewards_are_score_changes_in_nectar_units() -> None:
    encoding = _encoding()

    def frame(turn: int, *scores: int) -> Step:
        return Step({"turnNo": turn, "teams": [{"score": score} for score in scores]}, [])

    assert encoding.step_rewards(frame(1, 120, 0)) == [2.0, 0.0]  # from the DP-50 score 0
    assert encoding.step_rewards(frame(2, 60, 200)) == [-1.0, 200 / 60]  # a raid lowers S (DP-77)
    assert encoding.step_rewards(frame(4, 90, 200)) == [0.0, 0.0]  # turn 3 unseen: no guess
    assert encoding.step_rewards(frame(5, 150, 200)) == [1.0, 0.0]


def test_step_rewards_over_a_real_match_add_up_to_the_final_scores() -> None:
    """Two foragers deliver food (DP-78): the rewards of every step sum to score / nectar_calories."""
    config = GAME.config("default", {**SMALL, "turns": 60})
    run = run_match(GAME, [resolve_bot("forager", GAME), resolve_bot("forager", GAME)], config=config, seed=5)
    encoding = DatsPulseEncoding(config, 2)
    totals = [0.0, 0.0]
    for step in run.replay.steps:
        for seat, reward in enumerate(encoding.step_rewards(Step(step["record"], []))):
            totals[seat] += reward
    scores = run.replay.result["scores"]
    assert max(scores) > 0, "the foragers delivered something"
    assert totals == pytest.approx([score / 60 for score in scores])


@pytest.mark.parametrize("seat", [0, 1])
def test_a_gym_learner_plays_a_whole_match_against_the_forager(seat: int) -> None:
    env = rl.gym_env("datspulse", "forager", seat=seat, seats=2, config=SMALL)
    steps, _total, info = play_masked(env, 11)
    replay = env.replay()
    assert steps == SMALL["turns"] and info["result"]["ranks"]
    assert all(verdict == ["OK", None] for verdict in _all_verdicts(replay))
    assert replay.players[1 - seat]["name"] == "forager"
    env.close()


LINES_BOT = r"""
import json, sys
# A JSON-lines bot (§7.6): every turn it sends its first living ant one hex east, if that is on the map.
for line in sys.stdin:
    message = json.loads(line)
    payload = {}
    if message["type"] == "turn":
        ants = [ant for ant in message["payload"]["ants"] if ant["health"] > 0]
        payload = {"moves": [{"ant": ants[0]["id"], "path": [{"q": ants[0]["q"] + 1, "r": ants[0]["r"]}]}]}
    print(json.dumps({"id": message["id"], "payload": payload}), flush=True)
"""


@pytest.mark.parametrize("seat", [0, 1])
def test_a_gym_learner_plays_a_whole_match_against_a_subprocess_bot(tmp_path: Path, seat: int) -> None:
    script = tmp_path / "lines.py"
    script.write_text(LINES_BOT)
    env = rl.gym_env("datspulse", f"cmd:{sys.executable} {script}", seat=seat, seats=2, config=SMALL)
    steps, _total, info = play_masked(env, 12)
    replay = env.replay()
    assert steps == SMALL["turns"] and info["result"]["ranks"]
    verdicts = _all_verdicts(replay)
    assert all(verdict[0] == "OK" for verdict in verdicts)  # the process answered every turn
    theirs = [step["replies"][1 - seat] for step in replay.steps]
    assert all(reply["payload"]["moves"] for reply in theirs)  # its own moves, through the exchange
    env.close()
