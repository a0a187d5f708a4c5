"""Every game's RL environments pass PettingZoo's and Gymnasium's own conformance tests.

Parametrized over the registry: a game is covered as soon as it registers, and fails here until it
has an encoding (`botarena.rl.encoding`). Matches are kept short with `GameInfo.test_overrides`.
"""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

from botarena import rl
from botarena.core.game import GameInfo
from botarena.core.registry import all_games
from botarena.rl.encoding import encoded_games
from botarena.runner.verify import verify_replay

GAMES = all_games()
parametrize_games = pytest.mark.parametrize("game", GAMES, ids=lambda game: game.id)


def small(game: GameInfo) -> dict[str, Any]:
    return dict(game.test_overrides)


PETTINGZOO_SPACE_CLASS_HINTS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be",
    "Action space for each agent probably should be",
)
"""PettingZoo's API test hints that a space should be a Box or a Discrete: it says so of every
`Dict` observation and every `MultiDiscrete` action (its own `Dict`-observation envs are listed by
name to silence it). Our Dict and MultiDiscrete spaces are the design (docs/rl.md); nothing else a
checker says is let through."""


@pytest.fixture(autouse=True)
def _checker_warnings_are_errors() -> Any:
    """Every warning of Gymnasium's and PettingZoo's checkers fails the test (unbounded Box spaces,
    all-zero observations, observations out of their space, ...), but for the space-class hints."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        for hint in PETTINGZOO_SPACE_CLASS_HINTS:
            warnings.filterwarnings("ignore", message=hint, category=UserWarning)
        yield


def test_every_registered_game_has_an_encoding() -> None:
    assert sorted(game.id for game in GAMES) == encoded_games()


@parametrize_games
def test_parallel_env_passes_pettingzoo_parallel_api_test(game: GameInfo) -> None:
    env = rl.parallel_env(game.id, config=small(game))
    parallel_api_test(env, num_cycles=60)
    env.close()


@parametrize_games
def test_parallel_env_passes_pettingzoo_seed_test(game: GameInfo) -> None:
    parallel_seed_test(lambda: rl.parallel_env(game.id, config=small(game)), num_cycles=20)


@parametrize_games
def test_aec_env_passes_pettingzoo_api_test(game: GameInfo) -> None:
    env = rl.aec_env(game.id, config=small(game))
    api_test(env, num_cycles=60)
    env.close()


@parametrize_games
def test_aec_env_passes_pettingzoo_seed_test(game: GameInfo) -> None:
    seed_test(lambda: rl.aec_env(game.id, config=small(game)), num_cycles=20)


@parametrize_games
def test_gym_env_passes_gymnasium_check_env(game: GameInfo) -> None:
    """Gymnasium's checker, its render checks of every mode included, on the env of the game's
    Gymnasium id (the checker needs the spec to make the env in each render mode)."""
    env = gymnasium.make(rl.gym_id(game.id), config=small(game), render_mode="rgb_array")
    check_env(env.unwrapped)
    env.close()


@parametrize_games
def test_a_masked_random_learner_plays_a_whole_match_whose_replay_reruns(game: GameInfo) -> None:
    """Random legal actions (from the masks) to the end; the env's replay is a true botarena replay."""
    env = rl.parallel_env(game.id, config=small(game))
    observations, infos = env.reset(seed=7)
    spaces = {agent: env.action_space(agent) for agent in env.possible_agents}
    for space in spaces.values():
        space.seed(7)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        for agent, observation in observations.items():
            assert env.observation_space(agent).contains(observation), agent
        actions = {agent: spaces[agent].sample(infos[agent].get("action_mask")) for agent in env.agents}
        observations, rewards, _terminations, _truncations, infos = env.step(actions)
        for agent, reward in rewards.items():
            totals[agent] += reward
    replay = env.replay()
    assert replay.result["ranks"], "the match has a result"
    report = verify_replay(replay)
    assert report.identical, str(report)
    assert all(np.isfinite(total) for total in totals.values())
    env.close()
