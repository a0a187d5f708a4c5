"""The original MatchResult JSON (spec 7.5) and its JavaScript Number-to-String formatter."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from drones_testkit import GAME, act, config, new_engine, play_round, turn
from hypothesis import given
from hypothesis import strategies as st

from botarena.bots.inprocess import PythonBot
from botarena.core.replay import read_replay, write_replay
from botarena.games.drones.bots.examples import AdaptiveDefender, Randomonium
from botarena.games.drones.protocol import js_number, js_stringify, original_result, original_result_json
from botarena.runner import run_match

# Outputs of String(x) in Node.js 20 for these doubles.
JS_OUTPUTS = [
    (1e-7, "1e-7"),
    (0.00001, "0.00001"),
    (1.5e-7, "1.5e-7"),
    (5e-324, "5e-324"),
    (1e21, "1e+21"),
    (1.4000000000000001, "1.4000000000000001"),
    (-0.0, "0"),
    (0.0, "0"),
    (0.000001, "0.000001"),
    (0.0000015, "0.0000015"),
    (0.0001, "0.0001"),
    (123.456, "123.456"),
    (1e20, "100000000000000000000"),
    (-1e21, "-1e+21"),
    (2.0**53, "9007199254740992"),
    (2.0**53 + 2, "9007199254740994"),
    (1.7976931348623157e308, "1.7976931348623157e+308"),
    (0.1 + 0.2, "0.30000000000000004"),
    (100.0, "100"),
    (1 / 3, "0.3333333333333333"),
    (-2.5e-10, "-2.5e-10"),
    (123456789012345680000.0, "123456789012345680000"),
    (1.2e21, "1.2e+21"),
    (4.35, "4.35"),
    (1024.0, "1024"),
]


@pytest.mark.parametrize(("value", "text"), JS_OUTPUTS, ids=[t for _, t in JS_OUTPUTS])
def test_js_number_matches_javascript(value: float, text: str) -> None:
    assert js_number(value) == text


def test_js_number_integers_and_non_finite() -> None:
    assert js_number(0) == "0"
    assert js_number(-7) == "-7"
    assert js_number(2**53) == "9007199254740992"
    assert js_number(10**21) == "1e+21"  # read as a double, as JSON.parse would
    assert js_number(2**64) == "18446744073709552000"
    assert js_number(10**400) == "null"  # Infinity in JavaScript; JSON.stringify writes null
    assert js_number(math.nan) == "null"
    assert js_number(math.inf) == "null"
    with pytest.raises(TypeError):
        js_number(True)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_js_number_reads_back_exactly(value: float) -> None:
    text = js_number(value)
    assert float(text) == value
    assert "e" not in text or text.split("e")[1][0] in "+-"


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_js_number_forms(value: float) -> None:
    """Integral values are integers (exact up to 2^53); [1e-6, 1e21) never uses an exponent; repr agrees
    for non-integral values of magnitude 1e-4 or more."""
    text = js_number(value)
    magnitude = abs(value)
    if value.is_integer() and magnitude <= 2**53:
        assert text == str(int(value))
    elif value.is_integer() and magnitude < 1e21:
        assert text.isdigit() or text[1:].isdigit()
        assert float(text) == value
    if 1e-6 <= magnitude < 1e21:
        assert "e" not in text
    elif magnitude != 0:
        assert "e" in text
    if 1e-4 <= magnitude < 1e16 and not value.is_integer():
        assert text == repr(value)


@given(
    st.recursive(
        st.none()
        | st.booleans()
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.integers(-(2**53), 2**53)
        | st.text(),
        lambda children: (
            st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
        ),
        max_leaves=12,
    )
)
def test_js_stringify_is_json_that_reads_back(value: Any) -> None:
    text = js_stringify(value)
    assert json.loads(text, parse_int=float) == value  # numbers are doubles, as in JavaScript


def test_js_stringify_layout() -> None:
    value = {"a": [], "b": {}, "c": [1, {"d": None}], "é": '\u2028\n"\\'}
    assert js_stringify(value) == (
        '{\n  "a": [],\n  "b": {},\n  "c": [\n    1,\n    {\n      "d": null\n    }\n  ],\n'
        '  "é": "\u2028\\n\\"\\\\"\n}'
    )
    assert js_stringify("\x01\ud800") == '"\\u0001\\ud800"'
    assert js_stringify(json.dumps({"x": 1}, indent=2)) == json.dumps(json.dumps({"x": 1}, indent=2))


def test_7_5_constant_fields_and_key_order() -> None:
    engine = new_engine("bravolt2018", rounds=2, turn_limit=1)
    play_round(engine, [act(S=1)], [])
    play_round(engine, [], [])
    result = original_result(engine)
    assert list(result) == [
        "roundResults",
        "outcomeDecidedByRandomChance",
        "roundTotals",
        "outcome",
        "player1",
        "player2",
    ]
    assert result["outcomeDecidedByRandomChance"] is False
    assert result["roundTotals"] == {
        "player1Wins": 1,
        "player2Wins": 0,
        "draws": 1,
        "error": 0,
        "ambiguous": 0,
    }
    assert result["outcome"] == "PLAYER 1"
    assert [list(r) for r in result["roundResults"]] == [["outcome", "turnsPlayed", "player1", "player2"]] * 2
    assert result["player1"] == result["player2"] == {"name": "Anonymous Player"}


@pytest.mark.parametrize(
    ("start", "written"),
    [
        (
            {"meta": {"name": "X", "author": "Y", "v": 1.5e-7}},
            '{\n    "name": "X",\n    "author": "Y",\n    "v": 1.5e-7\n  }',
        ),
        ({"meta": {"z": 1, "a": 2}}, '{\n    "z": 1,\n    "a": 2\n  }'),  # key order as received
        ({"meta": None}, "null"),
        ({}, '{\n    "name": "Anonymous Player"\n  }'),
        ({"error": "cannot load"}, '{\n    "name": "Anonymous Player"\n  }'),
        ("garbage", '{\n    "name": "Anonymous Player"\n  }'),
    ],
)
def test_7_5_meta_as_received(start: Any, written: str) -> None:
    engine = new_engine("bravolt2018", rounds=1, turn_limit=1, starts=[start, {}])
    turn(engine, {}, {})
    assert f'"player1": {written},\n' in original_result_json(engine)


def test_7_5_fractions_below_1e_minus_4_are_written_as_javascript_does() -> None:
    engine = new_engine("bravolt2018", rounds=1, turn_limit=2)
    turn(engine, act(P=0.00001, S=1.5e-7), {})
    turn(engine, {}, {})
    text = original_result_json(engine)
    assert '"producers": 1.00001,' in text
    assert '"soldiers": 1.5e-7,' in text
    assert "e-07" not in text and "1e-05" not in text


def test_7_5_from_engine_run_replay_file_and_json_agree(tmp_path: Any) -> None:
    cfg = config("bravolt2018", rounds=20)
    run = run_match(GAME, [PythonBot(Randomonium), PythonBot(AdaptiveDefender)], config=cfg, seed=75)
    path = write_replay(run.replay, tmp_path / "r.json.gz")
    texts = {
        original_result_json(run),
        original_result_json(run.replay),
        original_result_json(read_replay(path)),
        original_result_json(json.loads(run.replay.dumps())),
    }
    assert len(texts) == 1
    text = texts.pop()
    assert text.endswith("}\n") and not text.endswith("\n\n")
    data = json.loads(text)
    assert len(data["roundResults"]) == 20
    totals = run.result.details["roundTotals"]
    assert data["roundTotals"] == {**totals, "error": 0, "ambiguous": 0}
    assert data["outcome"] == run.result.details["outcome"]
    assert data["player1"] == {"name": "Randomonium (Example Bot)", "author": "Bravo LT"}


def test_7_5_writer_is_registered_for_the_cli() -> None:
    assert GAME.native_result_json is original_result_json


def test_7_5_rejects_what_it_cannot_read() -> None:
    with pytest.raises(TypeError, match="original_result_json needs"):
        original_result_json(42)
