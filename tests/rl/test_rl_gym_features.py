"""Gymnasium ids, the `rgb_array` render mode, `state()` and finite spaces, for every game.

Parametrized over the registry, as test_rl_api.py is: a game is covered as soon as it registers.
The checkers' own runs (every warning an error) are in test_rl_api.py; here each feature is driven
by hand and its result asserted.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from collections.abc import Iterator
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import state_test

from botarena import rl
from botarena.core.game import GameInfo, Information
from botarena.core.protocol import Request
from botarena.core.registry import BUILTIN_GAMES, all_games, get_game
from botarena.rl.encoding import VALUE_CAP, encoded_games, encoding_class
from botarena.rl.envs import BotarenaGymEnv
from botarena.rl.raster import PALETTE, TextRaster, colour, glyph
from zoo.http_bots import HonestHttp

from .test_rl_opponents import QUICK, Honest, zoo_command

GAMES = all_games()
parametrize_games = pytest.mark.parametrize("game", GAMES, ids=lambda game: game.id)
FULL = [game for game in GAMES if game.information is Information.FULL]
HIDDEN = [game for game in GAMES if game.information is Information.HIDDEN]


def small(game: GameInfo) -> dict[str, Any]:
    return dict(game.test_overrides)


def box_leaves(space: spaces.Space[Any]) -> Iterator[spaces.Box]:
    if isinstance(space, spaces.Dict):
        for child in space.values():
            yield from box_leaves(child)
    elif isinstance(space, spaces.Box):
        yield space


# -- gymnasium.make ids ---------------------------------------------------------------------------
def test_every_encoded_game_has_a_gymnasium_id() -> None:
    registered = {env_id for env_id in gymnasium.registry if env_id.startswith("botarena/")}
    assert registered == {f"botarena/{game}-v0" for game in encoded_games()}
    assert rl.register_gym_envs() == sorted(registered)  # registering again changes nothing


@parametrize_games
def test_gymnasium_make_passes_its_arguments_through(game: GameInfo) -> None:
    seat = game.min_players - 1  # the last seat: not the default, so the pass-through shows
    env = gymnasium.make(
        rl.gym_id(game.id), opponents="random", seat=seat, config=small(game), render_mode="ansi"
    )
    inner = env.unwrapped
    assert isinstance(inner, BotarenaGymEnv)
    assert (inner.seat, inner.render_mode) == (seat, "ansi")
    observation, _info = env.reset(seed=3)
    assert observation in env.observation_space
    players = inner.replay().players
    assert [player["kind"] == "learner" for player in players] == [s == seat for s in range(len(players))]
    assert isinstance(env.render(), str)
    env.close()


def test_gymnasium_make_a_misspelt_argument_is_refused() -> None:
    with pytest.raises(TypeError, match="opponent"):
        gymnasium.make(rl.gym_id("rps"), opponent="random")
    with pytest.raises(ValueError, match="unknown"):
        gymnasium.make(rl.gym_id("rps"), config={"no_such_key": 1})


@pytest.mark.parametrize("seat", [0, 1])
def test_gymnasium_make_opponents_of_every_transport_play_their_match(seat: int) -> None:
    """The opponent given to `gymnasium.make` is the bot that plays: in process, subprocess, HTTP."""
    server = HonestHttp()
    try:
        for opponent, kind in (
            (Honest, "python"),
            (zoo_command("honest"), "subprocess"),
            (server.url("bot"), "http"),
        ):
            env = gymnasium.make(rl.gym_id("drones"), opponents=opponent, seat=seat, config=QUICK)
            env.reset(seed=1)
            done = False
            while not done:
                _obs, _reward, done, _truncated, _info = env.step(8)
            replay = env.unwrapped.replay()  # type: ignore[attr-defined]
            assert replay.players[1 - seat]["kind"] == kind
            assert [step["verdicts"][1 - seat][0] for step in replay.steps] == ["OK", "OK"], kind
            env.close()
    finally:
        server.stop()


def test_gymnasium_make_with_the_module_prefix_needs_no_import() -> None:
    """`botarena.rl:botarena/<game>-v0` imports the package itself (Gymnasium 1.x loads no plugins)."""
    script = (
        "import sys, gymnasium\n"
        "assert 'botarena.rl' not in sys.modules\n"
        "env = gymnasium.make('botarena.rl:botarena/rps-v0', config={'rounds': 2})\n"
        "env.reset(seed=1)\n"
        "print(type(env.unwrapped).__name__)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "BotarenaGymEnv"


# -- rgb_array ------------------------------------------------------------------------------------
@parametrize_games
def test_rgb_array_frames_are_uint8_images_of_one_size_that_follow_the_match(game: GameInfo) -> None:
    env = rl.gym_env(game.id, "random", config=small(game), render_mode="rgb_array")
    env.reset(seed=5)
    env.action_space.seed(5)
    first = env.render()
    assert isinstance(first, np.ndarray) and first.dtype == np.uint8
    assert first.ndim == 3 and first.shape[2] == 3 and first.shape[0] > 0 and first.shape[1] > 0
    assert first.any(), "the opening drawing shows something"
    changed, done, steps = False, False, 0
    while not done and steps < 40:  # a bounded walk: the first turns change the drawing
        _obs, _reward, done, _truncated, _info = env.step(env.action_space.sample(info_mask(env)))
        frame = env.render()
        assert isinstance(frame, np.ndarray) and frame.shape == first.shape and frame.dtype == np.uint8
        changed = changed or not np.array_equal(frame, first)
        steps += 1
    assert changed, f"no frame changed in {steps} steps"
    env.close()


def info_mask(env: BotarenaGymEnv) -> Any:
    return env.action_masks().astype(np.int8)


@parametrize_games
def test_rgb_array_of_the_pettingzoo_envs(game: GameInfo) -> None:
    env = rl.parallel_env(game.id, config=small(game), render_mode="rgb_array")
    assert env.render() is None, "nothing to draw before reset"
    env.reset(seed=2)
    frame = env.render()
    assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8 and frame.shape[2] == 3
    assert "rgb_array" in env.metadata["render_modes"] and env.metadata["render_fps"] > 0
    env.close()


def test_rgb_array_records_a_video_with_record_video(tmp_path: Any) -> None:
    from gymnasium.wrappers import RecordVideo

    env = RecordVideo(
        gymnasium.make(rl.gym_id("rps"), config={"rounds": 3}, render_mode="rgb_array"), str(tmp_path)
    )
    env.reset(seed=1)
    done = False
    while not done:
        _obs, _reward, done, _truncated, _info = env.step(0)
    env.close()
    assert list(tmp_path.glob("*.mp4"))


def test_the_raster_draws_each_character_in_its_own_colour_and_cuts_what_does_not_fit() -> None:
    raster = TextRaster(rows=2, columns=3, scale=1)
    frame = raster.draw("aA\nxyzw\nlost line")
    assert frame.shape == (12, 12, 3)
    assert np.array_equal(glyph("a"), glyph("A")) and colour("a") != colour("A")
    assert colour("a") in PALETTE and colour(".") not in PALETTE
    assert glyph("\u2603").any(), "an unknown character is a box, not a blank"
    first, second = frame[0:6, 0:4], frame[0:6, 4:8]
    assert {tuple(c) for c in first.reshape(-1, 3)} >= {colour("a")}
    assert {tuple(c) for c in second.reshape(-1, 3)} >= {colour("A")}
    assert np.array_equal(raster.draw("aA\nxyz"), frame), "the fourth column and third line are cut"


# -- state() --------------------------------------------------------------------------------------
@pytest.mark.parametrize("game", FULL, ids=lambda game: game.id)
def test_full_information_games_pass_pettingzoo_state_test(game: GameInfo) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        state_test(rl.aec_env(game.id, config=small(game)), rl.parallel_env(game.id, config=small(game)), 20)


@pytest.mark.parametrize("game", FULL, ids=lambda game: game.id)
@pytest.mark.parametrize("opponent_seat", [None, 0, 1])
def test_the_state_is_seat_0s_view_whoever_plays_it(game: GameInfo, opponent_seat: int | None) -> None:
    """The state is the whole board from seat 0, a learner's or a bot's, and lasts past the end."""
    opponents = {} if opponent_seat is None else {opponent_seat: "random"}
    env = rl.parallel_env(game.id, config=small(game), opponents=opponents)
    observations, infos = env.reset(seed=4)
    space = env.state_space
    assert space is env.state_space and np.isfinite(space.low).all() and np.isfinite(space.high).all()
    state = env.state()
    assert state in space and state.any()
    if opponent_seat != 0:
        flat = spaces.flatten(env.observation_space("player_0"), observations["player_0"])
        assert np.array_equal(state, flat)
    while env.agents:
        actions = {a: env.action_space(a).sample(infos[a].get("action_mask")) for a in env.agents}
        observations, _r, _t, _tr, infos = env.step(actions)
        assert env.state() in space
    last = env.state()
    assert last.any() and np.array_equal(env.state(), last)
    env.close()


@pytest.mark.parametrize("game", HIDDEN, ids=lambda game: game.id)
def test_games_that_hide_information_have_no_state(game: GameInfo) -> None:
    for env in (rl.parallel_env(game.id, config=small(game)), rl.aec_env(game.id, config=small(game))):
        assert not hasattr(env, "state_space")
        env.reset(seed=1)
        with pytest.raises(NotImplementedError, match="hides part of its state"):
            env.state()
        env.close()


def test_which_games_have_a_state() -> None:
    """docs/rl.md names botarena's own: a game that changes its information must change the docs too
    (a game from another package, as with BOTARENA_EXTRA_GAMES, documents itself)."""
    assert sorted(game.id for game in FULL if game.id in BUILTIN_GAMES) == ["domains", "rps"]


# -- finite spaces --------------------------------------------------------------------------------
@parametrize_games
def test_every_observation_bound_is_finite(game: GameInfo) -> None:
    for seats in sorted({game.min_players, game.max_players}):
        engine = game.new_engine(game.config("default", small(game)), 0, seats)
        encoding = encoding_class(game.id)(engine.config, seats)
        for box in box_leaves(encoding.observation_space):
            assert np.isfinite(box.low).all() and np.isfinite(box.high).all(), (game.id, seats)
            assert (np.abs(box.low) <= VALUE_CAP).all() and (box.high <= VALUE_CAP).all()


def test_a_count_beyond_the_cap_is_clipped_into_the_space() -> None:
    """GameOfDrones' counts grow without bound (GD-12): 2**40 producers observe as the cap."""
    game = get_game("drones")
    engine = game.new_engine(game.config("default", {}), 0, 2)
    encoding = encoding_class("drones")(engine.config, 2)
    payload = {
        "round": 1,
        "rounds": 3,
        "turn": 1,
        "turnLimit": 10,
        "defenderBonus": 1,
        "producers": 2**40,
        "soldiers": 2**30,
        "roundWins": 0,
        "roundLosses": 0,
        "roundDraws": 0,
    }
    observation = encoding.observation(0, [Request(0, payload, 1000)])
    assert observation in encoding.observation_space
    assert observation[5] == VALUE_CAP and observation[6] == VALUE_CAP
    assert encoding.observe(0, [Request(0, payload, 1000)])[5] == 2**40, "the raw encoding is unclipped"
