"""`botarena tournament` and `botarena leaderboard`: a whole tournament from the command line, and a
one-line error with exit code 2 for every bad input (nothing half-written to the store)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from botarena.cli import main
from botarena.store import Store
from botarena.tournament.formats import match_seed


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'arena.db'}"


def test_tournament_then_leaderboard(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["tournament", "drones", "--bots", "adaptive,zergy", "--bots", "me=tactician", "--workers", "0",
         "--db", db, "--name", "cup", "--seed", "3", "--no-progress"]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert "finished: 3 matches played now, 0 failed" in out
    for name in ("adaptive", "zergy", "me"):
        assert name in out
    assert main(["leaderboard", "cup", "--db", db, "--json"]) == 0
    data = orjson.loads(capsys.readouterr().out)
    assert data["tournament"]["name"] == "cup" and data["tournament"]["status"] == "finished"
    assert sorted(r["name"] for r in data["leaderboard"]["rows"]) == ["adaptive", "me", "zergy"]
    assert sum(r["played"] for r in data["leaderboard"]["rows"]) == 6
    assert main(["leaderboard", "--db", db]) == 0  # the newest tournament, as a table
    assert "cup" in capsys.readouterr().out


def test_resuming_a_finished_tournament_plays_nothing(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--workers", "0", "--db", db, "--no-progress"]
    assert main(["tournament", "drones", "--bots", "adaptive,zergy", "--name", "t", *args]) == 0
    capsys.readouterr()
    assert main(["tournament", "--resume", "t", *args]) == 0
    assert "finished: 0 matches played now, 0 failed, 1 recorded in all" in capsys.readouterr().out
    # without --seed the seed is drawn at random, not 0: every match seed derives from it, and a
    # guessable one would give them all away while the tournament is played (DESIGN principle 7)
    with Store.open(db) as store:
        (row,) = store.list_tournaments()
        (match,) = store.list_matches(row.id)
    assert row.seed != 0 and match.seed != match_seed(0, match.key)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["tournament", "drones", "--bots", "adaptive,nobody"], "unknown bot 'nobody'"),
        (["tournament", "drones", "--bots", "adaptive"], "entrant"),
        (["tournament", "drones", "--bots", "a,b", "--format", "knockout"], "unknown format"),
        (["tournament", "chess", "--bots", "a,b"], "unknown game 'chess'"),
        (["tournament", "drones", "--bots", "adaptive,zergy", "--set", "rounds=0"], "rounds"),
        (["tournament", "drones", "--bots", "adaptive,zergy", "--workers", "-1"], "--workers"),
        (["tournament", "--resume", "nothing-here"], "no tournament 'nothing-here'"),
        (["tournament", "drones", "--resume", "x"], "--resume takes no GAME"),
        (["tournament"], "name a GAME"),
        (["leaderboard", "nope"], "no tournament 'nope'"),
        (["leaderboard"], "no tournaments in"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    db: str, args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*args, "--db", db]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
    store = Store.open(db)
    try:
        assert store.list_tournaments() == []  # nothing half-created
    finally:
        store.close()


def test_a_bad_database_url_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["leaderboard", "--db", "mysql+nothing://x"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("botarena: error:") and err.count("\n") == 1


@pytest.mark.parametrize(
    ("format_args", "matches"),
    [
        (["--format", "swiss", "--rounds", "3"], 6),  # 5 entrants: 2 matches and a bye a round
        (["--format", "single-elimination"], None),  # 4 or more (a drawn match is replayed)
        (["--format", "ladder", "--matches", "8"], 8),
        (["--format", "drones_2018_event", "--set", "rounds=3"], 10),
    ],
)
def test_every_format_runs_from_the_command_line(
    db: str, format_args: list[str], matches: int | None, capsys: pytest.CaptureFixture[str]
) -> None:
    bots = "adaptive,zergy,pacifist,randomonium,tactician"
    args = ["tournament", "drones", "--bots", bots, *format_args, "--workers", "0", "--db", db, "--name", "t"]
    assert main([*args, "--no-progress"]) == 0, capsys.readouterr().err
    store = Store.open(db)
    try:
        tournament = store.find_tournament("t")
        assert tournament is not None and tournament.status == "finished"
        rows = store.list_matches(tournament.id)
        assert all(r.status == "finished" for r in rows)
        if matches is not None:
            assert len(rows) == matches
        else:
            assert len(rows) >= 4
    finally:
        store.close()


def test_dp_6_3_a_lockstep_datspulse_tournament_prints_its_final_standings(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["tournament", "datspulse", "--bots", "forager,raider,random_walker", "--players", "3",
            "--set", "turns=5", "--set", "map_hexes_per_team=300", "--workers", "0", "--db", db,
            "--name", "pulse", "--no-progress"]  # fmt: skip
    assert main(args) == 0, capsys.readouterr().err
    printed = capsys.readouterr().out
    assert main(["leaderboard", "pulse", "--db", db, "--json"]) == 0
    table = orjson.loads(capsys.readouterr().out)["leaderboard"]["game_standings"]
    assert table["title"] == "DatsPulse final standings (spec 6.3)"
    assert sorted(r["name"] for r in table["rows"]) == ["forager", "raider", "random_walker"]
    assert main(["leaderboard", "pulse", "--db", db]) == 0
    for out in (printed, capsys.readouterr().out):  # after the run, and from `botarena leaderboard`
        assert "DatsPulse final standings (spec 6.3)" in out
        lines = out[out.index("DatsPulse final standings") :].splitlines()
        for row in table["rows"]:
            [line] = [line for line in lines if f" {row['name']} " in line]
            cells = [c.strip() for c in line.strip("│ ").split("│")]
            assert cells == [
                str(row["place"]), row["name"], str(row["points"]), str(row["calories"]),
                str(row["unitsLost"]), str(row["rounds"]), str(row["roundsScored"]),
                "yes" if row["active"] else "no",
            ]  # fmt: skip
