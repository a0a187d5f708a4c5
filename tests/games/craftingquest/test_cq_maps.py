"""The original maps: the `.cqm` decoder and the presets (spec §2.2, CQ-13, CQ-14, §11 items 1-3).

The maps come from the shared fixtures (or $BOTARENA_CQ_MAPS); these tests skip without them.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import struct
from pathlib import Path

import pytest
from cq_fixtures import (
    ENTER,
    MAP_NAMES,
    OPEN_CHARS,
    assert_catalogue_formulas,
    assert_content_invariants,
    assert_stock_spread,
    assert_symmetric,
    config,
    reachable,
    require_maps,
)

from botarena.core.config import ConfigError
from botarena.games.craftingquest.generate import build_scenario
from botarena.games.craftingquest.geometry import TERRAIN_CHARS, Grid, cheb
from botarena.games.craftingquest.maps import (
    MAP_SHA256,
    MAPS_ENV,
    decode_cqm,
    load_preset_map,
    maps_directory,
)
from botarena.games.craftingquest.scenario import Scenario

# §11 item 1 and the fixtures README: size, camps, turns in the file, rounds played, Grass cells.
MAP_FACTS = {
    "map_v1": (60, 14, 160, 160, 2462),
    "map_v5": (70, 12, 240, 180, 3154),
    "map_v2": (80, 18, 200, 200, 4306),
}
# The README's terrain counts (cells under camps included), in code order.
TERRAIN_COUNTS = {
    "map_v1": [2462, 122, 210, 0, 104, 72, 630, 0],
    "map_v5": [3154, 152, 270, 0, 90, 380, 854, 0],
    "map_v2": [4306, 188, 364, 194, 62, 378, 712, 196],
}


@pytest.fixture(scope="module")
def maps() -> Path:
    return require_maps()


def _fixture_json(maps: Path, name: str) -> dict[str, object]:
    return json.loads((maps / f"{name}.json").read_text())  # type: ignore[no-any-return]


@pytest.mark.parametrize("name", MAP_NAMES)
def test_cq3_maps_decoder_matches_the_json_fixture(maps: Path, name: str) -> None:
    original = decode_cqm((maps / f"{name}.cqm").read_bytes(), name)
    fixture = _fixture_json(maps, name)
    assert (original.width, original.height, original.turns_in_file) == (
        fixture["width"],
        fixture["height"],
        fixture["turns_in_file"],
    )
    codes = [[TERRAIN_CHARS.index(ch) for ch in row] for row in original.terrain]
    assert codes == fixture["terrain"]
    assert [list(c) for c in original.camps] == fixture["merchants_xy"]


@pytest.mark.parametrize("name", MAP_NAMES)
def test_cq3_maps_decoder_matches_the_txt_fixture(maps: Path, name: str) -> None:
    original = decode_cqm((maps / f"{name}.cqm").read_bytes(), name)
    lines = (maps / f"{name}.txt").read_text().splitlines()
    rows = [line for line in lines if not line.startswith("#")]
    assert len(rows) == original.height
    camps = set(original.camps)
    for y, row in enumerate(rows):
        assert len(row) == original.width
        for x, ch in enumerate(row):
            if (x, y) in camps:
                assert ch == "M"
            else:
                assert ch == original.terrain[y][x], (x, y)
    assert {(x, y) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch == "M"} == camps


@pytest.mark.parametrize("name", MAP_NAMES)
def test_cq_maps_sizes_camps_and_terrain_counts(maps: Path, name: str) -> None:
    size, camp_count, turns, _, grass = MAP_FACTS[name]
    original = load_preset_map(name, maps)
    assert (original.width, original.height) == (size, size)
    assert len(original.camps) == camp_count
    assert original.turns_in_file == turns
    flat = "".join(original.terrain)
    assert flat.count(".") == grass
    assert [flat.count(ch) for ch in TERRAIN_CHARS] == TERRAIN_COUNTS[name]
    assert list(original.camps) == sorted(original.camps, key=lambda c: (c[1], c[0]))


def test_cq_maps_checksums_are_the_readme_ones(maps: Path) -> None:
    for name in MAP_NAMES:
        assert hashlib.sha256((maps / f"{name}.cqm").read_bytes()).hexdigest() == MAP_SHA256[name]


def test_cq_maps_env_variable_names_the_directory(maps: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAPS_ENV, str(maps))
    assert maps_directory() == maps
    assert load_preset_map("map_v1") == load_preset_map("map_v1", maps)


def test_cq_maps_missing_directory_is_a_one_line_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MAPS_ENV, raising=False)
    with pytest.raises(ConfigError, match=MAPS_ENV) as err:
        load_preset_map("map_v1")
    assert "\n" not in str(err.value)
    assert "asorici/cq3" in str(err.value)
    with pytest.raises(ConfigError, match=MAPS_ENV):
        build_scenario(config("map_v1"), 1)


def test_cq_maps_missing_file_and_wrong_checksum(maps: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read map map_v5"):
        load_preset_map("map_v5", tmp_path)
    data = bytearray((maps / "map_v5.cqm").read_bytes())
    data[100] = 4  # one cell turned to Rock
    (tmp_path / "map_v5.cqm").write_bytes(bytes(data))
    with pytest.raises(ConfigError, match=r"is not the original map_v5\.cqm"):
        load_preset_map("map_v5", tmp_path)
    shutil.copy(maps / "map_v5.cqm", tmp_path / "map_v5.cqm")
    assert load_preset_map("map_v5", tmp_path).width == 70
    with pytest.raises(ConfigError, match="unknown map"):
        load_preset_map("map_v9", tmp_path)


def _cqm(width: int, height: int, cells: bytes, camps: list[tuple[int, int]]) -> bytes:
    body = bytes(b for xy in camps for b in xy)
    return struct.pack(">iii", height, width, 160) + cells + bytes([len(camps)]) + body


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x00\x00", "not a .cqm map"),
        (_cqm(3, 2, bytes(6), [(1, 1)])[:-3], "truncated"),
        (_cqm(3, 2, bytes(6), [(1, 1)]) + b"\x00", "is 21 bytes, not 22"),
        (_cqm(3, 2, bytes([0, 0, 9, 0, 0, 0]), []), "unknown terrain code 9"),
        (_cqm(3, 2, bytes(6), [(3, 1)]), "outside the map"),
        (struct.pack(">iii", -1, 5, 0) + bytes(10), "size 5x-1"),
    ],
)
def test_cq_maps_malformed_cqm_is_a_config_error(data: bytes, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        decode_cqm(data, "test")


def test_cq_maps_decodes_a_small_map() -> None:
    decoded = decode_cqm(_cqm(3, 2, bytes([0, 1, 2, 3, 4, 7]), [(2, 0)]), "tiny")
    assert decoded.terrain == (".:s", "*#W")
    assert decoded.camps == ((2, 0),)


# --- §11 item 2 and 3: the presets ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def presets(maps: Path) -> dict[str, Scenario]:
    return {name: build_scenario(config(name), 20260001, maps_dir=maps) for name in MAP_NAMES}


@pytest.mark.parametrize("name", MAP_NAMES)
def test_cq5_presets_keep_the_fixture_terrain_and_camps(
    maps: Path, presets: dict[str, Scenario], name: str
) -> None:
    s = presets[name]
    fixture = _fixture_json(maps, name)
    assert [[TERRAIN_CHARS.index(ch) for ch in row] for row in s.terrain] == fixture["terrain"]
    assert sorted([c.x, c.y] for c in s.camps) == sorted(fixture["merchants_xy"])  # type: ignore[arg-type]
    assert s.origin == {"seed": 20260001, "map": name}


@pytest.mark.parametrize("name", MAP_NAMES)
def test_cq13_presets_rounds_ignore_the_file(presets: dict[str, Scenario], name: str) -> None:
    assert presets[name].rounds == MAP_FACTS[name][3]


def test_cq13_configured_rounds_override_a_preset(maps: Path) -> None:
    assert build_scenario(config("map_v5", rounds=12), 1, maps_dir=maps).rounds == 12


@pytest.mark.parametrize("name", MAP_NAMES)
def test_cq14_preset_start_cells_are_grass(presets: dict[str, Scenario], name: str) -> None:
    s = presets[name]
    w, h = s.width, s.height
    assert s.starts == {1: ((3, 3), (4, 3), (5, 3)), 2: ((w - 4, h - 4), (w - 5, h - 4), (w - 6, h - 4))}
    assert all(s.terrain_at(c).value == "grass" for cells in s.starts.values() for c in cells)


@pytest.mark.parametrize(("name", "pairs"), [("map_v1", 7), ("map_v5", 6), ("map_v2", 9)])
def test_cq25_preset_camps_form_mirror_pairs_sharing_their_stock(
    presets: dict[str, Scenario], name: str, pairs: int
) -> None:
    s = presets[name]
    upper = [c for c in s.camps if s.grid.is_upper(c.cell)]
    assert len(upper) == pairs and len(s.camps) == 2 * pairs
    stock = {c.cell: c.stock for c in s.camps}
    assert all(stock[s.grid.mirror(c.cell)] == c.stock for c in upper)


@pytest.mark.parametrize("name", MAP_NAMES)
def test_cq16_to_cq25_presets_symmetry_and_invariants(presets: dict[str, Scenario], name: str) -> None:
    s = presets[name]
    assert_symmetric(s)
    assert_content_invariants(s)
    assert_stock_spread(s)
    assert_catalogue_formulas(s, config(name))
    assert Scenario.from_json(s.to_json()) == s


def test_cq6_presets_same_seed_same_bytes_other_seed_other_content(
    maps: Path, presets: dict[str, Scenario]
) -> None:
    again = build_scenario(config("map_v1"), 20260001, maps_dir=maps)
    assert again.to_bytes() == presets["map_v1"].to_bytes()
    other = build_scenario(config("map_v1"), 20260002, maps_dir=maps)
    assert other.terrain == again.terrain
    assert [c.cell for c in other.camps] == [c.cell for c in again.camps]
    assert (other.deposits, other.blueprints) != (again.deposits, again.blueprints)


# §2.2: the preset camps that not every kind can stand next to, and who can reach them.
NO_OPEN_NEIGHBOUR = {
    "map_v1": {(26, 48), (33, 11)},
    "map_v5": set(),
    "map_v2": {(16, 70), (24, 25), (55, 54), (63, 9), (17, 20), (62, 59)},
}
REACHED_BY = {
    "map_v1": {(26, 48): {"devil"}, (33, 11): {"devil"}},
    "map_v5": {},
    "map_v2": {
        (16, 70): {"fox", "crocodile"},
        (63, 9): {"fox", "crocodile"},
        (24, 25): {"devil", "crocodile"},
        (55, 54): {"devil", "crocodile"},
        (17, 20): {"crocodile"},
        (62, 59): {"crocodile"},
    },
}


@pytest.mark.parametrize("name", MAP_NAMES)
def test_cq3_presets_camps_that_not_every_kind_reaches(presets: dict[str, Scenario], name: str) -> None:
    """§2.2's list: camps without an all-kinds neighbour, and the kinds that can get within 1 of each."""
    s = presets[name]
    grid: Grid = s.grid
    camps = s.camp_cells()
    blocked = frozenset(grid.idx(c) for c in camps)
    lacking = {
        camp for camp in camps if not any(s.terrain_at(nb).char in OPEN_CHARS for nb in grid.neighbours(camp))
    }
    # (17,20) and (62,59) on map_v2 do have open neighbours, but only in a closed Swamp pocket
    assert lacking == NO_OPEN_NEIGHBOUR[name] - {(17, 20), (62, 59)}
    start = {"devil": (3, 3), "fox": (4, 3), "crocodile": (5, 3)}
    reach = {kind: reachable(s, start[kind], enter, avoid=blocked) for kind, enter in ENTER.items()}
    by_kind = {
        camp: {
            kind
            for kind, cells in reach.items()
            if any(grid.idx(nb) in cells for nb in grid.neighbours(camp))
        }
        for camp in camps
    }
    restricted = {camp: kinds for camp, kinds in by_kind.items() if kinds != set(ENTER)}
    assert restricted == REACHED_BY[name]
    assert all(cheb(c, grid.mirror(c)) > 0 for c in camps)
