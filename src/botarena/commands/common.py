"""What the `botarena` commands share: the one-line error, the console, the store and sandbox
options, and the lookups several commands make (a store, a tournament, config overrides).

Every import of a heavy module (the store, the sandbox, rich) happens inside the function that needs
it, so `botarena --help` stays quick to start.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from botarena.commands.secret_options import store_url


class UserError(Exception):
    """A mistake of the person at the keyboard: reported in one line, exit code 2."""


ReplaysOption = Annotated[
    str | None,
    typer.Option(
        "--replays",
        envvar="BOTARENA_REPLAYS",
        metavar="db|DIR|file:///DIR",
        help="Where the store keeps replays: db (in the database: a server on any machine that reaches "
        "it shows them), a directory, or file:///shared/dir (a location every machine mounts; workers "
        "write the replays there themselves). Default: replays/ next to a SQLite file; the database "
        "for PostgreSQL.",
    ),
]

UnsandboxedOption = Annotated[
    bool,
    typer.Option(
        "--unsandboxed",
        help="Run entrants' bot processes without the sandbox (only for code you trust; docs/security.md).",
    ),
]

SetOption = Annotated[
    list[str] | None,
    typer.Option("--set", metavar="KEY=VALUE", help="Override a config key (repeatable)."),
]


def console() -> Any:
    """A rich console for tables on stdout (no highlighting: bot names are no markup)."""
    from rich.console import Console

    return Console(highlight=False)


def shortened(text: str, limit: int = 120) -> str:
    """`text`, or its start and end around an ellipsis when it is longer than `limit`."""
    if len(text) <= limit:
        return text
    keep = (limit - 3) // 2
    return f"{text[:keep]}...{text[-keep:]}"


def config_overrides(config_file: Path | None, settings: list[str] | None) -> dict[str, Any]:
    """The overrides of `--config FILE`, then of each `--set KEY=VALUE` (the later wins)."""
    from botarena.core.config import load_overrides, parse_override

    overrides = load_overrides(config_file) if config_file is not None else {}
    overrides.update(parse_override(item) for item in settings or [])
    return overrides


def open_store(db: str | None, db_file: Path | None, replays: str | None = None) -> Any:
    """The store that `--db`/`BOTARENA_DB` or `--db-file` names (commands/secret_options.py), its
    replays where `replays` says (store/replays.py; None: the default)."""
    from botarena.store import Store, StoreError

    try:
        return Store.open(store_url(db, db_file), replays=replays)
    except StoreError as exc:
        if "no password supplied" not in str(exc):
            raise
        raise StoreError(f"{exc} (give it in BOTARENA_DB, --db-file FILE, PGPASSWORD or ~/.pgpass)") from None


def find_tournament(store: Any, which: str | None) -> Any:
    """The tournament of name or id `which` in `store`, or its newest when `which` is None."""
    if which is None:
        found = store.list_tournaments()
        if not found:
            raise UserError(f"no tournaments in {store.url}")
        return found[0]
    tournament = store.get_tournament(int(which)) if which.isdigit() else None
    tournament = tournament or store.find_tournament(which)
    if tournament is None:
        raise UserError(f"no tournament {which!r} in {store.url}")
    return tournament


def isolation(sandboxed: bool) -> Any:
    """The Isolation for strangers' code: sandboxed (refused in one line if the sandbox is missing)."""
    from botarena.bots.resolve import untrusted
    from botarena.bots.sandbox import SandboxPolicy, check_sandbox

    if not sandboxed:
        return untrusted(sandbox=None)
    policy = SandboxPolicy()
    check_sandbox(policy)  # SandboxUnavailable: one line naming the missing piece, exit code 2
    return untrusted(sandbox=policy)
