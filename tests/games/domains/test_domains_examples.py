"""Spec section 9: every worked example, as written."""

from __future__ import annotations

from domains_testkit import (
    ab,
    at,
    bare_game,
    bonus,
    bubble,
    flags,
    make_config,
    mv,
    paint,
    painted,
    play,
    pos,
    rect,
    script,
    trail,
    trail_cells,
    unit,
)

from botarena.games.domains.rng import ReferenceRandom
from botarena.games.domains.rules import DomainsGame
from botarena.games.domains.state import Direction as D


def test_example1_reference_generator_dr2_dr6() -> None:
    source = ReferenceRandom(1)
    assert (source.index, source.jump) == (1, 2)
    assert source.draw(0, 4) == 0  # digits 1 9 6 3 8: N = 19638
    assert source.index == 11
    assert [source.draw(0, 4) for _ in range(3)] == [3, 2, 1]
    assert source.index == 41
    assert source.draw(3, 3) == 3 and source.index == 41  # R(l, l) consumes nothing
    again = ReferenceRandom(109704)
    assert (again.index, again.jump) == (1, 2)
    game = DomainsGame(make_config(rng="reference"), 1)
    assert game.state.bonus_counter == [-1, 2, 1, 0]
    assert game.source.index == 41  # type: ignore[attr-defined]


def test_example2_initial_frame_and_interleaving_dr7_dr10() -> None:
    game = DomainsGame(make_config(rng="reference", board_height=6, board_width=6), 1)
    assert game.frames[0] == "0 0 0 3<G1<G1<G4<G1<;1<G4<G1<G1<G1;G1;G1;G4;G1;:1;G4;G1;G1;G"
    play(game, [mv(0, D.UR)], [mv(1, D.down)])
    assert game.source.index == 51  # type: ignore[attr-defined]
    assert game.frames[1] == "0 9 9 10<G6<;4;:5;G"
    assert pos(game, 0) == (3, 2) and pos(game, 1) == (2, 4)
    assert trail_cells(game, 0) == set() and trail_cells(game, 1) == set()


def example3_start() -> DomainsGame:
    game = bare_game(8, 8)
    paint(game, 0, rect(5, 7, 0, 2))
    unit(game, 0, 0, 5, 2)
    return game


def test_example3_enclosure_dr17_dr19() -> None:
    game = example3_start()
    points = []
    for step in (D.up, D.right, D.right, D.down, D.down, D.left):
        play(game, [mv(0, step)])
        points.append(game.state.points[0])
    assert trail_cells(game, 0) == {(4, 2), (4, 3), (4, 4), (5, 4), (6, 4), (6, 3)}
    assert game.state.unit_record[0] == (game.state.index(5, 2), game.state.index(4, 2))
    play(game, [mv(0, D.left)])
    points.append(game.state.points[0])
    assert pos(game, 0) == (6, 2)
    assert trail_cells(game, 0) == set()
    assert game.state.unit_record[0] is None
    assert painted(game, 0) == set(rect(5, 7, 0, 2)) | {
        (4, 2),
        (4, 3),
        (4, 4),
        (5, 4),
        (6, 4),
        (6, 3),
        (5, 3),
    }
    assert len(painted(game, 0)) == 16
    assert points == [9, 18, 27, 36, 45, 54, 70]


def test_example4_the_board_edge_never_seals_dr19() -> None:
    game = bare_game(8, 8)
    paint(game, 0, rect(3, 7, 2, 4))
    unit(game, 0, 0, 3, 2)
    for step in (D.up, D.left, D.left, D.down, D.down, D.down, D.right):
        play(game, [mv(0, step)])
    assert trail_cells(game, 0) == {(2, 2), (2, 1), (2, 0), (3, 0), (4, 0), (5, 0), (5, 1)}
    play(game, [mv(0, D.right)])
    assert pos(game, 0) == (5, 2)
    owned = painted(game, 0)
    assert {(3, 1), (4, 1)} <= owned
    assert not {(6, 0), (6, 1), (7, 0), (7, 1)} & owned
    assert len(owned) == 24
    assert game.state.points[0] == 7 * 15 + 24


def test_example5_own_trail_and_diagonal_exits_dr17() -> None:
    game = example3_start()
    for step in (D.up, D.up, D.right, D.down):
        play(game, [mv(0, step)])
    assert trail_cells(game, 0) == {(4, 2), (3, 2), (3, 3), (4, 3)}
    play(game, [mv(0, D.left)])
    assert pos(game, 0) == (4, 2)
    assert trail_cells(game, 0) == set()
    assert game.state.unit_record[0] is None
    assert game.state.painter[game.state.index(4, 2)] == -1
    fresh = example3_start()
    play(fresh, [mv(0, D.UR)])
    play(fresh, [mv(0, D.right)])
    assert pos(fresh, 0) == (4, 4)
    assert trail_cells(fresh, 0) == set() and fresh.state.unit_record[0] is None


def example6_start(defender_energy: int) -> DomainsGame:
    game = bare_game(8, 8)
    paint(game, 0, [(3, 3), (3, 4)])
    paint(game, 1, [(4, 3), (4, 4)])
    unit(game, 0, 0, 3, 3)
    unit(game, 1, 1, 4, 3, energy=defender_energy)
    return game


def test_example6_fair_fight_by_a_move_dr13_dr20() -> None:
    game = example6_start(5)
    source = script(game, 4, 2, 1)
    play(game, [mv(0, D.down)])
    assert [c[:2] for c in source.calls] == [(0, 5), (0, 5), (0, 1)]
    assert game.state.unit_owner[1] == -1 and pos(game, 1) is None
    assert pos(game, 0) == (4, 3)
    assert trail_cells(game, 0) == {(4, 3)}
    assert game.state.painter[game.state.index(4, 3)] == 1  # an `A`: trail over enemy paint
    assert game.state.unit_energy[0] == 3
    assert game.state.points == [502, 2]


def test_example6_variant_tie_goes_to_the_defender_dr20() -> None:
    game = example6_start(7)
    source = script(game, 3, 3, 0, 1)
    play(game, [mv(0, D.down)])
    assert [c[:2] for c in source.calls] == [(0, 5), (0, 7), (0, 1), (0, 1)]
    assert game.state.unit_owner[0] == -1
    assert pos(game, 1) == (4, 3)
    assert game.state.unit_energy[1] == 7
    assert game.state.points == [2, 502]


def test_example7_unfair_kill_makes_no_draws_dr13() -> None:
    game = bare_game(8, 8)
    paint(game, 0, [(3, 3), (3, 4)])
    unit(game, 0, 0, 3, 3)
    unit(game, 1, 1, 4, 2, energy=20)
    source = script(game)
    play(game, [mv(0, D.DL)])
    assert source.calls == []
    assert game.state.unit_owner[1] == -1
    assert pos(game, 0) == (4, 2)
    assert trail_cells(game, 0) == set()
    assert game.state.unit_energy[0] == 5
    assert game.state.points[0] == 502


def test_example8_recolour_and_timed_pop_dr13_dr24_dr22() -> None:
    game = bare_game(8, 8)
    paint(game, 0, [(3, 3), (3, 4)])
    paint(game, 1, [(4, 3), (4, 4), (5, 3), (5, 4)])
    bubble(game, 0, 1, 4, 3)
    unit(game, 0, 0, 3, 3)
    play(game, [mv(0, D.down)])
    state = game.state
    assert state.bubble_colour[0] == 0 and pos(game, 0) == (3, 3)
    assert state.bubble_rtp[0] == 2
    play(game)
    assert state.bubble_rtp[0] == 1
    play(game)
    assert state.bubble_colour[0] == -1 and state.bubble_at[state.index(4, 3)] == -1
    assert {(4, 3), (3, 3), (5, 3), (4, 2), (4, 4)} <= painted(game, 0)
    assert state.points == [5010, 9]


def test_example9_own_colour_pop_closes_a_trail_dr22() -> None:
    game = bare_game(8, 8)
    paint(game, 0, [(3, 2), (3, 3), (3, 4)])
    bubble(game, 0, 0, 5, 3)
    unit(game, 0, 0, 3, 2)
    play(game, [mv(0, D.down)])
    play(game, [mv(0, D.right)])
    assert trail_cells(game, 0) == {(4, 2), (4, 3)}
    play(game, [mv(0, D.down)])
    assert pos(game, 0) == (5, 3)
    assert trail_cells(game, 0) == set()
    assert painted(game, 0) == {(3, 2), (3, 3), (3, 4), (4, 2), (4, 3), (5, 3), (6, 3), (5, 2), (5, 4)}
    assert game.state.points[0] == 515


def test_example10_ability_zone_blocks_then_expires_dr16_dr25_dr26_dr12() -> None:
    game = bare_game(12, 12)
    paint(game, 0, [(5, 5)])
    paint(game, 1, [(2, 4)])
    unit(game, 0, 0, 5, 5, upgraded=True)
    unit(game, 1, 1, 5, 9)
    unit(game, 2, 1, 4, 2)
    trail(game, 2, 1, [(3, 4), (4, 4), (4, 3), (4, 2)])
    game.state.unit_record[2] = (game.state.index(2, 4), game.state.index(3, 4))
    script(game, 0)
    play(game, [ab(0)], [mv(1, D.left)])
    assert pos(game, 1) == (5, 8)
    assert flags(game) == {cell: 10 for cell in rect(3, 7, 3, 7)}
    assert painted(game, 0) == set(rect(3, 7, 3, 7))
    assert trail_cells(game, 2) == set() and game.state.unit_record[2] is None
    assert pos(game, 2) == (4, 2)
    assert not game.state.unit_upgraded[0]
    assert game.state.points[0] == 25
    for r in range(1, 11):
        play(game, [], [mv(1, D.left)])
        assert pos(game, 1) == (5, 8), r
        assert game.events and game.events[-1][-1] == "SHUT_OUT"
        countdown = 10 - r
        assert set(flags(game).values()) == ({countdown} if countdown else set())
    play(game, [], [mv(1, D.left)])
    assert pos(game, 1) == (5, 7)


def test_example11_ability_overlap_cancels_both_dr25() -> None:
    game = bare_game(12, 12)
    unit(game, 0, 0, 5, 2, upgraded=True)
    unit(game, 1, 1, 5, 6, upgraded=True)
    script(game, 0)
    play(game, [ab(0)], [ab(1)])
    assert flags(game) == {} and painted(game, 0) == set() and painted(game, 1) == set()
    assert not game.state.unit_upgraded[0] and not game.state.unit_upgraded[1]
    apart = bare_game(12, 12)
    unit(apart, 0, 0, 5, 2, upgraded=True)
    unit(apart, 1, 1, 5, 7, upgraded=True)
    script(apart, 1)
    play(apart, [ab(0)], [ab(1)])
    assert painted(apart, 0) == set(rect(3, 7, 0, 4))
    assert painted(apart, 1) == set(rect(3, 7, 5, 9))


def test_example12_attack_chase_case_c_dr15() -> None:
    game = bare_game(8, 8)
    paint(game, 0, [(3, 3), (3, 4), (4, 3)])
    paint(game, 1, [(3, 5), (4, 4), (4, 5)])
    unit(game, 0, 0, 3, 3, energy=8)
    unit(game, 1, 1, 3, 4, energy=5)
    source = script(game, 1, 6, 2, 1)
    play(game, [at(0, D.right)], [mv(1, D.down)])
    assert [c[:2] for c in source.calls] == [(0, 1), (0, 8), (0, 5), (0, 1)]
    assert game.state.unit_owner[1] == -1
    assert game.state.unit_energy[0] == 8
    assert game.state.points[0] == 500 + 3  # a kill and three squares


def test_example13_free_attack_dr15_dr23() -> None:
    game = bare_game(8, 8)
    paint(game, 0, [(3, 3), (3, 4), (4, 3)])
    paint(game, 1, [(3, 5), (3, 6), (4, 4), (4, 5)])
    unit(game, 0, 0, 3, 3, energy=8)
    unit(game, 1, 1, 3, 4)
    unit(game, 2, 1, 4, 4)
    source = script(game, 1, 0, 3, 1)
    play(game, [at(0, D.right)], [mv(1, D.right), mv(2, D.up)])
    assert [c[:2] for c in source.calls] == [(0, 1), (0, 1), (0, 8), (0, 5)]
    assert pos(game, 1) == (3, 5)
    assert game.state.unit_owner[2] == -1
    assert game.state.unit_energy[0] == 9
    assert game.state.points[0] == 500 + 3


def test_example14_a_bonus_at_the_limit_dr13_dr31() -> None:
    game = bare_game(8, 8)
    unit(game, 0, 0, 1, 1, upgraded=True)
    unit(game, 2, 0, 4, 4)
    bonus(game, 1, 4, 5)
    script(game, 3)
    play(game, [mv(2, D.right)])
    state = game.state
    assert pos(game, 2) == (4, 5)
    assert not state.unit_upgraded[2]
    assert state.bonus_pos[1] == -1
    assert state.bonus_counter[1] == 3  # R(0,4) - 1 = 2, then phase K


def test_example15_whole_game_timing_dr29_dr31() -> None:
    game = DomainsGame(make_config(rng="reference"), 1)
    state = game.state
    units_p0 = []
    new_bonuses = []
    for r in range(25):
        before = set(state.bonus_pos)
        play(game)
        new_bonuses.append({state.xy(q) for q in set(state.bonus_pos) - before if q >= 0})
        units_p0.append(len(state.living_units(0)))
        if r == 1:
            assert state.bonus_pos[0] == state.index(19, 14)
            assert new_bonuses[1] == {(19, 14)}
        if r == 2:
            assert new_bonuses[2] == {(10, 10), (9, 41)}
            assert pos(game, 2) == (47, 1) and state.unit_owner[2] == 0 and state.unit_energy[2] == 6
            assert pos(game, 3) == (0, 49) and state.unit_owner[3] == 1 and state.unit_energy[3] == 6
        if r == 3:
            assert new_bonuses[3] == {(17, 26)}
        if r == 13:
            assert state.bubble_colour[0] == -1
        if r == 14:
            assert state.bubble_colour[:2] == [0, 1]
            assert state.xy(state.bubble_pos[0]) == (49, 1) and state.xy(state.bubble_pos[1]) == (2, 48)
        if r == 18:
            assert state.xy(state.bubble_pos[0]) == (49, 1)
        if r == 19:
            assert state.xy(state.bubble_pos[0]) == (49, 2)
        if r == 20:
            block = set(rect(47, 49, 0, 2))
            assert len(state.living_units(0)) == 8
            held = {state.xy(state.unit_pos[u]) for u in state.living_units(0)} | {
                state.xy(state.bubble_pos[0])
            }
            assert held == block
        if r == 23:
            assert state.respawn_counter[0] == 2
        if r == 24:
            assert state.xy(state.bubble_pos[0]) == (49, 3)
            assert len(state.living_units(0)) == 9
            newest = max(state.living_units(0))
            assert pos(game, newest) == (49, 2)
    assert units_p0[:3] == [1, 1, 2] and units_p0[5] == 3
