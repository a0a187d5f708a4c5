"""The game interface every engine implements, and the description a game registers.

An engine is a deterministic state machine for one match (DESIGN principle 1). The runner drives it:

    start_requests() -> replies -> apply_start(replies)
    while requests := next_requests():      # a batch: sent together, answered independently
        step = apply(replies)               # one Step record per batch, written to the replay
    end_requests() -> replies -> apply_end(replies)
    result()

A batch holds every request that can be in flight at once: both drones players' turns, every Devops
call of a turn, or the single next action of a Crafting Quest turn (whose reply shapes the next
batch). Nothing here reads a clock or does I/O; the runner owns time and transport.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Generic, Self, TypeVar

from botarena.core.formats import FinishedMatch, Format
from botarena.core.protocol import Reply, Request, Verdict


@dataclass(slots=True)
class Step:
    """What one batch of replies did: the game's JSON-able record and a verdict per reply."""

    record: dict[str, Any]
    verdicts: list[Verdict]


@dataclass(slots=True)
class MatchResult:
    """The outcome of a match in platform terms.

    `ranks` are 1-based and shared on ties (a drawn 2-player match is [1, 1]); `scores` are the
    game's own score per seat; `details` is the game's record of the result (JSON-able).
    """

    ranks: list[int]
    scores: list[float]
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"ranks": self.ranks, "scores": self.scores, "details": self.details}


ConfigT = TypeVar("ConfigT")
"""A game's config class (a frozen dataclass): it types the config through the seam, from
`GameInfo.config()` to `new_engine` to `Engine.config`. Code that handles any game says `Any`."""


class Engine(ABC, Generic[ConfigT]):
    """One match of one game. Subclasses hold the state; see the module docstring for the loop.

    Late replies (opt in with `late_replies = True`; Crafting Quest CQ-31 to CQ-35): a request that
    times out leaves its seat *owing* the answer, and the transport keeps the request open. Between
    batches, before each `next_requests()`, the runner hands every answer that arrived meanwhile to
    `late_reply`, in arrival order: `OK` with the payload, `INVALID` for an unreadable line, or
    `CRASHED` (`process_exited`, `disconnected`: the seat stays dead; an in-process bot's exception is
    `bot_error`, and that bot lives on). The seat then no longer owes. The engine must not ask an
    owing seat anything but its `end` request (the runner raises RuntimeError), at most one request
    per seat per batch. Every request to a live seat is sent, even when its chain has no time left
    (then its reply is TIMEOUT `deadline` at once and the seat owes). A chain's budget is measured
    by wall clock from the sending of the chain's first request (CQ-31), not as a sum of bot times.
    `end_requests()` go to every live seat, owing or not; nothing is delivered after them. Engines
    that do not opt in see none of this: a late reply is discarded by request id.
    """

    late_replies: ClassVar[bool] = False

    config: ConfigT
    """The config this match plays; it may differ from the one given (Domains follows the seat count)."""

    def set_player_names(self, names: list[str]) -> None:
        """The seats' display names, given before the start exchange, for games whose bots or records
        show them (Devops DV-6, DatsPulse teams). Default: unused."""
        return None

    def restore_external_inputs(self, record: Mapping[str, Any] | None) -> None:
        """Before re-running a recorded step, take back the inputs that came from outside the bots
        (Devops bonus codes) from that step's `record`. Default: a game has none."""
        return None

    def restore_pending_inputs(self, events: Sequence[Mapping[str, Any]]) -> None:
        """Resuming a killed match (`runner.match.resume_match`), after its recorded steps are re-run:
        take back the inputs from outside the bots that were accepted but not yet used by a recorded
        step (a Devops redemption queued for the next turn). `events` are what the live server wrote
        to the journal as it accepted them (`ReplayJournal.external`), all of them, in order; each has
        a `game` key. Default: a game has none."""
        return None

    @abstractmethod
    def start_requests(self) -> list[Request]:
        """The `start` request of every seat."""

    @abstractmethod
    def apply_start(self, replies: list[Reply]) -> list[Verdict]:
        """Take the start replies (one per seat, in seat order)."""

    @abstractmethod
    def next_requests(self) -> list[Request]:
        """The next batch of decision requests, or [] once the game is over.

        A query: asked again before `apply`, it answers the same and changes nothing (a game whose
        turn starts with effects, such as upkeep, does them once and keeps the batch until `apply`);
        `botarena.testing.check_requests_are_queries` checks it."""

    @abstractmethod
    def apply(self, replies: list[Reply]) -> Step:
        """Apply the replies to the last batch (same order as its requests) and advance."""

    def late_reply(self, reply: Reply) -> None:
        """An owed answer that arrived after its request timed out (only with `late_replies`).

        Called between batches, before `next_requests()`; the runner records it in the replay with
        the step it followed, so a re-run feeds it at the same point. Default: ignore it.
        """
        return None

    @abstractmethod
    def end_requests(self) -> list[Request]:
        """The `end` request of every seat; sent once the game is over."""

    def apply_end(self, replies: list[Reply]) -> list[Verdict]:
        """Judge the end replies. They never change the result."""
        return [Verdict(r.seat, r.status, r.reason, list(r.warnings)) for r in replies]

    @abstractmethod
    def result(self) -> MatchResult:
        """The final result; only valid once `next_requests()` has returned []."""

    @abstractmethod
    def keyframe(self) -> dict[str, Any]:
        """A full, JSON-able snapshot of the visible state, for the viewer to seek to."""

    # -- cloning (tree search) ---------------------------------------------------------------------

    def clone(self) -> Self:
        """An independent copy of this match at this point, for tree search: it diverges on its own.

        Copied: everything the match changes as it plays, including every random stream (a numpy
        Generator is copied with its position, so the clone draws what the original would draw next,
        and drawing in one never advances the other) and every per-match cache. Shared, never
        copied: the objects `clone_shared()` lists, immutable tables (the config, a map's geometry,
        a scenario) that neither copy changes; sharing them is what keeps a clone cheap. A game
        overrides `clone_shared` (or `clone`) to name them; by default only the config is shared.

        The clone has no transport: its seats owe nothing to anyone, and replies for it are whatever
        its driver passes to `apply`. Not thread-safe against the original playing at the same time.
        """
        return deepcopy_sharing(self, self.clone_shared())

    def clone_shared(self) -> Iterable[object]:
        """The immutable objects a clone shares with its original (see `clone`). Default: the config,
        a frozen dataclass."""
        return (self.config,)


T = TypeVar("T")


def deepcopy_sharing(value: T, shared: Iterable[object], replaced: Mapping[int, object] | None = None) -> T:
    """`copy.deepcopy(value)`, except that the objects in `shared` are taken over as they are, and an
    object whose id is a key of `replaced` becomes that key's value (a fresh cache, say).

    Both work through deepcopy's memo, which maps the id of an object already copied to its copy:
    an entry mapping an object to itself makes every reference to it a reference to the same
    object. The caller keeps `shared` and the keys of `replaced` alive (they are parts of `value`).
    """
    keep = list(shared)
    memo: dict[int, Any] = {id(item): item for item in keep}
    if replaced:
        memo.update(replaced)
    memo[id(memo)] = keep  # deepcopy's keep-alive list: the ids above stay unique during the copy
    return copy.deepcopy(value, memo)


BotFactory = Callable[[], Any]


class Dynamics(StrEnum):
    """How seats take their turns."""

    SIMULTANEOUS = "simultaneous"
    """Every seat is asked in the same batch and the replies are applied together."""
    ALTERNATING = "alternating"
    """One seat plays a turn (possibly a chain of requests) while the others wait."""


class Information(StrEnum):
    """What a seat may see of the state."""

    FULL = "full"
    """Every seat sees the whole state (apart from the other seats' bot seeds)."""
    HIDDEN = "hidden"
    """The rules hide part of the state from some seats (fog of war, hidden attributes, mines)."""


@dataclass(frozen=True)
class Kits:
    """The folders under `kits/` that run bots written in other languages for a game."""

    js: str | None = None
    """A JavaScript adapter (`kits/<js>/adapter.mjs`) that runs the game's JavaScript bots."""
    cpp: str | None = None
    """A C++ kit (`kits/<cpp>/`): `.cc` players are compiled against it before they play."""


FormatStandings = Callable[
    [Sequence[str], Sequence["FinishedMatch"], Mapping[str, Mapping[str, Any]] | None], Mapping[str, Any]
]
"""A declared format's own leaderboard sections: `(entrants, finished, details) -> {key: JSON value}`.

`entrants` are in registration order, `finished` are the tournament's finished and failed matches,
`details` maps a match key to its result details (`MatchResult.details`, from its replay; a key is
missing when the replay cannot be read). The keys it returns are added to the tournament's
leaderboard as they are (e.g. drones' 2018 event: `standings`, `standings_summary`,
`standings_notes`); they must not be the leaderboard's own (`rows`, `pairs`, `game_standings`)."""


@dataclass(frozen=True)
class TournamentFormat:
    """A tournament format a game declares (`GameInfo.tournament_formats`): its schedule, the game
    set-up it plays, and what it adds to the leaderboard. `botarena tournament GAME --format NAME`
    plays it under its `name` or any of its `aliases`; the tournament is stored with `name`."""

    format: type[Format]
    """The schedule: a `core.formats.Format` subclass (often a `RoundRobin` with the event's seating);
    its `name` is the format's name, unique among every game's and the generic formats."""
    preset: str = "default"
    """The game preset of its matches (a tournament's own `--preset` wins)."""
    config: Mapping[str, Any] = field(default_factory=dict)
    """Config overrides on top of `preset` (a tournament's own overrides win)."""
    aliases: tuple[str, ...] = ()
    """Other names users may give it, with the same behaviour (the name stored stays `name`)."""
    standings: FormatStandings | None = None
    """The format's own leaderboard sections (None: ratings and the pair matrix only)."""

    @property
    def name(self) -> str:
        """The name stored with a tournament of this format."""
        return self.format.name

    @property
    def names(self) -> tuple[str, ...]:
        """The name, then the aliases: every name that selects this format."""
        return (self.name, *self.aliases)


@dataclass(frozen=True)
class DemoTournament:
    """How `make run`'s demo tournament plays this game."""

    players: int | None = None
    """Seats per match (None: the game's `min_players`)."""
    overrides: Mapping[str, Any] = field(default_factory=dict)
    """Config overrides that keep a demo match short enough to watch."""


GameStandings = Callable[[Sequence[str], Sequence[Mapping[str, Any]]], Mapping[str, Any]]
"""A game's own tournament leaderboard: `(entrants, matches) -> table`.

`entrants` are the tournament's entrant names (registration order); `matches` are its finished and
failed matches in the canonical order (round, key), each a plain dict: `{key, round, seats, ranks,
scores, details}`, where `seats` are entrant names by seat, `ranks`/`scores` are None for a failed
match and `details` is the match's `MatchResult.details` (None when it is not known: a failed match,
or a replay that cannot be read). The table is `{"title": str, "columns": [{"key": str, "label":
str}, ...], "rows": [{key: JSON value}, ...]}`, rows best first."""

HiddenInfoCheck = Callable[["GameInfo[Any]"], None]
"""A game's own check that no payload shows a seat what the rules hide from it: it drives the engine
through short games and raises AssertionError on a leak (the conformance suite runs it)."""

TextRenderer = Callable[[Mapping[str, Any]], str]
"""`keyframe_text(keyframe) -> str`: a keyframe, as the replay stores it, drawn in ASCII."""

NativeResultWriter = Callable[[Any], str]
"""Writes a finished match (a Replay) in the result format of the game's original system."""


@dataclass(frozen=True)
class GameInfo(Generic[ConfigT]):
    """Everything the platform needs to know about a game: registered once per game package.

    Every extension point is a typed field here; nothing is looked up by name elsewhere
    (docs/architecture.md lists what each one is for)."""

    id: str
    rules_version: str
    title: str
    min_players: int
    max_players: int
    dynamics: Dynamics
    information: Information
    config_class: type[ConfigT]
    presets: Mapping[str, Mapping[str, Any]]
    new_engine: Callable[[ConfigT, int, int], Engine[ConfigT]]
    starter_bots: Mapping[str, BotFactory]
    random_bot: BotFactory
    text_renderer: TextRenderer
    keyframe_every: int = 50
    kits: Kits = Kits()
    hidden_info_check: HiddenInfoCheck | None = None
    secret_config_keys: frozenset[str] = frozenset()
    """Config keys that fix content the rules hide from the seats (an explicit scenario, the seats'
    own seeds): the server's public and team routes leave them out of a tournament's config and of
    a live header until it is over (`botarena.server.secrecy`, DESIGN principle 7). Keys that are
    public rules (sizes, turn limits, the choice of a published map) are not listed."""
    validation_preset: str | None = None
    """A short preset of the game's that an arena lays over a competition's own config to validate a
    new version (`specs/arena.md`, Validation: Devops `smoke`); only its keys change, so the
    competition's wire model and rules stay. None: validation plays the competition's config."""
    test_overrides: Mapping[str, Any] = field(default_factory=dict)
    """Config overrides that keep whole-game checks (the conformance suite) quick."""
    native_result_json: NativeResultWriter | None = None
    tournament_formats: tuple[TournamentFormat, ...] = ()
    """Tournament formats of the game's own (an event's schedule and standings), next to the generic
    ones every game plays; `botarena.tournament.formats` finds them by name through this field."""
    tournament_standings: GameStandings | None = None
    """The game's own standings table on every tournament leaderboard of the game (`game_standings`)."""
    demo: DemoTournament = DemoTournament()
    # The hooks of the layers above games, each named as a `"package.module:attr"` target that the
    # layer imports on first use: a game package imports core only, so it names them, never imports.
    rl_encoding: str | None = None
    """The game's RL encoding (`botarena.rl.encoding.Encoding` subclass, built as `Class(config,
    seats)`); without one the game has no `botarena.rl` environments. `rl.register_encoding` may
    name it from outside the game instead."""
    live_routes: str | None = None
    """A function `(match) -> APIRouter | None`: routes of the game's own that a `play --live` match
    serves under `/api` (`botarena.server.live.live_routes_of`; devops: the bonus codes)."""
    url_bot: str | None = None
    """A factory `(url) -> Bot` for an http(s) bot spec: the game's own HTTP contract (devops: the
    course's service API); without one a URL gets the generic `HttpBot`."""

    def config(self, preset: str = "default", overrides: Mapping[str, Any] | None = None) -> ConfigT:
        """Build and validate this game's config (raises ConfigError)."""
        from botarena.core.config import build_config

        return build_config(self.config_class, self.presets, preset, overrides)

    def check_players(self, count: int) -> None:
        """Raise ValueError unless `count` seats can play a match of this game."""
        if not self.min_players <= count <= self.max_players:
            span = (
                str(self.min_players)
                if self.min_players == self.max_players
                else f"{self.min_players}-{self.max_players}"
            )
            raise ValueError(f"{self.id} needs {span} players, got {count}")
