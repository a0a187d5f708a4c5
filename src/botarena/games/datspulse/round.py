"""The DatsPulse round: the engine's public API (spec §3 to §6).

`Round` is a pure, deterministic state machine for one round (DP-95): no clock, no I/O, every random
draw from a named stream of the match seed. Both drivers sit on it: the real-time FastAPI server
(`server/`) and the lockstep platform engine (`engine.py`). Team index = seat = registration order (DP-5).

    r = Round.create(config, seed, ["alpha", "beta"])
    r.arena(0, next_turn_in=2.0)            # §4, what team 0 sees
    errors = r.submit(0, {"moves": [...]})  # §5, merged into team 0's order slots
    logs = r.transition()                   # §3.8, turn_no += 1; {team: ["turn 1: ...", ...]}
    r.results()                             # §6.1/§6.2 once r.finished
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from botarena.core.rng import stream
from botarena.games.datspulse import observe
from botarena.games.datspulse.actions import AntView, BodyError, validate_moves
from botarena.games.datspulse.config import GAME_ID, DatsPulseConfig
from botarena.games.datspulse.mapgen import generate_map
from botarena.games.datspulse.rules import Streams, StreamSource, Transition, new_unit_id
from botarena.games.datspulse.state import State, UnitType

__all__ = [
    "STANDINGS_COLUMNS",
    "BadBody",
    "Round",
    "StreamSource",
    "achievements",
    "round_places",
    "round_points",
    "standings",
    "tournament_standings",
]

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
        """Generate the map for len(team_names) teams and set up turn 0 (§3.5, §3.6). Raises ConfigError
        (botarena.core.config) when the map cannot be generated for that many teams.

        `round_number` (1-based within the series) picks the generator when `map_generator` is `cycle`
        (DP-47). `streams` replaces the seeded streams (tests only)."""
        source: StreamSource = streams or (lambda name: stream(seed, f"{GAME_ID}.{name}"))
        draws = Streams(source)
        made = generate_map(config, len(team_names), draws("map"), round_number)
        state = State(config, made.grid, made.terrain, made.homes, list(team_names), made.piles)
        for team in state.teams:  # DP-50: a worker, a soldier and a scout on every spot
            for kind in (UnitType.WORKER, UnitType.SOLDIER, UnitType.SCOUT):
                state.add_unit(team, kind, new_unit_id(draws))
        return cls(config, seed, state, draws, made.generator)

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


def round_places(scores: Sequence[int]) -> list[int]:
    """§6.2 competition ranking by score, descending (1, 1, 3)."""
    return [1 + sum(1 for other in scores if other > s) for s in scores]


def round_points(config: DatsPulseConfig, place: int, score: int) -> int:
    """§6.2: `place_points[p-1]`, `place_points_floor` past the list, 0 for a zero score."""
    if score <= 0:
        return 0
    table = config.place_points
    return table[place - 1] if place <= len(table) else config.place_points_floor


#: The columns of the §6.3 table a tournament shows (`tournament_standings`).
STANDINGS_COLUMNS = (
    ("place", "place"),
    ("name", "team"),
    ("points", "points"),
    ("calories", "calories"),
    ("unitsLost", "units lost"),
    ("rounds", "rounds"),
    ("roundsScored", "rounds scored"),
    ("active", "active"),
)


def _zero_row(name: str) -> dict[str, Any]:
    return {"name": name, "points": 0, "calories": 0, "unitsLost": 0, "roundsScored": 0}


def _totals(rounds_results: Sequence[Sequence[Mapping[str, Any]]]) -> dict[str, dict[str, Any]]:
    """Per team name, in first-seen order: its §6.3 sums over the rounds and the rounds it scored in."""
    totals: dict[str, dict[str, Any]] = {}
    for results in rounds_results:
        for entry in results:
            name = str(entry["name"])
            row = totals.setdefault(name, _zero_row(name))
            row["points"] += int(entry["points"])
            row["calories"] += int(entry["score"])
            row["unitsLost"] += int(entry["unitsLost"])
            row["roundsScored"] += 1 if int(entry["score"]) >= 1 else 0
    return totals


def _placed(rows: Iterable[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    """§6.3 order, best first, with each row's place: total points desc, total calories desc, total units
    lost asc; rows equal on all three share a place and keep their given order (the sort is stable)."""

    def key(row: Mapping[str, Any]) -> tuple[int, int, int]:
        return (-row["points"], -row["calories"], row["unitsLost"])

    ordered = sorted(rows, key=key)
    keys = [key(row) for row in ordered]
    return [(keys.index(k) + 1, row) for row, k in zip(ordered, keys, strict=True)]


def standings(rounds_results: Sequence[Sequence[Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """§6.3 final standings over rounds' `results()` lists, teams matched by `name`.

    Returns one entry per team, best first: {place, name, points, calories, unitsLost, roundsScored,
    active}. Order: total points desc, total calories desc, total units lost asc; teams equal on all three
    share a place. `active`: scored >= 1 in at least ceil(F/2) of the F rounds."""
    needed = math.ceil(len(rounds_results) / 2)
    return [
        {"place": place, **row, "active": row["roundsScored"] >= needed}
        for place, row in _placed(_totals(rounds_results).values())
    ]


#: The columns of the per-round table of a test series (§6.3: test rounds are never summed).
TEST_ROUND_COLUMNS = (
    ("round", "round"),
    ("place", "place"),
    ("name", "team"),
    ("score", "calories"),
    ("points", "points"),
    ("unitsLost", "units lost"),
)
#: A real-time round's match key is its name, `<realm_prefix>-<series>-<number>` (§7.3)
_TEST_ROUND_KEY = re.compile(r"-test-[0-9]+$")


def is_test_round(key: str) -> bool:
    """True for a match that is a real-time test round (its key is `<realm_prefix>-test-<n>`)."""
    return _TEST_ROUND_KEY.search(key) is not None


def _round_results(match: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """A finished match's round results with each row's `name` = the entrant in its seat (DP-5), or
    None for a failed match or one without readable details."""
    details = match.get("details")
    results = details.get("results") if isinstance(details, Mapping) else None
    seats = list(match.get("seats") or [])
    if match.get("ranks") is None or not isinstance(results, list) or len(results) != len(seats):
        return None
    return [{**row, "name": seats[int(row["index"])]} for row in results]


def per_round_table(matches: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """§6.3 "Test-round results are shown per round and are never summed": one row per team and
    round, rounds in the order given (round number), teams by round place."""
    rows: list[dict[str, Any]] = []
    for match in matches:
        results = _round_results(match)
        for row in sorted(results or [], key=lambda r: (int(r["place"]), int(r["index"]))):
            rows.append({"round": match.get("key"), **{k: row[k] for k, _ in TEST_ROUND_COLUMNS[1:]}})
    return {
        "title": "DatsPulse test rounds (spec 6.3: per round, never summed)",
        "columns": [{"key": k, "label": label} for k, label in TEST_ROUND_COLUMNS],
        "rows": rows,
    }


def tournament_standings(entrants: Sequence[str], matches: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """§6.3 final standings of a lockstep tournament, over its rounds (one match = one round), for the
    platform's tournament leaderboard (`GameInfo.extras["tournament_standings"]`).

    A real-time test series (`botarena datspulse serve`, series `test`: its rounds are the matches
    keyed `<realm_prefix>-test-<n>`) has no final standings: §6.3 counts final rounds only, and shows
    test rounds per round, never summed, so its table is `per_round_table`. Test rounds never enter
    the sums of a table that has other rounds.

    A match's `details["results"]` are its round's `results()` (§6.1/§6.2, by team index = seat, DP-5);
    each row is credited to the entrant in that seat, whatever name the team had in the round. Failed
    matches and matches without details are no round. Every entrant has a row (zeros when it played
    no round). Order and shared places as `standings`; `active` (scored >= 1 in at least
    ceil(F/2) of F rounds) takes F as the rounds the team played, which is every round in a series."""
    tests = [match for match in matches if is_test_round(str(match.get("key", "")))]
    if tests and len(tests) == len(matches):
        return per_round_table(tests)
    rounds: list[list[dict[str, Any]]] = []
    played = dict.fromkeys(entrants, 0)
    for match in matches:
        results = None if is_test_round(str(match.get("key", ""))) else _round_results(match)
        if results is None:
            continue
        rounds.append(results)
        for name in match.get("seats") or []:
            played[name] = played.get(name, 0) + 1
    totals = _totals(rounds)
    for name in entrants:
        totals.setdefault(name, _zero_row(name))  # after the teams that played: `standings`' order
    rows = []
    for place, row in _placed(totals.values()):
        rounds_played = played.get(row["name"], 0)
        rows.append(
            {
                "place": place,
                "name": row["name"],
                "points": row["points"],
                "calories": row["calories"],
                "unitsLost": row["unitsLost"],
                "rounds": rounds_played,
                "roundsScored": row["roundsScored"],
                "active": rounds_played > 0 and row["roundsScored"] >= math.ceil(rounds_played / 2),
            }
        )
    return {
        "title": "DatsPulse final standings (spec 6.3)",
        "columns": [{"key": k, "label": label} for k, label in STANDINGS_COLUMNS],
        "rows": rows,
    }


def achievements(
    config: DatsPulseConfig,
    seed: int,
    final_results: Sequence[Sequence[Mapping[str, Any]]],
    union_kills: Sequence[Sequence[tuple[int, int]]],
    table: Sequence[Mapping[str, Any]],
) -> dict[str, list[str]]:
    """§6.4 achievements of a final series (empty unless `achievements_enabled`).

    `final_results[k]` is final round k+1's `results()`, `union_kills[k]` its `Round.union_kills`, `table`
    the `standings`. Returns team names per achievement: lucky, queen, union, top10, top20. Random
    tie-breaks draw from the `achievement` stream of `seed`: Lucky first, then Dear Queen."""
    if not config.achievements_enabled:
        return {}
    rng = stream(seed, f"{GAME_ID}.achievement")
    out: dict[str, list[str]] = {"lucky": [], "queen": [], "union": [], "top10": [], "top20": []}

    def final_round(number: int) -> Sequence[Mapping[str, Any]] | None:
        return final_results[number - 1] if 1 <= number <= len(final_results) else None

    lucky_round = final_round(config.achievement_lucky_round)
    if lucky_round is not None:
        holders = sorted(
            (r for r in lucky_round if r["place"] == config.achievement_lucky_place), key=lambda r: r["index"]
        )
        if holders:
            pick = holders[int(rng.integers(len(holders)))] if len(holders) > 1 else holders[0]
            out["lucky"].append(str(pick["name"]))
    queen_round = final_round(config.achievement_queen_round)
    if queen_round:
        most = max(r["unitsLost"] for r in queen_round)
        top = [r for r in queen_round if r["unitsLost"] == most]
        best_score = max(r["score"] for r in top)
        top = sorted((r for r in top if r["score"] == best_score), key=lambda r: r["index"])
        pick = top[int(rng.integers(len(top)))] if len(top) > 1 else top[0]
        out["queen"].append(str(pick["name"]))
    number = config.achievement_union_round
    union_round = final_round(number)
    if union_round is not None and 1 <= number <= len(union_kills) and union_kills[number - 1]:
        winner = union_kills[number - 1][0][1]
        out["union"] += [str(r["name"]) for r in union_round if r["index"] == winner]
    out["top10"] = [str(r["name"]) for r in table if 1 <= r["place"] <= 10]
    out["top20"] = [str(r["name"]) for r in table if 11 <= r["place"] <= 20]
    return out
