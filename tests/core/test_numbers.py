"""The platform's number rule on the wire (core/numbers.py)."""

from __future__ import annotations

import math

import pytest

from botarena.core.numbers import as_wire_int, is_wire_number, normalize_integral


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (3, 3),
        (0, 0),
        (-7, -7),
        (3.0, 3),
        (-2.0, -2),
        (1e3, 1000),
        (2**70, 2**70),
        (float(2**60), 2**60),
    ],
)
def test_integral_numbers_are_ints(value: object, expected: int) -> None:
    result = as_wire_int(value)
    assert result == expected and type(result) is int


@pytest.mark.parametrize(
    "value",
    [True, False, 3.5, -0.1, math.nan, math.inf, -math.inf, "3", None, [3], {"a": 3}],
)
def test_everything_else_is_not_an_int(value: object) -> None:
    assert as_wire_int(value) is None


def test_is_wire_number() -> None:
    assert is_wire_number(1) and is_wire_number(1.5) and is_wire_number(math.nan)
    assert not is_wire_number(True) and not is_wire_number("1") and not is_wire_number(None)


def test_normalize_integral_recurses() -> None:
    value = {"a": 3.0, "b": [1.0, 2.5, {"c": 4.0}], "d": (5.0, True), "e": math.inf, "f": "6.0"}
    result = normalize_integral(value)
    assert result == {"a": 3, "b": [1, 2.5, {"c": 4}], "d": [5, True], "e": math.inf, "f": "6.0"}
    assert type(result["a"]) is int and type(result["b"][2]["c"]) is int
    assert result["d"][1] is True
