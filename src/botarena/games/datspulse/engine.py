"""The DatsPulse engine: `Round`, the state machine of one round, and `DatsPulseEngine`, the platform
Engine (the lockstep driver, spec §7.5, §7.6) around one `Round`.

`Round` is a pure, deterministic state machine for one round (DP-95): no clock, no I/O, every random
draw from a named stream of the match seed. Both drivers sit on it: the real-time FastAPI server
(`botarena.server.datspulse`) and the lockstep `DatsPulseEngine`. Team index = seat = registration
order (DP-5).

    r = Round.create(config, seed, ["alpha", "beta"])
    r.arena(0, next_turn_in=2.0)            # §4, what team 0 sees
    errors = r.submit(0, {"moves": [...]})  # §5, merged into team 0's order slots
    logs = r.transition()                   # §3.8, turn_no += 1; {team: ["turn 1: ...", ...]}
    r.results()                             # §6.1/§6.2 once r.finished

`DatsPulseEngine`: every turn each seat is asked for a moves body with its arena (`nextTurnIn` =
`turn_timeout_ms` / 1000) plus the rejections of its previous reply; each reply is one `/api/move` call
through `Round.submit`, with the §5 statuses, and then one transition runs. A step's record is the
round's spectator frame, and a keyframe is `{"terrain", "frame"}` (the web renderer reads exactly that
shape).

The real-time server (`botarena.server.datspulse`) is a second driver of the same rounds: it wraps its
`Round` with `DatsPulseEngine.from_round`, takes each team's merged order slots just before a transition,
runs the transition itself, and records it with `applied`: the Step `apply` would give for one OK reply per
team whose payload is `orders_body(slots)`. Re-submitting merged slots at the same turn installs the same
orders, so its replay re-runs exactly through this lockstep engine (§7.5, "Replays of both drivers").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import orjson

from botarena.core.game import Engine, MatchResult, Step
from botarena.core.protocol import MessageType, Reply, Request, Verdict
from botarena.core.rng import bot_seed
from botarena.core.status import Reason, Status, Warning
from botarena.games.datspulse import observe
from botarena.games.datspulse.actions import AntView, BodyError, unknown_keys, validate_moves
from botarena.games.datspulse.config import GAME_ID, DatsPulseConfig
from botarena.games.datspulse.observe import end_payload, start_payload, turn_payload
from botarena.games.datspulse.rules import (
    Streams,
    StreamSource,
    Transition,
    round_places,
    round_points,
    setup,
)
from botarena.games.datspulse.state import State

__all__ = ["EXCEPTION", "INVALID_BODY", "MOVE_REJECTED", "BadBody", "DatsPulseEngine", "Round"]

#: §5 warning code: one string of `errors` (a command or entry rejected at request time).
MOVE_REJECTED = "MOVE_REJECTED"
#: §5 reason of INVALID: a body rejected as a whole (HTTP 400 code 4 in real time).
INVALID_BODY = "invalid_body"
#: §5 reason of CRASHED for a bot whose code raised (in-process, or a kit's `{"error": ...}` reply).
EXCEPTION = "exception"
#: §5: a body larger than 1 MiB is rejected as a whole.
MAX_BODY_BYTES = 1 << 20
_ERROR_TEXT_LIMIT = 500
#: §7.2: the one `errors` entry of a well-formed body submitted once the round is over.
ROUND_IS_OVER = "round is over"


class BadBody(ValueError):
    """§5: a move body rejected as a whole (HTTP 400 code 4); str(exc) is the <reason>."""


class Round:
    """One DatsPulse round: pure, deterministic state machine (no clock, no I/O). Team index = seat (DP-5)."""

    config: DatsPulseConfig
    seed: int
    team_names: list[str]

    def __init__(
        self,
        config: DatsPulseConfig,
        seed: int,
        state: State,
        streams: Streams,
        generator: str = "",
    ) -> None:
        """Wrap an already built state (use `create`; tests build §9 boards through `dp_testkit`)."""
        self.config = config
        self.seed = seed
        self.team_names = [t.name for t in state.teams]
        self.generator = generator
        self.state = state
        self.streams = streams
        self.union_kills: list[tuple[int, int]] = []  # (turn, team) of each §6.4 Union kill, in order
        self._events: list[tuple[int, str]] = []
        self._visible: dict[int, list[int]] = {}

    @classmethod
    def create(
        cls,
        config: DatsPulseConfig,
        seed: int,
        team_names: Sequence[str],
        *,
        round_number: int = 1,
        streams: StreamSource | None = None,
    ) -> Round:
        """The round at turn 0 (`rules.setup`, §3.5, §3.6). Raises ConfigError (botarena.core.config)
        when the map cannot be generated for len(team_names) teams.

        `round_number` (1-based within the series) picks the generator when `map_generator` is `cycle`
        (DP-47). `streams` replaces the seeded streams (tests only)."""
        made = setup(config, seed, team_names, round_number=round_number, streams=streams)
        return cls(config, seed, made.state, made.streams, made.generator)

    # -- the clock-free state ------------------------------------------------------------------------

    @property
    def turn_no(self) -> int:
        """The current turn: 0 at the start, `config.turns` at the end (§4 `turnNo`)."""
        return self.state.turn

    @property
    def finished(self) -> bool:
        """True once turn_no == config.turns (DP-81)."""
        return self.state.turn >= self.config.turns

    @property
    def radius(self) -> int:
        """The map radius R (DP-4)."""
        return self.state.grid.radius

    def _team(self, team: int) -> int:
        if not 0 <= team < len(self.state.teams):
            raise IndexError(f"no team {team} in this round")
        return team

    # -- observation ---------------------------------------------------------------------------------

    def refresh_views(self, terrain: bool = False) -> None:
        """Forget the cached visible sets (and the arena's tiles too when `terrain`); call it after
        editing `state` directly (tests that build §9 boards, the benchmark). The engine never needs it."""
        self._visible = {}
        if terrain:
            self.state.tile_json = None

    def prepare_views(self) -> None:
        """Build now what every team's first arena would build: the `map` entries of every hex (50
        teams: ~120k small dicts). The real-time server calls it when a round starts, before it
        freezes the round's objects out of the garbage collector's passes (see its GcPacer);
        built lazily instead, they stay young until the first transition, and every collection
        of the young generations meanwhile scans them all (tens of milliseconds each)."""
        observe.tile_templates(self.state)

    def _visible_cells(self, team: int) -> list[int]:
        found = self._visible.get(team)
        if found is None:
            found = self._visible[team] = observe.visible_set(self.state, team)
        return found

    def arena(self, team: int, next_turn_in: float) -> dict[str, Any]:
        """The §4 arena object for `team`, keys in the §7.1 order, ints as ints, optional ant keys omitted.
        `next_turn_in` is put in as given (callers round it, §7.1)."""
        return observe.arena(self.state, team, self._visible_cells(self._team(team)), next_turn_in)

    def visible_hexes(self, team: int) -> list[tuple[int, int]]:
        """The team's visible set (DP-90) in canonical order (viewer/tests)."""
        hexes = self.state.grid.hexes
        return [hexes[h] for h in self._visible_cells(self._team(team))]

    def spectator_frame(self) -> dict[str, Any]:
        """§4 "Spectator frame" (never sent to bots): {turnNo, teams, units, food, events}; `events` are the
        last transition's log lines as {team, message}."""
        return observe.spectator_frame(self.state, self._events)

    def terrain(self) -> dict[str, Any]:
        """{radius, tiles: [[q, r, type], ...]} in canonical hex order (§4), for the replay header."""
        return observe.terrain(self.state)

    # -- orders --------------------------------------------------------------------------------------

    def _living_ant(self, team: int) -> Callable[[str], AntView | None]:
        """§5 check 1: the living ant of `team` an `ant` string names, or None (dead, unknown, foreign)."""
        state = self.state

        def living(ant: str) -> AntView | None:
            unit = state.by_id.get(ant)
            if unit is None or unit.team != team or not unit.alive:
                return None
            return AntView(state.grid.hexes[unit.pos], state.stats[unit.type].speed)

        return living

    def submit(self, team: int, body: Any) -> list[str]:
        """Validate a parsed JSON move body (§5) for `team` at the current turn and merge the accepted
        paths into the team's orders for the next transition (latest accepted wins per ant, §7.2).
        Returns the `errors` strings in order. Raises BadBody for a whole-body rejection (top level not
        an object, `moves` neither array nor null). Body size and JSON syntax are the caller's checks.

        Once the round is finished a well-formed body changes nothing and gets `["round is over"]` (§7.2)."""
        orders = self.state.teams[self._team(team)].orders
        if self.finished:
            orders = {}
        try:
            errors = validate_moves(body, self._living_ant(team), self.state.grid.index.__contains__, orders)
        except BodyError as exc:
            raise BadBody(str(exc)) from None
        return [ROUND_IS_OVER] if self.finished else errors

    def orders(self, team: int) -> dict[str, list[tuple[int, int]]]:
        """The team's accepted order slots for the coming transition (ant id -> path), for replays."""
        return {ant: list(path) for ant, path in self.state.teams[self._team(team)].orders.items()}

    def order_slots(self) -> list[Mapping[str, Sequence[tuple[int, int]]]]:
        """Every team's accepted order slots as they stand, by team index, without a copy (the
        real-time driver takes them under the game lock). Taken just before `transition()`, they stay
        exactly the orders that transition ran with: it hands every team a fresh slot table rather
        than clearing the old one (DP-70), and a submit never changes an accepted path in place.
        Read them, never change them."""
        return [team.orders for team in self.state.teams]

    def set_orders(self, team: int, orders: Mapping[str, Sequence[tuple[int, int]]]) -> None:
        """Install recorded orders verbatim (replay re-runs and the lockstep/real-time identity test)."""
        self.state.teams[self._team(team)].orders = {
            str(ant): [(int(h[0]), int(h[1])) for h in path] for ant, path in orders.items()
        }

    # -- the transition ------------------------------------------------------------------------------

    def transition(self) -> dict[int, list[str]]:
        """Run one §3.8 transition; clears all orders; turn_no += 1. Returns the new §7.7 log lines per team
        index (already formatted `turn <t+1>: <text>`). Raises RuntimeError if finished."""
        if self.finished:
            raise RuntimeError("the round is over: no more transitions")
        step = Transition(self.state, self.streams)
        log = step.run()
        self.union_kills.extend((log.turn, team) for team in step.union_kills)
        self._events = log.events
        self._visible = {}
        return log.lines

    # -- results -------------------------------------------------------------------------------------

    def results(self) -> list[dict[str, Any]]:
        """§6.1/6.2 per team index: {index, name, score, place, points, unitsLost}."""
        teams = self.state.teams
        scores = [t.score for t in teams]
        places = round_places(scores)
        return [
            {
                "index": t.index,
                "name": t.name,
                "score": t.score,
                "place": place,
                "points": round_points(self.config, place, t.score),
                "unitsLost": t.units_lost,
            }
            for t, place in zip(teams, places, strict=True)
        ]


def default_team_names(count: int) -> list[str]:
    """Names of the teams until the runner gives the bots' names (`set_player_names`)."""
    return [f"team{seat}" for seat in range(count)]


class DatsPulseEngine(Engine[DatsPulseConfig]):
    """One lockstep DatsPulse round between `num_players` seats (seat s is team index s, DP-5)."""

    def __init__(self, config: DatsPulseConfig, seed: int, num_players: int = 1) -> None:
        self.config = config
        self.seed = seed
        self.teams = num_players
        self.names = default_team_names(num_players)
        # Created on first use, so the bots' names given right after construction cost no second map.
        self._round: Round | None = None
        self._errors: list[list[str]] = [[] for _ in range(num_players)]
        #: The §7.7 log lines of the last transition per team index (the real-time server's /api/logs).
        self.last_logs: dict[int, list[str]] = {}

    @classmethod
    def from_round(cls, round_: Round) -> DatsPulseEngine:
        """An engine around a Round created elsewhere (the real-time server's, at its turn 0)."""
        engine = cls(round_.config, round_.seed, len(round_.team_names))
        engine.names = list(round_.team_names)
        engine._round = round_
        return engine

    @property
    def round(self) -> Round:
        """The round being played (its map is generated on first use; raises ConfigError)."""
        if self._round is None:
            self._round = Round.create(self.config, self.seed, self.names)
        return self._round

    def clone_shared(self) -> Iterable[object]:
        """`Engine.clone`: the units, piles, teams, random streams and view caches are copied; the
        config, the hex map (its neighbour tables and disc memo), the unit and terrain tables, the
        anthill reach tables and the arena's tile entries (terrain never changes, DP-10) are shared."""
        shared: list[object] = [self.config]
        if self._round is not None:
            state = self._round.state
            shared += [self._round.config, state.config, state.grid, state.stats, state.costs]
            shared += [state.calories, state.threat, state.bonus, state.raid_reach]
            if state.tile_json is not None:
                shared.append(state.tile_json)
        return shared

    def set_player_names(self, names: list[str]) -> None:
        """The teams take their bots' names (the runner and replay verification call this first)."""
        if self._round is None and len(names) == self.teams:
            self.names = [str(name) for name in names]

    # -- start (§7.6) ----------------------------------------------------------------------------
    def start_requests(self) -> list[Request]:
        _ = self.round  # generate the map now: a ConfigError comes before any bot is asked
        lockstep_config = self.config.lockstep_dict()
        return [
            Request(
                seat,
                start_payload(
                    seat, self.names[seat], self.teams, bot_seed(self.seed, GAME_ID, seat), lockstep_config
                ),
                self.config.setup_timeout_ms,
                MessageType.START,
            )
            for seat in range(self.teams)
        ]

    def apply_start(self, replies: list[Reply]) -> list[Verdict]:
        """§7.6: the start exchange records its own status; its payload is ignored."""
        return [_exchange_verdict(reply) for reply in replies]

    # -- turns (§7.5) ----------------------------------------------------------------------------
    def next_requests(self) -> list[Request]:
        round_ = self.round
        if round_.finished:
            return []
        next_turn_in = self.config.turn_timeout_ms / 1000
        timeout = self.config.turn_timeout_ms
        turn = round_.turn_no
        return [
            Request(
                seat, turn_payload(round_.arena(seat, next_turn_in), self._errors[seat]), timeout, turn=turn
            )
            for seat in range(self.teams)
        ]

    def apply(self, replies: list[Reply]) -> Step:
        """Each reply is one `/api/move` call (§5 statuses), then one transition (§3.8)."""
        verdicts = [self._judge(reply) for reply in replies]
        self.last_logs = self.round.transition()
        return self._step(verdicts)

    def applied(self, replies: list[Reply], logs: dict[int, list[str]]) -> Step:
        """The Step `apply(replies)` gives, for a transition the round has already run (returning `logs`)
        with exactly the orders of `replies` in its slots: the real-time driver's record (§7.5).

        Each reply must be an OK moves body of a team's merged order slots, taken just before that
        transition (`orders_body(round.orders(team))`). Re-submitting such a body at that turn accepts
        every entry again (each path was accepted once, and §5's checks depend only on the turn's
        state), so `apply` would judge it OK without warnings and install the same orders; this records
        that without the second validation. Verdicts and the step's record come from the same code as
        `apply`'s, so the lockstep re-run of the replay (runner/verify.py) finds the same step."""
        self.last_logs = logs
        return self._step([self._judge(reply, resubmitted=True) for reply in replies])

    def _step(self, verdicts: list[Verdict]) -> Step:
        """A step's record is the spectator frame of the turn the transition made."""
        return Step(self.round.spectator_frame(), verdicts)

    def _judge(self, reply: Reply, *, resubmitted: bool = False) -> Verdict:
        """§5 "Missing and late input": the reply's status, and its rejections for the next turn.

        `resubmitted`: the body's orders are already installed and would all be accepted again (see
        `applied`), so it is not submitted; every other check is the same."""
        seat = reply.seat
        self._errors[seat] = []
        if reply.status is not Status.OK:
            return _transport_verdict(reply)
        payload = reply.payload
        if isinstance(payload, dict) and "error" in payload and "moves" not in payload:
            # the kit's answer when the bot's code raised (docs/protocol.md): as an in-process exception
            return Verdict(seat, Status.CRASHED, EXCEPTION, detail=_error_text(payload["error"]))
        too_big = _body_too_big(payload)
        if too_big:
            return Verdict(seat, Status.INVALID, INVALID_BODY, detail=too_big)
        if resubmitted:
            return Verdict(seat, Status.OK, None, [])
        try:
            errors = self.round.submit(seat, payload)
        except BadBody as exc:
            return Verdict(seat, Status.INVALID, INVALID_BODY, detail=str(exc))
        self._errors[seat] = list(errors)
        warnings: list[Warning] = [{"code": MOVE_REJECTED, "detail": text} for text in errors]
        return Verdict(seat, Status.OK, None, warnings + unknown_keys(payload))

    # -- end (§7.6, §6) --------------------------------------------------------------------------
    def end_requests(self) -> list[Request]:
        round_ = self.round
        results = round_.results()
        return [
            Request(
                seat,
                end_payload(round_.arena(seat, 0), seat, results),
                self.config.turn_timeout_ms,
                MessageType.END,
                turn=round_.turn_no,
            )
            for seat in range(self.teams)
        ]

    def apply_end(self, replies: list[Reply]) -> list[Verdict]:
        """§7.6: the end exchange's status is recorded and changes nothing."""
        return [_exchange_verdict(reply) for reply in replies]

    def result(self) -> MatchResult:
        """Ranks are the round places (§6.2, shared on equal scores), scores the round scores (§6.1)."""
        results = sorted(self.round.results(), key=lambda row: int(row["index"]))
        return MatchResult(
            ranks=[int(row["place"]) for row in results],
            scores=[float(row["score"]) for row in results],
            details={"turns": self.round.turn_no, "results": results},
        )

    def keyframe(self) -> dict[str, Any]:
        """The viewer's snapshot: the terrain (§4) and the current spectator frame."""
        return {"terrain": self.round.terrain(), "frame": self.round.spectator_frame()}


def _exchange_verdict(reply: Reply) -> Verdict:
    """The status of a `start` or `end` exchange: the transport's, with an in-process exception named
    `exception` as in a turn (§5)."""
    if reply.status is Status.CRASHED and reply.reason == Reason.BOT_ERROR:
        return Verdict(reply.seat, Status.CRASHED, EXCEPTION, list(reply.warnings))
    return Verdict(reply.seat, reply.status, reply.reason, list(reply.warnings))


def _transport_verdict(reply: Reply) -> Verdict:
    """A reply the transport already judged: TIMEOUT `deadline` and CRASHED `process_exited` stay as they
    are, an in-process exception is CRASHED `exception`, and an unreadable reply line is INVALID
    `invalid_body` (§5: a body that is not JSON is rejected as a whole)."""
    warnings = list(reply.warnings)
    if reply.status is Status.CRASHED and reply.reason == Reason.BOT_ERROR:
        return Verdict(reply.seat, Status.CRASHED, EXCEPTION, warnings)
    if reply.status is Status.INVALID:
        detail = f"the reply is not a JSON moves body ({reply.reason})"
        return Verdict(reply.seat, Status.INVALID, INVALID_BODY, warnings, detail=detail)
    return Verdict(reply.seat, reply.status, reply.reason, warnings)


def _body_too_big(payload: Any) -> str | None:
    """§5: a body over 1 MiB is rejected as a whole (None when it fits)."""
    try:
        size = len(orjson.dumps(payload))
    except TypeError:  # not JSON-able at all: Round.submit judges its shape
        return None
    if size > MAX_BODY_BYTES:
        return f"body is larger than 1 MiB ({size} bytes)"
    return None


def _error_text(value: Any) -> str:
    text = value if isinstance(value, str) else orjson.dumps(value, default=str).decode()
    return text[:_ERROR_TEXT_LIMIT]
