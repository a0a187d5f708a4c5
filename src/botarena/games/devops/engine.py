"""The Devops Game engine (spec section 3): setup DV-6..DV-12, then per turn DV-13..DV-52 as named
phases in the spec's order. Pure and deterministic: randomness comes only from the named streams of
DV-4, and time and transport belong to the runner.

One turn is one batch of requests: for every undefeated faction in ascending id, its base call, then
one unit call per unit in ascending unit id (DV-16). The requests of one faction share a chain and
`turn_budget_ms` (DV-17), so sequential transports send them in that order and a concurrent one
(`botarena.bots.devops_http`) may run the unit calls in parallel.
"""

from __future__ import annotations

import math
import threading
from typing import Any

import numpy as np

from botarena.core.config import ConfigError
from botarena.core.game import Engine, MatchResult, Step
from botarena.core.protocol import MessageType, Reply, Request, Verdict
from botarena.core.rng import bot_seed, stream
from botarena.core.status import Reason, Status, Warning
from botarena.games.devops import actions
from botarena.games.devops.actions import Move
from botarena.games.devops.config import GAME_ID, INVALID_MOVE_REASONS, UNIT_MOVE_TYPES, DevopsConfig
from botarena.games.devops.observe import (
    base_input,
    effective_unit_cost,
    population_cap,
    unit_input,
)
from botarena.games.devops.state import BASIC_TYPES, Board, Faction, GameState, Unit

START_OFFSETS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1))  # DV-11
TURN_BUDGET = "turn_budget"
TRANSPORT = "transport"
EXCEPTION = "exception"
HTTP_STATUS = "http_status"


def draw_int(g: np.random.Generator, a: int, b: int) -> int:
    """DV-4 "integer in [a, b]"."""
    return a if a == b else int(g.integers(a, b + 1))


def shuffled(g: np.random.Generator, items: list[Any]) -> list[Any]:
    """DV-4 "shuffle L"."""
    if len(items) <= 1:
        return list(items)
    return [items[i] for i in g.permutation(len(items))]


def base_positions(n: int, width: int, height: int, ox: int, oy: int) -> list[tuple[int, int]]:
    """DV-7: P_0 .. P_{N-1}."""
    rows = max(1, min(n, math.floor(math.sqrt(n * height / width) + 0.5)))
    positions = []
    for r in range(rows):
        n_r = n // rows + (1 if r < n % rows else 0)
        y = (oy + ((2 * r + 1) * height) // (2 * rows)) % height
        for i in range(n_r):
            x = (ox + ((2 * i + 1 + (r % 2)) * width) // (2 * n_r)) % width
            positions.append((x, y))
    return positions


def transport_reason(reply: Reply) -> str:
    """Spec 5.2: the reason code of a failed call, from the transport's view of it."""
    status, reason = reply.status, reply.reason
    if status is Status.TIMEOUT:
        return TURN_BUDGET if reason == TURN_BUDGET else Reason.DEADLINE
    if status is Status.CRASHED:
        if reason in (Reason.BOT_ERROR, EXCEPTION):
            return EXCEPTION
        if reason == HTTP_STATUS:
            return HTTP_STATUS
        return TRANSPORT
    return actions.BAD_JSON


class RedemptionLocked(Exception):
    """Spec 7.5, 423: the game is over or the faction is defeated."""


class RedemptionExpired(Exception):
    """Spec 7.5, 410: the current turn is past the code's `validUntilTurn`."""


class DevopsEngine(Engine):
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
        self.state = self._setup(stream(seed, "devops.setup"))
        self.state.dirty.clear()  # keyframe 0 shows the setup
        self._pending: list[tuple[int, int]] = []  # per request: (faction id, unit id or 0 for base)
        self._pending_gold: dict[int, int] = {}
        # Spec 7.5: redemptions accepted by a server thread wait here; the engine takes them at the
        # start of the next turn, under the lock, into the factions' queues (DV-20)
        self._redeem_lock = threading.Lock()
        self._inbox: list[dict[str, Any]] = []
        self._taken: list[dict[str, Any]] = []

    def set_player_names(self, names: list[str]) -> None:
        """DV-6: each faction's `name` is its bot's display name (the runner calls this)."""
        for faction, name in zip(self.state.factions, names, strict=False):
            faction.name = str(name)

    # -- setup (DV-6 .. DV-12) -------------------------------------------------------------------
    def _setup(self, g: np.random.Generator) -> GameState:
        c, n = self.config, self.n
        if c.map_width_min * c.map_height_min < c.min_tiles_per_faction * n:
            raise ConfigError(
                f"map too small for {n} factions: map_width_min*map_height_min must be at least "
                f"min_tiles_per_faction*{n} = {c.min_tiles_per_faction * n}"
            )
        width = draw_int(g, c.map_width_min, c.map_width_max)
        height = draw_int(g, c.map_height_min, c.map_height_max)
        ox = draw_int(g, 0, width - 1)
        oy = draw_int(g, 0, height - 1)
        positions = base_positions(n, width, height, ox, oy)
        order = shuffled(g, list(range(1, n + 1)))  # DV-8
        board = Board(width, height)
        factions = [
            Faction(i, f"faction-{i}", (0, 0), c.starting_gold, c.starting_bombs) for i in range(1, n + 1)
        ]
        state = GameState(board, factions)
        for k, faction_id in enumerate(order):
            factions[faction_id - 1].base = positions[k]
        radius = c.start_territory_radius
        start_tiles: set[int] = set()
        for faction in factions:  # DV-9
            bx, by = faction.base
            board.base[board.index(bx, by)] = 1
            mine = {
                board.index(bx + dx, by + dy)
                for dx in range(-radius, radius + 1)
                for dy in range(-radius, radius + 1)
            }
            if mine & start_tiles:
                raise ConfigError(f"map too small for {n} factions")
            start_tiles |= mine
            for tile in mine:
                state.set_owner(tile, faction.id)
        candidates = [t for t in range(width * height) if t not in start_tiles]  # DV-10, row by row
        k = min(len(candidates), math.floor(c.resource_density * width * height + 0.5))
        if k == len(candidates):
            chosen = candidates
        elif k > 0:
            chosen = [candidates[int(i)] for i in g.choice(len(candidates), size=k, replace=False)]
        else:
            chosen = []
        for tile in chosen:
            board.resource[tile] = 1
        for faction in factions:  # DV-11
            bx, by = faction.base
            for j, unit_type in enumerate(c.starting_units):
                dx, dy = START_OFFSETS[j]
                x, y = (bx + dx) % width, (by + dy) % height
                if board.index(x, y) in board.unit_at:
                    raise ConfigError(f"map too small for {n} factions: starting units collide")
                state.add_unit(
                    faction.id, unit_type, x, y, c.unit_base_health[unit_type], c.unit_upkeep[unit_type]
                )
        return state

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

    # -- turn start and gather (DV-13 .. DV-20) --------------------------------------------------
    def next_requests(self) -> list[Request]:
        state = self.state
        with self._redeem_lock:
            if state.finished:
                return []
            state.turn += 1
            t = state.turn
            self._taken = [r for r in self._inbox if not state.faction(r["faction"]).defeated]
            self._inbox = []
        for r in self._taken:
            state.faction(r["faction"]).queued.append(
                {"type": r["type"], "validUntilTurn": r["validUntilTurn"]}
            )
        c = self.config
        alive = [f for f in state.factions if not f.defeated]
        for f in alive:  # DV-13
            for bonus in [b for b, last in f.bonuses.items() if last < t]:
                del f.bonuses[bonus]
        for f in alive:  # DV-14
            if f.upkeep > 0:
                if f.gold >= f.upkeep:
                    f.gold -= f.upkeep
                else:
                    f.gold = 0
                    f.score -= c.penalty_upkeep
        self._activations: list[dict[str, Any]] = []
        requests: list[Request] = []
        pending: list[tuple[int, int]] = []
        golds: dict[int, int] = {}
        timeout, budget = c.turn_timeout_ms, c.turn_budget_ms
        units_by_faction: dict[int, list[Unit]] = {f.id: [] for f in alive}
        for unit_id in sorted(state.units):
            unit = state.units[unit_id]
            units_by_faction[unit.owner].append(unit)
        for f in alive:  # DV-15, DV-16
            seat, chain = f.id - 1, (t, f.id)
            golds[f.id] = f.gold
            requests.append(
                Request(
                    seat,
                    {"call": "base", "input": base_input(state, c, f, self.game_id)},
                    timeout,
                    MessageType.TURN,
                    t,
                    chain,
                    budget,
                )
            )
            pending.append((f.id, 0))
            self._activate_bonuses(f, t)  # DV-20: after the base call, before the unit inputs
            for unit in units_by_faction[f.id]:
                requests.append(
                    Request(
                        seat,
                        {"call": "unit", "input": unit_input(state, c, f, unit, self.game_id)},
                        timeout,
                        MessageType.TURN,
                        t,
                        chain,
                        budget,
                    )
                )
                pending.append((f.id, unit.id))
        self._pending = pending
        self._pending_gold = golds
        return requests

    def queue_redemption(self, faction_id: int, bonus_type: str, valid_until_turn: int) -> int:
        """Spec 7.5: an accepted redemption, activated by DV-20 in the next turn whose gather phase
        starts after it. Thread-safe; returns that turn (`activatesAtTurn`)."""
        return self.redeem(faction_id, bonus_type, valid_until_turn, check=False)

    def redeem(self, faction_id: int, bonus_type: str, valid_until_turn: int, check: bool = True) -> int:
        """Spec 7.5, thread-safe: with `check`, raises RedemptionLocked (423: game over or faction
        defeated) or RedemptionExpired (410: current turn > `valid_until_turn`), judged atomically
        with the queueing; returns the turn in which DV-20 activates the code."""
        with self._redeem_lock:
            state = self.state
            if check:
                if state.finished or state.faction(faction_id).defeated:
                    raise RedemptionLocked(
                        "the game is over" if state.finished else "the faction is defeated"
                    )
                if state.turn > valid_until_turn:
                    raise RedemptionExpired(
                        f"valid until turn {valid_until_turn}, the game is at turn {state.turn}"
                    )
            self._inbox.append(
                {"faction": faction_id, "type": bonus_type, "validUntilTurn": valid_until_turn}
            )
            return state.turn + 1

    def current_turn(self) -> tuple[int, bool]:
        """Spec 7.5: the highest turn that has started (0 before turn 1), and whether the game is over."""
        with self._redeem_lock:
            return self.state.turn, self.state.finished

    def restore_external_inputs(self, record: Any) -> None:
        """Re-running a replay (`botarena.runner.verify`): queue the redemptions that the step record
        of the coming turn says were taken at its start, so DV-20 re-applies them without the codes."""
        taken = record.get("redemptions") if isinstance(record, dict) else None
        if not isinstance(taken, list):
            return
        keys = {"faction": int, "type": str, "validUntilTurn": int}
        with self._redeem_lock:  # an edited entry is left out: the re-run then differs at this step
            self._inbox.extend(
                dict(r)
                for r in taken
                if isinstance(r, dict)
                and set(r) == set(keys)
                and all(isinstance(r[k], kind) for k, kind in keys.items())
                and 1 <= r["faction"] <= self.n
            )

    def _activate_bonuses(self, f: Faction, t: int) -> None:
        """DV-20."""
        if not self.config.bonus_codes_enabled or not f.queued:
            f.queued = []
            return
        for code in f.queued:
            kind = code["type"]
            if t > code["validUntilTurn"]:
                self._activations.append({"event": "bonus_expired", "faction": f.id, "type": kind})
                continue
            duration = 1 if kind == "EXTRA_GOLD" else self.config.bonus_duration_turns
            f.bonuses[kind] = max(f.bonuses.get(kind, 0), t + duration - 1)
            if kind == "EXTRA_GOLD":
                f.extra_gold_pending = True
            self._activations.append({"event": "bonus_activated", "faction": f.id, "type": kind})
        f.queued = []

    # -- validation (DV-17 .. DV-19) -------------------------------------------------------------
    def _judge(self, reply: Reply, faction_id: int, unit_id: int) -> tuple[Move | None, Status, str | None]:
        if reply.status is not Status.OK:
            return None, reply.status, transport_reason(reply)
        c, state = self.config, self.state
        f = state.faction(faction_id)
        gold = self._pending_gold[faction_id]
        board = state.board
        if unit_id == 0:
            costs = {t: effective_unit_cost(c, f, t) for t in c.unit_cost}
            return actions.judge_base(reply.payload, gold, costs, c.bomb_cost, board.width, board.height)
        unit_type = self._unit_types[unit_id]
        return actions.judge_unit(reply.payload, unit_type, gold, self._move_costs, board.width, board.height)

    def apply(self, replies: list[Reply]) -> Step:
        state, c = self.state, self.config
        t = state.turn
        self._move_costs = {m: c.move_cost(m) for m in UNIT_MOVE_TYPES}
        self._unit_types = {uid: state.units[uid].type for _, uid in self._pending if uid}
        verdicts: list[Verdict] = []
        calls: list[dict[str, Any]] = []
        base_moves: dict[int, Move] = {}
        unit_moves: dict[int, list[tuple[int, Move, int]]] = {}
        base_index: dict[int, int] = {}
        failed = False
        for index, (reply, (faction_id, unit_id)) in enumerate(zip(replies, self._pending, strict=True)):
            move, status, reason = self._judge(reply, faction_id, unit_id)
            f = state.faction(faction_id)
            call: dict[str, Any] = {"faction": faction_id, "unit": unit_id or None, "status": status.value}
            invalid_move = status is Status.INVALID and reason in INVALID_MOVE_REASONS
            if invalid_move and c.penalty_invalid == 0:
                # deviation 6 (the seed's rule; `course`): an invalid move that costs nothing is only
                # ignored, a lost turn; that is a game outcome plus a warning, so the status is OK
                call.update(status=Status.OK.value, move=None, outcome="ignored", outcomeReason=reason)
                f.ignored += 1
                warning: Warning = {"code": str(reason), "detail": f"invalid move ignored: {reason}"}
                verdicts.append(Verdict(reply.seat, Status.OK, None, [*reply.warnings, warning]))
                move = ("IDLE",)
            elif status is not Status.OK:  # DV-18
                failed = True
                call["reason"] = reason
                if status is Status.TIMEOUT:
                    f.timeouts += 1
                    f.score -= c.penalty_timeout
                else:
                    f.errors += 1
                    f.score -= c.penalty_invalid if invalid_move else c.penalty_error
                move = ("IDLE",)
                verdicts.append(Verdict(reply.seat, status, reason, list(reply.warnings)))
            else:
                call["move"] = actions.move_json(move)
                verdicts.append(Verdict(reply.seat, Status.OK))
            assert move is not None
            calls.append(call)
            if unit_id == 0:
                base_moves[faction_id] = move
                base_index[faction_id] = index
            else:
                unit_moves.setdefault(faction_id, []).append((unit_id, move, index))
        events: list[dict[str, Any]] = list(self._activations)
        outcomes: dict[int, tuple[str, str | None]] = {}
        order = shuffled(self.order_rng, [f.id for f in state.factions if not f.defeated])  # DV-22
        for faction_id in order:  # DV-23
            f = state.faction(faction_id)
            if f.extra_gold_pending:  # (a)
                f.extra_gold_pending = False
                f.gold += c.bonus_extra_gold
                events.append({"event": "extra_gold", "faction": faction_id, "gold": c.bonus_extra_gold})
            base = base_moves.get(faction_id, ("IDLE",))
            outcomes[base_index[faction_id]] = self._apply_base(f, base, events)  # (b)
            moves = shuffled(self.order_rng, unit_moves.get(faction_id, []))  # (c)
            for unit_id, move, index in moves:  # (d)
                outcomes[index] = self._apply_unit(f, unit_id, move, events)
        for index, call in enumerate(calls):
            if call["status"] == "OK" and "outcome" not in call:  # an ignored invalid move has its own
                outcome, why = outcomes[index]
                call["outcome"] = outcome
                if why is not None:
                    call["outcomeReason"] = why
                    if outcome == "ignored":
                        state.faction(call["faction"]).ignored += 1
        with self._redeem_lock:  # a redemption sees the turn's end (DV-49, DV-51) whole or not at all
            self._end_of_turn(t, events, failed)
        record = {"turn": t, "order": order, "calls": calls, "events": events, **self._view_delta()}
        if self._taken:  # spec 7.5: the redemptions DV-20 took this turn, so a re-run replays them
            record["redemptions"] = self._taken
            self._taken = []
        return Step(record, verdicts)

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
            [u.id, u.owner, u.type, u.x, u.y, u.health, int(u.defense), int(u.enlightened)]
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

    # -- base moves (DV-24 .. DV-30) ---------------------------------------------------------------
    def _income_factor(self, f: Faction) -> int:
        return self.config.bonus_income_multiplier if "INCOME_MULTIPLIER" in f.bonuses else 1

    def _apply_base(self, f: Faction, move: Move, events: list[dict[str, Any]]) -> tuple[str, str | None]:
        c, state = self.config, self.state
        kind = move[0]
        if kind == "RECEIVE_INCOME":
            f.gold += c.receive_income_gold * self._income_factor(f)
        elif kind == "BUILD_UNIT":
            unit_type = move[1]
            cost = effective_unit_cost(c, f, unit_type)
            if f.slot is not None:
                return "ignored", "slot_busy"
            if f.population >= population_cap(c, f):
                return "ignored", "population_cap"
            if f.gold < cost:
                return "ignored", "insufficient_gold"
            f.gold -= cost
            f.slot = [unit_type, c.unit_build_turns[unit_type] - 1]
            if f.slot[1] == 0:
                self._spawn(f, events)
        elif kind == "CONTINUE_BUILDING_UNIT":
            if f.slot is None:
                return "ignored", "slot_empty"
            if f.slot[1] > 0:
                f.slot[1] -= 1
            if f.slot[1] == 0:
                self._spawn(f, events)
        elif kind == "MANUFACTURE_BOMB":
            if f.gold < c.bomb_cost:
                return "ignored", "insufficient_gold"
            f.gold -= c.bomb_cost
            f.bombs += 1
        elif kind == "MOVE_BASE":
            x, y = move[1], move[2]
            tile = state.board.index(x, y)
            if not state.board.base[tile]:
                return "ignored", "not_a_base"
            if state.board.owner[tile] != f.id:
                return "ignored", "not_own_tile"
            if (x, y) == f.base:
                return "ignored", "same_base"
            f.base = (x, y)
            f.slot = None
            events.append({"event": "base_moved", "faction": f.id, "x": x, "y": y})
        return "applied", None

    def _spawn(self, f: Faction, events: list[dict[str, Any]]) -> None:
        """DV-27."""
        c, state = self.config, self.state
        assert f.slot is not None
        bx, by = f.base
        if state.board.index(bx, by) in state.board.unit_at:
            return
        unit_type = f.slot[0]
        unit = state.add_unit(
            f.id, unit_type, bx, by, c.unit_base_health[unit_type], c.unit_upkeep[unit_type]
        )
        f.slot = None
        f.score += c.score_create_basic if unit_type in BASIC_TYPES else c.score_create_special
        events.append(
            {"event": "spawn", "faction": f.id, "unit": unit.id, "type": unit_type, "x": bx, "y": by}
        )

    # -- unit moves (DV-31 .. DV-48) ---------------------------------------------------------------
    def _remove(self, unit: Unit) -> None:
        self.state.remove_unit(unit, self.config.unit_upkeep[unit.type])

    def _target(self, unit: Unit, target_id: int, friendly: bool) -> tuple[Unit | None, str | None]:
        target = self.state.units.get(target_id)
        if target is None:
            return None, "no_target"
        if friendly and target.owner != unit.owner:
            return None, "target_not_friendly"
        if not friendly and target.owner == unit.owner:
            return None, "target_not_enemy"
        if self.state.board.distance(unit.x, unit.y, target.x, target.y) != 1:
            return None, "not_adjacent"
        return target, None

    def _apply_unit(
        self, f: Faction, unit_id: int, move: Move, events: list[dict[str, Any]]
    ) -> tuple[str, str | None]:
        c, state = self.config, self.state
        board = state.board
        unit = state.units.get(unit_id)
        if unit is None or unit.owner != f.id:  # DV-21
            return "skipped", "unit_gone"
        kind = move[0]
        tile = board.index(unit.x, unit.y)
        owner = board.owner[tile]
        target: Unit | None = None
        # the move's own conditions, in the listed order
        if kind == "TRAVEL":
            x, y = move[1], move[2]
            if board.distance(unit.x, unit.y, x, y) != 1:
                return "ignored", "not_adjacent"
            if board.index(x, y) in board.unit_at:
                return "ignored", "target_occupied"
        elif kind == "CONQUER_NEUTRAL_TILE":
            if owner != 0:
                return "ignored", "not_neutral"
        elif kind in ("NEUTRALIZE_ENEMY_TILE",):
            if owner == 0 or owner == f.id:
                return "ignored", "not_enemy_tile"
        elif kind in ("GENERATE_GOLD",):
            if owner != f.id:
                return "ignored", "not_own_tile"
        elif kind in ("ATTACK", "CONVERT", "HEAL"):
            if kind == "CONVERT" and not unit.enlightened:
                return "ignored", "not_enlightened"
            target, why = self._target(unit, move[1], kind == "HEAL")
            if target is None:
                return "ignored", why
            if kind == "HEAL" and target.health >= c.unit_base_health[target.type]:
                return "ignored", "full_health"
            if kind == "CONVERT" and f.population >= population_cap(c, f):
                return "ignored", "population_cap"
        elif kind == "FORTIFY":
            if owner != f.id:
                return "ignored", "not_own_tile"
            if board.fortified[tile]:
                return "ignored", "already_fortified"
        elif kind == "DEPLOY_BOMB":
            if owner != f.id:
                return "ignored", "not_own_tile"
            if tile in board.bomb:
                return "ignored", "already_rigged"
            if f.bombs < 1:
                return "ignored", "no_bombs"
        elif kind == "CLEAR_BOMB" and tile not in board.bomb:
            return "ignored", "not_rigged"
        cost = c.move_cost(kind)  # DV-48
        if cost > 0:
            if f.gold < cost:
                return "ignored", "insufficient_gold"
            f.gold -= cost
        # effects
        if kind == "TRAVEL":
            state.move_unit(unit, move[1], move[2])
            self._detonate(unit, events)
        elif kind == "CONQUER_NEUTRAL_TILE":  # DV-33
            state.set_owner(tile, f.id)
            f.score += c.score_conquer + (c.score_conquer_resource if board.resource[tile] else 0)
        elif kind == "NEUTRALIZE_ENEMY_TILE":  # DV-34
            if board.fortified[tile]:
                board.fortified[tile] = 0
                state.dirty.add(tile)
            elif "RUSH_ATTACK" in f.bonuses:
                state.set_owner(tile, f.id)
                f.score += c.score_neutralize + c.score_conquer
                f.score += c.score_conquer_resource if board.resource[tile] else 0
            else:
                state.set_owner(tile, 0)
                f.score += c.score_neutralize
        elif kind == "GENERATE_GOLD":  # DV-35
            gain = c.generated(unit.type)
            if unit.type == "WORKER" and board.resource[tile]:
                gain *= c.worker_resource_multiplier
            f.gold += gain * self._income_factor(f)
        elif kind == "ATTACK":  # DV-36
            assert target is not None
            if target.enlightened:
                target.enlightened = False
            else:
                damage = c.unit_damage[unit.type]
                if target.defense:
                    damage //= c.defense_divisor
                    target.defense = False
                target.health -= damage
            if target.health <= 0:
                self._remove(target)
                f.kills += 1
                f.score += c.score_kill
                events.append({"event": "kill", "faction": f.id, "unit": target.id, "by": unit.id})
        elif kind == "PREPARE_DEFENSE":  # DV-37
            unit.defense = True
        elif kind == "FORTIFY":  # DV-38
            board.fortified[tile] = 1
            state.dirty.add(tile)
            f.score += c.score_fortify
        elif kind == "PRAY":  # DV-39
            unit.enlightened = True
        elif kind == "HEAL":  # DV-40
            assert target is not None
            target.health = min(c.unit_base_health[target.type], target.health + c.heal_amount)
            f.score += c.score_heal
        elif kind == "CONVERT":  # DV-41
            assert target is not None
            old_owner = target.owner
            state.change_owner(target, f.id, c.unit_upkeep[target.type])
            target.defense = False
            target.enlightened = False
            unit.enlightened = False
            f.score += c.score_convert
            events.append({"event": "convert", "faction": f.id, "unit": target.id, "from": old_owner})
        elif kind == "DEPLOY_BOMB":  # DV-42
            f.bombs -= 1
            board.bomb[tile] = f.id
            state.dirty.add(tile)
        elif kind == "CLEAR_BOMB":  # DV-43
            bomb_owner = board.bomb.pop(tile)
            state.dirty.add(tile)
            if bomb_owner != f.id:
                f.score += c.score_defuse
        elif kind == "RETIRE":  # DV-44
            self._remove(unit)
            f.score -= c.score_create_basic if unit.type in BASIC_TYPES else c.score_create_special
            events.append({"event": "retire", "faction": f.id, "unit": unit.id})
        return "applied", None

    def _detonate(self, unit: Unit, events: list[dict[str, Any]]) -> None:
        """DV-32."""
        state = self.state
        board = state.board
        tile = board.index(unit.x, unit.y)
        bomb_owner = board.bomb.get(tile)
        if bomb_owner is None or unit.type == "SAPPER" or bomb_owner == unit.owner:
            return
        if board.owner[tile] == unit.owner:
            return
        self._remove(unit)
        del board.bomb[tile]
        state.dirty.add(tile)
        g = state.faction(bomb_owner)
        g.kills += 1
        g.score += self.config.score_kill
        events.append(
            {"event": "detonation", "faction": bomb_owner, "unit": unit.id, "x": unit.x, "y": unit.y}
        )

    # -- end of turn (DV-49 .. DV-51) ------------------------------------------------------------
    def _end_of_turn(self, t: int, events: list[dict[str, Any]], failed: bool) -> None:
        state, c = self.state, self.config
        board = state.board
        alive = [f for f in state.factions if not f.defeated]
        beaten = [f for f in alive if board.owner[board.index(*f.base)] != f.id]  # DV-49
        for f in beaten:
            f.defeated = True
            f.defeat_turn = t
        if beaten:
            ids = {f.id for f in beaten}
            for unit in [u for u in state.units.values() if u.owner in ids]:
                self._remove(unit)
            for tile, owner in enumerate(board.owner):
                if owner in ids:
                    state.set_owner(tile, 0)
            for tile in [tile for tile, owner in board.bomb.items() if owner in ids]:
                del board.bomb[tile]
                state.dirty.add(tile)
            for f in beaten:
                f.slot = None
                f.bombs = 0
                f.bonuses = {}
                f.queued = []
                f.extra_gold_pending = False
                events.append({"event": "defeat", "faction": f.id, "turn": t})
        alive = [f for f in state.factions if not f.defeated]
        if alive:  # DV-50
            largest = max(f.territory for f in alive)
            leaders = [f for f in alive if f.territory == largest]
            if largest > 0 and len(leaders) == 1:
                leaders[0].score += c.score_largest_territory
        if len(alive) <= 1 or t >= c.turn_limit:  # DV-51
            state.finished = True
        elif c.abort_on_logic_error and failed:
            state.finished = True
            state.aborted = True

    # -- end and result (section 6) --------------------------------------------------------------
    def ranking(self) -> list[dict[str, Any]]:
        """Spec 6: the result rows in rank order (ties share the rank)."""
        factions = self.state.factions

        def key(f: Faction) -> tuple[int, ...]:
            if not f.defeated:
                return (0, -f.score, -f.territory, -f.kills)
            return (1, -(f.defeat_turn or 0), -f.score, -f.kills)

        ordered = sorted(factions, key=lambda f: (key(f), f.id))
        rows: list[dict[str, Any]] = []
        previous: tuple[int, ...] | None = None
        rank = 0
        for position, f in enumerate(ordered, start=1):
            if key(f) != previous:
                rank = position
                previous = key(f)
            rows.append(
                {
                    "factionId": f.id,
                    "name": f.name,
                    "rank": rank,
                    "score": f.score,
                    "status": "defeated" if f.defeated else "alive",
                    "defeatTurn": f.defeat_turn,
                    "kills": f.kills,
                    "territorySize": f.territory,
                    "gold": f.gold,
                    "timeouts": f.timeouts,
                    "errors": f.errors,
                    "ignored": f.ignored,
                }
            )
        return rows

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
        board = state.board
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
        units = [
            {
                "id": u.id,
                "owner": u.owner,
                "type": u.type,
                "x": u.x,
                "y": u.y,
                "health": u.health,
                "defenseBonus": u.defense,
                "enlightened": u.enlightened,
            }
            for _, u in sorted(state.units.items())
        ]
        factions = [
            {
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
            for f in state.factions
        ]
        return {
            "turnNumber": state.turn,
            "mapWidth": board.width,
            "mapHeight": board.height,
            "gameId": self.game_id,
            "tiles": tiles,
            "units": units,
            "factions": factions,
        }
