"""The Devops Game engine: which factions are asked what, their replies through `actions.py` into the
phases of `rules.py`, the step records, the result and the keyframes (spec sections 3, 5, 6, 12).

One turn is one batch of requests: for every undefeated faction in ascending id, its base call, then
one unit call per unit in ascending unit id (DV-16). The requests of one faction share a chain and
`turn_budget_ms` (DV-17), so sequential transports send them in that order and a concurrent one
(`botarena.bots.devops_http`) may run the unit calls in parallel.

The engine is plain data, single-threaded: bonus-code redemptions (spec 7.5) arrive through
`queue_redemption`, which a live server calls under its own lock between the engine's phases.
"""

from __future__ import annotations

from typing import Any

from botarena.core.config import ConfigError
from botarena.core.game import Engine, MatchResult, Step
from botarena.core.protocol import MessageType, Reply, Request, Verdict
from botarena.core.rng import bot_seed, stream
from botarena.core.status import Status, Warning, unknown_key_warnings
from botarena.games.devops import actions, rules
from botarena.games.devops.actions import IDLE_BASE, IDLE_UNIT, BaseMove, Move, UnitMove
from botarena.games.devops.config import GAME_ID, INVALID_MOVE_REASONS, UNIT_MOVE_TYPES, DevopsConfig
from botarena.games.devops.observe import base_input, effective_unit_cost, population_cap, unit_input
from botarena.games.devops.state import Board, Faction, Unit
from botarena.games.devops.vocabulary import OutcomeKind

Call = dict[str, Any]


class DevopsEngine(Engine[DevopsConfig]):
    """One Devops Game between N factions (seat s is faction s + 1)."""

    def __init__(self, config: DevopsConfig, seed: int, num_players: int = 2) -> None:
        if not 2 <= num_players <= 64:
            raise ConfigError(f"devops needs 2-64 factions, got {num_players}")
        self.config = config
        self.seed = seed
        self.n = num_players
        self.order_rng = stream(seed, "devops.order")
        if config.game_id:
            self.game_id = config.game_id
        else:
            draw = int(stream(seed, "devops.game_id").integers(0, 2**48))
            self.game_id = f"devops-{draw:012x}"
        self.state = rules.setup(config, num_players, stream(seed, "devops.setup"))
        self.state.dirty.clear()  # keyframe 0 shows the setup
        self._pending: list[tuple[int, int]] = []  # per request: (faction id, unit id or 0 for base)
        self._pending_gold: dict[int, int] = {}
        self._activations: list[dict[str, Any]] = []
        # Spec 7.5: accepted redemptions wait here; the next turn's start takes them into the
        # factions' queues (DV-20) and its step record lists them
        self._inbox: list[dict[str, Any]] = []
        self._taken: list[dict[str, Any]] = []
        # The started turn's requests: `next_requests` is a query, so asking twice must not start
        # a second turn (DV-13's upkeep would be charged twice); `apply` ends the turn and clears it.
        self._requests: list[Request] | None = None

    def set_player_names(self, names: list[str]) -> None:
        """DV-6: each faction's `name` is its bot's display name (the runner calls this)."""
        for faction, name in zip(self.state.factions, names, strict=False):
            faction.name = str(name)

    # -- start -----------------------------------------------------------------------------------
    def start_requests(self) -> list[Request]:
        return [
            Request(
                seat,
                {
                    "factionId": seat + 1,
                    "gameId": self.game_id,
                    "bot_seed": bot_seed(self.seed, GAME_ID, seat),
                },
                self.config.setup_timeout_ms,
                MessageType.START,
            )
            for seat in range(self.n)
        ]

    def apply_start(self, replies: list[Reply]) -> list[Verdict]:
        """Spec 7.2: the start exchange records its own status and costs nothing."""
        return [Verdict(r.seat, r.status, r.reason, list(r.warnings)) for r in replies]

    # -- bonus codes (spec 7.5) ------------------------------------------------------------------
    def queue_redemption(self, faction_id: int, bonus_type: str, valid_until_turn: int) -> int:
        """Spec 7.5: an accepted redemption, activated by DV-20 in the next turn that starts; returns
        that turn (`activatesAtTurn`). Not thread-safe: a server calls it under its own lock."""
        self._inbox.append({"faction": faction_id, "type": bonus_type, "validUntilTurn": valid_until_turn})
        return self.state.turn + 1

    def restore_external_inputs(self, record: Any) -> None:
        """Re-running a replay (`botarena.runner.verify`): queue the redemptions that the step record
        of the coming turn says were taken at its start, so DV-20 re-applies them without the codes."""
        taken = record.get("redemptions") if isinstance(record, dict) else None
        if not isinstance(taken, list):
            return
        keys = {"faction": int, "type": str, "validUntilTurn": int}
        self._inbox.extend(  # an edited entry is left out: the re-run then differs at this step
            dict(r)
            for r in taken
            if isinstance(r, dict)
            and set(r) == set(keys)
            and all(isinstance(r[k], kind) for k, kind in keys.items())
            and 1 <= r["faction"] <= self.n
        )

    def restore_pending_inputs(self, events: Any) -> None:
        """Resuming a killed game: queue again the redemptions the server accepted (its journal's
        `code_redeemed` events) that activate after the last re-run turn; earlier ones are in the
        re-run step records already."""
        turn = self.state.turn
        for event in events:
            if event.get("game") != GAME_ID or event.get("kind") != "code_redeemed":
                continue
            if isinstance(event.get("activatesAtTurn"), int) and event["activatesAtTurn"] > turn:
                self.restore_external_inputs(
                    {"redemptions": [{k: event.get(k) for k in ("faction", "type", "validUntilTurn")}]}
                )

    # -- turn start and gather (DV-13 .. DV-20) --------------------------------------------------
    def next_requests(self) -> list[Request]:
        if self.state.finished:
            return []
        if self._requests is None:
            self._requests = self._start_turn()
        return list(self._requests)

    def _start_turn(self) -> list[Request]:
        """DV-13 .. DV-20: the next turn begins (its number, the redemptions, upkeep) and its calls are
        gathered; done once per turn, on the first `next_requests` after the previous `apply`."""
        state = self.state
        state.turn += 1
        self._taken = [r for r in self._inbox if not state.faction(r["faction"]).defeated]
        self._inbox = []
        for r in self._taken:
            state.faction(r["faction"]).queued.append(
                {"type": r["type"], "validUntilTurn": r["validUntilTurn"]}
            )
        rules.start_turn(state, self.config)
        self._activations = []
        return self._gather(state.turn)

    def _gather(self, t: int) -> list[Request]:
        """DV-15, DV-16: each undefeated faction's base call, then its units' calls; DV-20 between."""
        state, c = self.state, self.config
        alive = [f for f in state.factions if not f.defeated]
        units_by_faction: dict[int, list[Unit]] = {f.id: [] for f in alive}
        for unit_id in sorted(state.units):
            unit = state.units[unit_id]
            units_by_faction[unit.owner].append(unit)
        requests: list[Request] = []
        pending: list[tuple[int, int]] = []
        self._pending_gold = {}
        for f in alive:
            self._pending_gold[f.id] = f.gold
            requests.append(
                self._turn_request(f, t, {"call": "base", "input": base_input(state, c, f, self.game_id)})
            )
            pending.append((f.id, 0))
            rules.activate_bonuses(f, c, t, self._activations)  # after the base call, before the units'
            for unit in units_by_faction[f.id]:
                payload = {"call": "unit", "input": unit_input(state, c, f, unit, self.game_id)}
                requests.append(self._turn_request(f, t, payload))
                pending.append((f.id, unit.id))
        self._pending = pending
        return requests

    def _turn_request(self, f: Faction, t: int, payload: dict[str, Any]) -> Request:
        c = self.config
        return Request(f.id - 1, payload, c.turn_timeout_ms, MessageType.TURN, t, (t, f.id), c.turn_budget_ms)

    # -- validation (DV-17 .. DV-19) -------------------------------------------------------------
    def _judge(self, reply: Reply, faction_id: int, unit_id: int) -> actions.Judged:
        if reply.status is not Status.OK:
            return None, reply.status, actions.transport_reason(reply)
        c, state = self.config, self.state
        f = state.faction(faction_id)
        gold = self._pending_gold[faction_id]
        board = state.board
        if unit_id == 0:
            costs = {t: effective_unit_cost(c, f, t) for t in c.unit_cost}
            return actions.judge_base(reply.payload, gold, costs, c.bomb_cost, board.width, board.height)
        unit_type = self._unit_types[unit_id]
        return actions.judge_unit(reply.payload, unit_type, gold, self._move_costs, board.width, board.height)

    def _judge_call(self, reply: Reply, faction_id: int, unit_id: int) -> tuple[Call, Verdict, Move | None]:
        """One call's record entry and verdict, and its move (None: the substitute IDLE, after DV-18)."""
        c = self.config
        move, status, reason = self._judge(reply, faction_id, unit_id)
        f = self.state.faction(faction_id)
        call: Call = {"faction": faction_id, "unit": unit_id or None, "status": status.value}
        invalid_move = status is Status.INVALID and reason in INVALID_MOVE_REASONS
        if invalid_move and c.penalty_invalid == 0:
            # deviation 6 (the seed's rule; `course`): an invalid move that costs nothing is only
            # ignored, a lost turn; that is a game outcome plus a warning, so the status is OK
            call.update(
                status=Status.OK.value, move=None, outcome=OutcomeKind.IGNORED.value, outcomeReason=reason
            )
            f.ignored += 1
            warning: Warning = {"code": str(reason), "detail": f"invalid move ignored: {reason}"}
            return call, Verdict(reply.seat, Status.OK, None, [*reply.warnings, warning]), None
        if status is not Status.OK:
            call["reason"] = reason
            rules.penalise(f, c, status, invalid_move)
            return call, Verdict(reply.seat, status, reason, list(reply.warnings)), None
        call["move"] = actions.move_json(move)
        known = actions.BASE_MOVE_KEYS if unit_id == 0 else actions.UNIT_MOVE_KEYS
        return call, Verdict(reply.seat, Status.OK, None, unknown_key_warnings(reply.payload, known)), move

    # -- resolution and end of turn (DV-21 .. DV-51) ---------------------------------------------
    def apply(self, replies: list[Reply]) -> Step:
        state, c = self.state, self.config
        self._move_costs = {m: c.move_cost(m) for m in UNIT_MOVE_TYPES}
        self._unit_types = {uid: state.units[uid].type for _, uid in self._pending if uid}
        verdicts: list[Verdict] = []
        calls: list[Call] = []
        base_moves: dict[int, tuple[int, BaseMove]] = {}
        unit_moves: dict[int, list[tuple[int, UnitMove, int]]] = {}
        failed = False
        for index, (reply, (faction_id, unit_id)) in enumerate(zip(replies, self._pending, strict=True)):
            call, verdict, move = self._judge_call(reply, faction_id, unit_id)
            failed = failed or "reason" in call  # DV-51's `abort_on_logic_error`: a failed call
            calls.append(call)
            verdicts.append(verdict)
            if unit_id == 0:
                base_moves[faction_id] = (index, move if isinstance(move, BaseMove) else IDLE_BASE)
            else:
                unit_move = move if isinstance(move, UnitMove) else IDLE_UNIT
                unit_moves.setdefault(faction_id, []).append((unit_id, unit_move, index))
        events: list[dict[str, Any]] = list(self._activations)
        order = rules.shuffled(self.order_rng, [f.id for f in state.factions if not f.defeated])  # DV-22
        outcomes = rules.resolve(state, c, order, base_moves, unit_moves, self.order_rng, events)
        self._record_outcomes(calls, outcomes)
        rules.end_turn(state, c, events, failed)
        record = {"turn": state.turn, "order": order, "calls": calls, "events": events, **self._view_delta()}
        if self._taken:  # spec 7.5: the redemptions DV-20 took this turn, so a re-run replays them
            record["redemptions"] = self._taken
            self._taken = []
        self._requests = None
        return Step(record, verdicts)

    def _record_outcomes(self, calls: list[Call], outcomes: dict[int, rules.Outcome]) -> None:
        """Spec 5.2: each OK call's outcome (an ignored invalid move has its own already)."""
        for index, call in enumerate(calls):
            if call["status"] == "OK" and "outcome" not in call:
                outcome, why = outcomes[index]
                call["outcome"] = outcome.value  # the replay holds plain strings
                if why is not None:
                    call["outcomeReason"] = why.value
                    if outcome is OutcomeKind.IGNORED:
                        self.state.faction(call["faction"]).ignored += 1

    def _view_delta(self) -> dict[str, Any]:
        """Spec 12, per step and compact: the tiles changed this turn, every unit and every faction,
        so the viewer can show any step from the latest keyframe plus the records after it.
        tiles: [x, y, owner, base, resource, fortified, bombOwner]; units: [id, owner, type, x, y,
        health, defenseBonus, enlightened]; factions: [id, score, gold, territorySize, population,
        populationCap, kills, bombs, defeatTurn, timeouts, errors]."""
        state, c = self.state, self.config
        board = state.board
        w = board.width
        tiles = [
            [
                t % w,
                t // w,
                board.owner[t],
                board.base[t],
                board.resource[t],
                board.fortified[t],
                board.bomb.get(t, 0),
            ]
            for t in sorted(state.dirty)
        ]
        state.dirty.clear()
        units = [
            [u.id, u.owner, u.type.value, u.x, u.y, u.health, int(u.defense), int(u.enlightened)]
            for _, u in sorted(state.units.items())
        ]
        factions = [
            [
                f.id,
                f.score,
                f.gold,
                f.territory,
                f.population,
                population_cap(c, f),
                f.kills,
                f.bombs,
                f.defeat_turn or 0,
                f.timeouts,
                f.errors,
            ]
            for f in state.factions
        ]
        return {"tiles": tiles, "units": units, "factions": factions}

    # -- end and result (section 6) --------------------------------------------------------------
    def ranking(self) -> list[dict[str, Any]]:
        """Spec 6: the result rows in rank order (ties share the rank)."""
        return rules.ranking(self.state)

    def end_requests(self) -> list[Request]:
        rows = self.ranking()
        return [
            Request(
                seat,
                {"factionId": seat + 1, "results": rows},
                self.config.turn_timeout_ms,
                MessageType.END,
                self.state.turn,
            )
            for seat in range(self.n)
        ]

    def result(self) -> MatchResult:
        rows = self.ranking()
        by_id = {row["factionId"]: row for row in rows}
        ranks = [by_id[i]["rank"] for i in range(1, self.n + 1)]
        scores = [float(by_id[i]["score"]) for i in range(1, self.n + 1)]
        # names are the bots' and already in the replay's players; keep the result re-runnable
        results = [{k: v for k, v in row.items() if k != "name"} for row in rows]
        details = {
            "gameId": self.game_id,
            "turns": self.state.turn,
            "aborted": self.state.aborted,
            "results": results,
        }
        return MatchResult(ranks=ranks, scores=scores, details=details)

    def keyframe(self) -> dict[str, Any]:
        """Spec 12: the omniscient view (names are the replay's players)."""
        state, c = self.state, self.config
        return {
            "turnNumber": state.turn,
            "mapWidth": state.board.width,
            "mapHeight": state.board.height,
            "gameId": self.game_id,
            "tiles": _keyframe_tiles(state.board),
            "units": [_keyframe_unit(u) for _, u in sorted(state.units.items())],
            "factions": [_keyframe_faction(c, f) for f in state.factions],
        }


def _keyframe_tiles(board: Board) -> list[dict[str, Any]]:
    """The tiles that differ from a plain neutral one."""
    tiles = []
    w = board.width
    for tile in range(w * board.height):
        owner = board.owner[tile]
        bomb = board.bomb.get(tile)
        if owner or board.base[tile] or board.resource[tile] or board.fortified[tile] or bomb:
            tiles.append(
                {
                    "x": tile % w,
                    "y": tile // w,
                    "owner": owner or None,
                    "base": bool(board.base[tile]),
                    "resource": bool(board.resource[tile]),
                    "fortified": bool(board.fortified[tile]),
                    "bombOwner": bomb,
                }
            )
    return tiles


def _keyframe_unit(u: Unit) -> dict[str, Any]:
    return {
        "id": u.id,
        "owner": u.owner,
        "type": u.type.value,
        "x": u.x,
        "y": u.y,
        "health": u.health,
        "defenseBonus": u.defense,
        "enlightened": u.enlightened,
    }


def _keyframe_faction(c: DevopsConfig, f: Faction) -> dict[str, Any]:
    return {
        "id": f.id,
        "base": {"x": f.base[0], "y": f.base[1]},
        "gold": f.gold,
        "bombs": f.bombs,
        "territorySize": f.territory,
        "population": f.population,
        "populationCap": population_cap(c, f),
        "kills": f.kills,
        "score": f.score,
        "defeated": f.defeated,
        "currentUpkeep": f.upkeep,
        "defeatTurn": f.defeat_turn,
        "timeouts": f.timeouts,
        "errors": f.errors,
        "activeBonuses": sorted(f.bonuses),
    }
