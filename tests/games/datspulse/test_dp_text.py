"""`keyframe_text` (docs/architecture.md): the ASCII of a keyframe as a replay stores it."""

from __future__ import annotations

import orjson

from botarena.core.protocol import Reply
from botarena.core.status import Status
from botarena.games.datspulse import GAME
from botarena.games.datspulse.bots import Forager, Raider, RandomWalker
from botarena.games.datspulse.engine import DatsPulseEngine
from botarena.games.datspulse.text import keyframe_text, render

RADIUS = 14


def played_engine(turns: int) -> DatsPulseEngine:
    """Three starters, `turns` turns into a round on a small map."""
    engine = GAME.new_engine(GAME.config(overrides={"turns": 8, "map_radius": RADIUS}), 7, 3)
    assert isinstance(engine, DatsPulseEngine)
    engine.set_player_names(["forager", "raider", "walker"])
    starts = engine.start_requests()
    engine.apply_start([Reply(request.seat, Status.OK, {}) for request in starts])
    bots = [Forager(), Raider(), RandomWalker()]
    for bot, request in zip(bots, starts, strict=True):
        bot.setup(request.payload)
    for _ in range(turns):
        requests = engine.next_requests()
        engine.apply([Reply(r.seat, Status.OK, bots[r.seat].act(r.payload)) for r in requests])
    return engine


def cell(map_lines: list[str], q_lo: int, q: int, r: int) -> str:
    """The symbol drawn for hex (q, r): odd rows are shifted one character right (DP-1)."""
    line = map_lines[r + RADIUS]
    column = (1 if r & 1 else 0) + 2 * (q - q_lo)
    return line[column] if column < len(line) else " "


def test_keyframe_text_draws_a_stored_keyframe() -> None:
    """Header, the map (what `render` draws of the same state), a line per team and one for the piles;
    every living unit in its team's lower-case letter, every free anthill hex (DP-11) in upper case."""
    engine = played_engine(5)
    state = engine.round.state
    lines = keyframe_text(orjson.loads(orjson.dumps(engine.keyframe()))).splitlines()
    map_lines = render(state).splitlines()
    assert lines[0] == "turn 5, radius 14, teams 3"
    assert len(map_lines) == 1 + 2 * RADIUS + 1 and lines[: len(map_lines)] == map_lines
    assert len(lines) == len(map_lines) + 3 + 1
    team_lines = lines[len(map_lines) : len(map_lines) + 3]
    for team, line in zip(state.teams, team_lines, strict=True):
        living = [unit for unit in team.units if unit.alive]
        carried = sum(unit.cargo_amount for unit in living)
        nectar = "/".join(str(n) for n in team.nectar)
        assert line.startswith(f"{'ABC'[team.index]} {team.name}: score {team.score}, ants {len(living)} (w")
        assert line.endswith(f"carrying {carried}, nectar {nectar}, lost {team.units_lost}")
    assert lines[-1] == f"piles {len(state.piles)}, food {sum(pile[1] for pile in state.piles.values())}"
    q_lo = min(q for q, _ in state.grid.hexes)
    drawn = map_lines[1:]
    occupied = {state.grid.hexes[unit.pos]: unit.team for unit in state.all_units() if unit.alive}
    assert occupied
    for (q, r), team_index in occupied.items():
        assert cell(drawn, q_lo, q, r) == "abc"[team_index]
    for team in state.teams:
        for h in team.home:
            q, r = state.grid.hexes[h]
            if (q, r) not in occupied:
                assert cell(drawn, q_lo, q, r) == "ABC"[team.index]
