"""Secrets never on a command line (issue 25, item 1): a command line is readable by every local user
(/proc/PID/cmdline), so a store password or a token typed there is refused, by every command that
takes one, in one line that says where to put it instead, before anything is opened or written,
and without repeating the secret. The environment and 0600 files of the caller's work.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from botarena.cli import main

SECRET = "s3cret-on-the-command-line-0123"
PG_WITH_PASSWORD = f"postgresql://arena:{SECRET}@127.0.0.1:9/arena"
PG_QUERY_PASSWORD = f"postgresql://arena@127.0.0.1:9/arena?sslmode=disable&password={SECRET}"
STORE_COMMANDS = [
    ["tournament", "drones", "--bots", "zergy,adaptive", "--workers", "0", "--no-progress"],
    ["leaderboard"],
    ["serve", "--port", "0"],
    ["datspulse", "serve", "--config", "server.toml", "--port", "0"],
]
DB_WHERE = "give the URL in BOTARENA_DB or in a file only you can read (--db-file FILE, mode 0600)"


@pytest.fixture(autouse=True)
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every command runs in an empty folder, with no secret of the caller's environment."""
    monkeypatch.chdir(tmp_path)
    for name in ("BOTARENA_DB", "BOTARENA_DB_FILE", "BOTARENA_LIVE_TOKEN", "BOTARENA_LIVE_TOKEN_FILE"):
        monkeypatch.delenv(name, raising=False)
    for name in ("BOTARENA_ORGANIZER_KEY", "BOTARENA_ORGANIZER_KEY_FILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("BOTARENA_DATSPULSE_TOKEN", raising=False)


def refused(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one line a refused command printed (exit code 2, the secret nowhere in its output)."""
    assert main(args) == 2, args
    out, err = capsys.readouterr()
    assert SECRET not in out + err, args
    assert err.startswith("botarena: error: ") and err.count("\n") == 1, (args, err)
    return err


def test_a_password_or_a_token_on_the_command_line_is_refused_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for command in STORE_COMMANDS:
        for url in (PG_WITH_PASSWORD, PG_QUERY_PASSWORD):
            err = refused([*command, "--db", url], capsys)
            assert "--db must not carry a password: every local user can read a command line" in err
            assert DB_WHERE in err and "PGPASSWORD or ~/.pgpass" in err
    live = ["--live-url", "http://127.0.0.1:9"]
    for command in (STORE_COMMANDS[0] + live, STORE_COMMANDS[2]):
        err = refused([*command, "--live-token", SECRET], capsys)
        assert "--live-token must not be given on the command line" in err
        assert "put the token in BOTARENA_LIVE_TOKEN or in a file only you can read (--live-token-file" in err
    err = refused([*STORE_COMMANDS[2], "--organizer-key", SECRET], capsys)
    assert "--organizer-key must not be given on the command line" in err
    assert "BOTARENA_ORGANIZER_KEY or in a file only you can read (--organizer-key-file" in err
    err = refused(["datspulse", "client", "--url", "http://127.0.0.1:9", "--token", SECRET], capsys)
    assert "--token must not be given on the command line" in err and "BOTARENA_DATSPULSE_TOKEN" in err
    assert list(tmp_path.iterdir()) == []  # refused before anything was opened: no ./var, no database


def test_secrets_from_the_environment_or_a_file_of_ones_own_are_taken(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    # a password-less URL on the command line is fine; so is any URL in BOTARENA_DB
    args = ["tournament", "drones", "--bots", "zergy,adaptive", "--workers", "0", "--no-progress"]
    assert main([*args, "--db", db, "--name", "cup", "--set", "rounds=1"]) == 0
    capsys.readouterr()
    monkeypatch.setenv("BOTARENA_DB", PG_WITH_PASSWORD)
    err = refused(["leaderboard"], capsys)  # taken, and tried: nothing listens on port 9
    assert "cannot open postgresql+psycopg://arena:***@127.0.0.1:9/arena" in err
    monkeypatch.delenv("BOTARENA_DB")
    # a file holding the URL: only if it is the caller's alone
    url_file = tmp_path / "db-url"
    url_file.write_text(db + "\n")
    url_file.chmod(0o644)
    err = refused(["leaderboard", "--db-file", str(url_file)], capsys)
    assert f"the database URL file {url_file} has mode 0644: others may read it; chmod 600" in err
    url_file.chmod(0o600)
    assert main(["leaderboard", "cup", "--db-file", str(url_file), "--json"]) == 0
    assert '"name": "cup"' in capsys.readouterr().out
    monkeypatch.setenv("BOTARENA_DB_FILE", str(url_file))
    assert main(["leaderboard", "cup", "--json"]) == 0
    capsys.readouterr()
    err = refused(["leaderboard", "--db", db], capsys)  # two ways at once: which one was meant?
    assert "the database URL is given twice: by --db or BOTARENA_DB, and by --db-file" in err
    monkeypatch.delenv("BOTARENA_DB_FILE")
    # the live token: from the environment, or a file of one's own
    token_file = tmp_path / "live-token"
    token_file.write_text(SECRET + "\n")
    token_file.chmod(0o604)
    live = [*args, "--db", db, "--live-url", "http://127.0.0.1:9", "--set", "rounds=1"]
    err = refused([*live, "--name", "refused", "--live-token-file", str(token_file)], capsys)
    assert "the live token file" in err and "has mode 0604" in err
    token_file.chmod(0o600)
    assert main([*live, "--name", "streamed", "--live-token-file", str(token_file)]) == 0
    out, err = capsys.readouterr()
    assert SECRET not in out + err
