"""The Node adapter for 2018 GameOfDrones bots (spec 7.3), driven by piping request lines to it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

import orjson
import pytest
from drones_js_helpers import (
    E16_ACTIONS,
    E16_START_STATES,
    ROUND_RESULT,
    Piped,
    Session,
    end,
    kit_bot,
    needs_node,
    pipe,
    start,
    turn,
    write_bot,
)

from waiting import WAIT_S

pytestmark = [pytest.mark.node, needs_node]

MAX_VALUE = sys.float_info.max  # JavaScript's Number.MAX_VALUE


# -- protocol basics -------------------------------------------------------------------------------
def test_replies_echo_ids_one_line_each() -> None:
    requests = [start(7), turn(8), turn(9, turn=2, producers=1, soldiers=1), end(10, last_round=ROUND_RESULT)]
    out = pipe(kit_bot("zergy.js"), requests)
    assert out.returncode == 0
    assert [reply["id"] for reply in out.replies] == [7, 8, 9, 10]
    assert out.payloads == [
        {"meta": {"name": "Zergy McZergface (Example Bot)", "author": "Bravo LT"}},
        {"newProducers": 0, "newSoldiers": 1, "launchAttack": False},
        {"newProducers": 0, "newSoldiers": 1, "launchAttack": True},
        {},
    ]
    assert list(out.replies[0]) == ["id", "payload"]


def test_exits_when_stdin_closes_even_while_loading() -> None:
    # All lines arrive (and stdin closes) before the module has loaded: every request is answered.
    out = pipe(kit_bot("greedy.js"), [start(1), *(turn(i, turn=i - 1) for i in range(2, 12))])
    assert out.returncode == 0
    assert [reply["id"] for reply in out.replies] == list(range(1, 12))


def test_lines_that_are_not_requests_are_logged_and_skipped() -> None:
    out = pipe(kit_bot("greedy.js"), ["not json", "[1, 2]", "", start(1), turn(2)])
    assert [reply["id"] for reply in out.replies] == [1, 2]
    assert "not JSON" in out.stderr
    assert "not a request" in out.stderr


def test_unknown_type_and_turn_before_start_get_errors() -> None:
    out = pipe(kit_bot("greedy.js"), [turn(1), {"type": "bogus", "id": 2, "payload": {}}])
    assert out.payloads == [
        {"error": "turn request before any start request"},
        {"error": 'unknown request type "bogus"'},
    ]


def test_missing_hooks_are_silent_and_missing_meta_is_anonymous(tmp_path: Path) -> None:
    bot = write_bot(tmp_path, "bare.js", "export default () => ({});\n")
    requests = [
        start(1),
        turn(2),
        turn(3, round=2, previous_round=ROUND_RESULT),
        end(4, last_round=ROUND_RESULT),
    ]
    # No playTurn: undefined, which is null (INVALID) under seed, and null (NO_ACTION) under bravolt2018.
    assert pipe(bot, requests).payloads == [{"meta": {"name": "Anonymous Player"}}, None, None, {}]
    assert pipe(bot, [start(1, rules="bravolt2018"), turn(2)]).payloads[1] is None


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("({name: 'x', author: 'y', extra: [1, 2]})", {"name": "x", "author": "y", "extra": [1, 2]}),
        ("null", None),  # typeof null == "object": used as is
        ("'a string'", {"name": "Anonymous Player"}),
        ("42", {"name": "Anonymous Player"}),
        ("undefined", {"name": "Anonymous Player"}),
        ("() => 1", {"name": "Anonymous Player"}),
        ("[1, 'two']", [1, "two"]),
    ],
)
def test_meta_per_spec_7_1(tmp_path: Path, expression: str, expected: Any) -> None:
    bot = write_bot(tmp_path, "meta.js", f"export default () => ({{ meta: {expression} }});\n")
    assert pipe(bot, [start(1)]).payloads == [{"meta": expected}]


def test_7_3_meta_is_read_before_on_match_start(tmp_path: Path) -> None:
    # Spec 7.3 step 5 before step 6, as the original's PlayerDriver: a new object assigned to
    # this.meta in onMatchStart is not the meta the match prints.
    source = """export default () => ({
  meta: { name: "before" },
  onMatchStart() { this.meta = { name: "set in onMatchStart" }; },
});
"""
    bot = write_bot(tmp_path, "late-meta.js", source)
    assert pipe(bot, [start(1)]).payloads == [{"meta": {"name": "before"}}]
    assert pipe(bot, [start(1, rules="bravolt2018")]).payloads == [{"meta": {"name": "before"}}]


def test_7_3_meta_changed_in_place_in_on_match_start_shows(tmp_path: Path) -> None:
    # The original held the object itself and printed it at the match's end: a change made to it
    # in place shows (it is written after onMatchStart); a meta set only there is still Anonymous.
    source = """export default () => ({
  meta: { name: "before" },
  onMatchStart() { this.meta.name = "renamed in place"; this.meta.seen = true; },
});
"""
    bot = write_bot(tmp_path, "mutate-meta.js", source)
    assert pipe(bot, [start(1)]).payloads == [{"meta": {"name": "renamed in place", "seen": True}}]
    source = "export default () => ({ onMatchStart() { this.meta = { name: 'x' }; } });\n"
    late = write_bot(tmp_path, "only-late.js", source)
    assert pipe(late, [start(1)]).payloads == [{"meta": {"name": "Anonymous Player"}}]


def test_7_3_lone_surrogate_meta_is_valid_utf8_with_json_stringify_text(tmp_path: Path) -> None:
    # JSON.stringify writes a lone surrogate as the escape \ud800, which orjson (the platform's
    # reader) rejects: the adapter puts U+FFFD in `meta` and JSON.stringify's own text in `metaJson`.
    source = r"""export default () => ({
  meta: { name: "a\ud800b", note: "\\ud800 is text", smile: "\ud83d\ude00" },
});
"""
    bot = write_bot(tmp_path, "surrogate.js", source)
    out = pipe(bot, [start(1)])
    line = out.lines[0]
    line.encode("utf-8")  # no lone surrogate on the wire
    payload = orjson.loads(line)["payload"]
    assert payload["meta"] == {"name": "a\ufffdb", "note": "\\ud800 is text", "smile": "\U0001f600"}
    assert payload["metaJson"] == '{"name":"a\\ud800b","note":"\\\\ud800 is text","smile":"\U0001f600"}'
    # A meta without lone surrogates has no metaJson.
    plain = write_bot(tmp_path, "plain.js", r'export default () => ({ meta: { name: "\\ud800 as text" } });')
    assert pipe(plain, [start(1)]).payloads == [{"meta": {"name": "\\ud800 as text"}}]


def test_unserialisable_meta_is_anonymous_with_an_error(tmp_path: Path) -> None:
    bot = write_bot(tmp_path, "bigmeta.js", "export default () => ({ meta: { n: 1n } });\n")
    payload = pipe(bot, [start(1)]).payloads[0]
    assert payload["meta"] == {"name": "Anonymous Player"}
    assert payload["error"].startswith("meta: ")


# -- hooks: order, arguments, `this` ---------------------------------------------------------------
def test_hook_order_arguments_and_this(tmp_path: Path) -> None:
    source = """
const calls = [];
const copy = (value) => JSON.parse(JSON.stringify(value));
let player = null;
export default function () {
  player = {
    meta: { name: "recorder" },
    onMatchStart(rules) { calls.push(["onMatchStart", this === player, copy(rules)]); rules.rounds = -1; },
    onRoundStart(rules) { calls.push(["onRoundStart", this === player, copy(rules)]); rules.turns = -1; },
    playTurn(state) {
      calls.push(["playTurn", this === player, copy(state)]);
      state.producers = -1;
      return { newProducers: 0, launchAttack: false, newSoldiers: JSON.stringify(calls.splice(0)) };
    },
    onRoundEnd(result) { calls.push(["onRoundEnd", this === player, copy(result)]); },
  };
  return player;
}
"""
    bot = write_bot(tmp_path, "recorder.js", source)
    requests = [
        start(1, rounds=2),
        turn(2, turn=1, producers=1, soldiers=0, turn_limit=4, defender_bonus=3),
        turn(3, turn=2, producers=2, soldiers=0, turn_limit=4, defender_bonus=3),
        turn(4, round=2, turn=1, producers=1, soldiers=0, turn_limit=5, previous_round=ROUND_RESULT),
        end(5, last_round=ROUND_RESULT),
        turn(6, round=2, turn=2, producers=7, soldiers=0),  # after the end: the calls of end + this turn
    ]
    out = pipe(bot, requests)
    calls = [json.loads(payload["newSoldiers"]) for payload in out.payloads[1:4] + out.payloads[5:]]
    assert calls[0] == [
        ["onMatchStart", True, {"rounds": 2, "drawAllowed": True}],
        ["onRoundStart", True, {"turns": 4, "defenderBonus": 3}],
        ["playTurn", True, {"producers": 1, "soldiers": 0}],
    ]
    assert calls[1] == [["playTurn", True, {"producers": 2, "soldiers": 0}]]
    assert calls[2] == [
        ["onRoundEnd", True, ROUND_RESULT],
        ["onRoundStart", True, {"turns": 5, "defenderBonus": 1}],
        ["playTurn", True, {"producers": 1, "soldiers": 0}],
    ]
    assert calls[3] == [
        ["onRoundEnd", True, ROUND_RESULT],
        ["playTurn", True, {"producers": 7, "soldiers": 0}],
    ]
    assert out.payloads[4] == {}
    # Exactly these keys in this order (JSON.stringify keeps insertion order).
    assert list(calls[0][1][2]) == ["turns", "defenderBonus"]
    assert list(calls[0][0][2]) == ["rounds", "drawAllowed"]


def test_argument_objects_are_fresh_each_call(tmp_path: Path) -> None:
    source = """
const seen = [];
export default () => ({
  onRoundStart(rules) { seen.push(rules); rules.turns = 99; },
  playTurn(state) {
    seen.push(state);
    const fresh = seen.length < 3 || seen.every((a, i) => seen.indexOf(a) === i);
    return { launchAttack: fresh, newProducers: state.producers };
  },
});
"""
    bot = write_bot(tmp_path, "fresh.js", source)
    out = pipe(
        bot,
        [
            start(1),
            turn(2),
            turn(3, turn=2, producers=2),
            turn(4, turn=1, round=2, producers=1, previous_round=ROUND_RESULT),
        ],
    )
    assert [p["launchAttack"] for p in out.payloads[1:]] == [True, True, True]
    assert [p["newProducers"] for p in out.payloads[1:]] == [1, 2, 1]


def test_math_random_is_mulberry32_of_player_seed(tmp_path: Path) -> None:
    # Spec 7.4 test vectors; a module-level draw happens after seeding too.
    source = """
const first = Math.random();
export default () => ({ meta: { first, next: [Math.random(), Math.random()] } });
"""
    bot = write_bot(tmp_path, "rand.js", source)
    vectors = {
        0: [0.26642920868471265, 0.0003297457005828619, 0.2232720274478197],
        1: [0.6270739405881613, 0.002735721180215478, 0.5274470399599522],
        42: [0.6011037519201636, 0.44829055899754167, 0.8524657934904099],
    }
    for seed, expected in vectors.items():
        meta = pipe(bot, [start(1, seed=seed)]).payloads[0]["meta"]
        assert [meta["first"], *meta["next"]] == expected


def test_every_start_gets_a_new_generator_and_instance(tmp_path: Path) -> None:
    source = """
let made = 0;
export default () => { made += 1; return { meta: { made, r: Math.random() } }; };
"""
    bot = write_bot(tmp_path, "restart.js", source)
    out = pipe(bot, [start(1, seed=1), start(2, seed=1), start(3, seed=42)])
    assert out.payloads == [
        {"meta": {"made": 1, "r": 0.6270739405881613}},
        {"meta": {"made": 2, "r": 0.6270739405881613}},
        {"meta": {"made": 3, "r": 0.6011037519201636}},
    ]


def test_e16_randomonium_player_seed_1_at_the_adapter() -> None:
    """E16's first round, turn by turn, from the start states of the spec's table."""
    requests: list[Any] = [start(1, seed=1)]
    requests += [
        turn(i + 2, turn=i + 1, producers=p, soldiers=s) for i, (p, s) in enumerate(E16_START_STATES)
    ]
    out = pipe(kit_bot("randomonium.js"), requests)
    actions = [(a["newProducers"], a["newSoldiers"], a["launchAttack"]) for a in out.payloads[1:]]
    assert actions == E16_ACTIONS


# -- normalisation (spec 7.3), one adapter process per rule set --------------------------------------
BRAVOLT_CASES: list[tuple[str, Any]] = [
    ("undefined", None),
    ("null", None),
    ("0", None),
    ("''", None),
    ("false", None),
    ("NaN", None),
    ("5", None),
    ("'hello'", None),
    ("true", None),
    ("Symbol('s')", None),
    ("10n", None),
    ("({})", {"newProducers": 0, "newSoldiers": 0, "launchAttack": False}),
    (
        "({newProducers: 2, newSoldiers: 3, launchAttack: true})",
        {"newProducers": 2, "newSoldiers": 3, "launchAttack": True},
    ),
    (
        "({launchAttack: true, newSoldiers: 3, newProducers: 2, extra: 1})",
        {"newProducers": 2, "newSoldiers": 3, "launchAttack": True},
    ),
    (
        "({newProducers: 0.5, newSoldiers: 0.25})",
        {"newProducers": 0.5, "newSoldiers": 0.25, "launchAttack": False},
    ),
    ("({newProducers: -1, newSoldiers: -0})", {"newProducers": 0, "newSoldiers": 0, "launchAttack": False}),
    ("({newProducers: '3', newSoldiers: [2]})", {"newProducers": 3, "newSoldiers": 2, "launchAttack": False}),
    (
        "({newProducers: 'abc', newSoldiers: '-2'})",
        {"newProducers": 0, "newSoldiers": 0, "launchAttack": False},
    ),
    (
        "({newProducers: ' 1.5 ', newSoldiers: [[4]]})",
        {"newProducers": 1.5, "newSoldiers": 4, "launchAttack": False},
    ),
    (
        "({newProducers: true, newSoldiers: false})",
        {"newProducers": 1, "newSoldiers": 0, "launchAttack": False},
    ),
    ("({newProducers: null, newSoldiers: {}})", {"newProducers": 0, "newSoldiers": 0, "launchAttack": False}),
    (
        "({newProducers: Infinity, newSoldiers: -Infinity})",
        {"newProducers": MAX_VALUE, "newSoldiers": 0, "launchAttack": False},
    ),
    (
        "({newProducers: NaN, newSoldiers: [1, 2]})",
        {"newProducers": 0, "newSoldiers": 0, "launchAttack": False},
    ),
    (
        "({newProducers: 10n, newSoldiers: 10n ** 400n})",
        {"newProducers": 10, "newSoldiers": MAX_VALUE, "launchAttack": False},
    ),
    (
        "({newProducers: {valueOf() { return 4; }}})",
        {"newProducers": 4, "newSoldiers": 0, "launchAttack": False},
    ),
    ("({newProducers: new Date(5)})", {"newProducers": 5, "newSoldiers": 0, "launchAttack": False}),
    ("({launchAttack: 1})", {"newProducers": 0, "newSoldiers": 0, "launchAttack": True}),
    ("({launchAttack: '1'})", {"newProducers": 0, "newSoldiers": 0, "launchAttack": True}),
    ("({launchAttack: [1]})", {"newProducers": 0, "newSoldiers": 0, "launchAttack": True}),
    ("({launchAttack: ' 1 '})", {"newProducers": 0, "newSoldiers": 0, "launchAttack": True}),
    ("({launchAttack: 1n})", {"newProducers": 0, "newSoldiers": 0, "launchAttack": True}),
    ("({launchAttack: 'true'})", {"newProducers": 0, "newSoldiers": 0, "launchAttack": False}),
    ("({launchAttack: {}})", {"newProducers": 0, "newSoldiers": 0, "launchAttack": False}),
    ("({launchAttack: 2})", {"newProducers": 0, "newSoldiers": 0, "launchAttack": False}),
    ("({launchAttack: []})", {"newProducers": 0, "newSoldiers": 0, "launchAttack": False}),
    ("({launchAttack: null})", {"newProducers": 0, "newSoldiers": 0, "launchAttack": False}),
    ("({launchAttack: false})", {"newProducers": 0, "newSoldiers": 0, "launchAttack": False}),
    ("[5, 6]", {"newProducers": 0, "newSoldiers": 0, "launchAttack": False}),
    (
        "Object.assign(() => 0, {newProducers: 2, launchAttack: true})",
        {"newProducers": 2, "newSoldiers": 0, "launchAttack": True},
    ),
    ("Promise.resolve({newProducers: 1})", {"newProducers": 0, "newSoldiers": 0, "launchAttack": False}),
    ("new Boolean(false)", {"newProducers": 0, "newSoldiers": 0, "launchAttack": False}),
]

SEED_CASES: list[tuple[str, Any]] = [
    ("undefined", None),
    ("null", None),
    ("0", None),
    ("5", None),
    ("'hello'", None),
    ("true", None),
    ("false", None),
    ("({})", {}),
    ("({newProducers: 2})", {"newProducers": 2}),
    (
        "({launchAttack: true, newSoldiers: 3, newProducers: 2, extra: 1})",
        {"newProducers": 2, "newSoldiers": 3, "launchAttack": True},
    ),
    (
        "({newProducers: 0.5, newSoldiers: -1, launchAttack: 'yes'})",
        {"newProducers": 0.5, "newSoldiers": -1, "launchAttack": "yes"},
    ),
    (
        "({newProducers: NaN, newSoldiers: Infinity, launchAttack: -Infinity})",
        {"newProducers": None, "newSoldiers": None, "launchAttack": None},
    ),
    ("({newProducers: undefined, newSoldiers: 3})", {"newSoldiers": 3}),
    ("({newProducers: '3', launchAttack: 1})", {"newProducers": "3", "launchAttack": 1}),
    ("({newProducers: [1], newSoldiers: {a: 1}})", {"newProducers": [1], "newSoldiers": {"a": 1}}),
    ("({newProducers: null})", {"newProducers": None}),
    ("({newProducers: -0})", {"newProducers": 0}),
    ("({newProducers: () => 1, newSoldiers: Symbol('s')})", {}),
    ("({newProducers: new Date(0)})", {"newProducers": "1970-01-01T00:00:00.000Z"}),
    ("[1]", {}),
    ("Object.assign(function () {}, {newProducers: 2})", {"newProducers": 2}),
    ("Promise.resolve({newProducers: 1})", {}),
]


def _value_bot(folder: Path, expressions: list[str]) -> Path:
    thunks = ",\n  ".join(f"() => ({expression})" for expression in expressions)
    source = f"""const values = [
  {thunks},
];
let index = 0;
export default () => ({{ playTurn() {{ return values[index++](); }} }});
"""
    return write_bot(folder, "values.js", source)


def _normalised(folder: Path, rules: str, cases: list[tuple[str, Any]]) -> list[Any]:
    bot = _value_bot(folder, [expression for expression, _ in cases])
    requests = [start(1, rules=rules), *(turn(i + 2, turn=2) for i in range(len(cases)))]
    out = pipe(bot, requests)
    assert len(out.replies) == len(cases) + 1, out.stderr
    return out.payloads[1:]


@pytest.fixture(scope="module")
def bravolt_results(tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    return _normalised(tmp_path_factory.mktemp("bravolt"), "bravolt2018", BRAVOLT_CASES)


@pytest.fixture(scope="module")
def seed_results(tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    return _normalised(tmp_path_factory.mktemp("seed"), "seed", SEED_CASES)


@pytest.mark.parametrize(("index", "case"), list(enumerate(BRAVOLT_CASES)), ids=[c for c, _ in BRAVOLT_CASES])
def test_bravolt2018_normalisation(bravolt_results: list[Any], index: int, case: tuple[str, Any]) -> None:
    expected = case[1]
    got = bravolt_results[index]
    assert got == expected
    if expected is not None:
        assert list(got) == ["newProducers", "newSoldiers", "launchAttack"]  # always all three keys
        assert type(got["launchAttack"]) is bool


@pytest.mark.parametrize(("index", "case"), list(enumerate(SEED_CASES)), ids=[c for c, _ in SEED_CASES])
def test_seed_normalisation(seed_results: list[Any], index: int, case: tuple[str, Any]) -> None:
    expected = case[1]
    got = seed_results[index]
    assert got == expected
    if expected is not None:
        assert list(got) == list(expected)  # key order newProducers, newSoldiers, launchAttack


def test_seed_unserialisable_action_is_a_playturn_error(tmp_path: Path) -> None:
    bot = _value_bot(
        tmp_path, ["{newProducers: 10n}", "(() => { const a = {}; a.self = a; return {newSoldiers: a}; })()"]
    )
    out = pipe(bot, [start(1), turn(2), turn(3, turn=2)])
    assert out.payloads[1]["error"].startswith("playTurn: ")
    assert list(out.payloads[1]) == ["error"]
    assert out.payloads[2]["error"].startswith("playTurn: ")


def test_a_missing_play_turn_is_no_action(tmp_path: Path) -> None:
    bot = write_bot(tmp_path, "noplay.js", "export default () => ({ playTurn: 'not a function' });\n")
    assert pipe(bot, [start(1, rules="bravolt2018"), turn(2)]).payloads[1] is None
    assert pipe(bot, [start(1, rules="seed"), turn(2)]).payloads[1] is None


def test_a_throwing_getter_or_value_of_is_a_playturn_error(tmp_path: Path) -> None:
    bot = _value_bot(
        tmp_path,
        [
            "{get newProducers() { throw new Error('getter'); }}",
            "{newSoldiers: {valueOf() { throw new Error('valueOf'); }}}",
            "{launchAttack: Symbol('s'), newSoldiers: 1}",
        ],
    )
    out = pipe(bot, [start(1, rules="bravolt2018"), turn(2), turn(3, turn=2), turn(4, turn=3)])
    assert out.payloads[1] == {"error": "playTurn: getter"}
    assert out.payloads[2] == {"error": "playTurn: valueOf"}
    assert out.payloads[3] == {"newProducers": 0, "newSoldiers": 1, "launchAttack": False}


# -- hook errors ---------------------------------------------------------------------------------
def _thrower(hooks: str, requests: list[Any]) -> Piped:
    return pipe(kit_bot("hook-thrower.js"), requests, env={**os.environ, "DRONES_THROW": hooks})


GREEDY_1 = {"newProducers": 1, "newSoldiers": 0, "launchAttack": False}
META = {"name": "Hook Thrower (Test Bot)", "author": "botarena"}


def test_on_match_start_throws() -> None:
    out = _thrower("onMatchStart", [start(1), turn(2)])
    assert out.payloads == [{"meta": META, "error": "onMatchStart: onMatchStart failed on purpose"}, GREEDY_1]
    assert "onMatchStart threw: Error: onMatchStart failed on purpose\n    at " in out.stderr


def test_on_round_start_throws() -> None:
    out = _thrower("onRoundStart", [start(1), turn(2), turn(3, turn=2, producers=2)])
    assert out.payloads[1] == {**GREEDY_1, "error": "onRoundStart: onRoundStart failed on purpose"}
    assert out.payloads[2] == {"newProducers": 2, "newSoldiers": 0, "launchAttack": False}
    assert "onRoundStart threw: Error: onRoundStart failed on purpose\n    at " in out.stderr


def test_on_round_end_throws_at_next_round_and_at_end() -> None:
    requests = [
        start(1),
        turn(2),
        turn(3, round=2, previous_round=ROUND_RESULT),
        end(4, last_round=ROUND_RESULT),
    ]
    out = _thrower("onRoundEnd", requests)
    assert out.payloads[1] == GREEDY_1
    assert out.payloads[2] == {**GREEDY_1, "error": "onRoundEnd: onRoundEnd failed on purpose"}
    assert out.payloads[3] == {"error": "onRoundEnd: onRoundEnd failed on purpose"}


def test_two_hooks_throw_in_one_request() -> None:
    out = _thrower("onRoundEnd,onRoundStart", [start(1), turn(2, round=2, previous_round=ROUND_RESULT)])
    error = "onRoundEnd: onRoundEnd failed on purpose; onRoundStart: onRoundStart failed on purpose"
    assert out.payloads[1] == {**GREEDY_1, "error": error}


def test_play_turn_throws() -> None:
    out = _thrower("playTurn,onRoundStart", [start(1), turn(2), turn(3, turn=2)])
    assert out.payloads[1:] == [{"error": "playTurn: playTurn failed on purpose"}] * 2
    assert "playTurn threw: Error: playTurn failed on purpose\n    at " in out.stderr


def test_factory_throws_fails_every_request() -> None:
    out = _thrower("factory", [start(1), turn(2), end(3, last_round=ROUND_RESULT)])
    assert out.payloads == [{"error": "factory: factory failed on purpose"}] * 3


def test_hook_error_with_a_null_action_stays_null(tmp_path: Path) -> None:
    source = (
        "export default () => ({ onRoundStart() { throw new Error('x'); }, playTurn() { return 0; } });\n"
    )
    bot = write_bot(tmp_path, "nullish.js", source)
    assert pipe(bot, [start(1, rules="bravolt2018"), turn(2)]).payloads[1] is None
    assert pipe(bot, [start(1, rules="seed"), turn(2)]).payloads[1] is None


def test_thrown_non_errors_are_described(tmp_path: Path) -> None:
    source = """let n = 0;
export default () => ({ playTurn() {
  n += 1;
  if (n === 1) throw "a string";
  if (n === 2) throw { toString() { throw new Error("no"); } };
  throw null;
} });
"""
    bot = write_bot(tmp_path, "odd-throws.js", source)
    out = pipe(bot, [start(1), turn(2), turn(3, turn=2), turn(4, turn=3)])
    assert out.payloads[1:] == [
        {"error": "playTurn: a string"},
        {"error": "playTurn: unprintable exception"},
        {"error": "playTurn: null"},
    ]


def test_async_errors_are_logged_not_fatal(tmp_path: Path) -> None:
    source = """export default () => ({
  async playTurn() { throw new Error("async boom"); },
  onRoundStart() { setTimeout(() => { throw new Error("timer boom"); }, 0); },
});
"""
    bot = write_bot(tmp_path, "async.js", source)
    thrown = ("a promise threw: Error: async boom", "an asynchronous callback threw: Error: timer boom")
    with Session(bot) as session:
        log = StderrLines(session.proc)
        assert session.ask(start(1, rules="bravolt2018")) == {"meta": {"name": "Anonymous Player"}}
        # A Promise is an object without known fields: no production, no attack.
        nothing = {"newProducers": 0, "newSoldiers": 0, "launchAttack": False}
        assert session.ask(turn(2)) == nothing
        # Issue 28, item 8: wait for the rejection and the timer to be reported (their lines on the
        # pipe), not for a fixed time, then show that the process lives on and still answers.
        log.wait_for(*thrown)
        assert session.ask(turn(3, turn=2)) == nothing
        stderr = log.until_exit()
    assert all(message in stderr for message in thrown), stderr


class StderrLines:
    """A running adapter's stderr, read line by line as it comes (the pipe is the event)."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stderr is not None
        self.proc = proc
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, args=(proc.stderr,), daemon=True)
        self._reader.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            with self._changed:
                self.lines.append(line)
                self._changed.notify_all()

    def wait_for(self, *needles: str) -> None:
        """Return once every needle is in some line; fail naming them after the suite's bound."""

        def printed() -> bool:
            return all(any(needle in line for line in self.lines) for needle in needles)

        with self._changed:
            assert self._changed.wait_for(printed, timeout=WAIT_S), f"never printed {needles}: {self.lines}"

    def until_exit(self) -> str:
        """Close the adapter's stdin, wait for its clean exit, and return all it printed on stderr."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        assert self.proc.wait(timeout=WAIT_S) == 0
        self._reader.join(timeout=WAIT_S)
        return "".join(self.lines)


# -- modules that cannot be used -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("source", "error"),
    [
        ("export default { playTurn() { return {}; } };\n", "default export is not a function"),
        ("export const bot = () => ({});\n", "default export is not a function"),
        ("export default () => 42;\n", "factory did not return an object"),
        ("export default () => null;\n", "factory did not return an object"),
        ("export default () => { throw new TypeError('nope'); };\n", "factory: nope"),
    ],
)
def test_unusable_module_fails_every_request(tmp_path: Path, source: str, error: str) -> None:
    bot = write_bot(tmp_path, "bad.js", source)
    out = pipe(bot, [start(1), turn(2), end(3, last_round=ROUND_RESULT)])
    if error == "default export is not a function":  # and how to run a bot that is not a 2018 one
        error += (
            ": a 2018 bot's default export makes its player; a bot that reads and writes JSON lines"
            f" itself runs as a command: cmd:node {bot}"
        )
    assert out.payloads == [{"error": error}] * 3


def test_syntax_error_and_missing_file(tmp_path: Path) -> None:
    broken = write_bot(tmp_path, "broken.js", "export default function ( {\n")
    out = pipe(broken, [start(1), turn(2)])
    assert out.payloads[0] == out.payloads[1]
    assert out.payloads[0]["error"].startswith(f"cannot load {broken}: ")
    assert "SyntaxError" in out.stderr
    missing = tmp_path / "missing.js"
    out = pipe(missing, [start(1), turn(2)])
    assert out.payloads[0]["error"].startswith(f"cannot load {missing}: ")
    assert out.payloads[1] == out.payloads[0]


def test_module_throwing_at_import(tmp_path: Path) -> None:
    bot = write_bot(
        tmp_path, "import-throws.js", "throw new Error('top level');\nexport default () => ({});\n"
    )
    assert pipe(bot, [start(1)]).payloads == [{"error": f"cannot load {bot}: top level"}]


def test_no_bot_argument() -> None:
    out = pipe("", [start(1), turn(2)])
    assert out.payloads == [{"error": "usage: node adapter.mjs <path/to/bot.js>"}] * 2


# -- output hygiene ----------------------------------------------------------------------------------
def test_console_output_goes_to_stderr() -> None:
    requests = [
        start(1),
        turn(2),
        turn(3, turn=2, producers=2),
        turn(4, round=2, previous_round=ROUND_RESULT),
    ]
    out = pipe(kit_bot("chatty.js"), requests)
    assert [reply["id"] for reply in out.replies] == [1, 2, 3, 4]  # every stdout line is a reply
    for text in (
        "chatty: match starts",
        "chatty: raw stdout write",
        "chatty: info",
        "chatty: turn 2 0",
        "chatty: warn",
        "chatty: round over WIN",
        "chatty: error stream",
        "(index)",
    ):
        assert text in out.stderr


def test_module_syntax_detection_loads_typeless_esm(tmp_path: Path) -> None:
    """The kit's bots and any `export default` .js file without package.json load with no flag."""
    plain = write_bot(tmp_path, "plain.js", "export default function () { return { meta: { ok: 1 } }; }\n")
    assert pipe(plain, [start(1)]).payloads == [{"meta": {"ok": 1}}]
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "package.json").write_text('{"name": "no-type"}')
    typeless = write_bot(tmp_path / "pkg", "bot.js", "export default () => ({ meta: { ok: 2 } });\n")
    assert pipe(typeless, [start(1)]).payloads == [{"meta": {"ok": 2}}]


def test_other_printing_paths_go_to_stderr(tmp_path: Path) -> None:
    source = """import nodeConsole from "node:console";
import { stdout } from "node:process";
export default () => ({
  playTurn() {
    nodeConsole.log("via node:console");
    stdout.write("via node:process stdout\\n");
    console.log("%s and %d", "format", 42);
    return { newProducers: 1 };
  },
});
"""
    bot = write_bot(tmp_path, "printer.js", source)
    out = pipe(bot, [start(1), turn(2)])
    assert out.payloads == [{"meta": {"name": "Anonymous Player"}}, {"newProducers": 1}]
    for text in ("via node:console", "via node:process stdout", "format and 42"):
        assert text in out.stderr
