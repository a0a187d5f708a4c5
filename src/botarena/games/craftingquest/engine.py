"""The Crafting Quest 2 engine: turn flow (spec CQ-28 to CQ-35, CQ-49, CQ-50) on top of rules.py.

A turn is a chain of single-request batches (one action, one `result`), as the runner's late-reply
contract describes (`botarena.core.game.Engine`): the engine opts in with `late_replies`, so a timed
out question leaves its seat *owing* the answer, and `late_reply` takes that answer when it arrives.

Each batch's step record is the spec 7.4 log entry of the event its reply caused, plus `state` (all
units, credits, towers, and the cells changed since the previous step). Events that happen between
batches (a skipped turn, a late action applied at a turn start, a discarded late answer) have no
reply of their own: they ride in the next step's record under `before`, each with its own `state`,
in the order they happened.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any, ClassVar, Self

from botarena.core.game import Engine, MatchResult, Step, deepcopy_sharing
from botarena.core.protocol import DISCONNECTED, MessageType, Reply, Request, Verdict
from botarena.core.rng import bot_seed
from botarena.core.status import Reason, Status
from botarena.games.craftingquest.actions import ActionError, parse_action, unknown_action_keys
from botarena.games.craftingquest.config import GAME_ID, CraftingQuestConfig
from botarena.games.craftingquest.geometry import PLAYERS, Cell
from botarena.games.craftingquest.observe import (
    echo,
    end_payload,
    error_json,
    findings_json,
    json_copy,
    keyframe_json,
    result_json,
    start_payload,
    state_json,
    team_parts,
    turn_start_json,
    winner,
)
from botarena.games.craftingquest.rules import Outcome, apply_action, setup, start_turn
from botarena.games.craftingquest.scenario import Scenario
from botarena.games.craftingquest.state import GameState

# log kinds (spec 7.4) and reasons (5.5)
ACTION, LATE_ACTION, END_TURN = "action", "late_action", "end_turn"
LATE_DISCARDED, TIMEOUT, LIMIT, NO_ANSWER = "late_discarded", "timeout", "limit", "no_answer"
ACTION_LIMIT, LATE, ANSWER_OWED = "action_limit", "late", "answer_owed"
_DEAD_REASONS = frozenset({Reason.PROCESS_EXITED, DISCONNECTED})


class _Unreadable:
    """A late answer that was not a readable line (INVALID): applied as an OperandError (5.4)."""


UNREADABLE = _Unreadable()


def _seat(player: int) -> int:
    return player - 1


def _player(seat: int) -> int:
    return seat + 1


class CraftingQuestEngine(Engine[CraftingQuestConfig]):
    """One game of Crafting Quest 2 between seats 0 and 1 (players 1 and 2)."""

    late_replies: ClassVar[bool] = True

    def __init__(self, config: CraftingQuestConfig, seed: int, num_players: int = 2) -> None:
        if num_players != 2:
            raise ValueError(f"craftingquest needs 2 players, got {num_players}")
        scenario, state = setup(config, seed)
        self.scenario: Scenario = scenario
        # The effective config carries the complete CQ-26 scenario (which overrides map, width and
        # height), so the replay holds it (7.4) and a re-run rebuilds this very game without
        # generating it again, or reading a preset's map file.
        self.config: CraftingQuestConfig = dataclasses.replace(
            config, scenario=scenario.to_json(), width=scenario.width, height=scenario.height
        )
        self.state: GameState = state
        self.seed = seed
        self.round = 1
        self.player = 1
        self.over = False
        self.actions_used = 0
        self.outgoing: dict[str, Any] | None = None  # the `result` still to send this turn
        self.outgoing_awaited = True
        self.asked_awaited = True  # whether the last question was sent awaiting its answer
        self.owes: dict[int, str | None] = {p: None for p in PLAYERS}  # "setup" or "turn"
        self.dead: dict[int, str | None] = {p: None for p in PLAYERS}  # the transport's reason
        self.queued: dict[int, Any] = {}  # CQ-33: at most one late action per player
        self.pending: list[dict[str, Any]] = []  # events since the last step (`before`)
        self.dirty: set[Cell] = set()  # cells changed since the last step
        self.event_cells: set[Cell] = set()  # cells changed by the event being logged
        self.frozen: dict[str, Any] | None = None  # keyframe parts as of the last step (see keyframe)

    def clone(self) -> Self:
        """`Engine.clone`: units, teams, buried deposits, piles, towers and the turn's bookkeeping are
        copied; the config (with its scenario), the scenario and the state's fixed layers taken from
        it (terrain, camps, the blueprint catalogue, the deposits' vectors) are shared. The buried
        deposits (cell -> {item: count}, thousands on a big map) are copied by a comprehension,
        many times faster than deepcopy's walk over them."""
        buried = {cell: dict(items) for cell, items in self.state.buried.items()}
        return deepcopy_sharing(self, self.clone_shared(), {id(self.state.buried): buried})

    def clone_shared(self) -> Iterable[object]:
        state = self.state
        return (self.config, self.scenario, state.terrain, state.camps, state.catalogue, state.vectors)

    # -- requests ------------------------------------------------------------------------------------

    def _limits(self) -> tuple[int, Any, int]:
        """(timeout_ms, chain, chain_budget_ms) of a turn's question: CQ-31 timed, CQ-35 untimed."""
        config = self.config
        if config.turn_budget_ms == 0:
            return config.turn_timeout_ms, None, 0
        budget = config.turn_budget_ms + config.turn_grace_ms
        return budget, (self.round, self.player), budget

    def _question(self, payload: dict[str, Any], awaited: bool) -> Request:
        timeout_ms, chain, budget = self._limits()
        self.asked_awaited = awaited
        return Request(
            seat=_seat(self.player),
            payload=payload,
            timeout_ms=timeout_ms,
            type=MessageType.TURN,
            turn=self.round,
            chain=chain,
            chain_budget_ms=budget,
            await_reply=awaited,
        )

    def start_requests(self) -> list[Request]:
        """CQ-28: `setup` to both players at once."""
        return [
            Request(
                seat=_seat(p),
                payload=start_payload(self.state, self.config, p, bot_seed(self.seed, GAME_ID, _seat(p))),
                timeout_ms=self.config.setup_timeout_ms,
                type=MessageType.START,
            )
            for p in PLAYERS
        ]

    def apply_start(self, replies: list[Reply]) -> list[Verdict]:
        """CQ-28: the content of an answer is ignored; a missing answer is owed (CQ-34)."""
        verdicts = []
        for reply in replies:
            player = _player(reply.seat)
            if reply.status is Status.TIMEOUT:
                self.owes[player] = "setup"
            elif reply.status is Status.CRASHED and reply.reason in _DEAD_REASONS:
                self.dead[player] = reply.reason
            verdicts.append(_exchange_verdict(reply))
        return verdicts

    def next_requests(self) -> list[Request]:
        """The next question: the open turn's `result`, or the next turn's `turn_start` (CQ-29, CQ-30);
        skipped turns (CQ-34) are logged on the way. [] once the game is over (CQ-49, CQ-50)."""
        while not self.over:
            if self.outgoing is not None:
                return [self._question(self.outgoing, self.outgoing_awaited)]
            request = self._begin_turn()
            if request is not None:
                self.frozen = None  # only a call that ends the game keeps the snapshot
                return [request]
        return []

    def _begin_turn(self) -> Request | None:
        """CQ-30, in its order: energy, a queued late action, the owed-answer skip, `turn_start`."""
        player = self.player
        if self.dead[1] and self.dead[2]:
            self._freeze()
            self.over = True  # CQ-50: nothing can change any more
            return None
        self._freeze()
        start_turn(self.state, self.config, player)
        late = None
        if player in self.queued:
            late, _ = self._perform(self.queued.pop(player), LATE_ACTION)
        dead = self.dead[player]
        if dead is not None:
            self._log(NO_ANSWER, Status.CRASHED, dead)
            self._advance()
            return None
        if self.owes[player] is not None:
            self._log(NO_ANSWER, Status.TIMEOUT, ANSWER_OWED)
            self._advance()
            return None
        actions_left = self.config.max_actions_per_turn - self.actions_used
        payload = turn_start_json(self.state, self.config, player, self.round, late, actions_left)
        # CQ-31: with no action left the turn has closed when turn_start is sent
        return self._question(payload, awaited=actions_left > 0)

    def _advance(self) -> None:
        """Close the turn (CQ-32: nothing is applied) and move to the next one; the game ends after
        player 2's turn in the last round, dropping queued late actions (CQ-49)."""
        self.actions_used = 0
        self.outgoing = None
        self.outgoing_awaited = True
        if self.player == 1:
            self.player = 2
        else:
            self.player = 1
            self.round += 1
        if self.round > self.state.rounds:
            self.over = True
            self.queued.clear()

    # -- replies ---------------------------------------------------------------------------------------

    def apply(self, replies: list[Reply]) -> Step:
        """CQ-31: the answer to the last question, handled at once."""
        (reply,) = replies
        self.frozen = None
        before, self.pending = self.pending, []
        self.outgoing = None
        if not self.asked_awaited:
            event = self._closed_at_limit(reply)
        elif reply.status is Status.TIMEOUT:
            self.owes[self.player] = "turn"  # CQ-35 untimed, or the deadline of CQ-31
            event = self._log(TIMEOUT, Status.TIMEOUT, Reason.DEADLINE, pending=False)
            self._advance()
        elif reply.status is Status.CRASHED:
            event = self._crashed(reply)
        elif reply.status is Status.OK and _is_end_turn(reply.payload):
            event = self._log(END_TURN, Status.OK, None, request=json_copy(reply.payload), pending=False)
            self._advance()
        else:
            answer = reply.payload if reply.status is Status.OK else UNREADABLE
            event = self._act(answer)
        record = dict(event)
        record["state"] = self._state_json(self.dirty)
        if before:
            record["before"] = before
        self.dirty = set()
        # an unreadable line is the game's OperandError (5.5); the transport's reason stays as detail
        detail = reply.reason if reply.status is Status.INVALID else None
        warnings = list(reply.warnings)
        if reply.status is Status.OK:
            warnings += unknown_action_keys(reply.payload)
        verdict = Verdict(reply.seat, Status(event["status"]), event["reason"], warnings, detail)
        return Step(record, [verdict])

    def _act(self, answer: Any) -> dict[str, Any]:
        """An in-time action (CQ-36 to CQ-46) and its `result`; the reply to the
        `max_actions_per_turn`-th request closes the turn (CQ-31), so it is not awaited."""
        result, event = self._perform(answer, ACTION, pending=False)
        self.outgoing = result
        self.outgoing_awaited = result["actions_left"] > 0
        return event

    def _closed_at_limit(self, reply: Reply) -> dict[str, Any]:
        """The question sent with `actions_left: 0` (CQ-31): its turn had closed, so whatever comes
        back is late (CQ-33); a transport that waited for it anyway hands it over here."""
        event = self._log(LIMIT, Status.OK, ACTION_LIMIT, pending=False)
        self._advance()
        self.owes[_player(reply.seat)] = "turn"
        if reply.status is not Status.TIMEOUT:
            self.late_reply(reply)
        return event

    def _crashed(self, reply: Reply) -> dict[str, Any]:
        """No answer: the process died (its turns are skipped from now on, 5.4), or an in-process
        bot raised (`bot_error`: that bot lives on and is asked again next turn). The turn closes."""
        player = self.player
        if reply.reason in _DEAD_REASONS:
            self.dead[player] = reply.reason
        event = self._log(NO_ANSWER, Status.CRASHED, reply.reason, pending=False)
        self._advance()
        return event

    def late_reply(self, reply: Reply) -> None:
        """CQ-33: an owed answer arrived. A late `end_turn` or `setup` answer is discarded; a late
        action is queued for the player's next turn start; a dead bot's turns are skipped (CQ-34)."""
        player = _player(reply.seat)
        owed, self.owes[player] = self.owes[player], None
        if self.over:
            return  # CQ-49: nothing is applied after the end
        if reply.status is Status.CRASHED:
            if reply.reason in _DEAD_REASONS:
                self.dead[player] = reply.reason
            return
        if reply.status is not Status.OK:
            answer: Any = UNREADABLE
        else:
            answer = reply.payload
        if owed == "setup" or _is_end_turn(answer):
            request = echo(answer)
            self._log(LATE_DISCARDED, Status.OK, LATE, player=player, request=request)
            return
        self.queued[player] = answer

    # -- applying an action ------------------------------------------------------------------------------

    def _perform(self, answer: Any, kind: str, pending: bool = True) -> tuple[dict[str, Any], dict[str, Any]]:
        """Shape checks (5.2), then the rule (CQ-36 to CQ-46); returns the `result` payload (4.4) and
        the logged event. Every answer counts towards the action limit (5.4)."""
        player = self.player
        self.actions_used += 1
        if isinstance(answer, _Unreadable):
            parsed: Any = ActionError("OperandError", "the answer is not a readable JSON line")
        else:
            parsed = parse_action(answer, player, self.config.max_quantity)
        if isinstance(parsed, ActionError):
            outcome = Outcome(error=(parsed.code, parsed.reason))
            unit_id = parsed.unit
            status, reason = Status.INVALID, parsed.code
        else:
            outcome = apply_action(self.state, self.config, player, parsed)
            unit_id = parsed.unit
            status, reason = Status.OK, None
        self.event_cells = set(outcome.cells)
        self.dirty |= outcome.cells
        actions_left = self.config.max_actions_per_turn - self.actions_used
        request = answer if isinstance(answer, dict) else None
        result = result_json(
            self.state, self.config, player, self.round, request, unit_id, outcome, actions_left
        )
        event = self._log(
            kind, status, reason, request=json_copy(request), result=_outcome_json(outcome), pending=pending
        )
        return result, event

    # -- the log (7.4) and the viewer's state ------------------------------------------------------------

    def _log(
        self,
        kind: str,
        status: Status,
        reason: str | None,
        *,
        player: int | None = None,
        request: Any = None,
        result: dict[str, Any] | None = None,
        pending: bool = True,
    ) -> dict[str, Any]:
        """One log entry; with `pending` it waits (with its own state) for the next step's `before`."""
        who = self.player if player is None else player
        entry: dict[str, Any] = {
            "round": self.round,
            "player": who,
            "seat": _seat(who),
            "kind": kind,
            "status": status.value,
            "reason": reason,
            "request": request,
            "result": result,
        }
        if pending:
            self.pending.append({**entry, "state": self._state_json(self.event_cells)})
        self.event_cells = set()
        return entry

    def _freeze(self) -> None:
        """Keep the keyframe parts that a turn start may change, as they were at the last step.

        The runner takes the final keyframe after the `next_requests()` that ended the game, a re-run
        (runner/verify.py) right after the last step; turns skipped in between (their energy resets)
        must not make them differ."""
        if self.frozen is None:
            self.frozen = self._team_parts()

    def _team_parts(self) -> dict[str, Any]:
        round_no, player = self.round, self.player
        if round_no > self.state.rounds:  # over: show the last turn, not the one after it
            round_no, player = self.state.rounds, 2
        return team_parts(self.state, round_no, player)

    def _state_json(self, cells: set[Cell]) -> dict[str, Any]:
        return state_json(self.state, cells)

    def keyframe(self) -> dict[str, Any]:
        """The full visible-to-a-spectator state (hidden layers included: the viewer may show them),
        its turn parts as of the last step (`_freeze`)."""
        return keyframe_json(self.state, self.frozen if self.frozen is not None else self._team_parts())

    # -- the end -------------------------------------------------------------------------------------------

    def end_requests(self) -> list[Request]:
        """CQ-49: `game_over` to every seat whose bot is alive, owing or not (CQ-34, 7.2)."""
        timeout_ms = self.config.turn_budget_ms + self.config.turn_grace_ms
        if self.config.turn_budget_ms == 0:
            timeout_ms = self.config.turn_timeout_ms
        return [
            Request(_seat(p), end_payload(self.state), timeout_ms, MessageType.END, turn=self.round)
            for p in PLAYERS
            if self.dead[p] is None
        ]

    def apply_end(self, replies: list[Reply]) -> list[Verdict]:
        """5.5: the `game_over` exchange gets a status; it changes nothing."""
        return [_exchange_verdict(reply) for reply in replies]

    def result(self) -> MatchResult:
        """Spec 6: ranked by final credit, equal credit a draw."""
        credits = [self.state.teams[p].credit for p in PLAYERS]
        ranks = [1 + sum(other > mine for other in credits) for mine in credits]
        return MatchResult(
            ranks=ranks,
            scores=[float(c) for c in credits],
            details={
                "credits": {str(p): c for p, c in zip(PLAYERS, credits, strict=True)},
                "winner": winner(self.state),
            },
        )


def _exchange_verdict(reply: Reply) -> Verdict:
    """5.5 for `setup` and `game_over`: OK for a JSON object in time, INVALID for anything else."""
    if reply.status is Status.OK and not isinstance(reply.payload, dict):
        return Verdict(reply.seat, Status.INVALID, Reason.NOT_OBJECT, list(reply.warnings))
    return Verdict(reply.seat, reply.status, reply.reason, list(reply.warnings))


def _outcome_json(outcome: Outcome) -> dict[str, Any]:
    """7.4: the log's `result`: ok, error, energy_spent, drained, and dig or scan when present."""
    return {
        "ok": outcome.ok,
        "error": error_json(outcome),
        "energy_spent": outcome.energy_spent,
        "drained": [dict(d) for d in outcome.drained],
        **findings_json(outcome),
    }


def _is_end_turn(answer: Any) -> bool:
    """CQ-47: `{"action": "end_turn"}` (extra fields are ignored, 5.1)."""
    return isinstance(answer, dict) and answer.get("action") == "end_turn"
