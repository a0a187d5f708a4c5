"""§7.7 log message templates. Each function returns the text after `turn <t>: `.

Hexes arrive already printed Go-style as `{q r}` (`at`, or `HexMap.labels`), so the hot loops of the
transition format each hex once per round, not once per line.
"""

from __future__ import annotations

from botarena.games.datspulse.hexgrid import Hex
from botarena.games.datspulse.state import FOOD_NAMES, UNIT_NAMES


def at(h: Hex) -> str:
    """A hex printed Go-style: `{q r}`."""
    return f"{{{h[0]} {h[1]}}}"


def line(turn: int, text: str) -> str:
    """`turn <t>: <text>` (DP-70: lines of the transition t -> t+1 carry t+1)."""
    return f"turn {turn}: {text}"


def moved(uid: str, start: str, end: str, dirt: int) -> str:
    tail = f" (dirt on path: {dirt})" if dirt else ""
    return f"ant {uid} moved from {start} to {end}{tail}"


def blocked_same_type(uid: str, h: str, other: str) -> str:
    return f"ant {uid} cannot move to {h}, your own ant {other} with same type is there"


def blocked_rock(uid: str, h: str) -> str:
    return f"ant {uid} cannot move to {h} Rock tile"


def blocked_enemy_ant(uid: str, h: str) -> str:
    return f"ant {uid} cannot move to {h}, enemy ant is there"


def blocked_enemy_anthill(uid: str, h: str) -> str:
    return f"ant {uid} cannot move to {h}, enemy anthill"


def blocked_mp(uid: str, h: str) -> str:
    return f"ant {uid} cannot move to {h}, not enough movement points"


def damaged(uid: str, cause: str, hp: int) -> str:
    """`cause` is `acid`, `enemy ant` or `enemy anthill`."""
    return f"ant {uid} damaged by {cause}, health now {hp}"


def killed_by(uid: str, cause: str) -> str:
    return f"ant {uid} killed by {cause}"


def corpse_removed(uid: str) -> str:
    return f"ant {uid} killed"


def collected(uid: str, amount: int, food: int, h: str) -> str:
    return f"ant {uid} collected {amount} {FOOD_NAMES[food]} at {h}"


def stocked(uid: str, amount: int, food: int, calories: int) -> str:
    return f"ant {uid} stocked up {amount} {FOOD_NAMES[food]} ({calories} cal)"


def spawned(unit_type: int) -> str:
    return f"new ant spawned {UNIT_NAMES[unit_type]}"


def attacked(uid: str, eid: str, h: str, damage: int) -> str:
    return f"ant {uid} attacked enemy ant {eid} at {h} for {damage} damage"


def stole(uid: str, amount: int, h: str) -> str:
    return f"ant {uid} stole {amount} Nectar from enemy anthill at {h}"


def was_robbed(amount: int, h: str) -> str:
    return f"enemy ant stole {amount} Nectar from your anthill at {h}"


def dropped(uid: str, amount: int, food: int, h: str) -> str:
    return f"ant {uid} dropped {amount} {FOOD_NAMES[food]} at {h}"


def lost(uid: str, amount: int, food: int) -> str:
    return f"ant {uid} lost {amount} {FOOD_NAMES[food]}"


def spawn_occupied(unit_type: int) -> str:
    return f"spawn skipped, {UNIT_NAMES[unit_type]} already on spot"


def spawn_limit() -> str:
    return "spawn skipped, unit limit reached"
