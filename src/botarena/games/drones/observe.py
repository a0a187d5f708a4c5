"""What each bot sees (spec section 4): its own counts, the tallies and the last round's result."""

from __future__ import annotations

from typing import Any

from botarena.core.game import GameInfo
from botarena.core.protocol import Reply
from botarena.core.status import Status
from botarena.games.drones.config import DronesConfig
from botarena.games.drones.state import DRAW, PLAYER_NAMES, MatchState, Side

_VIEW_WORDS = {True: "WIN", False: "LOSE"}


def round_view(record: dict[str, Any], seat: int) -> dict[str, Any]:
    """Spec 4.3: a round result from one seat's point of view, in the original's key order."""
    own, other = ("player1", "player2") if seat == 0 else ("player2", "player1")
    outcome = record["outcome"]
    word = DRAW if outcome == DRAW else _VIEW_WORDS[outcome == PLAYER_NAMES[seat]]
    return {
        "outcome": word,
        "turnsPlayed": record["turnsPlayed"],
        "you": dict(record[own]),
        "them": dict(record[other]),
    }


def turn_observation(state: MatchState, config: DronesConfig, side: Side) -> dict[str, Any]:
    """Spec 4.2: the turn request payload of one side. Nothing of the other side in this round."""
    return {
        "round": state.round,
        "rounds": config.rounds,
        "turn": state.turn,
        "turnLimit": state.turn_limit,
        "defenderBonus": config.told_defender_bonus,
        "producers": side.producers,
        "soldiers": side.soldiers,
        "roundWins": side.wins,
        "roundLosses": side.losses,
        "roundDraws": side.draws,
        "previousRound": side.previous_round,
    }


def start_payload(config: DronesConfig, player_seed: int) -> dict[str, Any]:
    """Spec 4.1: the start request payload."""
    return {
        "rules": config.rules,
        "rounds": config.rounds,
        "drawAllowed": True,
        "playerSeed": player_seed,
        "bot_seed": player_seed,
    }


def match_word(side: Side) -> str:
    """A side's match outcome word (GD-25)."""
    if side.wins > side.losses:
        return "WIN"
    if side.wins < side.losses:
        return "LOSE"
    return DRAW


def end_payload(side: Side) -> dict[str, Any]:
    """Spec 4.4: the end request payload."""
    return {
        "lastRound": side.previous_round,
        "outcome": match_word(side),
        "roundWins": side.wins,
        "roundLosses": side.losses,
        "roundDraws": side.draws,
    }


# -- the hidden-information check (spec 4.5), run by botarena.testing ---------------------------------


class _NeverAttacks:
    """An opponent of the check: it plays its own `style` and never attacks."""

    def __init__(self, style: str) -> None:
        self.style = style

    def setup(self, payload: Any) -> Any:
        return {}

    def act(self, obs: dict[str, Any]) -> Any:
        capacity = obs["producers"]
        if self.style == "producers":
            return {"newProducers": capacity}
        if self.style == "soldiers":
            return {"newSoldiers": capacity}
        if self.style == "split":
            return {"newProducers": capacity // 2, "newSoldiers": capacity - capacity // 2}
        if self.style == "overask":
            return {"newProducers": 10 * capacity + 3, "newSoldiers": 7}
        if self.style == "garbage":
            return "not an action"
        return {"error": "I give up"}


class _Peaceful:
    """The subject of the check: the game's random bot with its attacks taken out, so round 1 runs
    to its turn limit whatever the opponent does."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def setup(self, payload: Any) -> Any:
        return self.inner.setup(payload)

    def act(self, obs: dict[str, Any]) -> Any:
        return {**self.inner.act(obs), "launchAttack": False}


_CHECK_STYLES = ("producers", "soldiers", "split", "overask", "garbage", "error")


def _turns_seen(game: GameInfo, config: DronesConfig, seat: int, style: str) -> list[dict[str, Any]]:
    """Drive one match directly (no runner): the subject in `seat` against a `style` opponent; the
    turn observations the subject was given, in order."""
    engine = game.new_engine(config, 12345, 2)
    bots: list[Any] = [_Peaceful(game.random_bot()), _NeverAttacks(style)]
    if seat == 1:
        bots.reverse()
    starts = engine.start_requests()
    engine.apply_start([Reply(r.seat, Status.OK, bots[r.seat].setup(r.payload)) for r in starts])
    seen: list[dict[str, Any]] = []
    while requests := engine.next_requests():
        seen.extend(dict(r.payload) for r in requests if r.seat == seat)
        engine.apply([Reply(r.seat, Status.OK, bots[r.seat].act(r.payload)) for r in requests])
    return seen


def hidden_info_check(game: GameInfo) -> None:
    """Spec 4.5: during a round a bot sees nothing of the other side. Seat `s` plays the same bot
    with the same seed against opponents that play very differently (and never attack, so round 1
    runs to its turn limit of 8); its turn observations in round 1 must be identical turn by turn.
    After the round the opponent's counts do show (4.3), so the first views of round 2 differ."""
    config = game.config(overrides={"rounds": 2, "turn_limit": 8})
    for seat in (0, 1):
        views = [_turns_seen(game, config, seat, style) for style in _CHECK_STYLES]
        reference = [obs for obs in views[0] if obs["round"] == 1]
        if len(reference) != 8:
            raise AssertionError(f"spec 4.5: seat {seat} saw {len(reference)} turns of round 1, not 8")
        for style, view in zip(_CHECK_STYLES, views, strict=True):
            round_one = [obs for obs in view if obs["round"] == 1]
            if round_one != reference:
                turn = next(
                    (i for i, (a, b) in enumerate(zip(round_one, reference, strict=False), 1) if a != b), 0
                )
                raise AssertionError(
                    f"spec 4.5: seat {seat}'s view of round 1 (turn {turn}) changes with opponent {style}"
                )
        round_two = [next(obs for obs in view if obs["round"] == 2) for view in views]
        if all(first == round_two[0] for first in round_two[1:]):
            raise AssertionError("spec 4.3: after round 1 no seat's view shows the opponent's counts")
