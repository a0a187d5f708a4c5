"""ASCII rendering of a DatsPulse state, for debugging and test failure messages.

Odd rows are indented by one character, as odd-r offset rows are shifted half a hex right (DP-1). Each
hex is two characters wide. Symbols, strongest first: a living unit is its team's letter in lower case
(a, b, ...); an anthill hex its team's letter in upper case; a pile `*` (apple or bread) or `n` (dropped
nectar); terrain `.` empty, `:` dirt, `~` acid, `#` stone. Hexes off the map are blank.
"""

from __future__ import annotations

from botarena.games.datspulse.state import FoodType, State, Terrain

_TERRAIN = {
    Terrain.ANTHILL: "^",
    Terrain.EMPTY: ".",
    Terrain.DIRT: ":",
    Terrain.ACID: "~",
    Terrain.STONE: "#",
}


def team_letter(index: int) -> str:
    """a..z, then digits and symbols for teams past 26 (only used for display)."""
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
    return alphabet[index % len(alphabet)]


def cell_symbol(state: State, h: int) -> str:
    here = state.occupancy.get(h)
    if here:
        return team_letter(here[0].team)
    owner = state.anthill_owner.get(h)
    if owner is not None:
        return team_letter(owner[0]).upper()
    pile = state.piles.get(h)
    if pile is not None:
        return "n" if pile[0] == FoodType.NECTAR else "*"
    return _TERRAIN.get(Terrain(state.terrain[h]), "?")


def render(state: State) -> str:
    """The whole map, one text line per row, top row (r = -R) first, with a header line."""
    grid = state.grid
    radius = grid.radius
    q_lo = min(q for q, _ in grid.hexes)
    q_hi = max(q for q, _ in grid.hexes)
    lines = [f"turn {state.turn}, radius {radius}, teams {len(state.teams)}"]
    for r in range(-radius, radius + 1):
        row = [" " if r & 1 else ""]
        for q in range(q_lo, q_hi + 1):
            h = grid.index.get((q, r))
            row.append("  " if h is None else cell_symbol(state, h) + " ")
        lines.append("".join(row).rstrip())
    return "\n".join(lines)
