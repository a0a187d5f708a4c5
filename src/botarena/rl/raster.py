"""The `rgb_array` render mode: a game's text drawing rasterised with a tiny bitmap font.

Every game has a text renderer (`GameInfo.text_renderer`, the `ansi` mode) whose map comes first.
`TextRaster` draws that text as an image, one character cell per character: a 3x5 glyph scaled up,
in a colour of its own per character, so a map's cells (owners, units, terrain) stand out by colour
as a grid of coloured marks while the status lines stay readable. Letters are drawn as capitals, but
`a` and `A` keep different colours, so no game symbol is lost.

A video needs frames of one size, so a raster has a fixed grid of `rows` x `columns` characters (the
envs take the match's opening drawing plus some room); text beyond it is cut.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

GLYPH_WIDTH, GLYPH_HEIGHT = 3, 5
CELL_WIDTH, CELL_HEIGHT = GLYPH_WIDTH + 1, GLYPH_HEIGHT + 1
"""A glyph and its spacing (one blank column on the right, one blank row below)."""

BACKGROUND = (16, 18, 24)
FAINT = (70, 74, 86)
"""Filler characters (`.`, `,`, `:`, `-`) are drawn faint: a map's empty ground."""
PALETTE = (
    (230, 80, 70),
    (80, 170, 250),
    (250, 200, 60),
    (90, 210, 120),
    (200, 110, 240),
    (250, 140, 50),
    (60, 220, 220),
    (240, 110, 170),
    (170, 220, 80),
    (140, 150, 250),
    (220, 220, 220),
    (200, 160, 110),
)
_FAINT_CHARACTERS = ".,:-'`"

# Each glyph is its 5 rows of 3 pixels, top to bottom ("#" lit). Original to this project.
_GLYPHS: dict[str, str] = {
    "0": "### #.# #.# #.# ###",
    "1": ".#. ##. .#. .#. ###",
    "2": "##. ..# .#. #.. ###",
    "3": "##. ..# .#. ..# ##.",
    "4": "#.# #.# ### ..# ..#",
    "5": "### #.. ##. ..# ##.",
    "6": ".## #.. ### #.# ###",
    "7": "### ..# .#. .#. .#.",
    "8": "### #.# ### #.# ###",
    "9": "### #.# ### ..# ##.",
    "A": ".#. #.# ### #.# #.#",
    "B": "##. #.# ##. #.# ##.",
    "C": ".## #.. #.. #.. .##",
    "D": "##. #.# #.# #.# ##.",
    "E": "### #.. ##. #.. ###",
    "F": "### #.. ##. #.. #..",
    "G": ".## #.. #.# #.# .##",
    "H": "#.# #.# ### #.# #.#",
    "I": "### .#. .#. .#. ###",
    "J": "..# ..# ..# #.# .#.",
    "K": "#.# #.# ##. #.# #.#",
    "L": "#.. #.. #.. #.. ###",
    "M": "#.# ### ### #.# #.#",
    "N": "##. #.# #.# #.# #.#",
    "O": ".#. #.# #.# #.# .#.",
    "P": "##. #.# ##. #.. #..",
    "Q": ".#. #.# #.# ##. .##",
    "R": "##. #.# ##. #.# #.#",
    "S": ".## #.. .#. ..# ##.",
    "T": "### .#. .#. .#. .#.",
    "U": "#.# #.# #.# #.# ###",
    "V": "#.# #.# #.# #.# .#.",
    "W": "#.# #.# ### ### #.#",
    "X": "#.# #.# .#. #.# #.#",
    "Y": "#.# #.# .#. .#. .#.",
    "Z": "### ..# .#. #.. ###",
    ".": "... ... ... ... .#.",
    ",": "... ... ... .#. #..",
    ":": "... .#. ... .#. ...",
    ";": "... .#. ... .#. #..",
    "!": ".#. .#. .#. ... .#.",
    "?": "##. ..# .#. ... .#.",
    "-": "... ... ### ... ...",
    "+": "... .#. ### .#. ...",
    "*": "#.# .#. ### .#. #.#",
    "/": "..# ..# .#. #.. #..",
    "\\": "#.. #.. .#. ..# ..#",
    "=": "... ### ... ### ...",
    "#": "#.# ### #.# ### #.#",
    "$": ".## ##. .#. .## ##.",
    "%": "#.# ..# .#. #.. #.#",
    "~": "... .#. #.# ... ...",
    "(": ".#. #.. #.. #.. .#.",
    ")": ".#. ..# ..# ..# .#.",
    "[": "##. #.. #.. #.. ##.",
    "]": ".## ..# ..# ..# .##",
    "<": "..# .#. #.. .#. ..#",
    ">": "#.. .#. ..# .#. #..",
    "_": "... ... ... ... ###",
    "|": ".#. .#. .#. .#. .#.",
    "'": ".#. .#. ... ... ...",
    '"': "#.# #.# ... ... ...",
    "@": "### #.# ### #.. .##",
    "&": ".#. #.# .#. #.# .##",
    "^": ".#. #.# ... ... ...",
    "`": "#.. .#. ... ... ...",
}
_UNKNOWN = "### #.# #.# #.# ###"
"""Any other character (emoji, box drawing): a hollow box, so it still shows where it stands."""


def _bitmap(rows: str) -> np.ndarray[Any, np.dtype[np.bool_]]:
    return np.array([[pixel == "#" for pixel in row] for row in rows.split()], dtype=bool)


def glyph(character: str) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """The 5x3 bitmap of `character` (lower case drawn as upper case; a box if unknown)."""
    if character == " ":
        return np.zeros((GLYPH_HEIGHT, GLYPH_WIDTH), dtype=bool)
    return _bitmap(_GLYPHS.get(character, _GLYPHS.get(character.upper(), _UNKNOWN)))


def colour(character: str) -> tuple[int, int, int]:
    """The colour of `character`: faint for filler, else a palette entry fixed by the character
    itself (a stable hash, not Python's salted one), so a symbol has one colour in every frame."""
    if character in _FAINT_CHARACTERS:
        return FAINT
    return PALETTE[zlib.crc32(character.encode()) % len(PALETTE)]


class TextRaster:
    """Draws text into a fixed `rows` x `columns` character grid, `scale` pixels per font pixel."""

    def __init__(self, rows: int, columns: int, scale: int = 2) -> None:
        if rows < 1 or columns < 1 or scale < 1:
            raise ValueError("a raster needs at least one row, one column and scale 1")
        self.rows, self.columns, self.scale = rows, columns, scale
        self._cells: dict[str, np.ndarray[Any, np.dtype[np.uint8]]] = {}

    @property
    def shape(self) -> tuple[int, int, int]:
        """The frame's (height, width, 3)."""
        return (self.rows * CELL_HEIGHT * self.scale, self.columns * CELL_WIDTH * self.scale, 3)

    def draw(self, text: str) -> np.ndarray[Any, np.dtype[np.uint8]]:
        """An HxWx3 uint8 frame of `text` (lines beyond `rows`, characters beyond `columns` cut).

        Drawn at once in numpy: the grid of characters becomes a grid of indices into the cells of
        the characters it holds, and the cells are laid out side by side."""
        grid = [line[: self.columns].ljust(self.columns) for line in text.splitlines()[: self.rows]]
        grid += [" " * self.columns] * (self.rows - len(grid))
        characters = sorted(set("".join(grid)))
        index = {character: i for i, character in enumerate(characters)}
        cells = np.stack([self._cell(character) for character in characters])
        picks = np.array([[index[c] for c in line] for line in grid], dtype=np.intp)
        tiled = cells[picks]  # (rows, columns, cell height, cell width, 3)
        frame: np.ndarray[Any, np.dtype[np.uint8]] = tiled.transpose(0, 2, 1, 3, 4).reshape(self.shape)
        return frame

    def _cell(self, character: str) -> np.ndarray[Any, np.dtype[np.uint8]]:
        """One character's cell image, made once per character."""
        cell = self._cells.get(character)
        if cell is None:
            lit = np.zeros((CELL_HEIGHT, CELL_WIDTH), dtype=bool)
            lit[:GLYPH_HEIGHT, :GLYPH_WIDTH] = glyph(character)
            lit = lit.repeat(self.scale, axis=0).repeat(self.scale, axis=1)
            cell = np.empty((*lit.shape, 3), dtype=np.uint8)
            cell[:] = BACKGROUND
            cell[lit] = colour(character)  # a space lights nothing: the background
            self._cells[character] = cell
        return cell
