"""OpenSkill ratings, pair records with Wilson intervals, and the leaderboard JSON."""

from __future__ import annotations

import json
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from botarena.core.formats import FinishedMatch
from botarena.tournament.leaderboard import leaderboard
from botarena.tournament.ratings import (
    Z95,
    pair_matrix,
    rate,
    wilson_interval,
)


def fm(key: str, seats: tuple[str, ...], ranks: tuple[int, ...] | None, round_: int = 1) -> FinishedMatch:
    scores = None if ranks is None else tuple(float(len(seats) - r) for r in ranks)
    return FinishedMatch(key=key, round=round_, seats=seats, ranks=ranks, scores=scores)


def test_ratings_match_a_direct_openskill_call() -> None:
    model = PlackettLuce()
    a, b, c = model.rating(), model.rating(), model.rating()
    [[a], [b]] = model.rate([[a], [b]], ranks=[1, 2])
    [[b], [c], [a]] = model.rate([[b], [c], [a]], ranks=[1, 2, 2])
    matches = [fm("r02-m001", ("b", "c", "a"), (1, 2, 2), 2), fm("r01-m001", ("a", "b"), (1, 2), 1)]
    table = {r.name: r for r in rate(["a", "b", "c"], matches)}  # arrival order does not matter
    for name, expected in (("a", a), ("b", b), ("c", c)):
        assert table[name].mu == pytest.approx(expected.mu, abs=1e-12)
        assert table[name].sigma == pytest.approx(expected.sigma, abs=1e-12)
        assert table[name].ordinal == pytest.approx(expected.mu - 3 * expected.sigma, abs=1e-12)
    assert table["a"].played == 2 and table["c"].played == 1


def test_ratings_sorted_by_ordinal_then_name_and_failed_matches_skipped() -> None:
    matches = [
        fm("r01-m001", ("x", "y"), (2, 1)),
        fm("r01-m002", ("x", "z"), None),  # failed: no result
    ]
    table = rate(["z", "x", "y"], matches)
    assert [r.name for r in table] == ["y", "z", "x"]
    assert [r.played for r in table] == [1, 0, 1]
    assert table[1].mu == 25.0 and table[1].sigma == pytest.approx(25 / 3)
    unplayed = rate(["b", "a"], [])
    assert [r.name for r in unplayed] == ["a", "b"]  # equal ordinals: by name


def test_ratings_reject_strangers() -> None:
    with pytest.raises(ValueError, match="not an entrant"):
        rate(["a", "b"], [fm("k", ("a", "q"), (1, 2))])
    with pytest.raises(ValueError, match="2 ranks for 3 seats"):
        rate(["a", "b", "c"], [FinishedMatch("k", 1, ("a", "b", "c"), (1, 2), None)])


def test_wilson_interval_known_values() -> None:
    assert abs(Z95 - 1.959964) < 1e-6
    low, high = wilson_interval(0.5, 2)
    assert (round(low, 4), round(high, 4)) == (0.0945, 0.9055)
    low, high = wilson_interval(1.0, 10)
    assert high == 1.0 and low == pytest.approx(0.7225, abs=1e-4)
    assert wilson_interval(0.0, 0) == (0.0, 1.0)


def test_pair_matrix_for_two_and_four_players() -> None:
    matches = [
        fm("r01-m001", ("a", "b"), (1, 2)),
        fm("r01-m002", ("b", "a"), (1, 1)),
        fm("r02-m001", ("a", "b", "c", "d"), (1, 2, 2, 4), 2),
        fm("r02-m002", ("c", "d"), None, 2),
    ]
    records = pair_matrix(["a", "b", "c", "d"], matches)
    ab = records[("a", "b")]
    assert (ab.wins, ab.draws, ab.losses, ab.played) == (2, 1, 0, 3)
    assert ab.score == pytest.approx(2.5 / 3)
    ba = records[("b", "a")]
    assert (ba.wins, ba.draws, ba.losses) == (0, 1, 2)
    bc = records[("b", "c")]
    assert (bc.wins, bc.draws, bc.losses, bc.score) == (0, 1, 0, 0.5)
    assert (records[("c", "d")].wins, records[("c", "d")].played) == (1, 1)  # the failed match is absent
    assert ab.ci_low < ab.score < ab.ci_high
    assert len(records) == 12


def test_leaderboard_shape_points_and_json() -> None:
    matches = [
        fm("r01-m001", ("a", "b"), (1, 2)),
        fm("r01-m002", ("b", "a"), (1, 1)),
        fm("r02-m001", ("a", "b", "c", "d"), (1, 2, 2, 4), 2),
    ]
    board = leaderboard(["a", "b", "c", "d"], matches, format_name="round-robin")
    assert set(board) == {"rows", "pairs"}
    rows = {row["name"]: row for row in board["rows"]}
    assert [row["rank"] for row in board["rows"]] == [1, 2, 3, 4]
    assert board["rows"][0]["name"] == "a"
    assert set(rows["a"]) == {
        "rank",
        "name",
        "mu",
        "sigma",
        "ordinal",
        "played",
        "wins",
        "draws",
        "losses",
        "points",
    }
    assert (rows["a"]["wins"], rows["a"]["draws"], rows["a"]["losses"], rows["a"]["points"]) == (2, 1, 0, 4.5)
    assert (rows["b"]["wins"], rows["b"]["draws"], rows["b"]["losses"], rows["b"]["points"]) == (0, 1, 2, 2.0)
    assert rows["c"]["points"] == 1.5 and rows["d"]["points"] == 0.0  # 4-player: 3, 1.5, 1.5, 0
    assert board["pairs"]["names"] == ["a", "b", "c", "d"]
    cells = board["pairs"]["cells"]
    assert cells[0][0] is None
    assert cells[0][1] == {
        "wins": 2,
        "draws": 1,
        "losses": 0,
        "played": 3,
        "score": pytest.approx(2.5 / 3),
        "ci": [pytest.approx(cells[0][1]["ci"][0]), pytest.approx(cells[0][1]["ci"][1])],
    }
    assert json.loads(json.dumps(board)) == board


def test_leaderboard_shares_ranks_and_leaves_never_met_pairs_null() -> None:
    board = leaderboard(["a", "b", "c"], [fm("k", ("a", "b"), (1, 1))], format_name="swiss")
    assert [row["rank"] for row in board["rows"]] == [1, 1, 3]
    assert board["pairs"]["cells"][0][2] is None and board["pairs"]["cells"][2][0] is None


def test_e18_leaderboard_has_the_drones_2018_standings() -> None:
    results = {
        ("A", "D"): (600, 400),
        ("B", "C"): (500, 500),
        ("A", "C"): (300, 700),
        ("D", "B"): (0, 0),
        ("A", "B"): (510, 490),
        ("C", "D"): (480, 520),
    }
    matches = []
    for i, ((one, two), (w1, w2)) in enumerate(results.items()):
        ranks = (1, 2) if w1 > w2 else (2, 1) if w2 > w1 else (1, 1)
        matches.append(
            FinishedMatch(f"r{i // 2 + 1:02d}-m{i % 2 + 1:03d}", i // 2 + 1, (one, two), ranks, (w1, w2))
        )
    board = leaderboard(["A", "B", "C", "D"], matches, format_name="drones-2018")
    standings = board["standings"]
    assert [(s["entrant"], s["rank"], s["points"]) for s in standings] == [
        ("A", 1, 2.0),
        ("D", 2, 1.5),
        ("C", 3, 1.5),
        ("B", 4, 1.0),
    ]
    assert standings[0]["round_difference"] == 600 - 400 + 300 - 700 + 510 - 490
    points = {row["name"]: row["points"] for row in board["rows"]}
    assert points == {"A": 2.0, "B": 1.0, "C": 1.5, "D": 1.5}  # the same win 1 / draw 0.5 points


@st.composite
def results(draw: st.DrawFn) -> list[FinishedMatch]:
    names = ["a", "b", "c", "d", "e"]
    matches = []
    for i in range(draw(st.integers(0, 12))):
        size = draw(st.integers(2, 5))
        seats = tuple(draw(st.permutations(names))[:size])
        failed = draw(st.booleans()) and draw(st.booleans())
        ranks = None if failed else tuple(draw(st.lists(st.integers(1, size), min_size=size, max_size=size)))
        matches.append(FinishedMatch(f"k{i:02d}", draw(st.integers(1, 3)), seats, ranks, None))
    return matches


@settings(max_examples=60, deadline=None)
@given(results(), st.integers(0, 1000))
def test_results_order_does_not_matter(matches: list[FinishedMatch], seed: int) -> None:
    names = ["a", "b", "c", "d", "e"]
    other = list(matches)
    random.Random(seed).shuffle(other)
    assert rate(names, matches) == rate(names, other)
    assert leaderboard(names, matches, format_name="x") == leaderboard(names, other, format_name="x")
    board = leaderboard(names, matches, format_name="x")
    rated = [m for m in matches if m.ranks is not None]
    assert sum(row["played"] for row in board["rows"]) == sum(len(m.seats) for m in rated)
    total = sum(len(m.seats) * (len(m.seats) - 1) / 2 for m in rated)
    assert math.isclose(sum(row["points"] for row in board["rows"]), total)  # every comparison shares 1 point
    for (a, b), record in pair_matrix(names, matches).items():
        mirror = pair_matrix(names, matches)[(b, a)]
        assert (record.wins, record.draws, record.losses) == (mirror.losses, mirror.draws, mirror.wins)
        assert 0.0 <= record.ci_low <= record.score <= record.ci_high <= 1.0
