"""PettingZoo and Gymnasium environments over any botarena game (see `botarena.rl` for the guide).

- `BotarenaParallelEnv`: a PettingZoo `ParallelEnv`; every seat is an agent (`player_0`, ...) unless
  it is given to a bot (`opponents`). An agent without a request in the current batch (the team that
  waits in Crafting Quest) is still listed: its action is ignored, its mask allows only the no-op.
- `BotarenaAECEnv`: a PettingZoo `AECEnv` for games whose seats alternate (Crafting Quest): the agent
  to act is the seat the engine asks next.
- `BotarenaGymEnv`: a Gymnasium `Env` for one learner seat against botarena bots.

All three drive a `session.MatchSession`; `reset(seed=s)` plays the match with seed `s` (so the same
seed and actions give the same match, the same replay, the same rewards), and without a seed the next
match seed is drawn from the env's own generator.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.agent_selector import AgentSelector

from botarena.bots.base import Bot
from botarena.bots.inprocess import PythonBot
from botarena.bots.resolve import TRUSTED, Isolation, check_spec, resolve_bot
from botarena.core.game import GameInfo, Information
from botarena.core.registry import get_game
from botarena.core.replay import Replay
from botarena.rl.encoding import Action, Encoding, Observation, encoding_class
from botarena.rl.raster import TextRaster
from botarena.rl.session import MatchSession

Opponent = str | Callable[[], Any]
"""A bot for a seat: a spec as `botarena play` takes it (a starter's name, a file, `cmd:...`, an
HTTP URL; `random` is the game's random legal bot) or a zero-argument factory of an in-process bot
object (`setup`/`act`/`end`). A fresh bot is made for every match."""

RENDER_MODES = ["ansi", "html", "rgb_array"]
"""`ansi`: the game's ASCII drawing of the current state; `html`: the self-contained viewer page of
the match so far (the page of `botarena view --html`); `rgb_array`: the ASCII drawing as an HxWx3
uint8 image (`raster.TextRaster`), of one size for the env's whole life (Gymnasium's `RecordVideo`
needs that)."""
RENDER_FPS = 4
"""The frame rate `RecordVideo` gives a recording: four steps a second."""
ROOM_ROWS, ROOM_COLUMNS = 8, 16
"""An `rgb_array` frame holds the opening drawing plus this many more lines and columns (status
lines that grow as units appear); what goes beyond is cut, the maps come first in every drawing."""

_MAX_SEED = 2**63 - 1


def agent_name(seat: int) -> str:
    return f"player_{seat}"


class _GameMatches:
    """What the three envs share: the game, its config, the encoding and the match being played."""

    def __init__(
        self,
        game_id: str,
        *,
        seats: int | None,
        preset: str,
        config: Mapping[str, Any],
        opponents: Mapping[int, Opponent],
        isolation: Isolation,
        render_mode: str | None,
    ) -> None:
        self.game: GameInfo[Any] = get_game(game_id)
        seats = self.game.min_players if seats is None else seats
        self.game.check_players(seats)
        self.preset = preset
        self.config = self.game.config(preset, dict(config))
        self.seats = seats
        for seat, spec in opponents.items():
            if not 0 <= seat < seats:
                raise ValueError(f"opponent seat {seat} is not a seat of a {seats}-seat match")
            if isinstance(spec, str) and spec != "random":
                check_spec(spec, self.game, isolation=isolation)  # a bad spec fails here, not mid-training
        self.opponent_specs = dict(opponents)
        self.isolation = isolation
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {RENDER_MODES}, got {render_mode!r}")
        self.render_mode = render_mode
        engine = self.game.new_engine(self.config, 0, seats)
        self.encoding: Encoding = encoding_class(self.game.id)(engine.config, seats)
        self.raster: TextRaster | None = None
        if render_mode == "rgb_array":
            opening = self.game.text_renderer(engine.keyframe()).splitlines() or [""]
            width = max(len(line) for line in opening)
            self.raster = TextRaster(len(opening) + ROOM_ROWS, width + ROOM_COLUMNS)
        self.session: MatchSession | None = None
        self.seeds = np.random.default_rng()
        self._state_space: spaces.Box | None = None
        self._last_state: np.ndarray[Any, Any] | None = None

    def new_match(self, seed: int | None) -> MatchSession:
        """Close the match in play, if any, and start a new one (seeded by `seed` if given)."""
        self.close()
        if seed is not None:
            self.seeds = np.random.default_rng(seed)
            match_seed = seed % (_MAX_SEED + 1)
        else:
            match_seed = int(self.seeds.integers(0, _MAX_SEED))
        engine = self.game.new_engine(self.config, match_seed, self.seats)
        self.encoding.reset()
        self._last_state = None
        opponents = {seat: self._bot(spec) for seat, spec in self.opponent_specs.items()}
        engine.set_player_names(
            [opponents[s].name if s in opponents else f"learner {s}" for s in range(self.seats)]
        )
        self.session = MatchSession(
            self.game, engine, self.encoding, match_seed, opponents, preset=self.preset
        )
        self.session.start()
        return self.session

    def _bot(self, spec: Opponent) -> Bot:
        if spec == "random" and spec not in self.game.starter_bots:
            return PythonBot(self.game.random_bot, name="random")
        if isinstance(spec, str):
            return resolve_bot(spec, self.game, isolation=self.isolation)
        return PythonBot(spec)

    def playing(self) -> MatchSession:
        if self.session is None:
            raise RuntimeError("call reset() before step()")
        return self.session

    def render(self) -> str | np.ndarray[Any, np.dtype[np.uint8]] | None:
        if self.render_mode is None or self.session is None:
            return None
        if self.raster is not None:
            return self.raster.draw(self.game.text_renderer(self.session.engine.keyframe()))
        if self.render_mode == "ansi":
            return self.game.text_renderer(self.session.engine.keyframe())
        from botarena.standalone import standalone_html

        return standalone_html(self.session.replay)

    def replay(self) -> Replay:
        """The replay of the match in play (complete once it is over)."""
        return self.playing().replay

    def state_space(self) -> spaces.Box:
        """The global state's space: seat 0's observation space flattened (full information only)."""
        if self.game.information is not Information.FULL:
            raise AttributeError(self._no_state())
        if self._state_space is None:
            flat = spaces.flatten_space(self.encoding.observation_space)
            assert isinstance(flat, spaces.Box)  # every encoding's spaces are Boxes, Discretes or Dicts
            self._state_space = flat
        return self._state_space

    def state(self) -> np.ndarray[Any, Any]:
        """The whole state now, as one flat array. Where every seat sees everything, seat 0's
        observation (drawn from its request even when a bot plays it) is the state; once the match
        is over, the last state again."""
        if self.game.information is not Information.FULL:
            raise NotImplementedError(self._no_state())
        space, session = self.state_space(), self.playing()
        requests = session.requests_of(0)
        if requests or self._last_state is None:
            observation = self.encoding.observation(0, requests)
            flat = spaces.flatten(self.encoding.observation_space, observation)
            self._last_state = np.asarray(flat, dtype=space.dtype)
        return self._last_state.copy()

    def _no_state(self) -> str:
        return (
            f"{self.game.id} hides part of its state from the seats (information: hidden), so its envs"
            " have no global state() or state_space; use the agents' observations"
        )

    def observe(self, seat: int) -> Observation:
        session = self.playing()
        return self.encoding.observation(seat, session.pending.get(seat, []))

    def info(self, seat: int) -> dict[str, Any]:
        session = self.playing()
        mask = self.encoding.action_mask(seat, session.pending.get(seat, []))
        info: dict[str, Any] = {"acting": bool(session.pending.get(seat))}
        if mask is not None:
            info["action_mask"] = mask
        if session.done and session.result is not None:
            info["result"] = session.result.to_json()
        return info

    def close(self) -> None:
        if self.session is not None:
            self.session.close()
            self.session = None


def _learner_seats(seats: int, opponents: Mapping[int, Opponent]) -> list[int]:
    return [seat for seat in range(seats) if seat not in opponents]


class _SeatAgents:
    """What the PettingZoo envs share: one agent per learner seat, the spaces, render, replay."""

    metadata: ClassVar[dict[str, Any]]

    def __init__(
        self,
        game_id: str,
        *,
        seats: int | None = None,
        preset: str = "default",
        config: Mapping[str, Any] | None = None,
        opponents: Mapping[int, Opponent] | None = None,
        isolation: Isolation = TRUSTED,
        render_mode: str | None = None,
    ) -> None:
        self._matches = _GameMatches(
            game_id,
            seats=seats,
            preset=preset,
            config=config or {},
            opponents=opponents or {},
            isolation=isolation,
            render_mode=render_mode,
        )
        self.metadata = {**type(self).metadata, "name": f"botarena_{game_id}"}  # type: ignore[misc]
        self.render_mode = render_mode
        learners = _learner_seats(self._matches.seats, opponents or {})
        self.possible_agents = [agent_name(seat) for seat in learners]
        self.agents: list[str] = []
        self._seat = {agent_name(seat): seat for seat in learners}

    @property
    def encoding(self) -> Encoding:
        return self._matches.encoding

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.encoding.observation_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.encoding.action_space

    def render(self) -> str | np.ndarray[Any, np.dtype[np.uint8]] | None:
        return self._matches.render()

    @property
    def state_space(self) -> spaces.Box:
        """The space of `state()`; absent (AttributeError) where the game hides information."""
        return self._matches.state_space()

    def state(self) -> np.ndarray[Any, Any]:
        """The global state (full-information games: Domains, rps); NotImplementedError elsewhere."""
        return self._matches.state()

    def replay(self) -> Replay:
        """The match's replay so far (`Replay.save(path)` keeps it; `botarena view` shows it)."""
        return self._matches.replay()

    def close(self) -> None:
        self._matches.close()


class BotarenaParallelEnv(_SeatAgents, ParallelEnv[str, Observation, Action]):  # type: ignore[misc]
    """A PettingZoo parallel env of one botarena game; `botarena.rl.parallel_env` makes one."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "botarena",
        "render_modes": RENDER_MODES,
        "render_fps": RENDER_FPS,
        "is_parallelizable": True,
    }

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Observation], dict[str, dict[str, Any]]]:
        self._matches.new_match(seed)
        self.agents = list(self.possible_agents)
        return self._observations(), self._infos()

    def step(
        self, actions: Mapping[str, Action]
    ) -> tuple[
        dict[str, Observation],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        session = self._matches.playing()
        by_seat = {}
        for seat, requests in session.pending.items():
            if requests:
                agent = agent_name(seat)
                if agent not in actions:
                    raise ValueError(f"no action for {agent}, whose turn it is")
                by_seat[seat] = actions[agent]
        outcome = session.step(by_seat)
        observations, infos = self._observations(), self._infos()
        rewards = {agent: outcome.rewards[self._seat[agent]] for agent in self.agents}
        terminations = {agent: outcome.done for agent in self.agents}
        truncations = {agent: False for agent in self.agents}
        if outcome.done:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _observations(self) -> dict[str, Observation]:
        return {agent: self._matches.observe(self._seat[agent]) for agent in self.agents}

    def _infos(self) -> dict[str, dict[str, Any]]:
        return {agent: self._matches.info(self._seat[agent]) for agent in self.agents}


class BotarenaAECEnv(_SeatAgents, AECEnv[str, Observation, Action]):  # type: ignore[misc]
    """A PettingZoo AEC env: the agent to act is the seat the engine asks next (alternating turns)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "botarena",
        "render_modes": RENDER_MODES,
        "render_fps": RENDER_FPS,
        "is_parallelizable": False,
    }

    def observe(self, agent: str) -> Observation:
        return self._matches.observe(self._seat[agent])

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        session = self._matches.new_match(seed)
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: session.done for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos = {agent: self._matches.info(self._seat[agent]) for agent in self.agents}
        self._select_next()

    def step(self, action: Action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        outcome = self._matches.playing().step({self._seat[agent]: action})
        self.rewards = {other: outcome.rewards[self._seat[other]] for other in self.agents}
        if outcome.done:
            self.terminations = {other: True for other in self.agents}
        self.infos = {other: self._matches.info(self._seat[other]) for other in self.agents}
        self._accumulate_rewards()
        self._select_next()

    def _select_next(self) -> None:
        """The seat the engine asks now; once the match is over, the first agent (each terminated
        agent then takes its `None` step in turn)."""
        session = self._matches.playing()
        acting = [agent_name(seat) for seat, requests in session.pending.items() if requests]
        self.agent_selection = acting[0] if acting else AgentSelector(self.agents).reset()


class BotarenaGymEnv(gymnasium.Env[Observation, Action]):
    """One learner seat of a botarena game against bots: a Gymnasium env (`botarena.rl.gym_env`).

    The reward of a step is everything the learner earned from its action until its next decision
    (opponents-only batches included); `info["action_mask"]` and `action_masks()` (sb3-contrib's
    MaskablePPO) give the legal actions where they are finite.
    """

    metadata = {"render_modes": RENDER_MODES, "render_fps": RENDER_FPS}  # noqa: RUF012 - gymnasium.Env declares it so

    def __init__(
        self,
        game_id: str,
        opponents: Opponent | Sequence[Opponent] = "random",
        *,
        seat: int = 0,
        seats: int | None = None,
        preset: str = "default",
        config: Mapping[str, Any] | None = None,
        isolation: Isolation = TRUSTED,
        render_mode: str | None = None,
    ) -> None:
        game = get_game(game_id)
        total = game.min_players if seats is None else seats
        others = [s for s in range(total) if s != seat]
        if not 0 <= seat < total:
            raise ValueError(f"seat {seat} is not a seat of a {total}-seat match")
        listed = [opponents] if isinstance(opponents, str) or callable(opponents) else list(opponents)
        if len(listed) == 1:
            listed = listed * len(others)
        if len(listed) != len(others):
            raise ValueError(f"{len(others)} opponents are needed, {len(listed)} were given")
        specs = dict(zip(others, listed, strict=True))
        self._matches = _GameMatches(
            game_id,
            seats=total,
            preset=preset,
            config=config or {},
            opponents=specs,
            isolation=isolation,
            render_mode=render_mode,
        )
        self.seat = seat
        self.render_mode = render_mode
        self.observation_space = self._matches.encoding.observation_space
        self.action_space = self._matches.encoding.action_space

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        match_seed = int(self.np_random.integers(0, _MAX_SEED))
        self._matches.new_match(match_seed)
        return self._matches.observe(self.seat), self._matches.info(self.seat)

    def step(self, action: Action) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        session = self._matches.playing()
        outcome = session.step({self.seat: action})
        observation = self._matches.observe(self.seat)
        return observation, outcome.rewards[self.seat], outcome.done, False, self._matches.info(self.seat)

    def action_masks(self) -> np.ndarray[Any, Any]:
        """The legal actions now (sb3-contrib's MaskablePPO calls this); all legal where the game's
        actions are not finite masks."""
        session = self._matches.playing()
        mask = self._matches.encoding.action_mask(self.seat, session.pending.get(self.seat, []))
        if mask is None:
            raise ValueError(f"{self._matches.game.id}'s actions have no mask")
        return mask.astype(bool)

    def render(self) -> str | np.ndarray[Any, np.dtype[np.uint8]] | None:  # type: ignore[override]
        return self._matches.render()

    def replay(self) -> Replay:
        """The match's replay so far."""
        return self._matches.replay()

    def close(self) -> None:
        self._matches.close()
