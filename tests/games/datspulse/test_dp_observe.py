"""§4 observations and §3.9 visibility: exact bytes and key order, omitted optionals, hidden information."""

from __future__ import annotations

import orjson
from dp_testkit import HOME_B, SPOT_A, A, B, S, W, X, board_e, force, order, pile, pos, put

from botarena.games.datspulse.hexgrid import distance
from botarena.games.datspulse.state import FoodType


def test_s4_s71_arena_bytes_and_key_order() -> None:
    r = board_e(spot_view=0, worker_view=0, unit_limit=1)
    put(r, A, W, (0, 0), "A-W1")
    r.state.teams[A].score = 60
    r.state.teams[A].nectar = [1, 0, 0]
    order(r, A, "A-W1", (1, 0))
    r.transition()
    order(r, A, "A-W1", (2, 0))
    expected = (
        b'{"ants":[{"q":1,"r":0,"type":0,"health":130,"id":"A-W1","lastMove":[{"q":1,"r":0}],'
        b'"move":[{"q":2,"r":0}],"food":{"type":0,"amount":0}}],"enemies":[],'
        b'"map":[{"q":1,"r":0,"cost":1,"type":2},{"q":-5,"r":6,"cost":1,"type":1}],'
        b'"food":[{"q":-5,"r":6,"type":3,"amount":1}],"turnNo":1,"nextTurnIn":1.5,'
        b'"home":[{"q":-5,"r":6},{"q":-5,"r":5},{"q":-6,"r":5}],"score":60,"spot":{"q":-5,"r":6}}'
    )
    assert orjson.dumps(r.arena(A, 1.5)) == expected


def test_s4_optional_ant_keys_order_and_omission() -> None:
    r = board_e()
    put(r, A, S, (0, 0), "A-S1")
    put(r, A, W, (3, 3), "A-W2")
    put(r, B, W, (1, 0), "B-W1")
    force(r, "order", [A, B])
    order(r, A, "A-S1", (0, 1))
    r.transition()
    ants = {a["id"]: a for a in r.arena(A, 0)["ants"]}
    # A-S1 attacked (step 3) from (0,0), then moved to (0,1)
    assert list(ants["A-S1"]) == [
        "q",
        "r",
        "type",
        "health",
        "id",
        "lastMove",
        "lastAttack",
        "lastEnemyAnt",
        "food",
    ]
    assert ants["A-S1"]["lastAttack"] == {"q": 1, "r": 0} and ants["A-S1"]["lastEnemyAnt"] == "B-W1"
    assert list(ants["A-W2"]) == ["q", "r", "type", "health", "id", "food"]
    order(r, A, "A-W2", (4, 3))
    assert list(r.arena(A, 0)["ants"][1]) == ["q", "r", "type", "health", "id", "move", "food"]
    for ant in r.arena(A, 0)["ants"]:
        assert all(v is not None for v in ant.values())


def test_s4_types_are_ints_and_arrays_never_null() -> None:
    r = board_e()
    put(r, A, W, (0, 0), "A-W1", cargo=(FoodType.APPLE, 3))
    arena = r.arena(A, 2)
    for key in ("ants", "enemies", "map", "food", "home"):
        assert isinstance(arena[key], list)
    for tile in arena["map"]:
        assert list(tile) == ["q", "r", "cost", "type"]
        assert all(type(v) is int for v in tile.values())
    ant = arena["ants"][0]
    assert all(type(ant[k]) is int for k in ("q", "r", "type", "health"))
    assert ant["food"] == {"type": 1, "amount": 3}


def test_dp90_we16_visibility_along_last_move() -> None:
    r = board_e(unit_limit=1)
    put(r, A, W, (0, 0), "A-W1")
    order(r, A, "A-W1", (1, 0), (2, 0))
    r.transition()
    seen = r.visible_hexes(A)
    assert len(seen) == 29
    assert {(0, -1), (0, 0), (0, 1)} <= set(seen)
    assert seen == sorted(seen, key=lambda h: (h[1], h[0]))
    assert len(r.arena(A, 0)["map"]) == 29
    r.transition()
    assert len(r.visible_hexes(A)) == 26


def test_dp90_spot_view_and_unit_view_radius() -> None:
    r = board_e(unit_limit=1)
    put(r, A, X, (0, 0), "A-X1")  # scout: view 4 -> 61 hexes, disjoint from the spot's 19
    assert len(r.visible_hexes(A)) == 61 + 19
    assert all(distance(h, (0, 0)) <= 4 or distance(h, SPOT_A) <= 2 for h in r.visible_hexes(A))


def test_dp24_dp90_corpse_gives_vision_for_one_turn() -> None:
    r = board_e(unit_limit=1)
    put(r, A, W, (0, 0), "A-W1", health=10)
    put(r, B, S, (1, 0), "B-S1")
    force(r, "order", [B, A])
    r.transition()
    corpse = r.arena(A, 0)["ants"][0]
    assert corpse["health"] == 0 and corpse["food"] == {"type": 0, "amount": 0}
    assert (0, 0) in r.visible_hexes(A)
    r.transition()  # step 0 removes the corpse (and A, now below the limit, spawns on its spot)
    assert "A-W1" not in [a["id"] for a in r.arena(A, 0)["ants"]]
    assert (0, 0) not in r.visible_hexes(A)


def test_s4_hidden_information_never_appears() -> None:
    r = board_e(unit_limit=1)
    put(r, A, W, (0, 0), "A-W1")
    put(r, B, W, (1, 0), "B-W-visible")
    put(r, B, S, (4, 4), "B-S-hidden")
    pile(r, (0, 1), FoodType.BREAD, 5)
    pile(r, (6, 6), FoodType.APPLE, 5)
    r.state.teams[B].score = 600
    r.state.teams[B].nectar = [10, 0, 0]
    arena = r.arena(A, 0)
    blob = orjson.dumps(arena)
    assert b"B-W-visible" not in blob and b"B-S-hidden" not in blob
    assert b"600" not in blob
    assert arena["enemies"] == [
        {"q": 1, "r": 0, "type": 0, "health": 130, "food": {"type": 0, "amount": 0}, "attack": 30}
    ]
    assert [(f["q"], f["r"]) for f in arena["food"]] == [(0, 1)]
    visible = set(r.visible_hexes(A))
    assert all((t["q"], t["r"]) in visible for t in arena["map"])
    assert all(h not in visible for h in HOME_B)
    assert "score" in arena and arena["score"] == 0


def test_s4_enemy_anthill_nectar_shown_when_visible() -> None:
    r = board_e(unit_limit=1)
    put(r, A, X, (7, -5), "A-X1")  # a scout 2..4 from B's hexes sees them all
    r.state.teams[B].score = 360
    r.state.teams[B].nectar = [0, 5, 1]
    food = r.arena(A, 0)["food"]
    assert {"q": 5, "r": -7, "type": 3, "amount": 5} in food
    assert {"q": 4, "r": -7, "type": 3, "amount": 1} in food
    assert not any((f["q"], f["r"]) == (5, -6) for f in food)  # an empty store is not listed
    tiles = {(t["q"], t["r"]): t for t in r.arena(A, 0)["map"]}
    assert tiles[(5, -6)]["type"] == 1


def test_s4_enemies_sorted_by_row_column_type_without_ids() -> None:
    r = board_e(unit_limit=1)
    put(r, A, X, (0, 0), "A-X1")
    put(r, B, S, (2, 1), "B-S1")
    put(r, B, W, (2, 1), "B-W1")
    put(r, B, W, (-1, -2), "B-W2")
    put(r, B, X, (3, -1), "B-X1")
    enemies = r.arena(A, 0)["enemies"]
    assert [(e["q"], e["r"], e["type"]) for e in enemies] == [(-1, -2, 0), (3, -1, 2), (2, 1, 0), (2, 1, 1)]
    assert all(list(e) == ["q", "r", "type", "health", "food", "attack"] for e in enemies)
    assert [e["attack"] for e in enemies] == [30, 20, 30, 70]


def test_s4_corpses_are_not_enemies() -> None:
    r = board_e(unit_limit=1)
    put(r, A, X, (0, 0), "A-X1")
    put(r, B, W, (2, 2), "B-W1", health=0)
    assert r.arena(A, 0)["enemies"] == []


def test_s4_spectator_frame_and_terrain() -> None:
    r = board_e(unit_limit=2)
    put(r, A, W, (0, 0), "A-W1", cargo=(FoodType.BREAD, 2))
    put(r, B, X, (3, 3), "B-X1")
    pile(r, (1, 1), FoodType.APPLE, 4)
    order(r, A, "A-W1", (1, 0))
    logs = r.transition()
    frame = r.spectator_frame()
    assert list(frame) == ["turnNo", "teams", "units", "food", "events"]
    assert frame["turnNo"] == 1
    assert frame["teams"][0] == {
        "index": 0,
        "name": "A",
        "score": 0,
        "spot": {"q": -5, "r": 6},
        "home": [{"q": -5, "r": 6}, {"q": -5, "r": 5}, {"q": -6, "r": 5}],
        "nectar": [0, 0, 0],
        "unitsLost": 0,
    }
    units = {u["id"]: u for u in frame["units"]}
    assert units["A-W1"]["lastMove"] == [{"q": 1, "r": 0}]
    assert units["A-W1"]["food"] == {"type": 2, "amount": 2}
    assert "lastMove" not in units["B-X1"]
    assert frame["food"] == [{"q": 1, "r": 1, "type": 1, "amount": 4}]
    events = [(e["team"], e["message"]) for e in frame["events"]]
    assert sorted(events) == sorted((t, line) for t, lines in logs.items() for line in lines)
    terrain = r.terrain()
    assert terrain["radius"] == 10 and len(terrain["tiles"]) == 331
    assert terrain["tiles"][0] == [-5, -10, 2]
    assert [-5, 6, 1] in terrain["tiles"]


def test_s4_spectator_frame_sees_everything() -> None:
    r = board_e(unit_limit=1)
    put(r, A, W, (0, 0), "A-W1")
    put(r, B, W, (5, -9), "B-W1")
    frame = r.spectator_frame()
    assert {u["id"] for u in frame["units"]} == {"A-W1", "B-W1"}
    assert pos(r, r.state.by_id["B-W1"]) == (5, -9)


def test_s4_arenas_share_no_objects() -> None:
    # in-process bots receive the arena itself: changing one must not leak into another or the state
    r = board_e(unit_limit=1)
    put(r, A, W, (0, 0), "A-W1")
    first = r.arena(A, 1.0)
    first["map"][0]["type"] = 99
    first["ants"][0]["food"]["amount"] = 50
    first["home"][0]["q"] = 7
    second = r.arena(A, 1.0)
    assert second["map"][0]["type"] != 99
    assert second["ants"][0]["food"]["amount"] == 0
    assert second["home"][0]["q"] == -5
    assert r.terrain()["tiles"][0][2] == 2


def test_s4_prepared_views_give_the_same_arena() -> None:
    # Round.prepare_views (the real-time server's warm-up at round start) builds the §4 map entries
    # ahead of time; what a team sees is byte for byte what it sees without it.
    def played(prepare: bool) -> list[bytes]:
        r = board_e(unit_limit=2)
        put(r, A, W, (0, 0), "A-W1")
        put(r, B, X, (2, 0), "B-X1")
        if prepare:
            r.prepare_views()
        order(r, A, "A-W1", (1, 0))
        seen = [orjson.dumps(r.arena(team, 1.0)) for team in (A, B)]
        r.transition()
        return seen + [orjson.dumps(r.arena(team, 0.5)) for team in (A, B)]

    assert played(True) == played(False)
