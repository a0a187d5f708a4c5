"""Tactician, the stronger starter bot (spec section 10, item 5).

Each round it plays one *plan* (s, a): all capacity into producers before the switch turn s, all into
soldiers from s on, and an attack exactly on turn a (or never). It infers the opponent's plan of every
finished round from `previousRound`, keeps the last 20, and picks the plan with the best expected
outcome against them, blended with a *mirror* model of an opponent that defends on our last attack turn.

Readings of details the spec leaves open: `round` in the inference rounds halves up (as JavaScript's
`Math.round`); `outcome` uses the told `defenderBonus` for a lone attack in `seed`, and 1 in
`bravolt2018`, whose clash always uses 1 (GD-20); h_mirror is updated after every round (the
round-1 mirror is (L, none)), h_repeat from the end of round 2 on, once a previous inferred plan exists.

Outcomes of plan pairs are pure functions of (L, rule set, bonus), so they are computed once per
opponent plan into a table column; a round's decision is then a few list operations.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Any, ClassVar

from botarena.games.drones.bots.mulberry import Mulberry32

Payload = dict[str, Any]
Plan = tuple[int, int | None]  # (switch turn s, attack turn a or None)

HISTORY = 20
EXPLORE = 0.05
DECAY = 0.9  # hit rates: h <- 0.9 h + 0.1 hit


def plans(limit: int) -> list[Plan]:
    """Every plan for turn limit L in enumeration order: s ascending; per s, no attack, then a ascending."""
    result: list[Plan] = []
    for s in range(1, limit + 1):
        result.append((s, None))
        result.extend((s, a) for a in range(s, limit + 1))
    return result


def projection(plan: Plan, turn: int) -> tuple[int, int]:
    """(producers, soldiers) at the end of `turn` under `plan` (spec 10.5, *Projection*)."""
    s = plan[0]
    if turn < s:
        return 2**turn, 0
    base = 2 ** (s - 1)
    return base, base * (turn - s + 1)


def outcome(mine: Plan, theirs: Plan, limit: int, rules: str, bonus: int) -> float:
    """1 for a win of `mine`, 0 for a loss, 0.5 for a draw or a coin flip (GD-17 .. GD-21)."""
    a_mine = mine[1] if mine[1] is not None else limit + 1
    a_theirs = theirs[1] if theirs[1] is not None else limit + 1
    turn = min(a_mine, a_theirs, limit)
    my_p, my_s = projection(mine, turn)
    their_p, their_s = projection(theirs, turn)
    i_attack, they_attack = a_mine == turn, a_theirs == turn
    if i_attack != they_attack:  # ATTACK
        edge = bonus if rules == "seed" else 1
        if i_attack:
            return 1.0 if my_s > their_s + edge else 0.0
        return 0.0 if their_s > my_s + edge else 1.0
    if my_s != their_s:  # FIELD or TURN_LIMIT
        return 1.0 if my_s > their_s else 0.0
    if rules == "seed" and my_p != their_p:
        return 1.0 if my_p > their_p else 0.0
    return 0.5


def producer_switch(producers: float, played: int) -> int:
    """Spec 10.5's estimate of a switch turn: clamp(round(log2(producers)) + 1, 1, k)."""
    switch = math.floor(math.log2(max(float(producers), 1.0)) + 0.5) + 1  # round half up, as in JS
    return min(max(switch, 1), played)


def infer(previous: Payload, limit: int) -> Plan:
    """The opponent's plan in a finished round, from its final counts (spec 10.5, *Inference*).

    The switch is clamp(round(log2(them.producers)) + 1, 1, k) if it has soldiers, else that round's L;
    the attack turn is k if it attacked. An attack without soldiers gives (L, k) with k < L: not one of
    our plans, but a well-defined one to simulate.
    """
    played = int(previous["turnsPlayed"])
    them = previous["them"]
    switch = producer_switch(them["producers"], played) if them["soldiers"] > 0 else limit
    return switch, (played if them["launchedAttack"] else None)


def clamp_plan(plan: Plan, limit: int) -> Plan:
    """A stored plan under a new turn limit: turns above L become L, an attack above L becomes none."""
    s, a = plan
    return min(s, limit), (a if a is not None and a <= limit else None)


def _hit(predicted: Plan, previous: Payload) -> bool:
    """Did `predicted` get right both 'soldiers > 0 at turn k' and 'attacked on turn k'?"""
    played = int(previous["turnsPlayed"])
    them = previous["them"]
    soldiers_right = (played >= predicted[0]) == (them["soldiers"] > 0)
    attack_right = (predicted[1] == played) == bool(them["launchedAttack"])
    return soldiers_right and attack_right


class _Table:
    """Outcomes of our plans against opponent plans, for one (L, bonus), filled in column by column.

    An opponent plan need not be one of ours: an attack without soldiers infers (L, k) with k < L.
    """

    __slots__ = ("bonus", "columns", "limit", "options", "rules")

    def __init__(self, limit: int, bonus: int, rules: str) -> None:
        self.limit, self.bonus, self.rules = limit, bonus, rules
        self.options = plans(limit)
        self.columns: dict[Plan, list[float]] = {}

    def column(self, theirs: Plan) -> list[float]:
        """outcome(mine, theirs) for each of our plans, in enumeration order."""
        column = self.columns.get(theirs)
        if column is None:
            column = [outcome(mine, theirs, self.limit, self.rules, self.bonus) for mine in self.options]
            self.columns[theirs] = column
        return column


class Tactician:
    """The plan-choosing starter bot. In-process: `setup`, `act`, `end`."""

    meta: ClassVar[Payload] = {"name": "Tactician", "author": "botarena"}

    def __init__(self) -> None:
        self.random = Mulberry32(0)
        self.rules = "seed"
        self.history: deque[Plan] = deque(maxlen=HISTORY)
        self.h_repeat = 0.0
        self.h_mirror = 0.0
        self.round = 0
        self.limit = 0
        self.plan: Plan = (1, None)
        self.my_last_attack: int | None = None  # our attack turn in the previous round, if any
        self.mirror: Plan | None = None  # the mirror prediction made for the current round
        self.repeat: Plan | None = None  # the repeat prediction made for the current round
        self._tables: dict[tuple[int, int], _Table] = {}

    # -- platform calls ----------------------------------------------------------------------------
    def setup(self, start: Payload) -> Payload:
        self.random = Mulberry32(int(start.get("playerSeed", 0)))
        self.rules = "bravolt2018" if start.get("rules") == "bravolt2018" else "seed"
        return {"meta": dict(self.meta)}

    def act(self, obs: Payload) -> Payload:
        if obs["round"] != self.round:
            self._new_round(obs)
        turn = obs["turn"]
        capacity = obs["producers"]
        s, a = self.plan
        if turn < s:
            return {"newProducers": capacity, "newSoldiers": 0, "launchAttack": False}
        return {"newProducers": 0, "newSoldiers": capacity, "launchAttack": turn == a}

    def end(self, result: Payload) -> Payload:
        return {}

    # -- one decision per round --------------------------------------------------------------------
    def _table(self, limit: int, bonus: int) -> _Table:
        key = (limit, bonus)
        table = self._tables.get(key)
        if table is None:
            table = self._tables[key] = _Table(limit, bonus, self.rules)
        return table

    def _learn(self, previous: Payload) -> None:
        """Update the hit rates and the history from the round that just ended."""
        if self.repeat is not None:
            self.h_repeat = DECAY * self.h_repeat + (1 - DECAY) * _hit(self.repeat, previous)
        if self.mirror is not None:
            self.h_mirror = DECAY * self.h_mirror + (1 - DECAY) * _hit(self.mirror, previous)
        self.history.append(infer(previous, self.limit))
        self.my_last_attack = int(previous["turnsPlayed"]) if previous["you"]["launchedAttack"] else None

    def _new_round(self, obs: Payload) -> None:
        previous = obs.get("previousRound")
        if previous is not None and self.round > 0:
            self._learn(previous)
        self.round = obs["round"]
        limit = int(obs["turnLimit"])
        if limit != self.limit:
            self.history = deque((clamp_plan(p, limit) for p in self.history), maxlen=HISTORY)
        self.limit = limit
        mirror_switch = self.my_last_attack if self.my_last_attack is not None else limit
        self.mirror = (min(mirror_switch, limit), None)
        self.repeat = self.history[-1] if self.history else None
        if not self.history:
            self.plan = (limit - 2, limit - 1) if limit >= 3 else (1, None)
            return
        table = self._table(limit, int(obs["defenderBonus"]))
        if self.random.random() < EXPLORE:
            s = math.floor(self.random.random() * limit) + 1
            pick = math.floor(self.random.random() * (limit - s + 2))
            self.plan = (s, None if pick == 0 else s + pick - 1)
            return
        self.plan = self._best(table)

    def _best(self, table: _Table) -> Plan:
        columns = [table.column(plan) for plan in self.history]
        mirror = table.column(self.mirror) if self.mirror is not None else None
        count = len(columns)
        h_repeat, h_mirror = self.h_repeat, self.h_mirror
        weight = h_repeat + h_mirror
        best: tuple[float, float] | None = None
        choice = table.options[0]
        for i, plan in enumerate(table.options):
            expected = sum(column[i] for column in columns) / count
            if weight > 0 and mirror is not None:
                value = (h_repeat * expected + h_mirror * mirror[i]) / weight
            else:
                value = expected
            key = (value, expected)
            if best is None or key > best:  # strictly better: earlier plans win full ties
                best, choice = key, plan
        return choice
