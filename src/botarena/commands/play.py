"""`botarena play GAME BOT...`: one match, its result table and each failing seat's report; with
--replay its journal as it goes, with --resume a killed one goes on, with --live it is watched in
the viewer as it is played (`botarena.commands.play_live`)."""

from __future__ import annotations

import errno
import os
import secrets
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer

from botarena.commands.common import SetOption, UserError, config_overrides, console, isolation, shortened
from botarena.core.registry import get_game
from botarena.core.replay import ReplayError

GameArgument = Annotated[
    str | None, typer.Argument(metavar="GAME", help="Game id (see `botarena games`).", show_default=False)
]
BotsArgument = Annotated[
    list[str] | None,
    typer.Argument(
        metavar="BOT...",
        help="Starter bot name, Python or JS file, C++ source (domains: compiled), URL, or command line.",
        show_default=False,
    ),
]
SeedOption = Annotated[int | None, typer.Option(help="Match seed (0..2^64-1); random if omitted.")]
PresetOption = Annotated[str, typer.Option(help="Config preset.")]
ConfigFileOption = Annotated[
    Path | None, typer.Option("--config", help="A JSON file of config overrides (before --set).")
]
ReplayOption = Annotated[
    Path | None,
    typer.Option(
        help="Write the replay here (.json.gz), as the game goes: if this process is killed, "
        "`--resume` goes on from the file's last complete step."
    ),
]
ResumeOption = Annotated[
    Path | None,
    typer.Option(
        "--resume",
        metavar="FILE",
        help="Go on with the game whose --replay FILE a killed `play` left: its recorded steps are "
        "re-run, then the same bots play on (the game, bots, seed and config come from FILE).",
    ),
]
OriginalJsonOption = Annotated[
    Path | None, typer.Option(help="drones, bravolt2018: also write the 2018 MatchResult JSON here.")
]
LiveOption = Annotated[
    bool,
    typer.Option("--live", help="Serve the viewer on 127.0.0.1 and stream the match to it while it runs."),
]
LivePortOption = Annotated[int, typer.Option(help="--live: port of the viewer (0: a free one).")]
LiveLingerOption = Annotated[
    float, typer.Option(help="--live: seconds to keep serving after the end (Ctrl-C stops earlier).")
]
SandboxOption = Annotated[
    bool,
    typer.Option(
        "--sandbox",
        help="Run the bots as strangers' code would run in a tournament: Python files as "
        "subprocesses, every bot process sealed (bubblewrap, cgroup limits). See docs/security.md.",
    ),
]


def play_command(
    game_id: GameArgument = None,
    bots: BotsArgument = None,
    seed: SeedOption = None,
    preset: PresetOption = "default",
    set_: SetOption = None,
    config_file: ConfigFileOption = None,
    replay: ReplayOption = None,
    resume: ResumeOption = None,
    original_json: OriginalJsonOption = None,
    live: LiveOption = False,
    live_port: LivePortOption = 0,
    live_linger: LiveLingerOption = 60.0,
    sandbox: SandboxOption = False,
) -> None:
    """Play one match and print its result (with --live, watch it in the viewer as it is played;
    with --resume, go on with a killed one)."""
    if live and (live_port < 0 or live_linger < 0):
        raise UserError("--live-port and --live-linger must be 0 or more")
    if resume is not None:
        given = [game_id, *(bots or []), seed, set_, config_file, replay, preset != "default", sandbox]
        if any(item for item in given if item is not None and item is not False and item != []):
            raise UserError(
                "--resume FILE takes the game, bots, seed, config and sandbox from FILE: give none of"
                " GAME, BOT, --seed, --preset, --set, --config, --replay or --sandbox with it"
            )
        match = _resumed_match(resume)
    else:
        match = _new_match(game_id, bots, seed, preset, set_ or [], config_file, replay, sandbox)
    players = _players(match)
    if original_json is not None and match.game.native_result_json is None:
        raise UserError(f"{match.game.id} has no original result format")
    session = _PlaySession(match, players, original_json)
    session.run(live, live_port, live_linger)
    if any(session.reported):
        raise typer.Exit(1)  # the result above stands, but a bot never got to play: say so to scripts


@dataclass
class _PlayedMatch:
    """What `play` plays: a new match from its arguments, or a killed one from its journal."""

    game: Any
    specs: list[str]
    seed: int
    preset: str
    config: Any
    sandbox: bool
    replay: Path | None
    header: dict[str, Any]
    """The journal's resume header (`botarena.commands.resume`)."""
    partial: Any = None
    """The killed match's partial replay (resuming), else None."""
    external: list[dict[str, Any]] = field(default_factory=list)


def _new_match(
    game_id: str | None,
    bots: list[str] | None,
    seed: int | None,
    preset: str,
    settings: list[str],
    config_file: Path | None,
    replay: Path | None,
    sandbox: bool,
) -> _PlayedMatch:
    from botarena.commands.resume import resume_header

    if game_id is None or not bots:
        raise UserError("play needs a GAME and its BOTs (or --resume FILE)")
    game = get_game(game_id)
    game.check_players(len(bots))
    config = game.config(preset, config_overrides(config_file, settings))
    if replay is not None:
        _refuse_to_overwrite_a_killed_game(replay)
    seed = secrets.randbelow(2**32) if seed is None else seed
    header = resume_header(bots, game, sandbox=sandbox)
    return _PlayedMatch(game, bots, seed, preset, config, sandbox, replay, header)


def _resumed_match(file: Path) -> _PlayedMatch:
    from botarena.commands.resume import resume_plan

    plan = resume_plan(file)
    partial = plan.partial
    config = plan.game.config("default", partial.config)
    return _PlayedMatch(
        plan.game,
        plan.specs,
        partial.seed,
        partial.preset,
        config,
        plan.sandbox,
        file,
        plan.resume,
        partial,
        plan.external,
    )


def _refuse_to_overwrite_a_killed_game(file: Path) -> None:
    """`--replay FILE` starts its journal at once: never over a game that can still be resumed."""
    from botarena.core.replay import read_replay

    try:
        os.stat(file)
    except OSError as exc:  # no such file (the usual case), or a name no file can have
        if exc.errno == errno.ENAMETOOLONG:
            raise UserError(f"cannot write the replay to {shortened(str(file))}: {exc.strerror}") from None
        return
    try:
        partial = read_replay(file).partial
    except ReplayError:
        return  # not a replay: overwritten, as before
    if partial:
        raise UserError(
            f"{file} holds a game that did not finish: go on with `botarena play --resume {file}`,"
            " or remove the file to start a new game there"
        )


def _players(match: _PlayedMatch) -> list[Any]:
    """The match's bots: trusted as given, or (--sandbox) sealed as a tournament runs them."""
    from botarena.bots.resolve import TRUSTED, resolve_bot

    if match.sandbox:
        return _sealed_players(match.specs, match.game, isolation(True))
    return [resolve_bot(spec, match.game, isolation=TRUSTED) for spec in match.specs]


def _sealed_players(specs: Sequence[str], game: Any, sealed: Any) -> list[Any]:
    """`play --sandbox`'s bots, run as a tournament's worker runs them: each bot's files packed into
    an artifact and unpacked in the artifact cache (read-only, modes 0644/0755), so that the bot sees
    what it would see in a tournament, and the sandbox's own uid can read it whatever the modes of
    the originals (a 0600 file, a 0700 folder). Each keeps the name its spec gives it."""
    from botarena.bots.artifacts import ArtifactCache, materialize, pack_spec
    from botarena.bots.resolve import resolve_bot

    cache = ArtifactCache()
    players = []
    for spec in specs:
        packed = pack_spec(spec, game)
        if packed is None:  # a starter, a URL, a command of system programs: nothing to pack
            players.append(resolve_bot(spec, game, isolation=sealed))
            continue
        folder = cache.unpacked(packed.digest, _bytes_of(packed.data))
        bot = resolve_bot(materialize(packed.run_spec, folder), game, isolation=sealed)
        path = Path(spec)
        bot.name = path.absolute().name if path.is_dir() else path.stem if path.is_file() else bot.name
        players.append(bot)
    return players


def _bytes_of(data: bytes) -> Callable[[str], bytes]:
    """An artifact fetcher that has the bytes at hand (the cache still checks them against the digest)."""
    return lambda _digest: data


class _PlaySession:
    """One `play` run: the match (new or resumed), its journal if --replay, and its report."""

    def __init__(self, match: _PlayedMatch, players: list[Any], original_json: Path | None) -> None:
        from botarena.core.journal import ReplayJournal

        self.match = match
        self.players = players
        self.original_json = original_json
        self.journal = (
            ReplayJournal(match.replay, resume=match.header, external=match.external)
            if match.replay is not None
            else None
        )
        self.reported: list[bool] = []
        """One entry once the result is printed: whether some seat never played."""

    def run(self, live: bool, live_port: int, live_linger: float) -> None:
        """Play the match (in the live viewer's server with --live) and report it once it ends."""
        match = self.match
        try:
            if live:
                from botarena.commands.play_live import play_live

                play_live(
                    match.game,
                    self.players,
                    match.config,
                    live_port,
                    live_linger,
                    play=self.play,
                    on_done=self.report,
                    journal=self.journal,
                    external=match.external,
                )
            else:
                self.report(self.play(match.game))
        finally:
            if self.journal is not None and not self.reported:
                self.journal.close()
                _print_resume_hint(match.replay)

    def play(self, game: Any, on_begin: Any = None, on_step: Any = None) -> Any:
        """The match, new or resumed, with the journal (if any) among its observers."""
        from botarena.runner import resume_match, run_match

        match = self.match
        if self.journal is not None:
            on_begin, on_step = self.journal.observers(on_begin, on_step)
        if match.partial is not None:
            return resume_match(
                match.partial,
                self.players,
                game=game,
                external=match.external,
                on_begin=on_begin,
                on_step=on_step,
            )
        return run_match(
            game,
            self.players,
            config=match.config,
            seed=match.seed,
            preset=match.preset,
            on_begin=on_begin,
            on_step=on_step,
        )

    def report(self, run: Any) -> None:
        """Write the files, then print the result, as soon as the match ends (a live viewer may
        linger). The finished replay is written first (issue 26, item 1): whatever the printing
        below meets, the game on disk is whole and never a journal left to resume."""
        from botarena.commands.replay import print_result
        from botarena.core.replay import write_replay

        match, replay = self.match, self.match.replay
        if replay is not None:
            if self.journal is not None:
                self.journal.close()
            write_replay(run.replay, replay)
        print_result(match.game.id, match.seed, run.replay, out=console())
        self.reported.append(print_failures(run.replay, match.specs))
        if replay is not None:
            print(f"replay written to {replay}")
        native = match.game.native_result_json
        if self.original_json is not None and native is not None:
            self.original_json.write_text(native(run.replay), encoding="utf-8")
            print(f"original MatchResult JSON written to {self.original_json}")


def print_failures(replay: Any, specs: Sequence[str]) -> bool:
    """Each failing seat's block on stderr (`botarena.runner.report.failure_blocks`), its headline
    marked as botarena's, every line cut at 400 characters; the match went on, and the table above
    is its result. True if some seat never played."""
    from botarena.runner.report import failure_blocks

    never = False
    for block in failure_blocks(replay, specs):
        for index, line in enumerate(block.lines):
            print(f"botarena: {line}"[:400] if index == 0 else line[:400], file=sys.stderr)
        never = never or block.report.never_played
    return never


def _print_resume_hint(file: Path | None) -> None:
    """After a match stopped early: where it stands, and how to go on."""
    from botarena.core.replay import read_replay

    try:
        partial = read_replay(file) if file is not None else None
    except ReplayError:
        return
    if partial is not None and partial.partial:
        print(
            f"botarena: the game stopped after step {len(partial.steps)}; go on with:"
            f" botarena play --resume {file}",
            file=sys.stderr,
        )
