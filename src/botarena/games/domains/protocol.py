"""Domains' native formats (spec 7.4 and 11): the original's game files and the reference traces.

The engine's side: `export_new` writes a game just played (`DomainsGame.frames`) in the original's
incremental ("new") format and `OldFormatRecorder` collects its full-board ("old") frames;
`parse_trace` reads the conformance traces of section 11.

The replay's side, replays <-> game files (7.4), export and import:

`export_replay` writes a finished botarena Domains replay in the original's new (incremental) or old
(full-board) format. It works from the replay's own records (the first keyframe, then each step's
changed squares and its unit, bubble and bonus tables), so it needs no re-simulation and also
exports a replay that was itself imported. A cell is written in a new-format frame when, compared
with the frame before, the identity of its unit, bubble or bonus, its painter, its trail's player or
its flag differ (7.4, lossiness included).

`import_game_file` reads an original game file (either format) into a replay that the web viewer
shows (`botarena view GAME.txt`). An original file carries less than a replay: no unit, bubble or
bonus ids (the importer numbers each content afresh where a frame lists its cell, so exporting the
import again writes the same cells), no energy, no countdowns, and for the code "painted and drawn
by the same player" no player (the importer keeps the square's previous painter or trail player).

Text in, text out: the caller reads and writes the files (`botarena.commands.domains`).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal

import numpy as np

from botarena.core.replay import Replay
from botarena.games.domains.config import GAME_ID, RULES_VERSION, DomainsConfig
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


# -- replays <-> game files ------------------------------------------------------------------------
Format = Literal["new", "old"]
CODE_BASE = 58  # a cell code c is written as chr(58 + c) (7.4)
EMPTY_CONTENT = 13
BONUS_CONTENT = 12
_SETTINGS = {  # the settings block's names (7.4) -> config keys; NUMBER_OF_PLAYERS is num_players
    "NUMBER_OF_PLAYERS": "num_players",
    "UNITS_AT_START": "units_at_start",
    "MAX_NUMBER_OF_UNITS": "max_number_of_units",
    "MIN_NUMBER_OF_UNITS": "min_number_of_units",
    "MAX_NUMBER_OF_BONUSES": "max_number_of_bonuses",
    "MAX_BONUSES_PER_PLAYER": "max_bonuses_per_player",
    "ROUNDS_PER_RESPAWN": "rounds_per_respawn",
    "ROUNDS_PER_BUBBLE": "rounds_per_bubble",
    "ROUNDS_PER_BUBBLE_MOVE": "rounds_per_bubble_move",
    "MAX_ROUNDS_PER_BONUS": "max_rounds_per_bonus",
    "POINTS_PER_UNIT": "points_per_unit",
    "POINTS_PER_BUBBLE": "points_per_bubble",
    "POINTS_PER_POP": "points_per_pop",
    "POINTS_PER_SQUARE": "points_per_square",
    "ENERGY_AT_START": "energy_at_start",
    "MAX_ENERGY": "max_energy",
    "MIN_ENERGY": "min_energy",
    "ABILITY SIZE": "ability_size",
    "ABILITY DURATION": "ability_duration",
    "BOARD_WIDTH": "board_width",
    "BOARD_HEIGHT": "board_height",
    "ROUNDS_TO_POP": "rounds_to_pop",
}
_SETTING_LINE = re.compile(r"^([A-Z_ ]*[A-Z])\t*(-?\d+)$")
_NEW_CELL = re.compile(r"(\d+)([^\d])([^\d])")


class GameFileError(ValueError):
    """A replay that cannot be exported, or a file that is not an original game file (one line)."""


@dataclass
class Board:
    """The exported view of one moment: per-square arrays (row-major) and the points."""

    painter: np.ndarray
    drawer: np.ndarray
    flag: np.ndarray
    unit_id: np.ndarray  # identity of the content, -1 if none (the export compares identities)
    bubble_id: np.ndarray
    bonus_id: np.ndarray
    content: np.ndarray  # the <ct> code
    points: list[int]

    def codes(self) -> tuple[np.ndarray, np.ndarray]:
        """The <sq> and <ct> codes of every square (7.4)."""
        return square_codes(self.painter, self.drawer, self.flag), self.content


def square_codes(painter: np.ndarray, drawer: np.ndarray, flag: np.ndarray) -> np.ndarray:
    """<sq>: 0 plain; 1-4 painted by p; 5-8 flagged, painted by p; 9-12 trail of d on unpainted
    ground; 13-24 painted by p with another player's trail d; 25 painted and drawn by one player."""
    painted, drawn = painter >= 0, drawer >= 0
    sq = np.zeros(painter.size, dtype=np.int16)
    sq = np.where(painted & ~drawn, 1 + painter, sq)
    sq = np.where(~painted & drawn, 9 + drawer, sq)
    mixed = painted & drawn & (drawer != painter)
    sq = np.where(mixed, 13 + 3 * painter + drawer - (drawer > painter), sq)
    sq = np.where(painted & drawn & (drawer == painter), 25, sq)
    return np.where(flag & painted, 5 + painter, sq)


# -- export --------------------------------------------------------------------------------------------
def _empty_board(size: int, players: int) -> Board:
    """The empty board of DR-5: what the initial frame is compared with."""
    none = np.full(size, -1, np.int32)
    return Board(
        painter=np.full(size, -1, np.int16), drawer=np.full(size, -1, np.int16), flag=np.zeros(size, bool),
        unit_id=none, bubble_id=none, bonus_id=none, content=np.full(size, EMPTY_CONTENT, np.int16),
        points=[0] * players,
    )  # fmt: skip


def _board_of(state: dict[str, Any], size: int) -> Board:
    """The board of a keyframe's state."""
    board = _empty_board(size, len(state["points"]))
    board.painter = np.array(state["painter"], dtype=np.int16)
    board.drawer = np.array(state["drawer"], dtype=np.int16)
    board.flag = np.array(state["ability"], dtype=np.int32) > 0
    board.points = list(state["points"])
    _place(board, state, int(state["cols"]))
    return board


def _place(board: Board, record: dict[str, Any], cols: int) -> None:
    """Set the content identities and <ct> codes from a record's unit, bubble and bonus tables."""
    size = board.painter.size
    board.unit_id = np.full(size, -1, np.int32)
    board.bubble_id = np.full(size, -1, np.int32)
    board.bonus_id = np.full(size, -1, np.int32)
    content = np.full(size, EMPTY_CONTENT, np.int16)
    for bonus, x, y in record.get("bonuses", []):
        board.bonus_id[x * cols + y] = bonus
        content[x * cols + y] = BONUS_CONTENT
    for bubble, colour, x, y, _rtp in record.get("bubbles", []):
        board.bubble_id[x * cols + y] = bubble
        content[x * cols + y] = 8 + colour
    for unit, player, x, y, upgraded, _energy in record.get("units", []):
        board.unit_id[x * cols + y] = unit
        content[x * cols + y] = player + 4 * int(bool(upgraded))
    board.content = content


def _advance(board: Board, record: dict[str, Any], cols: int) -> Board:
    """The board after a step: its changed squares and its tables."""
    after = Board(
        board.painter.copy(), board.drawer.copy(), board.flag.copy(), board.unit_id, board.bubble_id,
        board.bonus_id, board.content, list(record["points"]),
    )  # fmt: skip
    for q, painter, drawer, ability in record.get("cells", []):
        after.painter[q], after.drawer[q], after.flag[q] = painter, drawer, ability > 0
    _place(after, record, cols)
    return after


def _changed(before: Board, after: Board) -> np.ndarray:
    return np.flatnonzero(
        (before.unit_id != after.unit_id)
        | (before.bubble_id != after.bubble_id)
        | (before.bonus_id != after.bonus_id)
        | (before.painter != after.painter)
        | (before.drawer != after.drawer)
        | (before.flag != after.flag)
    )


def _cells(board: Board, indices: np.ndarray) -> tuple[list[int], list[int]]:
    sq, ct = board.codes()
    return sq[indices].tolist(), ct[indices].tolist()


def _new_frame(label: int, before: Board, after: Board, initial: bool) -> str:
    deltas = "".join(f"{0 if initial else a - b} " for a, b in zip(after.points, before.points, strict=True))
    changed = _changed(before, after)
    sq, ct = _cells(after, changed)
    skips = np.diff(changed, prepend=0).tolist()
    cells = "".join(
        f"{skip}{chr(CODE_BASE + a)}{chr(CODE_BASE + b)}" for skip, a, b in zip(skips, sq, ct, strict=True)
    )
    return f"{label} {deltas}{cells}"


def _old_frame(label: int, board: Board) -> str:
    sq, ct = board.codes()
    cells = (np.stack((sq, ct), axis=1).ravel() + CODE_BASE).astype(np.uint8).tobytes().decode("ascii")
    return f"{label} {''.join(f'{p} ' for p in board.points)}{cells}"


def replay_config(replay: Replay) -> DomainsConfig:
    """The replay's Domains config, with the effective player count (the seats)."""
    known = {f.name for f in fields(DomainsConfig)}
    values = {key: value for key, value in replay.config.items() if key in known}
    values["num_players"] = len(replay.players)
    return DomainsConfig(**values)


def export_replay(replay: Replay, fmt: Format = "new") -> str:
    """The finished Domains `replay` as an original game file in format `fmt` ("new" or "old")."""
    if replay.game != GAME_ID:
        raise GameFileError(f"this is a {replay.game} replay; only domains replays export to game files")
    config = replay_config(replay)
    rounds = config.number_of_rounds
    if len(replay.steps) != rounds:
        raise GameFileError(f"the replay holds {len(replay.steps)} of {rounds} rounds: it is not finished")
    first = next((k for k in replay.keyframes if k.get("step") == 0), None)
    if first is None:
        raise GameFileError("the replay has no initial keyframe (step 0)")
    size = config.board_height * config.board_width
    cols = config.board_width
    board = _board_of(first["state"], size)
    names = [export_name(str(p.get("name", "")), i) for i, p in enumerate(replay.players)]
    lines = [f"{rounds} {config.board_height} {config.board_width}", f"{len(names)} {' '.join(names)}"]
    blank = _empty_board(size, len(names))
    lines.append(_new_frame(0, blank, board, True) if fmt == "new" else _old_frame(0, board))
    for step in replay.steps:
        record = step["record"]
        after = _advance(board, record, cols)
        label = int(record["round"])
        lines.append(_new_frame(label, board, after, False) if fmt == "new" else _old_frame(label, after))
        board = after
    results = "".join(f"{name} {points} " for name, points in zip(names, board.points, strict=True))
    return "\n".join(lines) + "\n" + settings_block(config) + results + "\n"


# -- import --------------------------------------------------------------------------------------------
@dataclass
class _Importer:
    rows: int
    cols: int
    players: int
    painter: np.ndarray
    drawer: np.ndarray
    ability: np.ndarray
    content: np.ndarray
    ids: np.ndarray  # the synthetic identity of each square's content
    next_id: int = 0

    def apply(self, index: int, sq: int, ct: int, fresh: bool) -> bool:
        """Set one square from its codes; whether its paint, trail or flag changed. A `fresh` square
        (listed by a new-format frame) gets a new content identity; otherwise only a new code does."""
        before = (int(self.painter[index]), int(self.drawer[index]), int(self.ability[index]))
        painter, drawer, ability = _decode_square(sq, before)
        self.painter[index], self.drawer[index], self.ability[index] = painter, drawer, ability
        if fresh or ct != self.content[index]:
            self.ids[index] = self.next_id if ct != EMPTY_CONTENT else -1
            self.next_id += 1
        self.content[index] = ct
        return (painter, drawer, ability) != before

    def tables(self) -> dict[str, list[list[int]]]:
        units, bubbles, bonuses = [], [], []
        for q in np.flatnonzero(self.content != EMPTY_CONTENT).tolist():
            x, y, ct, ident = q // self.cols, q % self.cols, int(self.content[q]), int(self.ids[q])
            if ct < 8:
                units.append([ident, ct % 4, x, y, int(ct >= 4), 0])
            elif ct < BONUS_CONTENT:
                bubbles.append([ident, ct - 8, x, y, 0])
            else:
                bonuses.append([ident, x, y])
        return {"units": units, "bubbles": bubbles, "bonuses": bonuses}


def _decode_square(sq: int, before: tuple[int, int, int]) -> tuple[int, int, int]:
    """(painter, drawer, ability) of a <sq> code; what the code does not say is kept from `before`."""
    if sq == 0:
        return -1, -1, 0
    if sq <= 4:
        return sq - 1, -1, 0
    if sq <= 8:
        return sq - 5, -1, max(before[2], 1)
    if sq <= 12:
        return -1, sq - 9, 0
    if sq <= 24:
        painter, rest = divmod(sq - 13, 3)
        return painter, rest + (rest >= painter), 0
    if sq == 25:
        same = before[0] if before[0] >= 0 else max(before[1], 0)
        return same, same, 0
    raise GameFileError(f"bad square code {chr(CODE_BASE + sq)!r}")


def _cells_of(text: str, fmt: Format, size: int) -> list[tuple[int, int, int]]:
    """(index, sq, ct) of the squares one frame writes."""
    if fmt == "old":
        if len(text) != 2 * size:
            raise GameFileError(f"an old-format frame holds {len(text)} codes, not {2 * size}")
        return [(i, ord(text[2 * i]) - CODE_BASE, ord(text[2 * i + 1]) - CODE_BASE) for i in range(size)]
    found, index, at = [], 0, 0
    for match in _NEW_CELL.finditer(text):
        if match.start() != at:
            break
        index += int(match[1])
        found.append((index, ord(match[2]) - CODE_BASE, ord(match[3]) - CODE_BASE))
        at = match.end()
    if at != len(text) or any(not 0 <= i < size for i, _, _ in found):
        raise GameFileError(f"malformed new-format frame near {text[at : at + 20]!r}")
    return found


def _split_frame(line: str, players: int) -> tuple[int, list[int], str]:
    parts = line.split(" ", players + 1)
    if len(parts) != players + 2 or not all(re.fullmatch(r"-?\d+", p) for p in parts[: players + 1]):
        raise GameFileError(f"bad frame line: {line[:60]!r}")
    return int(parts[0]), [int(p) for p in parts[1 : players + 1]], parts[players + 1]


def _settings(lines: list[str]) -> dict[str, int]:
    values: dict[str, int] = {}
    for line in lines:
        matched = _SETTING_LINE.match(line)
        if matched is None:
            continue
        name, value = matched[1], int(matched[2])
        if name.startswith("ROUNDS_PER_BUBBLE_MOVE"):  # written without a separator (7.4)
            name = "ROUNDS_PER_BUBBLE_MOVE"
        if name in _SETTINGS:
            values[_SETTINGS[name]] = value
    return values


def import_game_file(text: str, source: str = "game file") -> Replay:
    """An original game file (new or old format) as a viewable botarena replay."""
    lines = text.split("\n")
    try:
        rounds, rows, cols = (int(v) for v in lines[0].split())
        head = lines[1].split(" ")
        players, names = int(head[0]), head[1:]
    except (ValueError, IndexError):
        raise GameFileError(f"{source} is not a Domains game file (bad first two lines)") from None
    if len(names) != players or len(lines) < rounds + 3 or not 1 <= players <= 4:
        raise GameFileError(f"{source} is not a Domains game file (players or frames missing)")
    frames = lines[2 : rounds + 3]
    _label, _points, cells0 = _split_frame(frames[0], players)
    fmt: Format = "old" if len(cells0) == 2 * rows * cols and not re.search(r"\d", cells0) else "new"
    size = rows * cols
    state = _Importer(
        rows, cols, players, np.full(size, -1, np.int16), np.full(size, -1, np.int16),
        np.zeros(size, np.int32), np.full(size, EMPTY_CONTENT, np.int16), np.full(size, -1, np.int32),
    )  # fmt: skip
    for index, sq, ct in _cells_of(cells0, fmt, size):
        state.apply(index, sq, ct, True)
    points = [0] * players if fmt == "new" else _points
    keyframe = {
        "num_players": players, "round": 0, "rows": rows, "cols": cols, "points": list(points),
        "painter": state.painter.tolist(), "drawer": state.drawer.tolist(),
        "ability": state.ability.tolist(), **state.tables(),
    }  # fmt: skip
    steps = []
    for number, line in enumerate(frames[1:]):
        _label, values, cells = _split_frame(line, players)
        points = [p + d for p, d in zip(points, values, strict=True)] if fmt == "new" else values
        changed = []
        for index, sq, ct in _cells_of(cells, fmt, size):
            if state.apply(index, sq, ct, fmt == "new") or fmt == "new":
                changed.append(
                    [index, int(state.painter[index]), int(state.drawer[index]), int(state.ability[index])]
                )
        record = {"round": number, "orders": [[] for _ in range(players)], "points": list(points),
                  "cells": changed, **state.tables()}  # fmt: skip
        steps.append({"replies": [], "verdicts": [], "record": record})
    config = {**asdict(DomainsConfig()), **_settings(lines[rounds + 3 :]), "number_of_rounds": rounds}
    config.update(num_players=players, board_height=rows, board_width=cols)
    ranks = [1 + sum(q > p for q in points) for p in points]
    return Replay(
        game=GAME_ID, rules=RULES_VERSION, preset="original", config=config, seed=0,
        players=[{"seat": i, "name": name, "kind": "original"} for i, name in enumerate(names)],
        steps=steps, keyframes=[{"step": 0, "state": keyframe}], created_by=f"imported from {source}",
        result={"ranks": ranks, "scores": [float(p) for p in points], "details": {"points": points}},
    )  # fmt: skip


GAME_FILE_HEAD = 200
"""How many leading bytes of a file `looks_like_game_file` needs."""


def looks_like_game_file(head: bytes) -> bool:
    """Whether a file starting with `head` (its first GAME_FILE_HEAD bytes) is an original game file:
    "<rounds> <H> <W>" then "<n> <names>"."""
    return re.match(rb"\d+ \d+ \d+\n[1-4] ", head[:GAME_FILE_HEAD]) is not None
