"""What a game looks like to a learning algorithm: arrays in, arrays out (DESIGN: "the RL layer turns
observations into arrays and action masks").

An engine speaks JSON payloads (`Request.payload` in, reply payloads out), the same ones a real bot
gets. An `Encoding` translates them for one game: each seat's requests of the current batch become
one observation in `observation_space`, one action in `action_space` becomes the seat's reply
payloads, and where the actions are finite it says which ones are legal (`action_mask`). It also
defines the rewards. Nothing here drives the engine: `session.MatchSession` does.

A seat may have several requests in one batch (a Devops faction's base and unit calls) or none (the
seat that waits while a Crafting Quest team plays its turn): `observe` and `act` get the seat's
whole list, in batch order, and `act` returns one payload per request.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from botarena.core.game import MatchResult, Step
from botarena.core.protocol import Request
from botarena.core.registry import all_games, game_ids, get_game, load_target

Observation = Any
"""A value in the encoding's `observation_space` (an array, or a dict of arrays)."""
Action = Any
"""A value in the encoding's `action_space`."""

VALUE_CAP = float(2**24)
"""The bound of every raw count, amount or score in an observation (+/- for signed ones):
16,777,216, as far as float32 holds every integer exactly. Spaces stay finite, as both checkers
ask and as a policy that scales by the bounds needs; a larger value is clipped to the cap."""


def capped_box(shape: tuple[int, ...], low: Any = 0.0, high: Any = VALUE_CAP) -> spaces.Box:
    """A float32 `Box` of raw values, bounded by `VALUE_CAP` unless tighter bounds are given."""
    return spaces.Box(np.broadcast_to(np.float32(low), shape), np.broadcast_to(np.float32(high), shape))


def clip_into(space: spaces.Space[Any], observation: Any) -> Any:
    """`observation` with every `Box` leaf clipped to its bounds (a `Dict` recursively)."""
    if isinstance(space, spaces.Dict):
        return {key: clip_into(space[key], value) for key, value in observation.items()}
    if isinstance(space, spaces.Box):
        return np.clip(observation, space.low, space.high).astype(space.dtype, copy=False)
    return observation


class Encoding(ABC):
    """One game's translation between payloads and arrays, for a match of `seats` seats.

    Subclasses set `observation_space` and `action_space` in `__init__`; every seat shares them.
    """

    observation_space: spaces.Space[Any]
    action_space: spaces.Space[Any]

    def __init__(self, config: Any, seats: int) -> None:
        self.config = config
        self.seats = seats

    @abstractmethod
    def observe(self, seat: int, requests: Sequence[Request]) -> Observation:
        """`seat`'s observation from its requests of the current batch ([] while it waits)."""

    def observation(self, seat: int, requests: Sequence[Request]) -> Observation:
        """`observe`, clipped into `observation_space` (raw values beyond `VALUE_CAP`), as the
        envs hand it out."""
        return clip_into(self.observation_space, self.observe(seat, requests))

    def reset(self) -> None:  # noqa: B027 - optional hook: most encodings keep nothing between matches
        """Forget what the previous match left (called when a match starts)."""

    @abstractmethod
    def act(self, seat: int, requests: Sequence[Request], action: Action) -> list[Any]:
        """The reply payloads (one per request, in order) that carry out `action`."""

    def action_mask(self, seat: int, requests: Sequence[Request]) -> np.ndarray[Any, Any] | None:
        """Which actions are legal now (int8, 1 = legal), or None where the actions are not finite.

        For a `MultiDiscrete` space the mask is the concatenation of every dimension's mask (the
        convention of sb3-contrib's MaskablePPO). A waiting seat's mask allows only the no-op."""
        return None

    def step_rewards(self, step: Step) -> list[float]:
        """Each seat's reward for one applied batch (default: none; the game's encoding says)."""
        return [0.0] * self.seats

    def terminal_rewards(self, result: MatchResult) -> list[float]:
        """Each seat's reward when the match ends: +1 for rank 1 alone, -1 for the last rank,
        spread evenly in between; a tie shares its ranks' average (a 2-seat draw is 0 for both)."""
        return rank_rewards(result.ranks)

    def start_reply(self, request: Request) -> Any:
        """The learner's reply to its `start` request (most games ignore it)."""
        return {}

    def end_reply(self, request: Request) -> Any:
        """The learner's reply to its `end` request (never changes the result)."""
        return {}

    def late_answer(self, request: Request) -> Any:
        """The learner's answer to a request the engine sends without awaiting it (Crafting Quest's
        last action result, CQ-31): handed over as a late reply before the next batch."""
        return {}


class FlatMaskMultiDiscrete(spaces.MultiDiscrete):
    """A `MultiDiscrete` whose `sample` also takes the mask flat, every dimension's mask concatenated
    (the form of `info["action_mask"]` and of sb3-contrib's MaskablePPO), as PettingZoo's API tests
    pass it. A masked sample draws every dimension at once (Gymnasium's loops over the dimensions,
    which costs more than the game's turn); the rule is Gymnasium's: uniform among the dimension's
    allowed choices, its first choice when none is allowed."""

    def sample(self, mask: Any = None, probability: Any = None) -> np.ndarray[Any, Any]:
        if mask is None or probability is not None or self.nvec.ndim != 1:
            return super().sample(mask, probability)
        flat = np.concatenate(mask) if isinstance(mask, tuple) else np.asarray(mask)
        dims, choices = self._layout()
        if flat.shape != dims.shape:
            raise ValueError(f"the mask has {flat.shape} entries, the space {dims.shape[0]}")
        keys = np.full((self.nvec.shape[0], int(self.nvec.max())), -1.0)
        keys[dims, choices] = np.where(flat.astype(bool), self.np_random.random(flat.shape[0]), -1.0)
        drawn: np.ndarray[Any, Any] = (keys.argmax(axis=1) + self.start).astype(self.dtype)
        return drawn

    def _layout(self) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        """Each flat mask entry's dimension and choice (made once per space)."""
        layout: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]] | None = getattr(self, "_flat_layout", None)
        if layout is None:
            sizes = self.nvec.astype(np.int64)
            dims = np.repeat(np.arange(sizes.shape[0]), sizes)
            choices = np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
            layout = self._flat_layout = (dims, choices)
        return layout


def rank_rewards(ranks: Sequence[int]) -> list[float]:
    """+1 for the best rank, -1 for the worst, linear in between by the average place of each tie.

    Places are 0-based positions in the sorted order; seats that share a rank share the average of
    the places they take, so a 2-seat draw gives [0, 0] and a 4-seat game [1, 1/3, -1/3, -1]."""
    count = len(ranks)
    if count < 2:
        return [0.0] * count
    order = sorted(ranks)
    rewards = []
    for rank in ranks:
        first = order.index(rank)
        last = len(order) - 1 - order[::-1].index(rank)
        place = (first + last) / 2.0
        rewards.append(1.0 - 2.0 * place / (count - 1))
    return rewards


EncodingFactory = Callable[[Any, int], Encoding]

_REGISTERED: dict[str, str] = {}
"""Encodings named from outside their game (`register_encoding`), by game id: they win over the
game's own `GameInfo.rl_encoding`."""


def register_encoding(game_id: str, target: str) -> None:
    """Name the encoding of a game that does not declare one itself (`"package.module:Class"`)."""
    _REGISTERED[game_id] = target


def _target_of(game_id: str) -> str | None:
    registered = _REGISTERED.get(game_id)
    if registered is not None:
        return registered
    try:
        return get_game(game_id).rl_encoding
    except LookupError:
        return None


def encoded_games() -> list[str]:
    """The ids of the registered games that have an encoding (declared or registered)."""
    declared = {game.id for game in all_games() if game.rl_encoding is not None}
    return sorted(declared | {game_id for game_id in _REGISTERED if game_id in game_ids()})


def encoding_class(game_id: str) -> EncodingFactory:
    """The encoding of `game_id` (raises KeyError naming the games that have one)."""
    target = _target_of(game_id)
    if target is None:
        known = ", ".join(encoded_games())
        raise KeyError(f"no RL encoding for game {game_id!r} (encodings exist for: {known})")
    factory: EncodingFactory = load_target(target)
    return factory
