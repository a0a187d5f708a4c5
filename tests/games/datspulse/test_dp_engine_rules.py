"""§3 rules by id, beyond the worked examples: DP-22 to DP-95 on hand-built boards with forced draws."""

from __future__ import annotations

import re

import pytest
from dp_testkit import (
    HOME_A,
    SPOT_A,
    SPOT_B,
    A,
    B,
    S,
    W,
    X,
    board,
    board_e,
    draw_count,
    force,
    nectar_invariant,
    order,
    pile,
    pile_at,
    play_random,
    pos,
    put,
    texts,
)

from botarena.games.datspulse.config import datspulse_config
from botarena.games.datspulse.engine import Round
from botarena.games.datspulse.hexgrid import distance
from botarena.games.datspulse.rules import spawn_type
from botarena.games.datspulse.state import FoodType, Terrain

UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
APPLE, BREAD, NECTAR = FoodType.APPLE, FoodType.BREAD, FoodType.NECTAR


def test_dp24_corpse_stays_one_turn_then_is_removed_with_a_log() -> None:
    r = board_e(unit_limit=1)
    put(r, A, W, (0, 0), "A-W1", health=20, cargo=(APPLE, 2))
    put(r, B, S, (1, 0), "B-S1")
    force(r, "order", [B, A])
    r.transition()
    corpse = r.state.by_id["A-W1"]
    assert corpse.health == 0 and pos(r, corpse) == (0, 0) and corpse.cargo_amount == 0
    assert r.state.teams[A].units_lost == 1
    logs = r.transition()
    assert texts(logs[A])[0] == "ant A-W1 killed"
    assert "A-W1" not in r.state.by_id


def test_dp24_corpse_does_not_block_and_cannot_be_attacked() -> None:
    # A-W1 dies in step 3 of this transition; its corpse then neither draws B-X1's attack nor stops
    # A-W2 (same team and type) from walking onto its hex in step 4a
    r = board_e(unit_limit=1)
    corpse = put(r, A, W, (0, 0), "A-W1", health=10)
    w2 = put(r, A, W, (0, 1), "A-W2")
    put(r, B, S, (-1, 0), "B-S1")
    scout = put(r, B, X, (0, -1), "B-X1")
    order(r, A, "A-W2", (0, 0))
    force(r, "order", [B, A])
    logs = r.transition()
    assert corpse.health == 0 and pos(r, corpse) == (0, 0)
    assert [t for t in texts(logs[B]) if " attacked " in t] == [
        "ant B-S1 attacked enemy ant A-W1 at {0 0} for 70 damage"
    ]
    assert scout.last_enemy is None
    assert pos(r, w2) == (0, 0)
    assert "A-W1" in [a["id"] for a in r.arena(A, 0)["ants"]]


def test_dp23_dp24_corpses_do_not_count_toward_the_limit() -> None:
    r = board_e(unit_limit=2)
    put(r, A, W, (0, 0), "A-W1")
    put(r, A, W, (-4, 4), "A-W2", health=20)  # killed in step 3 by B-S1
    put(r, B, S, (-3, 4), "B-S1", health=500)
    force(r, "order", [B, A])
    force(r, "spawn", 0.1)
    logs = r.transition()
    assert r.state.by_id["A-W2"].health == 0
    assert "new ant spawned Worker" in texts(logs[A])


def test_dp50_initial_state() -> None:
    r = Round.create(datspulse_config("default", {"map_radius": 20}), 5, ["x", "y", "z"])
    assert r.turn_no == 0 and not r.finished
    for t, team in enumerate(r.state.teams):
        assert [u.type for u in team.units] == [W, S, X]
        assert all(u.pos == team.spot and u.cargo_amount == 0 for u in team.units)
        assert [u.health for u in team.units] == [130, 180, 80]
        assert team.score == 0 and team.nectar == [0, 0, 0]
        arena = r.arena(t, 1.0)
        assert arena["turnNo"] == 0 and arena["score"] == 0
        assert all(UUID4.match(a["id"]) for a in arena["ants"])
    assert len({u.id for u in r.state.all_units()}) == 9


def test_dp70_last_fields_cleared_and_orders_taken() -> None:
    r = board_e(unit_limit=1)
    w = put(r, A, W, (0, 0), "A-W1")
    order(r, A, "A-W1", (1, 0))
    r.transition()
    assert w.last_move and r.orders(A) == {}
    r.transition()
    assert w.last_move == () and pos(r, w) == (1, 0)


def test_dp71_own_anthill_never_hurts() -> None:
    r = board_e()
    own = put(r, A, S, (-4, 4), "A-S1")  # adjacent to A's (-5,5)
    r.transition()
    assert own.health == 180


def test_dp71_enemy_anthill_reaches_exactly_two() -> None:
    r = board_e()
    near = put(r, B, W, (-3, 4), "B-W1")  # 2 from A's (-5,5)
    far = put(r, B, W, (-3, 3), "B-W2")  # 3 from every A hex
    logs = r.transition()
    assert near.health == 110 and far.health == 130
    assert "ant B-W1 damaged by enemy anthill, health now 110" in texts(logs[B])


def test_dp71_one_hit_even_within_reach_of_two_enemy_anthills() -> None:
    # three teams; C's scout stands within 2 of both A's and B's anthills and takes spot_damage once
    r = board(12, [(-2, 0), (3, 0), (0, 9)], names=["A", "B", "C"])
    x = put(r, 2, X, (0, -1), "C-X1")
    for team in (0, 1):
        home = [r.state.grid.hexes[h] for h in r.state.teams[team].home]
        assert min(distance((0, -1), h) for h in home) <= 2
    r.transition()
    assert x.health == 60


def test_dp73_dead_before_its_turn_never_strikes() -> None:
    r = board_e()
    a = put(r, A, S, (0, 0), "A-S1")
    put(r, B, W, (1, 0), "B-W1", health=50)
    force(r, "order", [A, B])
    r.transition()
    assert a.health == 180


def test_dp73_attacks_exactly_once_and_candidate_order() -> None:
    # three teams around B-S1: candidates are listed by hex (r, then q), then team, then spawn order
    r = board(12, [(-6, 6), (6, -6), (6, 6)], names=["A", "B", "C"])
    put(r, 0, W, (0, 1), "A-W1")
    put(r, 0, S, (0, 1), "A-S1")  # same hex as A-W1, later spawn
    put(r, 2, X, (1, 0), "C-X1")
    b = put(r, 1, S, (0, 0), "B-S1")
    force(r, "order", [1, 0, 2])
    force(r, "combat", 2)  # candidates [C-X1 (1,0), A-W1 (0,1), A-S1 (0,1)] -> A-S1
    logs = r.transition()
    attacks = [t for t in texts(logs[1]) if t.startswith("ant B-S1 attacked")]
    assert attacks == ["ant B-S1 attacked enemy ant A-S1 at {0 1} for 70 damage"]
    assert b.last_enemy == "A-S1"


def test_dp73_facing_enemies_lists_exactly_the_units_with_an_adjacent_enemy() -> None:
    from botarena.games.datspulse.rules import facing_enemies

    r = board(10, [(-6, 6), (6, -6), (6, 6)], names=["A", "B", "C"])
    a_w = put(r, 0, W, (0, 0), "A-W1")  # its neighbours hold allies only
    b_s = put(r, 1, S, (0, 0), "B-S1")  # the same hex as A-W1 does not count, its neighbours do
    a_s = put(r, 0, S, (1, 0), "A-S1")  # next to both A-W1 (ally) and B-S1 (enemy)
    put(r, 0, X, (-3, 0), "A-X1")  # next to nobody
    c_w = put(r, 2, W, (10, 0), "C-W1")  # on the edge (off-map neighbours), next to a corpse only
    put(r, 1, W, (9, 0), "B-W1", health=0)
    a_x = put(r, 0, X, (-1, -1), "A-X2")  # next to the hex of A-W1 and B-S1
    facing = facing_enemies(r.state)
    assert facing == {b_s, a_s, a_x}
    assert a_w not in facing and c_w not in facing


def test_dp74_ally_on_the_same_hex_does_not_support() -> None:
    r = board_e()
    put(r, A, S, (0, 0), "A-S1")
    put(r, A, W, (0, 0), "A-W1")  # same hex: no support for A-S1
    put(r, B, S, (1, 0), "B-S1", health=1000)
    force(r, "order", [A, B])
    logs = r.transition()
    assert "ant A-S1 attacked enemy ant B-S1 at {1 0} for 70 damage" in texts(logs[A])


def test_dp74_only_one_supporter_counts() -> None:
    r = board_e()
    put(r, A, S, (0, 0), "A-S1")
    put(r, A, W, (0, 1), "A-W1")  # (0,1) and (0,-1) are both common neighbours of (0,0) and (1,0)
    put(r, A, W, (0, -1), "A-W2")
    put(r, B, S, (1, 0), "B-S1", health=1000)
    force(r, "order", [A, B])
    logs = r.transition()
    assert "ant A-S1 attacked enemy ant B-S1 at {1 0} for 105 damage" in texts(logs[A])


def test_dp75_enemy_anthill_stops_the_walk() -> None:
    r = board_e()
    x = put(r, B, X, (-3, 5), "B-X1", health=1000)
    order(r, B, "B-X1", (-4, 5), (-5, 5), (-6, 5))
    logs = r.transition()
    assert pos(r, x) == (-4, 5)
    assert "ant B-X1 cannot move to {-5 5}, enemy anthill" in texts(logs[B])


def test_dp75_moved_unit_frees_its_hex_for_a_younger_one() -> None:
    r = board_e()
    w1 = put(r, A, W, (1, 0), "A-W1")
    w2 = put(r, A, W, (0, 0), "A-W2")
    order(r, A, "A-W1", (2, 0))
    order(r, A, "A-W2", (1, 0))
    r.transition()
    assert pos(r, w1) == (2, 0) and pos(r, w2) == (1, 0)


def test_dp75_not_yet_moved_unit_still_blocks() -> None:
    r = board_e()
    w1 = put(r, A, W, (0, 0), "A-W1")
    w2 = put(r, A, W, (1, 0), "A-W2")
    order(r, A, "A-W1", (1, 0))
    order(r, A, "A-W2", (2, 0))
    logs = r.transition()
    assert pos(r, w1) == (0, 0) and pos(r, w2) == (2, 0)
    assert "ant A-W1 cannot move to {1 0}, your own ant A-W2 with same type is there" in texts(logs[A])


def test_dp75_blocking_applies_to_every_hex_of_the_path() -> None:
    r = board_e(terrain={(2, 0): Terrain.STONE})
    x = put(r, A, X, (0, 0), "A-X1")
    order(r, A, "A-X1", (1, 0), (2, 0), (3, 0))
    r.transition()
    assert pos(r, x) == (1, 0)


def test_dp75_dp85_killed_by_acid_ends_the_walk_and_drops() -> None:
    r = board_e(terrain={(1, 0): Terrain.ACID})
    w = put(r, A, W, (0, 0), "A-W1", health=15, cargo=(BREAD, 4))
    order(r, A, "A-W1", (1, 0), (2, 0))
    logs = r.transition()
    assert w.health == 0 and pos(r, w) == (1, 0) and w.last_move == (r.state.grid.index[(1, 0)],)
    assert [t for t in texts(logs[A]) if "A-W1" in t] == [
        "ant A-W1 moved from {0 0} to {1 0}",
        "ant A-W1 killed by acid",
        "ant A-W1 dropped 4 Bread at {1 0}",
    ]
    assert pile_at(r, (1, 0)) == (BREAD, 4)
    assert r.state.teams[A].units_lost == 1


def test_dp76_stopped_at_first_step_on_acid_takes_damage() -> None:
    r = board_e(terrain={(0, 0): Terrain.ACID, (1, 0): Terrain.STONE})
    w = put(r, A, W, (0, 0), "A-W1")
    order(r, A, "A-W1", (1, 0))
    r.transition()
    assert w.health == 110


def test_dp77_no_raid_with_other_cargo_or_full_nectar() -> None:
    r = board_e()
    r.state.teams[B].score = 600
    r.state.teams[B].nectar = [0, 10, 0]
    put(r, A, W, (6, -7), "A-W1", health=1000, cargo=(APPLE, 1))
    put(r, A, X, (5, -8), "A-X1", health=1000, cargo=(NECTAR, 2))
    r.transition()
    assert r.state.teams[B].nectar == [0, 10, 0]
    assert draw_count(r, "raid") == 0


def test_dp77_partial_nectar_cargo_tops_up() -> None:
    r = board_e()
    r.state.teams[B].score = 600
    r.state.teams[B].nectar = [0, 10, 0]
    w = put(r, A, W, (6, -7), "A-W1", health=1000, cargo=(NECTAR, 5))
    r.transition()
    assert (w.cargo_type, w.cargo_amount) == (NECTAR, 8)
    assert r.state.teams[B].nectar == [0, 7, 0] and r.state.teams[B].score == 420
    nectar_invariant(r)


def test_dp78_carrying_another_type_leaves_the_pile() -> None:
    r = board_e()
    w = put(r, A, W, (0, 0), "A-W1", cargo=(APPLE, 2))
    pile(r, (0, 0), APPLE, 10)
    r.transition()
    assert (w.cargo_type, w.cargo_amount) == (APPLE, 8) and pile_at(r, (0, 0)) == (APPLE, 4)


def test_dp79_spawn_type_thresholds() -> None:
    weights = (60, 30, 10)
    assert [spawn_type(weights, u) for u in (0.0, 0.59999, 0.6, 0.89999, 0.9, 0.99999)] == [W, W, S, S, X, X]
    assert spawn_type((0, 30, 10), 0.0) == S
    assert spawn_type((0, 0, 1), 0.5) == X


def test_dp79_spawned_unit_gets_a_uuid_from_the_ids_stream() -> None:
    r = board_e()
    force(r, "spawn", 0.95, 0.95)
    r.transition()
    a, b = r.state.teams[A].units[0], r.state.teams[B].units[0]
    assert a.type == X and pos(r, a) == SPOT_A and pos(r, b) == SPOT_B
    assert UUID4.match(a.id) and UUID4.match(b.id) and a.id != b.id
    assert draw_count(r, "ids") == 2


def test_dp80_food_generation_on_eligible_hexes_with_the_cap() -> None:
    r = board_e(food_spawn_chance=1.0, food_min_amount=3, food_max_amount=5, unit_limit=1)
    put(r, A, W, (0, 0), "A-W1")
    for _ in range(30):
        r.transition()
    piles = r.state.piles
    assert len(piles) == 60
    for h, (kind, amount) in piles.items():
        assert kind in (APPLE, BREAD) and 3 <= amount <= 5
        assert r.state.terrain[h] == Terrain.EMPTY


def test_dp80_cap_stops_food() -> None:
    r = board_e(food_spawn_chance=1.0, food_max_piles_per_team=1, unit_limit=1)
    for _ in range(5):
        r.transition()
    assert len(r.state.piles) == 2
    calls = draw_count(r, "food")
    r.transition()
    assert draw_count(r, "food") == calls + 2  # one chance draw per attempt, nothing else


def test_dp80_never_under_units_or_on_stone() -> None:
    stone = {h: Terrain.STONE for h in [(q, rr) for q in range(-3, 4) for rr in range(-3, 4)]}
    r = board_e(food_spawn_chance=1.0, terrain=stone, unit_limit=1)
    for _ in range(20):
        r.transition()
    for h in r.state.piles:
        assert r.state.terrain[h] in (Terrain.EMPTY, Terrain.DIRT, Terrain.ACID)


def test_dp85_killed_unit_takes_no_further_part() -> None:
    r = board_e()
    w = put(r, A, W, (0, 0), "A-W1", health=10)
    put(r, B, S, (1, 0), "B-S1")
    pile(r, (0, 0), BREAD, 5)
    order(r, A, "A-W1", (0, 1))
    force(r, "order", [B, A])
    r.transition()
    assert w.health == 0 and pos(r, w) == (0, 0) and w.cargo_amount == 0
    assert pile_at(r, (0, 0)) == (BREAD, 5)


def test_dp86_death_on_own_anthill_drops_beside_it() -> None:
    # an anthill hex never holds a pile (DP-31): the cargo goes to the first free neighbour
    r = board_e()
    w = put(r, A, W, HOME_A[1], "A-W1", health=10, cargo=(APPLE, 3))
    put(r, B, S, (-4, 4), "B-S1", health=1000)
    force(r, "order", [B, A])
    logs = r.transition()
    assert w.health == 0
    assert r.state.grid.index[HOME_A[1]] not in r.state.piles
    assert pile_at(r, (-4, 5)) == (APPLE, 3)  # E of (-5,5) is free; NE (-4,4) holds B-S1
    assert "ant A-W1 dropped 3 Apple at {-4 5}" in texts(logs[A])


def test_dp33_nectar_invariant_and_dp22_occupancy_in_random_play() -> None:
    for rnd in play_random(seed=3, teams=4, turns=60, radius=14):
        nectar_invariant(rnd)
        living = [u for u in rnd.state.all_units() if u.alive]
        seen: dict[int, tuple[int, set[int]]] = {}
        for u in living:
            team, kinds = seen.setdefault(u.pos, (u.team, set()))
            assert team == u.team, "units of different teams share a hex"
            assert u.type not in kinds, "two units of one team and type share a hex"
            kinds.add(u.type)
        for h, (_, amount) in rnd.state.piles.items():
            assert amount >= 1 and rnd.state.terrain[h] not in (Terrain.STONE, Terrain.ANTHILL)


@pytest.mark.parametrize("seed", [1, 2])
def test_dp95_same_seed_same_orders_same_frames(seed: int) -> None:
    first = [
        (r.spectator_frame(), r.arena(0, 1.0)) for r in play_random(seed=seed, teams=3, turns=25, radius=14)
    ]
    second = [
        (r.spectator_frame(), r.arena(0, 1.0)) for r in play_random(seed=seed, teams=3, turns=25, radius=14)
    ]
    assert first == second
    other = [r.spectator_frame() for r in play_random(seed=seed + 10, teams=3, turns=25, radius=14)]
    assert [f for f, _ in first] != other


def test_dp95_recorded_orders_replay_identically() -> None:
    recorded: list[list[dict[str, list[tuple[int, int]]]]] = []
    frames = []
    for rnd in play_random(seed=9, teams=3, turns=20, radius=14, record=recorded):
        frames.append(rnd.spectator_frame())
    config = datspulse_config("default", {"map_radius": 14, "turns": 20})
    again = Round.create(config, 9, ["t0", "t1", "t2"])
    replayed = [again.spectator_frame()]
    for turn_orders in recorded:
        for team, orders in enumerate(turn_orders):
            again.set_orders(team, orders)
        again.transition()
        replayed.append(again.spectator_frame())
    assert replayed == frames


def test_dp81_round_ends_after_turns_transitions() -> None:
    r = board_e(turns=3)
    for _ in range(3):
        assert not r.finished
        r.transition()
    assert r.finished and r.turn_no == 3
    with pytest.raises(RuntimeError):
        r.transition()


def test_dp10_hex_types_and_reported_costs() -> None:
    r = board_e(
        unit_limit=1,
        terrain={(1, 0): Terrain.DIRT, (0, 1): Terrain.ACID, (-1, 0): Terrain.STONE},
        cost_dirt=3,
        stone_reported_cost=99,
    )
    put(r, A, W, (0, 0), "A-W1")
    tiles = {(t["q"], t["r"]): (t["type"], t["cost"]) for t in r.arena(A, 0)["map"]}
    assert tiles[(0, 0)] == (2, 1)
    assert tiles[(1, 0)] == (3, 3)
    assert tiles[(0, 1)] == (4, 1)
    assert tiles[(-1, 0)] == (5, 99)
    assert tiles[SPOT_A] == (1, 1)


def test_dp10_eligible_food_hex() -> None:
    r = board_e(terrain={(1, 0): Terrain.STONE, (2, 0): Terrain.ACID, (3, 0): Terrain.DIRT})
    put(r, A, W, (4, 0), "A-W1")
    pile(r, (5, 0), APPLE, 1)
    index = r.state.grid.index
    eligible = r.state.is_food_eligible
    assert [eligible(index[h]) for h in [(0, 0), (2, 0), (3, 0)]] == [True, True, True]
    assert [eligible(index[h]) for h in [(1, 0), SPOT_A, (4, 0), (5, 0)]] == [False, False, False, False]


def test_dp20_unit_type_table_from_the_config() -> None:
    r = board_e(scout_speed=9, soldier_attack=71)
    stats = r.state.stats
    assert [(s.health, s.attack, s.capacity, s.view, s.spawn_weight) for s in stats] == [
        (130, 30, 8, 1, 60),
        (180, 71, 2, 1, 30),
        (80, 20, 2, 4, 10),
    ]
    assert [s.speed for s in stats] == [5, 4, 9]
    put(r, A, X, (0, 0), "A-X1")
    assert r.submit(A, {"moves": [{"ant": "A-X1", "path": [{"q": k, "r": 0} for k in range(1, 11)]}]}) == [
        "ant A-X1 cannot move more than 9 tiles, but tried to move 10 tiles"
    ]


def test_dp21_dp95_unit_ids_are_uuid4_from_the_ids_stream() -> None:
    from botarena.games.datspulse.rules import new_unit_id

    r = board_e()
    force(r, "ids", b"\xff" * 16, b"\x00" * 16)
    assert new_unit_id(r.streams) == "ffffffff-ffff-4fff-bfff-ffffffffffff"
    assert new_unit_id(r.streams) == "00000000-0000-4000-8000-000000000000"
    assert UUID4.match(new_unit_id(r.streams))


def test_dp30_calories_per_food_type() -> None:
    r = board_e()
    put(r, A, W, SPOT_A, "A-W1", cargo=(APPLE, 3))
    put(r, A, S, HOME_A[1], "A-S1", cargo=(BREAD, 2))
    put(r, A, X, HOME_A[2], "A-X1", cargo=(NECTAR, 1))
    logs = r.transition()
    assert r.state.teams[A].score == 3 * 10 + 2 * 20 + 1 * 60
    assert "ant A-X1 stocked up 1 Nectar (60 cal)" in texts(logs[A])
    nectar_invariant(r)


def test_dp31_dp86_dropped_food_merges_into_one_pile_per_hex() -> None:
    r = board_e()
    put(r, B, W, (0, 0), "B-W1", health=10, cargo=(BREAD, 3))
    put(r, A, S, (1, 0), "A-S1")
    pile(r, (0, 0), BREAD, 20)
    force(r, "order", [A, B])
    r.transition()
    assert pile_at(r, (0, 0)) == (BREAD, 23)  # above food_max_amount by merging, still one pile


def test_dp32_cargo_capacity_and_one_food_type() -> None:
    r = board_e()
    x = put(r, A, X, (0, 0), "A-X1")
    w = put(r, A, W, (2, 0), "A-W1", cargo=(APPLE, 6))
    pile(r, (0, 0), BREAD, 10)
    pile(r, (2, 0), APPLE, 10)
    r.transition()
    assert (x.cargo_type, x.cargo_amount) == (BREAD, 2) and pile_at(r, (0, 0)) == (BREAD, 8)
    assert (w.cargo_type, w.cargo_amount) == (APPLE, 8) and pile_at(r, (2, 0)) == (APPLE, 8)
    r.transition()  # full: nothing more is taken
    assert x.cargo_amount == 2 and pile_at(r, (0, 0)) == (BREAD, 8)


def test_dp95_round_create_takes_an_injected_stream_source() -> None:
    from dp_testkit import ForcedSource

    source = ForcedSource(3)
    source("map").queue.append(2)  # `any`: the first map draw picks zones
    rnd = Round.create(datspulse_config("default", {"map_radius": 16}), 3, ["a", "b"], streams=source)
    assert rnd.generator == "zones"
    assert source("ids").calls == ["bytes"] * 6  # three starters per team (DP-50)
