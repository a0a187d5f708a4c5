"""botarena for researchers: PettingZoo and Gymnasium environments over every game.

Install with `pip install 'botarena[rl]'` (PettingZoo and Gymnasium).

    from botarena import rl

    env = rl.parallel_env("drones", config={"rounds": 3})      # PettingZoo ParallelEnv, all seats learn
    observations, infos = env.reset(seed=42)
    while env.agents:
        actions = {agent: env.action_space(agent).sample(infos[agent].get("action_mask"))
                   for agent in env.agents}
        observations, rewards, terminations, truncations, infos = env.step(actions)

    env = rl.aec_env("craftingquest")                              # PettingZoo AECEnv
    env = rl.gym_env("drones", opponents="tactician")              # Gymnasium Env: one learner vs bots

| function | gives | agents |
|---|---|---|
| `parallel_env(game, ...)` | PettingZoo `ParallelEnv` | every seat not given to a bot in `opponents` |
| `aec_env(game, ...)` | PettingZoo `AECEnv`: native where seats alternate (Crafting Quest), PettingZoo's `parallel_to_aec` elsewhere | as above |
| `gym_env(game, opponents, seat=0)` | Gymnasium `Env` | the learner's one seat; the others are bots |

Common arguments: `seats` (default the game's minimum), `preset` and `config` (overrides, checked as
`botarena play` checks them), `opponents` (`{seat: bot}`: a starter's name, `random`, a file, a
command, an HTTP URL, or a factory of an in-process bot; a fresh bot per match, asked within the
match's real time limits), `render_mode` (`ansi`: the game's ASCII drawing; `html`: the viewer page
of the match so far; `rgb_array`: the ASCII drawing as an HxWx3 uint8 image, for `RecordVideo`).
Where every seat sees everything (Domains, rps), the PettingZoo envs also have `state()` and
`state_space`; games that hide information have neither. Each env's `replay()` is the match's botarena replay (save it and `botarena
view` it, or `botarena replay --verify` it).

Importing this package also registers a Gymnasium id per game, `botarena/<game>-v0`, the Gymnasium
env of `gym_env` (its keyword arguments pass through):

    import gymnasium
    import botarena.rl

    env = gymnasium.make("botarena/drones-v0", opponents="tactician", seat=1, render_mode="rgb_array")
    env = gymnasium.make("botarena.rl:botarena/drones-v0")   # the same, without the import above

Each game's observation and action spaces, masks and rewards are documented in its encoding module,
`botarena.rl.games.<game>` (a table at the top of each). Terminal rewards are rank-based in every
game (+1 first, -1 last, evenly in between, ties share); step rewards are the game's own progress.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from botarena.core.game import Dynamics
from botarena.core.registry import get_game

if TYPE_CHECKING:
    from pettingzoo import AECEnv

    from botarena.rl.envs import BotarenaGymEnv, BotarenaParallelEnv, Opponent

INSTALL_HINT = "the RL interfaces need PettingZoo and Gymnasium: pip install 'botarena[rl]'"


def _envs() -> Any:
    try:
        from botarena.rl import envs
    except ImportError as missing:
        if missing.name and missing.name.split(".")[0] in ("pettingzoo", "gymnasium"):
            raise ImportError(f"{INSTALL_HINT} ({missing.name} is missing)") from missing
        raise
    return envs


def parallel_env(
    game: str,
    *,
    seats: int | None = None,
    preset: str = "default",
    config: Mapping[str, Any] | None = None,
    opponents: Mapping[int, Opponent] | None = None,
    render_mode: str | None = None,
) -> BotarenaParallelEnv:
    """A PettingZoo `ParallelEnv` of `game` (see the module docstring)."""
    env: BotarenaParallelEnv = _envs().BotarenaParallelEnv(
        game, seats=seats, preset=preset, config=config, opponents=opponents, render_mode=render_mode
    )
    return env


def aec_env(
    game: str,
    *,
    seats: int | None = None,
    preset: str = "default",
    config: Mapping[str, Any] | None = None,
    opponents: Mapping[int, Opponent] | None = None,
    render_mode: str | None = None,
) -> AECEnv[str, Any, Any]:
    """A PettingZoo `AECEnv` of `game`: the engine's own order where seats alternate, else the
    parallel env turned into one (PettingZoo's `parallel_to_aec`)."""
    envs = _envs()
    kwargs = {
        "seats": seats,
        "preset": preset,
        "config": config,
        "opponents": opponents,
        "render_mode": render_mode,
    }
    if get_game(game).dynamics is Dynamics.ALTERNATING:
        env: AECEnv[str, Any, Any] = envs.BotarenaAECEnv(game, **kwargs)
        return env
    from pettingzoo.utils.conversions import parallel_to_aec

    return parallel_to_aec(envs.BotarenaParallelEnv(game, **kwargs))  # type: ignore[no-any-return]


def gym_env(
    game: str,
    opponents: Opponent | Sequence[Opponent] = "random",
    *,
    seat: int = 0,
    seats: int | None = None,
    preset: str = "default",
    config: Mapping[str, Any] | None = None,
    render_mode: str | None = None,
) -> BotarenaGymEnv:
    """A Gymnasium `Env`: the learner plays `seat`; `opponents` (one for every other seat, or one
    for all) are botarena bots."""
    env: BotarenaGymEnv = _envs().BotarenaGymEnv(
        game,
        opponents,
        seat=seat,
        seats=seats,
        preset=preset,
        config=config,
        render_mode=render_mode,
    )
    return env


GYM_NAMESPACE = "botarena"
GYM_ENTRY_POINT = "botarena.rl.envs:BotarenaGymEnv"


def gym_id(game: str) -> str:
    """The Gymnasium id of `game`'s env: `botarena/<game>-v0`."""
    return f"{GYM_NAMESPACE}/{game}-v0"


def register_gym_envs() -> list[str]:
    """Register `botarena/<game>-v0` for every game that has an encoding (again after
    `encoding.register_encoding`; ids already there are kept); the ids, [] without Gymnasium.

    Gymnasium 1.x loads no plugins from package metadata, so registration happens on import of
    `botarena.rl`; `gymnasium.make("botarena.rl:botarena/<game>-v0")` does that import itself."""
    try:
        import gymnasium

        from botarena.rl.encoding import encoded_games
    except ImportError:
        return []  # the RL extra is not installed: `parallel_env` and friends say so when called
    ids = []
    for game in encoded_games():
        env_id = gym_id(game)
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point=GYM_ENTRY_POINT, kwargs={"game_id": game})
        ids.append(env_id)
    return ids


register_gym_envs()

__all__ = [
    "INSTALL_HINT",
    "aec_env",
    "gym_env",
    "gym_id",
    "parallel_env",
    "register_gym_envs",
]
