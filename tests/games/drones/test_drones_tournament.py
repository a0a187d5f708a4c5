"""The `drones_2018_event` round robin (spec 2.3 and 6.3): circle schedule, byes, points, standings."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from botarena.core.roundrobin import MatchScore, bye_entrants, circle_schedule, standings, summary_line

ROSTER = [
    "Adaptive Defender",
    "Zergy McZergface",
    "Hard Hitting Pacifist",
    "Randomonium",
    "SkyNet v1.0",
    "PredictableResourcesRandomAttack",
    "Zephyr V",
    "SniperRush",
    "GrantBot",
    "Drozen",
]


@given(st.integers(2, 14))
def test_6_3_every_pair_meets_exactly_once(n: int) -> None:
    entrants = [f"e{i}" for i in range(n)]
    schedule = circle_schedule(entrants)
    assert len(schedule) == n - 1 + n % 2
    pairs = [frozenset(p) for r in schedule for p in r]
    assert len(pairs) == len(set(pairs)) == n * (n - 1) // 2
    for matches in schedule:
        playing = [name for pair in matches for name in pair]
        assert len(playing) == len(set(playing))  # nobody plays twice in a round
        assert len(matches) == n // 2


def test_6_3_circle_method_with_the_event_roster() -> None:
    schedule = circle_schedule(ROSTER)
    assert len(schedule) == 9
    assert schedule[0][0] == ("Adaptive Defender", "Drozen")  # order[0] vs order[n-1]
    assert schedule[1][0] == ("Adaptive Defender", "GrantBot")  # rest rotated right by one
    assert schedule[1][1] == ("Drozen", "SniperRush")
    assert all(pair[0] == "Adaptive Defender" for pair in (r[0] for r in schedule))  # e[0] is always PLAYER 1


def test_6_3_odd_count_bye_sits_out() -> None:
    entrants = ["A", "B", "C", "D", "E"]
    schedule = circle_schedule(entrants)
    # order in round r: A + rotate_right([B, C, D, E, BYE], r); A-BYE is not played in round 0.
    assert schedule[0] == [("B", "E"), ("C", "D")]
    assert schedule[1] == [("A", "E"), ("B", "C")]
    assert bye_entrants(entrants) == ["A", "D", "B", "E", "C"]
    assert bye_entrants(["A", "B"]) == [None]
    assert all("BYE" not in name for r in schedule for pair in r for name in pair)


def test_6_3_schedule_edge_cases() -> None:
    assert circle_schedule([]) == []
    assert circle_schedule(["A"]) == []
    assert circle_schedule(["A", "B"]) == [[("A", "B")]]
    assert circle_schedule(["A", "B", "C"]) == [[("B", "C")], [("A", "C")], [("A", "B")]]
    with pytest.raises(ValueError, match="listed twice"):
        circle_schedule(["A", "B", "A"])


def test_2_3_points_win_draw_loss() -> None:
    assert MatchScore("A", "B", 6, 4).points() == (1.0, 0.0)
    assert MatchScore("A", "B", 4, 6).points() == (0.0, 1.0)
    assert MatchScore("A", "B", 5, 5).points() == (0.5, 0.5)
    assert MatchScore("A", "B", 3, 2, 5).outcome == "PLAYER 1"  # drawn rounds count for nobody


def test_6_3_tie_break_round_difference() -> None:
    # A, B, C beat each other in a cycle: 1 point each, head to head 1 each, so round difference decides.
    results = [("A", "B", 60, 40), ("B", "C", 55, 45), ("C", "A", 52, 48)]
    table = standings(["A", "B", "C"], results)
    assert [(s.entrant, s.rank, s.points, s.round_difference) for s in table] == [
        ("A", 1, 1.0, 16),
        ("C", 2, 1.0, -6),
        ("B", 3, 1.0, -10),
    ]


def test_6_3_shared_rank_in_registration_order() -> None:
    table = standings(["Z", "Y", "X"], [("Z", "Y", 5, 5), ("Y", "X", 5, 5), ("X", "Z", 5, 5)])
    assert [(s.entrant, s.rank, s.points, s.draws) for s in table] == [
        ("Z", 1, 1.0, 2),
        ("Y", 1, 1.0, 2),
        ("X", 1, 1.0, 2),
    ]


def test_6_3_round_wins_decide_when_difference_is_equal() -> None:
    # A cycle where every difference is 0: total round wins decide (A 14, B 12, C 8).
    results = [("A", "B", 10, 8), ("B", "C", 4, 2), ("C", "A", 6, 4)]
    table = standings(["C", "B", "A"], results)
    assert [(s.entrant, s.rank, s.round_difference, s.round_wins) for s in table] == [
        ("A", 1, 0, 14),
        ("B", 2, 0, 12),
        ("C", 3, 0, 8),
    ]


def test_6_3_head_to_head_only_among_the_tied() -> None:
    # E18's shape: D and C tie on points, D beat C, C has the better round difference.
    results = [
        ("A", "D", 6, 4),
        ("B", "C", 5, 5),
        ("A", "C", 3, 7),
        ("D", "B", 0, 0, 10),
        ("A", "B", 6, 4),
        ("C", "D", 4, 6),
    ]
    table = standings(["A", "B", "C", "D"], results)
    assert [s.entrant for s in table] == ["A", "D", "C", "B"]


def test_standings_reject_unknown_entrants() -> None:
    with pytest.raises(ValueError, match="not an entrant"):
        standings(["A", "B"], [("A", "C", 1, 0)])


def test_summary_line_as_the_event_printed_it() -> None:
    score = MatchScore("A", "B", 600, 300, 100)
    # Spec 6.3, the event's own text: `WIN (W:792/ L:208/ D:0)`.
    assert summary_line(MatchScore("A", "B", 792, 208, 0), "A") == "WIN (W:792/ L:208/ D:0)"
    assert summary_line(score, "A") == "WIN (W:600/ L:300/ D:100)"
    assert summary_line(score, "B") == "LOSS (W:300/ L:600/ D:100)"
    assert summary_line(MatchScore("A", "B", 0, 0, 1000), "A") == "DRAW (W:0/ L:0/ D:1000)"


@given(st.lists(st.tuples(st.integers(0, 10), st.integers(0, 10)), min_size=6, max_size=6))
def test_standings_points_sum_and_ranks_are_consistent(scores: list[tuple[int, int]]) -> None:
    entrants = ["A", "B", "C", "D"]
    pairs = [p for r in circle_schedule(entrants) for p in r]
    results = [MatchScore(a, b, w1, w2) for (a, b), (w1, w2) in zip(pairs, scores, strict=True)]
    table = standings(entrants, results)
    assert sum(s.points for s in table) == len(results)
    assert [s.rank for s in table] == sorted(s.rank for s in table)
    assert all(s.played == 3 for s in table)
    for above, below in itertools.pairwise(table):
        assert above.points >= below.points
        if above.rank == below.rank:
            assert entrants.index(above.entrant) < entrants.index(below.entrant)


# -- one name, one behaviour (spec 2.3) -------------------------------------------------------------------
def _created(tmp_path: Path, format_name: str) -> tuple[str, str, dict[str, object]]:
    from botarena.store import Store
    from botarena.tournament.service import Entrant, TournamentPlan, create_tournament

    store = Store.open(f"sqlite:///{tmp_path / format_name}.db", replay_dir=tmp_path / "replays")
    try:
        plan = TournamentPlan(
            name="t",
            game="drones",
            format=format_name,
            entrants=[Entrant(s, s) for s in ("adaptive", "zergy", "pacifist")],
        )
        row = create_tournament(store, plan)
        return row.format, row.preset, dict(row.config)
    finally:
        store.close()


def test_2_3_drones_2018_event_and_its_alias_are_one_behaviour(tmp_path: Path) -> None:
    event = _created(tmp_path, "drones_2018_event")
    assert event == ("drones-2018", "bravolt2018", {"rounds": 1000, "turn_limit": 10, "defender_bonus": 1})
    assert _created(tmp_path, "drones-2018") == event  # not the `default` preset's 10 seed-rules rounds


def test_2_3_help_lists_the_formats_the_readme_shows() -> None:
    from typer.testing import CliRunner

    from botarena.cli import app
    from botarena.tournament.formats import FORMATS

    names = {*FORMATS, "drones_2018_event"}
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    bullet = readme[readme.index("- **Formats**") :].split("\n- ", 1)[0]
    in_readme = {name for name in names if f"`{name}`" in bullet}
    result = CliRunner().invoke(app, ["tournament", "--help"], env={"COLUMNS": "300", "NO_COLOR": "1"})
    assert result.exit_code == 0
    help_text = " ".join(result.output.replace("│", " ").split())
    option = help_text[help_text.index("--format") :].split("--workers", 1)[0]
    in_help = set(re.findall(r"[a-z0-9]+(?:[_-][a-z0-9]+)+|swiss|ladder", option)) & names
    assert in_readme == in_help == names  # every format, the 2018 event under its spec name and alias
    assert option.index("drones_2018_event") < option.index("drones-2018")  # the name, then the alias


# -- the event's table from a played tournament (spec 6.3) -------------------------------------------------
def test_6_3_event_prints_the_per_opponent_summary_with_round_draws(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import orjson

    from botarena.cli import main

    db = f"sqlite:///{tmp_path / 'arena.db'}"
    # Two copies of Hard Hitting Pacifist draw every bravolt2018 round (equal soldiers, GD-21), and
    # share one meta.name: the 2018 event would have dropped the second; botarena plays it.
    bots = "one=pacifist,two=pacifist,zergy"
    args = ["tournament", "drones", "--bots", bots, "--format", "drones_2018_event", "--set", "rounds=3"]
    assert main([*args, "--workers", "0", "--db", db, "--name", "cup", "--no-progress"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "vs two: DRAW (W:0/ L:0/ D:3)" in out and "vs one: DRAW (W:0/ L:0/ D:3)" in out
    assert "note: every entrant is played: the 2018 event dropped a bot without meta.name" in out
    assert "note: two: meta.name 'Hard Hitting Pacifist (Example Bot)' as one" in out
    assert main(["leaderboard", "cup", "--db", db, "--json"]) == 0
    board = orjson.loads(capsys.readouterr().out)["leaderboard"]
    rows = {row["entrant"]: row for row in board["standings"]}
    summary = board["standings_summary"]
    for name in ("one", "two", "zergy"):
        draws = [int(text.rsplit("D:", 1)[1].rstrip(")")) for text in summary[name].values()]
        assert rows[name]["round_draws"] == sum(draws)  # stored standings count the round draws
    assert rows["one"]["round_draws"] >= 3 and rows["two"]["round_draws"] >= 3
    assert summary["one"]["two"] == "DRAW (W:0/ L:0/ D:3)"
