"""ASCII of a Crafting Quest 2 keyframe as the replay stores it, for `botarena replay FILE --text`,
tests and debugging (never sent to bots).

One character per cell, on top of the CQ-3 terrain characters: `M` a camp, `T` a standing tower,
the lowest unit id (3-8) in the cell, `+` a visible pile or dropped objects, and (with `buried=True`)
`$` a cell with buried resources. A legend line per team follows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from botarena.games.craftingquest.geometry import PLAYERS, Cell


def _marks(keyframe: Mapping[str, Any], buried: bool) -> dict[Cell, str]:
    """The character of every cell that shows more than its terrain, the most important thing first."""
    marks: dict[Cell, str] = {}
    for cell in keyframe["cells"]:
        if cell["resources"] or cell["objects"]:
            marks[(cell["x"], cell["y"])] = "+"
        elif buried and cell["buried"]:
            marks[(cell["x"], cell["y"])] = "$"
    for unit in sorted(keyframe["units"], key=lambda u: -int(u["id"])):  # the lowest id wins
        marks[(unit["x"], unit["y"])] = str(unit["id"])
    for tower in keyframe["towers"]:
        if tower["alive"]:
            marks[(tower["x"], tower["y"])] = "T"
    for camp in keyframe["camps"]:
        marks[(camp["x"], camp["y"])] = "M"
    return marks


def _legend(keyframe: Mapping[str, Any], player: int) -> str:
    units = " ".join(
        f"{u['id']}:{u['kind']}@({u['x']},{u['y']}) e{u['energy']}"
        for u in sorted(keyframe["units"], key=lambda u: int(u["id"]))
        if u["player"] == player
    )
    owned = ",".join(keyframe["blueprints_owned"][str(player)]) or "-"
    return f"player {player}: credit {keyframe['credits'][str(player)]}, blueprints {owned}; {units}"


def keyframe_text(keyframe: Mapping[str, Any], buried: bool = False) -> str:
    """The whole map, one row per line, then each team's credit, blueprints and units."""
    marks = _marks(keyframe, buried)
    rows = [
        "".join(marks.get((x, y), ch) for x, ch in enumerate(row))
        for y, row in enumerate(keyframe["terrain"])
    ]
    rows.extend(_legend(keyframe, player) for player in PLAYERS)
    return "\n".join(rows)
