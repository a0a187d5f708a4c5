"""RL environment throughput: env steps/s of every game's PettingZoo parallel env and Gymnasium env.

Random legal actions (sampled from the action masks where the game has them), whole matches, the
game's `test_overrides` config (the small boards and short matches of the conformance suite) unless
`--default-config`. The parallel env has every seat learning; the Gymnasium env plays seat 0 against
the game's random bot in process (its time limits armed, as in a real match). A step is one call of
`env.step`; the parallel env's step answers every seat at once. Recording the replay is part of it.

`--render rgb_array` (or `ansi`) also draws a frame after every step of the Gymnasium env.

    .venv/bin/python benchmarks/rl_envs.py [--seconds 2.0] [--default-config] [--games drones,rps]
        [--render rgb_array]
"""

from __future__ import annotations

import argparse
import time
import warnings
from typing import Any

from botarena import rl
from botarena.core.registry import get_game
from botarena.rl.encoding import encoded_games


def _config(game_id: str, default: bool) -> dict[str, Any]:
    return {} if default else dict(get_game(game_id).test_overrides)


def parallel_steps_per_s(game_id: str, config: dict[str, Any], seconds: float) -> tuple[float, int]:
    """(steps/s, matches finished) of the parallel env within about `seconds`."""
    env = rl.parallel_env(game_id, config=config)
    steps = matches = 0
    seed = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        _observations, infos = env.reset(seed=seed)
        spaces = {agent: env.action_space(agent) for agent in env.agents}
        for space in spaces.values():
            space.seed(seed)
        while env.agents and time.perf_counter() - started < seconds:
            actions = {agent: spaces[agent].sample(infos[agent].get("action_mask")) for agent in env.agents}
            _observations, _rewards, _terms, _truncs, infos = env.step(actions)
            steps += 1
        matches += not env.agents
        seed += 1
    env.close()
    return steps / (time.perf_counter() - started), matches


def gym_steps_per_s(
    game_id: str, config: dict[str, Any], seconds: float, render_mode: str | None = None
) -> tuple[float, int]:
    """(steps/s, matches finished) of the Gymnasium env against the random bot (a frame drawn
    after every step with a `render_mode`)."""
    env = rl.gym_env(game_id, "random", config=config, render_mode=render_mode)
    steps = matches = 0
    seed = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        _observation, info = env.reset(seed=seed)
        env.action_space.seed(seed)
        done = False
        while not done and time.perf_counter() - started < seconds:
            action = env.action_space.sample(info.get("action_mask"))
            _observation, _reward, done, _truncated, info = env.step(action)
            if render_mode is not None:
                env.render()
            steps += 1
        matches += done
        seed += 1
    env.close()
    return steps / (time.perf_counter() - started), matches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per game and env kind")
    parser.add_argument(
        "--default-config", action="store_true", help="the default preset, not test_overrides"
    )
    parser.add_argument("--games", default=",".join(encoded_games()), help="comma-separated game ids")
    parser.add_argument("--render", choices=["ansi", "rgb_array"], help="draw a gym env frame per step")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    which = "default preset" if args.default_config else "test_overrides configs"
    drawn = f", a {args.render} frame per gym step" if args.render else ""
    print(f"RL env steps/s, random masked actions, {which}{drawn}, {args.seconds:.1f} s per game and env")
    print(f"{'game':<14} {'parallel steps/s':>17} {'matches':>8} {'gym steps/s':>12} {'matches':>8}")
    for game_id in args.games.split(","):
        config = _config(game_id, args.default_config)
        parallel, parallel_matches = parallel_steps_per_s(game_id, config, args.seconds)
        gym, gym_matches = gym_steps_per_s(game_id, config, args.seconds, args.render)
        print(f"{game_id:<14} {parallel:>17,.0f} {parallel_matches:>8} {gym:>12,.0f} {gym_matches:>8}")


if __name__ == "__main__":
    main()
