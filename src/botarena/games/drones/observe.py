"""What each bot sees (spec section 4): its own counts, the tallies and the last round's result."""

from __future__ import annotations

from typing import Any

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
