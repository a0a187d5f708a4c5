"""The command-line options that name a secret (`--db`, `--live-token`, a DatsPulse team's `--token`):
secrets come from the environment or from a file only the caller can read, never from the command line.

A command line is readable by every local user (`ps`, /proc/PID/cmdline), so a password or token
typed there is refused, in one line that says where to put it instead (issue 25):

    --db postgresql://u@host/db          fine: no password (libpq's PGPASSWORD or ~/.pgpass gives it)
    --db postgresql://u:pw@host/db       refused
    BOTARENA_DB=postgresql://u:pw@...    fine: the environment is the user's own
    --db-file /etc/botarena/db.url       fine: a 0600 file of the caller's, read at start
    --live-token T                       refused (BOTARENA_LIVE_TOKEN, --live-token-file)
    --organizer-key K                    refused (BOTARENA_ORGANIZER_KEY, --organizer-key-file)

A secret given both ways (`--db` or `BOTARENA_DB`, and `--db-file` or `BOTARENA_DB_FILE`) is one line
of error too.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from botarena.core.credentials import (
    DB_ENV,
    FILE_SUFFIX,
    LIVE_TOKEN_ENV,
    ORGANIZER_KEY_ENV,
    SecretSourceError,
    read_secret_file,
    url_secrets,
)

DATSPULSE_TOKEN_ENV = "BOTARENA_DATSPULSE_TOKEN"
"""A DatsPulse team's token, for `botarena datspulse client`."""
ARENA_TOKEN_ENV = "BOTARENA_ARENA_TOKEN"
"""A team's arena token (`ba_<kid>_<secret>`), for `botarena submit` and `botarena fetch`."""
_CMDLINE_WHY = "every local user can read a command line (/proc/PID/cmdline)"


def _given_on_command_line(ctx: typer.Context, param: typer.CallbackParam) -> bool:
    """Whether `param`'s value was typed on the command line (not taken from its variable). By the
    source's name: typer may bring a click of its own, whose enum is not `click`'s."""
    source = ctx.get_parameter_source(param.name) if param.name else None
    return source is not None and source.name == "COMMANDLINE"


def _db_callback(ctx: typer.Context, param: typer.CallbackParam, value: str | None) -> str | None:
    """Refuse a store URL with a password on the command line (one without is fine)."""
    if value and _given_on_command_line(ctx, param) and url_secrets(value):
        raise SecretSourceError(
            f"--db must not carry a password: {_CMDLINE_WHY}; give the URL in {DB_ENV} or in a file"
            f" only you can read (--db-file FILE, mode 0600), or keep the password in PGPASSWORD or"
            f" ~/.pgpass and give --db without it"
        )
    return value


def _token_refuser(option: str, env: str, file_option: str) -> Callable[..., str | None]:
    """A callback refusing any value of `option` given on the command line (its variable is fine)."""

    def callback(ctx: typer.Context, param: typer.CallbackParam, value: str | None) -> str | None:
        if value and _given_on_command_line(ctx, param):
            raise SecretSourceError(
                f"{option} must not be given on the command line: {_CMDLINE_WHY}; put the token in"
                f" {env} or in a file only you can read ({file_option} FILE, mode 0600)"
            )
        return value

    return callback


DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        envvar=DB_ENV,
        show_envvar=True,
        callback=_db_callback,
        help="Database URL (default sqlite:///./var/botarena.db; postgresql://USER@HOST/DB works). A "
        f"password never goes on the command line: give the URL in {DB_ENV} or --db-file, or the "
        "password in PGPASSWORD or ~/.pgpass.",
    ),
]
DbFileOption = Annotated[
    Path | None,
    typer.Option(
        "--db-file",
        envvar=DB_ENV + FILE_SUFFIX,
        show_envvar=True,
        metavar="FILE",
        help="A file holding the database URL (password included), mode 0600, owned by you.",
    ),
]


def _refused_option(option: str, env: str) -> Any:
    """A secret's own option: hidden and refused on the command line (kept to say so), read from
    its variable `env`."""
    return typer.Option(
        option, envvar=env, hidden=True, callback=_token_refuser(option, env, option + "-file")
    )


def _file_option(option: str, env: str, help_text: str) -> Any:
    """A secret's `OPTION-file`: the file (mode 0600) holding it, also named by `ENV_FILE`."""
    return typer.Option(
        option + "-file", envvar=env + FILE_SUFFIX, show_envvar=True, metavar="FILE", help=help_text
    )


LiveTokenOption = Annotated[str | None, _refused_option("--live-token", LIVE_TOKEN_ENV)]
LiveTokenFileOption = Annotated[
    Path | None,
    _file_option(
        "--live-token",
        LIVE_TOKEN_ENV,
        f"A file holding the server's live-ingest token (16+ characters; docs/deploy.md), mode "
        f"0600, owned by you; or give the token in {LIVE_TOKEN_ENV}.",
    ),
]
OrganizerKeyOption = Annotated[str | None, _refused_option("--organizer-key", ORGANIZER_KEY_ENV)]
OrganizerKeyFileOption = Annotated[
    Path | None,
    _file_option(
        "--organizer-key",
        ORGANIZER_KEY_ENV,
        f"A file holding the organizer's key (16+ characters), mode 0600, owned by you; or give "
        f"it in {ORGANIZER_KEY_ENV}. Requests with it in X-Organizer-Key see running matches whole: "
        "their seeds and their live streams as they are played.",
    ),
]
DatsPulseTokenOption = Annotated[str | None, _refused_option("--token", DATSPULSE_TOKEN_ENV)]
DatsPulseTokenFileOption = Annotated[
    Path | None,
    _file_option(
        "--token",
        DATSPULSE_TOKEN_ENV,
        f"A file holding your team's X-Auth-Token, mode 0600; or give it in {DATSPULSE_TOKEN_ENV}.",
    ),
]

ArenaTokenOption = Annotated[str | None, _refused_option("--token", ARENA_TOKEN_ENV)]
ArenaTokenFileOption = Annotated[
    Path | None,
    _file_option(
        "--token",
        ARENA_TOKEN_ENV,
        f"A file holding your team's arena token (ba_...), mode 0600; or give it in {ARENA_TOKEN_ENV}.",
    ),
]


def pick_secret(value: str | None, file: Path | None, *, option: str, env: str, what: str) -> str | None:
    """The secret given by `value` (the option, or its variable) or read now from `file`, or None.
    Both at once is a one-line error: which of them was meant is anybody's guess."""
    if value and file is not None:
        raise SecretSourceError(
            f"the {what} is given twice: by {option} or {env}, and by {option}-file or"
            f" {env}{FILE_SUFFIX}; give one"
        )
    if file is not None:
        return read_secret_file(file, what)
    return value or None


def store_url(db: str | None, db_file: Path | None) -> str | None:
    """The store URL of `--db`/`BOTARENA_DB` or `--db-file`/`BOTARENA_DB_FILE` (None: the default)."""
    return pick_secret(db, db_file, option="--db", env=DB_ENV, what="database URL")


def live_token_of(token: str | None, token_file: Path | None) -> str | None:
    """The live token of `BOTARENA_LIVE_TOKEN` or `--live-token-file`/`BOTARENA_LIVE_TOKEN_FILE`."""
    return pick_secret(token, token_file, option="--live-token", env=LIVE_TOKEN_ENV, what="live token")


def organizer_key_of(key: str | None, key_file: Path | None) -> str | None:
    """The organizer key of `BOTARENA_ORGANIZER_KEY` or `--organizer-key-file`/`..._FILE`."""
    return pick_secret(key, key_file, option="--organizer-key", env=ORGANIZER_KEY_ENV, what="organizer key")


def arena_token_of(token: str | None, token_file: Path | None) -> str:
    """The team's arena token of `BOTARENA_ARENA_TOKEN` or `--token-file`; none is a one-line error."""
    found = pick_secret(token, token_file, option="--token", env=ARENA_TOKEN_ENV, what="arena token")
    if not found:
        raise SecretSourceError(
            f"no arena token: put your team's token in {ARENA_TOKEN_ENV} or in a file only you can read"
            " (--token-file FILE, mode 0600)"
        )
    return found
