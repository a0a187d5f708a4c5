"""A Domains keyframe as ASCII (the spec's section 9 notation, extended), for `botarena replay --text`,
tests and debugging.

One header line (round, board size, points), then the board, a row per line: paint `.` none,
`0`-`3` a painter; a trail over unpainted ground `a`-`d`, over someone's paint `A`-`D`; an ability
square `!`; on top of that a unit `u` (`U` upgraded), a bubble `o`, a bonus `+`. Then one line per
unit and bubble with what the board cannot show (owner, energy, countdown).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

TRAIL_ON_GROUND = "abcd"
TRAIL_ON_PAINT = "ABCD"


def _square(painter: int, drawer: int, ability: int) -> str:
    """The ground of one square: flag, trail or paint."""
    if ability > 0:
        return "!"
    if drawer >= 0:
        return (TRAIL_ON_GROUND if painter < 0 else TRAIL_ON_PAINT)[drawer]
    return str(painter) if painter >= 0 else "."


def _board(keyframe: Mapping[str, Any]) -> list[list[str]]:
    """The board's characters, row by row, contents over ground."""
    cols = int(keyframe["cols"])
    cells = zip(keyframe["painter"], keyframe["drawer"], keyframe["ability"], strict=True)
    flat = [_square(int(p), int(d), int(a)) for p, d, a in cells]
    board = [flat[x * cols : (x + 1) * cols] for x in range(int(keyframe["rows"]))]
    for _, x, y in keyframe["bonuses"]:
        board[x][y] = "+"
    for _, _, x, y, _ in keyframe["bubbles"]:
        board[x][y] = "o"
    for _, _, x, y, upgraded, _ in keyframe["units"]:
        board[x][y] = "U" if upgraded else "u"
    return board


def keyframe_text(keyframe: Mapping[str, Any]) -> str:
    """The state a keyframe holds (`DomainsEngine.keyframe`'s form) as ASCII lines."""
    points = " ".join(str(p) for p in keyframe["points"])
    lines = [
        f"round {keyframe['round']}, {keyframe['rows']}x{keyframe['cols']}, "
        f"{keyframe['num_players']} players, points {points}"
    ]
    lines += ["".join(row) for row in _board(keyframe)]
    for uid, player, x, y, upgraded, energy in keyframe["units"]:
        lines.append(
            f"unit {uid}: player {player} at ({x}, {y}), energy {energy}{', upgraded' if upgraded else ''}"
        )
    for bid, colour, x, y, rounds_to_pop in keyframe["bubbles"]:
        lines.append(f"bubble {bid}: player {colour} at ({x}, {y}), pops in {rounds_to_pop}")
    return "\n".join(lines) + "\n"
