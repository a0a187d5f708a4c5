"""The GameOfDrones player API for Python bots: a small, typed SDK (bot side; the engine never uses it).

Subclass `Bot` and override `play_turn`; the optional hooks mirror the 2018 JavaScript contract
(spec 7.1), which fits the game well:

    from botarena.games.drones.api import Action, Bot, Observation

    class MyBot(Bot):
        name = "My bot"

        def play_turn(self, obs: Observation) -> Action:
            if obs.turn < obs.turn_limit:
                return Action(producers=obs.capacity)
            return Action(soldiers=obs.capacity)

    def create_bot() -> MyBot:
        return MyBot()

`MyBot` (or `create_bot`) is an in-process bot factory for `PythonBot` and for `botarena play`. The
base class maps the platform's three calls onto the hooks:

- `setup(payload)` (spec 4.1): `on_match_start(MatchStart)`, then replies `{"meta": ...}`;
- `act(payload)` (spec 4.2): on the first turn of a round, `on_round_end(previous round)` (from round 2)
  and `on_round_start(observation)`; then `play_turn(observation)`, whose `Action` is sent (5.1);
- `end(payload)` (spec 4.4): `on_round_end(last round)`, then `on_match_end(MatchEnd)`.

`self.random` is a `random.Random` seeded with the match's `playerSeed`, so a bot that draws only from
it plays the same moves whenever the platform gives it the same seed.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

Count = int | float
"""A unit count: an int in the `seed` rule set, possibly a float in `bravolt2018`."""

Word = Literal["WIN", "LOSE", "DRAW"]


@dataclass(frozen=True, slots=True)
class SideResult:
    """One side's final counts in a round, and whether it attacked on the round's last turn."""

    producers: Count
    soldiers: Count
    launched_attack: bool

    @property
    def total(self) -> Count:
        """Producers plus soldiers."""
        return self.producers + self.soldiers

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> SideResult:
        return cls(data["producers"], data["soldiers"], bool(data["launchedAttack"]))

    def to_payload(self) -> dict[str, Any]:
        return {
            "producers": self.producers,
            "soldiers": self.soldiers,
            "launchedAttack": self.launched_attack,
        }


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A finished round from this bot's point of view (spec 4.3)."""

    outcome: Word
    turns_played: int
    you: SideResult
    them: SideResult

    @property
    def won(self) -> bool:
        return self.outcome == "WIN"

    @property
    def lost(self) -> bool:
        return self.outcome == "LOSE"

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> RoundResult:
        return cls(
            data["outcome"],
            int(data["turnsPlayed"]),
            SideResult.from_payload(data["you"]),
            SideResult.from_payload(data["them"]),
        )

    def to_payload(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "turnsPlayed": self.turns_played,
            "you": self.you.to_payload(),
            "them": self.them.to_payload(),
        }


@dataclass(frozen=True, slots=True)
class Observation:
    """What the bot sees at the start of a turn (spec 4.2): only its own side, plus the tallies."""

    round: int
    rounds: int
    turn: int
    turn_limit: int
    defender_bonus: int
    producers: Count
    soldiers: Count
    round_wins: int
    round_losses: int
    round_draws: int
    previous_round: RoundResult | None

    @property
    def capacity(self) -> Count:
        """Units this turn can produce: the producers at the start of the turn (GD-11)."""
        return self.producers

    @property
    def last_turn(self) -> bool:
        """True on the round's last turn, where a turn-limit clash follows unless someone attacks."""
        return self.turn >= self.turn_limit

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> Observation:
        previous = data.get("previousRound")
        return cls(
            round=int(data["round"]),
            rounds=int(data["rounds"]),
            turn=int(data["turn"]),
            turn_limit=int(data["turnLimit"]),
            defender_bonus=int(data["defenderBonus"]),
            producers=data["producers"],
            soldiers=data["soldiers"],
            round_wins=int(data["roundWins"]),
            round_losses=int(data["roundLosses"]),
            round_draws=int(data["roundDraws"]),
            previous_round=RoundResult.from_payload(previous) if previous is not None else None,
        )


@dataclass(frozen=True, slots=True)
class MatchStart:
    """The start request (spec 4.1)."""

    rules: str
    rounds: int
    draw_allowed: bool
    player_seed: int

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> MatchStart:
        seed = data.get("playerSeed", data.get("bot_seed", 0))
        return cls(
            str(data.get("rules", "seed")),
            int(data.get("rounds", 0)),
            bool(data.get("drawAllowed", True)),
            int(seed),
        )


@dataclass(frozen=True, slots=True)
class MatchEnd:
    """The end request (spec 4.4): the last round and the match outcome for this bot."""

    last_round: RoundResult | None
    outcome: Word
    round_wins: int
    round_losses: int
    round_draws: int

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> MatchEnd:
        last = data.get("lastRound")
        return cls(
            RoundResult.from_payload(last) if last is not None else None,
            data["outcome"],
            int(data["roundWins"]),
            int(data["roundLosses"]),
            int(data["roundDraws"]),
        )


@dataclass(frozen=True, slots=True)
class Action:
    """One turn's action (spec 5.1): producers and soldiers to build, and whether to attack.

    Asking for more than the capacity is clamped, producers first, with a `CLAMPED` warning (GD-12).
    In the `seed` rule set counts must be non-negative integers, or the whole action is INVALID.
    """

    producers: Count = 0
    soldiers: Count = 0
    attack: bool = False

    def to_payload(self) -> dict[str, Any]:
        return {"newProducers": self.producers, "newSoldiers": self.soldiers, "launchAttack": self.attack}


class Bot:
    """Base class of an SDK bot. Override `play_turn`, and any other hook you need."""

    name: str = "Anonymous Player"
    author: str | None = None

    def __init__(self) -> None:
        self.random = random.Random(0)
        self.start: MatchStart | None = None
        self._round = 0

    # -- hooks to override -----------------------------------------------------------------------
    def on_match_start(self, start: MatchStart) -> None:
        """Called once, before any turn."""

    def on_round_start(self, obs: Observation) -> None:
        """Called on the first turn of each round, before `play_turn`."""

    def play_turn(self, obs: Observation) -> Action:
        """Return this turn's action. The default does nothing."""
        return Action()

    def on_round_end(self, result: RoundResult) -> None:
        """Called with each finished round: at the next round's first turn, or at the end of the match."""

    def on_match_end(self, end: MatchEnd) -> None:
        """Called once with the match outcome. Its effect on the result: none (it is already final)."""

    def meta(self) -> dict[str, Any]:
        """The `meta` sent in the start reply: shown in listings and in the original result JSON."""
        meta: dict[str, Any] = {"name": self.name}
        if self.author is not None:
            meta["author"] = self.author
        return meta

    def debug(self, *parts: Any) -> None:
        """Print to stderr: kept (capped) in the replay's log for process bots, never on the wire."""
        print(*parts, file=sys.stderr)

    # -- the platform's calls (in-process bot protocol) --------------------------------------------
    def setup(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        self.start = MatchStart.from_payload(payload)
        self.random = random.Random(self.start.player_seed)
        self._round = 0
        self.on_match_start(self.start)
        return {"meta": self.meta()}

    def act(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        obs = Observation.from_payload(payload)
        if obs.round != self._round:
            self._round = obs.round
            if obs.previous_round is not None:
                self.on_round_end(obs.previous_round)
            self.on_round_start(obs)
        action = self.play_turn(obs)
        if action is None:
            return {}
        if isinstance(action, Action):
            return action.to_payload()
        return dict(action)  # a plain payload dict is sent as it is

    def end(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        end = MatchEnd.from_payload(payload)
        if end.last_round is not None:
            self.on_round_end(end.last_round)
        self.on_match_end(end)
        return {}
