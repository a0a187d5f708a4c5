"""The GameOfDrones engine: a match as named phases in the spec's order (GD-1 .. GD-26)."""

from __future__ import annotations

from typing import Any

import numpy as np

from botarena.core.game import Engine, MatchResult, Step
from botarena.core.protocol import MessageType, Reply, Request, Verdict
from botarena.core.rng import bot_seed, stream
from botarena.core.status import Reason, Status, Warning
from botarena.games.drones.actions import (
    CLAMPED,
    HOOK_ERROR,
    Action,
    Count,
    as_payload,
    error_text,
    judge_bravolt,
    judge_seed,
)
from botarena.games.drones.config import GAME_ID, DronesConfig
from botarena.games.drones.observe import end_payload, round_view, start_payload, turn_observation
from botarena.games.drones.state import DRAW, PLAYER_NAMES, MatchState, Side

TURNS_STREAM = "drones.turns"
TIEBREAK_STREAM = "drones.tiebreak"
ANONYMOUS = {"name": "Anonymous Player"}


def _integral(value: Count) -> Count:
    """Integral floats become ints, so JSON shows `2`, never `2.0` (spec 3.6)."""
    if type(value) is float and value.is_integer():
        return int(value)
    return value


def produce_seed(side: Side, action: Action, warnings: list[Warning]) -> None:
    """GD-12 (seed): integer production, producers served first, capacity read before production."""
    capacity = side.producers
    producers = min(action.producers, capacity)
    soldiers = min(action.soldiers, capacity - producers)
    if producers < action.producers or soldiers < action.soldiers:
        warnings.append(_clamp_warning(action, producers, soldiers))
    side.producers += producers
    side.soldiers += soldiers
    action.producers, action.soldiers = producers, soldiers


def produce_bravolt(side: Side, action: Action, warnings: list[Warning]) -> None:
    """GD-13 (bravolt2018): the original's binary64 steps, one operation at a time, in order."""
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
    requested = f"{_show(action.producers)}+{_show(action.soldiers)}"
    return {"code": CLAMPED, "detail": f"requested {requested}, applied {_show(producers)}+{_show(soldiers)}"}


class DronesEngine(Engine):
    """One GameOfDrones match between two seats."""

    def __init__(self, config: DronesConfig, seed: int, num_players: int = 2) -> None:
        if num_players != 2:
            raise ValueError(f"drones needs exactly 2 players, got {num_players}")  # GD-1
        self.config = config
        self.seed = seed
        self.seed_streams: dict[str, Any] = {}  # GD-3: created on first use; tests may stub them
        self.state = MatchState(sides=(Side(), Side()))
        self._judge = judge_seed if config.rules == "seed" else judge_bravolt
        self._produce = produce_seed if config.rules == "seed" else produce_bravolt
        self._timeout_ms = config.turn_timeout_ms

    # -- randomness ------------------------------------------------------------------------------
    def rng(self, name: str) -> np.random.Generator:
        """The named stream `name` of this match (GD-3), created lazily."""
        generator = self.seed_streams.get(name)
        if generator is None:
            generator = self.seed_streams[name] = stream(self.seed, name)
        return generator  # type: ignore[no-any-return]

    # -- start (GD-4, GD-5) ----------------------------------------------------------------------
    def player_seed(self, seat: int) -> int:
        """GD-4: the seat's playerSeed, the platform's `bot_seed` unless config `player_seeds` names it."""
        if self.config.player_seeds is not None:
            return self.config.player_seeds[seat]
        return bot_seed(self.seed, GAME_ID, seat)

    def start_requests(self) -> list[Request]:
        timeout = self.config.setup_timeout_ms
        return [
            Request(
                seat,
                start_payload(self.config, self.player_seed(seat)),
                timeout,
                MessageType.START,
            )
            for seat in (0, 1)
        ]

    def apply_start(self, replies: list[Reply]) -> list[Verdict]:
        verdicts = [self._judge_start(reply) for reply in replies]
        self._begin_round()
        return verdicts

    def _judge_start(self, reply: Reply) -> Verdict:
        """Spec 5.4, the start exchange: its status, and the bot's meta."""
        side = self.state.sides[reply.seat]
        if reply.status is not Status.OK:
            return Verdict(reply.seat, reply.status, reply.reason, list(reply.warnings))
        payload = reply.payload
        if type(payload) is not dict and not isinstance(payload, dict):
            return Verdict(
                reply.seat, Status.INVALID, Reason.NOT_OBJECT, detail="start reply must be an object"
            )
        warnings: list[Warning] = []
        if "error" in payload:
            if "meta" not in payload:
                return Verdict(
                    reply.seat, Status.CRASHED, Reason.BOT_ERROR, detail=error_text(payload["error"])
                )
            warnings.append({"code": HOOK_ERROR, "detail": error_text(payload["error"])})
        if "meta" in payload:
            side.meta = payload["meta"]
            # The Node adapter sends a meta whose JSON text had a lone surrogate with U+FFFD in its
            # place (so the line is UTF-8) and JSON.stringify's own text in `metaJson` (spec 7.3),
            # which the original MatchResult prints (7.5).
            exact = payload.get("metaJson")
            side.meta_json = exact if isinstance(exact, str) else None
        return Verdict(reply.seat, Status.OK, None, warnings)

    # -- rounds (GD-6 .. GD-8) -------------------------------------------------------------------
    def _begin_round(self) -> None:
        state = self.state
        state.round += 1
        if state.round > self.config.rounds:
            state.finished = True
            return
        state.turn = 1
        state.turn_limit = self._draw_turn_limit()
        for side in state.sides:
            side.reset_round()

    def _draw_turn_limit(self) -> int:
        """GD-7: fixed, or one draw per round from `drones.turns`."""
        span = self.config.turn_limit_range
        if span is None:
            return self.config.turn_limit
        lo, hi = span
        return int(self.rng(TURNS_STREAM).integers(lo, hi + 1))

    # -- turns (GD-9 .. GD-17) -------------------------------------------------------------------
    def next_requests(self) -> list[Request]:
        state = self.state
        if state.finished:
            return []
        timeout, turn, config = self._timeout_ms, state.turn, self.config
        return [
            Request(seat, turn_observation(state, config, side), timeout, MessageType.TURN, turn)
            for seat, side in enumerate(state.sides)
        ]

    def apply(self, replies: list[Reply]) -> Step:
        state = self.state
        players: list[dict[str, Any]] = []
        verdicts: list[Verdict] = []
        for reply in replies:  # GD-10, GD-11 .. GD-15: judge, then produce
            side = state.sides[reply.seat]
            action, verdict = self._judge(reply)
            if action is not None:
                self._produce(side, action, verdict.warnings)
            side.attacked = action is not None and action.attack  # GD-16
            verdicts.append(verdict)
            entry: dict[str, Any] = {
                "status": verdict.status.value,
                "reason": verdict.reason,
                "warnings": verdict.warnings,
                "requested": reply.payload,
                "applied": as_payload(action),
                "producers": side.producers,
                "soldiers": side.soldiers,
            }
            if verdict.detail is not None:
                entry["detail"] = verdict.detail
            players.append(entry)
        record: dict[str, Any] = {"round": state.round, "turn": state.turn, "players": players}
        trigger = self._clash_trigger()
        if trigger is None:
            state.turn += 1
        else:
            record["roundResult"] = self._end_round(trigger)
        return Step(record, verdicts)

    def _clash_trigger(self) -> str | None:
        """GD-17: a lone attack, both attacking, or the turn limit; else the round goes on."""
        one, two = self.state.sides
        if one.attacked and two.attacked:
            return "FIELD"
        if one.attacked or two.attacked:
            return "ATTACK"
        if self.state.turn >= self.state.turn_limit:
            return "TURN_LIMIT"
        return None

    # -- clashes (GD-18 .. GD-21) ----------------------------------------------------------------
    def _resolve(self, trigger: str) -> tuple[str, str]:
        """(outcome, decidedBy) of this turn's clash under the active rule set."""
        one, two = self.state.sides
        if trigger == "ATTACK":
            attacker, defender = (0, 1) if one.attacked else (1, 0)
            bonus = self.config.defender_bonus if self.config.rules == "seed" else 1
            sides = self.state.sides
            if sides[attacker].soldiers > sides[defender].soldiers + bonus:
                return PLAYER_NAMES[attacker], "ATTACK_WON"
            return PLAYER_NAMES[defender], "DEFENCE_HELD"
        if one.soldiers != two.soldiers:
            return PLAYER_NAMES[0 if one.soldiers > two.soldiers else 1], "SOLDIERS"
        if self.config.rules == "bravolt2018":
            return DRAW, "DRAW"
        total_one, total_two = one.producers + one.soldiers, two.producers + two.soldiers
        if total_one != total_two:
            return PLAYER_NAMES[0 if total_one > total_two else 1], "TOTAL_UNITS"
        coin = int(self.rng(TIEBREAK_STREAM).integers(0, 2))
        return PLAYER_NAMES[coin], "RANDOM"

    # -- round end and match end (GD-22 .. GD-25) ------------------------------------------------
    def _end_round(self, trigger: str) -> dict[str, Any]:
        state = self.state
        one, two = state.sides
        outcome, decided_by = self._resolve(trigger)
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
        one.previous_round = round_view(record, 0)
        two.previous_round = round_view(record, 1)
        state.round_results.append(record)
        self._begin_round()
        return record

    def end_requests(self) -> list[Request]:
        timeout = self._timeout_ms
        return [
            Request(seat, end_payload(side), timeout, MessageType.END, self.state.turn)
            for seat, side in enumerate(self.state.sides)
        ]

    def apply_end(self, replies: list[Reply]) -> list[Verdict]:
        """Spec 4.4 and 5.4: the end exchange gets a status like the start's; the result is final.

        A non-object is INVALID (`not_object`); an `error` (a hook that threw) is a HOOK_ERROR
        warning, since the reply itself arrived; any other content is ignored.
        """
        verdicts: list[Verdict] = []
        for reply in replies:
            if reply.status is not Status.OK:
                verdicts.append(Verdict(reply.seat, reply.status, reply.reason, list(reply.warnings)))
                continue
            payload = reply.payload
            if not isinstance(payload, dict):
                detail = "end reply must be an object"
                verdicts.append(Verdict(reply.seat, Status.INVALID, Reason.NOT_OBJECT, detail=detail))
                continue
            warnings: list[Warning] = list(reply.warnings)
            if "error" in payload:
                warnings.append({"code": HOOK_ERROR, "detail": error_text(payload["error"])})
            verdicts.append(Verdict(reply.seat, Status.OK, None, warnings))
        return verdicts

    def result(self) -> MatchResult:
        one, two = self.state.sides
        if one.wins > two.wins:
            outcome, ranks = PLAYER_NAMES[0], [1, 2]
        elif two.wins > one.wins:
            outcome, ranks = PLAYER_NAMES[1], [2, 1]
        else:
            outcome, ranks = DRAW, [1, 1]
        details = {
            "outcome": outcome,
            "roundTotals": {"player1Wins": one.wins, "player2Wins": two.wins, "draws": one.draws},
            "scores": [one.wins, two.wins],
            "meta": [one.meta, two.meta],
        }
        if one.meta_json is not None or two.meta_json is not None:
            details["metaJson"] = [one.meta_json, two.meta_json]
        return MatchResult(ranks=ranks, scores=[float(one.wins), float(two.wins)], details=details)

    def keyframe(self) -> dict[str, Any]:
        state = self.state
        return {
            "round": min(state.round, self.config.rounds),
            "turn": state.turn,
            "turnLimit": state.turn_limit,
            "finished": state.finished,
            "players": [
                {
                    "producers": s.producers,
                    "soldiers": s.soldiers,
                    "wins": s.wins,
                    "losses": s.losses,
                    "draws": s.draws,
                }
                for s in state.sides
            ],
        }
