"""§5 request-time validation: byte-exact error strings, check order, merging (§7.2), malformed input."""

from __future__ import annotations

import math
from typing import Any

import pytest
from dp_testkit import A, B, S, W, X, board_e, move, put

from botarena.games.datspulse.engine import BadBody, Round


def we2_round() -> Round:
    r = board_e()
    r.state.turn = 3
    put(r, A, W, (0, 0), "A-W1")
    put(r, A, W, (4, -2), "A-W2")
    put(r, A, S, (0, 2), "A-S1")
    put(r, A, X, (-3, 0), "A-X1")
    put(r, A, W, (10, 0), "A-W3")
    put(r, B, W, (3, 3), "B-W1")
    return r


def test_we2_request_time_validation() -> None:
    r = we2_round()
    body = {
        "moves": [
            move("A-W1", (1, 0), (1, 1)),
            move("A-W2", (4, -2), (5, -2)),
            move("A-S1", (0, 1), (1, 0), (2, 1)),
            move("A-X1", *[(-3 + k, 0) for k in range(1, 9)]),
            move("A-W3", (11, 0)),
            move("B-W1", (3, 2)),
            move("zzz", (1, 1)),
        ]
    }
    errors = r.submit(A, body)
    assert errors == [
        "ant A-W2 cannot move from {4 -2} to {4 -2}, not adjacent coordinates",
        "ant A-S1 cannot move from {1 0} to {2 1}, not adjacent coordinates",
        "ant A-X1 cannot move more than 7 tiles, but tried to move 8 tiles",
        "ant A-W3 cannot move to {11 0}, tile not found",
        "ant B-W1 is dead",
        "ant zzz is dead",
    ]
    assert r.orders(A) == {"A-W1": [(1, 0), (1, 1)]}
    ants = {a["id"]: a for a in r.arena(A, 1.0)["ants"]}
    assert ants["A-W1"]["move"] == [{"q": 1, "r": 0}, {"q": 1, "r": 1}]
    assert "move" not in ants["A-W2"]


def test_dp24_corpse_orders_are_dead() -> None:
    r = board_e()
    put(r, A, W, (0, 0), "A-W1", health=0)
    assert r.submit(A, {"moves": [move("A-W1")]}) == ["ant A-W1 is dead"]


def test_s5_check_order_length_before_adjacency() -> None:
    r = board_e()
    put(r, A, S, (0, 0), "A-S1")  # speed 4
    # 5 hexes, the first one not adjacent: the length check comes first
    assert r.submit(A, {"moves": [move("A-S1", (5, 5), (1, 0), (2, 0), (3, 0), (4, 0))]}) == [
        "ant A-S1 cannot move more than 4 tiles, but tried to move 5 tiles"
    ]


def test_s5_adjacency_checked_before_the_map() -> None:
    r = board_e()
    put(r, A, W, (10, 0), "A-W1")
    # (12, 0) is neither adjacent to (10, 0) nor on the map: "not adjacent" wins
    assert r.submit(A, {"moves": [move("A-W1", (12, 0))]}) == [
        "ant A-W1 cannot move from {10 0} to {12 0}, not adjacent coordinates"
    ]
    # a path that leaves the map and comes back stops at the first off-map hex
    assert r.submit(A, {"moves": [move("A-W1", (11, 0), (10, 0))]}) == [
        "ant A-W1 cannot move to {11 0}, tile not found"
    ]


def test_s5_path_length_counts_hexes_not_mp() -> None:
    r = board_e(terrain={(1, 0): 3, (2, 0): 3, (3, 0): 3, (4, 0): 3, (5, 0): 3})
    put(r, A, W, (0, 0), "A-W1")  # speed 5: five dirt hexes (10 MP) pass the request-time check
    assert r.submit(A, {"moves": [move("A-W1", *[(k, 0) for k in range(1, 6)])]}) == []


def test_s5_stone_and_occupied_hexes_pass_at_request_time() -> None:
    r = board_e(terrain={(1, 0): 5})
    put(r, A, W, (0, 0), "A-W1")
    put(r, B, W, (0, 1), "B-W1")
    assert r.submit(A, {"moves": [move("A-W1", (1, 0))]}) == []
    assert r.submit(A, {"moves": [move("A-W1", (0, 1))]}) == []


def test_we15_dp60_merging_orders_latest_accepted_wins() -> None:
    r = board_e()
    r.state.turn = 7
    put(r, A, W, (0, 0), "A-W1")
    put(r, A, W, (3, 2), "A-W2")
    assert r.submit(A, {"moves": [move("A-W1", (1, 0)), move("A-W2", (4, 2))]}) == []
    assert r.submit(A, {"moves": [move("A-W1", (0, 1)), move("A-W2", (9, 9))]}) == [
        "ant A-W2 cannot move from {3 2} to {9 9}, not adjacent coordinates"
    ]
    assert r.orders(A) == {"A-W1": [(0, 1)], "A-W2": [(4, 2)]}
    assert r.submit(A, {"moves": [move("A-W1")]}) == []
    ants = {a["id"]: a for a in r.arena(A, 1.0)["ants"]}
    assert "move" not in ants["A-W1"]
    assert ants["A-W2"]["move"] == [{"q": 4, "r": 2}]
    r.transition()
    ants = {a["id"]: a for a in r.arena(A, 1.0)["ants"]}
    assert (ants["A-W1"]["q"], ants["A-W1"]["r"]) == (0, 0)
    assert (ants["A-W2"]["q"], ants["A-W2"]["r"]) == (4, 2)
    assert r.orders(A) == {}  # DP-60: orders never carry over


def test_s5_repeated_ant_in_one_request_last_accepted_wins() -> None:
    r = board_e()
    put(r, A, W, (0, 0), "A-W1")
    errors = r.submit(A, {"moves": [move("A-W1", (1, 0)), move("A-W1", (0, 1)), move("A-W1", (5, 5))]})
    assert errors == ["ant A-W1 cannot move from {0 0} to {5 5}, not adjacent coordinates"]
    assert r.orders(A) == {"A-W1": [(0, 1)]}


@pytest.mark.parametrize(
    "body, reason",
    [
        ([], "top level is not an object"),
        ("moves", "top level is not an object"),
        (None, "top level is not an object"),
        ({"moves": {}}, "moves is neither an array nor null"),
        ({"moves": "x"}, "moves is neither an array nor null"),
        ({"moves": 3}, "moves is neither an array nor null"),
    ],
)
def test_s5_whole_body_rejected(body: Any, reason: str) -> None:
    r = board_e()
    put(r, A, W, (0, 0), "A-W1")
    r.submit(A, {"moves": [move("A-W1", (1, 0))]})
    with pytest.raises(BadBody) as caught:
        r.submit(A, body)
    assert str(caught.value) == reason
    assert r.orders(A) == {"A-W1": [(1, 0)]}  # nothing changed


@pytest.mark.parametrize("body", [{}, {"moves": None}, {"other": 1}, {"moves": []}])
def test_s5_no_commands(body: Any) -> None:
    r = board_e()
    put(r, A, W, (0, 0), "A-W1")
    assert r.submit(A, body) == []
    assert r.orders(A) == {}


@pytest.mark.parametrize(
    "entry",
    [
        3,
        "A-W1",
        None,
        [],
        {"path": [{"q": 1, "r": 0}]},
        {"ant": 7, "path": []},
        {"ant": None, "path": []},
        {"ant": "A-W1", "path": {"q": 1, "r": 0}},
        {"ant": "A-W1", "path": "x"},
        {"ant": "A-W1", "path": [{"q": 1}]},
        {"ant": "A-W1", "path": [{"q": 1.5, "r": 0}]},
        {"ant": "A-W1", "path": [{"q": "1", "r": 0}]},
        {"ant": "A-W1", "path": [{"q": True, "r": 0}]},
        {"ant": "A-W1", "path": [{"q": math.inf, "r": 0}]},
        {"ant": "A-W1", "path": [{"q": math.nan, "r": 0}]},
        {"ant": "A-W1", "path": [[1, 0]]},
    ],
)
def test_s5_malformed_entry_skipped_others_processed(entry: Any) -> None:
    r = board_e()
    put(r, A, W, (0, 0), "A-W1")
    put(r, A, S, (0, 0), "A-S1")
    errors = r.submit(A, {"moves": [move("A-S1", (0, 1)), entry, move("A-W1", (1, 0))]})
    assert errors == ["invalid move command at index 1"]
    assert r.orders(A) == {"A-S1": [(0, 1)], "A-W1": [(1, 0)]}


def test_s5_integral_floats_and_unknown_keys_accepted() -> None:
    r = board_e()
    put(r, A, W, (0, 0), "A-W1")
    body = {"moves": [{"ant": "A-W1", "path": [{"q": 1.0, "r": -0.0, "z": 9}], "extra": [1]}], "x": {}}
    assert r.submit(A, body) == []
    assert r.orders(A) == {"A-W1": [(1, 0)]}
    assert all(type(v) is int for v in r.orders(A)["A-W1"][0])


def test_s5_null_path_means_stay() -> None:
    r = board_e()
    put(r, A, W, (0, 0), "A-W1")
    r.submit(A, {"moves": [move("A-W1", (1, 0))]})
    assert r.submit(A, {"moves": [{"ant": "A-W1", "path": None}]}) == []
    assert r.orders(A) == {"A-W1": []}
    assert "move" not in r.arena(A, 1.0)["ants"][0]


def test_s5_huge_coordinates_do_not_crash() -> None:
    r = board_e()
    put(r, A, W, (0, 0), "A-W1")
    assert r.submit(A, {"moves": [move("A-W1", (10**30, -(10**30)))]}) == [
        f"ant A-W1 cannot move from {{0 0}} to {{{10**30} {-(10**30)}}}, not adjacent coordinates"
    ]
    assert r.submit(A, {"moves": [{"ant": "A-W1", "path": [{"q": 1e300, "r": 0}]}]}) == [
        f"ant A-W1 cannot move from {{0 0}} to {{{int(1e300)} 0}}, not adjacent coordinates"
    ]


def test_s72_round_is_over() -> None:
    r = board_e(turns=1)
    put(r, A, W, (0, 0), "A-W1")
    r.transition()
    assert r.finished
    assert r.submit(A, {"moves": [move("A-W1", (1, 0))]}) == ["round is over"]
    assert r.orders(A) == {}
    with pytest.raises(BadBody):
        r.submit(A, [])
    with pytest.raises(RuntimeError):
        r.transition()
