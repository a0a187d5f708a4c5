"""A game's own tournament standings (`GameInfo.tournament_standings`): the seam in the leaderboard, and
DatsPulse's spec 6.3 final standings over a lockstep tournament's rounds (one match = one round)."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from botarena.core.formats import FinishedMatch
from botarena.core.registry import get_game
from botarena.core.replay import read_replay
from botarena.games.datspulse import tournament_standings
from botarena.store import Store
from botarena.tournament.leaderboard import declared_standings, game_standings, leaderboard
from botarena.tournament.service import (
    Entrant,
    TournamentPlan,
    create_tournament,
    run_tournament,
    tournament_board,
    tournament_leaderboard,
)

# Five-turn rounds on the smallest map DP-4 allows per team: a whole 3-match tournament in about a second.
SMALL = {"turns": 5, "map_hexes_per_team": 300}
BOTS = ("forager", "raider", "random_walker")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    store = Store.open(f"sqlite:///{tmp_path / 'arena.db'}", replay_dir=tmp_path / "replays")
    yield store
    store.close()


def finished(key: str, round_: int, seats: Sequence[str], ranks: Sequence[int] | None) -> FinishedMatch:
    scores = None if ranks is None else tuple(float(r) for r in ranks)
    return FinishedMatch(key, round_, tuple(seats), None if ranks is None else tuple(ranks), scores)


# ------------------------------------------------------------------------------------- the seam


def test_the_seam_hands_the_game_its_matches_with_details_and_adds_the_table() -> None:
    seen: list[tuple[list[str], list[dict[str, Any]]]] = []

    def table(entrants: Sequence[str], matches: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        seen.append((list(entrants), [dict(m) for m in matches]))
        return {
            "title": "Custom",
            "columns": [{"key": "name", "label": "who", "extra": 1}],
            "rows": [{"name": n} for n in entrants],
        }

    matches = [
        finished("r02-m001", 2, ("b", "a"), [1, 2]),
        finished("r01-m002", 1, ("a", "b"), None),  # failed: no ranks, no details
        finished("r01-m001", 1, ("a", "b"), [2, 1]),
    ]
    details = {"r01-m001": {"x": 1}, "r02-m001": {"x": 2}, "r01-m002": {"x": 3}}
    board = leaderboard(["a", "b"], matches, format_name="round-robin", game_table=table, details=details)
    assert board["game_standings"] == {
        "title": "Custom",
        "columns": [{"key": "name", "label": "who"}],
        "rows": [{"name": "a"}, {"name": "b"}],
    }
    [(entrants, given)] = seen
    assert entrants == ["a", "b"]
    assert given == [  # canonical order (round, key)
        {
            "key": "r01-m001",
            "round": 1,
            "seats": ["a", "b"],
            "ranks": [2, 1],
            "scores": [2.0, 1.0],
            "details": {"x": 1},
        },
        {"key": "r01-m002", "round": 1, "seats": ["a", "b"], "ranks": None, "scores": None, "details": None},
        {
            "key": "r02-m001",
            "round": 2,
            "seats": ["b", "a"],
            "ranks": [1, 2],
            "scores": [1.0, 2.0],
            "details": {"x": 2},
        },
    ]
    # the ratings part is unchanged by the seam, and without a declared table there is no key
    plain = leaderboard(["a", "b"], matches, format_name="round-robin")
    assert "game_standings" not in plain
    assert {k: v for k, v in board.items() if k != "game_standings"} == plain


def test_the_seam_rejects_a_malformed_table_in_one_line() -> None:
    matches = [finished("r01-m001", 1, ("a", "b"), [1, 2])]
    for bad in (
        {"columns": [], "rows": []},
        {"title": 3, "columns": [], "rows": []},
        {"title": "t", "columns": [{"key": "k"}], "rows": []},
    ):
        with pytest.raises(ValueError, match="standings table") as info:
            game_standings(lambda entrants, matches, bad=bad: bad, ["a", "b"], matches)
        assert "\n" not in str(info.value)


def test_only_games_that_declare_standings_have_them() -> None:
    assert get_game("datspulse").tournament_standings is tournament_standings
    assert declared_standings("datspulse") is tournament_standings
    assert declared_standings("drones") is None  # drones' 2018 table belongs to the drones-2018 format
    assert declared_standings("no-such-game") is None


# ------------------------------------------------------------------------------------- DatsPulse 6.3


def round_details(rows: Sequence[tuple[str, int, int, int]]) -> dict[str, Any]:
    """A lockstep match's result details: per seat (team name, score, points, units lost)."""
    scores = [score for _, score, _, _ in rows]
    return {
        "turns": 5,
        "results": [
            {
                "index": seat,
                "name": name,
                "score": score,
                "place": 1 + sum(1 for other in scores if other > score),
                "points": points,
                "unitsLost": lost,
            }
            for seat, (name, score, points, lost) in enumerate(rows)
        ],
    }


def dp_match(
    key: str, seats: Sequence[str], details: dict[str, Any] | None, *, failed: bool = False
) -> dict[str, Any]:
    ranks = None if failed else [r["place"] for r in details["results"]] if details else [1] * len(seats)
    return {"key": key, "round": 1, "seats": list(seats), "ranks": ranks, "scores": None, "details": details}


def by_name(table: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["name"]: row for row in table["rows"]}


def test_dp_6_3_rows_go_to_the_entrant_in_each_seat_not_the_round_team_name() -> None:
    # the teams in the rounds carry display names; the seats say who the entrants are
    matches = [
        dp_match("m1", ["alpha", "beta"], round_details([("Bot A", 500, 170, 1), ("Bot B", 100, 114, 0)])),
        dp_match("m2", ["beta", "alpha"], round_details([("Bot B", 900, 170, 0), ("Bot A", 300, 114, 2)])),
    ]
    table = tournament_standings(["alpha", "beta"], matches)
    assert table["title"] == "DatsPulse final standings (spec 6.3)"
    assert [c["key"] for c in table["columns"]] == [
        "place",
        "name",
        "points",
        "calories",
        "unitsLost",
        "rounds",
        "roundsScored",
        "active",
    ]
    # equal points (284 each): more calories first (6.3 rule 2); the round names "Bot A"/"Bot B" are gone
    assert table["rows"] == [
        {
            "place": 1,
            "name": "beta",
            "points": 284,
            "calories": 1000,
            "unitsLost": 0,
            "rounds": 2,
            "roundsScored": 2,
            "active": True,
        },
        {
            "place": 2,
            "name": "alpha",
            "points": 284,
            "calories": 800,
            "unitsLost": 3,
            "rounds": 2,
            "roundsScored": 2,
            "active": True,
        },
    ]


def test_dp_6_3_order_points_then_calories_then_fewest_units_lost_and_shared_places() -> None:
    matches = [
        dp_match(
            "m1",
            ["a", "b", "c", "d"],
            round_details([("a", 300, 100, 4), ("b", 300, 100, 1), ("c", 300, 100, 1), ("d", 900, 90, 0)]),
        ),
    ]
    table = tournament_standings(["a", "b", "c", "d"], matches)
    assert [(r["name"], r["place"]) for r in table["rows"]] == [("b", 1), ("c", 1), ("a", 3), ("d", 4)]


def test_dp_6_3_active_flag_and_entrants_without_rounds_and_failed_matches() -> None:
    matches = [
        dp_match("m1", ["a", "b"], round_details([("a", 10, 170, 0), ("b", 0, 0, 0)])),
        dp_match("m2", ["b", "a"], round_details([("b", 0, 0, 3), ("a", 0, 0, 0)])),
        dp_match("m3", ["a", "b"], round_details([("a", 0, 0, 0), ("b", 20, 170, 0)])),
        dp_match("m4", ["a", "c"], round_details([("a", 99, 170, 0), ("c", 99, 170, 0)]), failed=True),
        dp_match("m5", ["a", "c"], None),  # no details known (an unreadable replay): no round
    ]
    table = tournament_standings(["a", "b", "c"], matches)
    rows = by_name(table)
    # a scored in 1 of 3 rounds, b in 1 of 3: ceil(3/2) = 2 needed, neither is active
    assert rows["a"]["rounds"] == 3 and rows["a"]["roundsScored"] == 1 and rows["a"]["active"] is False
    assert rows["b"]["rounds"] == 3 and rows["b"]["roundsScored"] == 1 and rows["b"]["active"] is False
    # c only sat in the failed and the unknown match: a row of zeros, not active, last
    assert rows["c"] == {
        "place": 3,
        "name": "c",
        "points": 0,
        "calories": 0,
        "unitsLost": 0,
        "rounds": 0,
        "roundsScored": 0,
        "active": False,
    }
    assert [r["name"] for r in table["rows"]] == ["b", "a", "c"]  # 170 each: b has more calories
    # a team that played fewer rounds is judged over its own rounds
    two = tournament_standings(
        ["a", "b", "c"],
        [matches[0], dp_match("m6", ["c", "a"], round_details([("c", 5, 114, 0), ("a", 0, 0, 0)]))],
    )
    assert by_name(two)["c"]["active"] is True and by_name(two)["a"]["active"] is True
    # a zero-score team with units lost ranks below an entrant with no rounds at all (fewest units lost)
    alone = by_name(tournament_standings(["a", "b", "c"], matches[1:2]))
    assert (alone["a"]["place"], alone["c"]["place"], alone["b"]["place"]) == (1, 1, 3)


# ------------------------------------------------------------------------------------- a real tournament


def dp_plan(name: str, *, seed: int, bots: Sequence[str] = BOTS, players: int = 3) -> TournamentPlan:
    return TournamentPlan(
        name=name,
        game="datspulse",
        format="round-robin",
        entrants=[Entrant(b, b) for b in bots],
        seed=seed,
        overrides=dict(SMALL),
        players=players,
    )


def test_dp_6_3_lockstep_tournament_standings_over_its_rounds(store: Store) -> None:
    tournament = create_tournament(store, dp_plan("dp", seed=4))
    summary = run_tournament(store, tournament.id)
    assert summary.status == "finished" and summary.played == 3 and summary.failed == 0
    table = tournament_leaderboard(store, tournament.id)["leaderboard"]["game_standings"]
    assert table["title"] == "DatsPulse final standings (spec 6.3)"
    assert sorted(r["name"] for r in table["rows"]) == sorted(BOTS)

    # the same totals, worked out independently from every match's replay: seat i's row is its entrant's
    totals = {b: {"points": 0, "calories": 0, "unitsLost": 0, "scored": 0, "rounds": 0} for b in BOTS}
    rows = store.list_matches(tournament.id)
    assert len(rows) == 3
    for row in rows:
        replay = read_replay(store.replay_path(row.replay_hash))
        assert [p["name"] for p in replay.players] == row.seats
        results = replay.result["details"]["results"]
        assert [r["index"] for r in results] == list(range(3))
        assert [r["place"] for r in results] == row.ranks  # ranks are the round places (6.2)
        for seat, name in enumerate(row.seats):
            result = results[seat]
            total = totals[name]
            total["points"] += result["points"]
            total["calories"] += result["score"]
            total["unitsLost"] += result["unitsLost"]
            total["scored"] += result["score"] >= 1
            total["rounds"] += 1
            assert result["score"] == row.scores[seat]
    assert sum(t["points"] for t in totals.values()) > 0  # the starters do score in five turns
    for shown in table["rows"]:
        want = totals[shown["name"]]
        assert (shown["points"], shown["calories"], shown["unitsLost"]) == (
            want["points"],
            want["calories"],
            want["unitsLost"],
        )
        assert shown["rounds"] == want["rounds"] == 3 and shown["roundsScored"] == want["scored"]
        assert shown["active"] is (want["scored"] >= math.ceil(3 / 2))
    keys = [(-r["points"], -r["calories"], r["unitsLost"]) for r in table["rows"]]
    assert keys == sorted(keys)
    assert [r["place"] for r in table["rows"]] == [keys.index(k) + 1 for k in keys]


def test_dp_6_3_a_replay_that_cannot_be_read_leaves_its_round_out(store: Store) -> None:
    tournament = create_tournament(store, dp_plan("dp2", seed=9, players=2))
    assert run_tournament(store, tournament.id).status == "finished"
    rows = store.list_matches(tournament.id)
    assert len(rows) == 3
    lost = rows[0]
    store.replay_path(lost.replay_hash).unlink()  # before anything read it (this seed is this test's)
    board = tournament_board(store, tournament)
    rounds = {r["name"]: r["rounds"] for r in board["game_standings"]["rows"]}
    assert rounds == {name: 1 if name in lost.seats else 2 for name in BOTS}  # the other rounds still count
    assert [r["played"] for r in board["rows"]] == [2, 2, 2]  # the ratings come from the store, not replays
