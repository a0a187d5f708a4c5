"""The rules of Crafting Quest 2 as named phases over the state, in the spec's order.

Crafting Quest is interactive: a turn is a chain of actions, each answered before the next is asked
(CQ-29 to CQ-31). So its phases are not the fixed steps of one simultaneous turn but the rules a turn
runs through, in spec order: `setup` (CQ-5, CQ-27) builds the first state; `start_turn` (CQ-30)
restores the energy of the player's units; then each answer runs one action phase, `apply_move`
(CQ-37) to `apply_build_tower` (CQ-46), dispatched by `apply_action` (CQ-36). An action phase runs
its rule's checks in the spec's order on a shape-checked action (actions.py), and either changes
nothing and names the first failing check (CQ-36), or applies the effect; its `Outcome` carries what
the `result` reply (spec 4.4) and the replay log (7.4) need. Who is asked what, and when (CQ-28 to
CQ-35, CQ-47, CQ-49, CQ-50), is engine.py's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from botarena.games.craftingquest.actions import (
    Action,
    BuildTower,
    Buy,
    Craft,
    Dig,
    Drop,
    Move,
    Pickup,
    Scan,
    Sell,
    item_order,
    sorted_items,
)
from botarena.games.craftingquest.config import CraftingQuestConfig
from botarena.games.craftingquest.generate import scenario_of
from botarena.games.craftingquest.geometry import PLAYERS, UNIT_KINDS, Cell, cheb, unit_id
from botarena.games.craftingquest.scenario import Scenario
from botarena.games.craftingquest.state import (
    GameState,
    Items,
    Team,
    Tower,
    Unit,
    add_items,
    has_items,
    take_items,
)


@dataclass(slots=True)
class Outcome:
    """What one action did. `error` is None on success, else `(code, reason)` (spec 5.3).

    `cells` are the cells whose piles or buried quantities changed (the replay's `state.cells`).
    """

    error: tuple[str, str] | None = None
    energy_spent: int = 0
    drained: list[dict[str, int]] = field(default_factory=list)
    dig: Items | None = None
    scan: list[dict[str, Any]] | None = None
    cells: set[Cell] = field(default_factory=set)

    @property
    def ok(self) -> bool:
        return self.error is None


# -- CQ-5, CQ-27 setup; CQ-30 the turn start -------------------------------------------------------


def setup(config: CraftingQuestConfig, seed: int) -> tuple[Scenario, GameState]:
    """CQ-5 and CQ-27: the match's scenario (explicit, or generated from the seed) and its first state."""
    scenario = scenario_of(config, seed)
    return scenario, initial_state(scenario, config)


def initial_state(scenario: Scenario, config: CraftingQuestConfig) -> GameState:
    """CQ-27: every unit on its start cell with `unit_energy`, `initial_credit` per team, nothing else."""
    units: dict[int, Unit] = {}
    for player in PLAYERS:
        for kind, (x, y) in zip(UNIT_KINDS, scenario.starts[player], strict=True):
            uid = unit_id(player, kind)
            units[uid] = Unit(uid, player, kind, x, y, config.unit_energy)
    rounds = config.rounds if config.rounds is not None else scenario.rounds
    return GameState(
        width=scenario.width,
        height=scenario.height,
        rounds=rounds,
        terrain=tuple(scenario.terrain),
        camps={camp.cell: camp for camp in scenario.camps},
        catalogue={blueprint.id: blueprint for blueprint in scenario.blueprints},
        units=units,
        teams={player: Team(player, config.initial_credit) for player in PLAYERS},
        buried={d.cell: dict(d.buried) for d in scenario.deposits},
        vectors={d.cell: {t: tuple(v) for t, v in d.vectors.items()} for d in scenario.deposits},
    )


def start_turn(state: GameState, config: CraftingQuestConfig, player: int) -> None:
    """CQ-30: at the start of its turn every unit of the player has `unit_energy` again."""
    for unit in state.team_units(player):
        unit.energy = config.unit_energy


def _fail(code: str, reason: str, energy_spent: int = 0) -> Outcome:
    return Outcome(error=(code, reason), energy_spent=energy_spent)


def _no_energy(unit: Unit, cost: int) -> Outcome | None:
    """CQ-36: an action costing `cost` needs energy >= cost (a cost of 0 is always allowed)."""
    if unit.energy < cost:
        return _fail("NoEnergyError", f"unit {unit.id} has {unit.energy} energy, the action costs {cost}")
    return None


def _pay(unit: Unit, cost: int) -> None:
    unit.energy = max(0, unit.energy - cost)


def standing_opponent_towers(state: GameState, player: int) -> list[Tower]:
    """The standing towers of `player`'s opponent, in ascending id (CQ-38, CQ-41)."""
    return [t for t in state.towers if t.alive and t.owner != player]


# -- CQ-37 move ---------------------------------------------------------------------------------------


def move_cost(state: GameState, config: CraftingQuestConfig, unit: Unit, target: Cell) -> int:
    """CQ-37: base * (100 + terrain penalty) // 100 + carried // carry_divisor."""
    penalty = config.penalty_pct(state.terrain_at(target).value)
    return config.move_base_cost * (100 + penalty) // 100 + unit.carried() // config.carry_divisor


def apply_move(state: GameState, config: CraftingQuestConfig, player: int, action: Move) -> Outcome:
    """CQ-37: MoveError, TerrainError, ObstacleError, NoEnergyError; then pay, move and drain."""
    unit = state.units[action.unit]
    target = (action.x, action.y)
    if not state.inside(target):
        return _fail("MoveError", f"{target} is outside the map")
    if target == unit.cell:
        return _fail("MoveError", f"unit {unit.id} is already at {target}")
    if cheb(unit.cell, target) > 1:
        return _fail("MoveError", f"{target} is more than 1 away from {unit.cell}")
    terrain = state.terrain_at(target)
    if not terrain.can_enter(unit.kind):
        return _fail("TerrainError", f"a {unit.kind.value} may not enter {terrain.value}")
    if state.has_structure(target):
        return _fail("ObstacleError", f"{target} holds a camp or a tower")
    cost = move_cost(state, config, unit, target)
    failed = _no_energy(unit, cost)
    if failed:
        return failed
    _pay(unit, cost)
    unit.x, unit.y = target
    return Outcome(energy_spent=cost, drained=drain_on_move(state, config, player, unit))


def drain_on_move(
    state: GameState, config: CraftingQuestConfig, player: int, unit: Unit
) -> list[dict[str, int]]:
    """CQ-38: each standing opponent tower within `tower_radius`, in id order, drains
    min(tower_drain_base // d, energy) from the unit and from its own strength; below 0 it falls."""
    drained: list[dict[str, int]] = []
    for tower in standing_opponent_towers(state, player):
        distance = cheb(unit.cell, tower.cell)
        if distance > config.tower_radius:
            continue
        # a tower's cell cannot be entered, so distance >= 1; max() only guards the division
        amount = min(config.tower_drain_base // max(distance, 1), unit.energy)
        unit.energy -= amount
        tower.strength -= amount
        if tower.strength < 0:
            tower.alive = False
            del state.tower_at[tower.cell]
        drained.append({"tower": tower.id, "amount": amount})
    return drained


# -- CQ-39 dig, CQ-40 scan ----------------------------------------------------------------------------


def apply_dig(state: GameState, config: CraftingQuestConfig, player: int, action: Dig) -> Outcome:
    """CQ-39: pay `dig_cost`; the result names each buried type of the cell and its quantity."""
    unit = state.units[action.unit]
    failed = _no_energy(unit, config.dig_cost)
    if failed:
        return failed
    _pay(unit, config.dig_cost)
    return Outcome(energy_spent=config.dig_cost, dig=sorted_items(state.buried.get(unit.cell, {})))


def scan_cells(state: GameState, center: Cell, radius: int) -> list[dict[str, Any]]:
    """CQ-40: `{x, y, vectors}` of every cell within `radius` holding a buried type, row-major,
    each cell's vectors sorted lexicographically (no names, no quantities)."""
    cx, cy = center
    found: list[dict[str, Any]] = []
    for y in range(max(0, cy - radius), min(state.height, cy + radius + 1)):
        for x in range(max(0, cx - radius), min(state.width, cx + radius + 1)):
            buried = state.buried.get((x, y))
            if not buried:
                continue
            vectors = state.vectors[(x, y)]
            found.append({"x": x, "y": y, "vectors": sorted(list(vectors[t]) for t in buried)})
    return found


def apply_scan(state: GameState, config: CraftingQuestConfig, player: int, action: Scan) -> Outcome:
    """CQ-40: pay `scan_cost`; the result lists the vectors within `scan_radius`."""
    unit = state.units[action.unit]
    failed = _no_energy(unit, config.scan_cost)
    if failed:
        return failed
    _pay(unit, config.scan_cost)
    return Outcome(energy_spent=config.scan_cost, scan=scan_cells(state, unit.cell, config.scan_radius))


# -- CQ-41 pickup, CQ-42 drop -------------------------------------------------------------------------


def guarded(state: GameState, config: CraftingQuestConfig, player: int, cell: Cell) -> bool:
    """CQ-41: a standing opponent tower lies within `tower_radius` of `cell`."""
    return any(cheb(cell, t.cell) <= config.tower_radius for t in standing_opponent_towers(state, player))


def available(state: GameState, cell: Cell, item: str) -> int:
    """CQ-41: a resource's visible pile plus its buried quantity, or an object's dropped pile."""
    if item[0] == "R":
        return state.resource_piles.get(cell, {}).get(item, 0) + state.buried.get(cell, {}).get(item, 0)
    return state.object_piles.get(cell, {}).get(item, 0)


def _take_resource(state: GameState, cell: Cell, item: str, amount: int) -> None:
    """Take from the visible pile first, then from the buried quantity (CQ-41)."""
    pile = state.resource_piles.get(cell, {})
    from_pile = min(pile.get(item, 0), amount)
    if from_pile:
        take_items(pile, {item: from_pile})
        if not pile:
            del state.resource_piles[cell]
    rest = amount - from_pile
    if rest:
        buried = state.buried[cell]
        take_items(buried, {item: rest})
        if not buried:
            del state.buried[cell]


def apply_pickup(state: GameState, config: CraftingQuestConfig, player: int, action: Pickup) -> Outcome:
    """CQ-41: NoEnergyError, GuardError, PickupError (which still costs `pickup_cost`); then every
    item moves to the unit for one `pickup_cost`."""
    unit = state.units[action.unit]
    cost = config.pickup_cost
    failed = _no_energy(unit, cost)
    if failed:
        return failed
    cell = unit.cell
    if guarded(state, config, player, cell):
        return _fail("GuardError", f"an opponent tower guards {cell}")
    for item, amount in action.items.items():
        have = available(state, cell, item)
        if amount > have:
            _pay(unit, cost)  # a failed pickup cannot probe buried contents for free
            return _fail("PickupError", f"{cell} has {have} {item}, {amount} asked", cost)
    _pay(unit, cost)
    for item in sorted(action.items, key=item_order):
        amount = action.items[item]
        if item[0] == "R":
            _take_resource(state, cell, item, amount)
            add_items(unit.resources, {item: amount})
        else:
            pile = state.object_piles[cell]
            take_items(pile, {item: amount})
            if not pile:
                del state.object_piles[cell]
            add_items(unit.objects, {item: amount})
    return Outcome(energy_spent=cost, cells={cell})


def _split(items: Items) -> tuple[Items, Items]:
    """(resources, objects) of an id -> quantity map."""
    resources = {k: v for k, v in items.items() if k[0] == "R"}
    objects = {k: v for k, v in items.items() if k[0] == "O"}
    return resources, objects


def apply_drop(state: GameState, config: CraftingQuestConfig, player: int, action: Drop) -> Outcome:
    """CQ-42: NoEnergyError, ResourceMissingError; then the items go to the cell's piles."""
    unit = state.units[action.unit]
    failed = _no_energy(unit, config.drop_cost)
    if failed:
        return failed
    resources, objects = _split(action.items)
    if not has_items(unit.resources, resources) or not has_items(unit.objects, objects):
        return _fail("ResourceMissingError", f"unit {unit.id} does not carry all of the items")
    _pay(unit, config.drop_cost)
    cell = unit.cell
    if resources:
        take_items(unit.resources, resources)
        add_items(state.resource_piles.setdefault(cell, {}), resources)
    if objects:
        take_items(unit.objects, objects)
        add_items(state.object_piles.setdefault(cell, {}), objects)
    return Outcome(energy_spent=config.drop_cost, cells={cell})


# -- CQ-43 craft, CQ-44 sell, CQ-45 buy, CQ-46 build_tower ---------------------------------------------


def chosen_alternative(state: GameState, action: Craft) -> Items | None:
    """CQ-43 check 3: the alternative named by index, or the first that `ingredients` matches
    exactly (same ids, same quantities); None if there is none."""
    alternatives = state.catalogue[action.object].alternatives
    if action.alternative is not None:
        if action.alternative < len(alternatives):
            return dict(alternatives[action.alternative])
        return None
    for alternative in alternatives:
        if dict(alternative) == action.ingredients:
            return dict(alternative)
    return None


def apply_craft(state: GameState, config: CraftingQuestConfig, player: int, action: Craft) -> Outcome:
    """CQ-43: NoEnergyError, CraftingError (blueprint not owned; no alternative matches),
    ResourceMissingError; then exactly the alternative is consumed for one object."""
    unit = state.units[action.unit]
    failed = _no_energy(unit, config.craft_cost)
    if failed:
        return failed
    if action.object not in state.teams[player].blueprints:
        return _fail("CraftingError", f"the team does not own the blueprint {action.object}")
    alternative = chosen_alternative(state, action)
    if alternative is None:
        return _fail("CraftingError", f"the request matches no alternative of {action.object}")
    resources, objects = _split(alternative)
    if not has_items(unit.resources, resources) or not has_items(unit.objects, objects):
        return _fail("ResourceMissingError", f"unit {unit.id} does not carry the ingredients")
    _pay(unit, config.craft_cost)
    take_items(unit.resources, resources)
    take_items(unit.objects, objects)
    add_items(unit.objects, {action.object: 1})
    return Outcome(energy_spent=config.craft_cost)


def apply_sell(state: GameState, config: CraftingQuestConfig, player: int, action: Sell) -> Outcome:
    """CQ-44: NoEnergyError, SellRequestError; then the credit rises by value * quantity."""
    unit = state.units[action.unit]
    failed = _no_energy(unit, config.sell_cost)
    if failed:
        return failed
    carried = unit.objects.get(action.object, 0)
    blueprint = state.catalogue.get(action.object)
    if carried < action.quantity or blueprint is None:
        return _fail("SellRequestError", f"unit {unit.id} carries {carried} {action.object}")
    _pay(unit, config.sell_cost)
    take_items(unit.objects, {action.object: action.quantity})
    state.teams[player].credit += blueprint.value * action.quantity
    return Outcome(energy_spent=config.sell_cost)


def camp_stocks_nearby(state: GameState, config: CraftingQuestConfig, cell: Cell, blueprint: str) -> bool:
    """CQ-45 check 2: a camp within `camp_radius` of `cell` stocks `blueprint`."""
    return any(
        cheb(cell, camp_cell) <= config.camp_radius and blueprint in camp.stock
        for camp_cell, camp in state.camps.items()
    )


def apply_buy(state: GameState, config: CraftingQuestConfig, player: int, action: Buy) -> Outcome:
    """CQ-45: NoEnergyError, BuyRequestError (not stocked nearby; already owned), NoCreditError;
    then the team pays the price and owns the blueprint."""
    unit = state.units[action.unit]
    team = state.teams[player]
    failed = _no_energy(unit, config.buy_cost)
    if failed:
        return failed
    blueprint = state.catalogue.get(action.blueprint)
    if blueprint is None or not camp_stocks_nearby(state, config, unit.cell, action.blueprint):
        return _fail("BuyRequestError", f"no camp within {config.camp_radius} stocks {action.blueprint}")
    if action.blueprint in team.blueprints:
        return _fail("BuyRequestError", f"the team already owns {action.blueprint}")
    if team.credit < blueprint.price:
        return _fail("NoCreditError", f"the credit {team.credit} is below the price {blueprint.price}")
    _pay(unit, config.buy_cost)
    team.credit -= blueprint.price
    team.blueprints.add(action.blueprint)
    return Outcome(energy_spent=config.buy_cost)


def apply_build_tower(
    state: GameState, config: CraftingQuestConfig, player: int, action: BuildTower
) -> Outcome:
    """CQ-46: NoEnergyError, NoCreditError, BuildError (a structure; anything buried, lying or
    dropped); then the team pays `tower_price` and a tower with the next id stands on the cell."""
    unit = state.units[action.unit]
    team = state.teams[player]
    failed = _no_energy(unit, config.tower_energy_cost)
    if failed:
        return failed
    if team.credit < config.tower_price:
        return _fail("NoCreditError", f"the credit {team.credit} is below the price {config.tower_price}")
    cell = unit.cell
    if state.has_structure(cell):
        return _fail("BuildError", f"{cell} already holds a camp or a tower")
    if state.buried.get(cell) or state.resource_piles.get(cell) or state.object_piles.get(cell):
        return _fail("BuildError", f"{cell} holds resources or objects")
    _pay(unit, config.tower_energy_cost)
    team.credit -= config.tower_price
    tower = Tower(len(state.towers) + 1, player, cell[0], cell[1], config.tower_strength)
    state.towers.append(tower)
    state.tower_at[cell] = tower
    team.towers.append(tower.id)
    return Outcome(energy_spent=config.tower_energy_cost)


_APPLY: dict[type, Any] = {
    Move: apply_move,
    Dig: apply_dig,
    Scan: apply_scan,
    Pickup: apply_pickup,
    Drop: apply_drop,
    Craft: apply_craft,
    Sell: apply_sell,
    Buy: apply_buy,
    BuildTower: apply_build_tower,
}


def apply_action(state: GameState, config: CraftingQuestConfig, player: int, action: Action) -> Outcome:
    """CQ-36: run the action's rule (never `end_turn`, which the engine handles)."""
    return _APPLY[type(action)](state, config, player, action)  # type: ignore[no-any-return]
