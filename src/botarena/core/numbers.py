"""The platform's rule for numbers on the wire.

An integral JSON number (`3`, `3.0`, `1e3`) is an integer; booleans, fractions and non-finite values
are not (DESIGN, *Platform vocabulary*).
"""

from __future__ import annotations

import math
from typing import Any


def as_wire_int(value: Any) -> int | None:
    """Return `value` as an int if it is an integral JSON number, else None (bools are not numbers)."""
    kind = type(value)
    if kind is int:
        return value  # type: ignore[no-any-return]
    if kind is float and math.isfinite(value) and value.is_integer():
        return int(value)
    return None


def is_wire_number(value: Any) -> bool:
    """True for a JSON number (int or float, never a bool)."""
    kind = type(value)
    return kind is int or kind is float


def normalize_integral(value: Any) -> Any:
    """Recursively turn integral floats into ints, so `3.0` and `3` mean the same everywhere."""
    kind = type(value)
    if kind is float and math.isfinite(value) and value.is_integer():
        return int(value)
    if kind is dict:
        return {k: normalize_integral(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [normalize_integral(v) for v in value]
    return value
