"""The GameOfDrones engine: who is asked what, replies into actions into the rules' phases, records.

The rules themselves (GD-1 .. GD-26) are the phase functions of `rules.py`; this module sequences
them over a match's exchanges (spec 5.4) and writes the turn, round and match records (spec 3.6).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from botarena.core.game import Engine, MatchResult, Step
from botarena.core.protocol import MessageType, Reply, Request, Verdict
from botarena.core.rng import stream
from botarena.core.status import Reason, Status, Warning
from botarena.games.drones import rules
from botarena.games.drones.actions import HOOK_ERROR, as_payload, error_text, judge_bravolt, judge_seed
from botarena.games.drones.config import DronesConfig
from botarena.games.drones.observe import end_payload, round_view, start_payload, turn_observation


class DronesEngine(Engine[DronesConfig]):
    """One GameOfDrones match between two seats."""

    def __init__(self, config: DronesConfig, seed: int, num_players: int = 2) -> None:
        if num_players != 2:
            raise ValueError(f"drones needs exactly 2 players, got {num_players}")  # GD-1
        self.config: DronesConfig = config
        self.seed = seed
        self.seed_streams: dict[str, Any] = {}  # GD-3: created on first use; tests may stub them
        self.state = rules.setup()
        self._judge = judge_seed if config.rules == "seed" else judge_bravolt
        self._produce = rules.produce_seed if config.rules == "seed" else rules.produce_bravolt
        self._timeout_ms = config.turn_timeout_ms

    # -- randomness ------------------------------------------------------------------------------
    def rng(self, name: str) -> np.random.Generator:
        """The named stream `name` of this match (GD-3), created lazily."""
        generator = self.seed_streams.get(name)
        if generator is None:
            generator = self.seed_streams[name] = stream(self.seed, name)
        return generator  # type: ignore[no-any-return]

    # -- start (GD-4, GD-5, spec 5.4) ------------------------------------------------------------
    def start_requests(self) -> list[Request]:
        timeout = self.config.setup_timeout_ms
        return [
            Request(
                seat,
                start_payload(self.config, rules.player_seed(self.config, self.seed, seat)),
                timeout,
                MessageType.START,
            )
            for seat in (0, 1)
        ]

    def apply_start(self, replies: list[Reply]) -> list[Verdict]:
        verdicts = [self._judge_start(reply) for reply in replies]
        rules.begin_round(self.state, self.config, self.rng)
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

    # -- turns (GD-9 .. GD-17) and clashes (GD-18 .. GD-24) --------------------------------------
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
        for reply in replies:  # GD-10: judge; GD-11 .. GD-16: produce
            side = state.sides[reply.seat]
            action, verdict = self._judge(reply)
            rules.produce(side, action, self._produce, verdict.warnings)
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
        trigger = rules.clash_trigger(state)  # GD-17
        if trigger is None:
            state.turn += 1
        else:
            record["roundResult"] = self._end_round(trigger)
        return Step(record, verdicts)

    def _end_round(self, trigger: str) -> dict[str, Any]:
        """GD-18 .. GD-22 through the rules, GD-23 (each side is told the round), GD-24 (next round)."""
        state = self.state
        record = rules.end_round(state, self.config, trigger, self.rng)
        for seat, side in enumerate(state.sides):
            side.previous_round = round_view(record, seat)
        rules.begin_round(state, self.config, self.rng)
        return record

    # -- match end (GD-25, spec 4.4) -------------------------------------------------------------
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
        """GD-25 and the match record (spec 3.6), with each bot's meta."""
        one, two = self.state.sides
        outcome, ranks = rules.match_outcome(self.state)
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
        """The state as the replay stores it every `keyframe_every` steps (`text.keyframe_text` draws it)."""
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
