"""Domains' native formats (spec 7.4 and 11): the original's game files and the reference traces.

`export_new` / `export_old` write a finished game in the original's incremental ("new") and
full-board ("old") text formats; `parse_trace` reads the conformance traces of section 11.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from botarena.games.domains.config import DomainsConfig
from botarena.games.domains.rules import DomainsGame
from botarena.games.domains.state import Order, OrderKind

_TRACE_KINDS = {"m": OrderKind.move, "a": OrderKind.attack, "b": OrderKind.ability}


def export_name(name: str, index: int) -> str:
    """Whitespace inside a name becomes `_`; an empty name becomes `player<i>` (7.4)."""
    cleaned = re.sub(r"\s", "_", name)
    return cleaned or f"player{index}"


def settings_block(config: DomainsConfig) -> str:
    """The 22 settings lines of 7.4, with the original's oddities kept."""
    c = config
    lines = [
        f"NUMBER_OF_PLAYERS\t{c.num_players}",
        f"UNITS_AT_START\t\t{c.units_at_start}",
        f"MAX_NUMBER_OF_UNITS\t{c.max_number_of_units}",
        f"MIN_NUMBER_OF_UNITS\t{c.min_number_of_units}",
        f"MAX_NUMBER_OF_BONUSES\t{c.max_number_of_bonuses}",
        f"MAX_BONUSES_PER_PLAYER\t{c.max_bonuses_per_player}",
        f"ROUNDS_PER_RESPAWN\t{c.rounds_per_respawn}",
        f"ROUNDS_PER_BUBBLE\t{c.rounds_per_bubble}",
        f"ROUNDS_PER_BUBBLE_MOVE{c.rounds_per_bubble_move}",
        f"MAX_ROUNDS_PER_BONUS\t{c.max_rounds_per_bonus}",
        f"POINTS_PER_UNIT\t\t{c.points_per_unit}",
        f"POINTS_PER_BUBBLE\t{c.points_per_bubble}",
        f"POINTS_PER_POP\t\t{c.points_per_pop}",
        f"POINTS_PER_SQUARE\t{c.points_per_square}",
        f"ENERGY_AT_START\t\t{c.energy_at_start}",
        f"MAX_ENERGY\t\t{c.max_energy}",
        f"MIN_ENERGY\t\t{c.min_energy}",
        f"ABILITY SIZE\t\t{c.ability_size}",
        f"ABILITY DURATION\t{c.ability_duration}",
        f"BOARD_WIDTH\t\t{c.board_width}",
        f"BOARD_HEIGHT\t\t{c.board_height}",
        f"ROUNDS_TO_POP\t{c.rounds_to_pop}",
    ]
    return "".join(line + "\n" for line in lines)


def _header(game: DomainsGame, names: list[str]) -> str:
    c = game.config
    shown = [export_name(name, i) for i, name in enumerate(names)]
    return f"{c.number_of_rounds} {c.board_height} {c.board_width}\n{c.num_players} {' '.join(shown)}\n"


def _footer(game: DomainsGame, names: list[str]) -> str:
    results = "".join(
        f"{export_name(name, i)} {points} "
        for i, (name, points) in enumerate(zip(names, game.state.points, strict=True))
    )
    return settings_block(game.config) + results + "\n"


def export_new(game: DomainsGame, names: list[str]) -> str:
    """The game file in the original's new (incremental) format: byte-exact (7.4)."""
    return _header(game, names) + "".join(frame + "\n" for frame in game.frames) + _footer(game, names)


class OldFormatRecorder:
    """Collects the old (full-board) frames of a game as it is played: attach before the first round."""

    def __init__(self, game: DomainsGame) -> None:
        self.game = game
        self.frames: list[str] = [self._frame(0)]

    def _frame(self, label: int) -> str:
        game = self.game
        size = game.state.H * game.state.W
        sq, ct = game.cell_codes(np.arange(size))
        cells = (np.stack((sq, ct), axis=1).ravel() + 58).astype(np.uint8).tobytes().decode("ascii")
        points = "".join(f"{p} " for p in game.state.points)
        return f"{label} {points}{cells}"

    def after_round(self) -> None:
        """Call after each `play_round`."""
        self.frames.append(self._frame(self.game.state.round - 1))

    def export(self, names: list[str]) -> str:
        game = self.game
        return _header(game, names) + "".join(f + "\n" for f in self.frames) + _footer(game, names)


@dataclass
class TraceRound:
    round: int
    index: int
    orders: list[list[Order]]


@dataclass
class Trace:
    """A reference trace (section 11)."""

    seed: int
    jump: int
    index_after_init: int
    rounds: list[TraceRound] = field(default_factory=list)
    final_index: int = -1


def parse_trace(text: str) -> Trace:
    """Read a trace file; raises ValueError on a malformed line."""
    lines = text.splitlines()
    head = re.fullmatch(r"# seed (-?\d+) jump (\d+) randind_after_init (\d+)", lines[0])
    if head is None:
        raise ValueError(f"bad trace header: {lines[0]!r}")
    trace = Trace(int(head[1]), int(head[2]), int(head[3]))
    for line in lines[1:]:
        if line.startswith("E "):
            trace.final_index = int(line[2:])
            continue
        parts = line.split(" |")
        words = parts[0].split()
        if len(words) != 3 or words[0] != "R":
            raise ValueError(f"bad trace line: {line!r}")
        players: list[list[Order]] = []
        for chunk in parts[1:]:
            orders = []
            for token in chunk.split():
                unit, _, code = token.partition(":")
                orders.append(Order(int(unit), _TRACE_KINDS[code[0]], int(code[1:])))
            players.append(orders)
        trace.rounds.append(TraceRound(int(words[1]), int(words[2]), players))
    return trace
