"""The original Crafting Quest 2 maps: the `.cqm` decoder and the preset map loader (spec §2.2, §11).

The three hand-drawn maps (`map_v1`, `map_v5`, `map_v2`) are not shipped with botarena: no licence covers
their redistribution. A preset reads `<name>.cqm` from a directory the user supplies, named by the
environment variable `BOTARENA_CQ_MAPS` (or passed explicitly), and checks its SHA-256 against the
fixtures README before decoding it. The reading happens before the engine, when the config is built
(`config.CraftingQuestConfig.check`, `config.load_map`); the generator only decodes what was read.
The `.cqm` format is big-endian: height, width and the editor's turn
count as signed 32-bit integers, then one terrain code per cell in row-major order, then the number of
camps and an (x, y) byte pair per camp.
"""

from __future__ import annotations

import hashlib
import os
import struct
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from botarena.core.config import ConfigError
from botarena.games.craftingquest.geometry import TERRAIN_CHARS, Cell, Grid

PRESET_MAPS: tuple[str, ...] = ("map_v1", "map_v5", "map_v2")
"""The presets of §2.2 that play an original map."""
MAPS_ENV = "BOTARENA_CQ_MAPS"
MAP_SHA256: dict[str, str] = {
    "map_v1": "f4cf5bdc5a24ddc8e17f23ddae96ecc9bcfb87d44b1567e6003fb05fbf31866f",
    "map_v5": "b143e05d4ffec5869d32a43a608301f1834248dd4aaf6cb8482486c87b430b5e",
    "map_v2": "23cab29ba481adbb7aa2fac355d9f3f79d70530ac2135a61bfeaffd1f34faa84",
}
_HEADER = struct.Struct(">iii")
_HOW_TO_SUPPLY = (
    f"set {MAPS_ENV} to a directory holding map_v1.cqm, map_v5.cqm and map_v2.cqm "
    "(framework/maps/ of a checkout of github.com/asorici/cq3 at commit 34bb1d9)"
)


@dataclass(frozen=True, slots=True)
class OriginalMap:
    """A decoded `.cqm`: terrain rows as CQ-3 characters and the camps in file order."""

    width: int
    height: int
    turns_in_file: int
    terrain: tuple[str, ...]
    camps: tuple[Cell, ...]

    @property
    def grid(self) -> Grid:
        return Grid(self.width, self.height)


def decode_cqm(data: bytes, name: str = "map") -> OriginalMap:
    """Decode a `.cqm` file (raise ConfigError in one line if it is malformed)."""
    if len(data) < _HEADER.size + 1:
        raise ConfigError(f"{name}: not a .cqm map (only {len(data)} bytes)")
    height, width, turns = _HEADER.unpack_from(data, 0)
    if not (1 <= width <= 255 and 1 <= height <= 255):
        raise ConfigError(f"{name}: not a .cqm map (size {width}x{height})")
    cells_end = _HEADER.size + width * height
    if len(data) < cells_end + 1:
        raise ConfigError(f"{name}: truncated .cqm map (expected {width}x{height} cells)")
    camp_count = data[cells_end]
    expected = cells_end + 1 + 2 * camp_count
    if len(data) != expected:
        raise ConfigError(f"{name}: a .cqm map of this header is {expected} bytes, not {len(data)}")
    codes = data[_HEADER.size : cells_end]
    bad = next((code for code in codes if code >= len(TERRAIN_CHARS)), None)
    if bad is not None:
        raise ConfigError(f"{name}: unknown terrain code {bad} in the .cqm map")
    chars = codes.decode("latin-1").translate({i: c for i, c in enumerate(TERRAIN_CHARS)})
    terrain = tuple(chars[y * width : (y + 1) * width] for y in range(height))
    camps: list[Cell] = []
    for i in range(camp_count):
        x, y = data[cells_end + 1 + 2 * i], data[cells_end + 2 + 2 * i]
        if not (x < width and y < height):
            raise ConfigError(f"{name}: camp {i} at ({x},{y}) lies outside the map")
        camps.append((x, y))
    return OriginalMap(width, height, turns, terrain, tuple(camps))


def maps_missing() -> ConfigError:
    """The one-line error of a preset whose map nobody supplied."""
    return ConfigError(f"the original Crafting Quest maps are not shipped with botarena: {_HOW_TO_SUPPLY}")


def maps_directory(directory: str | Path | None = None) -> Path:
    """The directory of the original maps: `directory` if given, else `$BOTARENA_CQ_MAPS`."""
    chosen = directory if directory is not None else os.environ.get(MAPS_ENV)
    if not chosen:
        raise maps_missing()
    return Path(chosen)


def find_maps_directory(*fallbacks: Path) -> Path | None:
    """The first of `$BOTARENA_CQ_MAPS` and `fallbacks` that holds the original maps, or None.

    For tools that can do without the maps (tests skip, benchmarks print "skipped"); a game that needs
    them goes through `maps_directory`, whose error says how to supply them."""
    chosen = os.environ.get(MAPS_ENV)
    for candidate in (Path(chosen) if chosen else None, *fallbacks):
        if candidate is not None and (candidate / f"{PRESET_MAPS[0]}.cqm").is_file():
            return candidate.resolve()
    return None


def load_preset_map(name: str, directory: str | Path | None = None) -> OriginalMap:
    """Read, check (SHA-256) and decode preset map `name` (raise ConfigError in one line)."""
    if name not in PRESET_MAPS:
        raise ConfigError(f"unknown map {name!r} (known: {', '.join(PRESET_MAPS)})")
    path = maps_directory(directory) / f"{name}.cqm"
    try:
        data = path.read_bytes()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ConfigError(f"cannot read map {name} from {path}: {reason}; {_HOW_TO_SUPPLY}") from None
    return _checked_map(name, str(path), data)


@lru_cache(maxsize=8)
def _checked_map(name: str, path: str, data: bytes) -> OriginalMap:
    digest = hashlib.sha256(data).hexdigest()
    if digest != MAP_SHA256[name]:
        raise ConfigError(
            f"{path} is not the original {name}.cqm (sha256 {digest[:12]}..., "
            f"expected {MAP_SHA256[name][:12]}...); {_HOW_TO_SUPPLY}"
        )
    return decode_cqm(data, name)
