"""The hidden content of a scenario (spec CQ-16 to CQ-25): deposits, attributes, blueprints, stock.

Each part has its own random stream (CQ-6), so changing, say, a blueprint parameter never moves a
deposit. Buried amounts are a numpy array `buried[type, idx]` (types R1..R12 as rows 0..11).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from botarena.core.config import ConfigError
from botarena.games.craftingquest.config import CraftingQuestConfig
from botarena.games.craftingquest.constants import (
    COMPLEX_OBJECT_COUNT,
    COMPLEX_PRICE_RATIO,
    DEPOSIT_PROFILES,
    OBJECT_TYPES,
    RESOURCE_TYPE_COUNT,
    RESOURCE_TYPES,
    SCAN_ATTRIBUTE_COUNT,
    SCAN_ATTRIBUTE_MAX_VALUES,
    SCAN_ATTRIBUTE_MIN_VALUES,
    SIMPLE_PRICE_RATIO,
    SIMPLE_VALUE_BASE,
    SIMPLE_VALUE_INCREMENT,
)
from botarena.games.craftingquest.generate_draws import Draws
from botarena.games.craftingquest.geometry import Grid
from botarena.games.craftingquest.scenario import Blueprint, Deposit, Vector, id_number

AmountArray = npt.NDArray[np.int64]
LEAF_COUNT = RESOURCE_TYPE_COUNT
SIMPLE_ALTERNATIVE_TYPES = (2, 4)
COMPLEX_ALTERNATIVE_INGREDIENTS = (2, 3)
MAX_REDRAWS = 10_000
"""A bound on CQ-18's and CQ-19's redraw loops, which in practice end within a few draws."""
ZERO_QUANTITY_REPLACEMENT = 2
"""CQ-23/CQ-24: a recipe quantity that rounds down to 0 becomes 2 [original]."""


# --- CQ-16 to CQ-18 deposits ------------------------------------------------------------------------


def deposit_radius(width: int) -> int:
    """CQ-16: r = 1 up to width 50, 2 up to 80, else 3."""
    if width <= 50:
        return 1
    if width <= 80:
        return 2
    return 3


def deposit_regions(grid: Grid, spacing: int) -> list[tuple[int, int]]:
    """CQ-16: the kept placement regions' top-left cells, gx outer and gy inner."""
    width, height = grid.width, grid.height
    kept = []
    for gx in range(width // spacing):
        for gy in range(height // spacing):
            xc = (2 * gx * spacing + spacing) // 2
            yc = (2 * gy * spacing + spacing) // 2
            if yc * width + xc * height < width * height:
                kept.append((gx * spacing, gy * spacing))
    return kept


def _stamps(radius: int) -> list[list[tuple[int, int, int]]]:
    """CQ-17 shapes as (dx, dy, amount) lists: the disc, then the vein in orientations 0..3."""
    profile = DEPOSIT_PROFILES[radius]
    disc = [
        (dx, dy, profile[max(abs(dx), abs(dy))])
        for dy in range(-radius, radius + 1)
        for dx in range(-radius, radius + 1)
    ]
    reach = radius + 2
    veins: list[list[tuple[int, int, int]]] = [[], [], [], []]
    for j in range(-reach, reach + 1):
        for e in range(-radius, radius + 1):
            amount = profile[abs(e)]
            veins[0].append((j, e, amount))
            veins[1].append((e, j, amount))
            veins[2].append((j + max(e, 0), j + max(-e, 0), amount))
            veins[3].append((j + max(-e, 0), -j - max(e, 0), amount))
    return [disc, *veins]


def _stamp(acc: AmountArray, grid: Grid, x: int, y: int, shape: list[tuple[int, int, int]]) -> None:
    for dx, dy, amount in shape:
        cx, cy = x + dx, y + dy
        if 0 <= cx < grid.width and 0 <= cy < grid.height:
            acc[cy * grid.width + cx] += amount


def make_deposits(grid: Grid, draws: Draws, blocked: npt.NDArray[np.bool_], max_pairs: int) -> AmountArray:
    """CQ-16 to CQ-18 on the `deposits` stream: `buried[type, idx]`, point-symmetric, no type empty.

    `blocked` marks Rock and camp cells, which never hold resources.
    """
    radius = deposit_radius(grid.width)
    spacing = 2 * radius + 3
    regions = deposit_regions(grid, spacing)
    stamps = _stamps(radius)
    for _ in range(MAX_REDRAWS):
        weights = [draws.randint(1, 12) for _ in RESOURCE_TYPES]
        spots = [max(1, w * max_pairs // max(weights)) for w in weights]
        acc = np.zeros((RESOURCE_TYPE_COUNT, grid.area), dtype=np.int64)
        uses = [0] * len(regions)
        for type_index, count in enumerate(spots):
            for _ in range(count):
                shape = draws.randint(0, 1)
                unused = [i for i, used in enumerate(uses) if used == 0]
                region = draws.pick(unused) if unused else draws.randrange(len(regions))
                uses[region] += 1
                xmin, ymin = regions[region]
                x = min(max(xmin + draws.randrange(spacing), 4), grid.width - 5)
                y = min(max(ymin + draws.randrange(spacing), 4), grid.height - 5)
                stamp = stamps[0] if shape == 0 else stamps[1 + draws.randint(0, 3)]
                _stamp(acc[type_index], grid, x, y, stamp)
        buried = acc + acc[:, ::-1]  # idx(m(c)) = A - 1 - idx(c): reversing the flat axis mirrors
        buried[:, blocked] = 0
        if bool(np.all(buried.sum(axis=1) > 0)):
            return buried
    raise ConfigError(f"craftingquest: some resource type has no deposit after {MAX_REDRAWS} draws (CQ-18)")


# --- CQ-19 to CQ-21 attributes ----------------------------------------------------------------------


@dataclass(slots=True)
class _Node:
    attribute: int
    parent: _Node | None = None
    value: int = 0  # the parent's attribute value this node hangs under
    children: list[_Node] = field(default_factory=list)

    def used(self) -> set[int]:
        node: _Node | None = self
        out = set()
        while node is not None:
            out.add(node.attribute)
            node = node.parent
        return out

    def tests(self) -> dict[int, int]:
        """The defining tests of this node: its ancestors' (attribute, value) pairs on its path."""
        out: dict[int, int] = {}
        node = self
        while node.parent is not None:
            out[node.parent.attribute] = node.value
            node = node.parent
        return dict(sorted(out.items()))


def _grow_tree(draws: Draws, values: list[int]) -> tuple[_Node, int]:
    """CQ-19 steps 1-5 once: a random tree and its leaf count."""
    root = _Node(draws.randrange(SCAN_ATTRIBUTE_COUNT))
    queue = deque([root])
    leaves = 0
    while queue:
        node = queue.popleft()
        used = node.used()
        available = [a for a in range(SCAN_ATTRIBUTE_COUNT) if a not in used]
        if not available:
            continue
        value_count = values[node.attribute]
        if leaves == 0:  # the root: one child per value
            node.children = [_Node(draws.pick(available), node, v) for v in range(1, value_count + 1)]
            queue.extend(node.children)
            leaves = value_count
            continue
        if leaves >= LEAF_COUNT:
            continue
        chance = 1 - leaves / LEAF_COUNT
        children = []
        for v in range(1, value_count + 1):
            if draws.random() < chance:
                children.append(_Node(draws.pick(available), node, v))
        if len(children) >= 2:  # a single child is deleted again: the node stays a leaf
            node.children = children
            queue.extend(children)
            leaves += len(children) - 1
    return root, leaves


def _leaves(node: _Node) -> list[_Node]:
    """Depth-first, children in increasing value."""
    if not node.children:
        return [node]
    out: list[_Node] = []
    for child in node.children:
        out.extend(_leaves(child))
    return out


@dataclass(frozen=True, slots=True)
class Attributes:
    """CQ-19/CQ-20: the value counts `k_i` and each type's defining tests."""

    values: tuple[int, ...]
    type_tests: dict[str, dict[int, int]]


def make_attributes(draws: Draws) -> Attributes:
    """CQ-19 and CQ-20 on the `attributes` stream (redrawn until the tree has exactly 12 leaves)."""
    values = [
        draws.randint(SCAN_ATTRIBUTE_MIN_VALUES, SCAN_ATTRIBUTE_MAX_VALUES)
        for _ in range(SCAN_ATTRIBUTE_COUNT)
    ]
    for _ in range(MAX_REDRAWS):
        root, leaf_count = _grow_tree(draws, values)
        if leaf_count == LEAF_COUNT:
            break
    else:
        raise ConfigError(f"craftingquest: no 12-leaf attribute tree in {MAX_REDRAWS} draws (CQ-19)")
    pool = list(RESOURCE_TYPES)
    tests = {draws.pop(pool): leaf.tests() for leaf in _leaves(root)}
    return Attributes(tuple(values), dict(sorted(tests.items(), key=lambda kv: id_number(kv[0]))))


def make_deposit_records(
    grid: Grid, draws: Draws, buried: AmountArray, attributes: Attributes
) -> tuple[Deposit, ...]:
    """CQ-21 on the `attributes` stream (continuing after the tree): one vector per buried type.

    Canonical cells in row-major order, each cell's types ascending, free attributes drawn in index
    order; the mirror cell copies the vector.
    """
    area = grid.area
    half = (area - 1) // 2 + 1  # canonical cells are exactly idx 0..(A-1)//2
    # tested[t, i] is type t's tested value of attribute i, or 0 where attribute i is free
    tested = np.zeros((RESOURCE_TYPE_COUNT, SCAN_ATTRIBUTE_COUNT), dtype=np.int64)
    for type_index, type_id in enumerate(RESOURCE_TYPES):
        for attribute, value in attributes.type_tests[type_id].items():
            tested[type_index, attribute] = value
    # (canonical cell, type) pairs in the CQ-21 order: cells row-major, types ascending
    cells, types = np.nonzero(buried[:, :half].T > 0)
    vectors = tested[types]
    free = vectors == 0
    highs = np.broadcast_to(np.asarray(attributes.values, dtype=np.int64), vectors.shape)
    vectors[free] = draws.randints(highs[free].tolist())  # row-major: pair by pair, i ascending
    # one record per canonical cell; its mirror twin shares the same (read-only) maps
    amounts = buried[types, cells].tolist()
    rows = vectors.tolist()
    width = grid.width
    canonical: list[tuple[int, dict[str, int], dict[str, Vector]]] = []
    current = -1
    quantities: dict[str, int] = {}
    cell_vectors: dict[str, Vector] = {}
    for cell, type_index, amount, row in zip(cells.tolist(), types.tolist(), amounts, rows, strict=True):
        if cell != current:
            quantities, cell_vectors = {}, {}
            canonical.append((cell, quantities, cell_vectors))
            current = cell
        type_id = RESOURCE_TYPES[type_index]
        quantities[type_id] = amount
        cell_vectors[type_id] = tuple(row)
    records = [Deposit(c % width, c // width, q, v) for c, q, v in canonical]
    # the mirror half in row-major order is the canonical half reversed (a self-mirror cell once)
    for cell, q, v in reversed(canonical):
        twin = area - 1 - cell
        if twin != cell:
            records.append(Deposit(twin % width, twin // width, q, v))
    return tuple(records)


# --- CQ-22 to CQ-24 blueprints ----------------------------------------------------------------------


def _clamp(value: int, bounds: tuple[int, int]) -> int:
    return min(max(value, bounds[0]), bounds[1])


def proportional_quantities(chosen: list[str], weight: dict[str, int], total_units: int) -> dict[str, int]:
    """CQ-23 step 2 / CQ-24 step 2: `total_units * weight // sum of weights`, a 0 becoming 2."""
    total = sum(weight[i] for i in chosen)
    return {i: total_units * weight[i] // total or ZERO_QUANTITY_REPLACEMENT for i in chosen}


def simple_weight(chosen: list[str], totals: dict[str, int], most: int) -> Fraction:
    """CQ-23 step 3: `W_a = sum of M / amount_t`, exactly."""
    return sum((Fraction(most, totals[t]) for t in chosen), Fraction(0))


def simple_value(w0: Fraction, w1: Fraction, bounds: tuple[int, int]) -> int:
    """CQ-23: `clamp(ceil(100 + 20 (W_0^2 + W_1^2) / (W_0 + W_1)), lo, hi)`."""
    raw = math.ceil(SIMPLE_VALUE_BASE + SIMPLE_VALUE_INCREMENT * (w0 * w0 + w1 * w1) / (w0 + w1))
    return _clamp(raw, bounds)


def complex_sum(quantities: dict[str, int], values: dict[str, int], bonus: int) -> int:
    """CQ-24 step 3: `S_a = sum of (bonus + value_o) * q_o`."""
    return sum((bonus + values[o]) * q for o, q in quantities.items())


def make_blueprints(
    draws: Draws, totals: dict[str, int], config: CraftingQuestConfig
) -> tuple[Blueprint, ...]:
    """CQ-22 to CQ-24 on the `blueprints` stream, from each type's map total `amount_t`."""
    pool = list(OBJECT_TYPES)
    complex_ids = sorted((draws.pop(pool) for _ in range(COMPLEX_OBJECT_COUNT)), key=id_number)
    simple_ids = pool  # the rest, still in ascending order
    most = max(totals.values())
    catalogue: dict[str, Blueprint] = {}
    values: dict[str, int] = {}
    for object_id in simple_ids:
        alternatives, weights = [], []
        for _ in range(2):
            count = draws.randint(*SIMPLE_ALTERNATIVE_TYPES)
            types_pool = list(RESOURCE_TYPES)
            chosen = [draws.pop(types_pool) for _ in range(count)]
            alternatives.append(proportional_quantities(chosen, totals, config.simple_recipe_total))
            weights.append(simple_weight(chosen, totals, most))
        value = values[object_id] = simple_value(weights[0], weights[1], config.simple_value_range)
        catalogue[object_id] = Blueprint(
            object_id, "simple", value // SIMPLE_PRICE_RATIO, value, _ordered(alternatives)
        )
    for object_id in complex_ids:
        alternatives, sums = [], []
        for _ in range(2):
            count = draws.randint(*COMPLEX_ALTERNATIVE_INGREDIENTS)
            ingredients_pool = list(simple_ids)
            chosen = [draws.pop(ingredients_pool) for _ in range(count)]
            quantities = proportional_quantities(chosen, values, config.complex_recipe_total)
            alternatives.append(quantities)
            sums.append(complex_sum(quantities, values, config.complex_ingredient_bonus))
        value = _clamp((sums[0] + sums[1]) // 2, config.complex_value_range)
        catalogue[object_id] = Blueprint(
            object_id, "complex", value // COMPLEX_PRICE_RATIO, value, _ordered(alternatives)
        )
    return tuple(catalogue[o] for o in OBJECT_TYPES)


def _ordered(alternatives: list[dict[str, int]]) -> tuple[dict[str, int], ...]:
    """Alternatives keep their draw order; each one's ids go in numeric order."""
    return tuple({i: alt[i] for i in sorted(alt, key=id_number)} for alt in alternatives)


# --- CQ-25 stock ------------------------------------------------------------------------------------


def make_stock(draws: Draws, pair_count: int, stock_extra: int) -> list[tuple[str, ...]]:
    """CQ-25 on the `stock` stream: each camp pair's blueprint ids, in numeric order."""
    stocks: list[set[str]] = [set() for _ in range(pair_count)]
    for object_id in OBJECT_TYPES:
        pool = list(range(pair_count))
        for _ in range(pair_count // 2):
            stocks[draws.pop(pool)].add(object_id)
    for stock in stocks:
        pool_ids = list(OBJECT_TYPES)
        for _ in range(stock_extra):
            stock.add(draws.pop(pool_ids))
    return [tuple(sorted(stock, key=id_number)) for stock in stocks]
