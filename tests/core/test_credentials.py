"""botarena.core.credentials: the platform's secrets (issue 25, item 1).

- A secret file is read only if it is a regular file of the caller's that no one else may read:
  each way of handing over a file others can read, or no file at all, is refused in one line.
- A store URL loses every secret it carries before it travels (the password, `?password=`,
  `?sslpassword=`), whatever characters the password holds.
- A worker finds its password by the login it belongs to (server and user), held or in its
  environment, and never hands one to another login.
- The names no bot inherits: the platform's, libpq's, Dask's, anyone's `*TOKEN*`-like; not the
  variables a trusted bot needs.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from sqlalchemy.engine import URL

from botarena.core import credentials
from botarena.core.credentials import (
    SecretSourceError,
    WorkerSecrets,
    bot_environment,
    connect_url,
    env_secret,
    hold,
    is_secret_name,
    live_token,
    read_secret_file,
    url_secrets,
    without_secrets,
)

SECRET = "s3cret-value-0123456789"


@pytest.fixture(autouse=True)
def nothing_held(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with a process that holds no secret, and leaves none behind."""
    monkeypatch.setattr(credentials, "_held", WorkerSecrets())
    for name in ("BOTARENA_DB", "BOTARENA_DB_FILE", "BOTARENA_LIVE_TOKEN", "BOTARENA_LIVE_TOKEN_FILE"):
        monkeypatch.delenv(name, raising=False)


def _file(path: Path, text: str, mode: int) -> Path:
    path.write_text(text)
    path.chmod(mode)
    return path


def test_a_secret_file_others_can_read_or_that_is_no_file_is_refused(tmp_path: Path) -> None:
    good = _file(tmp_path / "good", f"{SECRET}\n", 0o600)
    assert read_secret_file(good) == SECRET
    assert read_secret_file(_file(tmp_path / "ro", SECRET, 0o400)) == SECRET
    (tmp_path / "link").symlink_to(good)  # a symlink is judged by what it points to (a mounted secret)
    assert read_secret_file(tmp_path / "link") == SECRET
    os.mkfifo(tmp_path / "fifo", 0o600)
    cases = {
        _file(tmp_path / "world", SECRET, 0o644): "has mode 0644: others may read it; chmod 600",
        _file(tmp_path / "group", SECRET, 0o640): "has mode 0640",
        _file(tmp_path / "writable", SECRET, 0o602): "has mode 0602",
        tmp_path / "missing": "cannot read the secret file",
        tmp_path: "is not a regular file",
        tmp_path / "fifo": "is not a regular file",  # opened without blocking, refused without reading
        Path("/dev/null"): "is not a regular file",
        _file(tmp_path / "empty", "\n", 0o600): "must hold the secret alone, on one line",
        _file(tmp_path / "two", "a\nb\n", 0o600): "must hold the secret alone, on one line",
        _file(tmp_path / "big", "x" * (credentials.MAX_SECRET_FILE_BYTES + 1), 0o600): "is over",
    }
    (tmp_path / "worldlink").symlink_to(tmp_path / "world")
    cases[tmp_path / "worldlink"] = "has mode 0644"
    binary = tmp_path / "binary"
    binary.write_bytes(b"\xff\xfe")
    binary.chmod(0o600)
    cases[binary] = "is not UTF-8 text"
    if os.geteuid() == 0:  # root can make a file of someone else's; others meet one in /etc
        foreign = _file(tmp_path / "foreign", SECRET, 0o600)
        os.chown(foreign, 65534, 65534)
        cases[foreign] = "belongs to uid 65534, not to this user (0)"
    else:
        cases[Path("/etc/passwd")] = "belongs to uid 0"  # before its mode: it is not even ours
    for path, message in cases.items():
        with pytest.raises(SecretSourceError, match=re.escape(message)) as caught:
            read_secret_file(path)
        assert "\n" not in str(caught.value) and SECRET not in str(caught.value), path


def test_env_secret_takes_the_variable_or_the_file_it_names(tmp_path: Path) -> None:
    assert env_secret("BOTARENA_LIVE_TOKEN", {}) is None
    assert env_secret("BOTARENA_LIVE_TOKEN", {"BOTARENA_LIVE_TOKEN": SECRET}) == SECRET
    good = _file(tmp_path / "token", SECRET, 0o600)
    assert env_secret("BOTARENA_LIVE_TOKEN", {"BOTARENA_LIVE_TOKEN_FILE": str(good)}) == SECRET
    loose = _file(tmp_path / "loose", SECRET, 0o644)
    with pytest.raises(SecretSourceError, match=r"BOTARENA_LIVE_TOKEN file .* has mode 0644"):
        env_secret("BOTARENA_LIVE_TOKEN", {"BOTARENA_LIVE_TOKEN_FILE": str(loose)})


def test_store_urls_lose_every_secret_they_carry() -> None:
    url = "postgresql+psycopg://arena:pw1@db:5432/arena?password=pw2&sslpassword=pw3&sslmode=require"
    assert url_secrets(url) == {"password": "pw1", "sslpassword": "pw3"}  # the userinfo's wins
    assert without_secrets(url) == "postgresql+psycopg://arena@db:5432/arena?sslmode=require"
    assert url_secrets(without_secrets(url)) == {}
    assert url_secrets("sqlite:///var/botarena.db") == {} and url_secrets("not a url") == {}
    assert without_secrets("sqlite:////tmp/a.db") == "sqlite:////tmp/a.db"


NASTY_PASSWORDS = ["p@ss", "a:b@c", "sl/ash", "%40quoted", "q?x=1&password=y#frag", "sp ace", "ünï€", "'\"\\"]


def test_no_password_survives_without_secrets() -> None:
    for nasty in NASTY_PASSWORDS:
        password = f"Zq9{nasty}"  # a prefix no other part of the URL has
        url = URL.create("postgresql+psycopg", "arena", password, "db-host", 5432, "arena")
        rendered = url.render_as_string(hide_password=False)
        assert url_secrets(rendered) == {"password": password}
        bare = without_secrets(rendered)
        assert "Zq9" not in bare and bare == "postgresql+psycopg://arena@db-host:5432/arena", nasty


def test_a_worker_finds_its_password_by_server_and_user(tmp_path: Path) -> None:
    bare = "postgresql+psycopg://arena@db:5432/arena?options=-csearch_path%3Ds1"
    assert connect_url(bare, {}) == bare  # nothing held, nothing in the environment: libpq's turn
    hold(WorkerSecrets.of("postgresql://arena:held-pw@db/other-database"))
    assert url_secrets(connect_url(bare, {})) == {"password": "held-pw"}  # same login, any database
    assert "search_path" in connect_url(bare, {})  # the rest of the task's URL is kept
    for other in (
        "postgresql://intruder@db:5432/arena",  # another user
        "postgresql://arena@elsewhere:5432/arena",  # another server
        "postgresql://arena@db:6543/arena",  # another port
    ):
        assert connect_url(other, {}) == other, other
    env_url = "postgresql://intruder:env-pw@db/arena"
    assert url_secrets(connect_url("postgresql://intruder@db/x", {"BOTARENA_DB": env_url})) == {
        "password": "env-pw"
    }
    url_file = _file(tmp_path / "db-url", env_url, 0o600)
    found = connect_url("postgresql://intruder@db/x", {"BOTARENA_DB_FILE": str(url_file)})
    assert url_secrets(found) == {"password": "env-pw"}
    own = "postgresql://arena:own-pw@db/arena"
    assert connect_url(own, {}) == own  # a URL with a password of its own keeps it
    assert connect_url("sqlite:////tmp/a.db", {"BOTARENA_DB": env_url}) == "sqlite:////tmp/a.db"


def test_live_tokens_are_held_per_server() -> None:
    hold(WorkerSecrets.of(live=("http://web:8000/", "held-token")))
    assert live_token("http://web:8000", {}) == "held-token"
    assert live_token("http://other:8000", {}) is None  # never another server's token
    assert live_token("http://other:8000", {"BOTARENA_LIVE_TOKEN": "env-token"}) == "env-token"
    assert "held-token" not in repr(credentials.held()) and "token" in repr(credentials.held())


SECRET_NAMES = [
    "BOTARENA_DB", "BOTARENA_DB_FILE", "BOTARENA_LIVE_TOKEN", "BOTARENA_LIVE_TOKEN_FILE",
    "BOTARENA_DATSPULSE_TOKEN", "BOTARENA_TEST_POSTGRES_URL", "BOTARENA_SECRET_KEY", "PGPASSWORD",
    "PGPASSFILE", "PGSERVICEFILE", "PGSSLKEY", "PGHOST", "DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY",
    "SSH_AUTH_SOCK", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "GITHUB_TOKEN", "OPENAI_API_KEY",
    "DATABASE_URL", "SECURE_KEY", "MY_PASSWORD", "npm_config__authToken",
]  # fmt: skip
ORDINARY_NAMES = [
    "PATH", "HOME", "LANG", "LC_ALL", "TERM", "TMPDIR", "USER", "PYTHONPATH", "VIRTUAL_ENV", "JAVA_HOME",
    "NODE_PATH", "LD_LIBRARY_PATH", "BOTARENA_CACHE_DIR", "BOTARENA_REPLAYS", "BOTARENA_REQUIRE_SANDBOX",
    "BOTARENA_CQ_MAPS", "PAGER", "XDG_RUNTIME_DIR", "KEYBOARD",
]  # fmt: skip


def test_the_names_no_bot_inherits() -> None:
    assert [name for name in SECRET_NAMES if not is_secret_name(name)] == []
    assert [name for name in ORDINARY_NAMES if is_secret_name(name)] == []
    runner = {name: "x" for name in SECRET_NAMES + ORDINARY_NAMES}
    assert sorted(bot_environment(runner)) == sorted(ORDINARY_NAMES)
