"""GameOfDrones' rules (spec section 3) as phase functions over the match state, in the spec's order.

A match runs: `setup` (GD-1 .. GD-5, with `player_seed` for GD-4); per round `begin_round` (GD-6 ..
GD-8); per turn, for each side, `produce` with the rule set's `produce_seed` or `produce_bravolt`
(GD-11 .. GD-16), then `clash_trigger` (GD-17); on a clash `resolve_clash` (GD-18 .. GD-21) inside
`end_round` (GD-22, GD-24); after the last round `match_outcome` (GD-25).

Turning a reply into an action (GD-10, section 5) is `actions.py`'s; what each bot is told (GD-9,
GD-23) is `observe.py`'s; who is asked what, and the records, are `engine.py`'s. Randomness comes
only from the match's named streams (GD-3), which the caller hands in as `rng(name)`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from botarena.core.rng import bot_seed
from botarena.core.status import Warning
from botarena.games.drones.actions import CLAMPED, Action, Count
from botarena.games.drones.config import GAME_ID, DronesConfig
from botarena.games.drones.state import DRAW, PLAYER_NAMES, MatchState, Side

TURNS_STREAM = "drones.turns"
TIEBREAK_STREAM = "drones.tiebreak"

Streams = Callable[[str], np.random.Generator]
"""The match's named random streams (GD-3): `rng(name)` gives the stream `name`."""

Production = Callable[[Side, Action, list[Warning]], None]
"""A rule set's production rule: `produce_seed` (GD-12) or `produce_bravolt` (GD-13)."""


# -- 3.1 match setup ----------------------------------------------------------------------------------


def setup() -> MatchState:
    """GD-1, GD-5: two sides, slot 1 and slot 2, with their round tallies at 0; no round started yet."""
    return MatchState(sides=(Side(), Side()))


def player_seed(config: DronesConfig, seed: int, seat: int) -> int:
    """GD-4: the seat's playerSeed, the platform's `bot_seed` unless config `player_seeds` names it."""
    if config.player_seeds is not None:
        return config.player_seeds[seat]
    return bot_seed(seed, GAME_ID, seat)


# -- 3.2 round start ----------------------------------------------------------------------------------


def begin_round(state: MatchState, config: DronesConfig, rng: Streams) -> None:
    """GD-6 .. GD-8: the next round, its turn limit, and both sides back at 1 producer, 0 soldiers.

    After the last round (GD-24) the match is finished instead.
    """
    state.round += 1
    if state.round > config.rounds:
        state.finished = True
        return
    state.turn = 1
    state.turn_limit = draw_turn_limit(config, rng)
    for side in state.sides:
        side.reset_round()


def draw_turn_limit(config: DronesConfig, rng: Streams) -> int:
    """GD-7: fixed, or one draw per round from `drones.turns`."""
    span = config.turn_limit_range
    if span is None:
        return config.turn_limit
    lo, hi = span
    return int(rng(TURNS_STREAM).integers(lo, hi + 1))


# -- 3.3 turn processing ------------------------------------------------------------------------------


def produce(side: Side, action: Action | None, production: Production, warnings: list[Warning]) -> None:
    """GD-10 .. GD-16 for one side: no action produces nothing and does not attack; an action is
    produced under the rule set's `production` (which clamps `action` to what was applied)."""
    if action is not None:
        production(side, action, warnings)
    side.attacked = action is not None and action.attack  # GD-16


def _integral(value: Count) -> Count:
    """Integral floats become ints, so JSON shows `2`, never `2.0` (spec 3.6)."""
    if type(value) is float and value.is_integer():
        return int(value)
    return value


def produce_seed(side: Side, action: Action, warnings: list[Warning]) -> None:
    """GD-11, GD-12 (seed): integer production, producers served first, capacity read before production."""
    capacity = side.producers
    producers = min(action.producers, capacity)
    soldiers = min(action.soldiers, capacity - producers)
    if producers < action.producers or soldiers < action.soldiers:
        warnings.append(_clamp_warning(action, producers, soldiers))
    side.producers += producers
    side.soldiers += soldiers
    action.producers, action.soldiers = producers, soldiers


def produce_bravolt(side: Side, action: Action, warnings: list[Warning]) -> None:
    """GD-11, GD-13 (bravolt2018): the original's binary64 steps, one operation at a time, in order."""
    capacity = side.producers
    producers = action.producers
    if producers < capacity:
        remaining = capacity - producers
    else:
        producers = capacity
        remaining = 0
    soldiers = action.soldiers
    if not soldiers < remaining:
        soldiers = remaining
    if producers < action.producers or soldiers < action.soldiers:
        warnings.append(_clamp_warning(action, producers, soldiers))
    side.producers = _integral(side.producers + producers)
    side.soldiers = _integral(side.soldiers + soldiers)
    action.producers, action.soldiers = _integral(producers), _integral(soldiers)


def _show(value: Count) -> str:
    """A count for a warning's text; a huge integer (str() refuses beyond 4300 digits) as a power of 2."""
    if type(value) is int and value.bit_length() > 64:
        return f"~2^{value.bit_length() - 1}"
    return str(_integral(value))


def _clamp_warning(action: Action, producers: Count, soldiers: Count) -> Warning:
    """GD-12 / GD-13: the CLAMPED warning, requested against applied."""
    requested = f"{_show(action.producers)}+{_show(action.soldiers)}"
    return {"code": CLAMPED, "detail": f"requested {requested}, applied {_show(producers)}+{_show(soldiers)}"}


def clash_trigger(state: MatchState) -> str | None:
    """GD-17: a lone attack, both attacking, or the turn limit; else the round goes on (None)."""
    one, two = state.sides
    if one.attacked and two.attacked:
        return "FIELD"
    if one.attacked or two.attacked:
        return "ATTACK"
    if state.turn >= state.turn_limit:
        return "TURN_LIMIT"
    return None


# -- 3.4 clash resolution -----------------------------------------------------------------------------


def resolve_clash(state: MatchState, config: DronesConfig, trigger: str, rng: Streams) -> tuple[str, str]:
    """GD-18 .. GD-21: (outcome, decidedBy) of this turn's clash under the active rule set."""
    sides = state.sides
    one, two = sides
    if trigger == "ATTACK":
        attacker, defender = (0, 1) if one.attacked else (1, 0)
        bonus = config.defender_bonus if config.rules == "seed" else 1  # GD-18, GD-20
        if sides[attacker].soldiers > sides[defender].soldiers + bonus:
            return PLAYER_NAMES[attacker], "ATTACK_WON"
        return PLAYER_NAMES[defender], "DEFENCE_HELD"
    if one.soldiers != two.soldiers:  # GD-19.1, GD-21
        return PLAYER_NAMES[0 if one.soldiers > two.soldiers else 1], "SOLDIERS"
    if config.rules == "bravolt2018":  # GD-21: equal soldiers is a draw
        return DRAW, "DRAW"
    total_one, total_two = one.producers + one.soldiers, two.producers + two.soldiers
    if total_one != total_two:  # GD-19.2
        return PLAYER_NAMES[0 if total_one > total_two else 1], "TOTAL_UNITS"
    coin = int(rng(TIEBREAK_STREAM).integers(0, 2))  # GD-19.3
    return PLAYER_NAMES[coin], "RANDOM"


# -- 3.5 round end and match end ----------------------------------------------------------------------


def end_round(state: MatchState, config: DronesConfig, trigger: str, rng: Streams) -> dict[str, Any]:
    """GD-22: the clash ends the round; its record (spec 3.6) is kept and the tallies are updated.

    The next round (GD-24) is the caller's `begin_round`.
    """
    one, two = state.sides
    outcome, decided_by = resolve_clash(state, config, trigger, rng)
    record = {
        "round": state.round,
        "turnLimit": state.turn_limit,
        "turnsPlayed": state.turn,
        "trigger": trigger,
        "decidedBy": decided_by,
        "outcome": outcome,
        "player1": one.final(),
        "player2": two.final(),
    }
    if outcome == DRAW:
        one.draws += 1
        two.draws += 1
    else:
        winner = 0 if outcome == PLAYER_NAMES[0] else 1
        state.sides[winner].wins += 1
        state.sides[1 - winner].losses += 1
    state.round_results.append(record)
    return record


def match_outcome(state: MatchState) -> tuple[str, list[int]]:
    """GD-25: (outcome, ranks): more round wins wins; equal round wins is a DRAW, never a coin flip."""
    one, two = state.sides
    if one.wins > two.wins:
        return PLAYER_NAMES[0], [1, 2]
    if two.wins > one.wins:
        return PLAYER_NAMES[1], [2, 1]
    return DRAW, [1, 1]
