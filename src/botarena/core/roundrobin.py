"""Round robin by the circle method, and standings with points and tie-breaks (drones spec 6.3).

The schedule is the 2018 event's [original]; the points (win 1, draw 0.5, loss 0), the bye that sits
out and the tie-breaks are the spec's proposals:

1. points from the matches among the tied entrants only (head to head);
2. the sum over all matches of (round wins - round losses);
3. total round wins;
4. otherwise the entrants share the rank, listed in registration order.

Tie-break 1 is applied once to each group tied on points; entrants still equal after it go on to
2 and 3 (it is not re-applied to the smaller groups).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

WIN_POINTS = 1.0
DRAW_POINTS = 0.5


class _Bye:
    """The placeholder that makes the entrant count even; a pair with it is not played."""

    def __repr__(self) -> str:
        return "BYE"


BYE = _Bye()


def _check_entrants(entrants: Sequence[str]) -> list[str]:
    names = list(entrants)
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ValueError(f"entrant {name!r} is listed twice")
        seen.add(name)
    return names


def circle_schedule(entrants: Sequence[str]) -> list[list[tuple[str, str]]]:
    """The circle-method schedule (spec 6.3): one list of (PLAYER 1, PLAYER 2) pairs per round.

    With n entrants (a BYE appended when n is odd) there are n - 1 rounds; in round r the order is
    e[0] followed by e[1..n-1] rotated right by r, and order[i] meets order[n-1-i] as PLAYER 1.
    Pairs with the BYE are left out, so every pair of entrants meets exactly once.
    """
    slots: list[str | _Bye] = list(_check_entrants(entrants))
    if len(slots) < 2:
        return []
    if len(slots) % 2:
        slots.append(BYE)
    n = len(slots)
    first, rest = slots[0], slots[1:]
    rounds: list[list[tuple[str, str]]] = []
    for r in range(n - 1):
        shift = r % len(rest)
        order = [first, *rest[len(rest) - shift :], *rest[: len(rest) - shift]]
        pairs: list[tuple[str, str]] = []
        for i in range(n // 2):
            one, two = order[i], order[n - 1 - i]
            if isinstance(one, _Bye) or isinstance(two, _Bye):
                continue
            pairs.append((one, two))
        rounds.append(pairs)
    return rounds


def bye_entrants(entrants: Sequence[str]) -> list[str | None]:
    """The entrant that sits out each round of `circle_schedule` (None when the count is even)."""
    names = _check_entrants(entrants)
    schedule = circle_schedule(names)
    if len(names) % 2 == 0:
        return [None for _ in schedule]
    result: list[str | None] = []
    for pairs in schedule:
        playing = {name for pair in pairs for name in pair}
        result.append(next(name for name in names if name not in playing))
    return result


@dataclass(frozen=True)
class MatchScore:
    """One played match: who was PLAYER 1 and PLAYER 2, and the rounds each won (draws apart).

    The match winner is the side with more round wins; equal round wins is a draw (GD-25).
    """

    player1: str
    player2: str
    wins1: int
    wins2: int
    draws: int = 0

    @property
    def outcome(self) -> str:
        """`PLAYER 1`, `PLAYER 2` or `DRAW`."""
        if self.wins1 > self.wins2:
            return "PLAYER 1"
        if self.wins2 > self.wins1:
            return "PLAYER 2"
        return "DRAW"

    def points(self) -> tuple[float, float]:
        """(PLAYER 1's points, PLAYER 2's points): win 1, draw 0.5, loss 0."""
        if self.wins1 > self.wins2:
            return WIN_POINTS, 0.0
        if self.wins2 > self.wins1:
            return 0.0, WIN_POINTS
        return DRAW_POINTS, DRAW_POINTS


@dataclass(frozen=True)
class Standing:
    """One line of the standings table. `rank` is shared by entrants that no tie-break separates."""

    rank: int
    entrant: str
    points: float
    wins: int
    draws: int
    losses: int
    round_wins: int
    round_losses: int
    round_draws: int
    played: int

    @property
    def round_difference(self) -> int:
        return self.round_wins - self.round_losses


def _as_score(result: MatchScore | Sequence[object]) -> MatchScore:
    if isinstance(result, MatchScore):
        return result
    return MatchScore(*result)  # type: ignore[arg-type]


def standings(entrants: Sequence[str], results: Iterable[MatchScore | Sequence[object]]) -> list[Standing]:
    """The standings table (spec 6.3): points descending, then the tie-breaks of the module docstring.

    `results` are `MatchScore`s or tuples `(player1, player2, wins1, wins2[, draws])`. Entrants
    sharing a rank are listed in registration order; ranks are competition ranks (1, 2, 2, 4).
    """
    names = _check_entrants(entrants)
    order = {name: i for i, name in enumerate(names)}
    scores = [_as_score(r) for r in results]
    for score in scores:
        for name in (score.player1, score.player2):
            if name not in order:
                raise ValueError(f"result names {name!r}, who is not an entrant")
    totals = {
        name: {"points": 0.0, "w": 0, "d": 0, "l": 0, "rw": 0, "rl": 0, "rd": 0, "n": 0} for name in names
    }
    for score in scores:
        p1, p2 = score.points()
        for name, points, won, lost in (
            (score.player1, p1, score.wins1, score.wins2),
            (score.player2, p2, score.wins2, score.wins1),
        ):
            row = totals[name]
            row["points"] += points
            row["w" if points == WIN_POINTS else "d" if points == DRAW_POINTS else "l"] += 1
            row["rw"] += won
            row["rl"] += lost
            row["rd"] += score.draws
            row["n"] += 1

    def head_to_head(name: str, group: set[str]) -> float:
        points = 0.0
        for score in scores:
            if score.player1 in group and score.player2 in group:
                p1, p2 = score.points()
                if score.player1 == name:
                    points += p1
                elif score.player2 == name:
                    points += p2
        return points

    by_points: dict[float, list[str]] = {}
    for name in names:
        by_points.setdefault(totals[name]["points"], []).append(name)
    keyed: list[tuple[tuple[float, float, int, int], str]] = []
    for points, group in by_points.items():
        members = set(group)
        for name in group:
            row = totals[name]
            h2h = head_to_head(name, members) if len(group) > 1 else 0.0
            keyed.append(((points, h2h, int(row["rw"] - row["rl"]), int(row["rw"])), name))
    keyed.sort(key=lambda item: (tuple(-part for part in item[0]), order[item[1]]))

    table: list[Standing] = []
    previous_key: tuple[float, float, int, int] | None = None
    rank = 0
    for position, (key, name) in enumerate(keyed, start=1):
        if key != previous_key:
            rank, previous_key = position, key
        row = totals[name]
        table.append(
            Standing(
                rank=rank,
                entrant=name,
                points=float(row["points"]),
                wins=int(row["w"]),
                draws=int(row["d"]),
                losses=int(row["l"]),
                round_wins=int(row["rw"]),
                round_losses=int(row["rl"]),
                round_draws=int(row["rd"]),
                played=int(row["n"]),
            )
        )
    return table


def summary_line(score: MatchScore, entrant: str) -> str:
    """The event's per-opponent summary (spec 6.3) exactly as it printed it: `WIN (W:792/ L:208/ D:0)`.

    Unlike the event, a drawn match reads `DRAW` (it credited every drawn match to PLAYER 2)."""
    if entrant == score.player1:
        won, lost = score.wins1, score.wins2
    elif entrant == score.player2:
        won, lost = score.wins2, score.wins1
    else:
        raise ValueError(f"{entrant!r} did not play this match")
    word = "WIN" if won > lost else "LOSS" if won < lost else "DRAW"
    return f"{word} (W:{won}/ L:{lost}/ D:{score.draws})"
