"""What the RL encoding tests share."""

from __future__ import annotations

from typing import Any

import numpy as np


def play_masked(env: Any, seed: int) -> tuple[int, float, dict[str, Any]]:
    """A masked random learner in a Gymnasium env to the end of the match: steps, return and the
    last info; every observation is in its space and `action_masks()` agrees with the info's mask."""
    observation, info = env.reset(seed=seed)
    env.action_space.seed(seed)
    steps, total, done = 0, 0.0, False
    while not done:
        assert observation in env.observation_space
        assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
        action = env.action_space.sample(info["action_mask"])
        observation, reward, done, truncated, info = env.step(action)
        assert not truncated
        steps, total = steps + 1, total + reward
    return steps, total, info
