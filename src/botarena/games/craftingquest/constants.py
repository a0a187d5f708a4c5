"""The Crafting Quest 2 constants of spec §2.1: fixed by the rules, so not configuration keys.

A leaf module (it imports nothing of the game), so the scenario record, the generator, the actions and
the config model all read the same numbers without importing each other.
"""

from __future__ import annotations

from collections.abc import Mapping

SIMPLE_VALUE_BASE = 100
"""CQ-23: the constant term of the simple-value formula."""
SIMPLE_VALUE_INCREMENT = 20
"""CQ-23: the factor of the weight term of the simple-value formula."""
SIMPLE_PRICE_RATIO = 4
"""A simple object's price is its value // 4."""
COMPLEX_PRICE_RATIO = 10
"""A complex object's price is its value // 10."""
RESOURCE_TYPE_COUNT = 12
OBJECT_COUNT = 12
COMPLEX_OBJECT_COUNT = 3
RESOURCE_TYPES: tuple[str, ...] = tuple(f"R{i}" for i in range(1, RESOURCE_TYPE_COUNT + 1))
OBJECT_TYPES: tuple[str, ...] = tuple(f"O{i}" for i in range(1, OBJECT_COUNT + 1))
ITEM_RANK: dict[str, int] = {item: rank for rank, item in enumerate((*RESOURCE_TYPES, *OBJECT_TYPES))}
"""Spec 4's numeric id order as a table: "R2" before "R10", resources before objects."""
SCAN_ATTRIBUTE_COUNT = 5
"""CQ-19: an attribute vector has 5 attributes."""
SCAN_ATTRIBUTE_MIN_VALUES = 4
SCAN_ATTRIBUTE_MAX_VALUES = 5
"""CQ-19: attribute i takes the values 1..k_i with k_i in 4..5."""
DEPOSIT_PROFILES: Mapping[int, tuple[int, ...]] = {1: (10, 2), 2: (10, 7, 2), 3: (10, 9, 5, 2)}
"""CQ-16: the amount at distance d from a deposit's centre, by radius r (literal tables)."""

ERROR_CODES: tuple[str, ...] = (
    "OperandError",
    "UnknownError",
    "MoveError",
    "TerrainError",
    "ObstacleError",
    "NoEnergyError",
    "GuardError",
    "PickupError",
    "ResourceMissingError",
    "CraftingError",
    "SellRequestError",
    "BuyRequestError",
    "NoCreditError",
    "BuildError",
)
"""§5.3: every error code an action's result may carry, in the spec's order."""
