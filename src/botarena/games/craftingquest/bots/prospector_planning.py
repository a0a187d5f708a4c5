"""The Prospector's planning (spec §10 "Goal" and "Each turn"): searches over known cells and goals.

Pure functions over plain data, so that each is testable on its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

Alternative = Mapping[str, int]


def id_number(item_id: str) -> int:
    """`"O10"` → 10: ids sort in numeric order (§4), so `"O2"` comes before `"O10"`."""
    return int(item_id[1:])


def bfs_path(
    neighbours: Sequence[tuple[int, ...]],
    open_: bytearray | bytes,
    start: int,
    is_target: Callable[[int], bool],
) -> list[int] | None:
    """The shortest path (first step … target) from `start` to the nearest cell satisfying
    `is_target`, stepping between 8-neighbours (CQ-1) only onto `open_` cells; None if none is
    reachable. The start cell itself is never a target. Ties go to the first cell found, in the
    neighbour order of `neighbours`."""
    parent = {start: -1}
    frontier = [start]
    while frontier:
        layer: list[int] = []
        for cell in frontier:
            for n in neighbours[cell]:
                if n in parent or not open_[n]:
                    continue
                parent[n] = cell
                if is_target(n):
                    path = [n]
                    back = cell
                    while back != start:
                        path.append(back)
                        back = parent[back]
                    path.reverse()
                    return path
                layer.append(n)
        frontier = layer
    return None


def goal_blueprint(blueprints: Iterable[Mapping[str, Any]], credit: int) -> str | None:
    """§10 "Goal": the cheapest simple blueprint the team can afford, the lowest id on ties."""
    affordable = [bp for bp in blueprints if bp.get("kind") == "simple" and int(bp["price"]) <= credit]
    if not affordable:
        return None
    best = min(affordable, key=lambda bp: (int(bp["price"]), id_number(str(bp["id"]))))
    return str(best["id"])


def missing(carried: Mapping[str, int], alternative: Alternative) -> dict[str, int]:
    """What a unit still lacks of one alternative: type → quantity, in the alternative's key order."""
    out = {}
    for t, q in alternative.items():
        lack = int(q) - int(carried.get(t, 0))
        if lack > 0:
            out[t] = lack
    return out


def choose_alternative(
    carried: Mapping[str, int],
    blueprints: Sequence[tuple[str, Sequence[Alternative]]],
    located: Callable[[str], bool],
) -> tuple[str, int] | None:
    """§10 "Goal": the alternative closest to complete for one unit. The key is the number of missing
    types not located anywhere, then the missing units, then the blueprint id and the alternative index.
    `blueprints` is [(id, alternatives)] of the simple blueprints the unit works for."""
    best: tuple[tuple[int, int, int, int], tuple[str, int]] | None = None
    for bp_id, alternatives in blueprints:
        for index, alternative in enumerate(alternatives):
            lack = missing(carried, alternative)
            unlocated = sum(1 for t in lack if not located(t))
            key = (unlocated, sum(lack.values()), id_number(bp_id), index)
            if best is None or key < best[0]:
                best = (key, (bp_id, index))
    return None if best is None else best[1]


def craftable(
    carried: Mapping[str, int], blueprints: Sequence[tuple[str, Sequence[Alternative]]]
) -> tuple[str, int] | None:
    """§10 step 2: the first owned (blueprint, alternative) whose every quantity the unit carries."""
    for bp_id, alternatives in blueprints:
        for index, alternative in enumerate(alternatives):
            if alternative and not missing(carried, alternative):
                return bp_id, index
    return None


def move_cost(base: int, penalty_pct: int, carried: int, carry_divisor: int) -> int:
    """CQ-37: the energy of one move onto a terrain with `penalty_pct`, carrying `carried` items."""
    return base * (100 + penalty_pct) // 100 + carried // max(1, carry_divisor)
