"""The platform's secrets (a store URL's password, the live-ingest token): where they come from, how
they reach the processes that need them, and the processes that never see them (issue 25).

- **Where they come from.** The environment (`BOTARENA_DB`, `BOTARENA_LIVE_TOKEN`), or a file named
  on the command line or in the environment (`--db-file`, `BOTARENA_DB_FILE`, ...), read once at
  start and refused unless it is a regular file owned by the caller that no one else may read
  (`read_secret_file`). Never a command line: every local user can read `/proc/PID/cmdline`. A
  PostgreSQL URL without a password also works with libpq's own ways (PGPASSWORD, PGPASSFILE,
  ~/.pgpass), which psycopg applies itself.
- **How they travel.** A match task names the store by its URL *without* its password
  (`without_secrets`) and carries no token. A process that plays matches holds the secrets it was
  given (`hold`: a coordinator its own store's URL and token, a local pool's worker what its
  coordinator passed to its initializer) and otherwise finds them in its own environment (a Dask
  worker's `BOTARENA_DB`, `BOTARENA_LIVE_TOKEN`, or libpq's): `connect_url`, `live_token`.
- **Who never sees them.** A bot: `bot_environment` is the runner's environment without any variable
  `is_secret_name` names, the one list of what counts as a secret (sandboxed bots get a clean
  environment anyway, `botarena.bots.sandbox.sandbox_env`).
"""

from __future__ import annotations

import functools
import os
import re
import stat
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

DB_ENV = "BOTARENA_DB"
"""The store's URL (password included) for every command that opens a store, and for workers."""
LIVE_TOKEN_ENV = "BOTARENA_LIVE_TOKEN"
"""The server's live-ingest token, for `serve`, `tournament --live-url` and workers."""
ORGANIZER_KEY_ENV = "BOTARENA_ORGANIZER_KEY"
"""The key with which `serve`'s organizer reads everything of running matches (`X-Organizer-Key`)."""
FILE_SUFFIX = "_FILE"
"""`NAME_FILE` in the environment names a file holding NAME's value (`BOTARENA_DB_FILE`, ...)."""
MAX_SECRET_FILE_BYTES = 64 << 10
SECRET_QUERY_KEYS = ("password", "sslpassword")
"""Query parameters of a PostgreSQL URL that libpq takes as secrets (`?password=...`)."""

_SECRET_NAME = re.compile(
    r"""
    BOTARENA_(?:\w+_)?(?:DB|DATABASE|POSTGRES|TOKEN|PASSWORD|SECRET|KEY)(?:_\w+)?  # the platform's own
    | PG\w*                # libpq's settings: PGPASSWORD, PGPASSFILE, PGSERVICEFILE, PGSSLKEY, ...
    | DASK_\w*             # Dask's configuration: TLS keys, the scheduler's address
    | SSH_AUTH_SOCK | GPG_AGENT_INFO                   # agents that sign as the organizer
    | \w*(?:PASSWORD|PASSWD|SECRET|TOKEN|CREDENTIAL|PRIVATE_?KEY|API_?KEY)\w*  # anyone's, by name
    | \w*_KEY | \w*DATABASE_URL | \w*_DSN
    """,
    re.IGNORECASE | re.VERBOSE,
)


class SecretSourceError(ValueError):
    """A secret given where it must not be (a command line), or a secret file refused; one line."""


# -- what a bot never inherits ----------------------------------------------------------------------


@functools.lru_cache(maxsize=4096)  # a runner asks about the same few names for every bot it starts
def is_secret_name(name: str) -> bool:
    """Whether an environment variable called `name` may hold a secret that no bot process inherits."""
    return _SECRET_NAME.fullmatch(name) is not None


def bot_environment(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a bot process started without one of its own gets: `env` (default: this
    process's) without any variable `is_secret_name` names. An unsandboxed bot is trusted code, but
    nothing of the platform's secrets is its business, nor may it end up in its log."""
    source = os.environ if env is None else env
    return {name: value for name, value in source.items() if not is_secret_name(name)}


# -- secret files -----------------------------------------------------------------------------------


def read_secret_file(path: str | os.PathLike[str], what: str = "secret") -> str:
    """The secret in the file at `path` (its text without surrounding whitespace), read once.

    Refused (SecretSourceError, one line) unless it is a regular file owned by this process's user
    that neither its group nor others may read or write (mode 0600, 0400 or stricter), under
    MAX_SECRET_FILE_BYTES and not empty. The checks are made on the opened file, so a file
    swapped between a check and the read is never read.
    """
    shown = os.fspath(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise SecretSourceError(f"cannot read the {what} file {shown}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SecretSourceError(f"the {what} file {shown} is not a regular file")
        if info.st_uid != os.geteuid():
            raise SecretSourceError(
                f"the {what} file {shown} belongs to uid {info.st_uid}, not to this user ({os.geteuid()})"
            )
        if info.st_mode & 0o077:
            raise SecretSourceError(
                f"the {what} file {shown} has mode {stat.S_IMODE(info.st_mode):04o}: others may read it;"
                f" chmod 600 {shown}"
            )
        if info.st_size > MAX_SECRET_FILE_BYTES:
            raise SecretSourceError(f"the {what} file {shown} is over {MAX_SECRET_FILE_BYTES} bytes")
        data = os.read(fd, MAX_SECRET_FILE_BYTES + 1)
    finally:
        os.close(fd)
    try:
        text = data.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise SecretSourceError(f"the {what} file {shown} is not UTF-8 text") from None
    if not text or "\n" in text:
        raise SecretSourceError(f"the {what} file {shown} must hold the {what} alone, on one line")
    return text


def env_secret(name: str, env: Mapping[str, str] | None = None) -> str | None:
    """The secret `name` from the environment: its value, else the file `NAME_FILE` names
    (`read_secret_file`), else None."""
    source = os.environ if env is None else env
    value = source.get(name)
    if value:
        return value
    path = source.get(name + FILE_SUFFIX)
    return read_secret_file(path, name) if path else None


# -- secrets in store URLs --------------------------------------------------------------------------


def url_secrets(url: str) -> dict[str, str]:
    """The secret parts of a database URL: {"password": ...} and any SECRET_QUERY_KEYS in its query;
    {} for a URL that has none or is no URL at all (the store reports that one)."""
    from sqlalchemy.engine import make_url

    try:
        parsed = make_url(url)
    except Exception:  # sqlalchemy raises ArgumentError or ValueError: not a URL, so no secret in one
        return {}
    found = {key: str(parsed.query[key]) for key in SECRET_QUERY_KEYS if key in parsed.query}
    if parsed.password:
        found["password"] = str(parsed.password)
    return found


def without_secrets(url: str) -> str:
    """`url` without its password (and SECRET_QUERY_KEYS): what may travel in a task or be shown."""
    from sqlalchemy.engine import URL, make_url

    parsed = make_url(url).difference_update_query(SECRET_QUERY_KEYS)
    # URL.set(password=None) would keep the password: None there means "unchanged"
    bare = URL.create(
        parsed.drivername, parsed.username, None, parsed.host, parsed.port, parsed.database, parsed.query
    )
    return bare.render_as_string(hide_password=False)


def _server_of(url: str) -> tuple[str, str, int | None, str] | None:
    """(backend, host, port, user): which login a URL's password belongs to (any database of it)."""
    from sqlalchemy.engine import make_url

    try:
        parsed = make_url(url)
    except Exception:  # not a URL: it names no server
        return None
    backend = parsed.get_backend_name()
    port = parsed.port if parsed.port is not None else (5432 if backend == "postgresql" else None)
    return backend, parsed.host or "", port, parsed.username or ""


# -- what a process holds, and what it finds in its environment -------------------------------------


@dataclass(frozen=True)
class WorkerSecrets:
    """The secrets a coordinator hands to the workers of its local pool (through their initializer,
    never in a task): its store's URL with the password, and the live token per live URL."""

    store_urls: tuple[str, ...] = field(default=(), repr=False)
    live_tokens: tuple[tuple[str, str], ...] = field(default=(), repr=False)  # (live URL, token)

    def __repr__(self) -> str:  # nothing of the secrets in a log line or a traceback
        return f"WorkerSecrets({len(self.store_urls)} store URLs, {len(self.live_tokens)} live tokens)"

    @classmethod
    def of(
        cls, store_url: str | None = None, live: tuple[str | None, str | None] = (None, None)
    ) -> WorkerSecrets:
        """The secrets of one store URL and one (live URL, token), either of them absent."""
        url, token = live
        return cls(
            store_urls=(store_url,) if store_url and url_secrets(store_url) else (),
            live_tokens=((url.rstrip("/"), token),) if url and token else (),
        )


_held = WorkerSecrets()
_held_lock = threading.Lock()


def hold(secrets: WorkerSecrets) -> None:
    """Keep `secrets` for the matches this process plays (added to what it already holds)."""
    global _held
    with _held_lock:
        _held = WorkerSecrets(
            store_urls=tuple(dict.fromkeys((*secrets.store_urls, *_held.store_urls))),
            live_tokens=tuple(dict((*_held.live_tokens, *secrets.live_tokens)).items()),
        )


def held() -> WorkerSecrets:
    """What this process holds (for a local pool's initializer)."""
    return _held


def connect_url(url: str, env: Mapping[str, str] | None = None) -> str:
    """`url` as this process connects to it. A URL with a password is used as it is; one without
    gets the password this process holds, or finds in its environment (`BOTARENA_DB` or
    `BOTARENA_DB_FILE`), for the same user at the same server; else it is used as it is, and
    libpq's own ways (PGPASSWORD, PGPASSFILE, ~/.pgpass) apply when psycopg connects."""
    if url_secrets(url):
        return url
    server = _server_of(url)
    if server is None or server[0] != "postgresql":
        return url
    for candidate in (*_held.store_urls, env_secret(DB_ENV, env)):
        if candidate and _server_of(candidate) == server:
            found = url_secrets(candidate)
            if found:
                return _with(url, found)
    return url


def has_credentials(url: str, env: Mapping[str, str] | None = None) -> bool:
    """Whether this process has a password for `url` of its own (not counting libpq's)."""
    return bool(url_secrets(connect_url(url, env)))


def _with(url: str, secrets: Mapping[str, str]) -> str:
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    query = {key: value for key, value in secrets.items() if key != "password"}
    if query:
        parsed = parsed.update_query_dict(query)
    if "password" in secrets:
        parsed = parsed.set(password=secrets["password"])
    return parsed.render_as_string(hide_password=False)


def live_token(url: str, env: Mapping[str, str] | None = None) -> str | None:
    """The live token for the server at `url`: the one this process holds for it, else
    `BOTARENA_LIVE_TOKEN` (or `BOTARENA_LIVE_TOKEN_FILE`) from its environment, else None."""
    wanted = url.rstrip("/")
    for live_url, token in _held.live_tokens:
        if live_url == wanted:
            return token
    return env_secret(LIVE_TOKEN_ENV, env)


__all__ = [
    "DB_ENV",
    "LIVE_TOKEN_ENV",
    "SecretSourceError",
    "WorkerSecrets",
    "bot_environment",
    "connect_url",
    "env_secret",
    "has_credentials",
    "held",
    "hold",
    "is_secret_name",
    "live_token",
    "read_secret_file",
    "url_secrets",
    "without_secrets",
]
