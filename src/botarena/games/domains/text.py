"""ASCII pictures of the board, for tests and debugging (the spec's section 9 notation, extended).

Paint: `.` none, `0`-`3` a painter; a trail over unpainted ground is `a`-`d`, over someone's paint
`A`-`D`; an ability square is `!`. With `contents=True` units show as `u`/`U` (upgraded), bubbles as
`o`, bonuses as `+`.
"""

from __future__ import annotations

from botarena.games.domains.state import State


def board_text(state: State, contents: bool = False) -> str:
    rows = []
    for x in range(state.H):
        line = []
        for y in range(state.W):
            q = x * state.W + y
            if contents and state.unit_at[q] >= 0:
                line.append("U" if state.unit_upgraded[int(state.unit_at[q])] else "u")
                continue
            if contents and state.bubble_at[q] >= 0:
                line.append("o")
                continue
            if contents and state.bonus_at[q] >= 0:
                line.append("+")
                continue
            painter, drawer = int(state.painter[q]), int(state.drawer[q])
            if state.ability[q] > 0:
                line.append("!")
            elif drawer >= 0:
                line.append(("abcd" if painter < 0 else "ABCD")[drawer])
            elif painter >= 0:
                line.append(str(painter))
            else:
                line.append(".")
        rows.append("".join(line))
    return "\n".join(rows) + "\n"


def parse_board(picture: str) -> list[str]:
    """The rows of a picture, without blank lines and surrounding spaces."""
    return [line.strip() for line in picture.strip().splitlines() if line.strip()]
