"""A team's reply, the §5 moves body (the `/api/move` body): validation, and orders back to a body.

`validate_moves` parses a move body, checks each command in the spec's order and merges the orders. It
never raises for a bad entry: each one gets exactly one error string (byte-exact spec wording) and the
rest go on. Only a body that is not an object, or whose `moves` is neither an array nor null, is
rejected as a whole (`BodyError`). `orders_body` turns merged orders back into a body, as the
real-time driver records them (§7.5).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from botarena.core.numbers import as_wire_int
from botarena.core.status import Warning, unknown_key_warnings
from botarena.games.datspulse.hexgrid import Hex, adjacent
from botarena.games.datspulse.logs import at


class BodyError(ValueError):
    """The whole body is rejected (HTTP 400 code 4); the message is the <reason>."""


@dataclass(frozen=True, slots=True)
class Command:
    """One well-formed entry of `moves`: an ant string and its path (offset pairs)."""

    ant: str
    path: list[Hex]


@dataclass(frozen=True, slots=True)
class AntView:
    """What the validator needs to know about a living ant of the requesting team."""

    pos: Hex
    speed: int


def invalid_entry(index: int) -> str:
    return f"invalid move command at index {index}"


def is_dead(ant: str) -> str:
    return f"ant {ant} is dead"


def too_long(ant: str, speed: int, length: int) -> str:
    return f"ant {ant} cannot move more than {speed} tiles, but tried to move {length} tiles"


def not_adjacent(ant: str, a: Hex, b: Hex) -> str:
    return f"ant {ant} cannot move from {at(a)} to {at(b)}, not adjacent coordinates"


def tile_not_found(ant: str, h: Hex) -> str:
    return f"ant {ant} cannot move to {at(h)}, tile not found"


BODY_KEYS = frozenset({"moves", "error"})
"""The keys of a lockstep reply (§5's moves body, and the kit's `error`)."""
ENTRY_KEYS = frozenset({"ant", "path"})
"""The keys of a `moves` entry (§5)."""


def unknown_keys(body: dict[str, Any]) -> list[Warning]:
    """UNKNOWN_KEY warnings for the keys of a lockstep reply and of its entries that §5 does not
    define: the platform's note to the bot author (the event's REST API answers as the event did)."""
    warnings = unknown_key_warnings(body, BODY_KEYS)
    moves = body.get("moves")
    if isinstance(moves, list):
        for index, entry in enumerate(moves):
            if isinstance(entry, dict):
                warnings += unknown_key_warnings(entry, ENTRY_KEYS, f"moves[{index}]: ")
    return warnings


def command_list(body: Any) -> list[Any]:
    """The `moves` array of a body: [] when missing or null; BodyError when the body is malformed."""
    if not isinstance(body, dict):
        raise BodyError("top level is not an object")
    moves = body.get("moves")
    if moves is None:
        return []
    if not isinstance(moves, list):
        raise BodyError("moves is neither an array nor null")
    return moves


def parse_entry(entry: Any) -> Command | None:
    """One `moves` element as a Command, or None when it is malformed (§5 "one entry skipped")."""
    if not isinstance(entry, dict):
        return None
    ant = entry.get("ant")
    if not isinstance(ant, str):
        return None
    raw_path = entry.get("path")
    if raw_path is None:
        return Command(ant, [])
    if not isinstance(raw_path, list):
        return None
    path: list[Hex] = []
    append = path.append
    for element in raw_path:
        if type(element) is dict:  # (the common case, checked inline: a body may hold 1,000 elements)
            q = element.get("q")
            r = element.get("r")
            if type(q) is int and type(r) is int:
                append((q, r))
                continue
        elif not isinstance(element, dict):
            return None
        q = as_wire_int(element.get("q"))
        r = as_wire_int(element.get("r"))
        if q is None or r is None:
            return None
        append((q, r))
    return Command(ant, path)


def check_command(command: Command, ant: AntView | None, on_map: Callable[[Hex], bool]) -> str | None:
    """§5 checks 1 to 3 in order; the first failure's error string, or None when accepted."""
    if ant is None:
        return is_dead(command.ant)
    if len(command.path) > ant.speed:
        return too_long(command.ant, ant.speed, len(command.path))
    previous = ant.pos
    for h in command.path:
        if not adjacent(previous, h):
            return not_adjacent(command.ant, previous, h)
        if not on_map(h):
            return tile_not_found(command.ant, h)
        previous = h
    return None


def validate_moves(
    body: Any,
    living: Callable[[str], AntView | None],
    on_map: Callable[[Hex], bool],
    orders: dict[str, list[Hex]],
) -> list[str]:
    """Validate `body` and merge accepted paths into `orders` (latest accepted wins per ant, §7.2).

    `living(ant)` describes a living ant of the requesting team, or None (dead, unknown or foreign).
    Returns the `errors` strings in entry order. Raises BodyError for a whole-body rejection."""
    errors: list[str] = []
    for index, entry in enumerate(command_list(body)):
        command = parse_entry(entry)
        if command is None:
            errors.append(invalid_entry(index))
            continue
        error = check_command(command, living(command.ant), on_map)
        if error is None:
            orders[command.ant] = command.path
        else:
            errors.append(error)
    return errors


def orders_body(orders: Mapping[str, Sequence[Sequence[int]]]) -> dict[str, Any]:
    """A §5 moves body that gives every ant of `orders` (ant id -> path of (q, r)) its path.

    Submitting it at the same turn installs exactly these orders again: each path was accepted once and
    the checks of §5 depend only on the turn's state, so the real-time server records a transition's
    merged order slots as this body and a lockstep re-run reproduces them (§7.5, "Replays of both drivers").
    """
    return {
        "moves": [
            {"ant": ant, "path": [{"q": int(hex_[0]), "r": int(hex_[1])} for hex_ in path]}
            for ant, path in orders.items()
        ]
    }
