"""`botarena datspulse ...`: the DatsPulse real-time server's commands.

    botarena datspulse serve --config server.toml [--preset compat] [--host H] [--port P] [--db URL]
                             [--spectators after-round|delayed|open] [--spectator-delay TURNS]
    BOTARENA_DATSPULSE_TOKEN=... botarena datspulse client --url URL [--bot forager]

Secrets never go on the command line (commands/secret_options.py): a store password in BOTARENA_DB
or --db-file, a team's token in BOTARENA_DATSPULSE_TOKEN or --token-file.

A mistake in the config file or the options is one line on stderr and exit code 2 (the main CLI maps
SettingsError, a ValueError, that way); Ctrl-C stops the server cleanly with exit code 0 once the
store's writes are done.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from botarena.commands.secret_options import (
    DATSPULSE_TOKEN_ENV,
    DatsPulseTokenFileOption,
    DatsPulseTokenOption,
    DbFileOption,
    DbOption,
    pick_secret,
    store_url,
)

app = typer.Typer(
    name="datspulse",
    help="DatsPulse: run the real-time server that public client bots play against.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.command("serve")
def serve_command(
    config: Annotated[Path, typer.Option("--config", help="The server's TOML file: teams, tokens, preset.")],
    preset: Annotated[
        str | None, typer.Option(help="DatsPulse preset (test, final, ci, compat); overrides the file's.")
    ] = None,
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (0: pick a free one).")] = 8000,
    db: DbOption = None,
    db_file: DbFileOption = None,
    replays: Annotated[
        str | None,
        typer.Option(
            "--replays",
            envvar="BOTARENA_REPLAYS",
            metavar="db|DIR|file:///DIR",
            help="Where the store keeps replays: db (the database), a directory or file:///shared/dir "
            "(default: replays/ next to a SQLite file; the database for PostgreSQL).",
        ),
    ] = None,
    spectators: Annotated[
        str | None,
        typer.Option(
            help="Who may watch a running round on the public live stream: after-round (default: "
            "nothing until it ends), delayed (--spectator-delay turns behind, the map included) or "
            "open (as it is played: every team could watch its rivals). Overrides the file's "
            "[spectators] mode. The organizer key always opens the full stream."
        ),
    ] = None,
    spectator_delay: Annotated[
        int | None, typer.Option(help="--spectators delayed: how many turns behind (default 30).")
    ] = None,
) -> None:
    """Run DatsPulse rounds on the clock for the teams of --config; print the API and viewer URLs."""
    import logging

    from botarena.server.datspulse.server import run
    from botarena.server.datspulse.settings import SettingsError, SpectatorMode, load_settings
    from botarena.store import Store

    if not 0 <= port <= 65535:
        raise SettingsError(f"--port must be 0..65535, got {port}")
    settings = load_settings(config, preset=preset, spectators=spectators, spectator_delay=spectator_delay)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    store = Store.open(store_url(db, db_file), replays=replays)
    cfg = settings.config

    def ready(base_url: str, viewer_url: str) -> None:
        print(
            f"DatsPulse server: {len(settings.teams)} teams, preset {settings.preset}, "
            f"series {settings.series_name!r} ({cfg.series}), store {store.url}",
            flush=True,
        )
        print(f"API:    {base_url}", flush=True)
        print(f"viewer: {viewer_url}", flush=True)
        policy = settings.spectators
        delay = f" ({policy.delay_turns} turns behind)" if policy.mode is SpectatorMode.DELAYED else ""
        print(f"spectators: {policy.mode.value}{delay}", flush=True)
        print(
            f"organizer live: {base_url}/datspulse/live/<round>/events "
            f"(X-Organizer-Key or ?key=): {policy.organizer_key}",
            flush=True,
        )

    try:
        server = run(settings, store=store, host=host, port=port, on_ready=ready)
        standings = server.recorder.standings
        if standings:
            print("final standings:", flush=True)
            for row in standings:
                print(
                    f"  {row['place']:>3}. {row['name']}  {row['points']} points, {row['calories']} cal, "
                    f"{row['unitsLost']} units lost",
                    flush=True,
                )
    finally:
        store.close()
    print("DatsPulse server stopped", flush=True)


# -- a team's side: play a bot against a DatsPulse server over HTTP ----------------------------


@app.command("client")
def client_command(
    url: Annotated[str, typer.Option("--url", help="The server's base URL, e.g. http://127.0.0.1:8000.")],
    token: DatsPulseTokenOption = None,
    token_file: DatsPulseTokenFileOption = None,
    bot: Annotated[
        str,
        typer.Option(
            help="The bot: any spec `botarena play` takes (a starter: forager, raider, random_walker; "
            'a Python file; a folder; a command line such as "python3 -m botarena.kit my_bot.py").'
        ),
    ] = "forager",
    seed: Annotated[int, typer.Option(help="The bot's seed (its bot_seed; spec §10).")] = 0,
    rounds: Annotated[int, typer.Option(help="Rounds to play before exiting.")] = 1,
    rate_limit: Annotated[
        int, typer.Option(help="The server's rate_limit_per_second (the client keeps under it).")
    ] = 3,
    max_seconds: Annotated[float, typer.Option(help="Stop after this long whatever happens.")] = 3600.0,
) -> None:
    """Play a bot against a DatsPulse server, as a team's client would (register, arena, move)."""
    import logging

    from botarena.clients.datspulse import ClientError, ClientOptions, run_client

    if rounds < 1 or rate_limit < 1 or max_seconds <= 0 or not 0 <= seed < 2**32:
        raise ClientError("--rounds and --rate-limit must be >= 1, --max-seconds > 0, --seed in 0..2^32-1")
    token = pick_secret(token, token_file, option="--token", env=DATSPULSE_TOKEN_ENV, what="team token")
    if not token:
        raise ClientError(
            f"give your team's token in {DATSPULSE_TOKEN_ENV} or in a 0600 file: --token-file FILE"
        )
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    options = ClientOptions(
        url=url,
        token=token,
        bot=bot,
        seed=seed,
        rounds=rounds,
        rate_limit=rate_limit,
        max_seconds=max_seconds,
    )
    report = run_client(options)
    if report.bot_failures:
        print(
            f"the bot failed in {report.bot_failures} turn(s) (no move sent): see the log above", flush=True
        )
    print(
        f"{report.rounds_played} round(s) played ({', '.join(report.realms) or 'none'}); "
        f"moves accepted in {len(report.moved_turns)} turns; final turn {report.final_turn}, "
        f"score {report.final_score}; rejected commands {report.move_errors}; 429s {report.rate_limited}",
        flush=True,
    )
    if report.rounds_played < rounds:  # stopped by --max-seconds
        raise typer.Exit(1)
