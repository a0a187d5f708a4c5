"""ASCII of a DatsPulse keyframe (`{"terrain", "frame"}`, as `DatsPulseEngine.keyframe` makes it and a
replay stores it), for `botarena replay FILE --text`, tests and debugging.

`keyframe_text` writes a header line, the map, one line per team and one for the piles. The map has one
text line per row, top row (r = -R) first; odd rows are indented by one character, as odd-r offset rows
are shifted half a hex right (DP-1), and each hex is two characters wide. Symbols, strongest first: a
living unit is its team's letter in lower case (a, b, ...); an anthill hex its team's letter in upper
case; a pile `*` (apple or bread) or `n` (dropped nectar); terrain `.` empty, `:` dirt, `~` acid, `#`
stone. Hexes off the map are blank.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from botarena.games.datspulse import observe
from botarena.games.datspulse.hexgrid import Hex
from botarena.games.datspulse.state import FoodType, State, Terrain

_TERRAIN = {
    Terrain.ANTHILL: "^",
    Terrain.EMPTY: ".",
    Terrain.DIRT: ":",
    Terrain.ACID: "~",
    Terrain.STONE: "#",
}
_UNIT_LETTERS = "wsx"  # worker, soldier, scout (DP-20 order)


def team_letter(index: int) -> str:
    """a..z, then digits for teams past 26 (only used for display)."""
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
    return alphabet[index % len(alphabet)]


def keyframe_text(keyframe: Mapping[str, Any]) -> str:
    """The keyframe as text: the header, the map, a line per team (score, living ants by type, food they
    carry, nectar in each anthill hex, units lost) and a line for the piles on the map."""
    frame = keyframe["frame"]
    lines = _header_and_map(keyframe)
    living = [unit for unit in frame["units"] if unit["health"] > 0]
    for team in frame["teams"]:
        own = [unit for unit in living if unit["team"] == team["index"]]
        by_type = " ".join(
            f"{letter}{sum(1 for unit in own if unit['type'] == kind)}"
            for kind, letter in enumerate(_UNIT_LETTERS)
        )
        carried = sum(int(unit["food"]["amount"]) for unit in own)
        lines.append(
            f"{team_letter(team['index']).upper()} {team['name']}: score {team['score']}, "
            f"ants {len(own)} ({by_type}), carrying {carried}, "
            f"nectar {'/'.join(str(n) for n in team['nectar'])}, lost {team['unitsLost']}"
        )
    piles = frame["food"]
    lines.append(f"piles {len(piles)}, food {sum(int(pile['amount']) for pile in piles)}")
    return "\n".join(lines)


def render(state: State) -> str:
    """The header and the map of a live state (test failure messages): `keyframe_text`'s first lines."""
    keyframe = {"terrain": observe.terrain(state), "frame": observe.spectator_frame(state, [])}
    return "\n".join(_header_and_map(keyframe))


def _header_and_map(keyframe: Mapping[str, Any]) -> list[str]:
    terrain, frame = keyframe["terrain"], keyframe["frame"]
    radius = int(terrain["radius"])
    kinds: dict[Hex, int] = {(q, r): kind for q, r, kind in terrain["tiles"]}
    symbols = _symbols(frame)
    q_lo, q_hi = min(q for q, _ in kinds), max(q for q, _ in kinds)
    lines = [f"turn {frame['turnNo']}, radius {radius}, teams {len(frame['teams'])}"]
    for r in range(-radius, radius + 1):
        row = [" " if r & 1 else ""]
        for q in range(q_lo, q_hi + 1):
            kind = kinds.get((q, r))
            if kind is None:
                row.append("  ")
            else:
                row.append(symbols.get((q, r)) or _TERRAIN.get(Terrain(kind), "?"))
                row.append(" ")
        lines.append("".join(row).rstrip())
    return lines


def _symbols(frame: Mapping[str, Any]) -> dict[Hex, str]:
    """The symbol of every hex that shows more than its terrain, the strongest kept."""
    symbols: dict[Hex, str] = {}
    for pile in frame["food"]:
        symbols[(pile["q"], pile["r"])] = "n" if pile["type"] == FoodType.NECTAR else "*"
    for team in frame["teams"]:
        for home in team["home"]:
            symbols[(home["q"], home["r"])] = team_letter(team["index"]).upper()
    for unit in _first_living_per_hex(frame["units"]):
        symbols[(unit["q"], unit["r"])] = team_letter(unit["team"])
    return symbols


def _first_living_per_hex(units: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The first living unit listed on each hex (only one team's units can share a hex, DP-75)."""
    seen: dict[Hex, Mapping[str, Any]] = {}
    for unit in units:
        if unit["health"] > 0:
            seen.setdefault((unit["q"], unit["r"]), unit)
    return list(seen.values())
