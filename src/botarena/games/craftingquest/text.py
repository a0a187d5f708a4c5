"""ASCII rendering of a Crafting Quest 2 state, for tests and debugging (not sent to bots).

One character per cell, on top of the CQ-3 terrain characters: `M` a camp, `T` a standing tower,
a unit's last id digit (3-8) for the lowest unit id in the cell, `+` a visible pile or dropped
objects, and (with `buried=True`) `$` a cell with buried resources. A legend line per team follows.
"""

from __future__ import annotations

from botarena.games.craftingquest.geometry import PLAYERS, Cell
from botarena.games.craftingquest.state import GameState


def cell_char(state: GameState, cell: Cell, buried: bool = False) -> str:
    """The character of one cell, the most important thing in it first."""
    if cell in state.camps:
        return "M"
    if cell in state.tower_at:
        return "T"
    here = [unit.id for unit in state.units.values() if unit.cell == cell]
    if here:
        return str(min(here))
    if state.resource_piles.get(cell) or state.object_piles.get(cell):
        return "+"
    if buried and state.buried.get(cell):
        return "$"
    return state.terrain[cell[1]][cell[0]]


def render(state: GameState, buried: bool = False) -> str:
    """The whole map, one row per line, then each team's credit, blueprints and units."""
    rows = [
        "".join(cell_char(state, (x, y), buried) for x in range(state.width)) for y in range(state.height)
    ]
    for player in PLAYERS:
        team = state.teams[player]
        units = " ".join(f"{u.id}:{u.kind.value}@({u.x},{u.y}) e{u.energy}" for u in state.team_units(player))
        owned = ",".join(sorted(team.blueprints, key=lambda b: int(b[1:]))) or "-"
        rows.append(f"player {player}: credit {team.credit}, blueprints {owned}; {units}")
    return "\n".join(rows)
