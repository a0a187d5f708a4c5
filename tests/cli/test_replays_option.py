"""`--replays db|DIR|file:///DIR` (env BOTARENA_REPLAYS) on the commands that open a store (issue 18,
item 2): where a tournament's replays go, and a one-line error with exit code 2 for a bad value."""

from __future__ import annotations

from pathlib import Path

import pytest

from botarena.cli import main
from botarena.store import Store

TOURNAMENT = ["tournament", "drones", "--bots", "adaptive,zergy", "--workers", "0", "--no-progress",
              "--set", "rounds=3", "--name", "cup"]  # fmt: skip


def replay_hashes(db: str, **where: str) -> list[str]:
    with Store.open(db, **where) as store:
        (tournament,) = store.list_tournaments()
        rows = store.list_matches(tournament.id)
        assert rows and all(store.read_replay(r.replay_hash or "") for r in rows)
        return [r.replay_hash or "" for r in rows]


def test_replays_in_the_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    assert main([*TOURNAMENT, "--db", db, "--replays", "db"]) == 0, capsys.readouterr().err
    assert replay_hashes(db, replays="db")
    assert not list(tmp_path.rglob("*.json.gz"))  # nothing next to the database file
    assert main(["leaderboard", "cup", "--db", db, "--replays", "db"]) == 0


def test_replays_in_a_shared_location_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    shared = tmp_path / "nfs" / "replays"
    monkeypatch.setenv("BOTARENA_REPLAYS", shared.as_uri())
    assert main([*TOURNAMENT, "--db", db]) == 0, capsys.readouterr().err
    hashes = replay_hashes(db, replays=shared.as_uri())
    assert sorted(p.name for p in shared.rglob("*.json.gz")) == sorted(f"{h}.json.gz" for h in hashes)


@pytest.mark.parametrize("command", ["tournament", "leaderboard", "serve"])
@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("s3://bucket/replays", "unsupported replay location 's3://bucket/replays'"),
        ("file://nfs-host/replays", "bad replay location 'file://nfs-host/replays'"),
    ],
)
def test_a_bad_replays_value_is_one_line_and_exit_code_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, value: str, message: str
) -> None:
    args = [command, "--db", f"sqlite:///{tmp_path / 'arena.db'}", "--replays", value]
    if command == "tournament":
        args += ["drones", "--bots", "adaptive,zergy", "--unsandboxed"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("botarena: error: ") and message in err and err.count("\n") == 1


def test_the_option_is_documented(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("tournament", "leaderboard", "serve"):
        assert main([command, "--help"]) == 0
        out = " ".join(capsys.readouterr().out.split())
        assert "--replays" in out and "BOTARENA_REPLAYS" in out and "file:///shared/dir" in out
