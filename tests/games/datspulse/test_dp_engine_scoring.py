"""§6 scoring: round places and points, final standings, achievements; the Union kill of step 3."""

from __future__ import annotations

from typing import Any

from dp_testkit import A, B, S, W, X, board_e, force, put

from botarena.games.datspulse.config import datspulse_config
from botarena.games.datspulse.rules import round_places, round_points
from botarena.games.datspulse.standings import achievements, standings
from botarena.games.datspulse.text import render


def row(index: int, name: str, score: int, place: int, points: int, lost: int = 0) -> dict[str, Any]:
    return {"index": index, "name": name, "score": score, "place": place, "points": points, "unitsLost": lost}


def test_s62_zero_score_gets_zero_points_and_floor_past_the_table() -> None:
    config = datspulse_config()
    assert round_points(config, 1, 0) == 0
    assert round_points(config, 50, 10) == 1
    assert round_points(config, 51, 10) == config.place_points_floor == 1
    assert round_points(datspulse_config("default", {"place_points_floor": 0}), 60, 10) == 0
    assert round_places([0, 0, 0]) == [1, 1, 1]


def test_s61_results_of_a_round() -> None:
    r = board_e(turns=1)
    r.state.teams[A].score = 120
    r.state.teams[B].units_lost = 4
    r.transition()
    assert r.results() == [row(0, "A", 120, 1, 170, 0), row(1, "B", 0, 2, 0, 4)]


def test_s63_shared_place_on_all_three_keys_and_active_flag() -> None:
    rounds = [
        [row(0, "A", 100, 1, 170, 3), row(1, "B", 100, 1, 170, 3), row(2, "C", 0, 3, 0, 9)],
        [row(0, "A", 0, 2, 0, 1), row(1, "B", 0, 2, 0, 1), row(2, "C", 50, 1, 170, 0)],
        [row(0, "C", 0, 1, 0, 0), row(1, "A", 0, 1, 0, 0), row(2, "B", 0, 1, 0, 0)],
    ]
    table = standings(rounds)
    assert [(t["name"], t["place"]) for t in table] == [("A", 1), ("B", 1), ("C", 3)]
    flags = {t["name"]: t["active"] for t in table}
    assert flags == {"A": False, "B": False, "C": False}  # ceil(3/2) = 2 scoring rounds needed
    assert standings(rounds[:2])[0]["active"] is True  # ceil(2/2) = 1


def test_s64_achievements_off_by_default() -> None:
    assert achievements(datspulse_config(), 1, [], [], []) == {}


def test_s64_achievements() -> None:
    config = datspulse_config(
        "final",
        {
            "achievement_lucky_round": 1,
            "achievement_lucky_place": 2,
            "achievement_queen_round": 2,
            "achievement_union_round": 2,
        },
    )
    round1 = [row(0, "A", 300, 1, 170, 5), row(1, "B", 200, 2, 114, 2), row(2, "C", 200, 2, 114, 7)]
    round2 = [row(0, "A", 100, 2, 114, 9), row(1, "B", 300, 1, 170, 9), row(2, "C", 0, 3, 0, 1)]
    table = standings([round1, round2])
    got = achievements(config, 7, [round1, round2], [[], [(12, 2), (30, 0)]], table)
    assert got["lucky"] in (["B"], ["C"])  # drawn between the two teams sharing place 2
    assert got["queen"] == ["B"]  # 9 lost by A and B; B's higher score breaks the tie
    assert got["union"] == ["C"]  # the first Union kill of the round
    assert got["top10"] == ["B", "A", "C"] and got["top20"] == []
    assert achievements(config, 7, [round1, round2], [[], [(12, 2)]], table) == got  # seeded draw


def test_s64_union_kill_three_units_on_one_hex() -> None:
    r = board_e()
    put(r, A, W, (0, 0), "A-W1")
    put(r, A, S, (0, 0), "A-S1")
    put(r, A, X, (0, 0), "A-X1")
    put(r, B, S, (1, 0), "B-S1", health=110)  # 30 + 70 leave 10; the scout's 20 kills
    force(r, "order", [A, B])
    r.transition()
    assert r.state.by_id["B-S1"].health == 0
    assert r.union_kills == [(1, A)]


def test_s64_no_union_when_the_helpers_stand_elsewhere() -> None:
    r = board_e()
    put(r, A, W, (0, 1), "A-W1")
    put(r, A, S, (0, 0), "A-S1")
    put(r, A, X, (0, 0), "A-X1")
    put(r, B, W, (1, 0), "B-W1", health=135)
    force(r, "order", [A, B])
    r.transition()
    assert r.state.by_id["B-W1"].health == 0
    assert r.union_kills == []


def test_text_render_shows_units_anthills_and_terrain() -> None:
    r = board_e(terrain={(1, 0): 5})
    put(r, A, W, (0, 0))
    text = render(r.state)
    lines = text.splitlines()
    assert lines[0] == "turn 0, radius 10, teams 2"
    assert len(lines) == 1 + 21
    assert "a #" in lines[1 + 10]  # row r = 0: A's worker at (0,0), stone at (1,0)
    assert text.count("A") == 3 and text.count("B") == 3
