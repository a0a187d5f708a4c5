"""The rules of a DatsPulse round, in the spec's order: setup (§3.5, §3.6), the transition (§3.8), places
and points (§6.2).

- `setup` generates the map and puts each team's first units on it (DP-50): turn 0.
- `Transition(state, streams).run()` is the §3.8 transition from turn t to t+1 as named phases in the
  spec's order (DP-70 to DP-81, with deaths and drops, DP-85 and DP-86); it mutates the state and
  collects the §7.7 log lines per team.
- `round_places` and `round_points`: a finished round's places and points (§6.2).

Every random draw goes through `Streams`, which hands out the named streams of DP-95 of the match seed
(`SeededStreams`), or forced ones in tests.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from botarena.core.rng import stream
from botarena.games.datspulse import logs
from botarena.games.datspulse.config import GAME_ID, DatsPulseConfig
from botarena.games.datspulse.hexgrid import Hex
from botarena.games.datspulse.mapgen import generate_map
from botarena.games.datspulse.state import FoodType, State, Team, Terrain, Unit, UnitType

StreamSource = Callable[[str], Any]

# plain int constants for the hot loops: no global and enum attribute lookup per comparison
_ANTHILL, _DIRT, _ACID, _STONE = (
    int(t) for t in (Terrain.ANTHILL, Terrain.DIRT, Terrain.ACID, Terrain.STONE)
)


class SeededStreams:
    """The DP-95 stream `name` of a match seed: `datspulse.<name>` (a class rather than a closure, so a
    round's state can be deep-copied and pickled)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def __call__(self, name: str) -> Any:
        return stream(self.seed, f"{GAME_ID}.{name}")


class Streams:
    """The round's random streams by short name (`map`, `order`, `combat`, ...), created on first use."""

    def __init__(self, source: StreamSource) -> None:
        self._source = source
        self._made: dict[str, Any] = {}

    def __call__(self, name: str) -> Any:
        found = self._made.get(name)
        if found is None:
            found = self._made[name] = self._source(name)
        return found


def new_unit_id(streams: Streams) -> str:
    """DP-95 `ids`: 16 bytes, version 4 and RFC 4122 variant bits set, as a lowercase UUID."""
    raw = bytearray(streams("ids").bytes(16))
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    return str(uuid.UUID(bytes=bytes(raw)))


# -- setup (§3.5, §3.6) ----------------------------------------------------------------------------


class Setup(NamedTuple):
    """A round at turn 0: its state, its random streams and the map generator that made its map."""

    state: State
    streams: Streams
    generator: str


def setup(
    config: DatsPulseConfig,
    seed: int,
    team_names: Sequence[str],
    *,
    round_number: int = 1,
    streams: StreamSource | None = None,
) -> Setup:
    """Generate the map for len(team_names) teams (§3.5) and set up turn 0 (§3.6). Raises ConfigError
    (botarena.core.config) when the map cannot be generated for that many teams.

    `round_number` (1-based within the series) picks the generator when `map_generator` is `cycle`
    (DP-47). `streams` replaces the seeded streams (tests only)."""
    draws = Streams(streams or SeededStreams(seed))
    made = generate_map(config, len(team_names), draws("map"), round_number)
    state = State(config, made.grid, made.terrain, made.homes, list(team_names), made.piles)
    for team in state.teams:  # DP-50: a worker, a soldier and a scout on every spot
        for kind in (UnitType.WORKER, UnitType.SOLDIER, UnitType.SCOUT):
            state.add_unit(team, kind, new_unit_id(draws))
    return Setup(state, draws, made.generator)


# -- the transition (§3.8) -------------------------------------------------------------------------


def spawn_type(weights: tuple[int, ...], u: float) -> int:
    """DP-79: the first type whose cumulative weight share exceeds u."""
    total = sum(weights)
    acc = 0
    last = 0
    for kind, weight in enumerate(weights):
        if weight <= 0:
            continue
        acc += weight
        last = kind
        if u < acc / total:
            return kind
    return last


def facing_enemies(state: State) -> set[Unit]:
    """The living units with a living unit of another team on a neighbouring hex (DP-73's attackers
    before any strike). Step 3 moves nobody and its deaths only remove enemies, so no other unit can
    attack in it: the step skips the rest without scanning their six neighbours one by one (most units,
    with many teams on a big map). In numpy, with the occupied hexes looked up by binary search, so the
    cost follows the number of units, not of hexes."""
    living = [unit for unit in state.all_units() if unit.health > 0]
    if not living:
        return set()
    count = len(living)
    pos = np.fromiter((unit.pos for unit in living), dtype=np.int64, count=count)
    team = np.fromiter((unit.team for unit in living), dtype=np.int64, count=count)
    occupied, slot = np.unique(pos, return_inverse=True)
    # per occupied hex, the lowest and highest team on it: an enemy of t stands there unless both are t
    low = np.full(len(occupied), np.iinfo(np.int64).max)
    high = np.full(len(occupied), -1)
    np.minimum.at(low, slot, team)
    np.maximum.at(high, slot, team)
    around = state.grid.nbr_array[pos]  # (units, 6) hex numbers, -1 off the map
    found = np.minimum(np.searchsorted(occupied, around), len(occupied) - 1)
    here = (occupied[found] == around) & (around >= 0)
    mine = team[:, None]
    enemy = here & ((low[found] != mine) | (high[found] != mine))
    return {living[i] for i in np.flatnonzero(enemy.any(axis=1)).tolist()}


class TransitionLog:
    """§7.7 lines of one transition, per team, and in the order they happened (spectator `events`)."""

    def __init__(self, turn: int, teams: int) -> None:
        self.turn = turn
        self.prefix = logs.line(turn, "")
        self.lines: dict[int, list[str]] = {t: [] for t in range(teams)}
        self.events: list[tuple[int, str]] = []

    def add(self, team: int, text: str) -> None:
        line = self.prefix + text
        self.lines[team].append(line)
        self.events.append((team, line))


class Transition:
    """One run of §3.8 on `state`. `union_kills` lists the team of each §6.4 Union kill of this step 3,
    in step-3 order (Round adds the turn)."""

    def __init__(self, state: State, streams: Streams) -> None:
        self.s = state
        self.streams = streams
        self.log = TransitionLog(state.turn + 1, len(state.teams))
        self.orders: list[dict[str, list[Hex]]] = []
        self.union_kills: list[int] = []  # teams, in step-3 order

    # -- helpers ---------------------------------------------------------------------------------

    def label(self, h: int) -> str:
        """Hex h printed `{q r}` for a log line."""
        return self.s.grid.labels[h]

    def hurt(self, unit: Unit, damage: int, cause: str) -> bool:
        """Apply damage; log it, or the death (DP-85). Returns True when the unit died."""
        unit.health -= damage
        if unit.health <= 0:
            self.kill(unit, cause)
            return True
        self.log.add(unit.team, logs.damaged(unit.id, cause, unit.health))
        return False

    def kill(self, unit: Unit, cause: str) -> None:
        """DP-85: health 0, a corpse until next step 0, cargo dropped, one more unit lost."""
        unit.health = 0
        self.s.vacate(unit)
        self.s.teams[unit.team].units_lost += 1
        self.log.add(unit.team, logs.killed_by(unit.id, cause))
        self.drop(unit)

    def _can_hold(self, h: int, food: int) -> bool:
        """A pile of `food` may lie (or merge) on hex h: not stone, not anthill (DP-31), same type."""
        if self.s.terrain[h] in (_STONE, _ANTHILL):
            return False
        pile = self.s.piles.get(h)
        return pile is None or pile[0] == food

    def drop(self, unit: Unit) -> None:
        """DP-86: the death hex, else the first free neighbour in direction order, else lost."""
        food, amount = unit.cargo_type, unit.cargo_amount
        unit.clear_cargo()
        if amount <= 0:
            return
        s = self.s
        # the death hex ignores units standing on it; a corpse on an anthill hex cannot leave a pile
        # there (DP-31), so its food goes to a neighbour like any other blocked drop
        targets = [unit.pos] if self._can_hold(unit.pos, food) else []
        targets += [
            n for n in s.grid.nbr[unit.pos] if n >= 0 and n not in s.occupancy and self._can_hold(n, food)
        ]
        if not targets:
            self.log.add(unit.team, logs.lost(unit.id, amount, food))
            return
        h = targets[0]
        pile = s.piles.get(h)
        if pile is None:
            s.piles[h] = [food, amount]
        else:
            pile[1] += amount
        self.log.add(unit.team, logs.dropped(unit.id, amount, food, self.label(h)))

    # -- the phases ------------------------------------------------------------------------------

    def run(self) -> TransitionLog:
        """All of §3.8 in order; turn_no becomes t+1 (DP-81)."""
        self.housekeeping()
        self.anthill_attacks()
        order = self.team_order()
        self.unit_attacks(order)
        self.movement(order)
        self.acid_stay()
        raided = self.raids(order)
        self.collect_and_deliver(order, raided)
        self.spawn()
        self.food()
        self.s.turn += 1
        return self.log

    def housekeeping(self) -> None:
        """DP-70 step 0: remove corpses, clear last-transition fields, take the orders."""
        s = self.s
        for team in s.teams:
            for unit in [u for u in team.units if not u.alive]:
                s.remove_corpse(unit)
                self.log.add(team.index, logs.corpse_removed(unit.id))
            for unit in team.units:
                unit.last_move = ()
                unit.last_attack = -1
                unit.last_enemy = None
            self.orders.append(team.orders)
            team.orders = {}  # a fresh table, not a cleared one: Round.order_slots() relies on it

    def anthill_attacks(self) -> None:
        """DP-71 step 1: each living unit within reach of another team's anthill takes `spot_damage` once."""
        s = self.s
        damage = s.config.spot_damage
        for unit in s.all_units():
            if not unit.alive:
                continue
            teams = s.threat.get(unit.pos)
            if teams and any(t != unit.team for t in teams):
                self.hurt(unit, damage, "enemy anthill")

    def team_order(self) -> list[int]:
        """DP-72 step 2: one `permutation(n)` from the `order` stream."""
        return [int(t) for t in self.streams("order").permutation(len(self.s.teams))]

    def attack_bonus(self, unit: Unit, target: Unit) -> int:
        """DP-74: the support and home bonuses, in percent."""
        s = self.s
        percent = 0
        nbr = s.grid.nbr
        around_target = nbr[target.pos]
        occupancy = s.occupancy
        team = unit.team
        for h in nbr[unit.pos]:
            # a common neighbour of attacker and target holding a living ally (never the attacker's hex)
            if (
                h >= 0
                and h in around_target
                and h in occupancy
                and any(ally.team == team for ally in occupancy[h])
            ):
                percent += s.config.support_bonus_percent
                break
        if unit.team in s.bonus.get(unit.pos, ()):
            percent += s.config.spot_bonus_percent
        return percent

    def unit_attacks(self, order: list[int]) -> None:
        """DP-73 step 3: every living unit with an adjacent enemy strikes once, teams in step-2 order."""
        s = self.s
        hits: dict[str, list[tuple[int, int, str]]] = {}  # target -> (team, hex, attacker) before the kill
        nbr = s.grid.nbr
        occupancy = s.occupancy
        engaged = facing_enemies(s)
        for t in order:
            for unit in s.teams[t].units:
                if unit.health <= 0 or unit not in engaged:
                    continue
                candidates = []
                for h in nbr[unit.pos]:
                    here = occupancy.get(h)
                    if here:
                        candidates += [v for v in here if v.team != t]
                if not candidates:
                    continue
                if len(candidates) == 1:
                    target = candidates[0]
                else:
                    candidates.sort(key=lambda v: (v.pos, v.team, v.seq))
                    target = candidates[int(self.streams("combat").integers(len(candidates)))]
                stats = s.stats[unit.type]
                damage = stats.attack * (100 + self.attack_bonus(unit, target)) // 100
                unit.last_attack = target.pos
                unit.last_enemy = target.id
                self.log.add(t, logs.attacked(unit.id, target.id, self.label(target.pos), damage))
                if self.hurt(target, damage, "enemy ant"):
                    helpers = {a for team, h, a in hits.get(target.id, ()) if team == t and h == unit.pos}
                    helpers.discard(unit.id)
                    if len(helpers) >= 2:
                        self.union_kills.append(t)
                else:
                    hits.setdefault(target.id, []).append((t, unit.pos, unit.id))

    def movement(self, order: list[int]) -> None:
        """DP-75 step 4a: teams in step-2 order, units in spawn order, each walks its path."""
        s = self.s
        for t in order:
            orders = self.orders[t]
            if not orders:
                continue
            for unit in s.teams[t].units:
                path = orders.get(unit.id)
                if path and unit.alive:
                    self.walk(unit, path)

    def walk(self, unit: Unit, path: list[Hex]) -> None:
        """DP-75 for one unit: enter the path's hexes until the first stop condition (checked in the
        spec's order 1 to 5). The unit joins its new hex in the occupancy table when its walk ends: no
        other unit moves meanwhile, and its own old hex is skipped if the path comes back to it."""
        s = self.s
        grid = s.grid
        index, nbr, labels = grid.index, grid.nbr, grid.labels
        terrain, costs, occupancy, owners = s.terrain, s.costs, s.occupancy, s.anthill_owner
        team, kind_of_unit, uid = unit.team, unit.type, unit.id
        start = here = unit.pos
        mp = s.stats[kind_of_unit].speed
        dirt = 0
        entered: list[int] = []
        stop: str | None = None
        died = False
        for cell in path:
            h = index.get(cell, -1)
            if h < 0 or h not in nbr[here]:
                break  # only a hand-edited replay can hold such a path; §5 rejects it at request time
            kind = terrain[h]
            if kind == _STONE:
                stop = logs.blocked_rock(uid, labels[h])
                break
            if kind == _ANTHILL:
                owner = owners.get(h)
                if owner is not None and owner[0] != team:
                    stop = logs.blocked_enemy_anthill(uid, labels[h])
                    break
            units = occupancy.get(h)
            if units:
                stop = self.unit_in_the_way(unit, units, labels[h])
                if stop is not None:
                    break
            cost = costs[kind]
            if cost > mp:
                stop = logs.blocked_mp(uid, labels[h])
                break
            mp -= cost
            here = h
            entered.append(h)
            if kind == _DIRT:
                dirt += 1
            elif kind == _ACID:
                unit.health -= s.config.acid_damage
                if unit.health <= 0:
                    died = True
                    break
                self.log.add(team, logs.damaged(uid, "acid", unit.health))
        if stop is not None:
            self.log.add(team, stop)
        if entered:
            s.move_unit(unit, here)
            unit.last_move = tuple(entered)
            self.log.add(team, logs.moved(uid, labels[start], labels[here], dirt))
        if died:
            self.kill(unit, "acid")

    @staticmethod
    def unit_in_the_way(unit: Unit, units: list[Unit], label: str) -> str | None:
        """DP-75 stop conditions 3 and 4 on an occupied hex: the log line when an enemy unit stands there,
        or an own unit of the same type; None when the unit may enter."""
        if any(v.team != unit.team for v in units):
            return logs.blocked_enemy_ant(unit.id, label)
        same = next((v for v in units if v.type == unit.type and v is not unit), None)
        if same is not None:
            return logs.blocked_same_type(unit.id, label, same.id)
        return None

    def acid_stay(self) -> None:
        """DP-76 step 4b: a living unit that entered no hex and stands on acid takes `acid_damage`."""
        s = self.s
        for unit in s.all_units():
            if unit.alive and not unit.last_move and s.terrain[unit.pos] == Terrain.ACID:
                self.hurt(unit, s.config.acid_damage, "acid")

    def raids(self, order: list[int]) -> set[str]:
        """DP-77 step 4c: units next to another team's anthill take nectar; returns the raiders' ids."""
        s = self.s
        raided: set[str] = set()
        nectar_cal = s.config.nectar_calories
        for t in order:
            for unit in s.teams[t].units:
                reach = s.raid_reach.get(unit.pos)
                if not reach or not unit.alive:
                    continue
                if unit.cargo_amount > 0 and unit.cargo_type != FoodType.NECTAR:
                    continue
                room = s.stats[unit.type].capacity - unit.cargo_amount
                if room <= 0:
                    continue
                candidates = [
                    (s.teams[v], slot)
                    for v in reach
                    if v != t
                    for slot in range(3)
                    if s.teams[v].nectar[slot] >= 1
                ]
                if not candidates:
                    continue
                k = len(candidates)
                victim, slot = candidates[0] if k == 1 else candidates[int(self.streams("raid").integers(k))]
                amount = min(room, victim.nectar[slot])
                victim.nectar[slot] -= amount
                victim.score -= amount * nectar_cal
                unit.cargo_type = int(FoodType.NECTAR)
                unit.cargo_amount += amount
                where = self.label(victim.home[slot])
                self.log.add(t, logs.stole(unit.id, amount, where))
                self.log.add(victim.index, logs.was_robbed(amount, where))
                raided.add(unit.id)
        return raided

    def deliver(self, team: Team, unit: Unit, slot: int) -> None:
        """DP-78 delivery: S grows by the calories, the hex gains the new whole nectar units."""
        per_nectar = self.s.config.nectar_calories
        calories = unit.cargo_amount * self.s.calories[unit.cargo_type]
        old = team.score
        team.score += calories
        team.nectar[slot] += team.score // per_nectar - old // per_nectar
        self.log.add(team.index, logs.stocked(unit.id, unit.cargo_amount, unit.cargo_type, calories))
        unit.clear_cargo()

    def collect(self, unit: Unit) -> None:
        """DP-78 collection from the pile under the unit, if the cargo allows."""
        s = self.s
        pile = s.piles.get(unit.pos)
        if pile is None or (unit.cargo_amount > 0 and unit.cargo_type != pile[0]):
            return
        amount = min(s.stats[unit.type].capacity - unit.cargo_amount, pile[1])
        if amount <= 0:
            return
        pile[1] -= amount
        if pile[1] == 0:
            del s.piles[unit.pos]
        unit.cargo_type = pile[0]
        unit.cargo_amount += amount
        self.log.add(unit.team, logs.collected(unit.id, amount, pile[0], self.label(unit.pos)))

    def collect_and_deliver(self, order: list[int], raided: set[str]) -> None:
        """DP-78 step 4d: teams in step-2 order, units in spawn order."""
        s = self.s
        for t in order:
            team = s.teams[t]
            for unit in team.units:
                if not unit.alive:
                    continue
                owner = s.anthill_owner.get(unit.pos)
                if owner is not None and owner[0] == t:
                    if unit.cargo_amount > 0:
                        self.deliver(team, unit, owner[1])
                elif unit.id not in raided and unit.pos in s.piles:
                    self.collect(unit)

    def spawn(self) -> None:
        """DP-79 step 5: teams in index order; one `spawn` draw per team below the limit."""
        s = self.s
        weights = tuple(st.spawn_weight for st in s.stats)
        for team in s.teams:
            if team.living_count() >= s.config.unit_limit:
                self.log.add(team.index, logs.spawn_limit())
                continue
            kind = spawn_type(weights, float(self.streams("spawn").random()))
            if any(v.type == kind and v.team == team.index for v in s.occupancy.get(team.spot, ())):
                self.log.add(team.index, logs.spawn_occupied(kind))
                continue
            s.add_unit(team, kind, new_unit_id(self.streams))
            self.log.add(team.index, logs.spawned(kind))

    def food(self) -> None:
        """DP-80 step 6: n attempts, each maybe one new apple or bread pile on an eligible hex."""
        s = self.s
        c = s.config
        rng = self.streams("food")
        n = len(s.teams)
        cap = c.food_max_piles_per_team * n
        size = len(s.grid)
        piles = s.apple_bread_piles()
        for _ in range(n):
            if rng.random() >= c.food_spawn_chance or piles >= cap:
                continue
            for _ in range(c.food_spawn_retries):
                h = int(rng.integers(size))
                if s.is_food_eligible(h):
                    break
            else:
                continue
            kind = FoodType.APPLE if rng.random() < c.food_apple_share else FoodType.BREAD
            s.piles[h] = [int(kind), int(rng.integers(c.food_min_amount, c.food_max_amount + 1))]
            piles += 1


# -- the round's result (§6.2) ---------------------------------------------------------------------


def round_places(scores: Sequence[int]) -> list[int]:
    """§6.2 competition ranking by score, descending (1, 1, 3)."""
    return [1 + sum(1 for other in scores if other > s) for s in scores]


def round_points(config: DatsPulseConfig, place: int, score: int) -> int:
    """§6.2: `place_points[p-1]`, `place_points_floor` past the list, 0 for a zero score."""
    if score <= 0:
        return 0
    table = config.place_points
    return table[place - 1] if place <= len(table) else config.place_points_floor
