"""The Crafting Quest 2 scenario record: spec CQ-26 (shape, validation, JSON), CQ-5 (explicit
scenarios are used as they are)."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from cq_fixtures import config, scenario_e
from hypothesis import given, settings
from hypothesis import strategies as st

from botarena.core.config import ConfigError
from botarena.games.craftingquest.generate import build_scenario
from botarena.games.craftingquest.scenario import Scenario

Record = dict[str, Any]


def test_cq26_scenario_e_parses_into_typed_records() -> None:
    s = Scenario.from_json(scenario_e())
    assert (s.width, s.height, s.rounds) == (50, 50, 160)
    assert s.terrain_at((4, 4)).value == "water"
    assert s.terrain_at((6, 2)).value == "rock"
    assert [c.cell for c in s.camps] == [(10, 10), (39, 39)]
    assert s.camps[0].stock == ("O1", "O4")
    assert s.starts[2] == ((46, 46), (45, 46), (44, 46))
    assert s.type_tests["R3"] == {0: 2, 2: 4}
    assert s.deposits[0].buried == {"R3": 10, "R8": 2}
    assert s.deposits[0].vectors["R8"] == (1, 5, 2, 2, 3)
    o10 = s.blueprint("O10")
    assert o10 is not None and o10.kind == "complex" and o10.alternatives[1] == {"O2": 1, "O5": 2, "O7": 1}
    assert s.blueprint("O1") is None


def test_cq26_round_trip_of_scenario_e() -> None:
    record = scenario_e()
    s = Scenario.from_json(record)
    assert s.to_json() == record
    assert Scenario.from_json(s.to_json()) == s
    assert Scenario.from_json(orjson.loads(s.to_bytes())) == s


def test_cq26_to_json_is_byte_stable_and_canonical_whatever_the_input_order() -> None:
    reference = Scenario.from_json(scenario_e()).to_bytes()
    shuffled = scenario_e()
    shuffled["camps"].reverse()
    shuffled["deposits"].reverse()
    shuffled["blueprints"].reverse()
    shuffled["camps"][0]["stock"].reverse()
    shuffled["deposits"][1]["buried"] = {"R8": 2, "R3": 10}
    shuffled["type_tests"] = {"R8": {"0": 1}, "R3": {"2": 4, "0": 2}}
    shuffled["blueprints"][1]["alternatives"][1] = {"R3": 17, "R2": 4, "R1": 8}
    shuffled = dict(reversed(list(shuffled.items())))
    assert Scenario.from_json(shuffled).to_bytes() == reference
    assert Scenario.from_json(scenario_e()).to_bytes() == reference
    text = reference.decode()
    assert text.index('"O1","O4"') > 0  # stock in numeric order
    assert text.index('"x":3,"y":3') < text.index('"x":9,"y":9')  # deposits row-major
    assert text.index('"id":"O4"') < text.index('"id":"O10"')  # blueprints in numeric id order


def test_cq26_integral_floats_are_integers() -> None:
    record = scenario_e()
    record["width"] = 50.0
    record["deposits"][0]["buried"]["R3"] = 10.0
    s = Scenario.from_json(record)
    assert s.width == 50 and isinstance(s.width, int)
    assert s.deposits[0].buried["R3"] == 10 and isinstance(s.deposits[0].buried["R3"], int)


def _walk(record: Record, path: str) -> tuple[Any, Any]:
    """The container of the last key of `a.b.c` and that key (numbers index lists only)."""
    keys = path.split(".")
    target: Any = record
    for key in keys[:-1]:
        target = target[int(key)] if isinstance(target, list) else target[key]
    last = keys[-1]
    return target, int(last) if isinstance(target, list) else last


def _set(path: str, value: Any) -> Callable[[Record], None]:
    """A mutation that sets `record[a][b][c]` for the path `a.b.c`."""

    def apply(record: Record) -> None:
        target, key = _walk(record, path)
        target[key] = value

    return apply


def _delete(path: str) -> Callable[[Record], None]:
    def apply(record: Record) -> None:
        target, key = _walk(record, path)
        del target[key]

    return apply


def _both(first: Callable[[Record], None], second: Callable[[Record], None]) -> Callable[[Record], None]:
    def apply(record: Record) -> None:
        first(record)
        second(record)

    return apply


def _row(y: int, x: int, char: str) -> Callable[[Record], None]:
    def apply(record: Record) -> None:
        row = record["terrain"][y]
        record["terrain"][y] = row[:x] + char + row[x + 1 :]

    return apply


INVALID: list[tuple[str, Callable[[Record], None], str]] = [
    ("not an object", lambda r: r.clear(), "missing key 'width'"),
    ("unknown key", _set("seed", 1), "unknown key 'seed'"),
    ("missing key", _delete("deposits"), "missing key 'deposits'"),
    ("width too small", _set("width", 49), "width must be in 50..100"),
    ("height too large", _set("height", 101), "height must be in 50..100"),
    ("width a bool", _set("width", True), "width must be an integer"),
    ("rounds 0", _set("rounds", 0), "rounds must be in"),
    ("too few rows", lambda r: r["terrain"].pop(), "terrain has 49 rows"),
    ("short row", _set("terrain.7", "." * 49), "terrain row 7"),
    ("unknown char", _row(7, 3, "M"), "unknown character 'M'"),
    ("camp outside", _set("camps.0.x", 50), "camps[0] x must be in 0..49"),
    ("camp on rock", _set("camps.0", {"x": 6, "y": 2, "stock": []}), "lies on rock"),
    ("two camps on a cell", _set("camps.1", {"x": 10, "y": 10, "stock": []}), "a second camp"),
    ("stock unknown id", _set("camps.0.stock", ["O13"]), "not an object id"),
    ("stock twice", _set("camps.0.stock", ["O4", "O4"]), "twice"),
    ("starts keys", _set("starts", {"1": [[3, 3], [4, 3], [5, 3]]}), "exactly the keys"),
    ("two start cells", _set("starts.1", [[3, 3], [4, 3]]), "starts[1]"),
    ("start outside", _set("starts.2.0", [50, 46]), "starts[2][0] x"),
    ("devil on water", _set("starts.1.0", [4, 4]), "devil cannot stand on water"),
    ("fox on rock", _set("starts.1.1", [6, 2]), "fox cannot stand on rock"),
    ("start on a camp", _set("starts.1.2", [10, 10]), "starts on the camp"),
    ("four attributes", _set("attribute_values", [4, 5, 4, 4]), "5 value counts"),
    ("attribute with 6 values", _set("attribute_values.1", 6), "attribute_values[1] must be in 4..5"),
    ("tests unknown type", _set("type_tests.R13", {"0": 1}), "not a resource type"),
    ("tests no attribute", _set("type_tests.R8", {}), "at least one attribute"),
    ("tests bad attribute", _set("type_tests.R8", {"5": 1}), "attributes are '0'..'4'"),
    ("tests value out of range", _set("type_tests.R8", {"1": 6}), "must be in 1..5"),
    ("deposit outside", _set("deposits.1.y", 50), "deposits[1] y"),
    (
        "deposit on rock",
        _set("deposits.1", {"x": 6, "y": 2, "buried": {"R8": 1}, "vectors": {"R8": [1, 1, 1, 1, 1]}}),
        "on rock",
    ),
    (
        "deposit on camp",
        _set("deposits.1", {"x": 10, "y": 10, "buried": {"R8": 1}, "vectors": {"R8": [1, 1, 1, 1, 1]}}),
        "on a camp",
    ),
    ("two deposits on a cell", _both(_set("deposits.1.x", 3), _set("deposits.1.y", 3)), "second deposit"),
    ("zero quantity", _set("deposits.0.buried.R8", 0), "must be in 1.."),
    ("negative quantity", _set("deposits.0.buried.R8", -2), "must be in 1.."),
    ("fractional quantity", _set("deposits.0.buried.R8", 2.5), "must be an integer"),
    ("empty buried", _set("deposits.1.buried", {}), "must not be empty"),
    ("buried object", _set("deposits.1.buried", {"O3": 1}), "not a resource id"),
    ("missing vector", _delete("deposits.0.vectors.R8"), "exactly one vector per buried type"),
    ("extra vector", _set("deposits.1.vectors.R8", [1, 1, 1, 1, 1]), "exactly one vector per buried type"),
    ("untested type", _delete("type_tests.R8"), "no entry in type_tests"),
    ("short vector", _set("deposits.0.vectors.R8", [1, 5, 2, 2]), "must have 5 attributes"),
    ("vector value too big", _set("deposits.0.vectors.R8", [1, 5, 5, 2, 3]), "must be in 1..4"),
    ("vector against its tests", _set("deposits.0.vectors.R3", [1, 1, 4, 3, 1]), "its type tests 2"),
    ("blueprint bad id", _set("blueprints.0.id", "O0"), "must be one of O1..O12"),
    ("blueprint twice", _set("blueprints.1.id", "O4"), "a second blueprint O4"),
    ("blueprint bad kind", _set("blueprints.0.kind", "magic"), "kind must be"),
    ("blueprint negative price", _set("blueprints.0.price", -1), "price must be in"),
    ("no alternatives", _set("blueprints.0.alternatives", []), "at least one alternative"),
    ("simple with objects", _set("blueprints.0.alternatives.0", {"O2": 1}), "not a resource id"),
    ("complex with resources", _set("blueprints.1.alternatives.0", {"R2": 1}), "not an object id"),
    ("ingredient of itself", _set("blueprints.1.alternatives.0", {"O10": 1}), "ingredient of itself"),
    ("zero ingredient", _set("blueprints.1.alternatives.0.O2", 0), "must be in 1.."),
    ("origin not an object", _set("origin", 42), "origin must be a JSON object"),
]


@pytest.mark.parametrize(
    ("mutate", "message"), [(m, msg) for _, m, msg in INVALID], ids=[c[0] for c in INVALID]
)
def test_cq26_invalid_scenario_is_a_one_line_config_error(
    mutate: Callable[[Record], None], message: str
) -> None:
    record = scenario_e()
    mutate(record)
    with pytest.raises(ConfigError) as err:
        Scenario.from_json(record)
    text = str(err.value)
    assert message in text
    assert text.startswith("scenario: ")
    assert "\n" not in text


@pytest.mark.parametrize("value", [None, [], "x", 3])
def test_cq26_non_object_scenario(value: Any) -> None:
    with pytest.raises(ConfigError, match="the scenario must be a JSON object"):
        Scenario.from_json(value)


def test_cq26_need_not_be_symmetric_nor_list_every_blueprint() -> None:
    record = scenario_e()
    record["camps"] = [{"x": 20, "y": 30, "stock": ["O7"]}]
    record["blueprints"] = record["blueprints"][:1]
    s = Scenario.from_json(record)
    assert len(s.camps) == 1 and len(s.blueprints) == 1


def test_cq5_explicit_scenario_is_used_as_it_is() -> None:
    record = scenario_e()
    record["rounds"] = 3
    cfg = config(scenario=record, width=100, height=90, rounds=50, map="map_v2")
    built = build_scenario(cfg, seed=5)
    assert built == Scenario.from_json(record)
    assert built.rounds == 3
    assert build_scenario(cfg, seed=6) == built


# --- hypothesis: random valid scenarios survive a JSON round trip byte for byte ----------------------


@st.composite
def scenarios(draw: st.DrawFn) -> Record:
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    width = draw(st.integers(50, 100))
    height = draw(st.integers(50, 100))
    rows = [
        [rng.choice(".:s*#~wW") if rng.random() < 0.3 else "." for _ in range(width)] for _ in range(height)
    ]
    starts = {
        "1": [[3, 3], [4, 3], [5, 3]],
        "2": [[width - 4, height - 4], [width - 5, height - 4], [width - 6, height - 4]],
    }
    for cells in starts.values():
        for x, y in cells:
            rows[y][x] = "."
    start_set = {(x, y) for cells in starts.values() for x, y in cells}
    free = [
        (x, y) for y in range(height) for x in range(width) if rows[y][x] != "#" and (x, y) not in start_set
    ]
    chosen = rng.sample(free, draw(st.integers(0, 30)))
    camps_at, deposits_at = chosen[: len(chosen) // 3], chosen[len(chosen) // 3 :]
    values = [rng.randint(4, 5) for _ in range(5)]
    tests: dict[str, dict[str, int]] = {}
    for t in range(1, 13):
        attrs = rng.sample(range(5), rng.randint(1, 4))
        tests[f"R{t}"] = {str(a): rng.randint(1, values[a]) for a in attrs}

    def vector(type_id: str) -> list[int]:
        return [tests[type_id].get(str(i), rng.randint(1, values[i])) for i in range(5)]

    deposits = []
    for x, y in deposits_at:
        types = rng.sample([f"R{t}" for t in range(1, 13)], rng.randint(1, 3))
        deposits.append(
            {
                "x": x,
                "y": y,
                "buried": {t: rng.randint(1, 10**6) for t in types},
                "vectors": {t: vector(t) for t in types},
            }
        )
    objects = rng.sample(range(1, 13), rng.randint(0, 12))
    blueprints = []
    for o in objects:
        kind = rng.choice(["simple", "complex"])
        pool = (
            [f"R{t}" for t in range(1, 13)] if kind == "simple" else [f"O{i}" for i in range(1, 13) if i != o]
        )
        alternatives = [
            {i: rng.randint(1, 50) for i in rng.sample(pool, rng.randint(1, 4))}
            for _ in range(rng.randint(1, 2))
        ]
        blueprints.append(
            {
                "id": f"O{o}",
                "kind": kind,
                "price": rng.randint(0, 500),
                "value": rng.randint(0, 5000),
                "alternatives": alternatives,
            }
        )
    camps = [
        {"x": x, "y": y, "stock": [f"O{i}" for i in rng.sample(range(1, 13), rng.randint(0, 4))]}
        for x, y in camps_at
    ]
    record: Record = {
        "width": width,
        "height": height,
        "rounds": draw(st.integers(1, 1000)),
        "terrain": ["".join(row) for row in rows],
        "camps": camps,
        "starts": starts,
        "attribute_values": values,
        "type_tests": tests,
        "deposits": deposits,
        "blueprints": blueprints,
    }
    if rng.random() < 0.5:
        record["origin"] = {"seed": rng.randint(0, 2**64 - 1), "map": "generated"}
    return record


@settings(max_examples=40, deadline=None)
@given(scenarios())
def test_cq26_random_scenarios_round_trip_byte_for_byte(record: Record) -> None:
    s = Scenario.from_json(record)
    data = s.to_bytes()
    again = Scenario.from_json(orjson.loads(data))
    assert again == s
    assert again.to_bytes() == data
    assert len(s.camps) == len(record["camps"]) and len(s.deposits) == len(record["deposits"])
    assert [s.grid.idx(d.cell) for d in s.deposits] == sorted(s.grid.idx(d.cell) for d in s.deposits)


def test_cq27_initial_state_built_from_a_scenario() -> None:
    """CQ-27 through the engine's `initial_state` (CQ-B's state module) on scenario E."""
    from botarena.games.craftingquest.rules import initial_state

    cfg = config(scenario=scenario_e(), initial_credit=250, unit_energy=99)
    state = initial_state(build_scenario(cfg, seed=1), cfg)
    assert {p: t.credit for p, t in state.teams.items()} == {1: 250, 2: 250}
    assert all(not t.blueprints and not t.towers for t in state.teams.values())
    cells = {u.id: u.cell for u in state.units.values()}
    assert cells == {3: (3, 3), 4: (4, 3), 5: (5, 3), 6: (46, 46), 7: (45, 46), 8: (44, 46)}
    assert all(u.energy == 99 and not u.resources and not u.objects for u in state.units.values())
    assert [u.kind.value for u in state.team_units(2)] == ["devil", "fox", "crocodile"]
    assert not state.towers and not state.resource_piles and not state.object_piles
    assert state.buried == {(3, 3): {"R3": 10, "R8": 2}, (9, 9): {"R3": 7}}


def test_cq26_to_json_sorts_a_record_built_in_any_order() -> None:
    s = Scenario.from_json(scenario_e())
    shuffled = dataclasses.replace(
        s,
        camps=tuple(reversed(s.camps)),
        deposits=tuple(reversed(s.deposits)),
        blueprints=tuple(reversed(s.blueprints)),
    )
    assert shuffled.to_bytes() == s.to_bytes()
