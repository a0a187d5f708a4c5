"""Helpers for DatsPulse engine tests: §9's Board E built directly, units placed by hand, forced draws.

Draws are forced through the engine's one injection seam, the stream source of `Round` (DP-95, §11):
`ForcedStream` answers the next draws of a named stream from a queue and falls back to the real seeded
stream once the queue is empty.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from botarena.core.rng import stream
from botarena.games.datspulse.config import DatsPulseConfig, datspulse_config
from botarena.games.datspulse.engine import Round
from botarena.games.datspulse.hexgrid import Hex, HexMap, neighbours
from botarena.games.datspulse.mapgen import anthill_of
from botarena.games.datspulse.rules import Streams
from botarena.games.datspulse.state import State, Terrain, Unit, UnitType

W, S, X = UnitType.WORKER, UnitType.SOLDIER, UnitType.SCOUT
A, B = 0, 1
SPOT_A: Hex = (-5, 6)
SPOT_B: Hex = (5, -6)
HOME_A: list[Hex] = [(-5, 6), (-5, 5), (-6, 5)]
HOME_B: list[Hex] = [(5, -6), (5, -7), (4, -7)]


class ForcedStream:
    """A stream whose next draws come from `queue` (any draw method pops the next value)."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.queue: list[Any] = []
        self.calls: list[str] = []

    def _next(self, method: str, *args: Any, **kwargs: Any) -> Any:
        self.calls.append(method)
        if self.queue and kwargs.get("size") is None and not (method == "random" and args):
            return self.queue.pop(0)
        return getattr(self.real, method)(*args, **kwargs)

    def integers(self, *args: Any, **kwargs: Any) -> Any:
        return self._next("integers", *args, **kwargs)

    def random(self, *args: Any, **kwargs: Any) -> Any:
        return self._next("random", *args, **kwargs)

    def permutation(self, *args: Any, **kwargs: Any) -> Any:
        return self._next("permutation", *args, **kwargs)

    def bytes(self, *args: Any, **kwargs: Any) -> Any:
        return self._next("bytes", *args, **kwargs)


class ForcedSource:
    """A stream source for `Round`: real seeded streams wrapped in ForcedStream."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.streams: dict[str, ForcedStream] = {}

    def __call__(self, name: str) -> ForcedStream:
        found = self.streams.get(name)
        if found is None:
            found = self.streams[name] = ForcedStream(stream(self.seed, f"datspulse.{name}"))
        return found


def force(rnd: Round, name: str, *values: Any) -> None:
    """Queue forced results for the next draws of stream `name` (e.g. force(r, "order", [1, 0]))."""
    rnd.streams(name).queue.extend(values)


def draw_count(rnd: Round, name: str) -> int:
    """How many draws stream `name` has seen (forced or real)."""
    return len(rnd.streams(name).calls)


def board(
    radius: int,
    spots: Sequence[Hex],
    names: Sequence[str] | None = None,
    seed: int = 1,
    terrain: Mapping[Hex, int] | None = None,
    **overrides: Any,
) -> Round:
    """A Round on an all-empty radius-`radius` map with the given spots, no units, turn 0."""
    config: DatsPulseConfig = datspulse_config("default", {"food_spawn_chance": 0.0, **overrides})
    grid = HexMap(radius)
    cells = bytearray([Terrain.EMPTY]) * len(grid)
    homes = [anthill_of(grid, grid.index[s]) for s in spots]
    for home in homes:
        for h in home:
            cells[h] = Terrain.ANTHILL
    for at, kind in (terrain or {}).items():
        cells[grid.index[at]] = kind
    team_names = list(names) if names is not None else [chr(ord("A") + i) for i in range(len(spots))]
    state = State(config, grid, cells, homes, team_names)
    return Round(config, seed, state, Streams(ForcedSource(seed)), "test")


def board_e(seed: int = 1, terrain: Mapping[Hex, int] | None = None, **overrides: Any) -> Round:
    """§9 Board E: radius 10, team A (index 0) at (-5,6), team B (index 1) at (5,-6), all empty.

    Food spawning is off (food_spawn_chance 0) unless overridden, so piles appear only where put."""
    return board(10, [SPOT_A, SPOT_B], ["A", "B"], seed, terrain, **overrides)


def put(
    rnd: Round,
    team: int,
    kind: int,
    at: Hex,
    name: str | None = None,
    health: int | None = None,
    cargo: tuple[int, int] = (0, 0),
) -> Unit:
    """Place a unit (newest of its team) at `at`; `name` becomes its id (default `<team>-<type><seq>`)."""
    state = rnd.state
    team_obj = state.teams[team]
    seq = team_obj.next_seq
    unit = Unit(
        id=name or f"{team_obj.name}-{'WSX'[kind]}{seq + 1}",
        team=team,
        type=int(kind),
        seq=seq,
        pos=state.grid.index[at],
        health=state.stats[kind].health if health is None else health,
        cargo_type=int(cargo[0]),
        cargo_amount=cargo[1],
    )
    state.place_unit(team_obj, unit)
    rnd.refresh_views()
    return unit


def pile(rnd: Round, at: Hex, food: int, amount: int) -> None:
    rnd.state.piles[rnd.state.grid.index[at]] = [int(food), amount]


def pile_at(rnd: Round, at: Hex) -> tuple[int, int] | None:
    found = rnd.state.piles.get(rnd.state.grid.index[at])
    return None if found is None else (found[0], found[1])


def set_terrain(rnd: Round, at: Hex, kind: int) -> None:
    rnd.state.terrain[rnd.state.grid.index[at]] = kind
    rnd.refresh_views(terrain=True)


def pos(rnd: Round, unit: Unit) -> Hex:
    return rnd.state.grid.hexes[unit.pos]


def hexes(rnd: Round, cells: Sequence[int]) -> list[Hex]:
    return [rnd.state.grid.hexes[h] for h in cells]


def move(ant: str, *cells: Hex) -> dict[str, Any]:
    """One §5 move command."""
    return {"ant": ant, "path": [{"q": q, "r": r} for q, r in cells]}


def order(rnd: Round, team: int, ant: str, *cells: Hex) -> None:
    """Give one order through the real §5 validator; fails the test if it is rejected."""
    errors = rnd.submit(team, {"moves": [move(ant, *cells)]})
    assert errors == [], errors


def texts(lines: Sequence[str]) -> list[str]:
    """Log lines without their `turn <t>: ` prefix."""
    return [line.split(": ", 1)[1] for line in lines]


def nectar_invariant(rnd: Round) -> None:
    """DP-33: stored nectar == floor(S / nectar_calories) for every team."""
    per = rnd.config.nectar_calories
    for team in rnd.state.teams:
        assert sum(team.nectar) == team.score // per, (team.name, team.nectar, team.score)


def random_moves(rnd: Round, team: int, chooser: random.Random) -> dict[str, Any]:
    """A random-walk move body for `team` (paths of 1..speed neighbours, some off the map)."""
    moves = []
    for ant in rnd.arena(team, 1.0)["ants"]:
        cur = (ant["q"], ant["r"])
        steps = []
        for _ in range(chooser.randint(1, 5)):
            cur = chooser.choice(neighbours(*cur))
            steps.append(cur)
        moves.append(move(ant["id"], *steps))
    return {"moves": moves}


def play_random(
    seed: int,
    teams: int,
    turns: int,
    radius: int,
    record: list[list[dict[str, list[Hex]]]] | None = None,
    **overrides: Any,
) -> Iterator[Round]:
    """A generated round of random walkers: yields the round at turn 0 and after every transition.

    With `record`, the accepted orders of each transition are appended to it (for replays)."""
    config = datspulse_config("default", {"map_radius": radius, "turns": turns, **overrides})
    rnd = Round.create(config, seed, [f"t{i}" for i in range(teams)])
    chooser = random.Random(seed)
    yield rnd
    while not rnd.finished:
        for team in range(teams):
            rnd.submit(team, random_moves(rnd, team, chooser))
        if record is not None:
            record.append([rnd.orders(team) for team in range(teams)])
        rnd.transition()
        yield rnd
