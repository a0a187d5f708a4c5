"""The notebook API: `botarena.play(game, bots, ...)` plays one match and returns a `PlayedMatch`,
whose result and replay are plain objects and which shows itself in Jupyter, JupyterLab and VS Code
notebooks as the replay viewer (the same self-contained page as `botarena view FILE --html`).

    import botarena

    match = botarena.play("drones", ["tactician", "zergy"], seed=42, config={"rounds": 3})
    match                   # the cell shows the viewer, playing the match
    match.result.ranks      # [1, 2]
    match.save("tactician-vs-zergy.json.gz")     # a replay file: `botarena view` opens it

For kaggle-environments users:

    env = make("connectx"); env.run([a, b])      ->  match = botarena.play("drones", [a, b])
    env.render(mode="ipython")                   ->  match  (or display(match); match.iframe(height=...))
    env.steps / env.toJSON()                     ->  match.replay (botarena.core.replay.Replay)
    [s.reward for s in env.state]                ->  match.result.scores (and .ranks)

A bot is what `botarena play` takes on its command line (a starter bot's name, a .py/.js/C++ file, an
http(s) URL or a command line, run trusted: a .py file runs in-process), or a Python object: a
`botarena.bots.base.Bot`, a bot class or a zero-argument factory (called once per match), a bot
object with `act` (and optional `setup`/`end`), a module defining `create_bot`, `Bot` or `act`, or a
plain `act(observation)` function. Every in-process bot runs under the match's real time limits,
exactly as in `botarena play`.

Everything the caller can get wrong (unknown game, unknown bot, a bad config key or value, the wrong
number of bots, a bad seed) raises `PlayError`, a ValueError with a one-line message.
"""

from __future__ import annotations

import html
import inspect
import os
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from botarena.bots.base import Bot
from botarena.core.game import GameInfo, MatchResult
from botarena.core.replay import Replay

if TYPE_CHECKING:
    from botarena.runner.failures import SeatReport

BotLike = str | os.PathLike[str] | Bot | type | ModuleType | Callable[..., Any] | Any
"""What `play` accepts as one seat's bot (see the module docstring)."""

IFRAME_HEIGHT = 640
"""Default height of the inline viewer in pixels: the board, the step controls and the log pane."""


IFRAME_STYLE = "box-sizing: border-box; border: 1px solid #ccc; border-radius: 4px;"
"""The frame's look; border-box keeps it exactly `height` tall and no wider than the output cell."""

REPORT_STYLE = "white-space: pre-wrap; margin: 0 0 4px 0; color: #a30;"
"""The look of the failure report shown above the viewer (wrapped: a traceback line can be long)."""


class PlayError(ValueError):
    """A call to `play` that cannot start a match; the message says why, in one line."""


@dataclass(frozen=True)
class PlayedMatch:
    """One finished match: its result and its replay, shown as the viewer in a notebook."""

    game: str
    """The game id."""
    seed: int
    """The match seed (`play` draws one when none is given): the same seed replays the same match."""
    result: MatchResult
    """Ranks (1-based, shared on ties), scores and the game's own details, per seat."""
    replay: Replay
    """The whole match, as `botarena view` and `botarena replay` read it."""

    @property
    def players(self) -> list[str]:
        """The seats' display names."""
        return [str(player.get("name", f"seat{seat}")) for seat, player in enumerate(self.replay.players)]

    @property
    def ranks(self) -> list[int]:
        return list(self.result.ranks)

    @property
    def scores(self) -> list[float]:
        return list(self.result.scores)

    def html(self) -> str:
        """The self-contained viewer page of this match (`botarena view FILE --html`'s page)."""
        from botarena.standalone import standalone_html

        return standalone_html(self.replay)

    def iframe(self, width: str = "100%", height: int = IFRAME_HEIGHT) -> str:
        """The viewer page in an `<iframe srcdoc=...>`: what a notebook shows for this match.

        The page goes in the attribute with `&`, `<`, `>`, both quotes and carriage returns written as
        character references, so the browser's attribute decoding gives back exactly the page."""
        page = html.escape(self.html(), quote=True).replace("\r", "&#13;")
        title = html.escape(f"botarena {self.game} replay", quote=True)
        return (
            f'<iframe title="{title}" srcdoc="{page}" width="{html.escape(width, quote=True)}" '
            f'height="{int(height)}" style="{IFRAME_STYLE}"></iframe>'
        )

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the match to `path`: the viewer page for a `.html` name, else the replay file (gzip
        JSON, as `botarena play --replay` writes it). Returns the path written."""
        target = Path(path)
        if target.suffix.lower() in (".html", ".htm"):
            from botarena.standalone import write_standalone_html

            return write_standalone_html(self.replay, target)
        from botarena.core.replay import write_replay

        return write_replay(self.replay, target)

    @property
    def failures(self) -> list[SeatReport]:
        """A report for each seat that had a non-OK verdict or lost part of a reply (the status
        counts, the first of each status with its reason, step and detail, dropped entries and
        unknown keys, the log's last lines); [] when every seat played cleanly."""
        from botarena.runner.failures import seat_reports

        return seat_reports(self.replay)

    def report(self) -> str:
        """The text of `failures`, as `botarena play` prints it on stderr ("" when there is none)."""
        return "\n".join(line for failure in self.failures for line in failure.lines())

    def __repr__(self) -> str:
        rows = zip(self.players, self.ranks, self.scores, strict=True)
        seats = ", ".join(
            f"{name} rank {rank} score {score:g}{_trouble(self.replay, seat)}"
            for seat, (name, rank, score) in enumerate(rows)
        )
        shown = f"<PlayedMatch {self.game} seed={self.seed}, {len(self.replay.steps)} steps: {seats}>"
        report = self.report()  # a clean match stays one line; a failure says what and where
        return f"{shown}\n{report}" if report else shown

    def _repr_html_(self) -> str:
        report = self.report()
        if not report:
            return self.iframe()
        return f'<pre style="{REPORT_STYLE}">{html.escape(report, quote=True)}</pre>{self.iframe()}'


def _trouble(replay: Replay, seat: int) -> str:
    """` (2 TIMEOUT, 1 INVALID)` when a seat's replies were not all OK, else ``."""
    if seat >= len(replay.statuses):
        return ""
    bad = {status: n for status, n in replay.statuses[seat].items() if status != "OK" and n}
    return f" ({', '.join(f'{n} {status}' for status, n in sorted(bad.items()))})" if bad else ""


def play(
    game: str,
    bots: Sequence[BotLike],
    *,
    seed: int | None = None,
    config: Mapping[str, Any] | Any = None,
    preset: str = "default",
) -> PlayedMatch:
    """Play one match of `game` between `bots` (seat i is `bots[i]`) and return it.

    `config` is a mapping of config overrides on top of `preset` (the keys `botarena config GAME`
    lists), or a config object of the game built elsewhere. `seed` fixes the match (random if None).
    Raises PlayError for anything given wrong; what the bots do wrong is recorded in the replay."""
    from botarena.core.rng import check_seed
    from botarena.runner import run_match

    info = _game(game)
    if isinstance(bots, str | bytes) or not isinstance(bots, Sequence):
        raise PlayError(f"bots must be a list of bots, one per seat, got {type(bots).__name__}")
    try:
        info.check_players(len(bots))
        seed = secrets.randbelow(2**32) if seed is None else check_seed(seed)
    except ValueError as exc:
        raise PlayError(str(exc)) from None
    built = _config(info, config, preset)
    players = [_bot(bot, info, seat) for seat, bot in enumerate(bots)]
    for seat, player in enumerate(players):  # a Bot is one seat's transport: it cannot serve two
        if any(other is player for other in players[:seat]):
            raise PlayError(f"seat {seat}: the same Bot object sits in two seats; give each seat its own")
    run = run_match(info, players, config=built, seed=seed, preset=preset)
    return PlayedMatch(info.id, seed, run.result, run.replay)


def _game(game_id: str) -> GameInfo[Any]:
    from botarena.core.registry import UnknownGameError, get_game

    if not isinstance(game_id, str):
        raise PlayError(f"game must be a game id (a str), got {type(game_id).__name__}")
    try:
        return get_game(game_id)
    except UnknownGameError as exc:
        raise PlayError(str(exc)) from None


def _config(game: GameInfo[Any], config: Mapping[str, Any] | Any, preset: str) -> Any:
    from botarena.core.config import ConfigError

    if isinstance(config, game.config_class):
        return config
    if config is not None and not isinstance(config, Mapping):
        raise PlayError(f"config must be a dict of {game.id} config overrides, got {type(config).__name__}")
    try:
        return game.config(preset, dict(config) if config else None)
    except (ConfigError, ValueError, TypeError) as exc:
        raise PlayError(f"{game.id} config: {exc}") from None


def _bot(bot: BotLike, game: GameInfo[Any], seat: int) -> Bot:
    """The Bot for one seat (see the module docstring for what may be given)."""
    from botarena.bots.inprocess import PythonBot
    from botarena.bots.resolve import BotSpecError, resolve_bot
    from botarena.kit import module_bot_factory

    if isinstance(bot, Bot):
        return bot
    if isinstance(bot, str | os.PathLike):
        try:
            return resolve_bot(os.fspath(bot), game)
        except BotSpecError as exc:
            raise PlayError(f"seat {seat}: {exc}") from None
    if isinstance(bot, ModuleType):
        factory = module_bot_factory(bot)
        if factory is None:
            raise PlayError(f"seat {seat}: module {bot.__name__} defines no create_bot(), Bot class or act()")
        return PythonBot(factory, name=bot.__name__.rpartition(".")[2])
    if isinstance(bot, type):
        return PythonBot(bot, name=bot.__name__)
    if callable(getattr(bot, "act", None)):
        return PythonBot(lambda: bot, name=type(bot).__name__)
    if callable(bot):
        name = str(getattr(bot, "__name__", type(bot).__name__))
        if _takes_no_arguments(bot):
            return PythonBot(bot, name=name)  # a factory: a fresh bot for the match
        return PythonBot(lambda: bot, name=name)  # an act(observation) function
    raise PlayError(
        f"seat {seat}: {type(bot).__name__} is not a bot: give a starter bot's name "
        f"({', '.join(sorted(game.starter_bots))}), a file, a command line, a URL, a bot object "
        "with act(), a bot class or factory, or an act(observation) function"
    )


def _takes_no_arguments(function: Callable[..., Any]) -> bool:
    """Whether `function()` is a valid call: a factory, as opposed to an act(observation) function."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # a builtin without a signature: taken as an act function
        return False
    try:
        signature.bind()
    except TypeError:
        return False
    return True
