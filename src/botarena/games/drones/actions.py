"""Turning a bot's reply into an effective action (spec section 5).

`judge_seed` implements 5.2 and `judge_bravolt` 5.3. Both return the effective action (or None for
no action) and the verdict. Counts stay Python ints where the wire gave integers, so `seed` play is
exact integer arithmetic; in `bravolt2018` fractions are binary64 floats, as in the original.

In-process Python bots hand over Python objects, not JSON text, so two cases are mapped onto what the
same reply would be on the wire (and in the replay, which stores it as JSON): a numpy scalar is its
plain Python value, and a non-finite float (which JSON cannot carry; the replay writes it as `null`)
is not a number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from botarena.core.numbers import as_wire_int, is_wire_number
from botarena.core.protocol import Reply, Verdict
from botarena.core.status import Reason, Status, Warning, unknown_key_warnings

Count = int | float
NO_ACTION = "NO_ACTION"
COERCED = "COERCED"
HOOK_ERROR = "HOOK_ERROR"
CLAMPED = "CLAMPED"


@dataclass(slots=True)
class Action:
    """An effective action: producers and soldiers to build, and whether to attack."""

    producers: Count
    soldiers: Count
    attack: bool


def _plain(value: Any) -> Any:
    """A numpy scalar as its Python value (the wire's number or boolean); anything else unchanged."""
    if type(value).__module__ == "numpy" and hasattr(value, "item"):
        return value.item()
    return value


def error_text(value: Any) -> str:
    """The text of an `error` field: a string as it is, anything else as str() (never raising)."""
    if type(value) is str:
        return value
    try:
        return str(value)
    except Exception:  # e.g. an int beyond str()'s digit limit, or a broken __str__
        return f"<{type(value).__name__}>"


ACTION_KEYS = frozenset({"newProducers", "newSoldiers", "launchAttack", "error"})
"""The keys of an action (spec 5.1); any other is ignored with an UNKNOWN_KEY warning."""


def _has_action_key(payload: dict[str, Any]) -> bool:
    return "newProducers" in payload or "newSoldiers" in payload or "launchAttack" in payload


def _passthrough(reply: Reply) -> Verdict:
    return Verdict(reply.seat, reply.status, reply.reason, list(reply.warnings))


def _bot_error(seat: int, payload: dict[str, Any]) -> Verdict:
    return Verdict(seat, Status.CRASHED, Reason.BOT_ERROR, [], detail=error_text(payload["error"]))


def _hook_error(payload: dict[str, Any], warnings: list[Warning]) -> None:
    if "error" in payload:
        warnings.append({"code": HOOK_ERROR, "detail": error_text(payload["error"])})


def judge_seed(reply: Reply) -> tuple[Action | None, Verdict]:
    """Spec 5.2: the first failing step decides; an INVALID action does nothing at all."""
    if reply.status is not Status.OK:
        return None, _passthrough(reply)
    payload = reply.payload
    if type(payload) is not dict and not isinstance(payload, dict):
        return None, Verdict(reply.seat, Status.INVALID, Reason.NOT_OBJECT, detail="action must be an object")
    # The common case, checked in one go: plain non-negative ints, a bool and no error text.
    producers = payload.get("newProducers", 0)
    soldiers = payload.get("newSoldiers", 0)
    attack = payload.get("launchAttack", False)
    if (
        type(producers) is int
        and type(soldiers) is int
        and type(attack) is bool
        and producers >= 0
        and soldiers >= 0
        and "error" not in payload
    ):
        return Action(producers, soldiers, attack), Verdict(
            reply.seat, Status.OK, None, unknown_key_warnings(payload, ACTION_KEYS)
        )
    if "error" in payload and not _has_action_key(payload):
        return None, _bot_error(reply.seat, payload)
    counts: list[int] = []
    for key in ("newProducers", "newSoldiers"):
        raw = payload.get(key, 0)
        value = as_wire_int(raw)
        if value is None:
            value = as_wire_int(_plain(raw))
        if value is None or value < 0:
            detail = f"{key} must be a non-negative integer"
            return None, Verdict(reply.seat, Status.INVALID, Reason.BAD_FIELD, detail=detail)
        counts.append(value)
    attack = payload.get("launchAttack", False)
    if type(attack) is not bool:
        attack = _plain(attack)
    if type(attack) is not bool:
        detail = "launchAttack must be a boolean"
        return None, Verdict(reply.seat, Status.INVALID, Reason.BAD_FIELD, detail=detail)
    warnings = unknown_key_warnings(payload, ACTION_KEYS)
    _hook_error(payload, warnings)
    return Action(counts[0], counts[1], attack), Verdict(reply.seat, Status.OK, None, warnings)


def _bravolt_count(payload: dict[str, Any], key: str, warnings: list[Warning]) -> Count:
    if key not in payload:
        return 0
    value = payload[key]
    if not is_wire_number(value):
        value = _plain(value)
    if not is_wire_number(value) or (type(value) is float and not math.isfinite(value)):
        warnings.append({"code": COERCED, "detail": f"{key} is not a number; taken as 0"})
        return 0
    if not value > 0:  # negatives and zero are silently 0, as in the original
        return 0
    integral = as_wire_int(value)
    return integral if integral is not None else value


def judge_bravolt(reply: Reply) -> tuple[Action | None, Verdict]:
    """Spec 5.3: the original's field-by-field coercion, on JSON values."""
    if reply.status is not Status.OK:
        return None, _passthrough(reply)
    payload = reply.payload
    if payload is None:
        warning: Warning = {"code": NO_ACTION, "detail": "null action: no production, no attack"}
        return None, Verdict(reply.seat, Status.OK, None, [warning])
    if type(payload) is not dict and not isinstance(payload, dict):
        return None, Verdict(reply.seat, Status.INVALID, Reason.NOT_OBJECT, detail="action must be an object")
    if "error" in payload and not _has_action_key(payload):
        return None, _bot_error(reply.seat, payload)
    warnings = unknown_key_warnings(payload, ACTION_KEYS)
    producers = _bravolt_count(payload, "newProducers", warnings)
    soldiers = _bravolt_count(payload, "newSoldiers", warnings)
    attack = False
    if "launchAttack" in payload:
        flag = payload["launchAttack"]
        if type(flag) is not bool:
            flag = _plain(flag)
        if flag is True or (is_wire_number(flag) and flag == 1):
            attack = True
        elif type(flag) is not bool:
            warnings.append({"code": COERCED, "detail": "launchAttack is not a boolean; no attack"})
    _hook_error(payload, warnings)
    return Action(producers, soldiers, attack), Verdict(reply.seat, Status.OK, None, warnings)


def as_payload(action: Action | None) -> dict[str, Any] | None:
    """The wire form of an effective action (the turn record's `applied`)."""
    if action is None:
        return None
    return {"newProducers": action.producers, "newSoldiers": action.soldiers, "launchAttack": action.attack}
