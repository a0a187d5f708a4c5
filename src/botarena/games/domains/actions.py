"""Parse-time validation of a bot's reply (spec section 5): the order list L_p and the verdict."""

from __future__ import annotations

from typing import Any

from botarena.core.numbers import as_wire_int
from botarena.core.protocol import Reply, Verdict
from botarena.core.status import DROPPED_ENTRY, Reason, Status, Warning, unknown_key_warnings
from botarena.games.domains.state import Direction, Order, OrderKind

MAX_ORDERS = 1000
DUPLICATE_UNIT = "DUPLICATE_UNIT"
NOT_OBJECT = Reason.NOT_OBJECT
BAD_ORDERS = "bad_orders"
TOO_MANY_ORDERS = "too_many_orders"
NOT_JSON = "not_json"

KINDS = {"move": OrderKind.move, "attack": OrderKind.attack, "ability": OrderKind.ability}
DIRECTION_NAMES = {d.name.lower(): int(d) for d in Direction}


def _plain(value: Any) -> Any:
    """A numpy scalar as its Python value; anything else unchanged."""
    if type(value).__module__ == "numpy" and hasattr(value, "item"):
        return value.item()
    return value


def parse_direction(value: Any) -> int | None:
    """A direction: an integral number 0-8, or a name compared without case (spec section 5)."""
    value = _plain(value)
    if isinstance(value, str):
        return DIRECTION_NAMES.get(value.lower())
    number = as_wire_int(value)
    if number is None or not 0 <= number <= 8:
        return None
    return number


def _error_text(value: Any) -> str:
    if isinstance(value, str):
        return value[:500]
    try:
        return str(value)[:500]
    except Exception:
        return f"<{type(value).__name__}>"


REPLY_KEYS = frozenset({"orders", "error"})
"""The keys of a reply (section 7.1); any other is ignored with an UNKNOWN_KEY warning."""
ORDER_KEYS = frozenset({"unit", "type", "dir"})
"""The keys of an order entry (section 7.1)."""


def parse_orders(
    payload: Any, unit_table_size: int
) -> tuple[list[Order], Status, str | None, list[Warning], str | None]:
    """The order list and (status, reason, warnings, detail) of one reply payload.

    Entries that are unusable are dropped with a DROPPED_ENTRY warning; a second entry for a unit
    is dropped with DUPLICATE_UNIT (F5). A bad reply as a whole gives no orders and INVALID.
    """
    if not isinstance(payload, dict):
        return [], Status.INVALID, NOT_OBJECT, [], "the reply must be a JSON object"
    if "error" in payload:
        return [], Status.CRASHED, Reason.BOT_ERROR, [], _error_text(payload["error"])
    entries = payload.get("orders")
    if not isinstance(entries, list):
        return [], Status.INVALID, BAD_ORDERS, [], "'orders' is missing or not a list"
    if len(entries) > MAX_ORDERS:
        return [], Status.INVALID, TOO_MANY_ORDERS, [], f"{len(entries)} orders (at most {MAX_ORDERS})"
    orders: list[Order] = []
    warnings = unknown_key_warnings(payload, REPLY_KEYS)
    seen: set[int] = set()
    for index, entry in enumerate(entries):
        cause = None
        if not isinstance(entry, dict):
            cause = "not an object"
        else:
            warnings += unknown_key_warnings(entry, ORDER_KEYS, f"entry {index}: ")
            unit = as_wire_int(_plain(entry.get("unit")))
            kind_name = entry.get("type")
            kind = KINDS.get(kind_name) if isinstance(kind_name, str) else None
            direction: int | None = 0
            if unit is None or not 0 <= unit < unit_table_size:
                cause = f"unit must be an integer in [0, {unit_table_size})"
            elif kind is None:
                what = "must be" if "type" in entry else "is missing: it must be"  # (a `kind` sent for it)
                cause = f"type {what} move, attack or ability"
            elif kind is not OrderKind.ability:
                direction = parse_direction(entry["dir"]) if "dir" in entry else None
                if direction is None:
                    cause = "missing or bad dir"
        if cause is not None:
            warnings.append({"code": DROPPED_ENTRY, "detail": f"entry {index}: {cause}"})
            continue
        assert unit is not None and kind is not None and direction is not None
        if unit in seen:
            warnings.append(
                {"code": DUPLICATE_UNIT, "detail": f"entry {index}: a second order for unit {unit}"}
            )
            continue
        seen.add(unit)
        orders.append(Order(unit, kind, direction if kind is not OrderKind.ability else 0))
    return orders, Status.OK, None, warnings, None


def judge(reply: Reply, unit_table_size: int) -> tuple[list[Order], Verdict]:
    """DR-8 and section 5: a transport failure or a bad reply gives no orders (F3)."""
    if reply.status is not Status.OK:
        reason = reply.reason
        if reply.status is Status.INVALID and reason in (Reason.BAD_JSON, None):
            reason = NOT_JSON
        return [], Verdict(reply.seat, reply.status, reason, list(reply.warnings))
    orders, status, reason, warnings, detail = parse_orders(reply.payload, unit_table_size)
    return orders, Verdict(reply.seat, status, reason, warnings, detail)


def order_json(order: Order) -> dict[str, Any]:
    """The wire form of an order (section 5)."""
    data: dict[str, Any] = {"unit": order.unit, "type": order.kind.name}
    if order.kind is not OrderKind.ability:
        data["dir"] = order.dir
    return data
