"""Helpers for devops rule tests: build states directly (spec 9 conventions) and play scripted turns."""

from __future__ import annotations

from typing import Any

from botarena.core.protocol import Reply
from botarena.core.status import Status
from botarena.games.devops import GAME
from botarena.games.devops.engine import DevopsEngine
from botarena.games.devops.state import Unit
from botarena.games.devops.vocabulary import UnitType

TEN = {"map_width_min": 10, "map_width_max": 10, "map_height_min": 10, "map_height_max": 10}


class FixedOrder:
    """Stands in for the `devops.order` stream: pops the given permutations, identity otherwise."""

    def __init__(self, *perms: list[int]) -> None:
        self.perms = list(perms)

    def permutation(self, n: int) -> list[int]:
        if self.perms and len(self.perms[0]) == n:
            return self.perms.pop(0)
        return list(range(n))


def engine(n: int = 2, seed: int = 1, clear: bool = True, **overrides: Any) -> DevopsEngine:
    """A 10x10 game (score_largest_territory 0 unless given), emptied of units and owners if `clear`."""
    config = GAME.config(overrides={**TEN, "score_largest_territory": 0, **overrides})
    e = DevopsEngine(config, seed, n)
    e.order_rng = FixedOrder()  # type: ignore[assignment]
    if clear:
        state = e.state
        for unit in list(state.units.values()):
            state.remove_unit(unit, config.unit_upkeep[unit.type])
        state.next_unit_id = 1
        for tile in range(len(state.board.owner)):
            state.set_owner(tile, 0)
            state.board.base[tile] = 0
            state.board.resource[tile] = 0
        # every faction keeps a base far from the action: (0, 9), (1, 9), ...
        for f in state.factions:
            f.base = (f.id - 1, 9)
            own(e, f.id - 1, 9, f.id, base=True)
    return e


def own(e: DevopsEngine, x: int, y: int, owner: int, **flags: bool) -> int:
    board = e.state.board
    tile = board.index(x, y)
    e.state.set_owner(tile, owner)
    for key, value in flags.items():
        getattr(board, key)[tile] = int(value)
    return tile


def unit(
    e: DevopsEngine, owner: int, kind: str, x: int, y: int, uid: int | None = None, **fields: Any
) -> Unit:
    c = e.config
    state = e.state
    if uid is not None:
        state.next_unit_id = uid
    u = state.add_unit(owner, UnitType(kind), x, y, c.unit_base_health[kind], c.unit_upkeep[kind])
    for key, value in fields.items():
        setattr(u, key, value)
    return u


def play(
    e: DevopsEngine, moves: dict[tuple[int, int], Any] | None = None, order: list[int] | None = None
) -> tuple[dict[str, Any], list[Any], dict[tuple[int, int], dict[str, Any]]]:
    """One turn: `moves[(faction, unit id or 0 for base)]` is a reply payload or a Reply (default
    IDLE). `order` is the DV-22 permutation of the alive factions. Returns (record, requests, calls)."""
    moves = moves or {}
    if order is not None:
        e.order_rng = FixedOrder(order)  # type: ignore[assignment]
    requests = e.next_requests()
    replies = []
    for request, key in zip(requests, e._pending, strict=True):
        value = moves.get(key, {"type": "IDLE"})
        if isinstance(value, Reply):
            value.seat = request.seat
            replies.append(value)
        else:
            replies.append(Reply(request.seat, Status.OK, value))
    step = e.apply(replies)
    calls = {(c["faction"], c["unit"] or 0): c for c in step.record["calls"]}
    return step.record, requests, calls


def inputs(requests: list[Any], e: DevopsEngine) -> dict[tuple[int, int], dict[str, Any]]:
    return {key: r.payload["input"] for r, key in zip(requests, e._pending, strict=True)}
