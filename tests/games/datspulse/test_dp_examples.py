"""The worked examples of spec §9 (WE-3 to WE-17) on Board E, with the forced draws §11 mentions.

(WE-1 is in test_dp_hexgrid.py, WE-2 and WE-15 in test_dp_actions.py, WE-16 also in test_dp_observe.py.)
"""

from __future__ import annotations

from dp_testkit import (
    HOME_A,
    HOME_B,
    SPOT_A,
    A,
    B,
    S,
    W,
    X,
    board_e,
    draw_count,
    force,
    hexes,
    nectar_invariant,
    order,
    pile,
    pile_at,
    pos,
    put,
    texts,
)

from botarena.games.datspulse.config import datspulse_config
from botarena.games.datspulse.engine import Round
from botarena.games.datspulse.hexgrid import distance
from botarena.games.datspulse.rules import round_places, round_points
from botarena.games.datspulse.standings import standings
from botarena.games.datspulse.state import FoodType, Terrain, Unit

DIRT, ACID, STONE = Terrain.DIRT, Terrain.ACID, Terrain.STONE
APPLE, BREAD, NECTAR = FoodType.APPLE, FoodType.BREAD, FoodType.NECTAR


def about(lines: list[str], ant: str) -> list[str]:
    return [t for t in texts(lines) if t.startswith(f"ant {ant} ")]


def test_we3_dp75_movement_points_and_dirt() -> None:
    r = board_e(terrain={(2, 0): DIRT, (3, 0): DIRT})
    w = put(r, A, W, (0, 0), "A-W1")
    order(r, A, "A-W1", (1, 0), (2, 0), (3, 0), (4, 0))
    logs = r.transition()
    assert pos(r, w) == (3, 0)
    assert hexes(r, w.last_move) == [(1, 0), (2, 0), (3, 0)]
    assert about(logs[A], "A-W1") == [
        "ant A-W1 cannot move to {4 0}, not enough movement points",
        "ant A-W1 moved from {0 0} to {3 0} (dirt on path: 2)",
    ]
    assert logs[A][0].startswith("turn 1: ")


def test_we4_dp22_blocking_by_own_units_of_the_same_type() -> None:
    r = board_e()
    s1 = put(r, A, S, (0, 0), "A-S1")
    put(r, A, W, (1, 0), "A-W1")
    put(r, A, S, (2, 0), "A-S2")
    order(r, A, "A-S1", (1, 0), (2, 0), (3, 0))
    logs = r.transition()
    assert pos(r, s1) == (1, 0)
    assert about(logs[A], "A-S1") == [
        "ant A-S1 cannot move to {2 0}, your own ant A-S2 with same type is there",
        "ant A-S1 moved from {0 0} to {1 0}",
    ]


def test_we4_dp75_blocking_by_stone() -> None:
    r = board_e(terrain={(2, 0): STONE})
    s1 = put(r, A, S, (0, 0), "A-S1")
    put(r, A, W, (1, 0), "A-W1")
    order(r, A, "A-S1", (1, 0), (2, 0), (3, 0))
    logs = r.transition()
    assert pos(r, s1) == (1, 0)
    assert about(logs[A], "A-S1")[0] == "ant A-S1 cannot move to {2 0} Rock tile"


def we5() -> tuple[Round, Unit, Unit]:
    r = board_e()
    x1 = put(r, A, X, (0, 0), "A-X1")
    w1 = put(r, B, W, (2, 1), "B-W1")
    order(r, A, "A-X1", (1, 0), (2, 0), (3, 0))
    order(r, B, "B-W1", (2, 0))
    return r, x1, w1


def test_we5_dp72_team_priority_b_first() -> None:
    r, x1, w1 = we5()
    force(r, "order", [B, A])
    logs = r.transition()
    assert pos(r, w1) == (2, 0)
    assert pos(r, x1) == (1, 0)
    assert about(logs[A], "A-X1")[0] == "ant A-X1 cannot move to {2 0}, enemy ant is there"
    assert x1.health == 80 and w1.health == 130  # they fight in the next transition


def test_we5_dp72_team_priority_a_first() -> None:
    r, x1, w1 = we5()
    force(r, "order", [A, B])
    r.transition()
    assert pos(r, x1) == (3, 0)
    assert pos(r, w1) == (2, 0)
    # adjacent now, so the next transition's step 3 makes them fight
    force(r, "order", [A, B])
    r.transition()
    assert x1.health < 80 and w1.health < 130


def test_we6_dp75_dp76_acid() -> None:
    r = board_e(terrain={(1, 0): ACID, (2, 0): ACID})
    w = put(r, A, W, (0, 0), "A-W1")
    order(r, A, "A-W1", (1, 0))
    logs = r.transition()
    assert w.health == 110
    assert about(logs[A], "A-W1") == [
        "ant A-W1 damaged by acid, health now 110",
        "ant A-W1 moved from {0 0} to {1 0}",
    ]
    logs = r.transition()
    assert w.health == 90
    assert about(logs[A], "A-W1") == ["ant A-W1 damaged by acid, health now 90"]
    order(r, A, "A-W1", (2, 0), (3, 0))
    r.transition()
    assert w.health == 70 and pos(r, w) == (3, 0)
    r.transition()
    assert w.health == 70


def test_we6_two_acid_hexes_cost_forty_and_nothing_more() -> None:
    r = board_e(terrain={(1, 0): ACID, (2, 0): ACID})
    w = put(r, A, W, (0, 0), "A-W1")
    order(r, A, "A-W1", (1, 0), (2, 0))
    r.transition()
    assert pos(r, w) == (2, 0) and w.health == 90


def we7() -> tuple[Round, Unit, Unit, Unit]:
    r = board_e()
    s1 = put(r, A, S, (0, 0), "A-S1")
    w1 = put(r, A, W, (0, 1), "A-W1")
    bw = put(r, B, W, (1, 0), "B-W1")
    return r, s1, w1, bw


def test_we7_dp73_dp74_combat_a_first() -> None:
    r, s1, w1, bw = we7()
    force(r, "order", [A, B])
    logs = r.transition()
    assert bw.health == 0
    assert about(logs[A], "A-S1") == ["ant A-S1 attacked enemy ant B-W1 at {1 0} for 105 damage"]
    assert about(logs[A], "A-W1") == ["ant A-W1 attacked enemy ant B-W1 at {1 0} for 45 damage"]
    assert about(logs[B], "B-W1") == [
        "ant B-W1 damaged by enemy ant, health now 25",
        "ant B-W1 killed by enemy ant",
    ]
    assert s1.health == 180 and w1.health == 130  # B-W1 never struck back
    b_ants = r.arena(B, 1.0)["ants"]
    corpse = next(a for a in b_ants if a["id"] == "B-W1")
    assert corpse["health"] == 0
    for ant in r.arena(A, 1.0)["ants"]:
        if ant["id"] in ("A-S1", "A-W1"):
            assert ant["lastAttack"] == {"q": 1, "r": 0} and ant["lastEnemyAnt"] == "B-W1"
    assert draw_count(r, "combat") == 0  # one candidate each: nothing drawn


def test_we7_dp73_combat_b_first_with_a_combat_draw() -> None:
    r, s1, w1, bw = we7()
    force(r, "order", [B, A])
    force(r, "combat", 1)
    r.transition()
    assert w1.health == 100  # B-W1 hit candidate 1 = A-W1, no support: 30
    assert s1.health == 180
    assert bw.health == 0
    assert draw_count(r, "combat") == 1


def test_we8_dp74_anthill_bonus_and_support_stack() -> None:
    r = board_e()
    s1 = put(r, A, S, (-4, 3), "A-S1")
    put(r, A, W, (-3, 4), "A-W1")
    bs = put(r, B, S, (-3, 3), "B-S1")
    force(r, "order", [A, B])
    force(r, "combat", 0)
    logs = r.transition()
    assert about(logs[A], "A-S1") == [
        "ant A-S1 attacked enemy ant B-S1 at {-3 3} for 122 damage",
        "ant A-S1 damaged by enemy ant, health now 110",
    ]
    assert about(logs[A], "A-W1") == ["ant A-W1 attacked enemy ant B-S1 at {-3 3} for 52 damage"]
    assert bs.health == 6  # 180 - 122 - 52; not hit by A's anthill (3 away)
    assert s1.health == 110  # B-S1: no bonus, 70


def test_we9_dp71_anthill_attack_once_per_turn() -> None:
    r = board_e()
    x = put(r, B, X, (-4, 4), "B-X1")
    logs = r.transition()
    assert x.health == 60
    assert about(logs[B], "B-X1")[0] == "ant B-X1 damaged by enemy anthill, health now 60"


def test_we9_dp77_the_scout_also_raids_when_the_anthill_holds_nectar() -> None:
    r = board_e()
    r.state.teams[A].score = 120
    r.state.teams[A].nectar = [0, 2, 0]
    x = put(r, B, X, (-4, 4), "B-X1")
    logs = r.transition()
    assert x.health == 60
    assert (x.cargo_type, x.cargo_amount) == (NECTAR, 2)  # one candidate hex, (-5,5): nothing drawn
    assert r.state.teams[A].nectar == [0, 0, 0] and r.state.teams[A].score == 0
    assert draw_count(r, "raid") == 0
    assert "ant B-X1 stole 2 Nectar from enemy anthill at {-5 5}" in texts(logs[B])


def test_we10_dp78_collection() -> None:
    r = board_e()
    w = put(r, A, W, (0, 0), "A-W1")
    s = put(r, A, S, (2, 0), "A-S1", cargo=(APPLE, 1))
    x = put(r, A, X, (4, 0), "A-X1")
    pile(r, (0, 0), BREAD, 11)
    pile(r, (2, 0), BREAD, 5)
    pile(r, (4, 0), APPLE, 1)
    logs = r.transition()
    assert (w.cargo_type, w.cargo_amount) == (BREAD, 8)
    assert pile_at(r, (0, 0)) == (BREAD, 3)
    assert "ant A-W1 collected 8 Bread at {0 0}" in texts(logs[A])
    assert (s.cargo_type, s.cargo_amount) == (APPLE, 1) and pile_at(r, (2, 0)) == (BREAD, 5)
    assert (x.cargo_type, x.cargo_amount) == (APPLE, 1) and pile_at(r, (4, 0)) is None


def test_we11_dp78_dp33_delivery_and_nectar() -> None:
    r = board_e()
    r.state.teams[A].score = 50
    put(r, A, W, (-6, 5), "A-W1", cargo=(BREAD, 8))
    put(r, A, X, SPOT_A, "A-X1", cargo=(APPLE, 2))
    logs = r.transition()
    team = r.state.teams[A]
    assert team.score == 230
    assert team.nectar == [0, 0, 3]  # (-6,5) gained 3, the spot 3 - 3 = 0
    assert about(logs[A], "A-W1") == ["ant A-W1 stocked up 8 Bread (160 cal)"]
    assert about(logs[A], "A-X1") == ["ant A-X1 stocked up 2 Apple (20 cal)"]
    assert {"q": -6, "r": 5, "type": 3, "amount": 3} in r.arena(A, 1.0)["food"]
    nectar_invariant(r)


def we12() -> tuple[Round, Unit]:
    r = board_e()
    victim = r.state.teams[B]
    victim.score = 400
    victim.nectar = [0, 5, 1]
    x = put(r, A, X, (7, -5), "A-X1")  # 3 from B's anthill: no step-1 hit this transition
    order(r, A, "A-X1", (7, -6), (6, -7))
    pile(r, (6, -7), APPLE, 4)
    return r, x


def test_we12_dp77_raid_draw_0() -> None:
    r, x = we12()
    force(r, "raid", 0)
    logs = r.transition()
    b = r.state.teams[B]
    assert b.nectar == [0, 3, 1] and b.score == 280
    assert (x.cargo_type, x.cargo_amount) == (NECTAR, 2)
    assert about(logs[A], "A-X1")[-1] == "ant A-X1 stole 2 Nectar from enemy anthill at {5 -7}"
    assert "enemy ant stole 2 Nectar from your anthill at {5 -7}" in texts(logs[B])
    assert pile_at(r, (6, -7)) == (APPLE, 4)  # a raider does not collect
    nectar_invariant(r)
    assert draw_count(r, "raid") == 1
    r.transition()
    assert x.health == 60  # next step 1: within 2 of B's anthill


def test_we12_dp77_raid_draw_1_then_deliver() -> None:
    r, x = we12()
    force(r, "raid", 1)
    r.transition()
    b = r.state.teams[B]
    assert b.nectar == [0, 5, 0] and b.score == 340
    assert (x.cargo_type, x.cargo_amount) == (NECTAR, 1)
    nectar_invariant(r)


def test_we12_dp78_delivering_stolen_nectar() -> None:
    r = board_e()
    r.state.teams[A].score = 230
    r.state.teams[A].nectar = [3, 0, 0]
    put(r, A, X, SPOT_A, "A-X1", cargo=(NECTAR, 2))
    r.transition()
    assert r.state.teams[A].score == 350
    assert r.state.teams[A].nectar == [5, 0, 0]
    nectar_invariant(r)


def we13(nw_food: int = APPLE, closed: bool = False) -> tuple[Round, Unit]:
    terrain = {(0, -1): STONE}
    if closed:
        terrain.update({(-1, 0): STONE, (-1, 1): STONE, (0, 1): STONE})
    r = board_e(terrain=terrain)
    bw = put(r, B, W, (0, 0), "B-W1", health=10, cargo=(APPLE, 5))
    put(r, A, S, (1, 0), "A-S1")
    pile(r, (0, 0), BREAD, 4)
    pile(r, (-1, -1), nw_food, 3)
    force(r, "order", [A, B])
    return r, bw


def test_we13_dp86_drop_merges_into_the_first_free_neighbour() -> None:
    r, bw = we13()
    logs = r.transition()
    assert bw.health == 0
    assert pile_at(r, (-1, -1)) == (APPLE, 8)
    assert pile_at(r, (0, 0)) == (BREAD, 4)
    assert about(logs[B], "B-W1") == [
        "ant B-W1 killed by enemy ant",
        "ant B-W1 dropped 5 Apple at {-1 -1}",
    ]
    assert (bw.cargo_type, bw.cargo_amount) == (0, 0)


def test_we13_dp86_drop_skips_a_pile_of_another_type() -> None:
    r, _ = we13(nw_food=BREAD)
    r.transition()
    assert pile_at(r, (-1, 0)) == (APPLE, 5)
    assert pile_at(r, (-1, -1)) == (BREAD, 3)


def test_we13_dp86_food_lost_when_no_neighbour_is_free() -> None:
    r, _ = we13(nw_food=BREAD, closed=True)
    logs = r.transition()
    assert "ant B-W1 lost 5 Apple" in texts(logs[B])
    assert sum(p[1] for p in r.state.piles.values() if p[0] == APPLE) == 0


def we14(units: int) -> Round:
    r = board_e()
    put(r, A, W, SPOT_A, "A-W1")
    put(r, A, X, SPOT_A, "A-X1")
    # the rest are workers on distinct hexes out of reach of B's anthill, off A's anthill
    far = [h for h in r.state.grid.hexes if min(distance(h, b) for b in HOME_B) > 2 and h not in HOME_A]
    cells = far[: units - 2]
    assert len(cells) == units - 2
    for k, h in enumerate(cells):
        put(r, A, W, h, f"A-W{k + 2}")
    return r


def test_we14_dp79_spawning_a_soldier() -> None:
    r = we14(57)
    force(r, "spawn", 0.72)
    logs = r.transition()
    assert "new ant spawned Soldier" in texts(logs[A])
    newest = r.state.teams[A].units[-1]
    assert newest.type == S and newest.health == 180 and pos(r, newest) == SPOT_A
    assert newest.seq == 57


def test_we14_dp79_spawn_blocked_by_the_same_type_on_the_spot() -> None:
    r = we14(57)
    force(r, "spawn", 0.31)
    logs = r.transition()
    assert "spawn skipped, Worker already on spot" in texts(logs[A])
    assert len(r.state.teams[A].units) == 57


def test_we14_dp23_unit_limit_no_draw() -> None:
    r = we14(100)
    logs = r.transition()
    assert "spawn skipped, unit limit reached" in texts(logs[A])
    assert draw_count(r, "spawn") == 1  # only B drew


def test_we17_s62_places_and_points() -> None:
    config = datspulse_config()
    scores = [500, 500, 300, 0, 0]
    places = round_places(scores)
    assert places == [1, 1, 3, 4, 4]
    assert [round_points(config, p, s) for p, s in zip(places, scores, strict=True)] == [170, 170, 86, 0, 0]


def test_we17_s63_final_standings() -> None:
    config = datspulse_config()

    def results(scores: dict[str, int], lost: dict[str, int]) -> list[dict[str, object]]:
        places = round_places(list(scores.values()))
        return [
            {
                "index": i,
                "name": n,
                "score": s,
                "place": p,
                "points": round_points(config, p, s),
                "unitsLost": lost[n],
            }
            for i, ((n, s), p) in enumerate(zip(scores.items(), places, strict=True))
        ]

    round1 = results({"A": 500, "B": 500, "C": 300}, {"A": 16, "B": 10, "C": 3})
    round2 = results({"C": 900, "A": 200, "B": 200}, {"C": 4, "A": 15, "B": 15})
    assert [r["points"] for r in round1] == [170, 170, 86]
    assert [r["points"] for r in round2] == [170, 114, 114]
    table = standings([round1, round2])
    assert [(t["name"], t["place"], t["points"], t["calories"], t["unitsLost"]) for t in table] == [
        ("B", 1, 284, 700, 25),
        ("A", 2, 284, 700, 31),
        ("C", 3, 256, 1200, 7),
    ]
    assert all(t["active"] for t in table)


def test_home_constants_match_board_e() -> None:
    r = board_e()
    assert r.arena(A, 0)["home"] == [{"q": q, "r": rr} for q, rr in HOME_A]
    assert r.arena(B, 0)["home"] == [{"q": q, "r": rr} for q, rr in HOME_B]
