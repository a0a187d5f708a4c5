"""What each bot sees (spec section 4): its own counts, the tallies and the last round's result.

`start_payload` (4.1), `turn_observation` (4.2), `round_view` (4.3, GD-23), `end_payload` (4.4), and
`hidden_info_check`, the game's own check of 4.5 that drives the engine directly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from botarena.core.game import GameInfo
from botarena.core.protocol import Reply
from botarena.core.status import Reason, Status
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


# -- the game's own hidden-information check (spec 4.5) ----------------------------------------------

Payload = dict[str, Any]
_CHECK_TURN_LIMIT = 8


def _subject(obs: Payload) -> Reply:
    """The observed seat: a split of capacity that depends on its own view only; it never attacks."""
    capacity = obs["producers"]
    soldiers = capacity // 3 if obs["turn"] % 2 else 0
    return Reply(0, Status.OK, {"newProducers": capacity - soldiers, "newSoldiers": soldiers})


_OPPONENTS: dict[str, Callable[[Payload], Reply]] = {
    "producers": lambda obs: Reply(0, Status.OK, {"newProducers": obs["producers"]}),
    "soldiers": lambda obs: Reply(0, Status.OK, {"newSoldiers": obs["producers"]}),
    "overask": lambda obs: Reply(0, Status.OK, {"newProducers": 10 * obs["producers"] + 3, "newSoldiers": 7}),
    "garbage": lambda obs: Reply(0, Status.OK, "not an action"),
    "error": lambda obs: Reply(0, Status.OK, {"error": "I give up"}),
    "timeout": lambda obs: Reply(0, Status.TIMEOUT, None, Reason.DEADLINE),
    "crashed": lambda obs: Reply(0, Status.CRASHED, None, Reason.PROCESS_EXITED),
}
"""Opponents that play very differently (or not at all) and never attack, so round 1 runs to its limit."""


def _subject_views(
    game: GameInfo[DronesConfig], config: DronesConfig, seat: int, opponent: Callable[[Payload], Reply]
) -> list[Payload]:
    """Every turn observation the subject in `seat` gets in a 2-round match against `opponent`."""
    engine = game.new_engine(config, 12345, 2)
    engine.start_requests()
    engine.apply_start([Reply(0, Status.OK, {}), Reply(1, Status.OK, {})])
    views: list[Payload] = []
    while requests := engine.next_requests():
        replies = []
        for request in requests:
            reply = (_subject if request.seat == seat else opponent)(request.payload)
            reply.seat = request.seat
            replies.append(reply)
        views.append(dict(requests[seat].payload))
        engine.apply(replies)
    return views


def hidden_info_check(game: GameInfo[DronesConfig]) -> None:
    """Spec 4.5: during a round a bot sees nothing of the other side.

    Drives the engine directly: in each seat, the same subject plays against opponents that play
    very differently, fail or never answer; its round-1 observations must be identical turn by turn.
    After the round, the opponent's final counts do show (4.3), so round 2's first observations differ
    (which shows that the check can see a difference). Raises AssertionError on a leak.
    """
    config = game.config(overrides={"rounds": 2, "turn_limit": _CHECK_TURN_LIMIT})
    for seat in (0, 1):
        runs = {name: _subject_views(game, config, seat, play) for name, play in _OPPONENTS.items()}
        reference = [obs for obs in runs["producers"] if obs["round"] == 1]
        if len(reference) != _CHECK_TURN_LIMIT:
            raise AssertionError(f"round 1 lasted {len(reference)} turns, not {_CHECK_TURN_LIMIT}")
        for name, views in runs.items():
            round_one = [obs for obs in views if obs["round"] == 1]
            if len(round_one) != len(reference):
                raise AssertionError(f"seat {seat}: round 1 lasted {len(round_one)} turns against {name}")
            for turn, (seen, expected) in enumerate(zip(round_one, reference, strict=True), start=1):
                if seen != expected:
                    raise AssertionError(f"seat {seat}, round 1 turn {turn}: the view shows opponent {name}")
        second = [next(obs for obs in views if obs["round"] == 2) for views in runs.values()]
        if all(obs == second[0] for obs in second[1:]):
            raise AssertionError(f"seat {seat}: round 2 shows nothing of round 1's opponent (spec 4.3)")
