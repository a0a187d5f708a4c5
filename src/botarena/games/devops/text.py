"""A Devops keyframe (`DevopsEngine.keyframe`, as the replay stores it) as ASCII, for
`botarena replay FILE --text`, tests and debugging.

The map is a grid of two-character cells, row y = 0 first: the first character is what stands on the
tile (a unit's type initial P W F C S, else `B` a base, `#` fortified, `$` a resource, `.` nothing),
the second its owner (the unit's faction for a unit, else the tile's; a space when neutral), written
with one character per faction id (`OWNER_CHARS`). Bombs have no place in a two-character cell: each
faction's line counts the bombs it has in stock and deployed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

OWNER_CHARS = "123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ@%&+"
"""Faction id k (1..64) is written as OWNER_CHARS[k - 1]."""


def owner_char(owner: int | None) -> str:
    return OWNER_CHARS[owner - 1] if owner else " "


def _tile_char(tile: Mapping[str, Any]) -> str:
    if tile.get("base"):
        return "B"
    if tile.get("fortified"):
        return "#"
    if tile.get("resource"):
        return "$"
    return "."


def _grid(keyframe: Mapping[str, Any]) -> list[str]:
    width, height = int(keyframe["mapWidth"]), int(keyframe["mapHeight"])
    cells = [[". "] * width for _ in range(height)]
    for tile in keyframe.get("tiles", []):
        cells[tile["y"]][tile["x"]] = _tile_char(tile) + owner_char(tile.get("owner"))
    for unit in keyframe.get("units", []):
        cells[unit["y"]][unit["x"]] = str(unit["type"])[0] + owner_char(unit["owner"])
    return ["".join(row) for row in cells]


def _faction_line(faction: Mapping[str, Any], units: Counter[str], bombs: int) -> str:
    kinds = " ".join(f"{kind}x{count}" for kind, count in sorted(units.items()))
    line = (
        f"faction {faction['id']} [{owner_char(faction['id'])}]: score {faction['score']}, "
        f"gold {faction['gold']}, territory {faction['territorySize']}, "
        f"units {sum(units.values())}/{faction['populationCap']}"
        + (f" ({kinds})" if kinds else "")
        + f", bombs {faction['bombs']} in stock {bombs} deployed, kills {faction['kills']}"
    )
    if faction.get("defeated"):
        line += f", defeated at turn {faction.get('defeatTurn')}"
    return line


def keyframe_text(keyframe: Mapping[str, Any]) -> str:
    """The keyframe as ASCII: a title line, the map grid, and one line per faction."""
    units: dict[int, Counter[str]] = {}
    for unit in keyframe.get("units", []):
        units.setdefault(unit["owner"], Counter())[str(unit["type"])] += 1
    bombs = Counter(tile["bombOwner"] for tile in keyframe.get("tiles", []) if tile.get("bombOwner"))
    title = (
        f"devops {keyframe.get('gameId', '')} turn {keyframe['turnNumber']} "
        f"({keyframe['mapWidth']}x{keyframe['mapHeight']})"
    )
    factions = [_faction_line(f, units.get(f["id"], Counter()), bombs[f["id"]]) for f in keyframe["factions"]]
    return "\n".join([title, *_grid(keyframe), *factions]) + "\n"
