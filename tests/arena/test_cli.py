"""`botarena arena create / team add / team import` (specs/arena.md, Components): each token printed
once and only its hash stored; every mistake one line on stderr, exit 2, nothing written."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from botarena.arena.access import authenticate
from botarena.arena.vocabulary import Role
from botarena.store import Store
from botarena.store.arena import ArenaStore

# (tests/cli is no package: its modules import this helper by its bare name, as here)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from cli_in_process import botarena_in_process

TOKEN = re.compile(r"ba_[A-Za-z0-9]{12}_[A-Za-z0-9_-]{43}")


def _db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'arena.db'}"


def _create(tmp_path: Path, *args: str) -> tuple[int, str]:
    done = botarena_in_process(
        "arena", "create", "drones", "--name", "cup", *args, "--db", _db(tmp_path), cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    competition = int(re.search(r"^competition (\d+) 'cup'", done.stdout, re.M).group(1))  # type: ignore[union-attr]
    (token,) = TOKEN.findall(done.stdout)
    return competition, token


def _arena(tmp_path: Path) -> ArenaStore:
    return ArenaStore(Store.open(_db(tmp_path), replay_dir=tmp_path / "replays"))


def test_cli_arena_create_prints_the_id_and_the_organizer_token_once(tmp_path: Path) -> None:
    competition, token = _create(tmp_path, "--preset", "default", "--players", "2")
    arena = _arena(tmp_path)
    try:
        caller = authenticate(arena, token)
        assert caller is not None and (caller.role, caller.competition_id) == (Role.ORGANIZER, competition)
        row = arena.get_competition(competition)
        assert row is not None and (row.game, row.preset, row.players, row.format, row.phase) == (
            "drones",
            "default",
            2,
            "pairs",
            "draft",
        )
    finally:
        arena.store.close()


def test_cli_arena_create_world_and_config_file(tmp_path: Path) -> None:
    config = tmp_path / "rules.json"
    config.write_text('{"rounds": 5}')
    competition, _ = _create(tmp_path, "--world", "--config", str(config))
    arena = _arena(tmp_path)
    try:
        row = arena.get_competition(competition)
        assert row is not None and row.format == "world" and row.config == {"rounds": 5}
    finally:
        arena.store.close()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["nogame", "--name", "x"], "unknown game 'nogame'"),
        (["drones", "--name", "x", "--preset", "nope"], "unknown preset 'nope'"),
        (["drones", "--name", "x", "--players", "5"], "drones needs 2 players, got 5"),
        (["datspulse", "--name", "x", "--world", "--players", "1"], "rates 2 or more players, not 1"),
        (["drones", "--name", "x", "--config", "missing.json"], "cannot read config file"),
        (["drones", "--name", "x", "--config", "bad.json"], "bogus_key"),
        (["drones", "--name", "   "], "a competition name cannot be empty"),
    ],
)
def test_cli_arena_create_refuses_in_one_line_and_writes_nothing(
    tmp_path: Path, args: list[str], said: str
) -> None:
    (tmp_path / "bad.json").write_text('{"bogus_key": 1}')
    done = botarena_in_process("arena", "create", *args, "--db", _db(tmp_path), cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert said in done.stderr and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert not (tmp_path / "arena.db").exists()


def test_cli_arena_create_refuses_a_taken_name(tmp_path: Path) -> None:
    _create(tmp_path)
    again = botarena_in_process("arena", "create", "drones", "--name", "cup", "--db", _db(tmp_path))
    assert again.returncode == 2 and "a competition named 'cup' exists already" in again.stderr


def test_cli_arena_db_password_is_refused_on_the_command_line(tmp_path: Path) -> None:
    done = botarena_in_process(
        "arena", "create", "drones", "--name", "x", "--db", "postgresql://u:pw@host/db"
    )
    assert done.returncode == 2 and "--db must not carry a password" in done.stderr


def test_cli_arena_team_add_prints_its_token_once(tmp_path: Path) -> None:
    competition, _ = _create(tmp_path)
    for which in (str(competition), "cup"):
        done = botarena_in_process(
            "arena", "team", "add", f"team-{which}", "--competition", which, "--db", _db(tmp_path)
        )
        assert done.returncode == 0, done.stderr
        (token,) = TOKEN.findall(done.stdout)
        arena = _arena(tmp_path)
        try:
            caller = authenticate(arena, token)
            assert caller is not None and caller.role == Role.TEAM
            assert arena.get_team(caller.team_id).name == f"team-{which}"  # type: ignore[arg-type,union-attr]
        finally:
            arena.store.close()
    missing = botarena_in_process("arena", "team", "add", "x", "--competition", "99", "--db", _db(tmp_path))
    assert missing.returncode == 2 and "no competition '99'" in missing.stderr


def test_cli_arena_team_import_prints_name_token_lines(tmp_path: Path) -> None:
    competition, _ = _create(tmp_path)
    teams = tmp_path / "teams.csv"
    teams.write_text('name\nalpha\n\n"beta, the second",ignored column\ngamma\n', encoding="utf-8")
    done = botarena_in_process(
        "arena", "team", "import", str(teams), "--competition", "cup", "--db", _db(tmp_path)
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "name,token" and len(lines) == 4
    assert [line.rsplit(",", 1)[0] for line in lines[1:]] == ["alpha", '"beta, the second"', "gamma"]
    assert all(TOKEN.fullmatch(line.rsplit(",", 1)[1]) for line in lines[1:])
    assert "3 teams added" in done.stderr
    arena = _arena(tmp_path)
    try:
        assert [t.name for t in arena.teams(competition)] == ["alpha", "beta, the second", "gamma"]
    finally:
        arena.store.close()


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("name\nalpha\nalpha\n", "row 3: team 'alpha' is already on row 2"),
        ("name\n", "no team in it"),
        ("alpha\n" + "x" * 101 + "\n", "row 2: a team name has at most 100 characters"),
        (b"\xff\xfe\x00bad", "not UTF-8 text"),
        ("name\nexisting\nfresh\n", "has a team named 'existing' already"),
    ],
)
def test_cli_arena_team_import_refuses_a_bad_csv_and_writes_nothing(
    tmp_path: Path, content: str | bytes, said: str
) -> None:
    competition, _ = _create(tmp_path)
    assert (
        botarena_in_process(
            "arena", "team", "add", "existing", "--competition", "cup", "--db", _db(tmp_path)
        ).returncode
        == 0
    )
    teams = tmp_path / "teams.csv"
    teams.write_bytes(content if isinstance(content, bytes) else content.encode())
    done = botarena_in_process(
        "arena", "team", "import", str(teams), "--competition", "cup", "--db", _db(tmp_path)
    )
    assert done.returncode == 2 and done.stdout == "" and said in done.stderr and done.stderr.count("\n") == 1
    arena = _arena(tmp_path)
    try:
        assert [t.name for t in arena.teams(competition)] == ["existing"]
    finally:
        arena.store.close()
