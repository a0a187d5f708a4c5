"""`botarena submit` and `botarena fetch`: a team's side of a hosted arena (`specs/arena.md`, Team CLI).

    BOTARENA_ARENA_TOKEN=ba_... botarena submit mybot/ --server https://arena.example.org --wait
    botarena submit https://bot.team7.example.org --server S --secure-key-file key.txt
    botarena fetch 1234 --server S        # 1234.json.gz, the replay with the team's own logs

The token comes from `BOTARENA_ARENA_TOKEN` or `--token-file` (never the command line: every local user
can read it). `submit` zips a folder here (`botarena.arena.submission`), checks it as the server will,
sends it, and with `--wait` follows the version's state until it is ready, active or rejected.

Exit codes: 0 sent (with `--wait`: the version is ready or active); 1 with `--wait`, the version was
rejected, superseded, paused or disabled; 2 a mistake (a path, a refusal by the server, no token).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

import typer

from botarena.commands.common import UserError
from botarena.commands.secret_options import ArenaTokenFileOption, ArenaTokenOption, arena_token_of

ServerOption = Annotated[
    str,
    typer.Option("--server", envvar="BOTARENA_ARENA_SERVER", show_envvar=True, help="The arena's base URL."),
]
PLAYING_STATES = frozenset({"ready", "active"})
SourceArgument = Annotated[
    str, typer.Argument(help="A bot file, a folder (zipped here), a zip or tar.gz, or an http(s) URL.")
]
WaitOption = Annotated[bool, typer.Option("--wait", help="Follow the version until it is ready or rejected.")]
OutOption = Annotated[
    Path | None, typer.Option("--out", help="Where to write it (default MATCH_ID.json.gz).")
]


def submit_command(
    source: Annotated[
        str, typer.Argument(help="A bot file, a folder (zipped here), a zip or tar.gz, or an http(s) URL.")
    ],
    server: ServerOption,
    note: Annotated[str | None, typer.Option("--note", help="A note kept with the version.")] = None,
    wait: Annotated[
        bool, typer.Option("--wait", help="Follow the version until it is ready or rejected.")
    ] = False,
    secure_key_file: Annotated[
        Path | None,
        typer.Option("--secure-key-file", help="For a URL: a file holding the service's X-SECURE-KEY."),
    ] = None,
    token: ArenaTokenOption = None,
    token_file: ArenaTokenFileOption = None,
) -> None:
    """Upload a new version of your team's bot to an arena."""
    from botarena.clients.arena import ArenaClient

    client = ArenaClient(server, arena_token_of(token, token_file))
    uploaded = _run(_send(client, source, note, secure_key_file))
    version = uploaded.version
    word = "new version" if uploaded.created else "already uploaded as version"
    typer.echo(f"{word} {version.get('number')} (id {version.get('id')}): {version.get('state')}")
    if not wait:
        return
    final = _run(client.follow(version, on_state=_print_state))
    if final.get("state") not in PLAYING_STATES:
        raise typer.Exit(1)


def fetch_command(
    match_id: Annotated[int, typer.Argument(help="The match's id (its page or `GET /api/.../matches`).")],
    server: ServerOption,
    out: Annotated[
        Path | None, typer.Option("--out", help="Where to write it (default MATCH_ID.json.gz).")
    ] = None,
    token: ArenaTokenOption = None,
    token_file: ArenaTokenFileOption = None,
) -> None:
    """Download a match's replay with your team's own logs, ready for `botarena replay --verify`."""
    from botarena.clients.arena import ArenaClient

    client = ArenaClient(server, arena_token_of(token, token_file))
    data = _run(client.replay(match_id))
    path = out or Path(f"{match_id}.json.gz")
    path.write_bytes(data)
    typer.echo(f"wrote {path} ({len(data)} bytes)")
    typer.echo(f"  botarena replay {path} --verify")
    typer.echo(f"  botarena replay {path} --feed --seat SEAT --turn TURN")


async def _send(client: Any, source: str, note: str | None, secure_key_file: Path | None) -> Any:
    if source.startswith(("http://", "https://")):
        secure_key = _read_key(secure_key_file) if secure_key_file else None
        return await client.register_url(source, secure_key=secure_key, note=note)
    if secure_key_file is not None:
        raise UserError("--secure-key-file is for a URL entry, not a file or folder")
    from botarena.arena.policy import PolicyError, parse_policy
    from botarena.arena.submission import SubmissionError, build_submission

    try:
        # checked here against the competition's own limits, as the server will check it
        policy = parse_policy((await client.competition()).get("policy") or {})
    except PolicyError:
        policy = None  # a server newer than this client: its own check is the one that counts
    try:
        submission = build_submission(Path(source), policy)
    except SubmissionError as exc:
        raise UserError(str(exc)) from None
    return await client.upload(submission.data, submission.filename, note=note)


def _read_key(path: Path) -> str:
    from botarena.core.credentials import read_secret_file

    return read_secret_file(path, "secure key")


def _print_state(version: dict[str, Any]) -> None:
    line = f"version {version.get('number')}: {version.get('state')}"
    if version.get("reason_code"):
        line += f" ({version['reason_code']}): {version.get('reason') or ''}".rstrip(": ")
    typer.echo(line)


def _run(work: Any) -> Any:
    """Run the client's coroutine; its refusals are the user's one-line errors (exit 2)."""
    from botarena.clients.arena import ArenaClientError

    try:
        return asyncio.run(work)
    except ArenaClientError as exc:
        raise UserError(str(exc)) from None
